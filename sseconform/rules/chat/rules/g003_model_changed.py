"""G003 model-changed: A chunk's `model` differs from the first chunk's."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "G003",
    "model-changed",
    Severity.WARNING,
    None,
    "A chunk's `model` differs from the first chunk's.",
    RuleDoc(
        what=(
            "A chunk's `model` differs from the first chunk's before any content, reasoning or "
            "tool delta was sent (after that, the same change is R003)."
        ),
        why=(
            "`model` tells the client what answered, and the stream should name one model. A "
            "change before the first delta shows a failover after the first chunk was already "
            "sent."
        ),
        clients=(
            "Beyond the matrix: Clients take the model from one chunk, not "
            "necessarily the last, so they may report a model that did not answer."
        ),
        fix=(
            "Pick the upstream before sending the first chunk, then name one model throughout:\n"
            'data: {...,"model":"gpt-y","delta":{"role":"assistant","content":""}}\n'
            "\n"
            'data: {...,"model":"gpt-y","delta":{"content":"Hi"}}\n'
            "\n"
        ),
    ),
)
