"""diff:*: what the gateway changed of the upstream's content on its way to the client. A
difference also names the content field it is about (``diff:changed:usage.prompt_tokens``)."""

from __future__ import annotations

from sseconform.rules.catalog import Severity, define_gate
from sseconform.rules.docs import RuleDoc

_READS = (
    "Every client reads the stream as it is: openai-python, anthropic-python and the AI SDK "
    "build the answer from the deltas they get, and the agents act on it."
)
_PASS = "Pass each upstream delta on once, in order, in the field it belongs to."

LOST = define_gate(
    "diff:lost",
    Severity.ERROR,
    "Content the upstream sent never reached the client.",
    RuleDoc(
        what="Content the upstream sent never reached the client: text, reasoning, a call, "
        "a header its clients act on (retry-after), or opaque state the client must send "
        "back on its next turn (a thinking block's signature, a reasoning item's "
        "encrypted_content, a thoughtSignature).",
        why="The gateway dropped a delta (often one that arrived in the same read as "
        "another, or the last one before the end). Without the state, the provider "
        "refuses the next turn.",
        clients=_READS + " Lost state is a warning where the endpoint has no standard field "
        "for it (chat) and an error where it has one.",
        fix=_PASS,
    ),
)
DUPLICATED = define_gate(
    "diff:duplicated",
    Severity.ERROR,
    "The client received some content twice.",
    RuleDoc(
        what="The client received some content twice.",
        why="A gateway that retries or fails over after the first delta has already gone "
        "out restarts the answer inside the same stream.",
        clients=_READS + " The user sees the answer repeat; an agent runs a call twice.",
        fix="Retry only before the first byte reached the client.",
    ),
)
EXTRA = define_gate(
    "diff:extra",
    Severity.ERROR,
    "The client received content the upstream never sent.",
    RuleDoc(
        what="The client received content the upstream never sent: an invented choice or "
        "call, text of the gateway's own, or (when many streams are in flight) another "
        "request's chunk.",
        why="A gateway that injects content changes the answer; one that mixes streams "
        "leaks one user's answer into another's.",
        clients=_READS,
        fix="Send only what the upstream sent; keep each request's stream state apart.",
    ),
)
RELABELLED = define_gate(
    "diff:relabelled",
    Severity.ERROR,
    "The upstream's reasoning reached the client as answer text (or the other way round).",
    RuleDoc(
        what="The upstream's reasoning reached the client as answer text (or the other way "
        "round): every character arrived, in the wrong field.",
        why="A client shows the model's thinking to the user as its answer, and sends it "
        "back as the assistant's words.",
        clients=_READS,
        fix="Map reasoning to the endpoint's reasoning field (`reasoning_content` on chat, "
        "a thinking block, a reasoning item).",
    ),
)
REORDERED = define_gate(
    "diff:reordered",
    Severity.ERROR,
    "The same pieces arrived in a different order than the upstream sent them.",
    RuleDoc(
        what="The same pieces arrived in a different order than the upstream sent them.",
        why="Concurrent handling of one stream's deltas, or a buffer flushed out of order.",
        clients=_READS + " The text reads scrambled; arguments no longer parse.",
        fix=_PASS,
    ),
)
CHANGED = define_gate(
    "diff:changed",
    Severity.ERROR,
    "The client received something other than what the upstream sent at this place.",
    RuleDoc(
        what="The client received something other than what the upstream sent at this "
        "place: a different text, name, argument value, finish reason or usage count, "
        "another HTTP status for the upstream's error, or opaque state re-encoded on the "
        "way.",
        why="An error on a status clients give up on, where the upstream's is one they "
        "retry, loses the retry; a re-encoded signature is one the provider will not "
        "verify when the client sends it back.",
        clients=_READS,
        fix="Pass values through unchanged; map a stop reason or status by the documented "
        "table, never by a default.",
    ),
)
MISSING = define_gate(
    "diff:missing",
    Severity.ERROR,
    "Something the upstream's answer had is absent from the gateway's stream.",
    RuleDoc(
        what="Something the upstream's answer had (a choice, a finish reason, usage, an "
        "error) is absent from the gateway's stream.",
        why="A client reads the absence as a meaning of its own: no finish reason is a cut "
        "stream, no usage is zero tokens.",
        clients=_READS,
        fix="Translate every part of the answer, the last event's included.",
    ),
)
ERROR = define_gate(
    "diff:error",
    Severity.ERROR,
    "The upstream failed and the gateway's stream says so differently, or not at all.",
    RuleDoc(
        what="The upstream failed and the gateway's stream says so differently (or not at all).",
        why="A client cannot tell a cut answer from a whole one, or shows another error "
        "than the upstream's.",
        clients=_READS,
        fix="Pass the upstream's error on in the endpoint's error event, its type and "
        "message kept.",
    ),
)
USAGE = define_gate(
    "diff:usage",
    Severity.ERROR,
    "The token counts differ from the upstream's.",
    RuleDoc(
        what="The token counts differ from the upstream's, read with one definition on both sides.",
        why="Billing and context accounting built on them are wrong.",
        clients="openai-python and the AI SDK report usage as sent; cost trackers and "
        "agents that compact their context by it act on the wrong numbers.",
        fix="Map each count to its field in the endpoint's usage (cached and reasoning "
        "tokens included), never a sum of the wrong parts.",
    ),
)
