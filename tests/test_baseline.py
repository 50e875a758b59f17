"""The baseline file check and gate share: matching by count, fixed entries, notes, rewrites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sseconform import baseline as bl
from sseconform.errors import InputError


def test_match_counts_each_key() -> None:
    b = bl.Baseline("gate", {"s": {"E002": 2, "F001": 1}})
    known, fixed = b.match("s", ["E002", "E002", "E002", "W001"])
    assert known == [True, True, False, False]  # a third E002 is new
    assert fixed == ["F001"]  # accepted, not seen
    known, fixed = b.match("s", ["E002"])
    assert known == [True] and fixed == ["E002 (1 of 2)", "F001"]
    assert b.match("other", ["E002"]) == ([False], [])


def test_from_findings_leaves_out_clean_subjects() -> None:
    b = bl.from_findings("check", {"b.sse": ["F001", "E002", "F001"], "a.sse": []})
    assert b.entries == {"b.sse": {"E002": 1, "F001": 2}}


def test_round_trip_with_notes(tmp_path: Path) -> None:
    path = str(tmp_path / "known.json")
    b = bl.Baseline("gate", {"x/y": {"D001": 1}}, notes={"x/y": "upstream bug 12", "gone": "n"})
    bl.write(bl.Baseline("gate", b.entries, notes={"x/y": "upstream bug 12"}), path)
    again = bl.load(path, "gate")
    assert again.entries == b.entries and again.notes == {"x/y": "upstream bug 12"}
    assert json.loads(Path(path).read_text())["notes"] == {"x/y": "upstream bug 12"}


def test_updated_redecides_only_what_ran() -> None:
    old = bl.Baseline(
        "gate",
        {"a": {"E003": 1}, "b": {"F002": 1}, "c": {"D001": 1}},
        notes={"a": "why a", "b": "why b", "c": "why c"},
    )
    new = bl.Baseline("gate", {"b": {"F002": 1, "U004": 1}})
    got = old.updated(new, ran=["a", "b"])
    # a ran clean: its entry and note go; b is re-decided, note kept; c did not run: kept
    assert got.entries == {"b": {"F002": 1, "U004": 1}, "c": {"D001": 1}}
    assert got.notes == {"b": "why b", "c": "why c"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "line 1: not JSON"),
        ('{"format": "x"}', "not a baseline"),
        ('{"format": "sseconform-baseline", "version": 2, "kind": "gate"}', "version 2"),
        ('{"format": "sseconform-baseline", "version": 1, "kind": "check"}', "a 'check' baseline"),
        (
            '{"format": "sseconform-baseline", "version": 1, "kind": "gate",'
            ' "entries": {"s": {"E": 0}}}',
            "count above 0",
        ),
        (
            '{"format": "sseconform-baseline", "version": 1, "kind": "gate", "entries": {},'
            ' "notes": {"s": 1}}',
            '"notes" must map',
        ),
    ],
)
def test_bad_files_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        bl.load(str(path), "gate")
    assert message in str(exc.value) and "b.json" in str(exc.value)


def test_missing_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--write-baseline"):
        bl.load(str(tmp_path / "none.json"), "gate")


def test_write_is_whole_or_nothing(tmp_path: Path) -> None:
    target = tmp_path / "dir" / "known.json"  # the folder does not exist
    with pytest.raises(InputError, match="cannot write the baseline"):
        bl.write(bl.Baseline("gate"), str(target))
    assert not (tmp_path / "dir").exists()
