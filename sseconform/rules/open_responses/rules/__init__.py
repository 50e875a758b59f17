"""The Open Responses grammar's rules: the specification's MUSTs, each citing its section.

The responses grammar's rules (S) hold here too; these (O) add what the specification asks
beyond OpenAI's stream. Detected in ``sseconform/rules/open_responses/checker.py``.
"""

from sseconform.rules.catalog import GRAMMAR_INVARIANTS, invariants
from sseconform.rules.responses import rules as responses_rules  # noqa: F401 (the base first)

INVARIANTS = invariants(
    "open-responses",
    (
        *GRAMMAR_INVARIANTS["responses"],
        "spec-schema",
        "spec-framing",
        "spec-order",
        "spec-errors",
        "spec-extensions",
    ),
)

from sseconform.rules.open_responses.rules import (  # noqa: E402  (the invariants come first)
    o001_spec_event_schema,
    o002_event_not_in_spec,
    o003_event_field_mismatch,
    o004_spec_error_shape,
    o005_done_sentinel_missing,
    o006_item_type_not_in_spec,
    o007_extension_item_fields,
    o008_extension_event_sequence,
    o009_part_order,
    o010_incomplete_item_not_last,
    o011_error_without_failed,
)

__all__ = [
    "INVARIANTS",
    "o001_spec_event_schema",
    "o002_event_not_in_spec",
    "o003_event_field_mismatch",
    "o004_spec_error_shape",
    "o005_done_sentinel_missing",
    "o006_item_type_not_in_spec",
    "o007_extension_item_fields",
    "o008_extension_event_sequence",
    "o009_part_order",
    "o010_incomplete_item_not_last",
    "o011_error_without_failed",
]
