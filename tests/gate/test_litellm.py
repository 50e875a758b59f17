"""The default suites through a real gateway: LiteLLM's proxy, from PyPI, on loopback.

`.ci/run` installs ``litellm[proxy]`` (a pinned version) into its own venv and points
``SSECONFORM_LITELLM`` at its ``litellm`` command; without it this test skips (it fails
instead when ``SSECONFORM_REQUIRE_LITELLM=1``, as in CI). The proxy's four providers have
their base URLs on sseconform's replay upstream; ``sseconform gate`` runs every built-in
scenario through it. What LiteLLM gets wrong is reported, not hidden; the test asserts that:

- the run completes and grades every scenario;
- every finding that is located points at bytes really present in the recorded gateway
  stream (the start of the event it names, holding the excerpt it quotes);
- the scenarios LiteLLM handles correctly pass (no false alarm): everything but the
  deviations listed in ``KNOWN``, each of which is named with its rule codes.

The scorecard is written to ``$SSECONFORM_LITELLM_SCORECARD`` when set (CI prints it).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sseconform.gate.suite import builtin_suite
from sseconform.recording.format import RecordingReader
from sseconform.sse import SSEDecoder
from tests.cli.helpers import run_cli
from tests.conftest import ROOT

MASTER_KEY = "sk-sseconform-local-proxy-test"  # a key for a proxy on loopback, not a secret
DIALECTS = ("anthropic", "gemini", "responses", "openai")

#: What LiteLLM (the version .ci/run pins) does differently from the contract, per scenario
#: kind: the rule codes its stream breaks. Everything else must pass.
KNOWN: dict[str, set[str]] = {
    # the usage chunk carries choices [{"index": 0, "delta": {}}] after the finish chunk
    "usage": {"F005"},
    # an error frame, then the stream ends: no data: [DONE]
    "error-mid-stream": {"E002"},
    "dropped-mid-stream": {"E002"},
}

ENV = {
    # no network: the cost map and the other tables from the package itself
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_LOCAL_AUTOROUTER_PRESETS": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
    "LITELLM_LOCAL_POLICY_TEMPLATES": "True",
    "LITELLM_LOG": "CRITICAL",
    "NO_PROXY": "127.0.0.1,localhost",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(upstream: int) -> str:
    base = f"http://127.0.0.1:{upstream}"
    deployments = {
        # LiteLLM appends /chat/completions, /v1/messages, /models/...:streamGenerateContent
        # and /responses (the openai/responses/ prefix) to these bases.
        "sseconform-openai": ("openai/gpt-4o-mini", f"{base}/v1"),
        "sseconform-anthropic": ("anthropic/claude-sonnet-4-5", base),
        "sseconform-gemini": ("gemini/gemini-2.0-flash", f"{base}/v1beta"),
        "sseconform-responses": ("openai/responses/gpt-4o-mini", f"{base}/v1"),
    }
    lines = ["model_list:"]
    for name, (model, api_base) in deployments.items():
        lines += [
            f"  - model_name: {name}",
            "    litellm_params:",
            f"      model: {model}",
            f"      api_base: {api_base}",
            "      api_key: upstream-key-for-replay",
        ]
    lines += [
        "litellm_settings:",
        "  num_retries: 0",  # one upstream request per fault: what the gate grades
        "  request_timeout: 30",
        "  drop_params: true",
        "router_settings:",
        "  num_retries: 0",
        "  disable_cooldowns: true",
        "general_settings:",
        f"  master_key: {MASTER_KEY}",
    ]
    return "\n".join(lines) + "\n"


def _litellm() -> str | None:
    found = os.environ.get("SSECONFORM_LITELLM") or shutil.which("litellm")
    return found if found and os.access(found, os.X_OK) else None


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    exe = _litellm()
    if exe is None:
        if os.environ.get("SSECONFORM_REQUIRE_LITELLM") == "1":
            pytest.fail("SSECONFORM_REQUIRE_LITELLM=1 but no litellm command was found")
        pytest.skip("LiteLLM's proxy is not installed (.ci/run installs it)")
    tmp = tmp_path_factory.mktemp("litellm")
    upstream, port = _free_port(), _free_port()
    (tmp / "config.yaml").write_text(_config(upstream))
    log = open(tmp / "proxy.log", "wb")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen(
        [exe, "--config", str(tmp / "config.yaml"), "--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp,
        env={**os.environ, **ENV},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"litellm exited ({proc.returncode}): {(tmp / 'proxy.log').read_text()}"
                )
            try:
                if httpx.get(url + "/health/liveliness", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("litellm did not come up in 180 s")
            time.sleep(0.5)
        yield url, upstream
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_default_suites_through_litellm(proxy: tuple[str, int], tmp_path: Path) -> None:
    url, upstream = proxy
    out = tmp_path / "gate"
    report = tmp_path / "report.json"
    run = run_cli(
        "gate",
        "--gateway", url,
        "--upstream-port", str(upstream),
        "--key", MASTER_KEY,
        "--out", str(out),
        "--format", "json",
        "--output", str(report),
        cwd=ROOT,
        timeout=900,
    )  # fmt: skip
    assert run.code in (0, 1), run.both  # graded, whatever the grades
    assert "Traceback" not in run.both
    data = json.loads(report.read_text())
    scenarios = {s["name"]: s for s in data["scenarios"]}
    expected = {s.name for d in DIALECTS for s in builtin_suite(d).scenarios}
    assert set(scenarios) == expected

    # every located finding points at the start of a real event holding the quoted bytes
    for s in scenarios.values():
        body = _body(s["recording"]) if s["status"] is not None else b""
        starts = _event_starts(body)
        for f in s["findings"]:
            if f["offset"] is None:
                continue
            assert f["offset"] in starts, (s["name"], f)
            assert f["frame"] is not None and starts[f["frame"] - 1] == f["offset"], (s["name"], f)
            assert f["excerpt"] and body[f["offset"] :].startswith(f["excerpt"].encode()), f

    # no false alarm: whatever is not a known LiteLLM deviation passes, and a failing
    # scenario fails for its known reason
    card = []
    for name, s in sorted(scenarios.items()):
        kind = name.split("/", 1)[1]
        codes = sorted({f["code"] for f in s["findings"] if f["severity"] == "error"})
        card.append(f"{'PASS' if s['passed'] else 'FAIL'}  {name:<32} {' '.join(codes)}")
        if kind not in KNOWN:
            assert s["passed"], (name, s["findings"])
        elif not s["passed"]:
            assert set(codes) <= KNOWN[kind], (name, codes)
    passed = sum(s["passed"] for s in scenarios.values())
    card.append(f"{passed}/{len(scenarios)} scenarios passed through LiteLLM")
    where = os.environ.get("SSECONFORM_LITELLM_SCORECARD")
    if where:
        Path(where).write_text("\n".join(card) + "\n")


def _body(path: str) -> bytes:
    with open(path, "rb") as fp:
        return b"".join(b for _, b in RecordingReader(fp, path).reads())


def _event_starts(body: bytes) -> list[int]:
    dec = SSEDecoder()
    return [ev.offset for ev in dec.feed(body) + dec.finish()]
