"""Settings from ``[tool.sseconform]`` in the nearest ``pyproject.toml``; flags override them.

Recognised keys: ``select``, ``ignore`` (lists of codes, family letters or invariant names),
``strict`` (bool), ``format`` (text|json|junit|github), ``max-per-code``, ``max-line-bytes``,
``max-event-bytes``,
``max-arguments-bytes``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sseconform.errors import UsageError
from sseconform.rules.base import Settings
from sseconform.rules.catalog import FAMILIES, GRAMMAR_INVARIANTS, GRAMMARS, RULES

GRAMMAR_CHOICES = (*GRAMMARS, "auto")

KNOWN_KEYS = frozenset(
    {
        "select",
        "ignore",
        "strict",
        "format",
        "grammar",
        "max-per-code",
        "max-line-bytes",
        "max-event-bytes",
        "max-arguments-bytes",
    }
)


@dataclass(slots=True)
class FileConfig:
    """What ``[tool.sseconform]`` said, and where it was found (None when there is none)."""

    path: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)


def find_pyproject(start: Path) -> Path | None:
    for d in (start, *start.parents):
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load(start: Path | None = None, path: Path | None = None) -> FileConfig:
    """Read ``[tool.sseconform]``; unknown keys and bad values are errors, not silent."""
    where = path or find_pyproject((start or Path.cwd()).resolve())
    if where is None:
        return FileConfig()
    try:
        with open(where, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{where}: cannot read settings: {exc}") from None
    section = data.get("tool", {}).get("sseconform", {})
    if not isinstance(section, dict):
        raise UsageError(f"{where}: [tool.sseconform] must be a table")
    unknown = sorted(set(section) - KNOWN_KEYS)
    if unknown:
        raise UsageError(
            f"{where}: unknown key(s) in [tool.sseconform]: {', '.join(unknown)}; "
            f"known: {', '.join(sorted(KNOWN_KEYS))}"
        )
    for key in ("select", "ignore"):
        if key in section:
            value = section[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UsageError(f"{where}: [tool.sseconform] {key} must be a list of strings")
            validate_selectors(value, f"{where}: [tool.sseconform] {key}")
    for key in ("max-per-code", "max-line-bytes", "max-event-bytes", "max-arguments-bytes"):
        if key in section and (type(section[key]) is not int or section[key] < 1):
            raise UsageError(f"{where}: [tool.sseconform] {key} must be a positive integer")
    if "strict" in section and not isinstance(section["strict"], bool):
        raise UsageError(f"{where}: [tool.sseconform] strict must be true or false")
    if "grammar" in section and section["grammar"] not in GRAMMAR_CHOICES:
        raise UsageError(
            f"{where}: [tool.sseconform] grammar must be one of {', '.join(GRAMMAR_CHOICES)}"
        )
    return FileConfig(where, section)


def split_selectors(values: list[str] | None) -> list[str]:
    """``--select T,I --select F001`` -> ``["T", "I", "F001"]``."""
    out: list[str] = []
    for v in values or []:
        out.extend(p.strip() for p in v.split(",") if p.strip())
    return out


def validate_selectors(values: list[str], what: str) -> None:
    if not values:
        return  # nothing to look up: the catalog's other grammars stay unloaded
    names = {r.name for r in RULES.values()}
    for v in values:
        up = v.upper()
        ok = (
            up == "ALL"
            or up in RULES
            or (up[:1] in FAMILIES and all(c.startswith(up) for c in [up]) and _prefix_hits(up))
            or any(v in names for names in GRAMMAR_INVARIANTS.values())
            or v in names
        )
        if not ok:
            raise UsageError(
                f"{what}: {v!r} is not a rule code, family letter, rule name or invariant "
                "(see `sseconform rules`)"
            )


def _prefix_hits(prefix: str) -> bool:
    return any(code.startswith(prefix) for code in RULES)


@dataclass
class CheckConfig:
    """What ``check`` runs with: the command line's options over ``[tool.sseconform]``."""

    settings: Settings
    strict: bool
    format: str
    grammar: str


def resolve(
    *,
    config: Path | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    strict: bool | None = None,
    fmt: str | None = None,
    grammar: str | None = None,
    max_per_code: int | None = None,
) -> CheckConfig:
    """The settings a check runs with: each option given wins over the file's value, the
    file's over the default. Bad selectors or grammars are a :class:`UsageError`."""
    values = (load(path=config) if config else load()).values
    sel = split_selectors(select) if select else list(values.get("select", []))
    ign = split_selectors(ignore) if ignore else list(values.get("ignore", []))
    validate_selectors(sel, "--select")
    validate_selectors(ign, "--ignore")
    chosen = grammar if grammar is not None else str(values.get("grammar", "chat"))
    if chosen not in GRAMMAR_CHOICES:
        raise UsageError(f"unknown grammar {chosen!r}; grammars: {', '.join(GRAMMAR_CHOICES)}")
    settings = Settings(select=sel, ignore=ign)
    if max_per_code is not None:
        settings.max_per_code = max_per_code
    elif "max-per-code" in values:
        settings.max_per_code = int(values["max-per-code"])
    for key, attr in LIMITS.items():
        if key in values:
            setattr(settings, attr, int(values[key]))
    return CheckConfig(
        settings,
        bool(values.get("strict", False)) if strict is None else strict,
        fmt if fmt is not None else str(values.get("format", "text")),
        chosen,
    )


#: ``[tool.sseconform]`` keys for the checker's caps, and the Settings field each sets.
LIMITS = {
    "max-line-bytes": "max_line",
    "max-event-bytes": "max_event",
    "max-arguments-bytes": "max_arguments",
}
