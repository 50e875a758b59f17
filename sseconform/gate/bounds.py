"""How long a scenario may take and how much of the gateway's answer is kept: bounds that
a broken gateway build (one that drips, streams forever or answers with a gigabyte) cannot
stretch, derived from what the upstream sends unless the suite or command line sets them.
"""

from __future__ import annotations

from sseconform.replay.plan import Loaded

__all__ = ["DEADLINE_MARGIN", "MAX_BYTES_FLOOR", "MAX_BYTES_RATIO", "deadline_for", "max_bytes_for"]

#: Seconds a gateway may take on top of twice the upstream's own answer (twice: a retry
#: sends it again): its start-up on a cold path, a retry's back-off, a loaded machine.
DEADLINE_MARGIN = 15.0
#: The gateway's answer may be this many times the upstream's body, plus the floor: a
#: translation to Anthropic or Responses events is several times the size of the chunks.
MAX_BYTES_RATIO = 16
MAX_BYTES_FLOOR = 16 * 1024 * 1024


def deadline_for(seconds: float) -> float:
    """A scenario's deadline, from the ``seconds`` its upstream takes to send its longer
    answer (with the fault or clean, at the suite's speed): twice that, plus
    :data:`DEADLINE_MARGIN`."""
    return round(2 * seconds + DEADLINE_MARGIN, 3)


def max_bytes_for(rec: Loaded) -> int:
    """The bytes kept of the gateway's answer to a scenario whose upstream sends ``rec``."""
    return MAX_BYTES_FLOOR + MAX_BYTES_RATIO * len(rec.body)
