"""Per-rule docs: what each rule checks, why, which real clients break, an example, the fix.

Kept apart from the code table so the table stays one screen long.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleDoc:
    """The prose behind a rule, printed by `sseconform rule CODE`."""

    what: str
    why: str
    clients: str
    example: str
    fix: str


DOCS: dict[str, RuleDoc] = {
    # -- W: wire -----------------------------------------------------------------------
    "W001": RuleDoc(
        what=(
            "The body holds a byte sequence that is not valid UTF-8; reported once per line where "
            "it occurs."
        ),
        why=(
            "An SSE body is UTF-8 by definition. Invalid bytes come from a gateway that decodes "
            "each upstream read on its own (cutting a multi-byte character in two) or passes "
            "through text in another charset: what the user reads is corrupted."
        ),
        clients=(
            "Not among the measured shapes. A spec-following parser decodes the body as UTF-8 and "
            "turns every invalid sequence into U+FFFD, so text or tool arguments are silently "
            "altered; a decoder in strict mode raises instead."
        ),
        example=(
            'data: {...,"delta":{"content":"caf<0xE9>"}}\n\n(<0xE9> is a Latin-1 byte, not UTF-8)'
        ),
        fix=(
            "Decode upstream bytes incrementally, never per read, and send UTF-8:\n"
            'data: {...,"delta":{"content":"caf\\u00e9"}}\n\n'
        ),
    ),
    "W002": RuleDoc(
        what="The body starts with the UTF-8 byte-order mark EF BB BF.",
        why=(
            "The WHATWG algorithm drops a leading BOM, but not every reader does, and the first "
            "event is the role chunk or the first piece of the answer."
        ),
        clients=(
            "Not in the nine-client table, but openai-python 3.52 and httpx-sse were seen to lose "
            "the first event after a BOM (its first line reads as an unknown field). "
            "Spec-following parsers drop the BOM and read on."
        ),
        example='<0xEF><0xBB><0xBF>data: {...,"delta":{"role":"assistant","content":""}}\n\n',
        fix=(
            "Send no BOM; the body starts with the first field:\n"
            'data: {...,"delta":{"role":"assistant","content":""}}\n\n'
        ),
    ),
    "W003": RuleDoc(
        what="At least one line ends in CRLF; reported once per stream, at the first such line.",
        why=(
            "CRLF is legal SSE, but OpenAI frames with LF and consumers written against its "
            'output split on "\\n\\n" and never find an event boundary. Gemini frames with '
            "CRLF, so a gateway that passes its framing through inherits it."
        ),
        clients=(
            "Tolerated by all nine measured clients. Hand-written consumers that split on "
            '"\\n\\n" or test startsWith("data: ") break (openai-python #498; hey-api #3054).'
        ),
        example=(
            'data: {...,"delta":{"content":"Hi"}}<CR><LF>\n<CR><LF>\ndata: [DONE]<CR><LF>\n<CR><LF>'
        ),
        fix='Frame with LF only:\ndata: {...,"delta":{"content":"Hi"}}\n\ndata: [DONE]\n\n',
    ),
    "W004": RuleDoc(
        what="At least one line ends in a bare CR (no LF after it); reported once per stream.",
        why=(
            "Legal SSE but rare: any reader that splits lines on LF sees the whole stream as one "
            "line."
        ),
        clients=(
            "Not among the measured shapes (only CRLF was measured, and tolerated). A "
            "spec-following parser accepts it; hand-written consumers that split on "
            '"\\n" never see a line end, so never see an event.'
        ),
        example='data: {...,"delta":{"content":"Hi"}}<CR><CR>data: [DONE]<CR><CR>',
        fix='Frame with LF only:\ndata: {...,"delta":{"content":"Hi"}}\n\ndata: [DONE]\n\n',
    ),
    "W005": RuleDoc(
        what=(
            'A `data:` line whose value does not start with a space, e.g. `data:{"a":1}`; '
            "reported once per stream. A bare `data:` with nothing after it does not count "
            "(see W015)."
        ),
        why=(
            "Legal SSE, but OpenAI always writes `data: ` with one space, and code written "
            "against its output looks for exactly that prefix."
        ),
        clients=(
            "Tolerated by all nine measured clients. Hand-written consumers that test "
            'startsWith("data: ") skip every such event (hey-api #3054; openai-python #498).'
        ),
        example='data:{...,"delta":{"content":"Hi"}}\n\ndata:[DONE]\n\n',
        fix='data: {...,"delta":{"content":"Hi"}}\n\ndata: [DONE]\n\n',
    ),
    "W006": RuleDoc(
        what=(
            "Each comment line, i.e. a line starting with `:`, such as `: ping` or "
            "`: OPENROUTER PROCESSING`."
        ),
        why=(
            "Comments are the right way to keep a connection alive; they are reported for "
            "information, to show what a gateway adds and how often."
        ),
        clients=(
            "Tolerated by all nine measured clients (`: ping` was measured); a spec-following "
            "parser skips comment lines."
        ),
        example=': OPENROUTER PROCESSING\n\ndata: {...,"delta":{"content":"Hi"}}\n\n',
        fix="Nothing to fix. Keep keep-alives as comments, never as data (see W012):\n: ping\n\n",
    ),
    "W007": RuleDoc(
        what=(
            "A line whose field name is not `data`, `event`, `id` or `retry`, e.g. `foo: bar`; "
            "reported once per field name."
        ),
        why=(
            "Parsers ignore such lines, so whatever the line carried is lost. Often it is a "
            "framing bug: a payload broken over several lines where only the first line has the "
            "`data:` prefix."
        ),
        clients=(
            "Not among the measured shapes. A spec-following parser ignores the line; when the "
            "line was the tail of a payload, the event's data is cut short and does not parse "
            "(J001)."
        ),
        example=(
            "x-upstream: anthropic\n"
            'data: {...,"delta":{"content":"Hi"}}\n\n'
            'data: {...,"delta":\n'
            '{"content":" there"}}\n\n'
        ),
        fix=(
            "Write each payload on one line; put metadata in HTTP headers:\n"
            'data: {...,"delta":{"content":" there"}}\n\n'
        ),
    ),
    "W008": RuleDoc(
        what="An `id:` line inside a block that also carries data.",
        why=(
            "A chat completion stream cannot be resumed, so an event id has no use; it only sets "
            "state in the client's parser, and popular parsers misbehave once it is set."
        ),
        clients=(
            "Not in the nine-client table, but after an `id:` was seen, openai-python and "
            "httpx-sse dispatch an empty event at a later blank line, and parsing it as JSON "
            "raises JSONDecodeError (openai-python #2722, #3833; httpx-sse #35)."
        ),
        example='id: 1\ndata: {...,"delta":{"content":"Hi"}}\n\n',
        fix='Drop the field:\ndata: {...,"delta":{"content":"Hi"}}\n\n',
    ),
    "W009": RuleDoc(
        what=(
            "A block (the lines up to a blank line) that holds `id:` and/or `retry:` lines and no "
            "data line; W008 and W010 are then not reported for those lines."
        ),
        why=(
            "A spec parser dispatches nothing for such a block, but widely used Python parsers "
            "dispatch an empty event, which then fails to parse."
        ),
        clients=(
            "openai-python and httpx-sse dispatch an empty event and the JSON parse raises "
            "JSONDecodeError (openai-python #2722, #3833; httpx-sse #35)."
        ),
        example='retry: 3000\n\ndata: {...,"delta":{"content":"Hi"}}\n\n',
        fix=(
            "Send no `id:` or `retry:` lines on chat streams:\n"
            'data: {...,"delta":{"content":"Hi"}}\n\n'
        ),
    ),
    "W010": RuleDoc(
        what="A `retry:` line inside a block that also carries data.",
        why=(
            "`retry:` tells an EventSource how long to wait before reconnecting; a chat "
            "completion is a POST that cannot be resumed, so the field has no use and only adds "
            "parser state."
        ),
        clients=(
            "Not among the measured shapes. A spec-following parser stores the delay and "
            "dispatches the event normally. In a block of its own the same line breaks "
            "openai-python and httpx-sse (see W009)."
        ),
        example='retry: 3000\ndata: {...,"delta":{"content":"Hi"}}\n\n',
        fix='Drop the field:\ndata: {...,"delta":{"content":"Hi"}}\n\n',
    ),
    "W011": RuleDoc(
        what=(
            "The body ends while a block with a data line is still open, with no blank line after "
            "it (e.g. it ends in `data: [DONE]\\n`). That event is discarded, as spec parsers do, "
            "so a body ending in an unterminated `[DONE]` also reports D001."
        ),
        why=(
            "A spec-following parser drops an event that no blank line ends, so what it carried "
            "never reaches the client: the `[DONE]`, the finish chunk or the usage chunk."
        ),
        clients=(
            "A spec-following parser discards the last event (WPT "
            "eventsource/format-data-before-final-empty-line). When that event is `[DONE]`, the "
            "measured clients still finish, since a missing `[DONE]` is tolerated by all nine; "
            "when it is the finish or usage chunk, a spec-following parser silently loses the "
            "finish reason or the usage."
        ),
        example='data: {...,"delta":{},"finish_reason":"stop"}\n\ndata: [DONE]\n',
        fix=(
            "End every event, `[DONE]` included, with a blank line:\n"
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "W012": RuleDoc(
        what=(
            "A frame whose data starts with `:`, such as `data: : ping`: a keep-alive sent as "
            "data instead of as a comment. It is not also reported as J001."
        ),
        why=(
            "Clients receive it as an event and try to read it as a chunk; keep-alives must be "
            "comment lines, which every parser skips. Several gateways have shipped this bug."
        ),
        clients=(
            "Not among the measured shapes (the comment form `: ping` is tolerated by all nine). "
            "A spec-following parser dispatches `: ping` as event data, and any client that "
            "parses each event as JSON fails on it."
        ),
        example='data: : ping\n\ndata: {...,"delta":{"content":"Hi"}}\n\n',
        fix=': ping\n\ndata: {...,"delta":{"content":"Hi"}}\n\n',
    ),
    "W013": RuleDoc(
        what=(
            "An `event:` line whose name is neither native (N001) nor `error` (W014), e.g. "
            "`event: message` or `event: chunk`; reported once per name."
        ),
        why=(
            "OpenAI sends no `event:` lines on chat completions. openai-python ignores the name, "
            "but a browser EventSource delivers an event named anything but `message` only to "
            "listeners for that name, not to `onmessage`."
        ),
        clients=(
            "Not among the measured shapes. openai-python ignores `event:` names; a "
            "spec-following parser sets the event type, and clients that dispatch on it can skip "
            "the data."
        ),
        example='event: chunk\ndata: {...,"delta":{"content":"Hi"}}\n\n',
        fix='Send no `event:` line:\ndata: {...,"delta":{"content":"Hi"}}\n\n',
    ),
    "W014": RuleDoc(
        what=(
            "An `event: error` line. The frame's data is still checked as an error frame if it "
            "is one."
        ),
        why=(
            'Chat-completions clients read errors from the data (`{"error": {...}}`), not from '
            "the event name; an error signalled by the name alone is lost. Groq sends this "
            "shape, and without `[DONE]`."
        ),
        clients=(
            "openai-python ignores `event:` names, so `event: error` is lost and the data is "
            "handled as if it were a chunk. The shape all nine measured clients surface is a "
            "`data:` error frame followed by `[DONE]`."
        ),
        example='event: error\ndata: {"message":"upstream overloaded"}\n\n',
        fix=(
            'data: {"error":{"message":"upstream overloaded","type":"server_error"}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "W015": RuleDoc(
        what=(
            "A dispatched frame whose data is the empty string: `data:` or `data: ` followed by "
            "a blank line."
        ),
        why="An empty event is not a chunk; clients that parse every event as JSON fail on it.",
        clients=(
            "Not among the measured shapes. A spec-following parser dispatches the event with "
            "empty data, and parsing it as JSON raises: the same JSONDecodeError that empty "
            "events cause in openai-python and httpx-sse (openai-python #2722)."
        ),
        example='data:\n\ndata: {...,"delta":{"content":"Hi"}}\n\n',
        fix=(
            "Send nothing, or a comment if the aim is to keep the connection alive:\n"
            ": keep-alive\n\n"
            'data: {...,"delta":{"content":"Hi"}}\n\n'
        ),
    ),
    "W016": RuleDoc(
        what=(
            "A frame built from two or more `data:` lines; the lines are joined with a newline "
            "and the result is parsed as usual."
        ),
        why=(
            "Legal SSE, and JSON survives the join, but OpenAI sends one line per event, and "
            "consumers that read SSE line by line take each `data:` line for a whole chunk."
        ),
        clients=(
            "Not among the measured shapes. A spec-following parser joins the lines and the JSON "
            "parses; hand-written consumers that parse each `data:` line on its own fail on the "
            "pieces."
        ),
        example='data: {...,"choices":[{"index":0,\ndata: "delta":{"content":"Hi"}}]}\n\n',
        fix='data: {...,"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n',
    ),
    "W017": RuleDoc(
        what=(
            "A line longer than the line-length limit (16 MiB by default); its content is "
            "skipped, so the rules that would read it cannot."
        ),
        why=(
            "A line that long is either a huge payload in one event or a body no longer framed "
            "as SSE; every client must hold the whole line in memory before it can show any of "
            "it."
        ),
        clients=(
            "Not among the measured shapes. A spec-following parser has no limit and buffers the "
            "whole line; readers with a buffer limit fail, and no client shows anything until "
            "the line ends."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":'
            '"<20 MiB of JSON>"}}]}}\n\n'
        ),
        fix=(
            "Send large arguments as fragments, one event each:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":'
            '"{\\"rows\\":["}}]}}\n\n'
        ),
    ),
    "W019": RuleDoc(
        what=(
            "One event whose `data:` lines add up to more than the event-size limit (16 MiB "
            "by default; each line also counts 64 bytes): the event is dropped unread, so the "
            "rules that would read it cannot."
        ),
        why=(
            "Every client holds an event whole before it can parse any of it; thousands of "
            "`data:` lines in one event is a body that lost its blank lines."
        ),
        clients=(
            "A spec-following parser has no limit and buffers the whole event; nothing is "
            "shown until it ends, and readers with a buffer limit fail."
        ),
        example="data: {...\ndata: ...\n(millions of data: lines, no blank line)\n",
        fix="End each chunk with a blank line: one `data:` line per event.",
    ),
    # -- J: JSON and schema ------------------------------------------------------------
    "W018": RuleDoc(
        what=(
            "The body is not empty but no SSE event was dispatched from it: it is a JSON "
            "document, an HTML page or plain text, not `data:` events."
        ),
        why=(
            "A gateway that answers a streaming request with a plain JSON error body (often "
            "with status 200) leaves every SSE client with nothing: no chunk, no error frame."
        ),
        clients=(
            "Not among the measured shapes. A spec-following SSE parser dispatches no event "
            "from such a body, so clients see an empty stream; httpx-sse raises on a "
            "Content-Type that is not text/event-stream."
        ),
        example='{"error": {"code": 400, "message": "Request contains an invalid argument."}}',
        fix=(
            "Before the first byte, answer with a non-2xx status and the JSON error body; "
            "after it, send an error frame then [DONE]:\n"
            'data: {"error":{"message":"Request contains an invalid argument."}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "J001": RuleDoc(
        what=(
            "An event's data is not valid JSON, is not `[DONE]` and does not start with `:` "
            "(that is W012)."
        ),
        why=(
            "Every chat frame must be a JSON object; one that does not parse is lost to every "
            "client, or ends the stream with an exception."
        ),
        clients=(
            "Not among the measured shapes. openai-python parses each event as JSON, so it "
            "raises JSONDecodeError, as it does for empty events (openai-python #2722); a client "
            "that skips bad frames loses their content."
        ),
        example='data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}\n\n',
        fix=(
            "Send one complete JSON object per event:\n"
            'data: {"id":"c1",...,"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
        ),
    ),
    "J002": RuleDoc(
        what=(
            'An event\'s data is JSON but not an object, e.g. `data: 42`, `data: "x"` or '
            "`data: [1]`."
        ),
        why=(
            "Clients expect an object with `choices` (or `error`); any other JSON value is "
            "neither a chunk nor an error."
        ),
        clients=(
            "Not among the measured shapes. Clients that validate each chunk (the AI SDK does, "
            "as the leaked-native-frame measurement shows) reject it; clients that read "
            "`choices` from it fail with a type error."
        ),
        example='data: "Hi"\n\n',
        fix='data: {...,"delta":{"content":"Hi"}}\n\n',
    ),
    "J003": RuleDoc(
        what=(
            "A frame breaks its JSON Schema (chunk, usage chunk or error frame) where no more "
            "specific rule applies: e.g. `created` is a string, `choices` or `delta` is missing, "
            "`delta.content` is a number, `function.arguments` is not a string, a tool-call "
            '`type` is not "function".'
        ),
        why=(
            "Clients are typed against OpenAI's schema; a field of the wrong type or a missing "
            "required field breaks the clients that validate and confuses the rest."
        ),
        clients=(
            "Depends on the field; no single shape was measured. The four AI SDK clients "
            "validate every chunk and fail the stream on a mismatch (measured for a leaked "
            "native frame and for `choices: null`); what the Python clients do depends on the "
            "field."
        ),
        example=(
            'data: {...,"created":"1714000000","choices":[{"index":0,"delta":{"content":42}}]}\n\n'
        ),
        fix=(
            'data: {...,"created":1714000000,"choices":[{"index":0,"delta":{"content":"42"}}]}\n\n'
        ),
    ),
    # -- G: grammar --------------------------------------------------------------------
    "G001": RuleDoc(
        what=(
            "A chunk's `object` is not `chat.completion.chunk`: missing, empty, or another "
            "value such as `chat.completion.done`."
        ),
        why=(
            "Typed clients use `object` to tell chunks from other payloads. It happens in "
            "practice: Azure's first chunk has `object: \"\"`, Perplexity's last chunk "
            "`chat.completion.done`."
        ),
        clients=(
            "ERR in the openai-python `.stream()` accumulator: it drops every such chunk, then "
            "fails with an AssertionError. No other measured client broke on it."
        ),
        example=(
            'data: {"id":"c1","object":"",...,"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
        ),
        fix=(
            'data: {"id":"c1","object":"chat.completion.chunk",...,'
            '"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
        ),
    ),
    "G002": RuleDoc(
        what=(
            "A chunk's `id` differs from the first chunk's before any content, reasoning or "
            "tool delta was sent (after that, the same change is R002)."
        ),
        why=(
            "One response has one id for its whole stream; clients and logs use it to tie the "
            "chunks and the usage together. A change before the first delta usually means a "
            "failover that did not keep the id already sent."
        ),
        clients=(
            "Not among the measured shapes. An accumulating client keeps one id per response, "
            "so which one it reports depends on the client; anything that joins logs or billing "
            "on the id sees two responses."
        ),
        example=(
            'data: {"id":"c1",...,"delta":{"role":"assistant","content":""}}\n\n'
            'data: {"id":"c2",...,"delta":{"content":"Hi"}}\n\n'
        ),
        fix=(
            'data: {"id":"c1",...,"delta":{"role":"assistant","content":""}}\n\n'
            'data: {"id":"c1",...,"delta":{"content":"Hi"}}\n\n'
        ),
    ),
    "G003": RuleDoc(
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
            "Not among the measured shapes. Clients take the model from one chunk, not "
            "necessarily the last, so they may report a model that did not answer."
        ),
        example=(
            'data: {...,"model":"claude-x","delta":{"role":"assistant","content":""}}\n\n'
            'data: {...,"model":"gpt-y","delta":{"content":"Hi"}}\n\n'
        ),
        fix=(
            "Pick the upstream before sending the first chunk, then name one model throughout:\n"
            'data: {...,"model":"gpt-y","delta":{"role":"assistant","content":""}}\n\n'
            'data: {...,"model":"gpt-y","delta":{"content":"Hi"}}\n\n'
        ),
    ),
    "G004": RuleDoc(
        what="A chunk's `created` differs from the first chunk's.",
        why=(
            "`created` is the response's creation time, one value for the whole stream. A "
            "gateway that stamps each chunk with the current time, or splices two upstream "
            "calls, changes it."
        ),
        clients=(
            "Not among the measured shapes, and no client is known to depend on it; it is a "
            "warning because it reveals per-chunk stamping or a spliced stream."
        ),
        example=(
            'data: {...,"created":1714000000,"delta":{"content":"Hi"}}\n\n'
            'data: {...,"created":1714000001,"delta":{"content":" there"}}\n\n'
        ),
        fix=(
            "Take `created` once, when the stream starts:\n"
            'data: {...,"created":1714000000,"delta":{"content":"Hi"}}\n\n'
            'data: {...,"created":1714000000,"delta":{"content":" there"}}\n\n'
        ),
    ),
    "G005": RuleDoc(
        what=(
            "A choice index appears that is not the next one (highest so far + 1, from 0), e.g. "
            "a first chunk with `choices[0].index == 1`."
        ),
        why=(
            "`choices[].index` is the choice index (0 for n=1), never a content-block index; a "
            "gateway that copies Anthropic's block index there splits one answer into several "
            "choices (LiteLLM PR #12666)."
        ),
        clients=(
            "Not among the measured shapes. Clients that key choices by index build a second "
            "choice out of part of the answer; code that reads only the first choice misses "
            "that part."
        ),
        example=(
            'data: {...,"choices":[{"index":0,"delta":{"content":"Let me check."}}]}\n\n'
            'data: {...,"choices":[{"index":1,"delta":{"tool_calls":[...]}}]}\n\n'
        ),
        fix=(
            'data: {...,"choices":[{"index":0,"delta":{"content":"Let me check."}}]}\n\n'
            'data: {...,"choices":[{"index":0,"delta":{"tool_calls":[...]}}]}\n\n'
        ),
    ),
    "G006": RuleDoc(
        what=(
            "The first delta seen for a choice has no `role` key. A first delta that is the "
            "finish chunk's `delta: {}` does not count, nor does a chunk with `choices: []`."
        ),
        why=(
            'OpenAI opens each choice with `delta: {"role":"assistant","content":""}`; clients '
            "that build a message from deltas take the role from there."
        ),
        clients=(
            "Not among the measured shapes. Clients that assume `assistant` are unaffected; a "
            "client that copies the role from the deltas can end up with a message without a "
            "role."
        ),
        example='data: {...,"delta":{"content":"Hi"}}\n\n',
        fix=(
            'data: {...,"delta":{"role":"assistant","content":""}}\n\n'
            'data: {...,"delta":{"content":"Hi"}}\n\n'
        ),
    ),
    "G007": RuleDoc(
        what=(
            "`role` appears again on a later delta of a choice, one that also carries content, "
            "reasoning or tool calls (OpenRouter does this); reported once per choice."
        ),
        why=(
            "The role belongs to the first delta only; repeated, it risks being concatenated by "
            "clients that join every string they receive. A role-only repeat is worse: it is "
            "reported as a restart (R001)."
        ),
        clients=(
            "Not among the measured shapes. Clients that set the role are unaffected; by the "
            "mechanism that turns a repeated tool-call id into `call_1call_1...` in the "
            "`.stream()` accumulator, a client that concatenates strings could get "
            "`assistantassistant`."
        ),
        example=(
            'data: {...,"delta":{"role":"assistant","content":"Hi"}}\n\n'
            'data: {...,"delta":{"role":"assistant","content":" there"}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"role":"assistant","content":"Hi"}}\n\n'
            'data: {...,"delta":{"content":" there"}}\n\n'
        ),
    ),
    "G008": RuleDoc(
        what="`role` is present and is not `assistant` (a null role is allowed and ignored).",
        why=(
            "A streamed chat completion is always the assistant's turn; another value (Gemini's "
            "`model`, `tool`, `system`) is a translation bug, and a client that appends the "
            "message to the conversation sends that role back in its next request."
        ),
        clients=(
            "Not among the measured shapes. Clients that validate the role against OpenAI's "
            "types reject the chunk; others keep the wrong role in the conversation."
        ),
        example='data: {...,"delta":{"role":"model","content":""}}\n\n',
        fix='data: {...,"delta":{"role":"assistant","content":""}}\n\n',
    ),
    "G009": RuleDoc(
        what=(
            "A chunk with `choices: []` and no non-null `usage`, e.g. Azure's first chunk that "
            "carries only `prompt_filter_results`."
        ),
        why=(
            "OpenAI sends an empty choices list only on the usage chunk, and only when "
            "`stream_options.include_usage` was asked; clients that read `choices[0]` of every "
            "chunk fail on any other."
        ),
        clients=(
            "The function-calling guide snippet reads `choices[0]` of every chunk: measured, it "
            "raised IndexError on an empty-choices usage chunk it had not asked for, and an "
            "empty-choices chunk of any other kind breaks it the same way."
        ),
        example=(
            'data: {"id":"","object":"","created":0,"model":"","choices":[],'
            '"prompt_filter_results":[...]}\n\n'
        ),
        fix=(
            "Drop the chunk, or move what it carries to the first real chunk:\n"
            'data: {...,"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n'
        ),
    ),
    "G010": RuleDoc(
        what=(
            "A key that OpenAI itself does not send, reported once per key path. Native keys "
            "(N004) and `reasoning`/`reasoning_details` (G012) have their own codes."
        ),
        why=(
            "Informational: it lists what a gateway or provider adds beyond OpenAI's grammar "
            "(provider extras, debugging fields), which can leak internal data or collide with "
            "fields OpenAI adds later."
        ),
        clients=(
            "Not among the measured shapes; clients generally ignore keys they do not know, so "
            "nothing is expected to break."
        ),
        example='data: {...,"x_upstream":"anthropic","choices":[...]}\n\n',
        fix=(
            "Nothing to fix if the key is meant to be there; otherwise drop it or move it to an "
            'HTTP response header:\ndata: {...,"choices":[...]}\n\n'
        ),
    ),
    "G011": RuleDoc(
        what='A delta\'s `reasoning_content` is the empty string "".',
        why=(
            "`reasoning_content` deltas carry reasoning text and are non-empty strings; an empty "
            "one carries nothing, and often means the gateway copies an empty native field onto "
            "every chunk."
        ),
        clients=(
            "Not among the measured shapes. `reasoning_content` is read by "
            "`@ai-sdk/openai-compatible` and dropped by `@ai-sdk/openai` and langchain "
            "ChatOpenAI; an empty value adds nothing for any of them, and code that takes the "
            "key's presence to mean 'reasoning in progress' is misled."
        ),
        example='data: {...,"delta":{"reasoning_content":"","content":"Hi"}}\n\n',
        fix=(
            "Leave the key out when there is no reasoning text:\n"
            'data: {...,"delta":{"content":"Hi"}}\n\n'
        ),
    ),
    "G012": RuleDoc(
        what=(
            "A delta carries reasoning under `reasoning` or `reasoning_details`; reported once "
            "per key."
        ),
        why=(
            "Informational: the key a gateway uses for reasoning decides which clients show it, "
            "and one gateway should use one key."
        ),
        clients=(
            "Measured for `reasoning` as for `reasoning_content`: dropped by `@ai-sdk/openai` and "
            "langchain ChatOpenAI, read by `@ai-sdk/openai-compatible`. `reasoning_details` was "
            "not measured."
        ),
        example='data: {...,"delta":{"reasoning":"The user wants..."}}\n\n',
        fix='data: {...,"delta":{"reasoning_content":"The user wants..."}}\n\n',
    ),
    # -- D: [DONE] ---------------------------------------------------------------------
    "D001": RuleDoc(
        what=(
            "No `data: [DONE]` frame at all. When the stream also has no finish chunk and no "
            "error frame, E003 is reported instead; after an error frame, E002 is."
        ),
        why=(
            "`[DONE]` is how OpenAI ends a stream; without it a consumer can only tell a "
            "complete stream from a cut connection by the finish chunk."
        ),
        clients=(
            "Tolerated by all nine measured clients; it is still part of OpenAI's grammar, and "
            "consumers that take `[DONE]` as proof of a complete answer report a failure."
        ),
        example='data: {...,"delta":{},"finish_reason":"stop"}\n\n(connection closed)',
        fix='data: {...,"delta":{},"finish_reason":"stop"}\n\ndata: [DONE]\n\n',
    ),
    "D002": RuleDoc(
        what=(
            "A frame arrives after `data: [DONE]`; reported once, at the first one. Comments "
            "after `[DONE]` are fine."
        ),
        why=(
            "`[DONE]` promises that nothing follows. Whatever comes after it (often a late "
            "usage chunk or an error) is lost to clients that stop there."
        ),
        clients=(
            "Not among the measured shapes. A client that stops at `[DONE]` never sees the later "
            "frames; one that reads to the end of the body handles them after it has reported "
            "the response complete."
        ),
        example='data: [DONE]\n\ndata: {...,"choices":[],"usage":{...}}\n\n',
        fix='data: {...,"choices":[],"usage":{...}}\n\ndata: [DONE]\n\n',
    ),
    # -- T: tool-call head -------------------------------------------------------------
    "T001": RuleDoc(
        what=(
            "The first delta of a tool call (one choice index, one tool-call index) has no "
            "`id`, or a null or empty one."
        ),
        why=(
            "The client sends the id back with the tool result (`tool_call_id`); invariant 1 "
            "says the first delta carries `id`, `type` and `function.name`."
        ),
        clients=(
            "ERR in ai 5. ai 7 silently invents its own id (WRONG: the next request carries a "
            "tool_call_id the upstream never issued). The same holds when the id arrives in a "
            "later delta."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
    ),
    "T002": RuleDoc(
        what="The first delta of a tool call has no `function.name`, or an empty one.",
        why=(
            "Clients learn which function to run from the first delta (invariant 1); a nameless "
            "head makes the call unusable."
        ),
        clients=(
            "ERR in `@ai-sdk/openai` (ai 7 and ai 5) and in ai 5 `@ai-sdk/openai-compatible` "
            "(\"Expected 'function.name' to be a string.\"); WRONG in the function-calling "
            "guide snippet."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"arguments":""}}]}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
    ),
    "T003": RuleDoc(
        what="The first delta of a tool call has no `type`.",
        why=(
            'OpenAI sends `type: "function"` on the first delta of every call and invariant 1 '
            "asks for it; a client that checks the type instead of assuming it cannot classify "
            "the call."
        ),
        clients=(
            "Not among the measured shapes; a warning, since a client that assumes function "
            "calls is unaffected."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
    ),
    "T004": RuleDoc(
        what="A later delta of a call carries an `id` different from the call's id.",
        why=(
            "Later deltas omit the id or repeat it exactly, never change it; a different id "
            "means two calls were merged under one index, or ids are generated per fragment."
        ),
        clients=(
            "Not among the measured shapes as such. Clients key calls off `index`, so the new id "
            "does not start a new call: the `.stream()` accumulator concatenates ids (measured "
            "with a repeated id: `call_1call_1...`), giving an id the upstream never issued; "
            "which id other clients keep depends on the client."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_2",'
            '"function":{"arguments":"{}"}}]}}\n\n'
        ),
        fix=(
            "Omit the id after the first delta:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n\n'
        ),
    ),
    "T005": RuleDoc(
        what="A later delta of a call carries a `function.name` different from the call's name.",
        why=(
            "The name is fixed by the first delta and is never sent in fragments; a different "
            "name later means name pieces are streamed, or fragments of two calls were mixed."
        ),
        clients=(
            "Not among the measured shapes as such. langchain-openai concatenates a repeated "
            "name (measured), so a changed one yields a name no function has."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_","arguments":""}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"name":"weather"}}]}}\n\n'
        ),
        fix=(
            "Send the whole name once, in the first delta:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
    ),
    "T006": RuleDoc(
        what=(
            "A later delta of a call repeats the same `id` or the same `function.name`; "
            "reported once per call."
        ),
        why=(
            "Allowed by the grammar (later deltas omit id and name or repeat them exactly), but "
            "clients that concatenate every string field turn the repeats into garbage."
        ),
        clients=(
            "WRONG in the openai-python `.stream()` accumulator, which concatenates the ids "
            "(`call_1call_1...`); langchain-openai concatenates the name."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1",'
            '"function":{"name":"get_weather","arguments":"{}"}}]}}\n\n'
        ),
        fix=(
            "Send id and name in the first delta only:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n\n'
        ),
    ),
    "T007": RuleDoc(
        what=(
            "A later fragment of a call equals the whole (non-empty) arguments accumulated so "
            "far: the call is sent again whole."
        ),
        why=(
            "Arguments arrive either whole or as fragments, never both, and a call is never "
            "re-sent whole; gateways do this when they stream the fragments and then forward a "
            "native 'done' event carrying the complete arguments."
        ),
        clients=(
            "Not among the measured shapes as such. Clients concatenate fragments, so the "
            "arguments become `{...}{...}` and no longer parse; what clients then do is ERR or "
            "WRONG everywhere (see F009)."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"\\"Paris\\"}"}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":'
            '"{\\"city\\":\\"Paris\\"}"}}]}}\n\n'
        ),
        fix=(
            "Send the fragments only; drop the final complete copy:\n"
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"\\"Paris\\"}"}}]}}\n\n'
        ),
    ),
    "T008": RuleDoc(
        what=(
            "The first delta of a call carries non-empty `function.arguments`, typically the "
            "whole arguments at once."
        ),
        why=(
            "Legal, and many providers send whole calls in one delta, but OpenAI starts the "
            'arguments from "" in the first delta, and code written against that can break.'
        ),
        clients=(
            "WRONG in the function-calling guide snippet, which doubles the arguments; fine in "
            "the other measured clients."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]}}\n\n'
        ),
        fix=(
            'Start from "" and send the arguments in the next delta:\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":'
            '"{\\"city\\":\\"Paris\\"}"}}]}}\n\n'
        ),
    ),
    "T009": RuleDoc(
        what="The first delta of a call has no `function.arguments` key at all.",
        why=(
            'OpenAI sends `"arguments": ""` in the first delta; code that appends fragments to '
            "the value it finds there fails when the key is missing."
        ),
        clients="TypeError in the function-calling guide snippet.",
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather"}}]}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
    ),
    # -- I: tool-call index ------------------------------------------------------------
    "I001": RuleDoc(
        what="A `tool_calls` entry has no `index` (Mistral-style whole calls).",
        why=(
            "Clients key tool-call deltas off `index`, not `id` (invariant 2); without it they "
            "cannot tell which call a delta belongs to."
        ),
        clients=(
            "Measured with whole arguments and no `index`: ERR in the openai-python `.stream()` "
            "accumulator and in `@ai-sdk/openai`."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":"{}"}}]}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":"{}"}}]}}\n\n'
        ),
    ),
    "I002": RuleDoc(
        what=(
            "A tool-call `index` is not an integer >= 0: a string, a float, a negative number or "
            "null."
        ),
        why=(
            'Clients key calls off `index`; `"0"` and `0` are different keys, and negative or '
            "fractional values cannot be list positions."
        ),
        clients=(
            "Not among the measured shapes. Clients that validate chunks reject it; others may "
            "file the fragments under a key of their own and report an extra, nameless call."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":"0","id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
    ),
    "I003": RuleDoc(
        what=(
            "A new call's index is not the next one (highest index so far in the choice + 1, "
            "from 0), e.g. a first call with index 1."
        ),
        why=(
            "New calls take the next index from 0. A gap usually means a native index was "
            "copied through: Anthropic's block index counts text blocks too, and the Responses "
            "API's `output_index` counts reasoning and message items. Gateways keep getting "
            "this wrong (Envoy AI Gateway PR #1524; LiteLLM PR #16194, the Gemini index bug "
            "fixed three times)."
        ),
        clients=(
            "Not among the measured shapes as such. Clients that keep calls in a list by index "
            "can get a hole or an IndexError; those that use a mapping still work, but code that "
            "expects `tool_calls[0]` finds nothing there."
        ),
        example=(
            'data: {...,"delta":{"content":"Let me check."}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"content":"Let me check."}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
        ),
    ),
    "I004": RuleDoc(
        what=(
            "A delta carries an `id` that already belongs to a call at another index: the call "
            "moved to a new index mid-call."
        ),
        why=(
            "Each call keeps one index across all its deltas (invariant 2); clients key off the "
            "index, so a moved call becomes two."
        ),
        clients=(
            "Measured as a tool-call `index` that changes mid-call: WRONG in all the Python "
            "clients (two calls, one nameless); ERR in ai 5 and in the `.stream()` accumulator."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":1,"id":"call_1",'
            '"function":{"arguments":"{}"}}]}}\n\n'
        ),
        fix=(
            "Keep the index the call started with:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n\n'
        ),
    ),
    "I005": RuleDoc(
        what=(
            "After a delta for call k, a delta arrives for an earlier call j < k that already "
            "had deltas before k started (indexes 0, 1, 0); reported once per choice."
        ),
        why=(
            "Legal, since each call keeps its index, but some clients assume calls arrive one "
            "after another."
        ),
        clients=(
            "ERR in the strict openai-python `.stream()` accumulator, which treats an index "
            "switch as 'previous call done'; no other measured client broke on it."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1",...,'
            '"function":{"name":"f","arguments":""}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":1,"id":"call_2",...,'
            '"function":{"name":"f","arguments":""}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n\n'
        ),
        fix=(
            "Finish each call before starting the next (buffer per call if the upstream "
            "interleaves):\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1",...,'
            '"function":{"name":"f","arguments":""}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":1,"id":"call_2",...,'
            '"function":{"name":"f","arguments":""}}]}}\n\n'
        ),
    ),
    "I006": RuleDoc(
        what=(
            "A tool-call delta arrives under a new index with no id and no name, while the "
            "call before it is still open (its arguments so far are not yet a whole JSON "
            "value): the fragment continues that call, under another index. The fragment is "
            "kept on the open call, so what follows from the move (a nameless call without "
            "an id, two halves of JSON that do not parse) is not reported again."
        ),
        why=(
            "Clients key a call's fragments by index. A moved index makes them start a second "
            "call with no id and no name and cut the first call's arguments in two: neither "
            "half parses, and the tool cannot be called."
        ),
        clients=(
            "The index moved mid-call was measured on nine clients: seven of them read two "
            "calls (one without a name, both with arguments that do not parse) or raise; only "
            "clients that key by id instead of index (none of the OpenAI SDKs) read it right."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            '"function":{"name":"get_weather","arguments":"{\\"city\\":"}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":[{"index":1,"function":'
            '{"arguments":"\\"Paris\\"}"}}]}}\n\n'
        ),
        fix=(
            "Keep one index per call for the whole call: map each upstream block or call id "
            "to the index it was given at its first delta.\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":'
            '{"arguments":"\\"Paris\\"}"}}]}}\n\n'
        ),
    ),
    # -- F: finish chunk ---------------------------------------------------------------
    "F001": RuleDoc(
        what=(
            "A choice that had deltas never gets a non-null finish_reason, although the stream "
            "ended with `[DONE]` and no error frame. A stream that just stops (no finish, no "
            "error, no `[DONE]`) is E003 instead."
        ),
        why=(
            "The finish reason tells the client why the answer ended; without it the client "
            "cannot tell whether to run tools or whether the text was cut. Snowflake sends no "
            "finish_reason."
        ),
        clients=(
            'ERR in ai 7 `@ai-sdk/openai-compatible` ("Response stream ended without a finish '
            'reason."); the other measured clients did not fail on it.'
        ),
        example='data: {...,"delta":{"content":"Hi"}}\n\ndata: [DONE]\n\n',
        fix=(
            'data: {...,"delta":{"content":"Hi"}}\n\n'
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "F002": RuleDoc(
        what=(
            "The chunk that carries a finish_reason has a delta with non-empty content, "
            "refusal, reasoning_content or tool_calls."
        ),
        why=(
            "Invariant 3: the final chunk has `delta: {}` and the finish reason. Folding the "
            "last text or fragment into it makes that content depend on clients reading the "
            "delta of a chunk they may treat as an end marker."
        ),
        clients=(
            "Not among the measured shapes. Clients that read every delta still get the "
            "content; a client that treats the finish chunk as an end marker and skips its "
            "delta loses the last piece of text or the last argument fragment."
        ),
        example='data: {...,"delta":{"content":"."},"finish_reason":"stop"}\n\n',
        fix=(
            'data: {...,"delta":{"content":"."}}\n\n'
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
        ),
    ),
    "F003": RuleDoc(
        what=(
            "The finish chunk's delta is not `{}` but holds only empty values: `role`, "
            '`content` "" or null, `tool_calls` [], `refusal` null and the like.'
        ),
        why=(
            "Harmless to the measured clients but not the grammar (`delta: {}`); it shows a "
            "gateway that fills every delta from one template."
        ),
        clients='Tolerated by all nine measured clients (a final `content: ""` was measured).',
        example='data: {...,"delta":{"content":"","tool_calls":[]},"finish_reason":"stop"}\n\n',
        fix='data: {...,"delta":{},"finish_reason":"stop"}\n\n',
    ),
    "F004": RuleDoc(
        what="A choice gets a second non-null finish_reason.",
        why=(
            "One finish chunk per choice. OpenRouter sends finish_reason twice; when the two "
            "values differ, which one a client acts on is up to the client."
        ),
        clients=(
            "Not among the measured shapes. Which finish reason a client reports is then "
            "client-specific; if the two differ (say `stop`, then `tool_calls`), some clients may "
            "run the tools and others not."
        ),
        example=(
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
        ),
        fix='data: {...,"delta":{},"finish_reason":"stop"}\n\ndata: [DONE]\n\n',
    ),
    "F005": RuleDoc(
        what=(
            "A delta for a choice (content, reasoning, tool calls, or any other non-finish "
            "chunk) arrives after that choice's finish chunk; a repeated finish is F004 instead."
        ),
        why=(
            "The finish chunk is the last chunk with choices; only the usage chunk and "
            "`[DONE]` may follow. Content after it can mean the gateway emits the finish when "
            "the upstream signals it, before flushing the deltas it still holds."
        ),
        clients=(
            "Not among the measured shapes. Clients that close the message at the finish reason "
            "drop what follows; others append it after the answer was reported complete."
        ),
        example=(
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
            'data: {...,"delta":{"content":" Bye."}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"content":" Bye."}}\n\n'
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
        ),
    ),
    "F006": RuleDoc(
        what=(
            "finish_reason is a string outside {stop, length, tool_calls, content_filter, "
            "function_call} and not a known native value (those are N003)."
        ),
        why=(
            "Clients branch on the finish reason: run tools, warn about truncation, show a "
            "filter notice. An unknown value takes none of those branches. A made-up value such "
            "as `error` must not stand in for an error frame."
        ),
        clients=(
            "Not among the measured shapes. Clients that validate the value reject the chunk; "
            "the others hand it to application code that matches none of its cases."
        ),
        example='data: {...,"delta":{},"finish_reason":"error"}\n\ndata: [DONE]\n\n',
        fix=(
            "For an upstream failure, send an error frame, then [DONE]:\n"
            'data: {"error":{"message":"upstream failed","type":"server_error"}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "F007": RuleDoc(
        what="Tool calls were made in the choice but its finish_reason is `stop`.",
        why=(
            'Clients use `finish_reason == "tool_calls"` to decide whether to run the calls. '
            "Gemini reports STOP even when it called functions, so a literal mapping gets this "
            "wrong."
        ),
        clients=(
            "Not among the measured shapes. Agent loops that check the finish reason before "
            "running tools skip the calls and end the turn; clients that look at the "
            "accumulated calls instead are unaffected."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1",...,'
            '"function":{"name":"f","arguments":"{}"}}]}}\n\n'
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"id":"call_1",...,'
            '"function":{"name":"f","arguments":"{}"}}]}}\n\n'
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n\n'
        ),
    ),
    "F008": RuleDoc(
        what="finish_reason is `tool_calls` but no call was made in the choice.",
        why=(
            "Clients then look for calls to run and find none; a loop that expects tool "
            "results before its next request can stall or send an empty turn."
        ),
        clients=(
            "Not among the measured shapes. Agent loops that branch on the finish reason take "
            "the tool path with nothing to run."
        ),
        example=(
            'data: {...,"delta":{"content":"Done."}}\n\n'
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"content":"Done."}}\n\n'
            'data: {...,"delta":{},"finish_reason":"stop"}\n\n'
        ),
    ),
    "F009": RuleDoc(
        what=(
            "At the end of the stream, a call's concatenated arguments do not parse as JSON. An "
            'empty string "" counts as `{}` (providers send it for calls without arguments); '
            "when the choice finished with `length`, F010 is reported instead."
        ),
        why=(
            "When finish_reason is `tool_calls`, each call's arguments must parse as JSON; a "
            "client cannot run a call whose arguments it cannot read. A lost or duplicated "
            "fragment shows up here."
        ),
        clients=(
            "ERR or WRONG in every measured client: ai 5 `@ai-sdk/openai` silently drops the "
            "call, langchain-openai silently 'repairs' the arguments, the others throw or "
            "return the broken arguments."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}}\n\n'
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n\n'
        ),
        fix=(
            "Forward every fragment, in order, exactly once:\n"
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}}\n\n'
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"\\"Paris\\"}"}}]}}\n\n'
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n\n'
        ),
    ),
    "F010": RuleDoc(
        what=(
            "The choice finished with `length` and a call's arguments do not parse as JSON: the "
            "call was cut by the token limit."
        ),
        why=(
            "Not a gateway bug as such: the model ran out of tokens mid-call (Anthropic's "
            "`partial_json` can be invalid JSON when max_tokens cuts a call). The gateway must "
            "keep `length`, not turn it into `tool_calls`, so clients know the call is "
            "incomplete."
        ),
        clients=(
            "Truncated arguments break every measured client (ERR or WRONG): ai 5 "
            "`@ai-sdk/openai` silently drops the call and langchain-openai silently 'repairs' "
            "it, so an honest `length` is the only clue a client gets."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"{\\"city\\":\\"Par"}}]}}'
            "\n\n"
            'data: {...,"delta":{},"finish_reason":"length"}\n\n'
        ),
        fix=(
            "Keep `length` and never complete or re-label the call; raise the upstream token "
            "limit if calls are routinely cut:\n"
            'data: {...,"delta":{},"finish_reason":"length"}\n\n'
        ),
    ),
    "F011": RuleDoc(
        what=(
            "A call's arguments are larger than the argument-size limit (64 MiB by default): "
            "they are not kept whole, so whether they parse as JSON is not checked."
        ),
        why=(
            "Arguments that large are rarely meant; every client holds them whole before it can "
            "run the tool, and the check would need the same memory."
        ),
        clients=(
            "Every client concatenates the fragments in memory and parses them once the call "
            "is complete; a client with a size limit refuses the call."
        ),
        example='data: {...,"tool_calls":[{"index":0,"function":{"arguments":"<70 MiB>"}}]}\n\n',
        fix=(
            "Send large payloads by reference (a file id or URL) rather than inline, or raise "
            "`max-arguments-bytes` in [tool.sseconform] to check them anyway."
        ),
    ),
    # -- N: native leaks ---------------------------------------------------------------
    "N001": RuleDoc(
        what=(
            "An `event:` line with an Anthropic event name (message_start, message_delta, "
            "message_stop, content_block_start, content_block_delta, content_block_stop, ping) "
            "or a Responses API one (any name starting `response.`). `event: error` is W014."
        ),
        why=(
            "Provider-native names must not reach chat-completions clients (invariant 5); they "
            "show that the gateway passed the upstream stream through instead of translating it."
        ),
        clients=(
            "openai-python ignores `event:` names, so the name alone changes nothing there; but "
            "it comes with a native payload (N002), which fails type validation in all four AI "
            "SDK clients and raises TypeError in naive openai-python loops."
        ),
        example=(
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":0,'
            '"delta":{"type":"text_delta","text":"Hi"}}\n\n'
        ),
        fix='Translate the event into a chunk:\ndata: {...,"delta":{"content":"Hi"}}\n\n',
    ),
    "N002": RuleDoc(
        what=(
            "A frame shaped like a native event: a top-level `type` that is a native event type, "
            "Gemini keys (`candidates`, `usageMetadata`, `promptFeedback`), Responses keys "
            "(`response`, `sequence_number`) or an Anthropic-shaped top-level `message` or "
            "`delta`. It is not also checked as a chunk; Anthropic's "
            '`{"type":"error","error":{...}}` also counts as an error frame.'
        ),
        why=(
            "Invariant 5: the client receives a payload of another API, which it cannot read. "
            "Usually a dialect the gateway does not translate, or an event type it forgot."
        ),
        clients=(
            "Measured with a leaked native Anthropic frame: ERR in all four AI SDK clients "
            "(type validation), TypeError in naive openai-python loops."
        ),
        example=(
            'data: {"type":"message_start","message":{"id":"msg_1","model":"claude-x",...}}\n\n'
        ),
        fix=(
            "Translate it; message_start becomes the role chunk:\n"
            'data: {"id":"msg_1",...,"delta":{"role":"assistant","content":""}}\n\n'
        ),
    ),
    "N003": RuleDoc(
        what=(
            "finish_reason is a native value: Anthropic's (end_turn, stop_sequence, max_tokens, "
            "tool_use, pause_turn, refusal), Gemini's (STOP, MAX_TOKENS, SAFETY, RECITATION, ...) "
            "or the Responses API's (completed, incomplete, max_output_tokens)."
        ),
        why=(
            "Clients compare finish_reason with OpenAI's values and a native one matches none: "
            "after `tool_use` they do not run the calls, after `max_tokens` they miss the "
            "truncation."
        ),
        clients=(
            "Not among the measured shapes. Clients that validate the value reject the chunk; "
            "the others hand an unknown reason to application code."
        ),
        example='data: {...,"delta":{},"finish_reason":"tool_use"}\n\n',
        fix=(
            "Map it: end_turn, stop_sequence, STOP -> stop; max_tokens, MAX_TOKENS -> length; "
            "tool_use -> tool_calls; refusal, SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, "
            "SPII -> content_filter:\n"
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n\n'
        ),
    ),
    "N004": RuleDoc(
        what=(
            "Inside a chunk, a key of a native dialect (`partial_json`, `content_block`, "
            "`functionCall`, `thoughtSignature`, ...) or a delta or tool-call "
            "`type` whose value is a native type (`text_delta`, `input_json_delta`, `tool_use`, "
            "...); reported once per key."
        ),
        why=(
            "A half-translated chunk: what the native key carries (often the arguments or the "
            "stop reason) sits where no chat-completions client looks."
        ),
        clients=(
            "Not among the measured shapes. Clients that ignore unknown keys lose what the key "
            "carried, e.g. arguments under `partial_json` never reach `function.arguments`; a "
            "native tool-call `type` fails in clients that check it."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"type":"input_json_delta",'
            '"partial_json":"{\\"city\\":"}]}}\n\n'
        ),
        fix=(
            'data: {...,"delta":{"tool_calls":'
            '[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}}\n\n'
        ),
    ),
    # -- E: error frames ---------------------------------------------------------------
    "E001": RuleDoc(
        what=(
            "An error frame (an object with `error` and no `choices`) whose `error` is not an "
            "object, or whose `error.message` is missing or not a string."
        ),
        why=(
            "After HTTP 200, an upstream failure is reported as "
            '`data: {"error":{"message": <string>, ...}}`; clients build their exception from '
            "that message."
        ),
        clients=(
            "Measured with a well-formed frame only: an error frame followed by `[DONE]` is "
            "surfaced by all nine clients, partial text kept. Without a string message, clients "
            "that validate the frame can reject it, and the others raise an error with nothing "
            "readable in it."
        ),
        example='data: {"error":"upstream timeout"}\n\ndata: [DONE]\n\n',
        fix=(
            'data: {"error":{"message":"upstream timeout","type":"server_error"}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "E002": RuleDoc(
        what=(
            "The frame after an error frame is not `[DONE]`, or the stream ends after the error "
            "frame without `[DONE]`."
        ),
        why=(
            "An error ends the stream: the error frame, then `[DONE]`, nothing else. Chunks "
            "after it mean the gateway retried or failed over mid-stream; a missing `[DONE]` is "
            "Groq's shape (`event: error`, then nothing)."
        ),
        clients=(
            "Measured: an error frame then `[DONE]` is surfaced by all nine clients. Chunks after "
            "the error were not measured; a client that stops at the error loses them, one that "
            "does not appends them to an answer it was told had failed."
        ),
        example=(
            'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n'
            'data: {...,"delta":{"content":"Hi"}}\n\n'
        ),
        fix='data: {"error":{"message":"overloaded","type":"server_error"}}\n\ndata: [DONE]\n\n',
    ),
    "E003": RuleDoc(
        what=(
            "The stream ends with no finish chunk for some choice, no error frame and no "
            "`[DONE]`: a silent close. An empty body (no frames) is E003 too."
        ),
        why=(
            "An upstream failure after HTTP 200 must be sent as an error frame then `[DONE]`, "
            "not as a silent close and not as a made-up finish_reason (Portkey #1797; LiteLLM "
            "#40404; open-webui #29628). A silent close lets a partial answer pass for a whole "
            "one."
        ),
        clients=(
            "From the measurements: a missing `[DONE]` is tolerated by all nine clients and a "
            "missing finish reason only breaks ai 7 `@ai-sdk/openai-compatible` (ERR), so the "
            "other clients return the partial answer as if it were complete (WRONG)."
        ),
        example=(
            'data: {...,"delta":{"role":"assistant","content":""}}\n\n'
            'data: {...,"delta":{"content":"The answer is"}}\n\n'
            "(connection closed)"
        ),
        fix=(
            'data: {...,"delta":{"content":"The answer is"}}\n\n'
            'data: {"error":{"message":"upstream connection lost","type":"server_error"}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    # -- U: usage chunk ----------------------------------------------------------------
    "U001": RuleDoc(
        what="A usage chunk arrives while some choice that had deltas has no finish_reason yet.",
        why=(
            "The usage chunk comes after the finish chunk, just before `[DONE]`. Sent earlier, "
            "it shows a gateway forwarding usage as soon as the upstream reports it (Anthropic "
            "sends cumulative usage in `message_delta`)."
        ),
        clients=(
            "Not among the measured shapes. A client that takes the usage chunk as the end of "
            "the answer misses the finish chunk. Separately, the function-calling guide snippet "
            "raises IndexError on a `choices: []` usage chunk it did not ask for."
        ),
        example=(
            'data: {...,"choices":[],"usage":{...}}\n\n'
            'data: {...,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
        ),
        fix=(
            'data: {...,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
            'data: {...,"choices":[],"usage":{...}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "U002": RuleDoc(
        what="A frame with non-null `usage` whose `choices` is null or missing.",
        why=(
            "The usage chunk has `choices: []`; clients iterate `choices` on every chunk and "
            "a null there is not a list."
        ),
        clients=(
            "Measured with `choices: null`: ERR in the AI SDK (the finish reason flips to "
            "`error` and the usage is lost) and in the openai-python `.stream()` accumulator."
        ),
        example='data: {...,"choices":null,"usage":{...}}\n\n',
        fix='data: {...,"choices":[],"usage":{...}}\n\n',
    ),
    "U003": RuleDoc(
        what="A second frame with non-null `usage`, whether a usage chunk or not.",
        why=(
            "There is exactly one usage chunk, and only when it was asked for. With several, a "
            "client that adds them up counts twice and one that keeps the first keeps a partial "
            "count; billing built on either is off."
        ),
        clients=(
            "Not among the measured shapes. Which usage a client reports depends on the client. "
            "When usage was not asked for, each `choices: []` usage chunk also raises "
            "IndexError in the function-calling guide snippet."
        ),
        example=(
            'data: {...,"choices":[],"usage":{"prompt_tokens":10,...}}\n\n'
            'data: {...,"choices":[],"usage":{"prompt_tokens":10,...}}\n\n'
        ),
        fix='data: {...,"choices":[],"usage":{"prompt_tokens":10,...}}\n\ndata: [DONE]\n\n',
    ),
    "U004": RuleDoc(
        what=(
            "The usage counts contradict OpenAI's definition of them, which sseconform uses "
            "everywhere (`check` and `gate`/`diff` alike): `prompt_tokens` counts every input "
            "token, `prompt_tokens_details.cached_tokens` included (cached <= prompt); "
            "`completion_tokens` counts every generated token, "
            "`completion_tokens_details.reasoning_tokens` included (reasoning <= completion); "
            "`total_tokens = prompt_tokens + completion_tokens`. Checked where the numbers are "
            "there (non-negative integers). One spelling is accepted, because xAI sends it on "
            "its own API: `completion_tokens` without the reasoning and `total_tokens` with it "
            "(prompt + completion + reasoning = total), read as completion + reasoning (U006, "
            "a warning). Reasoning above the completion while prompt + completion = total is not "
            "that spelling: those reasoning tokens are counted nowhere."
        ),
        why=(
            "Billing and quotas read these numbers; counts that contradict each other mean a "
            "field was mapped from the wrong native counter: Anthropic's `input_tokens` "
            "without its cache reads, Gemini's `candidatesTokenCount` without "
            "`thoughtsTokenCount`, a cached count larger than the prompt it is part of."
        ),
        clients=(
            "No client is expected to fail; the wrong numbers go to whatever bills or "
            "rate-limits on them. Seen in the real-stream corpus: the Vercel AI Gateway "
            "serving Gemini reports reasoning_tokens above completion_tokens with a total "
            "that leaves the reasoning out (25 thought tokens counted nowhere)."
        ),
        example=(
            'data: {...,"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,'
            '"total_tokens":11,"completion_tokens_details":{"reasoning_tokens":25}}}\n\n'
        ),
        fix=(
            "Count the reasoning in the completion, and the completion in the total:\n"
            'data: {...,"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":27,'
            '"total_tokens":36,"completion_tokens_details":{"reasoning_tokens":25}}}\n\n'
        ),
    ),
    "U005": RuleDoc(
        what="Non-null `usage` on a chunk whose `choices` list is not empty.",
        why=(
            "Only the usage chunk (`choices: []`) carries usage; earlier chunks carry "
            "`usage: null` or none. Usage on a content chunk is usually a running count copied "
            "from the upstream."
        ),
        clients=(
            "Not among the measured shapes. A client that takes usage from the first chunk that "
            "has it reports a partial count."
        ),
        example=(
            'data: {...,"choices":[{"index":0,"delta":{"content":"Hi"}}],'
            '"usage":{"completion_tokens":1,...}}\n\n'
        ),
        fix=(
            'data: {...,"choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":null}\n\n'
            "...\n"
            'data: {...,"choices":[],"usage":{"completion_tokens":12,...}}\n\n'
        ),
    ),
    "U006": RuleDoc(
        what=(
            "`completion_tokens` leaves the reasoning tokens out while `total_tokens` counts "
            "them: prompt + completion + reasoning = total, reasoning above zero. The numbers "
            "are consistent, spelled as xAI spells them; sseconform reads the completion as "
            "completion_tokens + reasoning_tokens (in `diff` too), so this is no U004."
        ),
        why=(
            "OpenAI counts reasoning inside `completion_tokens` (U004 gives the definition). "
            "A client that bills completion_tokens at the output price, or adds the two "
            "counts, gets the wrong figure for this stream. A warning, not an error: it is what "
            "a provider itself sends (xAI: every Grok capture in the real-stream corpus), and "
            "the tokens are all counted; a gateway that serves OpenAI clients should normalise "
            "it (the Portkey gateway spells Gemini's thoughts this way)."
        ),
        clients=(
            "No client fails; what goes wrong is arithmetic on the counts (cost, context "
            "budgets) that assumes OpenAI's definition."
        ),
        example=(
            'data: {...,"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":1,'
            '"total_tokens":303,"completion_tokens_details":{"reasoning_tokens":290}}}\n\n'
        ),
        fix=(
            "To serve OpenAI's definition, count the reasoning in the completion:\n"
            'data: {...,"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":291,'
            '"total_tokens":303,"completion_tokens_details":{"reasoning_tokens":290}}}\n\n'
        ),
    ),
    # -- R: failover evidence ----------------------------------------------------------
    "R001": RuleDoc(
        what=(
            "After a choice's first content, reasoning or tool delta, a delta arrives that "
            'carries `role` and nothing else (content "" or null at most): a second stream '
            "start."
        ),
        why=(
            "After the first delta no retry or failover is allowed: the client has already "
            "shown part of an answer. A second role chunk is the trace of a gateway that "
            "retried mid-stream and spliced the new attempt on (LiteLLM "
            "MidStreamFallbackError, #27967, #31067)."
        ),
        clients=(
            "Not among the measured shapes. Clients append every delta, so the user sees the "
            "partial first attempt followed by the whole second one (a duplicated prefix)."
        ),
        example=(
            'data: {...,"delta":{"role":"assistant","content":""}}\n\n'
            'data: {...,"delta":{"content":"The answer"}}\n\n'
            'data: {...,"delta":{"role":"assistant","content":""}}\n\n'
            'data: {...,"delta":{"content":"The answer is 42."}}\n\n'
        ),
        fix=(
            "Once a delta was sent, report the failure instead of retrying:\n"
            'data: {...,"delta":{"content":"The answer"}}\n\n'
            'data: {"error":{"message":"upstream failed","type":"server_error"}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "R002": RuleDoc(
        what=(
            "The chunk `id` changes after the first content, reasoning or tool delta (before "
            "it, the same change is G002)."
        ),
        why=(
            "Evidence of a mid-stream retry or failover: a second response is spliced onto the "
            "first, which is not allowed once a delta was sent (LiteLLM MidStreamFallbackError, "
            "#27967, #31067)."
        ),
        clients=(
            "Not among the measured shapes. Clients append the deltas of both responses into "
            "one answer (a duplicated or mixed prefix) and report one of the two ids."
        ),
        example=(
            'data: {"id":"c1",...,"delta":{"content":"The answer"}}\n\n'
            'data: {"id":"c2",...,"delta":{"content":"The answer is 42."}}\n\n'
        ),
        fix=(
            'data: {"id":"c1",...,"delta":{"content":"The answer"}}\n\n'
            'data: {"error":{"message":"upstream failed","type":"server_error"}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    "R003": RuleDoc(
        what=(
            "The `model` changes after the first content, reasoning or tool delta (before it, "
            "the same change is G003)."
        ),
        why=(
            "Evidence of a mid-stream failover to another model: the answer is now written by "
            "two models, which is not allowed once a delta was sent (LiteLLM "
            "MidStreamFallbackError, #27967, #31067)."
        ),
        clients=(
            "Not among the measured shapes. Clients append the deltas of both models into one "
            "answer and report one of the two models."
        ),
        example=(
            'data: {...,"model":"claude-x","delta":{"content":"The answer"}}\n\n'
            'data: {...,"model":"gpt-y","delta":{"content":" is 42."}}\n\n'
        ),
        fix=(
            'data: {...,"model":"claude-x","delta":{"content":"The answer"}}\n\n'
            'data: {"error":{"message":"upstream failed","type":"server_error"}}\n\n'
            "data: [DONE]\n\n"
        ),
    ),
    # -- H: HTTP (recordings) ----------------------------------------------------------
    "H001": RuleDoc(
        what="The recorded response has a non-2xx status; its body is not checked as a stream.",
        why=(
            "Informational: an error known before the first byte belongs in a non-2xx response, "
            "not in an in-band frame, so this is the right shape for it; it is reported so a "
            "run over many recordings shows which carried no stream."
        ),
        clients=(
            "Not a stream shape, so not among the measured ones; clients report it through "
            "their HTTP error path, not as stream content."
        ),
        example=(
            "HTTP/1.1 429 Too Many Requests\n"
            "content-type: application/json\n\n"
            '{"error":{"message":"rate limited","type":"rate_limit_error"}}'
        ),
        fix="Nothing to fix: this is how an error known before the first byte should be sent.",
    ),
    "H002": RuleDoc(
        what="The response status is 2xx but its Content-Type is not `text/event-stream`.",
        why=(
            "Clients pick their parser from the media type; an SSE body labelled "
            "`application/json` or `text/plain` is refused or read as one document."
        ),
        clients=(
            "httpx-sse raises an error when the media type is not `text/event-stream`, so "
            "clients built on it never read the stream."
        ),
        example=(
            "HTTP/1.1 200 OK\n"
            "content-type: application/json\n\n"
            'data: {...,"delta":{"role":"assistant","content":""}}\n\n'
        ),
        fix=(
            "HTTP/1.1 200 OK\n"
            "content-type: text/event-stream\n\n"
            'data: {...,"delta":{"role":"assistant","content":""}}\n\n'
        ),
    ),
    "H003": RuleDoc(
        what="The recording is marked incomplete or has no end line: it stopped early.",
        why=(
            "Findings about the end of the stream (E003, D001, W011, F001) may then describe "
            "the recording, not the gateway; re-record before acting on them."
        ),
        clients=(
            "Does not concern clients: it describes the recording file, not the stream the "
            "gateway sent."
        ),
        example=(
            'data: {...,"delta":{"content":"The answer"}}\n\n'
            "(recording stops here: interrupted or timed out, no end line)"
        ),
        fix="Record the response until the gateway closes it, then check the new recording.",
    ),
    "H004": RuleDoc(
        what=(
            "A line of the recording file is damaged (not JSON, not an object, bad base64, a "
            "read without its time): the reads before it are checked, the rest is lost."
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
            '{"t": 0.45, "text": "data: {...\n   (line cut, then other bytes)'
        ),
        fix="Restore the file from version control, or record the stream again.",
    ),
}
