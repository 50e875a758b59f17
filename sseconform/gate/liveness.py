"""Whether the gateway is still there: a gateway that dies mid-run is named once, with the
scenario in flight when it died, and the scenarios after it are "not graded" instead of each
failing with ``transport:no-response`` of its own (one crash under ``--concurrency 4`` used
to fail every scenario after it). A gateway that was never up tested nothing.

The gateway is asked only after a scenario it did not answer or cut: one TCP connection to
its host and port, refused (or timed out) meaning it no longer listens.
"""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlsplit

from sseconform.gate.result import ScenarioResult

__all__ = ["PROBE_TIMEOUT", "Liveness", "listening", "wait_until_listening"]

#: Seconds a connection to the gateway may take before it counts as not listening.
PROBE_TIMEOUT = 2.0
#: The findings that say the gateway did not answer, or cut its answer.
_CUT = frozenset({"transport:no-response", "transport:incomplete"})


def listening(url: str, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether something accepts a TCP connection at ``url``'s host and port."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_until_listening(url: str, seconds: float) -> bool:
    """Whether something accepts a connection at ``url`` within ``seconds`` (``gate --wait``:
    a gateway started just before the run, as a CI job starts it, may take a while to
    listen), asked every quarter second."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if listening(url, timeout=max(0.1, min(PROBE_TIMEOUT, left))):
            return True
        if left <= 0:
            return False
        time.sleep(min(0.25, max(left, 0.0)))


class Liveness:
    """One run's watch on its gateway (results may come from several threads)."""

    def __init__(self, gateway: str) -> None:
        self.gateway = gateway
        #: the scenario in flight when the gateway went down; "" when it never answered
        self.down: str | None = None
        self._answered = False
        self._lock = threading.Lock()

    def after(self, result: ScenarioResult) -> None:
        """Look at one graded scenario: a cut or unanswered one makes the gateway be asked
        whether it still listens."""
        if not result.applicable:
            return  # never sent
        cut = result.status is None or any(f.key in _CUT for f in result.findings)
        with self._lock:
            if not cut:
                self._answered = True
                return
            if self.down is not None:  # in flight beside the one that found it down
                if result.status is None and result.graded:
                    self.not_graded(result)
                return
            if listening(self.gateway):
                self._answered = self._answered or result.status is not None
                return
            if self._answered or result.status is not None:
                self.down = result.name
                said = "the gateway went down during this scenario"
                result.note = f"{result.note}; {said}" if result.note else said
            else:
                self.down = ""
                self.not_graded(result)

    def not_graded(self, result: ScenarioResult) -> ScenarioResult:
        """``result`` as a scenario that met a gateway already down."""
        result.graded = False
        result.findings = []
        if self.down:
            result.note = f"not graded: the gateway went down during {self.down}"
        else:
            result.note = f"not graded: nothing listens at {self.gateway}"
        return result
