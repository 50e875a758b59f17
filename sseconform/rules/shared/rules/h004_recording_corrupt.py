"""H004 recording-corrupt: A damaged line in the recording: what follows is lost."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import RECORDING_DAMAGED

if TYPE_CHECKING:
    from sseconform.rules.base import Checker


RULE = define(
    "H004",
    "recording-corrupt",
    Severity.ERROR,
    None,
    "A damaged line in the recording: what follows is lost.",
    RuleDoc(
        what=(
            "A line of the recording file is damaged (not JSON, not an object, bad base64, a read "
            "without its time): the reads before it are checked, the rest is lost."
        ),
        why=(
            "The file changed after it was written (an editor, a bad merge, a disk fault). "
            "Findings about the end of the stream then describe the damage, not the gateway."
        ),
        clients=(
            "Does not concern clients: it describes the recording file, not the stream the "
            "gateway sent."
        ),
        example=(
            '{"t": 0.41, "text": "data: {...}\\n\\n"}\n'
            '{"t": 0.45, "text": "data: {...\n'
            "   (line cut, then other bytes)"
        ),
        fix="Restore the file from version control, or record the stream again.",
    ),
)


@RECORDING_DAMAGED.on(RULE)
def check(c: Checker, line: int, why: str, after: int, checked: int) -> None:
    """A line of the recording that cannot be read: at the body byte where reading stopped."""
    lost = f"it and the {after} line(s) after it are not read" if after else "it is not read"
    c.report_about_file(
        RULE,
        f"damaged recording at line {line} ({why}): {lost}; the {checked} body bytes before "
        "it were checked",
        offset=checked,
    )
