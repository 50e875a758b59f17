"""A WebSocket pass-through in its simplest, most faithful form: every connection to it piped
byte for byte to the upstream (the upgrade, then the frames both ways), on 127.0.0.1. What a
gateway that forwards WebSocket mode untouched to a Responses upstream does."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator


async def _pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
    try:
        while data := await r.read(65536):
            w.write(data)
            await w.drain()
    except ConnectionError:
        pass
    finally:
        w.close()


@contextlib.contextmanager
def relay(port: int, upstream: int) -> Iterator[str]:
    """Listen on ``port`` until the block ends; each connection goes to ``upstream``."""
    ready, stop = threading.Event(), threading.Event()

    async def handle(cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        try:
            ur, uw = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            cw.close()
            return
        await asyncio.gather(_pipe(cr, uw), _pipe(ur, cw))

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", port)
        ready.set()
        async with server:
            while not stop.is_set():
                await asyncio.sleep(0.05)

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop.set()
        thread.join(10)
