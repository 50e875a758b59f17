"""What to break in a replayed response, and how to cut it: the ``--fault`` and ``--split``
specs a user writes, parsed into values a plan (``plan.py``) executes. Pure: no recording,
no clock."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAULT_HELP", "SPLIT_HELP", "Faults", "parse_faults", "parse_split"]


@dataclass
class Faults:
    """What to break in one response. Parsed from ``name=value`` items joined by commas."""

    status: int | None = None
    drop_after_events: int | None = None
    drop_after_bytes: int | None = None
    stall: tuple[float, int] | None = None  # (seconds, after event N)
    error_at: int | None = None
    truncate_last: bool = False
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
        )


FAULT_HELP = (
    "status=CODE (an HTTP error with the provider's body before any stream), "
    "drop-after-events=N, drop-after-bytes=N, stall=SECONDS@N (pause after event N), "
    "error-at=N (the dialect's own error event after event N, then the end), "
    "truncate-last (the last event cut short)"
)


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
