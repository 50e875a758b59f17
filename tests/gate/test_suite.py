"""Gate suites: TOML files (validation, defaults, expectations) and the built-in suites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sseconform.errors import InputError, SseconformError, UsageError
from sseconform.gate.content import content_of
from sseconform.gate.scenario import EXPECTS, Scenario
from sseconform.gate.suite import DEFAULT_MODELS, builtin_suite, load_suite, recordings_dir
from sseconform.replay.plan import load
from sseconform.sse import SSEDecoder
from sseconform.wires import carries_token

TEXT = "builtin:anthropic/text-anthropic.jsonl"
TEXT_PATH = recordings_dir() / "anthropic" / "text-anthropic.jsonl"


def write(tmp_path: Path, text: str, name: str = "suite.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- a valid suite ----------------------------------------------------------------------------


def test_valid_suite(tmp_path: Path) -> None:
    (tmp_path / "streams").mkdir()
    rec = tmp_path / "streams" / "mine.jsonl"
    rec.write_bytes((recordings_dir() / "anthropic" / "text-anthropic.jsonl").read_bytes())
    path = write(
        tmp_path,
        """
name = "my gateway"
path = "/api/v1/chat/completions"
timeout = 5
speed = 0
allow = ["G010", "W001"]

[models]
anthropic = "claude-via-gateway"

[[scenario]]
name = "relative"
recording = "streams/mine.jsonl"
upstream = "anthropic"
translate = true
fault = "error-at=4"
fault_times = 1
usage = true
request = { temperature = 0, max_tokens = 64 }
expect = "content-or-error"
model = "special"
tools = false

