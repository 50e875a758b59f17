"""H003 recording-incomplete: The recording ended early or has no end mark."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import RECORDING_INCOMPLETE

if TYPE_CHECKING:
    from sseconform.rules.base import Checker


RULE = define(
    "H003",
    "recording-incomplete",
    Severity.WARNING,
    None,
    "The recording ended early or has no end mark.",
    RuleDoc(
        what="The recording is marked incomplete or has no end line: it stopped early.",
        why=(
            "Findings about the end of the stream (E003, D001, W011, F001) may then describe the "
            "recording, not the gateway; re-record before acting on them."
        ),
        clients=(
            "Does not concern clients: it describes the recording file, not the stream the "
            "gateway sent."
        ),
        example=(
            'data: {...,"delta":{"content":"The answer"}}\n'
            "\n"
            "(recording stops here: interrupted or timed out, no end line)"
        ),
        fix="Record the response until the gateway closes it, then check the new recording.",
    ),
)


@RECORDING_INCOMPLETE.on(RULE)
def check(c: Checker, why: str) -> None:
    """A recording that stops before the response ended."""
    c.report_about_file(RULE, f"incomplete recording: {why}")
