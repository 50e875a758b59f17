"""OpenCode (npm ``opencode-ai``) as a heavy client of every grammar it speaks: chat (the AI
SDK's OpenAI-compatible provider), anthropic, responses (the AI SDK's OpenAI provider, which
calls the Responses API) and gemini. OpenCode is an agent built on the AI SDK, so a case is read
by the SDK's provider and then by OpenCode's own loop (its finish handling, its repair of calls
to tools it does not have, its retries).

One ``opencode serve`` per grammar run, on 127.0.0.1, with a provider per case (``c0``,
``c1``, ...) whose ``baseURL`` is the case's route on the matrix server: a case is one session
(``POST /session`` with a title, so no title request is sent to the model) and one prompt
(``POST /session/{id}/message`` naming the case's provider), about 0.3 s, where a whole
``opencode run`` costs 5 s of start-up. The answer is the session's first assistant message:
its text parts, its tool parts, its finish; a later one (the call's result going back, a
continuation) gets a 400 from the server and is noted.

What it reports: text, calls with their ids and names, the finish (the AI SDK's, as the light
AI SDK clients map it), errors (the message's). Not the arguments: the cases call tools OpenCode
does not have (``get_weather``), and OpenCode turns such a call into its ``invalid`` tool whose
input is the name and an error, the arguments gone.

Kept offline: a fresh HOME, npm set offline (OpenCode tries to install its plugin package into
its config folder), Debian's ripgrep on PATH (else it downloads one from GitHub), models.dev,
LSP downloads, sharing, auto-update, default plugins and file watching off.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sseconform.rules.catalog import BASE_GRAMMAR
from tests.interop.heavy.cache import cache_dir
from tests.interop.heavy.cli import cli_env
from tests.interop.matrix.clients import KEY, Client, Job
from tests.interop.matrix.outcome import Answer, Got, first_line
from tests.interop.matrix.reading import Call
from tests.interop.matrix.server import MockServer

OPENCODE_VERSION = "1.18.33"
RIPGREP_VERSION = "13.0.0-4+b2"
OPENCODE_INSTALL = "bash tests/interop/heavy/install_opencode.sh"
OPENCODE_CACHE = cache_dir(
    "SSECONFORM_HEAVY_OPENCODE",
    f"sseconform-ci-heavy-opencode-{OPENCODE_VERSION}-ripgrep-{RIPGREP_VERSION}",
)
OPENCODE = OPENCODE_CACHE / "opencode-linux-x64" / "bin" / "opencode"
RIPGREP_DIR = OPENCODE_CACHE / "ripgrep" / "usr" / "bin"
#: Seconds for the server to start, and for one case's prompt to be answered.
START_TIMEOUT = 60
PROMPT_TIMEOUT = 60

#: Each grammar's AI SDK provider package (bundled in OpenCode), path under the route, model.
PROVIDERS: dict[str, tuple[str, str, str]] = {
    "chat": ("@ai-sdk/openai-compatible", "/v1", "gpt-test"),
    "anthropic": ("@ai-sdk/anthropic", "/v1", "claude-test"),
    "responses": ("@ai-sdk/openai", "/v1", "gpt-test"),
    "gemini": ("@ai-sdk/google", "/v1beta", "gemini-2.5-flash"),
}
#: The AI SDK's finish reasons as the matrix's (as tests/interop/node/matrix.mjs maps them).
AI_FINISH = {
    "stop": "stop",
    "length": "length",
    "tool-calls": "tool_calls",
    "content-filter": "content_filter",
}
#: Environment that keeps OpenCode on the loopback and its run to the one prompt.
QUIET = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_PURE": "1",
    "OPENCODE_DISABLE_FFF": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    "OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
    "OPENCODE_DISABLE_PRUNE": "1",
    "npm_config_offline": "true",
}


def opencode_version() -> str | None:
    return OPENCODE_VERSION if OPENCODE.is_file() and (RIPGREP_DIR / "rg").is_file() else None


def _config(grammar: str, jobs: Sequence[Job]) -> dict[str, Any]:
    package, path, model = PROVIDERS[grammar]
    providers = {
        f"c{n}": {
            "npm": package,
            "name": f"case {n}",
            "options": {"baseURL": job.url + path, "apiKey": KEY},
            "models": {model: {"name": model}},
        }
        for n, job in enumerate(jobs)
    }
    return {
        "provider": providers,
        "model": f"c0/{model}",
        "autoupdate": False,
        "share": "disabled",
        "lsp": False,
        "formatter": False,
    }


def _call(method: str, url: str, body: Any = None, timeout: float = PROMPT_TIMEOUT) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, method=method, data=data, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"null")


def _finish(grammar: str, reason: Any, calls: tuple[Call, ...]) -> str | None:
    if not isinstance(reason, str):
        return None
    if grammar == "gemini" and reason == "tool-calls" and calls:
        return "stop"  # Gemini ends an answer with calls with STOP, which the SDK names so
    return AI_FINISH.get(reason, f"other:{reason}")


def _answer(
    grammar: str,
    messages: list[dict[str, Any]],
    extra: int,
    retried: list[str],
    error: str | None,
) -> Got:
    """The session's first assistant message as the case's outcome; an error OpenCode retried
    on is what it made of the stream (the retry got the server's 400). For some errors it
    shows words of its own (``Provider is overloaded``): a retry can only come from an error,
    so when the case has one (``error``, the reference reading's) that is the one it read."""
    answers = [m for m in messages if (m.get("info") or {}).get("role") == "assistant"]
    notes = [f"sent {extra} more streaming requests"] if extra else []
    if retried:
        said = first_line(retried[0])
        if error is not None and first_line(error, 80).rstrip("…") not in said:
            said = f"{said!r}, its own words for the stream's error {first_line(error)}"
        return Got(raised=f"retried on {said}", notes=notes)
    if not answers:
        return Got(raised="no answer", notes=notes)
    info, parts = answers[0]["info"], answers[0].get("parts") or []
    failed: dict[str, Any] = info.get("error") or {}
    if failed:
        data = failed.get("data") or {}
        said = data.get("message") or failed.get("name") or "error"
        return Got(raised=f"{failed.get('name')}: {first_line(str(said))}", notes=notes)
    text = "".join(p.get("text", "") for p in parts if p.get("type") == "text")
    calls = []
    for part in parts:
        if part.get("type") != "tool":
            continue
        given = (part.get("state") or {}).get("input") or {}
        name = part.get("tool")
        if name == "invalid":  # a tool OpenCode lacks: the name survives, the arguments do not
            name = given.get("tool")
        calls.append(Call(part.get("callID"), name, None))
    reason = info.get("finish")
    return Got(
        answers={0: Answer(text, tuple(calls), _finish(grammar, reason, tuple(calls)))},
        notes=notes,
    )


def _serve(grammar: str, jobs: Sequence[Job], home: Path) -> subprocess.Popen[str]:
    env = cli_env(
        home,
        {
            "PATH": f"{RIPGREP_DIR}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "OPENCODE_CONFIG_CONTENT": json.dumps(_config(grammar, jobs)),
            **QUIET,
        },
    )
    argv = [str(OPENCODE), "serve", "--hostname", "127.0.0.1", "--port", "0"]
    return subprocess.Popen(
        argv,
        cwd=home / "work",
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _listening(server: subprocess.Popen[str]) -> str:
    """The server's base URL, from its "listening on" line (a request sent before that line
    can hang: OpenCode accepts it before it can answer)."""
    assert server.stdout is not None
    for line in server.stdout:
        if "listening on " in line:
            return line.rsplit("listening on ", 1)[1].strip()
    raise RuntimeError(f"opencode serve exited {server.wait()} before it listened")


class _Retries:
    """The errors OpenCode retried on, by session, from the server's event stream (a retry is
    a session status, ``{"type": "retry", "message": ...}``, and leaves no trace in the
    session's messages)."""

    def __init__(self, base: str) -> None:
        self.seen: dict[str, list[str]] = {}
        self._connected = threading.Event()
        self._response = urllib.request.urlopen(f"{base}/event", timeout=PROMPT_TIMEOUT)
        self._reader = threading.Thread(target=self._read, daemon=True, name="opencode-events")
        self._reader.start()
        self._connected.wait(START_TIMEOUT)

    def _read(self) -> None:
        try:
            for line in self._response:
                self._connected.set()
                if not line.startswith(b"data:"):
                    continue
                event = json.loads(line[5:])
                props = event.get("properties") or {}
                status = props.get("status") or {}
                if event.get("type") == "session.status" and status.get("type") == "retry":
                    self.seen.setdefault(props["sessionID"], []).append(str(status["message"]))
        except Exception:  # the server stopped mid-read: whatever it raises
            return

    def close(self) -> None:
        """After the server has stopped: the reader has seen the end."""
        self._reader.join(timeout=10)
        self._response.close()


def _opencode_run(jobs: Sequence[Job], server: MockServer) -> dict[str, Got]:
    if not jobs:
        return {}
    grammar = BASE_GRAMMAR.get(jobs[0].case.grammar, jobs[0].case.grammar)
    home = Path(tempfile.mkdtemp(prefix="sseconform-opencode-"))
    (home / "work").mkdir()  # not HOME itself: OpenCode treats a home folder as no project
    proc = _serve(grammar, jobs, home)
    out: dict[str, Got] = {}
    retries: _Retries | None = None
    try:
        base = _listening(proc)
        retries = _Retries(base)
        _, _, model = PROVIDERS[grammar]
        for n, job in enumerate(jobs):
            prompt = {
                "parts": [{"type": "text", "text": "say hi"}],
                "model": {"providerID": f"c{n}", "modelID": model},
            }
            try:
                session = _call("POST", f"{base}/session", {"title": "sseconform matrix"})
                _call("POST", f"{base}/session/{session['id']}/message", prompt)
                messages = _call("GET", f"{base}/session/{session['id']}/message")
            except (OSError, urllib.error.URLError) as exc:
                out[job.case.id] = Got(raised=f"no answer from opencode serve: {exc}")
                continue
            streams = [s for s in server.requests(job.url.rsplit("/k/", 1)[1]) if s.stream]
            extra = max(0, len(streams) - 1)
            retried = retries.seen.get(session["id"], [])
            meant = next((r.error for r in job.meant.values() if r.error is not None), None)
            out[job.case.id] = _answer(grammar, messages, extra, retried, meant)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        if retries is not None:
            retries.close()
        shutil.rmtree(home, ignore_errors=True)
    return out


def opencode_clients() -> list[Client]:
    """OpenCode once per grammar it speaks (the heavy clients add the grammars' profiles)."""
    return [
        Client(
            "opencode",
            grammar,
            opencode_version,
            _opencode_run,
            OPENCODE_INSTALL,
            heavy=True,
            followup=False,
            # no arguments (see above); Gemini's calls need no id (the API sends none)
            fields=frozenset(
                {"text", "calls", "finish"} | ({"ids"} if grammar != "gemini" else set())
            ),
            # a run costs about 2 s of CPU (a Bun binary's start, its agent loop): one
            # unchanged case per outcome in CI, as Qwen Code's
            sample=1,
        )
        for grammar in PROVIDERS
    ]
