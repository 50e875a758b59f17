"""history:*: what a conversation's later turn (``turn2:history:*``) lost on the way: the
history the gateway forwarded, as the provider would judge it."""

from __future__ import annotations

from sseconform.rules.catalog import Severity, define_gate
from sseconform.rules.docs import RuleDoc

_STUCK = (
    "Claude Code, Codex CLI, Gemini CLI and every SDK conversation send the history back as "
    "they got it; the provider refuses the turn and the agent is stuck for the rest of the "
    "session."
)

REFUSED = define_gate(
    "history:refused",
    Severity.ERROR,
    "The upstream refused the history the gateway forwarded, as the provider would.",
    RuleDoc(
        what="The replay upstream checks a later turn's history as the provider does and "
        "refused it; its reason is quoted (`Invalid 'signature' in 'thinking' block`, "
        "`Expected 'thinking' ... but found 'tool_use'`, `could not be verified`, `missing "
        "a thought_signature`, ...).",
        why="The gateway lost or changed state the provider issued on the turn before (a "
        "thinking block's signature, a reasoning item's encrypted_content, a "
        "thoughtSignature) or forwarded the history in a shape the provider refuses.",
        clients=_STUCK,
        fix="Carry the upstream's opaque state to the client in the endpoint's own field and "
        "back to the upstream byte for byte.",
    ),
)
LOST = define_gate(
    "history:lost",
    Severity.ERROR,
    "State the upstream issued and the client sent back never reached the upstream.",
    RuleDoc(
        what="Pieces of state the upstream issued and the gateway's client sent back are "
        "not in the request the upstream got on the next turn.",
        why="The gateway dropped them from the history it forwarded; a provider that "
        "verifies them refuses the turn, one that does not loses the reasoning.",
        clients=_STUCK,
        fix="Forward the client's history whole, the state fields included.",
    ),
)
LOST_RESULT = define_gate(
    "history:lost-result",
    Severity.ERROR,
    "The upstream's request holds fewer tool results than the client sent.",
    RuleDoc(
        what="The client sent N tool results; the request the upstream got holds fewer.",
        why="The model never sees the result of its call and calls again, or answers "
        "without it; Anthropic refuses a `tool_use` without its `tool_result`.",
        clients=_STUCK,
        fix="Translate every tool result of the history, parallel ones included.",
    ),
)
NOT_SENT = define_gate(
    "history:not-sent",
    Severity.ERROR,
    "The client got no tool call on the turn before: it had nothing to send back.",
    RuleDoc(
        what="The next turn was not sent: the gateway's client got no tool call on the "
        "turn before, so it had no result to send back.",
        why="The call was lost on the first turn (its other findings say how); the "
        "conversation cannot go on.",
        clients="An agent ends its loop with no call to run: the task stops half done.",
        fix="Fix the first turn's findings: the call must reach the client.",
    ),
)
