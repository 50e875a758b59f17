"""What the agents ask of a provider: each agent's first request, captured from the agent itself
(one run against a replay upstream on 127.0.0.1, offline), read into its parameters as the
endpoint's wire reads a request (``Wire.read_request``), its prompt and tools left out.

``agent_requests.json`` beside this file holds the capture, with each agent's version. The
built-in scenarios ask as these agents ask (``tests/gate/test_agent_requests.py`` holds each
endpoint's built-in request to it), and ``test_agent_requests_live.py`` runs the agents again
when a version changes. To capture again (after a version bump)::

    python -m tests.interop.heavy.agent_requests --write

Needs the heavy clients (``tests/interop/heavy/install*.sh``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sseconform.replay.plan import load
from sseconform.replay.scenario import ReplayRule
from sseconform.wires import by_endpoint
from tests.conftest import ROOT
from tests.interop.heavy.cli import cli_env, run_cli
from tests.interop.heavy.clients import _claude_version, _codex_version, _gemini_version
from tests.interop.heavy.opencode import OPENCODE, QUIET, RIPGREP_DIR, opencode_version
from tests.interop.heavy.qwen import (
    QWEN_AUTH,
    QWEN_COMPILE_CACHE,
    QWEN_ENTRY,
    QWEN_NODE,
    QWEN_SETTINGS,
    _qwen_version,
)
from tests.interop.heavy.turns import CapturingReplay, Seen, run_claude, run_codex, run_gemini
from tests.interop.matrix.clients import KEY

CAPTURED = Path(__file__).with_name("agent_requests.json")
PROMPT = "Say hi."
#: A text answer in each endpoint's dialect: what the agent gets back (it is not graded).
ANSWERS = {
    "messages": ROOT / "recordings" / "anthropic" / "agent-answer-anthropic.jsonl",
    "responses": ROOT / "recordings" / "responses" / "agent-answer-responses.jsonl",
    "gemini": ROOT / "recordings" / "gemini" / "agent-answer-gemini.jsonl",
    "chat": ROOT / "recordings" / "chat" / "text-usage.jsonl",
}
#: Parameters whose value is an id of the agent's session or install (different on every
#: run): only whether the request carries one is kept.
IDS = frozenset({"user", "prompt_cache_key", "metadata"})


@dataclass(frozen=True)
class Agent:
    """One agent: the endpoint it asks, its installed version (None: not installed), one run
    of it against ``url`` in ``work``."""

    name: str
    endpoint: str
    version: Callable[[], str | None]
    run: Callable[[str, Path], object]


def _qwen(url: str, work: Path) -> object:
    """Qwen Code on its OpenAI auth (chat), the matrix's settings (one turn, nothing sent
    anywhere but the route)."""
    home = Path(tempfile.mkdtemp(prefix="sseconform-qwen-"))
    try:
        (home / ".qwen").mkdir()
        (home / ".qwen" / "settings.json").write_text(json.dumps(QWEN_SETTINGS))
        extra = {"QWEN_CODE_NO_RELAUNCH": "true", "NODE_COMPILE_CACHE": str(QWEN_COMPILE_CACHE)}
        env = cli_env(home, {**QWEN_AUTH["chat"][1](url), **extra, "NO_COLOR": "1"})
        argv = [str(QWEN_NODE), str(QWEN_ENTRY), "-p", PROMPT, "--output-format", "stream-json"]
        return run_cli(argv, work, env)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _opencode(url: str, work: Path) -> object:
    """OpenCode on an OpenAI-compatible provider (the AI SDK's, chat), offline settings."""
    home = Path(tempfile.mkdtemp(prefix="sseconform-opencode-"))
    try:
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "gateway",
            "options": {"baseURL": url + "/v1", "apiKey": KEY},
            "models": {"gpt-test": {"name": "gpt-test"}},
        }
        config = {
            "provider": {"gateway": provider},
            "model": "gateway/gpt-test",
            "autoupdate": False,
            "share": "disabled",
            "lsp": False,
            "formatter": False,
        }
        path = f"{RIPGREP_DIR}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        env = cli_env(home, {"PATH": path, "OPENCODE_CONFIG_CONTENT": json.dumps(config), **QUIET})
        argv = [str(OPENCODE), "run", "--format", "json", "--title", "sseconform", PROMPT]
        return run_cli(argv, work, env)
    finally:
        shutil.rmtree(home, ignore_errors=True)


