"""The one table of rule codes.

Codes are the contract CI scripts key on, so they live here, apart from the code that
detects them: a code is never renamed or reused, a retired code stays in ``RETIRED``.
One prefix per family: W wire, J JSON/schema, G grammar, D ``[DONE]``, T tool-call head,
I tool-call index, F finish, N native leak, E errors, U usage, R failover, H HTTP; then one
family per other grammar: A Anthropic Messages, S the Responses API.

The chat rules are listed here and documented in ``docs.py``. The rules of the other
grammars live one module per rule in their grammar's package, each with its docs beside its
code (:func:`define`); the packages are imported at the end of this module, so the table is
whole as soon as it is imported.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sseconform.rules.docs import RuleDoc


class Severity(StrEnum):
    """How bad a finding is; ``error`` fails a check, ``warning`` only under ``--strict``."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


STABLE_INDEX = "stable-index"
TOOL_CALL_HEAD = "tool-call-head"
FINAL_EMPTY_DELTA = "final-empty-delta"
NO_NATIVE_LEAK = "no-native-leak"
ERROR_THEN_DONE = "error-then-done"

#: The five invariants of the product card, in the order they are reported.
INVARIANTS: tuple[str, ...] = (
    STABLE_INDEX,
    TOOL_CALL_HEAD,
    FINAL_EMPTY_DELTA,
    NO_NATIVE_LEAK,
    ERROR_THEN_DONE,
)

FAMILIES: dict[str, str] = {
    "W": "wire (SSE framing)",
    "J": "JSON and schema",
    "G": "chunk grammar",
    "D": "[DONE] terminator",
    "T": "tool-call head",
    "I": "tool-call index",
    "F": "finish chunk",
    "N": "native leaks",
    "E": "error frames",
    "U": "usage chunk",
    "R": "failover evidence",
    "H": "HTTP response (recordings)",
    "A": "Anthropic Messages events",
    "S": "Responses API events",
}

#: The grammars ``check`` knows, the first the default: what a gateway's client parses.
GRAMMARS: tuple[str, ...] = ("chat", "anthropic", "responses")
#: Families whose rules hold for every grammar (the wire, JSON, the HTTP response).
SHARED_FAMILIES = frozenset("WJH")
_FAMILY_GRAMMAR = {"A": "anthropic", "S": "responses"}
#: Each grammar's invariants, in report order (the chat ones are the product card's five).
GRAMMAR_INVARIANTS: dict[str, tuple[str, ...]] = {}


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule's identity: what a diagnostic points back to."""

    code: str
    name: str
    severity: Severity
    invariant: str | None
    summary: str

    @property
    def family(self) -> str:
        return self.code[0]

    @property
    def grammar(self) -> str:
        """``chat``, ``anthropic``, ``responses``, or ``any`` (wire, JSON and HTTP rules)."""
        if self.code[0] in SHARED_FAMILIES:
            return "any"
        return _FAMILY_GRAMMAR.get(self.code[0], "chat")

    def applies_to(self, grammar: str) -> bool:
        return self.grammar in ("any", grammar)


RULES: dict[str, Rule] = {}
#: The docs of the rules defined beside their code (the chat rules' are in ``docs.DOCS``).
DOCS_BESIDE: dict[str, RuleDoc] = {}
#: Codes that once existed; they are never handed out again.
RETIRED: frozenset[str] = frozenset()


def register(rule: Rule) -> Rule:
    """Add a rule to the table, refusing a duplicate or retired code or name."""
    if rule.code in RULES or rule.code in RETIRED:
        raise ValueError(f"rule code {rule.code} is already taken")
    if any(r.name == rule.name for r in RULES.values()):
        raise ValueError(f"rule name {rule.name} is already taken")
    if rule.code[0] not in FAMILIES or not rule.code[1:].isdigit() or len(rule.code) != 4:
        raise ValueError(f"bad rule code {rule.code!r}")
    if rule.invariant is not None and rule.invariant not in GRAMMAR_INVARIANTS.get(
        "chat" if rule.grammar == "any" else rule.grammar, ()
    ):
        raise ValueError(f"unknown invariant {rule.invariant!r} for the {rule.grammar} grammar")
    RULES[rule.code] = rule
    return rule


def define(
    code: str, name: str, severity: Severity, invariant: str | None, summary: str, doc: RuleDoc
) -> Rule:
    """Register a rule and its docs at once: how a rule module of a grammar package starts."""
    rule = register(Rule(code, name, severity, invariant, summary))
    DOCS_BESIDE[code] = doc
    return rule


