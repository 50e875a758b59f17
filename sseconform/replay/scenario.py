"""Scenario files: which recording (and which fault) answers which request, in order.

TOML, read with tomllib::

    [[rule]]
    path = "/v1/chat/completions"   # exact path, or a dialect name (openai, anthropic, ...)
    model = "gpt-4o-mini"           # optional
    header = "x-test: retry"        # optional, "name: value"
    recording = "text.jsonl"        # a file name given to `replay`
    fault = "status=429"            # optional
    times = 1                       # optional: only the first N matching requests
    speed = 0                       # optional: this rule's speed

Rules are tried in order; the first that matches and has uses left answers. A request no rule
takes is routed as usual (path, then model).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from sseconform import providers
from sseconform.errors import UsageError
from sseconform.replay.faults import parse_faults

KEYS = frozenset({"path", "model", "header", "recording", "fault", "times", "speed"})


@dataclass
class ReplayRule:
    recording: str
    path: str | None = None
    model: str | None = None
    header: tuple[str, str] | None = None
    fault: str | None = None
    times: int | None = None
    speed: float | None = None
    used: int = 0

    def matches(
        self, path: str, dialect: str | None, model: str | None, headers: dict[str, str]
    ) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if self.path is not None:
            bare = path.split("?", 1)[0]
            if self.path in providers.DIALECTS:
                if dialect != self.path:
                    return False
            elif bare != self.path:
                return False
        if self.model is not None and model != self.model:
            return False
        if self.header is not None:
            name, value = self.header
            if headers.get(name) != value:
                return False
        return True


def load_rules(path: str, names: set[str]) -> list[ReplayRule]:
    """Read a scenario file; every rule must name one of the recordings being served."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the scenario: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not TOML: {exc}") from None
    rules = []
    for i, raw in enumerate(data.get("rule", []), start=1):
        where = f"{path}: rule {i}"
        if not isinstance(raw, dict):
            raise UsageError(f"{where}: must be a table")
        unknown = set(raw) - KEYS
        if unknown:
            raise UsageError(f"{where}: unknown key(s) {sorted(unknown)}; keys: {sorted(KEYS)}")
        rec = raw.get("recording")
        if not isinstance(rec, str) or rec not in names:
            raise UsageError(f"{where}: recording must be one of {sorted(names)}")
        header = None
        if "header" in raw:
            name, sep, value = str(raw["header"]).partition(":")
            if not sep:
                raise UsageError(f"{where}: header must be 'name: value'")
            header = (name.strip().lower(), value.strip())
        fault = raw.get("fault")
        if fault is not None:
            try:
                parse_faults(str(fault))
            except ValueError as exc:
                raise UsageError(f"{where}: {exc}") from None
        times = raw.get("times")
        if times is not None and (type(times) is not int or times < 1):
            raise UsageError(f"{where}: times must be a positive integer")
        speed = raw.get("speed")
        if speed is not None and (not isinstance(speed, int | float) or speed < 0):
            raise UsageError(f"{where}: speed must be a number >= 0")
        rules.append(
            ReplayRule(
                rec,
                raw.get("path"),
                raw.get("model"),
                header,
                None if fault is None else str(fault),
                times,
                None if speed is None else float(speed),
            )
        )
    if not rules:
        raise UsageError(f"{path}: no [[rule]] tables")
    return rules
