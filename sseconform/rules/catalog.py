"""The one table of rule codes.

Codes are the contract CI scripts key on, so they live here, apart from the code that
detects them: a code is never renamed or reused, a retired code stays in ``RETIRED``.
One prefix per family: W wire, J JSON/schema, G grammar, D ``[DONE]``, T tool-call head,
I tool-call index, F finish, N native leak, E errors, U usage, R failover, H HTTP; then one
family per other grammar: A Anthropic Messages, S the Responses API, O the Open Responses
specification (layered on the S rules: ``open-responses`` checks both), V Gemini's
``GenerateContentResponse`` stream.

Each rule is one module in its package (``shared/rules`` for W, J and H; then one package per
grammar), where :func:`define` registers it with its docs; ``sseconform.rules`` (the package
this module is in) imports every package after this module, so the table is whole as soon
as anything of it is imported. The gate's findings register here too (:func:`define_gate`,
from ``sseconform.gate.rules``), in ``GATE_RULES``: they are codes CI scripts key on alike.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, KeysView, ValuesView
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar

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
    "O": "Open Responses specification",
    "V": "Gemini GenerateContentResponse stream",
}

#: The grammars ``check`` knows, the first the default: what a gateway's client parses.
GRAMMARS: tuple[str, ...] = ("chat", "anthropic", "responses", "open-responses", "gemini")
#: A grammar layered on another (a specification of it): the other's rules hold in it too.
BASE_GRAMMAR: dict[str, str] = {"open-responses": "responses"}
#: Families whose rules hold for every grammar (the wire, JSON, the HTTP response).
SHARED_FAMILIES = frozenset("WJH")
_FAMILY_GRAMMAR = {"A": "anthropic", "S": "responses", "O": "open-responses", "V": "gemini"}
#: Wire rules about `event:` names, which only chat output must not carry (the other grammars
#: name every event): they belong to chat.
_CHAT_WIRE = frozenset({"W013", "W014"})
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
        """``E`` for a grammar rule, ``transport`` for ``transport:silent``."""
        return self.code.partition(":")[0] if ":" in self.code else self.code[0]

    @property
    def grammar(self) -> str:
        """``chat``, ``anthropic``, ``responses``, ``any`` (wire, JSON and HTTP rules), or
        ``gate`` (the gate's own findings, about a gateway against its upstream)."""
        if ":" in self.code:
            return "gate"
        if self.code in _CHAT_WIRE:
            return "chat"
        if self.code[0] in SHARED_FAMILIES:
            return "any"
        return _FAMILY_GRAMMAR.get(self.code[0], "chat")

    def applies_to(self, grammar: str) -> bool:
        return self.grammar in ("any", grammar, BASE_GRAMMAR.get(grammar))


class Catalog(dict[str, Rule]):
    """Every rule by code, its grammar packages imported when first needed: a command that
    checks one grammar loads that grammar's rules alone (its checker asks for them), and
    whatever asks of the whole table (iterating it, counting it, a code no loaded package
    has) gets every package first (:func:`sseconform.rules.load_all`), so it never sees a
    part of it."""

    _complete = False
    #: What imports every rule package: :func:`sseconform.rules.load_all`, set by the
    #: package as it is imported (the catalog, below every package, imports none of them)
    loader: Callable[[], None] | None = None

    #: What imports one grammar's rule package (with the shared rules and the grammar it
    #: builds on): :func:`sseconform.rules.load`, set as :attr:`loader` is
    grammar_loader: Callable[[str], object] | None = None
    _loaded: ClassVar[set[str]] = set()

    def complete(self) -> None:
        """Import every rule package (once), then order the table as if every package had
        been imported at once: the shared rules, then each grammar's in ``GRAMMARS`` order,
        each package's in its own order (whatever grammar a process checked first)."""
        if not Catalog._complete and Catalog.loader is not None:
            Catalog._complete = True
            Catalog.loader()
            rank = {g: i for i, g in enumerate(("any", *GRAMMARS))}
            ordered = sorted(dict.items(self), key=lambda kv: rank[kv[1].grammar])
            dict.clear(self)
            dict.update(self, ordered)

    def load(self, grammar: str) -> None:
        """Import ``grammar``'s rules, once: a checker asks for its own as it is made."""
        if grammar not in Catalog._loaded and Catalog.grammar_loader is not None:
            Catalog._loaded.add(grammar)
            Catalog.grammar_loader(grammar)

    def registered(self) -> list[str]:
        """The codes of the packages imported so far (a checker's own are among them)."""
        return list(dict.keys(self))

    def __missing__(self, code: str) -> Rule:
        if Catalog._complete:
            raise KeyError(code)
        self.complete()
        return dict.__getitem__(self, code)

    def __contains__(self, code: object) -> bool:
        if dict.__contains__(self, code):
            return True
        self.complete()
        return dict.__contains__(self, code)

    def get(self, code: str, default: Rule | None = None) -> Rule | None:  # type: ignore[override]
        try:
            return self[code]
        except KeyError:
            return default

    def __iter__(self) -> Iterator[str]:
        self.complete()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self.complete()
        return dict.__len__(self)

    def keys(self) -> KeysView[str]:  # type: ignore[override]
        self.complete()
        return dict.keys(self)

    def values(self) -> ValuesView[Rule]:  # type: ignore[override]
        self.complete()
        return dict.values(self)

    def items(self) -> ItemsView[str, Rule]:  # type: ignore[override]
        self.complete()
        return dict.items(self)


RULES = Catalog()
#: Each rule's docs, registered with it by :func:`define`.
DOCS_BESIDE: dict[str, RuleDoc] = {}
#: Codes that once existed; they are never handed out again.
RETIRED: frozenset[str] = frozenset()


def register(rule: Rule) -> Rule:
    """Add a rule to the table, refusing a duplicate or retired code or name."""
    if dict.__contains__(RULES, rule.code) or rule.code in RETIRED:
        raise ValueError(f"rule code {rule.code} is already taken")
    if any(r.name == rule.name for r in dict.values(RULES)):
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


#: The gate's own finding families: a gateway judged against its upstream, not a grammar.
GATE_FAMILIES: dict[str, str] = {
    "timing": "When the gateway passed each piece on, against the upstream's own timing.",
    "expect": "What the scenario expected of the gateway's answer as a whole.",
    "transport": "How the gateway's answer travelled: whether it came, ended, and stayed "
    "within the scenario's bounds.",
    "upstream": "Whether the scenario was tested at all: the upstream reached, its fault fired.",
    "diff": "What the gateway changed of the upstream's content on its way to the client.",
    "request": "What the gateway forwarded of the client's request: each parameter as the "
    "upstream received it.",
    "history": "What a conversation's later turn lost: the history the gateway forwarded, "
    "as the provider judges it.",
}
#: The gate's rules (``transport:silent``), registered by the gate's rule modules.
GATE_RULES: dict[str, Rule] = {}


def define_gate(code: str, severity: Severity, summary: str, doc: RuleDoc) -> Rule:
    """Register one of the gate's rules (``family:kind``) and its docs."""
    family, _, kind = code.partition(":")
    if family not in GATE_FAMILIES or not kind or kind != kind.lower() or " " in kind:
        raise ValueError(f"bad gate rule code {code!r}")
    if code in GATE_RULES:
        raise ValueError(f"rule code {code} is already taken")
    rule = Rule(code, code, severity, None, summary)
    GATE_RULES[code] = rule
    DOCS_BESIDE[code] = doc
    return rule


def lookup(rule_id: str) -> Rule:
    """Any rule a finding can name: a grammar rule (``E002``) or the gate's
    (``timing:silence``, once the gate's rules are imported)."""
    return GATE_RULES[rule_id] if ":" in rule_id else RULES[rule_id]


def invariants(grammar: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """Declare a grammar's invariants (before its rules name them)."""
    GRAMMAR_INVARIANTS[grammar] = names
    return names


def doc(code: str) -> RuleDoc:
    """A rule's documentation (what, why, which clients break, example, fix), with what the
    client matrix measured for it and the example cut from its failing case."""
    from dataclasses import replace

    from sseconform.rules.docs import examples, measured, measured_text

    if code not in DOCS_BESIDE and ":" not in code:
        RULES.complete()  # a grammar no checker of this process has loaded yet
    base = DOCS_BESIDE[code]
    found = measured().get(code)
    if found:
        rows = tuple((str(c), str(what)) for c, what, _ in found.get("rows", ()))
        source, note = str(found.get("from", "")), str(found.get("note", ""))
        base = replace(
            base,
            measured=measured_text(found["rows"], source, note),
            measured_rows=rows,
            measured_from=str(found.get("from", "")),
            measured_note=str(found.get("note", "")),
        )
    cut = examples().get(code)
    if cut and not base.example:
        base = replace(base, example=cut["text"], example_from=cut["from"])
    return base


invariants("chat", INVARIANTS)


def package_of(grammar: str) -> str:
    """The package under ``sseconform/rules`` a grammar's checker and rules live in."""
    return grammar.replace("-", "_")


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
