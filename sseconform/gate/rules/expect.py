"""expect:*: what the scenario expected of the gateway's answer as a whole (the scenario's
``expect``: content, error, content-or-error, rejected, and the error-then-done and failover
contracts)."""

from __future__ import annotations

from sseconform.rules.catalog import Severity, define_gate
from sseconform.rules.docs import RuleDoc

ERROR_THEN_DONE = define_gate(
    "expect:error-then-done",
    Severity.ERROR,
    "The upstream failed mid-stream; the gateway's stream ends like a successful one.",
    RuleDoc(
        what="The upstream failed mid-stream, yet the gateway's stream ends like a "
        "successful one: no error frame (chat), no `error` event (Anthropic), no "
        "`response.failed` (Responses).",
        why="Clients take the partial answer for the whole answer; the contract is an error "
        "frame, then the stream's normal end.",
        clients="openai-python, anthropic-python, the AI SDK, Claude Code and Codex all end "
        "normally on a stream that ends normally: the user gets half an answer as if it "
        "were all of it.",
        fix="On an upstream error after the first byte, send the grammar's error event, "
        "then end the stream (chat: `data: [DONE]`).",
    ),
)
REJECTED = define_gate(
    "expect:rejected",
    Severity.ERROR,
    "The upstream refused the request before streaming; the gateway did not answer with "
    "an HTTP error.",
    RuleDoc(
        what="The upstream refused the request before streaming (a status error); the "
        "gateway should answer with that status, or retry and succeed. It streamed or "
        "answered in a way a client cannot retry on.",
        why="A 429 or 529 passed on as a 200 with an error inside, or as another status, "
        "takes the client's retry and back-off away.",
        clients="openai-python and anthropic-python retry 408, 409, 429 and 5xx with "
        "back-off and honour `retry-after`; an error inside a 200 is raised at once.",
        fix="Pass the upstream's status (and its `retry-after`) on when nothing has been "
        "streamed yet.",
    ),
)
FAILOVER = define_gate(
    "expect:failover",
    Severity.ERROR,
    "The gateway sent another upstream request after the stream had started.",
    RuleDoc(
        what="The gateway sent another upstream request after its stream to the client had "
        "started.",
        why="A retry after the first delta can splice or duplicate content: the client "
        "already has the first attempt's deltas.",
        clients="Every client appends what it gets; none can undo deltas of an abandoned attempt.",
        fix="Retry or fail over only before the first byte goes to the client; after it, "
        "end with an error event.",
    ),
)
CONTENT = define_gate(
    "expect:content",
    Severity.ERROR,
    "The upstream streamed a whole answer and the gateway answered with an HTTP error.",
    RuleDoc(
        what="The upstream streamed a whole answer and the gateway answered with an HTTP "
        "error instead.",
        why="The gateway failed on a good answer: a translation or a limit of its own.",
        clients="Every client raises the error status; the answer is lost.",
        fix="The quoted error says what the gateway could not handle.",
    ),
)
ERROR = define_gate(
    "expect:error",
    Severity.ERROR,
    "The upstream failed mid-stream; the gateway lost what was generated, or streamed no error.",
    RuleDoc(
        what="The upstream failed mid-stream; the gateway answered with an HTTP error and "
        "lost what had already been generated, or streamed no error at all.",
        why="Once content is generated, the client should get it and then the error.",
        clients="Every client raises the status, with no partial answer to show.",
        fix="Stream what the upstream sent, then the grammar's error event.",
    ),
)
CONTENT_OR_ERROR = define_gate(
    "expect:content-or-error",
    Severity.ERROR,
    "The gateway neither passed the whole answer on nor ended with an error frame.",
    RuleDoc(
        what="The gateway neither passed the whole answer on nor ended its stream with an "
        "error frame.",
        why="Where either is acceptable (a fault a gateway may retry around), one of them "
        "must happen.",
        clients="Clients show a truncated answer as complete.",
        fix="Retry and stream the whole answer, or end with the grammar's error event.",
    ),
)
FAILURE_AS_ANSWER = define_gate(
    "expect:failure-as-answer",
    Severity.ERROR,
    "The upstream failed; the gateway answered a non-streaming call with 200.",
    RuleDoc(
        what="The client asked without streaming (Gemini's `:generateContent`), the "
        "upstream failed (mid-stream, or with a status) and the gateway answered HTTP 200 "
        "all the same: with what it had of the answer, or with an error inside the body.",
        why="A non-streaming client has one way to learn of a failure: the status. A 200 is "
        "an answer, so the partial one is taken as whole and nothing is retried.",
        clients="google-genai's `models.generate_content` returns the 200's response as the "
        "answer (a body with no candidates reads as `.text` None, no error raised); Gemini "
        "CLI's non-streaming calls (its summaries and checks) use what they get.",
        fix="Answer a non-streaming call only once the upstream has finished; when it fails, "
        'answer with an HTTP error in Gemini\'s shape (`{"error": {"code", "message", '
        '"status"}}`), the upstream\'s status where it had one, or retry before answering.',
    ),
)

#: Each scenario's ``expect`` value and the rule its failure is (an expectation is a rule).
BY_EXPECTATION = {
    "content": CONTENT,
    "error": ERROR,
    "content-or-error": CONTENT_OR_ERROR,
    "error-then-done": ERROR_THEN_DONE,
    "rejected": REJECTED,
    "failover": FAILOVER,
    "failure-as-answer": FAILURE_AS_ANSWER,
}