AGENTS: dict[str, Agent] = {
    a.name: a
    for a in (
        Agent(
            "claude-code",
            "messages",
            _claude_version,
            lambda url, work: run_claude(url, work, PROMPT, "Glob", thinking=None),
        ),
        Agent("codex", "responses", _codex_version, lambda url, w: run_codex(url, w, PROMPT)),
        Agent("gemini-cli", "gemini", _gemini_version, lambda url, w: run_gemini(url, w, PROMPT)),
        Agent("opencode", "chat", opencode_version, _opencode),
        Agent("qwen-code", "chat", _qwen_version, _qwen),
    )
}


def jsonable(value: Any) -> Any:
    """A parameter's meaning as JSON: a set as its sorted list, a tuple as a list."""
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple | list):
        return [jsonable(v) for v in value]
    return value


def parameters(endpoint: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    """What a request asks, as the endpoint's wire reads it, each meaning as JSON (an id:
    only that it is there)."""
    asked = by_endpoint(endpoint).read_request(body, {k.lower(): v for k, v in headers.items()})
    return {k: True if k in IDS else jsonable(s.value) for k, s in asked.items()}


def main_request(seen: list[Seen]) -> Seen:
    """The agent's turn: the first POST that declares tools (an agent's side requests, a
    title or a quota check, declare none), else the first POST."""
    posts = [s for s in seen if s.method == "POST"]
    assert posts, "the agent sent no request"
    with_tools = [s for s in posts if b'"tools"' in s.body]
    return (with_tools or posts)[0]


def capture(agent: Agent) -> dict[str, Any]:
    """One run of ``agent`` against a replay upstream: its version, endpoint, the path it
    asked and its first request's parameters."""
    answer = load(str(ANSWERS[agent.endpoint]))
    replay = CapturingReplay(
        [answer],
        host="127.0.0.1",
        port=0,
        speed=0,
        rules=[ReplayRule(answer.name)],
        log=lambda line: None,
    )
    work = Path(tempfile.mkdtemp(prefix="sseconform-agent-"))
    try:
        with replay.running():
            agent.run(f"http://127.0.0.1:{replay.port}", work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    seen = main_request(replay.seen)
    body = json.loads(seen.body)
    return {
        "version": agent.version(),
        "endpoint": agent.endpoint,
        "path": seen.path.split("?")[0],
        "parameters": parameters(agent.endpoint, body, seen.headers),
    }


def captured() -> dict[str, dict[str, Any]]:
    """The committed capture, by agent."""
    data: dict[str, dict[str, Any]] = json.loads(CAPTURED.read_text(encoding="utf-8"))
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {CAPTURED.name}")
    parser.add_argument("agents", nargs="*", help=f"default: all ({', '.join(AGENTS)})")
    args = parser.parse_args(argv)
    unknown = set(args.agents) - set(AGENTS)
    if unknown:
        parser.error(f"no agent {', '.join(sorted(unknown))}; agents: {', '.join(AGENTS)}")
    out = captured() if CAPTURED.is_file() else {}
    for name in args.agents or list(AGENTS):
        if AGENTS[name].version() is None:
            print(f"{name}: not installed (tests/interop/heavy/install*.sh)")
            return 1
        out[name] = capture(AGENTS[name])
        print(name, json.dumps(out[name], sort_keys=True))
    if args.write:
        text = json.dumps(dict(sorted(out.items())), indent=2, sort_keys=True) + "\n"
        CAPTURED.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