def invariants(grammar: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """Declare a grammar's invariants (before its rules name them)."""
    GRAMMAR_INVARIANTS[grammar] = names
    return names


def doc(code: str) -> RuleDoc:
    """A rule's documentation, wherever it is kept."""
    from sseconform.rules.docs import DOCS

    return DOCS.get(code) or DOCS_BESIDE[code]


invariants("chat", INVARIANTS)

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741


def _r(code: str, name: str, sev: Severity, inv: str | None, summary: str) -> None:
    register(Rule(code, name, sev, inv, summary))


# -- W: wire ---------------------------------------------------------------------------
_r("W001", "invalid-utf8", E, None, "The body is not valid UTF-8.")
_r("W002", "bom", W, None, "The body starts with a byte-order mark.")
_r("W003", "crlf-framing", W, None, "Lines end in CRLF instead of LF.")
_r("W004", "cr-framing", W, None, "Lines end in a bare CR.")
_r("W005", "data-no-space", W, None, "A `data:` field has no space after the colon.")
_r("W006", "comment", I, None, "A comment line (`: ...`), such as a keep-alive.")
_r("W007", "unknown-sse-field", W, None, "A line whose field name is not data, event, id or retry.")
_r("W008", "id-field", W, None, "An `id:` field on a chat stream.")
_r("W009", "id-or-retry-only-block", E, None, "A block of only `id:`/`retry:` lines, no data.")
_r("W010", "retry-field", W, None, "A `retry:` field on a chat stream.")
_r("W011", "unterminated-event", E, None, "The last event is not ended by a blank line.")
_r("W012", "data-comment", E, None, "A keep-alive sent as data (`data: : ping`).")
_r("W013", "event-field", W, None, "An `event:` field on chat output (clients ignore it).")
_r("W014", "event-error", E, ERROR_THEN_DONE, "An error sent as `event: error`.")
_r("W015", "empty-data", E, None, "An event whose data is empty.")
_r("W016", "multi-line-data", W, None, "An event whose data spans several `data:` lines.")
_r("W017", "line-too-long", E, None, "A line longer than the line-length limit.")
_r("W018", "not-an-event-stream", E, None, "A non-empty body with no SSE event in it.")
_r("W019", "event-too-large", E, None, "An event whose data is over the event-size limit.")

# -- J: JSON and schema ----------------------------------------------------------------
_r("J001", "invalid-json", E, None, "An event's data is not valid JSON (and not `[DONE]`).")
_r("J002", "not-an-object", E, None, "An event's data is JSON but not an object.")
_r("J003", "schema-violation", E, None, "A frame violates its JSON Schema in `schemas/`.")

# -- G: grammar ------------------------------------------------------------------------
_r("G001", "object-not-chunk", E, None, "`object` is not `chat.completion.chunk`.")
_r("G002", "id-changed", E, None, "A chunk's `id` differs from the first chunk's.")
_r("G003", "model-changed", E, None, "A chunk's `model` differs from the first chunk's.")
_r("G004", "created-changed", W, None, "A chunk's `created` differs from the first chunk's.")
_r("G005", "choice-index", E, None, "A choice index that is not the next from 0.")
_r("G006", "role-missing", W, None, "A choice's first delta does not carry `role`.")
_r("G007", "role-repeated", W, None, "`role` repeated on a later delta that carries content.")
_r("G008", "role-invalid", E, None, "`role` is not `assistant`.")
_r("G009", "empty-choices", E, None, "A chunk with `choices: []` that is not the usage chunk.")
_r("G010", "unknown-field", I, None, "A field OpenAI does not send (reported once per name).")
_r("G011", "reasoning-empty", W, None, "A `reasoning_content` delta that is an empty string.")
_r("G012", "reasoning-nonstandard", I, None, "Reasoning under `reasoning`/`reasoning_details`.")

# -- D: [DONE] -------------------------------------------------------------------------
_r("D001", "done-missing", E, None, "The stream does not end with `data: [DONE]`.")
_r("D002", "data-after-done", E, None, "Events follow `data: [DONE]`.")

# -- T: tool-call head (invariant tool-call-head) --------------------------------------
_r("T001", "head-missing-id", E, TOOL_CALL_HEAD, "A call's first delta has no `id`.")
_r("T002", "head-missing-name", E, TOOL_CALL_HEAD, "A call's first delta has no name.")
_r("T003", "head-missing-type", W, TOOL_CALL_HEAD, "A call's first delta has no `type`.")
_r("T004", "call-id-changed", E, TOOL_CALL_HEAD, "A later delta of a call carries another `id`.")
_r("T005", "call-name-changed", E, TOOL_CALL_HEAD, "A later delta of a call carries another name.")
_r("T006", "head-repeated", W, TOOL_CALL_HEAD, "A later delta repeats the call's id or name.")
_r("T007", "arguments-resent", E, TOOL_CALL_HEAD, "A call's whole arguments are sent again.")
_r("T008", "arguments-in-head", I, TOOL_CALL_HEAD, "A call's first delta carries arguments.")
_r("T009", "head-missing-arguments", W, TOOL_CALL_HEAD, "A first delta has no `arguments`.")

# -- I: tool-call index (invariant stable-index) ---------------------------------------
_r("I001", "index-missing", E, STABLE_INDEX, "A tool-call delta has no `index`.")
_r("I002", "index-invalid", E, STABLE_INDEX, "A tool-call `index` is not an integer >= 0.")
_r("I003", "index-skipped", E, STABLE_INDEX, "A new call does not take the next index.")
_r("I004", "index-moved", E, STABLE_INDEX, "A call's id reappears under another index.")
_r("I005", "calls-interleaved", W, STABLE_INDEX, "Fragments of parallel calls interleave.")
_r("I006", "arguments-moved", E, STABLE_INDEX, "A call's arguments continue under another index.")

# -- F: finish chunk (invariant final-empty-delta) -------------------------------------
_r("F001", "finish-missing", E, FINAL_EMPTY_DELTA, "A choice never gets a finish_reason.")
_r("F002", "finish-delta-not-empty", E, FINAL_EMPTY_DELTA, "The finish chunk's delta has content.")
_r("F003", "finish-delta-residue", W, FINAL_EMPTY_DELTA, "The finish delta has empty values.")
_r("F004", "finish-repeated", E, FINAL_EMPTY_DELTA, "A choice gets a second finish_reason.")
_r("F005", "chunk-after-finish", E, FINAL_EMPTY_DELTA, "A delta for a choice after its finish.")
_r("F006", "finish-reason-invalid", E, FINAL_EMPTY_DELTA, "A finish_reason outside the set.")
_r("F007", "finish-reason-not-tool-calls", E, FINAL_EMPTY_DELTA, "Calls made, not `tool_calls`.")
_r("F008", "tool-calls-without-calls", E, FINAL_EMPTY_DELTA, "`tool_calls` but no call made.")
_r("F009", "arguments-invalid-json", E, FINAL_EMPTY_DELTA, "A call's arguments are not JSON.")
_r("F010", "arguments-truncated", W, FINAL_EMPTY_DELTA, "Arguments cut short under `length`.")
_r(
    "F011",
    "arguments-too-large",
    W,
    FINAL_EMPTY_DELTA,
    "Arguments over the size limit: not parsed.",
)

# -- N: native leaks (invariant no-native-leak) ----------------------------------------
_r("N001", "native-event-name", E, NO_NATIVE_LEAK, "An `event:` field with a native name.")
_r("N002", "native-payload", E, NO_NATIVE_LEAK, "A frame shaped like a native event.")
_r("N003", "native-finish-reason", E, NO_NATIVE_LEAK, "A native finish reason leaked.")
_r("N004", "native-key", E, NO_NATIVE_LEAK, "A native key or type value inside a chunk.")

# -- E: error frames (invariant error-then-done) ---------------------------------------
_r("E001", "error-message-not-string", E, ERROR_THEN_DONE, "An error without string message.")
_r("E002", "error-not-followed-by-done", E, ERROR_THEN_DONE, "No `[DONE]` right after an error.")
_r("E003", "truncated", E, ERROR_THEN_DONE, "The stream stops with no finish and no error.")

# -- U: usage chunk --------------------------------------------------------------------
_r("U001", "usage-before-finish", E, None, "The usage chunk comes before a finish chunk.")
_r("U002", "usage-choices-not-empty", E, None, "The usage chunk's `choices` is not `[]`.")
_r("U003", "usage-repeated", E, None, "More than one chunk carries usage.")
_r("U004", "usage-totals", E, None, "Token counts that contradict each other.")
_r("U005", "usage-on-content-chunk", W, None, "Usage set on a chunk that has choices.")
_r("U006", "usage-reasoning-outside", W, None, "Reasoning left out of completion_tokens.")

# -- R: failover evidence --------------------------------------------------------------
_r("R001", "restart-after-delta", E, None, "A new role-only start after the first delta.")
_r("R002", "id-changed-after-delta", E, None, "The chunk `id` changes after the first delta.")
_r("R003", "model-changed-after-delta", E, None, "The `model` changes after the first delta.")

# -- H: HTTP (recordings) --------------------------------------------------------------
_r("H001", "http-error-status", I, None, "A non-2xx response: the body is not a stream.")
_r("H002", "content-type", E, None, "A 2xx response that is not `text/event-stream`.")
_r("H003", "recording-incomplete", W, None, "The recording ended early or has no end mark.")
_r("H004", "recording-corrupt", E, None, "A damaged line in the recording: what follows is lost.")

del E, W, I


def get(code: str) -> Rule:
    """Look a rule up by code (case-insensitive) or by name."""
    key = code.strip()
    rule = RULES.get(key.upper())
    if rule is not None:
        return rule
    for r in RULES.values():
        if r.name == key:
            return r
    raise KeyError(code)


#: The other grammars' rule tables: each package registers its rules (and invariants) when
#: imported. Last in this module, so what they import from here is already defined.
for _grammar in GRAMMARS[1:]:
    importlib.import_module(f"sseconform.rules.{_grammar}.rules")
