"""The gemini grammar's rules: its invariants, then every rule module (each registers its rule
and docs with ``catalog.define`` when imported).

Each rule module holds its check beside its docs, subscribed to a moment of the stream
(``gemini/hooks.py``), or claims the places of a chunk's schema it owns;
``gemini/checker.py`` moves the state the checks read (``state.py``).
"""

from sseconform.rules.gemini.invariants import INVARIANTS
from sseconform.rules.gemini.rules import (
    v001_call_split,
    v002_call_args_not_object,
    v003_call_id_repeated,
    v004_finish_reason_unknown,
    v005_part_after_finish,
    v006_finish_reason_missing,
    v007_thought_as_text,
    v008_thought_signature_missing,
    v009_usage_total_mismatch,
    v010_usage_count_decreasing,
    v011_candidate_index_changed,
    v012_role_not_model,
    v013_model_version_or_id_changed,
    v014_error_chunk_malformed,
    v015_chunk_after_error,
    v016_chat_chunk_in_gemini,
    v017_foreign_event_in_gemini,
    v018_done_in_gemini,
    v019_event_line_in_gemini,
    v020_json_array_malformed,
    v021_comment_in_gemini,
    v022_whole_body_malformed,
)

__all__ = [
    "INVARIANTS",
    "v001_call_split",
    "v002_call_args_not_object",
    "v003_call_id_repeated",
    "v004_finish_reason_unknown",
    "v005_part_after_finish",
    "v006_finish_reason_missing",
    "v007_thought_as_text",
    "v008_thought_signature_missing",
    "v009_usage_total_mismatch",
    "v010_usage_count_decreasing",
    "v011_candidate_index_changed",
    "v012_role_not_model",
    "v013_model_version_or_id_changed",
    "v014_error_chunk_malformed",
    "v015_chunk_after_error",
    "v016_chat_chunk_in_gemini",
    "v017_foreign_event_in_gemini",
    "v018_done_in_gemini",
    "v019_event_line_in_gemini",
    "v020_json_array_malformed",
    "v021_comment_in_gemini",
    "v022_whole_body_malformed",
]
