"""The rules every grammar shares, one module each.

W: found by the SSE decoder (``sseconform/sse/decoder.py``) and placed by the checker base
(``rules/base.py``); J: by each grammar's checker when it parses an event and validates it
against its schema; H: by ``sseconform/api.py`` when it reads a recording.
"""

from sseconform.rules.shared.rules import (
    h001_http_error_status,
    h002_content_type,
    h003_recording_incomplete,
    h004_recording_corrupt,
    h005_error_body_shape,
    j001_invalid_json,
    j002_not_an_object,
    j003_schema_violation,
    w001_invalid_utf8,
    w002_bom,
    w003_crlf_framing,
    w004_cr_framing,
    w005_data_no_space,
    w006_comment,
    w007_unknown_sse_field,
    w008_id_field,
    w009_id_or_retry_only_block,
    w010_retry_field,
    w011_unterminated_event,
    w012_data_comment,
    w015_empty_data,
    w016_multi_line_data,
    w017_line_too_long,
    w018_not_an_event_stream,
    w019_event_too_large,
)

__all__ = [
    "h001_http_error_status",
    "h002_content_type",
    "h003_recording_incomplete",
    "h004_recording_corrupt",
    "h005_error_body_shape",
    "j001_invalid_json",
    "j002_not_an_object",
    "j003_schema_violation",
    "w001_invalid_utf8",
    "w002_bom",
    "w003_crlf_framing",
    "w004_cr_framing",
    "w005_data_no_space",
    "w006_comment",
    "w007_unknown_sse_field",
    "w008_id_field",
    "w009_id_or_retry_only_block",
    "w010_retry_field",
    "w011_unterminated_event",
    "w012_data_comment",
    "w015_empty_data",
    "w016_multi_line_data",
    "w017_line_too_long",
    "w018_not_an_event_stream",
    "w019_event_too_large",
]
