"""``sseconform translate``: any stream we read into chunks, Anthropic or Responses events."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from sseconform.cli.app import app, check_dialect, fail, holds_data, open_input
from sseconform.mask import open_binary
from sseconform.providers import GRAMMAR_PATH


@app.command()
def translate(
    source: Annotated[
        str,
        typer.Argument(help="A raw native body, a recording, or - for stdin.", metavar="IN"),
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write here (default: stdout).", metavar="OUT"),
    ] = None,
    dialect: Annotated[
        str | None,
        typer.Option("--from", help="anthropic, gemini, responses or openai (default: detected)."),
    ] = None,
    include_usage: Annotated[
        bool, typer.Option(help="End with the usage chunk (choices: []), as when asked for.")
    ] = False,
    model: Annotated[str | None, typer.Option(help="The model name every chunk carries.")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output file.")] = False,
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="chat (chat.completion.chunk frames), anthropic (Messages events, as "
            "/v1/messages serves) or responses (Responses events, as /v1/responses serves).",
        ),
    ] = "chat",
) -> None:
    """Translate a stream into the reference output of a grammar (default: chunks).

    Every dialect we read goes into every target; a source already in the target's grammar is
    passed through as it is. A raw body gives a raw SSE body; a recording gives a recording
    whose output keeps the arrival time of the event it came from.
    """
    from sseconform import providers
    from sseconform import translate as tr

    check_dialect(dialect)
    if to not in tr.TARGETS:
        fail(f"--to {to!r}: one of {', '.join(tr.TARGETS)}")
    if output is not None and holds_data(output) and not force:
        fail(f"{output}: exists (use --force to replace it)")
    fp = open_input(source)
    from sseconform.recording.format import looks_like_recording

    with fp:
        head = fp.read(64 * 1024)
        if looks_like_recording(head[:64]):
            _translate_recording(
                source, head + fp.read(), output, dialect, include_usage, model, force, to
            )
            return
        if dialect is None and to != "chat":  # a source in the target's grammar passes
            dialect = providers.detect(head)

        def chunks() -> Iterator[bytes]:  # streamed: memory does not grow with the input
            yield head
            while piece := fp.read(256 * 1024):
                yield piece

        pieces = tr.translate_body(
            chunks(), dialect, include_usage=include_usage, model=model, to=to
        )
        if output is None:
            for piece in pieces:
                sys.stdout.buffer.write(piece)
            sys.stdout.buffer.flush()
            return
        try:
            replace = force or not holds_data(output)  # xb refuses /dev/null too
            with open_binary(output, "wb" if replace else "xb") as out:
                for piece in pieces:
                    out.write(piece)
        except OSError as exc:
            fail(f"{output}: {exc.strerror}")


def _translate_recording(
    source: str,
    data: bytes,
    output: Path | None,
    dialect: str | None,
    include_usage: bool,
    model: str | None,
    force: bool,
    to: str = "chat",
) -> None:
    """Recording in, recording out: each piece leaves when the event it came from arrived."""
    import io
    from datetime import datetime

    from sseconform import providers
    from sseconform import translate as tr
    from sseconform.recording.format import (
        RecordingError,
        RecordingReader,
        RecordingWriter,
        Response,
    )

    try:
        reader = RecordingReader(io.BytesIO(data), source, by="translate")
        reads = list(reader.reads())
    except RecordingError as exc:
        fail(f"{exc.path}: line {exc.line}: {exc.message}")
    body = b"".join(b for _, b in reads)
    req = reader.request or {}
    url = req.get("url") if isinstance(req.get("url"), str) else None
    chosen = dialect or providers.detect(body, url) or providers.OPENAI
    try:
        stamp = int(datetime.fromisoformat(str(reader.header.get("created"))).timestamp())
    except ValueError:
        stamp = 0
    resp = reader.response
    out_reads = tr.translate_reads(
        reads,
        chosen,
        status=resp.status if resp is not None else 200,
        include_usage=include_usage,
        model=model,
        created=stamp,
        t_error=(resp.t or 0.0) if resp is not None else 0.0,
        to=to,
    )
    if output is None:
        sys.stdout.buffer.write(b"".join(b for _, b in out_reads))
        return
    head = Response(
        200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")], resp.t if resp else 0.0
    )
    try:
        origin = {"dialect": chosen, "recording": Path(source).name}
        if url is not None:
            origin["url"] = url
        writer = RecordingWriter(
            output,
            request=_as_target(req, to),
            extra={"translated_from": origin, "translated_to": to},
            force=force or not holds_data(output),
        )
    except OSError as exc:
        fail(f"{output}: {exc.strerror}")
    writer.response(head, t=head.t)
    for when, piece in out_reads:
        writer.read(when, piece)
    writer.close(
        complete=reader.complete,
        reason=reader.end.reason if reader.end else "eof",
        t=out_reads[-1][0] if out_reads else 0.0,
    )


def _as_target(req: dict[str, Any], to: str) -> dict[str, Any]:
    """The request a translated recording keeps: the source's, with the URL's path the
    target grammar's, so ``replay`` labels it by the target and serves it at that path
    (the source URL is kept under ``translated_from``)."""
    from urllib.parse import urlsplit, urlunsplit

    url = req.get("url") if isinstance(req.get("url"), str) else None
    path = GRAMMAR_PATH[to]  # where a stream of the target grammar is served
    if url is None:
        return {**req, "url": path}
    parts = urlsplit(url)
    return {**req, "url": urlunsplit(parts._replace(path=path, query=""))}
