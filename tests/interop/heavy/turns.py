"""Two-turn agent runs, for test_agent_turns.py: a turn-1 recording made to call a tool the
agent runs, a replay upstream that keeps what each request carried, behind the test gateway,
and one run of Claude Code, Codex CLI, Gemini CLI or OpenCode against it (offline, 127.0.0.1
only).

A variant of a recording changes only the call: the events that carry its name or arguments
are re-serialised; every other event (the thinking and its signature, the reasoning item and
its encrypted content) is kept byte for byte.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sseconform.demo.gateway import Gateway
from sseconform.mask import Masker
from sseconform.recording.format import RecordingReader, RecordingWriter
from sseconform.replay.history import check_history, issued_of
from sseconform.replay.plan import Loaded, load
from sseconform.replay.routing import RequestBody
from sseconform.replay.scenario import ReplayRule
from sseconform.replay.server import ReplayServer
from sseconform.sse import SSEDecoder
from sseconform.wires.base import Refusal
from sseconform.wires.state import StateFolder
from tests.interop.heavy.cli import cli_env, json_lines, run_cli
from tests.interop.heavy.clients import (
    CLAUDE,
    GEMINI_COMPILE_CACHE,
    GEMINI_ENTRY,
    GEMINI_MODEL,
    GEMINI_NODE,
    GEMINI_SETTINGS,
    codex_binary,
)
from tests.interop.heavy.opencode import OPENCODE, RIPGREP_DIR
from tests.interop.heavy.opencode import PROVIDERS as OPENCODE_PROVIDERS
from tests.interop.heavy.opencode import QUIET as OPENCODE_QUIET
from tests.interop.matrix.clients import KEY

Obj = dict[str, Any]
#: Changes an event's JSON in place; False: leave the event out.
Rewrite = Callable[[Obj], bool]

#: The model each agent asks for: one it knows (Claude Code then thinks, Codex reasons and
#: asks for the encrypted reasoning); the gateway routes by ``x-test-provider`` instead.
CLAUDE_MODEL = "claude-sonnet-4-5-20250929"
CODEX_MODEL = "gpt-5.5"
THINKING_BUDGET = 4000


# -- the turn-1 variant -------------------------------------------------------------------------


def rewrite_recording(src: Path, dest: Path, rewrite: Rewrite) -> Path:
    """``src`` with each event whose data ``rewrite`` changed re-serialised (or left out),
    every other event byte for byte; one read per event, at the time its last byte was
    recorded. The head (request, response) is kept."""
    reader = RecordingReader(io.BytesIO(src.read_bytes()), str(src))
    reads = list(reader.reads())
    assert reader.response is not None, src
    body = b"".join(data for _, data in reads)
    stamps: list[tuple[int, float]] = []  # (offset just past each read, its time)
    for t, data in reads:
        stamps.append(((stamps[-1][0] if stamps else 0) + len(data), t))
    dec = SSEDecoder()
    out: list[tuple[float, bytes]] = []
    start = 0
    for ev in dec.feed(body) + dec.finish():
        raw, start = body[start : ev.end], ev.end
        t = next(t for end, t in stamps if end >= ev.end)
        try:
            obj = json.loads(ev.data)
        except ValueError:
            out.append((t, raw))
            continue
        before = json.dumps(obj, sort_keys=True)
        if not rewrite(obj):
            continue
        if json.dumps(obj, sort_keys=True) != before:
            name = f"event: {ev.event}\n" if ev.event else ""
            nl = "\r\n" if raw.endswith(b"\r\n\r\n") else "\n"  # Gemini's framing kept
            raw = f"{name}data: {json.dumps(obj, separators=(',', ':'))}{nl}{nl}".encode()
        out.append((t, raw))
    assert not body[start:].strip(), f"{src}: the recording ends inside an event"
    writer = RecordingWriter(dest, request=reader.request, force=True, masker=Masker())
    writer.response(reader.response, t=reader.response.t)
    for t, data in out:
        writer.read(t, data)
    writer.close(t=out[-1][0])
    return dest


def anthropic_call(name: str, args: Obj) -> Rewrite:
    """Each ``tool_use`` block becomes a call of ``name`` with ``args`` (its id kept): the
    first ``input_json_delta`` carries the whole input, the later ones are left out."""
    sent = [False]

    def rewrite(obj: Obj) -> bool:
        block, delta = obj.get("content_block"), obj.get("delta")
        if isinstance(block, dict) and block.get("type") == "tool_use":
            block["name"] = name
        if isinstance(delta, dict) and delta.get("type") == "input_json_delta":
            if sent[0]:
                return False
            delta["partial_json"], sent[0] = json.dumps(args), True
        return True

    return rewrite


def responses_call(name: str, args: Obj) -> Rewrite:
    """Each ``function_call`` item becomes a call of ``name`` with ``args`` (its ids kept):
    the first arguments delta carries them whole, the later ones are left out; the done
    events and the completed response say the same."""
    text = json.dumps(args)
    sent = [False]

    def item(it: Any) -> None:
        if isinstance(it, dict) and it.get("type") == "function_call":
            it["name"] = name
            if it.get("arguments"):
                it["arguments"] = text

    def rewrite(obj: Obj) -> bool:
        kind = obj.get("type")
        if kind == "response.function_call_arguments.delta":
            if sent[0]:
                return False
            obj["delta"], sent[0] = text, True
            obj.pop("obfuscation", None)
        if kind == "response.function_call_arguments.done":
            obj["arguments"] = text
        item(obj.get("item"))
        response = obj.get("response")
        for it in response.get("output") or [] if isinstance(response, dict) else []:
            item(it)
        return True

    return rewrite


def gemini_call(name: str, args: Obj) -> Rewrite:
    """Each ``functionCall`` part becomes a call of ``name`` with ``args`` (its
    ``thoughtSignature``, beside it in the part, kept)."""

    def rewrite(obj: Obj) -> bool:
        for candidate in obj.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                if isinstance(part.get("functionCall"), dict):
                    part["functionCall"]["name"] = name
                    part["functionCall"]["args"] = args
        return True

    return rewrite


def issued_state(rec: Loaded) -> set[str]:
    """The opaque state a recording issues (signatures, encrypted content), as sent."""
    folder = StateFolder(str(rec.dialect))
    dec = SSEDecoder()
    for ev in dec.feed(rec.body) + dec.finish():
        folder.feed(ev.data, ev.frame, ev.offset)
    return {t.value for t in folder.finish().tokens}


# -- the upstream -------------------------------------------------------------------------------


@dataclass
class Seen:
    """One request as the upstream received it."""

    method: str
    path: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)  # by lower-case name

    @property
    def json(self) -> Obj:
        obj = json.loads(self.body)
        assert isinstance(obj, dict)
        return obj


class CapturingReplay(ReplayServer):
    """A replay upstream that keeps each request it is asked, before it answers it.
    ``issuing``: the recordings whose state it takes for its own (default: all it serves);
    with fewer, it refuses the others' state, as another account's upstream would."""

    def __init__(
        self, recordings: list[Loaded], *, issuing: list[Loaded] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(recordings, **kwargs)
        self.seen: list[Seen] = []
        if issuing is not None:
            self.__dict__["issued"] = issued_of(issuing)  # in place of the cached property

    async def _respond(
        self, client: str, method: str, path: str, headers: dict[str, str], body: bytes,
        *rest: Any, **options: Any,
    ) -> bool:  # fmt: skip
        self.seen.append(Seen(method, path, body, {k.lower(): v for k, v in headers.items()}))
        return await super()._respond(client, method, path, headers, body, *rest, **options)


@dataclass
class Upstream:
    """The replay upstream behind the test gateway, and what it was asked."""

    replay: CapturingReplay
    gateway: Gateway
    dialect: str
    log: list[str] = field(default_factory=list)

    def settled(self, timeout: float = 5.0) -> list[str]:
        """The log, once every request received has its line (replay logs after the answer
        is written, on its own thread: the agent may have exited first)."""
        deadline = time.monotonic() + timeout
        while len(self.log) < len(self.replay.seen) and time.monotonic() < deadline:
            time.sleep(0.01)
        return list(self.log)

    def refusals(self) -> list[Refusal | None]:
        """Each request's refusal (None: answered), as the replay judged its history."""
        issued = self.replay.issued
        return [check_history(self.dialect, RequestBody(s.body), issued) for s in self.replay.seen]


