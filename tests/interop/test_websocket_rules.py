"""The WebSocket rules' severities, measured: each failing session case's server bytes (the
recording ``tests/websocket/cases.py`` makes, frames and all) sent to the real openai-python
``responses.connect()`` over loopback, and what the SDK does is what each rule's "Which
clients break" says.

The server is a few lines of asyncio: the upgrade answered, then for each message the client
sends, the server's bytes that followed that message in the recording, byte for byte.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

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
            for chunk in after:
                if not await _client_message(r):
                    break
                w.write(chunk)
                await w.drain()
            await asyncio.sleep(0.3)
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
