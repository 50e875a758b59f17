"""The anthropic grammar's rules: its invariants, then every rule module (each registers its rule
and docs with ``catalog.define`` when imported)."""

from sseconform.rules.catalog import invariants

INVARIANTS = invariants("anthropic", ())