@contextmanager
def upstream(
    dialect: str, loop: Path, answer: Path, bugs: set[str], *, foreign: bool = False
) -> Iterator[Upstream]:
    """A replay upstream answering the first request with ``loop`` and every later one with
    ``answer`` (its history checked as the provider checks it), behind the test gateway
    with ``bugs``. ``foreign``: turn 1's state is not this upstream's own (turn 2 reaches
    another account than turn 1 did), so a history that carries it is refused."""
    recordings = [load(str(loop)), load(str(answer))]
    log: list[str] = []
    lock = threading.Lock()

    def keep(line: str) -> None:
        with lock:
            log.append(line)

    rules = [ReplayRule(recordings[0].name, times=1), ReplayRule(recordings[1].name)]
    replay = CapturingReplay(
        recordings,
        issuing=recordings[1:] if foreign else None,
        host="127.0.0.1",
        port=0,
        speed=0,
        rules=rules,
        log=keep,
        strict=True,
    )
    with replay.running():
        gateway = Gateway(f"http://127.0.0.1:{replay.port}", bugs)
        with gateway.running():
            yield Upstream(replay, gateway, dialect, log)


# -- the agents ---------------------------------------------------------------------------------


@dataclass
class Run:
    """One CLI run: its exit code, its JSON lines, its error output, its debug log."""

    returncode: int
    events: list[Obj]
    stderr: str
    debug: str = ""


