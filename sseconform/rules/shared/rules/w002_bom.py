"""W002 bom: The body starts with a byte-order mark."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W002",
    "bom",
    Severity.WARNING,
    None,
    "The body starts with a byte-order mark.",
    RuleDoc(
        what="The body starts with the UTF-8 byte-order mark EF BB BF.",
        why=(
            "The WHATWG algorithm drops a leading BOM, but not every reader does, and the first "
            "event is the role chunk or the first piece of the answer."
        ),
        clients=(
            "Beyond the matrix: openai-python and httpx-sse were seen to lose the first event "
            "after a BOM (its first line reads as an unknown field). Spec-following parsers "
            "drop the BOM and read on."
        ),
        example=('<0xEF><0xBB><0xBF>data: {...,"delta":{"role":"assistant","content":""}}\n\n'),
        fix=(
            "Send no BOM; the body starts with the first field:\n"
            'data: {...,"delta":{"role":"assistant","content":""}}\n'
            "\n"
        ),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.BOM_SEEN, "the body starts with a byte-order mark")
