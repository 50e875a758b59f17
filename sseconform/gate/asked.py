"""Two requests compared by meaning (``sseconform diff --requests``): what a client asked a
gateway against what the gateway asked its upstream, as the gate compares them each scenario.

A request is a JSON body, or a recording (its header holds the request ``record`` sent: the
URL says the dialect, the headers carry the feature flags). Each is read by its own wire
(``Wire.read_request``) and compared by ``gate.rules.request.compare``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sseconform.errors import UsageError
from sseconform.gate.rules.request import Deviation, compare
from sseconform.providers import dialect_of_path
from sseconform.recording.format import RecordingError, RecordingReader
from sseconform.wires import by_dialect, known_dialect

__all__ = ["AskedFile", "diff_requests", "read_request_file"]

#: A request file larger than this is refused (a request, not a stream).
MAX_REQUEST_FILE = 16 * 1024 * 1024


@dataclass(frozen=True)
class AskedFile:
    """A request as a file holds it: its dialect where the file says it, body and headers."""

    dialect: str | None
    body: dict[str, Any]
    headers: dict[str, str]


def read_request_file(path: str) -> AskedFile:
    """A request body (JSON), or the request a recording holds; UsageError names the file
    and what is wrong."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_REQUEST_FILE:
            raise UsageError(f"{path}: larger than {MAX_REQUEST_FILE:,} bytes: not a request")
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    if raw.lstrip().startswith(b'{"format"') or path.endswith(".jsonl"):
        return _from_recording(path)
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise UsageError(f"{path}: not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise UsageError(f"{path}: a request body is a JSON object, not {type(body).__name__}")
    return AskedFile(None, body, {})


def _from_recording(path: str) -> AskedFile:
    try:
        with open(path, "rb") as fp:
            request = RecordingReader(fp, path, by="gate").request
    except RecordingError as exc:
        raise UsageError(str(exc)) from None
    body = request.get("body") if request else None
    if not isinstance(body, dict):
        raise UsageError(f"{path}: the recording holds no JSON request body")
    url = str(request.get("url") or "") if request else ""
    headers = request.get("headers") if request else None
    pairs = headers if isinstance(headers, list) else []
    named = {str(p[0]).lower(): str(p[1]) for p in pairs if isinstance(p, list | tuple) and p}
    path_only = url.split("://", 1)[-1].partition("/")[2]
    return AskedFile(dialect_of_path("/" + path_only)[0], body, named)


def diff_requests(
    upstream: AskedFile, client: AskedFile, upstream_dialect: str | None, client_dialect: str
) -> list[Deviation]:
    """What ``upstream`` (the gateway's request to its provider) lost, changed or added of
    ``client`` (the request the gateway got), each read by its dialect's wire: the one
    given, else the one its recording's URL says."""
    up = upstream_dialect or upstream.dialect
    if not known_dialect(up):
        raise UsageError("--requests: say the upstream's dialect with --from (or give a recording)")
    cd = client.dialect if client_dialect == "auto" else client_dialect
    if not known_dialect(cd):
        raise UsageError("--requests: say the client's dialect with --gateway-from")
    uw, cw = by_dialect(up), by_dialect(cd)
    return compare(
        cw.read_request(client.body, client.headers),
        cw,
        uw.read_request(upstream.body, upstream.headers),
        uw,
    )
