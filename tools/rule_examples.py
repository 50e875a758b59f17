"""Each rule's doc example, cut from its failing case folder: ``python -m tools.rule_examples
--write`` writes ``sseconform/rules/examples.json``, which ``catalog.doc`` reads.

A rule's example is its first ``fail/<CODE>-*`` case, checked in its grammar: the event the
rule's first finding is at, and the one before it, each ``data:`` line's JSON shortened
without cutting a token (long strings end in "…", objects and arrays off the finding's path
become ``{…}``/``[…]``; the path to the finding's JSON pointer is kept whole). Wire (W) and
HTTP (H) rules keep their hand-written examples: their bytes (CR, a BOM, invalid UTF-8) are
the point, and a re-rendered event would hide them. ``tests/test_rule_docs.py`` fails when
the file and the cases disagree.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from sseconform import check_bytes
from sseconform.rules.catalog import RULES
from sseconform.sse.decoder import SSEDecoder
from tools.cases import case_settings

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
OUT = ROOT / "sseconform" / "rules" / "examples.json"
#: Where each grammar keeps its case folders.
FOLDERS = {
    "chat": CASES,
    "anthropic": CASES / "anthropic",
    "responses": CASES / "responses",
    "open-responses": CASES / "open-responses",
    "gemini": CASES / "gemini",
}
HAND_WRITTEN = frozenset("WH")
MAX_STRING = 40
MAX_LINE = 240


def _string(s: str) -> str:
    if len(s) > MAX_STRING:
        s = s[: MAX_STRING - 1] + "…"
    return json.dumps(s, ensure_ascii=False)


def _compact(v: Any, keep: list[str] | None, depth: int, limit: int, tight: bool = False) -> str:
    """``v`` as compact JSON, shortened: past ``limit`` levels a container off the kept path
    is elided; strings are cut at MAX_STRING characters. ``keep`` is the rest of the path to
    the finding (None: off it; []: at it, so everything under it is kept). ``tight``: an
    object on the path keeps only its ``type``, ``id`` and the key the path goes through,
    the rest said by ``…``."""
    if isinstance(v, dict | list) and keep is None and depth >= limit:
        whole = json.dumps(v, separators=(",", ":"), ensure_ascii=False)
        if len(whole) > 24:
            return "{…}" if isinstance(v, dict) else "[…]"
    if isinstance(v, dict):
        parts = []
        dropped = False
        for k, x in v.items():
            if tight and keep and k != keep[0] and k not in ("type", "id"):
                dropped = True
                continue
            parts.append(f"{json.dumps(k)}:{_compact(x, _step(keep, k), depth + 1, limit, tight)}")
        return "{" + ",".join(parts + (["…"] if dropped else [])) + "}"
    if isinstance(v, list):
        items = [_compact(x, _step(keep, str(i)), depth + 1, limit, tight) for i, x in enumerate(v)]
        return "[" + ",".join(items) + "]"
    if isinstance(v, str):
        return _string(v)
    return json.dumps(v)


def _step(keep: list[str] | None, key: str) -> list[str] | None:
    """The path left under ``key``: at the finding everything is kept."""
    if keep is None:
        return None
    if not keep:
        return []
    return keep[1:] if keep[0] == key else None


def _data_line(data: str, pointer: str) -> str:
    try:
        obj = json.loads(data)
    except ValueError:
        return data if len(data) <= MAX_LINE else data[: MAX_LINE - 1] + "…"
    keep = (
        [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
        if pointer
        else None
    )
    text = ""
    for limit in (3, 2, 1):
        text = _compact(obj, keep, 0, limit)
        if len(text) <= MAX_LINE:
            return text
    return _compact(obj, keep, 0, 1, tight=bool(keep))


def _event_text(raw: str, pointer: str) -> str:
    out = []
    for line in raw.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.startswith("data:"):
            data = line[5:].removeprefix(" ")
            out.append("data: " + _data_line(data, pointer))
        elif line:
            out.append(line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…")
    return "\n".join(out) + "\n\n"


def example(code: str, grammar: str, case: Path) -> dict[str, str] | None:
    """The example of ``code`` cut from ``case`` (None when the case does not report it)."""
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    result = check_bytes(body, settings, grammar=grammar)
    finding = next((d for d in result.findings if d.code == code), None)
    if finding is None:
        return None
    dec = SSEDecoder(max_line=settings.max_line, max_event=settings.max_event)
    events = dec.feed(body) + dec.finish()
    if finding.frame is None and finding.line and body.lstrip()[:1] == b"[":
        return _lines_around(body, finding.line, case)
    if not events:
        return None
    at = finding.frame if finding.frame is not None else events[-1].frame
    index = next((i for i, ev in enumerate(events) if ev.frame == at), len(events) - 1)
    shown = events[max(0, index - 1) : index + 1]
    text = body.decode("utf-8", "replace")
    parts = []
    if shown[0] is not events[0]:
        parts.append("…\n\n")
    for ev, after in zip(shown, [*shown[1:], None], strict=True):
        pointer = finding.pointer if ev.frame == at else ""
        parts.append(_event_text(text[ev.offset : ev.end], pointer))
        between = text[ev.end : after.offset] if after is not None else ""
        if between.strip():  # lines in no event between the two shown (a comment)
            parts.append(_event_text(between, ""))
    if shown[-1] is events[-1]:
        parts.append("(the stream ends here)\n\n")
    first, last = shown[0].frame, shown[-1].frame
    frames = f"frame {last}" if first == last else f"frames {first}-{last}"
    rel = case.relative_to(ROOT).as_posix()
    return {
        "text": "".join(parts).rstrip("\n") + "\n",
        "from": f"{rel}/stream.sse, {frames} of {len(events)}",
    }


def _lines_around(body: bytes, line: int, case: Path) -> dict[str, str]:
    """A finding at a line of a body that is no SSE (Gemini's JSON-array framing): the
    lines around it, as they are, each at most ``MAX_LINE`` characters."""
    lines = body.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    first, last = max(1, line - 3), min(len(lines), line + 2)
    shown = [
        ln if len(ln) <= MAX_LINE else ln[: MAX_LINE - 1] + "…" for ln in lines[first - 1 : last]
    ]
    if first > 1:
        shown.insert(0, "…")
    if last == len(lines):
        shown.append("(the body ends here)")
    rel = case.relative_to(ROOT).as_posix()
    return {
        "text": "\n".join(shown).rstrip("\n") + "\n",
        "from": f"{rel}/stream.sse, lines {first}-{last} of {len(lines)}",
    }


def generated() -> dict[str, dict[str, str]]:
    """code -> {text, from} for every rule with a failing case (W and H excepted)."""
    out: dict[str, dict[str, str]] = {}
    for grammar, folder in FOLDERS.items():
        for case in sorted((folder / "fail").iterdir()):
            code = case.name.split("-", 1)[0]
            if code in out or code not in RULES or code[0] in HAND_WRITTEN:
                continue
            if not (case / "stream.sse").is_file() or not RULES[code].applies_to(grammar):
                continue
            got = example(code, grammar, case)
            if got is not None:
                out[code] = got
    return dict(sorted(out.items()))


def serialised(table: dict[str, dict[str, str]]) -> str:
    return json.dumps(table, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    table = generated()
    if argv == ["--write"]:
        OUT.write_text(serialised(table), encoding="utf-8")
        print(f"wrote {OUT} ({len(table)} examples)")
        return 0
    for code, ex in table.items():
        print(f"== {code}  ({ex['from']})\n{ex['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