[[scenario]]
recording = "builtin:gemini/text-gemini.jsonl"
""",
    )
    suite = load_suite(str(path))
    assert suite.name == "my gateway"
    assert suite.path == "/api/v1/chat/completions"
    assert (suite.timeout, suite.speed) == (5.0, 0.0)
    assert suite.allow == ["G010", "W001"]
    assert suite.source == str(path)
    assert suite.models == {**DEFAULT_MODELS, "anthropic": "claude-via-gateway"}
    assert suite.models["gemini"] == "sseconform-gemini"
    first, second = suite.scenarios
    assert first == Scenario(
        name="relative",
        recording=str(rec),
        upstream="anthropic",
        translate=True,
        fault="error-at=4",
        fault_times=1,
        usage=True,
        request={"temperature": 0, "max_tokens": 64},
        expect="content-or-error",
        model="special",
        tools=False,
    )
    assert Path(first.recording).is_file()
    assert first.served_dialect == "openai"  # translated: an OpenAI-compatible upstream
    assert second.name == "scenario 2"
    assert second.recording == str(recordings_dir() / "gemini" / "text-gemini.jsonl")
    assert Path(second.recording).is_file()
    assert second.upstream is None and second.served_dialect is None
    assert (second.translate, second.usage, second.fault, second.expect) == (
        False,
        False,
        None,
        None,
    )


def test_relative_recording_is_resolved_against_the_suite_file_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "suites").mkdir()
    (tmp_path / "up").mkdir()
    (tmp_path / "up" / "a.jsonl").write_bytes(TEXT_PATH.read_bytes())
    path = write(tmp_path / "suites", '[[scenario]]\nrecording = "../up/a.jsonl"\n')
    monkeypatch.chdir(tmp_path)
    suite = load_suite("suites/suite.toml")
    got = Path(suite.scenarios[0].recording)
    assert got.is_absolute()
    assert got.resolve() == tmp_path / "up" / "a.jsonl"
    assert suite.name == "suite"  # the file's stem when the suite has no name
    assert suite.source == "suites/suite.toml"
    assert path.is_file()


def test_defaults(tmp_path: Path) -> None:
    suite = load_suite(str(write(tmp_path, f'[[scenario]]\nrecording = "{TEXT}"\n')))
    assert suite.path is None and suite.path_for("anthropic") == "/v1/chat/completions"
    assert (suite.timeout, suite.speed, suite.allow) == (30.0, 1.0, [])
    assert suite.models == DEFAULT_MODELS


def test_absolute_recording_path(tmp_path: Path) -> None:
    rec = recordings_dir() / "anthropic" / "text-anthropic.jsonl"
    suite = load_suite(str(write(tmp_path, f"[[scenario]]\nrecording = '{rec}'\n")))
    assert suite.scenarios[0].recording == str(rec)


# -- expectations -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "has_error", "expected"),
    [
        (None, False, "content"),
        ("status=429", False, "rejected"),
        ("status=529", True, "rejected"),  # a status wins over the recording's error
        ("drop-after-events=5", False, "error"),
        ("drop-after-bytes=100", False, "error"),
        ("error-at=3", False, "error"),
        ("truncate-last", False, "error"),
        (None, True, "error"),
        ("stall=2@4", False, "content-or-error"),
        ("stall=2@4", True, "error"),
        ("stall=2@4,drop-after-events=9", False, "error"),
    ],
)
def test_expectation_from_fault_and_recording(
    fault: str | None, has_error: bool, expected: str
) -> None:
    assert Scenario("s", "r.jsonl", fault=fault).expectation(has_error) == expected


@pytest.mark.parametrize("expect", EXPECTS)
def test_an_explicit_expect_wins(expect: str) -> None:
    sc = Scenario("s", "r.jsonl", fault="status=429", expect=expect)
    assert sc.expectation(True) == expect


def test_expectations_of_the_builtin_anthropic_suite() -> None:
    """With the recordings read the way the runner reads them."""
    got = {}
    for sc in builtin_suite("anthropic").scenarios:
        body = b"".join(b for _, b in load(sc.recording).reads)
        has_error = content_of([body], sc.upstream).model.error is not None
        got[sc.name.split("/")[1]] = sc.expectation(has_error)
    assert got == {
        "text": "content",
        "tool-call": "content",
        "parallel-calls": "content",
        "text-then-call": "content",
        "reasoning": "content",
        "usage": "content",
        "max-tokens": "content",
        "content-filter": "content",
        "error-mid-stream": "error",  # the recording has an error event
        "rate-limited": "rejected",
        "overloaded": "rejected",
        "dropped-mid-stream": "error",
        "stall": "content-or-error",
        "slow-stream": "content",  # timing: spread over 4 s
        "slow-call": "content",  # timing: the arguments spread over 4 s
        "slow-reasoning": "content",  # timing: the thinking spread over 4 s
        "long-silence": "content",  # timing: 6 s of quiet
        "agent-loop": "content",  # and its second turn's answer
    }


# -- invalid suites ---------------------------------------------------------------------------

GOOD = f'[[scenario]]\nname = "first"\nrecording = "{TEXT}"\n\n'


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ('colour = "blue"\n' + GOOD, "top level", "unknown key(s) colour"),
        (
            GOOD + f'[[scenario]]\nname = "second"\nrecording = "{TEXT}"\nfualt = "x"\n',
            "scenario 2 ('second')",
            "unknown key(s) fualt",
        ),
        (GOOD + '[[scenario]]\nname = "second"\n', "scenario 2 ('second')", "recording = PATH"),
        (
            GOOD + f'[[scenario]]\nname = "second"\nrecording = "{TEXT}"\nfault = "explode=1"\n',
            "scenario 2 ('second')",
            "unknown fault 'explode=1'",
        ),
        (
            GOOD + f'[[scenario]]\nname = "second"\nrecording = "{TEXT}"\nfault = "status=200"\n',
            "scenario 2 ('second')",
            "bad value in fault 'status=200'",
        ),
        (
            GOOD + f'[[scenario]]\nname = "second"\nrecording = "{TEXT}"\nfault = "stall=x@2"\n',
            "scenario 2 ('second')",
            "bad value in fault 'stall=x@2'",
        ),
        (
            GOOD + f'[[scenario]]\nname = "second"\nrecording = "{TEXT}"\nexpect = "success"\n',
            "scenario 2 ('second')",
            "expect must be one of content, error, rejected, content-or-error",
        ),
        (
            GOOD + f'[[scenario]]\nname = "second"\nrecording = "{TEXT}"\nupstream = "cohere"\n',
            "scenario 2 ('second')",
            "upstream must be one of",
        ),
        (
            GOOD + f'[[scenario]]\nname = "second"\nrecording = "{TEXT}"\nfault_times = 0\n',
            "scenario 2 ('second')",
            "fault_times must be a positive integer",
        ),
        (
            GOOD + f'[[scenario]]\nname = "second"\nrecording = "{TEXT}"\nrequest = "x"\n',
            "scenario 2 ('second')",
            "request must be a table",
        ),
        (
            GOOD + f'[[scenario]]\nrecording = "{TEXT}"\nexpect = "nope"\n',
            "scenario 2:",  # no name: its number
            "expect must be one of",
        ),
        (
            GOOD + f'[[scenario]]\nname = "first"\nrecording = "{TEXT}"\n',
            "scenarios",
            "names used twice: first",
        ),
        ('[models]\ncohere = "command"\n\n' + GOOD, "[models]", "unknown dialect(s) cohere"),
        ("[models]\nanthropic = 3\n\n" + GOOD, "[models]", "a table of dialect = model name"),
        ('models = "claude"\n' + GOOD, "[models]", "a table of dialect = model name"),
        ('name = "x"\n', "top level", "no [[scenario]] tables"),
        ("allow = [1]\n" + GOOD, "allow", "a list of rule codes"),
        ('timeout = "soon"\n' + GOOD, "timeout", "a number of seconds above 0"),
        ("scenario = [1]\n", "scenario 1", "not a table"),
    ],
    ids=[
        "unknown-top-key",
        "unknown-scenario-key",
        "missing-recording",
        "unknown-fault",
        "fault-status-not-an-error",
        "fault-bad-stall",
        "bad-expect",
        "bad-upstream",
        "bad-fault-times",
        "bad-request",
        "unnamed-scenario",
        "duplicate-names",
        "unknown-models-dialect",
        "models-not-strings",
        "models-not-a-table",
        "no-scenarios",
        "bad-allow",
        "bad-timeout",
        "scenario-not-a-table",
    ],
)
def test_invalid_suite_names_the_file_and_the_place(
    tmp_path: Path, text: str, where: str, what: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(UsageError) as info:
        load_suite(str(path))
    msg = str(info.value)
    assert msg.startswith(f"{path}: {where}"), msg
    assert what in msg, msg


def test_a_bad_fault_lists_the_valid_ones(tmp_path: Path) -> None:
    path = write(tmp_path, f'[[scenario]]\nname = "a"\nrecording = "{TEXT}"\nfault = "boom"\n')
    with pytest.raises(UsageError, match="drop-after-events=N") as info:
        load_suite(str(path))
    assert "scenario 1 ('a')" in str(info.value)


def test_duplicate_names_lists_each_name_once(tmp_path: Path) -> None:
    text = "".join(f'[[scenario]]\nname = "{n}"\nrecording = "{TEXT}"\n' for n in "abab")
    with pytest.raises(UsageError) as info:
        load_suite(str(write(tmp_path, text)))
    assert str(info.value).endswith("names used twice: a, b")


def test_not_toml(tmp_path: Path) -> None:
    path = write(tmp_path, "[[scenario]\nrecording = \n")
    with pytest.raises(InputError) as info:
        load_suite(str(path))
    assert info.value.path == str(path)
    assert str(info.value).startswith(f"{path}: not valid TOML: ")
    assert "line 1" in str(info.value)  # tomllib's own location


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    with pytest.raises(InputError) as info:
        load_suite(str(path))
    assert str(info.value) == f"{path}: no such file"


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_suite(str(tmp_path))
    assert str(info.value) == f"{tmp_path}: is a directory"


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "caf\xe9"\n' + GOOD.encode())
    with pytest.raises(SseconformError) as info:
        load_suite(str(path))
    assert str(path) in str(info.value)


def test_a_recording_that_does_not_exist(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + '[[scenario]]\nname = "gone"\nrecording = "gone.jsonl"\n')
    with pytest.raises(SseconformError) as info:
        load_suite(str(path))
    assert str(path) in str(info.value)
    assert "scenario 2 ('gone')" in str(info.value)


@pytest.mark.parametrize(
    "line",
    ['translate = "false"', 'usage = "no"', "fault_times = true", "tools = 1", "model = 3"],
)
def test_wrongly_typed_scenario_values_are_refused(tmp_path: Path, line: str) -> None:
    path = write(tmp_path, f'[[scenario]]\nname = "a"\nrecording = "{TEXT}"\n{line}\n')
    with pytest.raises(UsageError, match=r"scenario 1 \('a'\)"):
        load_suite(str(path))


@pytest.mark.parametrize("line", ["timeout = -5", "timeout = 0"])
def test_out_of_range_timeout_is_refused(tmp_path: Path, line: str) -> None:
    path = write(tmp_path, f"{line}\n" + GOOD)
    with pytest.raises(UsageError, match="timeout: a number of seconds above 0"):
        load_suite(str(path))


# -- built-in suites --------------------------------------------------------------------------

LABELS = [
    "text",
    "tool-call",
    "parallel-calls",
    "calls-one-per-chunk",
    "text-then-call",
    "reasoning",
    "usage",
    "max-tokens",
    "content-filter",
    "error-mid-stream",
    "rate-limited",
    "overloaded",
    "dropped-mid-stream",
    "stall",
    "slow-stream",
    "slow-call",
    "slow-reasoning",
    "long-silence",
    "agent-loop",
    "previous-response",
]
#: labels one dialect's suite alone has
OWN = {
    "overloaded": "anthropic",
    "previous-response": "responses",
    "calls-one-per-chunk": "gemini",
}
#: Made for every dialect but these (their recording has nothing to spread).
NOT_FOR = {"slow-call": {"gemini"}}


@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "responses", "openai"])
def test_builtin_suite(dialect: str) -> None:
    suite = builtin_suite(dialect)
    assert suite.name == f"builtin:{dialect}"
    labels = [
        x for x in LABELS if OWN.get(x, dialect) == dialect and dialect not in NOT_FOR.get(x, ())
    ]
    assert [s.name for s in suite.scenarios] == [f"{dialect}/{x}" for x in labels]
    assert len(suite.scenarios) == {"anthropic": 18, "gemini": 17, "responses": 18}.get(dialect, 17)
    source = "anthropic" if dialect == "openai" else dialect
    for sc in suite.scenarios:
        assert Path(sc.recording).is_file(), sc.recording
        assert Path(sc.recording).parent == recordings_dir() / source
        assert sc.upstream == source
        assert sc.translate is (dialect == "openai")
        assert sc.served_dialect == ("openai" if dialect == "openai" else dialect)
        assert load(sc.recording).dialect == source
    by = {s.name.split("/")[1]: s for s in suite.scenarios}
    assert by["usage"].usage and not by["text"].usage
    # a conversation: turn 1's thinking and call, then the answer, from the same folder
    loop = by["agent-loop"]
    assert loop.reasoning and loop.history == "full" and len(loop.turns) == 1
    assert Path(loop.turns[0].recording).parent == recordings_dir() / source
    assert [s.name for s in suite.scenarios if s.turns and not s.reasoning] == []
    assert (by["rate-limited"].fault, by["rate-limited"].fault_times) == ("status=429", 1)
    # the drop comes just after the second event that carries output: mid-stream in every
    # dialect (Responses sends four events before its first delta), after a pause past the
    # first, so the gateway's client has had the first token too
    drop = by["dropped-mid-stream"].fault
    assert drop is not None
    pause, _, cut = drop.partition(",")
    assert pause.startswith("stall=0.2@") and cut.startswith("drop-after-events="), drop
    n, first = int(cut.split("=")[1]), int(pause.split("@")[1])
    events = [ev for ev in _events(load(by["text"].recording).body)]
    assert sum(carries_token(ev.data) for ev in events[:n]) == 2
    assert sum(carries_token(ev.data) for ev in events[:first]) == 1
    assert carries_token(events[first - 1].data)
    assert carries_token(events[n - 1].data)
    assert by["stall"].fault == "stall=2@4"
    if dialect == "anthropic":
        assert by["overloaded"].fault == "status=529"


def test_builtin_all() -> None:
    suite = builtin_suite("all")
    assert len(suite.scenarios) == 18 + 17 + 18 + 17
    assert len({s.name for s in suite.scenarios}) == len(suite.scenarios)
    assert all(Path(s.recording).is_file() for s in suite.scenarios)


def test_builtin_through_load_suite() -> None:
    suite = load_suite("builtin:gemini")
    assert [s.name for s in suite.scenarios] == [s.name for s in builtin_suite("gemini").scenarios]
    assert suite.source == "<builtin>"
    assert suite.models == DEFAULT_MODELS


def test_builtin_suites_are_fresh_objects() -> None:
    """The gate command updates models, speed and timeout in place."""
    a = builtin_suite("anthropic")
    a.speed = 0
    a.models["anthropic"] = "changed"
    b = builtin_suite("anthropic")
    assert b.speed == 1.0
    assert b.models["anthropic"] == "sseconform-anthropic"


@pytest.mark.parametrize("name", ["builtin:cohere", "builtin:", "builtin:Anthropic"])
def test_unknown_builtin(name: str) -> None:
    with pytest.raises(UsageError) as info:
        load_suite(name)
    msg = str(info.value)
    assert f"no built-in suite {name.removeprefix('builtin:')!r}" in msg
    assert "anthropic, gemini, responses, openai, all" in msg


def _events(body: bytes) -> list[Any]:
    dec = SSEDecoder()
    return dec.feed(body) + dec.finish()
