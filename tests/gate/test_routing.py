"""Wiring ``gate`` to any gateway: profiles, per-dialect settings, ``--header``, ``{upstream}``;
verdicts on what really happened (not applicable, upstream not reached, fault never fired);
baselines of known deviations; one report document for several suites."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.errors import UsageError
from sseconform.gate.profile import PROFILES, Route, load_profile
from sseconform.gate.result import SuiteResult
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import builtin_suite, check_faults, load_suite
from tests.cli.helpers import run_cli
from tests.gate.test_gate import by_name, free_port

# A gateway routed by headers, as Portkey is: the provider and the upstream's URL ride on
# every request; the model name means nothing to it.
HEADER_PROFILE = """
name = "header-routed"
description = "the test gateway in header mode"
headers = {{ "x-test-upstream" = "{{upstream}}" }}

[dialect.anthropic]
headers = {{ "x-test-provider" = "anthropic" }}
model = "any-claude"

[dialect.gemini]
supported = false
reason = "no custom host for Google in this gateway"

[dialect.responses]
headers = {{ "x-test-provider" = "responses" }}
model = "any-gpt"
request = {{ user = "{{upstream}}/who" }}

[dialect.openai]
headers = {{ "x-test-provider" = "openai" }}
model = "any-gpt"
{extra}
"""


def profile_file(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "profile.toml"
    path.write_text(HEADER_PROFILE.format(extra=extra), encoding="utf-8")
    return path


@pytest.fixture
def gateway(request: pytest.FixtureRequest) -> Iterator[Gateway]:
    """A test gateway whose default upstream is nowhere: only headers route it."""
    bugs = set(getattr(request, "param", "").split(",")) - {""}
    gw = Gateway(f"http://127.0.0.1:{free_port()}", bugs)
    with gw.running():
        yield gw


def run(suite_name: str, gw: Gateway, tmp_path: Path, **kw: object) -> SuiteResult:
    suite = builtin_suite(suite_name)
    suite.speed = 0
    return run_suite(suite, gw.url, str(tmp_path / "out"), **kw)  # type: ignore[arg-type]


# -- profiles ---------------------------------------------------------------------------------


def test_shipped_profiles_load() -> None:
    for name in PROFILES:
        p = load_profile(name)
        assert p.name == name and p.description
    litellm = load_profile("litellm")
    assert litellm.upstream_port == 9393
    text = litellm.config_text("http://127.0.0.1:1234")
    assert text is not None and "api_base: http://127.0.0.1:1234/v1beta" in text
    assert "{upstream}" not in text


def test_unknown_profile_names_the_shipped_ones() -> None:
    with pytest.raises(UsageError, match="no gateway profile 'nope'; shipped: litellm, portkey"):
        load_profile("nope")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("[dialect.mistral]\nmodel = 'x'", "unknown dialect"),
        ("[dialect.openai.headers]\n'bad name' = 'x'", "is not a header name"),
        ("colour = 'red'", "unknown key"),
    ],
)
def test_bad_profiles_say_where(tmp_path: Path, extra: str, message: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(f"name = 'p'\n{extra}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        load_profile(str(path))


def test_a_header_routed_gateway_passes_with_its_profile(tmp_path: Path, gateway: Gateway) -> None:
    suite = builtin_suite("all")
    suite.speed = 0
    suite.profile = load_profile(str(profile_file(tmp_path)))
    names = {"anthropic/text", "gemini/text", "responses/tool-call", "openai/text"}
    result = run_suite(
        suite, gateway.url, str(tmp_path / "out"), select=lambda sc: sc.name in names
    )
    got = by_name(result)
    assert got["anthropic/text"].verdict == "pass", got["anthropic/text"].findings
    assert got["responses/tool-call"].verdict == "pass", got["responses/tool-call"].findings
    assert got["openai/text"].verdict == "pass", got["openai/text"].findings
    gem = got["gemini/text"]
    assert gem.verdict == "not-applicable" and not gem.passed and not gem.failed
    assert (
        gem.note
        == "the gateway cannot route gemini upstreams: no custom host for Google in this gateway"
    )
    assert gem.upstream_requests == 0 and gem.recording == ""
    assert result.passed  # n/a never fails a run
    # {upstream} became the upstream's URL in headers and in the request body
    assert gateway.last_headers["x-test-upstream"] == result.upstream


def test_without_its_profile_the_upstream_is_never_reached(
    tmp_path: Path, gateway: Gateway
) -> None:
    suite = builtin_suite("anthropic")
    suite.speed = 0
    suite.routes["anthropic"] = Route(model="a-model-the-gateway-does-not-know")
    result = run_suite(
        suite, gateway.url, str(tmp_path / "out"),
        select=lambda sc: sc.name in ("anthropic/text", "anthropic/rate-limited"),
    )  # fmt: skip
    for s in result.scenarios:
        # the gateway knows no such model and says so with a 404: never "rejected as expected"
        assert s.verdict == "unreached", (s.name, s.findings)
        assert s.failed and s.upstream_requests == 0 and s.status == 404
        [f] = s.findings
        assert (f.source, f.code) == ("upstream", "not-reached")
        assert "the gateway answered HTTP 404" in f.message and "unknown model" in f.message
    assert not result.passed


@pytest.mark.parametrize("gateway", ["wrong-path"], indirect=True)
def test_an_upstream_that_refused_the_request_is_not_a_rejection(
    tmp_path: Path, gateway: Gateway
) -> None:
    suite = builtin_suite("anthropic")
    suite.speed = 0
    suite.profile = load_profile(str(profile_file(tmp_path)))
    result = run_suite(
        suite, gateway.url, str(tmp_path / "out"),
        select=lambda sc: sc.name == "anthropic/rate-limited",
    )  # fmt: skip
    [s] = result.scenarios
    assert s.verdict == "unreached" and s.upstream_requests == 1
    [f] = s.findings
    assert (f.source, f.code) == ("upstream", "refused")
    assert "POST /v2/complete -> - 404" in f.message
    assert s.upstream_log and "/v2/complete" in s.upstream_log[0]


@pytest.mark.parametrize("gateway", ["first-event-only"], indirect=True)
def test_a_fault_that_never_fired_is_said(tmp_path: Path, gateway: Gateway) -> None:
    suite = builtin_suite("anthropic")
    suite.speed = 1  # at recorded pace the gateway hangs up before the stall's event is written
    suite.profile = load_profile(str(profile_file(tmp_path)))
    result = run_suite(
        suite, gateway.url, str(tmp_path / "out"),
        select=lambda sc: sc.name == "anthropic/stall",
    )  # fmt: skip
    [s] = result.scenarios
    assert s.verdict == "unreached", s.findings
    codes = [(f.source, f.code) for f in s.findings if f.severity == "error"]
    assert ("upstream", "fault-not-fired") in codes
    assert "stall=2@4" in next(f.message for f in s.findings if f.code == "fault-not-fired")


def test_cli_header_and_profile(tmp_path: Path, gateway: Gateway) -> None:
    path = tmp_path / "p.toml"
    # the provider header comes from --header here: the profile only names the upstream
    path.write_text('name = "p"\nheaders = { "x-test-upstream" = "{upstream}" }\n')
    r = run_cli(
        "gate", "--gateway", gateway.url, "--gateway-profile", str(path),
        "-H", "x-test-provider: anthropic", "--header", "x-extra: {upstream}/x",
        "--suite", "builtin:anthropic", "--only", "anthropic/text", "--speed", "0",
        "--model", "anthropic=whatever", "--out", "out", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert r.code == 0, r.both
    doc = json.loads(r.out)
    assert doc["profile"] == "p"
    assert [s["verdict"] for s in doc["scenarios"]] == ["pass"]
    assert gateway.last_headers["x-extra"].endswith("/x")
    assert gateway.last_headers["x-extra"].startswith("http://127.0.0.1:")


def test_a_suite_s_own_profile_keeps_its_upstream_port(tmp_path: Path) -> None:
    """``profile = "FILE"`` in a suite: the profile's ``upstream-port`` is where the replay
    upstream listens, as with ``--gateway-profile FILE`` (a gateway wired to that port is
    reached, not answered 502)."""
    port = free_port()
    (tmp_path / "p.toml").write_text(f'name = "p"\nupstream-port = {port}\n')
    (tmp_path / "suite.toml").write_text(
        'name = "s"\nprofile = "p.toml"\nspeed = 0\n[[scenario]]\nname = "text"\n'
        'recording = "builtin:anthropic/text-anthropic.jsonl"\n'
    )
    with Gateway(f"http://127.0.0.1:{port}").running() as gw:
        r = run_cli(
            "gate", "--gateway", gw.url, "--suite", "suite.toml", "--out", "out",
            "--format", "json", cwd=tmp_path,
        )  # fmt: skip
    assert r.code == 0, r.both
    doc = json.loads(r.out)
    assert doc["profile"] == "p"
    assert [s["verdict"] for s in doc["scenarios"]] == ["pass"]


def test_cli_bad_header(tmp_path: Path) -> None:
    r = run_cli("gate", "--gateway", "http://127.0.0.1:9", "-H", "no colon", cwd=tmp_path)
    assert r.code == 2 and "--header 'no colon': give 'Name: value'" in r.err
    assert "Traceback" not in r.both


def test_cli_print_gateway_config(tmp_path: Path) -> None:
    r = run_cli(
        "gate", "--gateway-profile", "litellm", "--print-gateway-config",
        "--upstream-port", "4242", cwd=tmp_path,
    )  # fmt: skip
    assert r.code == 0, r.both
    assert "api_base: http://127.0.0.1:4242/v1beta" in r.out
    r = run_cli("gate", "--gateway-profile", "portkey", "--print-gateway-config", cwd=tmp_path)
    assert r.code == 2 and "has no gateway configuration" in r.err


# -- suites validated against their recordings ------------------------------------------------


def test_builtin_suites_place_every_fault_where_it_fires() -> None:
    for name in ("anthropic", "gemini", "responses", "openai"):
        check_faults(builtin_suite(name))  # raises if a fault could not fire


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("stall=2@40", "stall"),
        ("drop-after-events=40", "drop"),
        ("error-at=40", "error"),
    ],
)
def test_a_fault_that_cannot_fire_is_refused_when_the_suite_loads(
    tmp_path: Path, fault: str, message: str
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        f'[[scenario]]\nname = "late"\nrecording = "builtin:gemini/text-gemini.jsonl"\n'
        f'fault = "{fault}"\n'
    )
    with pytest.raises(UsageError) as exc:
        load_suite(str(path))
    text = str(exc.value)
    assert text.startswith(f"{path}: scenario 'late': fault '{fault}' cannot fire: ")
    assert message in text


def test_suite_file_routing_settings(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        """
profile = "litellm"
headers = { "x-team" = "qa" }
path = "/api/chat/completions"
[models]
gemini = "from-models"
[dialect.anthropic]
model = "mine"
headers = { "x-provider" = "anthropic", "X-Team" = "platform" }
request = { max_tokens = 64 }
path = "/anthropic/chat/completions"
[[scenario]]
recording = "builtin:anthropic/text-anthropic.jsonl"
headers = { "x-scenario" = "1" }
"""
    )
    suite = load_suite(str(path))
    assert suite.profile is not None and suite.profile.name == "litellm"
    sc = suite.scenarios[0]
    assert suite.model_for("anthropic") == "mine"  # the suite's over the profile's
    assert suite.model_for("gemini") == "from-models"
    assert suite.model_for("openai") == "sseconform-openai"  # the profile's
    assert suite.path_for("anthropic") == "/anthropic/chat/completions"
    assert suite.path_for("gemini") == "/api/chat/completions"
    assert suite.route("anthropic").request == {"max_tokens": 64}
    assert suite.headers_for("anthropic", sc) == {
        "X-Team": "platform",
        "x-provider": "anthropic",
        "x-scenario": "1",
    }


# -- baselines --------------------------------------------------------------------------------


@pytest.mark.parametrize("gateway", ["lose-token"], indirect=True)
def test_baseline_known_then_fixed(tmp_path: Path, gateway: Gateway) -> None:
    prof = profile_file(tmp_path)
    common = [
        "gate", "--gateway", gateway.url, "--gateway-profile", str(prof),
        "--suite", "builtin:anthropic", "--only", "anthropic/t*", "--speed", "0",
    ]  # fmt: skip
    r = run_cli(*common, "--out", "o1", "--write-baseline", "known.json", cwd=tmp_path)
    assert r.code == 1, r.both
    base = json.loads((tmp_path / "known.json").read_text())
    assert base["format"] == "sseconform-baseline" and base["kind"] == "gate"
    assert base["entries"] == {
        "anthropic/text": {"diff:lost:text": 1},
        "anthropic/text-then-call": {"diff:lost:text": 1},
    }
    # the same gateway with its baseline: known, not failing
    r = run_cli(*common, "--out", "o2", "--baseline", "known.json", "--format", "json",
                cwd=tmp_path)  # fmt: skip
    assert r.code == 0, r.both
    doc = json.loads(r.out)
    assert doc["summary"]["known"] == 2 and doc["summary"]["fail"] == 0
    for s in doc["scenarios"]:
        if s["name"] != "anthropic/tool-call":
            assert s["verdict"] == "known" and all(f["known"] for f in s["findings"])
    # a gateway that no longer loses tokens: the baseline's entries are reported as fixed
    gateway.bugs.clear()
    r = run_cli(*common, "--out", "o3", "--baseline", "known.json", cwd=tmp_path)
    assert r.code == 0, r.both
    assert "FIXED     anthropic/text" in r.out and "diff:lost:text no longer happens" in r.out
    # updated in place (no --force needed when it is the --baseline): the fixed entries go,
    # the notes of what is still accepted stay, and what did not run (--only) is kept
    doc = json.loads((tmp_path / "known.json").read_text())
    doc["entries"]["anthropic/usage"] = {"U004": 1}
    doc["notes"] = {"anthropic/usage": "not run here", "anthropic/text": "upstream bug"}
    (tmp_path / "known.json").write_text(json.dumps(doc))
    r = run_cli(*common, "--out", "o5", "--baseline", "known.json",
                "--write-baseline", "known.json", cwd=tmp_path)  # fmt: skip
    assert r.code == 0, r.both
    doc = json.loads((tmp_path / "known.json").read_text())
    assert doc["entries"] == {"anthropic/usage": {"U004": 1}}
    assert doc["notes"] == {"anthropic/usage": "not run here"}
    # another existing file is not replaced without --force
    (tmp_path / "mine.json").write_text("{}")
    r = run_cli(*common, "--out", "o6", "--write-baseline", "mine.json", cwd=tmp_path)
    assert r.code == 2 and "mine.json: exists" in r.err
    assert (tmp_path / "mine.json").read_text() == "{}"
    # a wrong file is a one-line error
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    r = run_cli(*common, "--out", "o4", "--baseline", "bad.json", cwd=tmp_path)
    assert r.code == 2 and "bad.json: not a baseline" in r.err


# -- one document for several suites ----------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "junit", "github", "text"])
def test_two_suites_one_document(tmp_path: Path, gateway: Gateway, fmt: str) -> None:
    prof = profile_file(tmp_path)
    r = run_cli(
        "gate", "--gateway", gateway.url, "--gateway-profile", str(prof),
        "--suite", "builtin:anthropic", "--suite", "builtin:gemini",
        "--only", "*/text", "--speed", "0", "--out", "out", "--format", fmt,
        cwd=tmp_path,
    )  # fmt: skip
    assert r.code == 0, r.both
    if fmt == "json":
        doc = json.loads(r.out)  # one document, not two after one another
        assert [s["suite"] for s in doc["suites"]] == ["builtin:anthropic", "builtin:gemini"]
        assert [(s["name"], s["verdict"]) for s in doc["scenarios"]] == [
            ("anthropic/text", "pass"),
            ("gemini/text", "not-applicable"),
        ]
    elif fmt == "junit":
        root = ET.fromstring(r.out)  # one document
        assert root.tag == "testsuites" and root.get("tests") == "2"
        assert root.get("skipped") == "1" and root.get("failures") == "0"
        assert [s.get("name") for s in root] == [
            "sseconform gate builtin:anthropic",
            "sseconform gate builtin:gemini",
        ]
        skipped = root[1].find("testcase/skipped")
        assert skipped is not None and "cannot route gemini" in (skipped.get("message") or "")
    elif fmt == "github":
        assert r.out.splitlines()[-1] == (
            "sseconform gate: 1/1 scenarios passed; 1 not applicable besides (2 in all)"
        )
    else:
        assert r.out.count("sseconform gate: builtin:") == 2
        assert "N/A gemini/text (the gateway cannot route gemini upstreams" in r.out
        assert r.out.rstrip().endswith("1/1 scenarios passed; 1 not applicable besides (2 in all)")
