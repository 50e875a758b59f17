"""G002 id-changed: A chunk's `id` differs from the first chunk's."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "G002",
    "id-changed",
    Severity.WARNING,
    None,
    "A chunk's `id` differs from the first chunk's.",
    RuleDoc(
        what=(
            "A chunk's `id` differs from the first chunk's before any content, reasoning or tool "
            "delta was sent (after that, the same change is R002)."
        ),
        why=(
            "One response has one id for its whole stream; clients and logs use it to tie the "
            "chunks and the usage together. A change before the first delta usually means a "
            "failover that did not keep the id already sent."
        ),
        clients=(
            "Beyond the matrix: An accumulating client keeps one id per response, so "
            "which one it reports depends on the client; anything that joins logs or billing on "
            "the id sees two responses."
        ),
        fix=(
            'data: {"id":"c1",...,"delta":{"role":"assistant","content":""}}\n'
            "\n"
            'data: {"id":"c1",...,"delta":{"content":"Hi"}}\n'
            "\n"
        ),
    ),
)