def run_claude(
    url: str, work: Path, prompt: str, tool: str, thinking: int | None = THINKING_BUDGET
) -> Run:
    """Claude Code in ``-p`` mode, in ``work``, through ``url``: thinking on (``thinking``
    as its budget; None: its own default), ``tool`` allowed without asking, two turns at
    most."""
    home = Path(tempfile.mkdtemp(prefix="sseconform-claude-"))
    try:
        env = cli_env(
            home,
            {
                "ANTHROPIC_BASE_URL": url,
                "ANTHROPIC_API_KEY": KEY,
                "ANTHROPIC_CUSTOM_HEADERS": "x-test-provider: anthropic",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                **({} if thinking is None else {"MAX_THINKING_TOKENS": str(thinking)}),
            },
        )
        argv = [str(CLAUDE), "-p", prompt, "--output-format", "stream-json", "--verbose"]
        argv += ["--debug", "--model", CLAUDE_MODEL, "--max-turns", "2", "--allowedTools", tool]
        run = run_cli(argv, work, env)
        debug = "\n".join(p.read_text(errors="replace") for p in home.glob(".claude/debug/*.txt"))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return Run(run.returncode, json_lines(run.stdout), run.stderr, debug)


def codex_config(
    url: str,
    model: str = CODEX_MODEL,
    *,
    websocket: bool = False,
    agent: bool = True,
    header: bool = True,
) -> str:
    """Codex's config.toml: ``url`` as a Responses provider (``loopback``, its key in
    SSECONFORM_LOOPBACK_KEY), idle timeout 10 s. ``agent``: commands run in its read-only
    sandbox without asking; ``websocket``: it speaks the WebSocket mode
    (``supports_websockets``) with no retries, so a failure shows at once, not after a
    fallback to HTTP; ``header``: the ``x-test-provider`` header the test gateway routes by."""
    lines = [f'model = "{model}"', 'model_provider = "loopback"']
    if agent:
        lines += ['approval_policy = "never"', 'sandbox_mode = "read-only"']
    lines += [
        "[model_providers.loopback]",
        'name = "loopback"',
        f'base_url = "{url}/v1"',
        'env_key = "SSECONFORM_LOOPBACK_KEY"',
        'wire_api = "responses"',
    ]
    if websocket:
        lines += ["supports_websockets = true", "request_max_retries = 0", "stream_max_retries = 0"]
    lines.append("stream_idle_timeout_ms = 10000")
    if header:
        lines.append('http_headers = { "x-test-provider" = "responses" }')
    return "\n".join(lines) + "\n"


