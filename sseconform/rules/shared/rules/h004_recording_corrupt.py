"""H004 recording-corrupt: A damaged line in the recording: what follows is lost."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
