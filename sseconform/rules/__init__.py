"""The rules: the catalog, and each grammar's package of rules, imported when first needed.

A checker asks for its own grammar's rules as it is made (:func:`load`: ``shared`` and
``chat`` for chat, ``responses`` under ``open-responses``), so ``check`` of one grammar loads
that grammar alone; the catalog
imports every package (:func:`load_all`) the first time something asks of the whole table
(:class:`~sseconform.rules.catalog.Catalog`). The packages are named here, not found at run
time, so the import graph shows every arrow (``tests/test_architecture.py`` follows these
lines like any other import); a grammar added to ``catalog.GRAMMARS`` needs its line here
(``tests/test_emitted_codes.py`` says so).
"""

from __future__ import annotations

from types import ModuleType

from sseconform.rules import catalog

__all__ = ["catalog", "load", "load_all", "packages"]


def packages() -> dict[str, ModuleType]:
    """Each rule package, by the name it has in the catalog ("shared" and each grammar),
    imported in registration order: a specification layered on a grammar (open-responses)
    builds on its base grammar's invariants, so the base comes first."""
    # isort: off
    from sseconform.rules.shared import rules as shared_rules
    from sseconform.rules.chat import rules as chat_rules
    from sseconform.rules.anthropic import rules as anthropic_rules
    from sseconform.rules.responses import rules as responses_rules
    from sseconform.rules.open_responses import rules as open_responses_rules
    from sseconform.rules.gemini import rules as gemini_rules

    # isort: on
    return {
        "shared": shared_rules,
        "chat": chat_rules,
        "anthropic": anthropic_rules,
        "responses": responses_rules,
        "open-responses": open_responses_rules,
        "gemini": gemini_rules,
    }


def load_all() -> None:
    """Every rule registered (what the whole catalog's readers need)."""
    packages()


def load(grammar: str) -> list[ModuleType]:
    """The rule packages a checker of ``grammar`` runs, imported: the shared rules, the
    grammar's own (open-responses after the responses grammar it builds on)."""
    from sseconform.rules.shared import rules as shared_rules

    if grammar == "chat":
        from sseconform.rules.chat import rules as chat_rules

        return [shared_rules, chat_rules]
    if grammar == "anthropic":
        from sseconform.rules.anthropic import rules as anthropic_rules

        return [shared_rules, anthropic_rules]
    if grammar == "responses":
        from sseconform.rules.responses import rules as responses_rules

        return [shared_rules, responses_rules]
    if grammar == "open-responses":
        from sseconform.rules.open_responses import rules as open_responses_rules

        return [shared_rules, open_responses_rules]
    if grammar == "gemini":
        from sseconform.rules.gemini import rules as gemini_rules

        return [shared_rules, gemini_rules]
    return list(packages().values())  # a checker of no grammar of ours: every rule


catalog.Catalog.loader = load_all
catalog.Catalog.grammar_loader = load
