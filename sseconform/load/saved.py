"""A load report read back (``load --render``): only one that ``load --format json`` could
have written. Every field the page shows is checked against ``schemas/load-report.schema
.json`` first, so a report from elsewhere (edited, truncated, hostile) is refused with the
place that is wrong, never rendered wrong or crashed on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sseconform.errors import InputError
from sseconform.rules.schema import LOAD_REPORT, pointer_of, validator

__all__ = ["MAX_REPORT", "read_report"]

#: A saved report is a few hundred KB even for a day-long run; past this it is not one.
MAX_REPORT = 64 * 1024 * 1024


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_report(path: str) -> dict[str, Any]:
    """The report at ``path``; :class:`InputError` saying what and where when it is not one."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_REPORT:
            raise InputError(f"over {MAX_REPORT // 2**20} MiB: not a load report", path)
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read it: {exc.strerror}", path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not a JSON report (byte {exc.start} is not UTF-8)", path) from None
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise InputError(f"not a JSON report ({where}): {exc.msg}", path) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"not a JSON report: {exc}", path) from None
    errors = sorted(
        validator(LOAD_REPORT).iter_errors(data), key=lambda e: list(map(str, e.instance_path))
    )
    if errors:
        e = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        at = pointer_of(list(e.instance_path)) or "the top level"
        raise InputError(f"not a load report (--format json): at {at}: {e.message}{more}", path)
    assert isinstance(data, dict)
    return data
