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


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["http://127.0.0.1:99999/v1/chat/completions"], "port 99999"),
        (["http://127.0.0.1:9/x", "-H", "x-a: caf\u00e9"], "printable ASCII"),
        (["http://127.0.0.1:9/x", "-H", "bad name: 1"], "bad header"),
        (["http://127.0.0.1:9/x", "--raw", "r.jsonl", "--force"], "the same file"),
    ],
)
def test_record_refuses_a_bad_request_and_leaves_no_file(
    tmp_path: Path, args: list[str], says: str
) -> None:
    r = run_cli("record", *args, "-d", "{}", "-o", "r.jsonl", cwd=tmp_path)
    assert r.code == 2, r.both
    assert says in r.err
    assert list(tmp_path.iterdir()) == []


def test_record_leaves_no_file_when_nothing_answers(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    r = run_cli("record", url, "-d", "{}", "-o", "r.jsonl", "--raw", "r.sse", cwd=tmp_path)
    assert r.code == 1 and "nothing recorded: could not connect" in r.err, r.both
    assert list(tmp_path.iterdir()) == []


def test_scenario_names_that_make_the_same_file_name_keep_both_recordings() -> None:
    from sseconform.gate.runner import unique_slugs

    assert unique_slugs(["a-b", "a b", "A_B", "a/b", "A-B"]) == [
        "a-b",
        "a-b-2",
        "A_B",
        "a-b-3",
        "A-B-4",
    ]
