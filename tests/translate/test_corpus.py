"""Every native stream of the real-stream corpus (../shared/real-streams) translates without an
exception, and ``check`` finds no error in the translation.

Anthropic Messages, Gemini, Responses and OpenAI-compatible chat captures are translated with
the dialect the MANIFEST gives (as ``--from`` would), with ``--include-usage``, whole and one
byte at a time. Warnings in the output are allowed only when listed in ``ALLOWED_WARNINGS``
(today none appears on the corpus). A few files also go through the real command line.
Skips when the corpus is absent.
"""

from __future__ import annotations

import csv
import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sseconform import Severity, check_bytes
from sseconform.translate import translate_body
from tests import forked
from tests.conftest import REAL_STREAMS
from tests.translate.shapes import one_per_shape

MANIFEST = REAL_STREAMS / "MANIFEST.tsv"
DIALECT = {
    "anthropic-messages": "anthropic",
    "gemini": "gemini",
    "responses": "responses",
    "chat-completions": "openai",
}
# Warnings a translation may carry: a tool call cut by max_tokens has arguments that are not
# JSON (F010). No other warning appears on the corpus today; a new one fails here, on purpose.
ALLOWED_WARNINGS = frozenset({"F010"})


def _rows() -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with open(MANIFEST, newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f, delimiter="\t") if r["api"] in DIALECT]


ROWS = _rows()
needs_corpus = pytest.mark.skipif(not ROWS, reason="../shared/real-streams is not present")


def _translate(body: bytes, dialect: str | None, chunks: int = 0) -> bytes:
    pieces = [body] if not chunks else [body[i : i + chunks] for i in range(0, len(body), chunks)]
    return b"".join(translate_body(pieces, dialect, include_usage=True))


#: How far into a real stream it is fed a byte at a time; the rest goes in pieces of 4 KB.
#: The 51 streams past it hold two thirds of the corpus's bytes, and feeding all of them a
#: byte at a time took most of the file's time; every split of a whole stream is tested on
#: the lane (``test_lane.py``: at 13 bytes, and a byte at a time on the made streams).
BYTE_AT_A_TIME = 32 * 1024


@functools.cache
def _bytewise_paths() -> frozenset[str]:
    """The streams also fed a byte at a time: one of each shape (:mod:`tests.translate.shapes`,
    164 of 502; every one with ``SSECONFORM_TESTS_FULL=1``). The byte-at-a-time feed was most
    of this test's 34 s of CPU; two streams of one shape cut at every byte exercise the same
    paths of the translator's incremental reading."""
    streams = [
        (r["path"], (REAL_STREAMS / r["path"]).read_bytes(), DIALECT[r["api"]]) for r in ROWS
    ]
    return one_per_shape(streams)


def _bytewise(body: bytes, dialect: str | None) -> bytes:
    head = [body[i : i + 1] for i in range(min(len(body), BYTE_AT_A_TIME))]
    rest = body[BYTE_AT_A_TIME:]
    pieces = head + [rest[i : i + 4096] for i in range(0, len(rest), 4096)]
    return b"".join(translate_body(pieces, dialect, include_usage=True))


@needs_corpus
def test_corpus_has_every_dialect() -> None:
    counts = {api: sum(r["api"] == api for r in ROWS) for api in DIALECT}
    assert all(n >= 20 for n in counts.values()), counts


@needs_corpus
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["path"])
def test_native_stream_translates_and_checks(row: dict[str, str]) -> None:
    body = (REAL_STREAMS / row["path"]).read_bytes()
    dialect = DIALECT[row["api"]]
    out = _translate(body, dialect)
    assert out.endswith(b"data: [DONE]\n\n")
    result = check_bytes(out, path=row["path"])
    assert result.error is None, result.error
    errors = [str(d) for d in result.findings if d.severity is Severity.ERROR]
    assert not errors, errors
    unexpected = result.codes - ALLOWED_WARNINGS
    assert not unexpected, [str(d) for d in result.findings]
    # incremental: the same bytes one at a time give the same translation; the rest of the
    # streams in 4 KB pieces (the lane's tests cut every real stream at 13 bytes too)
    if row["path"] in _bytewise_paths():
        assert _bytewise(body, dialect) == out
    else:
        assert _translate(body, dialect, chunks=4096) == out


# -- the command line ---------------------------------------------------------------------------

CLI_SAMPLES = [
    "anthropic/stream-events-thinking__llm-anthropic.sse",
    "anthropic/web-search-tool.1__vercel-ai.sse",
    "gemini/stream-tool-call-arguments__vercel-ai.sse",
    "openai/openairesponseswithsummarythinking-openai-gpt-5-thinking-streaming-turn1__fantasy.sse",
    "openai/error.1__vercel-ai.sse",
    "mistral/tool-call__vercel-ai.sse",
    "azure-openai/azurecommon-azure-gpt-5-mini-simple-streaming__fantasy.sse",
]


def _sseconform(*args: str | os.PathLike[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "SSECONFORM_DEBUG"}
    env.update(NO_COLOR="1", COLUMNS="100")
    return forked.completed(
        [sys.executable, "-m", "sseconform", *(os.fspath(a) for a in args)],
        cwd=cwd, env=env, timeout=120,
    )  # fmt: skip


@needs_corpus
@pytest.mark.parametrize("name", CLI_SAMPLES)
def test_cli_translate(name: str, tmp_path: Path) -> None:
    source = REAL_STREAMS / name
    if not source.is_file():
        pytest.skip(f"{name} is not in this corpus")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    [row] = [r for r in ROWS if r["path"] == name]
    expected = _translate(source.read_bytes(), DIALECT[row["api"]])

    # detected dialect, to standard output
    proc = _sseconform("translate", "--include-usage", source, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
    assert b"Traceback" not in proc.stderr

    # --from, to a file, then checked by the command line too
    out = tmp_path / "out.sse"
    proc = _sseconform(
        "translate", source, "--from", DIALECT[row["api"]], "--include-usage", "-o", out,
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b""
    assert out.read_bytes() == expected
    proc = _sseconform("check", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
