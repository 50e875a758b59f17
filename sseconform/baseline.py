"""Known deviations: a baseline file, so a team can gate on everything but what it accepts.

Like the baselines teams keep for mypy or ruff: write one from today's findings
(``--write-baseline FILE``), commit it, then run with ``--baseline FILE``. A finding that the
baseline covers is reported as *known* and does not fail; anything else is new and fails as
usual; a baseline entry that no longer happens is reported as *fixed*, so the file shrinks.

One format for ``check`` and ``gate`` (JSON, keys sorted, one subject per line-ish, so it
diffs well in review)::

    {"format": "sseconform-baseline", "version": 1, "kind": "gate",
     "entries": {"anthropic/usage": {"F005": 1},
                 "gemini/error-mid-stream": {"E002": 1, "expect:error-then-done": 1}}}

A *subject* is a scenario name (``gate``) or a file path as given on the command line
(``check``). A *key* is a rule code, or for ``gate`` a difference (``diff:KIND:FIELD``) or an
expectation (``expect:NAME``, ``upstream:NAME``, ``transport:NAME``). The number is how many
findings with that key are accepted: one more is new.

An optional ``"notes"`` object says, per subject, why it is accepted (who decided, which
upstream bug); it is never matched, and rewriting the file keeps the notes of the subjects
that are still in it. Rewriting after a partial run (``--only``, fewer files) keeps the
entries of the subjects that did not run: only what ran is re-decided.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sseconform.errors import InputError, SseconformError, UsageError
from sseconform.mask import open_text

__all__ = ["FORMAT", "Baseline", "check_target", "load", "rewrite", "write"]

FORMAT = "sseconform-baseline"
VERSION = 1


@dataclass
class Baseline:
    kind: str
    entries: dict[str, dict[str, int]] = field(default_factory=dict)
    source: str = ""
    notes: dict[str, str] = field(default_factory=dict)  # subject -> why it is accepted

    def match(self, subject: str, keys: Iterable[str]) -> tuple[list[bool], list[str]]:
        """Which of ``keys`` (in order) are known, and which accepted keys did not occur
        (``"E002"``, or ``"E002 (1 of 2)"`` when fewer occurred than were accepted)."""
        left = Counter(self.entries.get(subject, {}))
        known = []
        for k in keys:
            if left[k] > 0:
                left[k] -= 1
                known.append(True)
            else:
                known.append(False)
        accepted = self.entries.get(subject, {})
        fixed = []
        for k in sorted(accepted):
            if left[k] <= 0:
                continue
            seen = accepted[k] - left[k]
            fixed.append(k if seen == 0 else f"{k} ({seen} of {accepted[k]})")
        return known, fixed

    def subjects(self) -> set[str]:
        return set(self.entries)

    def updated(self, new: Baseline, ran: Iterable[str]) -> Baseline:
        """``new`` for the subjects that ``ran``, this baseline's entries for the others;
        notes kept for every subject still present."""
        ran = set(ran)
        entries = {s: e for s, e in self.entries.items() if s not in ran}
        entries.update(new.entries)
        entries = dict(sorted(entries.items()))
        notes = {s: n for s, n in self.notes.items() if s in entries}
        return Baseline(self.kind, entries, self.source, notes)


def from_findings(kind: str, found: Mapping[str, Iterable[str]]) -> Baseline:
    """A baseline accepting exactly ``found``: subject -> the keys of its failing findings."""
    entries = {s: dict(sorted(Counter(keys).items())) for s, keys in sorted(found.items())}
    return Baseline(kind, {s: e for s, e in entries.items() if e})


def load(path: str, kind: str) -> Baseline:
    """Read a baseline; a wrong kind, format or shape is a one-line error naming the file."""
    try:
        with open(path, encoding="utf-8") as fp:
            data = json.load(fp)
    except FileNotFoundError:
        raise InputError("no such file (write one with --write-baseline)", path) from None
    except IsADirectoryError:
        raise InputError("is a directory", path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start})", path) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"line {exc.lineno}: not JSON: {exc.msg}", path) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f'not a baseline (no "format": "{FORMAT}")', path)
    if data.get("version") != VERSION:
        raise InputError(f"baseline version {data.get('version')!r}; this sseconform reads 1", path)
    if data.get("kind") != kind:
        raise InputError(f"a {data.get('kind')!r} baseline, not a {kind!r} one", path)
    raw = data.get("entries")
    if not isinstance(raw, dict):
        raise InputError('"entries" must map each subject to {key: count above 0}', path)
    ok = all(
        isinstance(e, dict)
        and all(isinstance(k, str) and type(n) is int and n > 0 for k, n in e.items())
        for e in raw.values()
    )
    if not ok:
        raise InputError('"entries" must map each subject to {key: count above 0}', path)
    notes = data.get("notes", {})
    if not isinstance(notes, dict) or not all(isinstance(n, str) for n in notes.values()):
        raise InputError('"notes" must map subjects to text', path)
    return Baseline(kind, raw, path, notes)


def write(baseline: Baseline, path: str) -> None:
    """Write whole or not at all (a temporary file renamed into place)."""
    doc: dict[str, object] = {"format": FORMAT, "version": VERSION, "kind": baseline.kind}
    doc["entries"] = baseline.entries
    if baseline.notes:
        doc["notes"] = dict(sorted(baseline.notes.items()))
    text = json.dumps(doc, indent=2, sort_keys=False)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open_text(tmp) as fp:
            fp.write(text + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(f"cannot write the baseline: {exc.strerror or exc}", path) from None


def check_target(path: str, updating: str | None, *, force: bool = False) -> None:
    """Refuse, before a run, to write a baseline over a file that exists, unless it is the
    baseline being updated (``--baseline`` names the same file) or ``force``: nothing a team
    wrote in it (its notes) is lost by accident."""
    if force or not os.path.exists(path):
        return
    if updating is not None and os.path.realpath(updating) == os.path.realpath(path):
        return
    raise UsageError(f"{path}: exists (use --force, or pass it as --baseline to update it)")


def rewrite(new: Baseline, path: str, ran: Iterable[str], *, force: bool = False) -> None:
    """Write ``new`` to ``path``. A baseline already there keeps its notes and the entries
    of the subjects that did not run (only what ``ran`` is re-decided); a file there that is
    not a baseline of this kind is replaced only with ``force``."""
    if os.path.exists(path):
        try:
            new = load(path, new.kind).updated(new, ran)
        except SseconformError:
            if not force:
                raise
    write(new, path)
