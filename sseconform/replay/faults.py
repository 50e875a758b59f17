"""What to break in a replayed response, and how to cut it: the ``--fault`` and ``--split``
specs a user writes, parsed into values a plan (``plan.py``) executes. Pure: no recording,
no clock."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAULT_HELP", "SPLIT_HELP", "WS_FRAGMENT", "Faults", "parse_faults", "parse_split"]


@dataclass
class Faults:
    """What to break in one response. Parsed from ``name=value`` items joined by commas."""

    status: int | None = None
    drop_after_events: int | None = None
    drop_after_bytes: int | None = None
    stall: tuple[float, int] | None = None  # (seconds, after event N)
    error_at: int | None = None
    truncate_last: bool = False
    #: WebSocket mode's own (:mod:`.websocket`): the upgrade answered with this status
    ws_refuse: int | None = None
    #: a Close frame with this code after event N of a turn: (code, N)
    ws_close: tuple[int, int] | None = None
    #: each message sent in frames of this many bytes (continuation frames after the first)
    ws_fragment: int | None = None
    #: a server Ping before each turn's answer
    ws_ping: bool = False
    spec: str = ""

    def __bool__(self) -> bool:
        """Any fault at all (however the Faults was made: parsed or built in code)."""
        return (
            self.status is not None
            or self.drop_after_events is not None
            or self.drop_after_bytes is not None
            or self.stall is not None
            or self.error_at is not None
            or self.truncate_last
            or self.websocket
        )

    @property
    def websocket(self) -> bool:
        """Any of WebSocket mode's own faults (an SSE response has none of them to fire)."""
        return (
            self.ws_refuse is not None
            or self.ws_close is not None
            or self.ws_fragment is not None
            or self.ws_ping
        )


FAULT_HELP = (
    "status=CODE (an HTTP error with the provider's body before any stream), "
    "drop-after-events=N, drop-after-bytes=N, stall=SECONDS@N (pause after event N), "
    "error-at=N (the dialect's own error event after event N, then the end), "
    "truncate-last (the last event cut short); WebSocket mode only: ws-refuse=STATUS (the "
    "upgrade refused), ws-close=CODE@N (a Close frame after event N), ws-fragment[=BYTES] "
    "(each message in continuation frames), ws-ping (a server Ping before each answer)"
)
#: Close codes a server may send (RFC 6455 7.4): 1004-1006 and 1015 never go on the wire.
_CLOSE_CODES = frozenset({1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014})
#: ``ws-fragment`` without a size: frames this long (a short JSON event still splits).
WS_FRAGMENT = 16


def parse_faults(spec: str | None) -> Faults:
    """``"drop-after-events=3,stall=2@1"`` -> Faults; a bad item names the valid ones."""
    f = Faults(spec=(spec or "").strip())
    for item in filter(None, (x.strip() for x in f.spec.split(","))):
        name, _, value = item.partition("=")
        name = name.strip().lower()
        try:
            if name == "status":
                f.status = int(value)
                if not 400 <= f.status <= 599:
                    raise ValueError
            elif name == "drop-after-events":
                f.drop_after_events = _count(value)
            elif name == "drop-after-bytes":
                f.drop_after_bytes = _count(value)
            elif name == "stall":
                seconds, _, at = value.partition("@")
                f.stall = (float(seconds), _count(at or "0"))
                if not 0 <= f.stall[0] < 86400:  # also refuses nan and inf
                    raise ValueError
            elif name == "error-at":
                f.error_at = _count(value)
            elif name == "truncate-last" and not value:
                f.truncate_last = True
            elif name == "ws-refuse":
                f.ws_refuse = int(value)
                if not 400 <= f.ws_refuse <= 599:
                    raise ValueError
            elif name == "ws-close":
                code, _, at = value.partition("@")
                f.ws_close = (int(code), _count(at or "0"))
                if f.ws_close[0] not in _CLOSE_CODES and not 3000 <= f.ws_close[0] <= 4999:
                    raise ValueError
            elif name == "ws-fragment":
                f.ws_fragment = _count(value) if value else WS_FRAGMENT
                if f.ws_fragment < 1:
                    raise ValueError
            elif name == "ws-ping" and not value:
                f.ws_ping = True
            else:
                raise KeyError(name)
        except KeyError:
            raise ValueError(f"unknown fault {item!r}; faults: {FAULT_HELP}") from None
        except ValueError:
            raise ValueError(f"bad value in fault {item!r}; faults: {FAULT_HELP}") from None
    return f


def _count(value: str) -> int:
    n = int(value)
    if n < 0:
        raise ValueError
    return n


# -- splits ----------------------------------------------------------------------------------

SPLIT_HELP = "N (every N bytes), byte, event (one write per event), crlf (between CR and LF)"


def parse_split(spec: str | None) -> str | int | None:
    if spec is None or spec == "":
        return None
    s = spec.strip().lower()
    if s in ("byte", "bytes"):
        return 1
    if s in ("event", "crlf"):
        return s
    try:
        n = int(s.removeprefix("bytes:"))
    except ValueError:
        raise ValueError(f"bad --split {spec!r}; use {SPLIT_HELP}") from None
    if n < 1:
        raise ValueError(f"bad --split {spec!r}; use {SPLIT_HELP}")
    return n
