"""Every case folder: the exact set of codes, however the bytes are split."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from sseconform import Settings, check_bytes, check_chunks
from sseconform.rules.catalog import RULES
from tests.conftest import CASES

CASE_DIRS = sorted(p for p in CASES.glob("*/*") if (p / "stream.sse").is_file())


def _settings(case: Path) -> Settings:
    s = Settings()
    extra = case / "settings.json"
    if extra.is_file():
        for key, value in json.loads(extra.read_text()).items():
            setattr(s, key, value)
    return s


def _expected(case: Path) -> set[str]:
    return {ln.strip() for ln in (case / "expected.txt").read_text().splitlines() if ln.strip()}


@pytest.mark.parametrize("case", CASE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_codes(case: Path) -> None:
    result = check_bytes((case / "stream.sse").read_bytes(), _settings(case))
    assert result.codes == _expected(case), [str(d) for d in result.diagnostics]


@pytest.mark.parametrize("case", CASE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_split_invariance(case: Path) -> None:
    body = (case / "stream.sse").read_bytes()
    whole = check_bytes(body, _settings(case)).diagnostics
    one_byte = check_chunks((body[i : i + 1] for i in range(len(body))), _settings(case))
    assert one_byte.diagnostics == whole
    rng = random.Random(case.name)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, max(2, len(body))), k=min(6, max(0, len(body) - 1))))
        pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        assert check_chunks(pieces, _settings(case)).diagnostics == whole


def test_every_code_has_a_failing_case() -> None:
    demonstrated = {p.name.split("-")[0] for p in CASES.glob("fail/*")}
    recording_only = {c for c in RULES if c.startswith("H")}
    missing = set(RULES) - demonstrated - recording_only
    assert not missing, f"rule codes with no fail/ case: {sorted(missing)}"


def test_pass_cases_have_no_error() -> None:
    for case in CASES.glob("pass/*"):
        assert all(RULES[c].severity.value == "info" for c in _expected(case)), case