def run_codex(url: str, work: Path, prompt: str) -> Run:
    """Codex ``exec --json`` in ``work``, through ``url``: a model it reasons with, commands
    run in its read-only sandbox without asking, its own retry settings."""
    codex = codex_binary()
    assert codex is not None
    home = Path(tempfile.mkdtemp(prefix="sseconform-codex-"))
    try:
        (home / "config.toml").write_text(codex_config(url))
        env = cli_env(home, {"CODEX_HOME": str(home), "SSECONFORM_LOOPBACK_KEY": KEY})
        run = run_cli([str(codex), "exec", "--skip-git-repo-check", "--json", prompt], work, env)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return Run(run.returncode, json_lines(run.stdout), run.stderr)


def run_gemini(url: str, work: Path, prompt: str) -> Run:
    """Gemini CLI ``-p`` in ``work``, through ``url``: the matrix's settings (the API key,
    nothing sent anywhere but the route, one retry) with room for a call and its answer (three
    session turns); read-only tools run without asking in this mode."""
    home = Path(tempfile.mkdtemp(prefix="sseconform-gemini-"))
    try:
        settings = json.loads(json.dumps(GEMINI_SETTINGS))
        settings["model"] = {"name": GEMINI_MODEL, "maxSessionTurns": 3}
        (home / ".gemini").mkdir()
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        env = cli_env(
            home,
            {
                "GEMINI_API_KEY": KEY,
                "GOOGLE_GEMINI_BASE_URL": url,
                "GEMINI_CLI_CUSTOM_HEADERS": "x-test-provider: gemini",
                "GEMINI_CLI_NO_RELAUNCH": "1",
                "NODE_COMPILE_CACHE": str(GEMINI_COMPILE_CACHE),
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
                "NO_COLOR": "1",
            },
        )
        argv = [str(GEMINI_NODE), str(GEMINI_ENTRY), "-p", prompt, "--output-format"]
        run = run_cli([*argv, "stream-json"], work, env)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return Run(run.returncode, json_lines(run.stdout), run.stderr)


def run_opencode(url: str, work: Path, prompt: str) -> Run:
    """``opencode run --format json`` in ``work``, through ``url``'s Gemini route (the AI
    SDK's Google provider, the matrix's offline settings): a session title given, so no title
    request reaches the model (one would race turn 1 for its recording), ``glob`` allowed."""
    home = Path(tempfile.mkdtemp(prefix="sseconform-opencode-"))
    try:
        _, path, model = OPENCODE_PROVIDERS["gemini"]
        options = {"baseURL": url + path, "apiKey": KEY, "headers": {"x-test-provider": "gemini"}}
        provider = {"npm": "@ai-sdk/google", "name": "gateway", "options": options}
        config = {
            "provider": {"gateway": {**provider, "models": {model: {"name": model}}}},
            "model": f"gateway/{model}",
            "autoupdate": False,
            "share": "disabled",
            "lsp": False,
            "formatter": False,
            "permission": {"glob": "allow"},
        }
        env = cli_env(
            home,
            {
                "PATH": f"{RIPGREP_DIR}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                "OPENCODE_CONFIG_CONTENT": json.dumps(config),
                **OPENCODE_QUIET,
            },
        )
        argv = [str(OPENCODE), "run", "--format", "json", "--title", "sseconform agent turns"]
        run = run_cli([*argv, prompt], work, env)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return Run(run.returncode, json_lines(run.stdout), run.stderr)
