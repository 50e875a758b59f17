"""What a careless user (or a hostile tree of files) can do to ``check``: symlink loops under
a glob, ``-o`` pointed at an input or an existing file, control characters in file names."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.conftest import ROOT

GOOD = ROOT / "recordings" / "chat" / "parallel-tool-calls.jsonl"


def _tree_with_loops(tmp_path: Path) -> Path:
    top = tmp_path / "l"
    (top / "a" / "b").mkdir(parents=True)
    shutil.copy(GOOD, top / "a" / "b" / "one.jsonl")
    (top / "a" / "b" / "up").symlink_to(top)  # a loop back to the top
    (top / "a" / "self").symlink_to(top / "a")  # and one to itself
    (top / "again").symlink_to(top / "a" / "b")  # a second link to a walked directory
    return top


@pytest.mark.parametrize("arg", ["l/**/*.jsonl", "l/**", "l"])
def test_a_symlink_loop_is_walked_once(tmp_path: Path, arg: str) -> None:
    _tree_with_loops(tmp_path)
    r = run_cli("check", arg, "--format", "json", cwd=tmp_path, timeout=60)
    assert r.code == 0, r.both
    files = [f["path"] for f in json.loads(r.out)["files"]]
    assert len(files) == 1, files  # one file, however many links lead to it
    assert r.err.count("a symlink to a directory already walked") == 3, r.err


def test_check_output_never_replaces_an_input(tmp_path: Path) -> None:
    target = tmp_path / "in.jsonl"
    shutil.copy(GOOD, target)
    before = target.read_bytes()
    for extra in ([], ["--force"]):
        r = run_cli("check", target, "-o", target, *extra, cwd=tmp_path)
        assert r.code == 2, r.both
        assert "is one of the inputs" in r.err
        assert target.read_bytes() == before


def test_check_output_needs_force_to_replace_a_file(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    out.write_text("keep me", encoding="utf-8")
    r = run_cli("check", GOOD, "-o", out, cwd=tmp_path)
    assert r.code == 2 and "use --force" in r.err
    assert out.read_text(encoding="utf-8") == "keep me"
    r = run_cli("check", GOOD, "-o", out, "--force", cwd=tmp_path)
    assert r.code == 0 and "0 errors" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["text", "github", "junit", "sarif", "json"])
def test_control_characters_in_a_file_name_stay_visible(tmp_path: Path, fmt: str) -> None:
    bad = tmp_path / "x\n::error file=forged::gotcha\x1b[2J\x07.sse"
    bad.write_bytes(b'data: {"not": "a chunk"}\n\n')
    r = run_cli("check", bad, "--format", fmt, cwd=tmp_path)
    assert r.code == 1, r.both
    out = r.out
    assert "\x1b" not in out and "\x07" not in out
    if fmt in ("text", "github"):
        # no line of its own starts a workflow command nobody wrote
        assert not any(line.startswith("::error file=forged") for line in out.splitlines())
        assert "\\x1b[2J" in out or "%1B" in out.upper() or "\\x1b" in out


def test_a_bad_file_name_in_an_error_is_escaped(tmp_path: Path) -> None:
    r = run_cli("check", "nope\x1b[2J\n::error::x.sse", cwd=tmp_path)
    assert r.code == 2
    assert "\x1b" not in r.err and "\n::error" not in r.err


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_dangling_link_is_no_crash(tmp_path: Path) -> None:
    top = tmp_path / "d"
    top.mkdir()
    shutil.copy(GOOD, top / "one.jsonl")
    (top / "gone.jsonl").symlink_to(tmp_path / "missing.jsonl")
    r = run_cli("check", "d/**/*.jsonl", cwd=tmp_path)
    assert r.code in (0, 2), r.both
