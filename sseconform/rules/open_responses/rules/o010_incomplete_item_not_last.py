"""O010 incomplete-item-not-last: an incomplete item is not the last one."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "O010",
    "incomplete-item-not-last",
    Severity.ERROR,
    "spec-order",
    "An item done as incomplete is not the last, or the response is not incomplete.",
    RuleDoc(
        what=(
            "An `output_item.done` with status `incomplete`, then another `output_item.added`, "
            "or a terminal event other than `response.incomplete`."
        ),
        why=(
            "An incomplete item means generation stopped there; an item after it, or a "
            "response that says completed, contradicts it, and a client cannot tell which to "
            "believe."
        ),
        clients="Not a client's rule: the specification's.",
        example=(
            "data: "
            '{"type":"response.output_item.done","output_index":0,"item":{"type":"message",'
            '"status":"incomplete",...}}\n\ndata: '
            '{"type":"response.completed",...}\n\n'
        ),
        fix="End the response with `response.incomplete` right after an incomplete item.",
        spec=(
            "Open Responses, § Items are state machines: an item that ends `incomplete` MUST "
            "be the last item emitted, and the response MUST be `incomplete`."
        ),
    ),
)
