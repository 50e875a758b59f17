"""What the Responses checker keeps about a stream: per output item and per part, structure
and running hashes, never the text.

A ``*.done`` event, an ``output_item.done`` and the terminal event's ``output`` must all
equal what the deltas built. Keeping the text to compare would grow with the stream, so each
streamed string is a running BLAKE2b digest (and its length); a value to compare is hashed
the same way. Memory is per item and per part, whatever the length of the text.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any

__all__ = [
    "Acc",
    "Item",
    "Part",
    "as_int",
    "combined",
    "differs",
    "digest",
    "done_unlike_deltas",
    "output_pairs",
    "renamed_reasoning",
    "signature",
]

DIGEST_SIZE = 16


def as_int(v: Any) -> int | None:
    """``v`` when it is an int (not a bool), else None."""
    return v if type(v) is int else None


def digest(text: str) -> bytes:
    """The digest a streamed string is compared by."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=DIGEST_SIZE).digest()


def combined(digests: dict[str, bytes]) -> bytes:
    """One digest for an item's streamed strings (label and digest of each): what a done item
    keeps for the terminal comparison, 16 bytes whatever its size."""
    h = blake2b(digest_size=DIGEST_SIZE)
    for label in sorted(digests):
        h.update(label.encode() + b"\0" + digests[label])
    return h.digest()


class Acc:
    """A streamed string as a running digest. ``firm`` once a delta or a ``.done`` value
    arrived: before that, the value the item or part was added with is only a seed, and a
    later value without deltas (a provider that streams none) is adopted, not a mismatch.
    ``partial`` when its start came before a resumed stream's first event: its deltas are a
    tail, so any value matches until a whole one (a ``.done``) is adopted."""

    __slots__ = ("alts", "deltas", "done", "firm", "h", "partial", "size")

    def __init__(self, seed: str = "", *, partial: bool = False) -> None:
        self.h = blake2b(digest_size=DIGEST_SIZE)
        self.size = 0
        self.deltas = 0
        self.firm = False
        self.partial = partial
        self.done = False  # its own `.done` event arrived
        self.alts: list[bytes] = []  # digests of values announced against it (a fault)
        if seed:
            self.add(seed)
            self.deltas = 0

    def add(self, text: str) -> None:
        self.add_all(text, 1)

    def add_all(self, text: str, deltas: int) -> None:
        """Several deltas at once, their texts joined (the digest of a concatenation is that
        of its parts)."""
        self.h.update(text.encode("utf-8", "surrogatepass"))
        self.size += len(text)
        self.deltas += deltas
        self.firm = True

    def digest(self) -> bytes:
        return self.h.digest()

    def matches(self, text: str) -> bool:
        """True when ``text`` is what was built (always, for a seed no delta followed), or a
        value already announced against it: one fault gives one finding, whichever side
        (the deltas, the ``.done``, the part, the item) was wrong."""
        if not self.firm or self.partial:
            return True
        if len(text) == self.size and digest(text) == self.h.digest():
            return True
        return bool(self.alts) and digest(text) in self.alts

    def accepted(self) -> set[bytes]:
        """Every digest this string may be repeated with without a new finding."""
        return set() if self.partial else {self.h.digest(), *self.alts}

    def adopt(self, text: str) -> None:
        """Record ``text`` as what the stream announced: the value itself for a seed no
        delta followed, else an alternative later comparisons accept (bounded)."""
        if not self.firm or self.partial:
            self.h = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=DIGEST_SIZE)
            self.size = len(text)
            self.firm = True
            self.partial = False
        elif len(self.alts) < 8 and not self.matches(text):
            self.alts.append(digest(text))


class Part:
    """A content part (``output_text``, ``refusal``, ``reasoning_text``) or a reasoning
    summary part, by its index in its item."""

    __slots__ = ("acc", "done", "kind", "partial")

    def __init__(self, kind: str, seed: str, *, partial: bool = False) -> None:
        self.kind = kind
        self.acc = Acc(seed, partial=partial)
        self.done = False  # content_part.done / reasoning_summary_part.done
        #: Added before a resumed stream's first event: its added and done may both be unseen.
        self.partial = partial


#: The item field each item-level streamed string ends up in, per item type.
BODY_FIELD: dict[str, str] = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "mcp_call": "arguments",
    "code_interpreter_call": "code",
}


class Item:
    """An output item, by ``output_index``: its identity, its parts, its streamed body."""

    __slots__ = (
        "body",
        "call_id",
        "done",
        "final",
        "id",
        "index",
        "lost",
        "name",
        "partial",
        "parts",
        "summary",
        "type",
        "unseen",
    )

    def __init__(self, index: int, obj: dict[str, Any], *, partial: bool = False) -> None:
        self.index = index
        #: Added before a resumed stream's first event: known only from its later events.
        self.partial = partial
        #: For such an item, how many content and summary parts may predate the stream
        #: (decided by the first event about each list; -1: not yet).
        self.unseen = [-1, -1]
        self.id = obj.get("id")
        self.type = obj.get("type")
        self.call_id = obj.get("call_id")
        self.name = obj.get("name")
        self.done = False
        #: Events went to a part never added (S024, said once): what was built is known short.
        self.lost = False
        self.parts: list[Part] = []
        self.summary: list[Part] = []
        field = BODY_FIELD.get(self.type) if isinstance(self.type, str) else None
        seed = obj.get(field) if field else None
        self.body: Acc | None = Acc(seed if isinstance(seed, str) else "", partial=partial)
        #: After output_item.done (when parts and body are let go): what the terminal output
        #: must repeat; one combined digest, or per string every digest it may repeat (the
        #: item as done and what the stream built) when the two disagreed.
        self.final: bytes | dict[str, set[bytes]] | None = None

    def built(self) -> dict[str, tuple[Acc, bool]]:
        """What the stream built, by label: each part's and the body's running digest, and
        whether a missing counterpart is a loss (message text is; reasoning parts a provider
        may keep out of its items are not)."""
        out: dict[str, tuple[Acc, bool]] = {}
        for i, p in enumerate(self.parts):
            out[f"content[{i}]"] = (p.acc, self.type == "message")
        for i, p in enumerate(self.summary):
            out[f"summary[{i}]"] = (p.acc, True)
        if self.body is not None and isinstance(self.type, str) and self.type in BODY_FIELD:
            out[BODY_FIELD[self.type]] = (self.body, True)
        return out


def signature(item: dict[str, Any]) -> dict[str, str]:
    """The streamed strings of an item object (as ``output_item.done`` or the terminal
    output carry it), by the labels :meth:`Item.built` uses."""
    out: dict[str, str] = {}
    kind = item.get("type")
    if kind in ("message", "reasoning"):
        content = item.get("content")
        if isinstance(content, list):
            for i, c in enumerate(content):
                if isinstance(c, dict):
                    text = c.get("refusal") if c.get("type") == "refusal" else c.get("text")
                    if isinstance(text, str):
                        out[f"content[{i}]"] = text
    if kind == "reasoning":
        summary = item.get("summary")
        if isinstance(summary, list):
            for i, s in enumerate(summary):
                if isinstance(s, dict) and isinstance(s.get("text"), str):
                    out[f"summary[{i}]"] = s["text"]
    field = BODY_FIELD.get(kind) if isinstance(kind, str) else None
    if field is not None and isinstance(item.get(field), str):
        out[field] = item[field]
    return out


def differs(item: Item, values: dict[str, str], *, final: bool) -> str:
    """The first streamed string of ``values`` that is not what ``item`` built ('' when all
    match). ``final``: ``values`` are the terminal output's, compared with what the item was
    done with when it was."""
    done = item.final if final else None
    if isinstance(done, bytes):
        same = combined({label: digest(text) for label, text in values.items()})
        return "" if same == done else "its text, refusal, summary or arguments"
    if done is not None:
        if set(values) != set(done):
            return sorted(set(values) ^ set(done))[0]
        for label, text in values.items():
            if digest(text) not in done[label]:
                return label
        return ""
    built = item.built()
    for label, (acc, lost) in built.items():
        if label not in values:
            if lost and acc.firm and acc.size:
                return label
            continue
        if not acc.matches(values[label]):
            return label
    if item.type == "message" and not final:
        extra = [label for label in values if label not in built]
        if extra:
            return extra[0]
    return ""


def output_pairs(
    items: dict[int, Item], resumed: bool, output: list[Any]
) -> list[tuple[int, Item, dict[str, Any]]] | None:
    """The terminal output's entries beside the items the stream built, as (position, item,
    entry); None when the output's length cannot hold them (then nothing is paired). In a
    resumed stream ``output[i]`` is output_index i (what came before the stream is unknown)."""
    built = [items[i] for i in sorted(items)]
    if resumed:
        if built and len(output) <= built[-1].index:
            return None
    elif len(output) != len(built):
        return None
    pairs = []
    for n, item in enumerate(built):
        pos = item.index if resumed else n
        got = output[pos] if 0 <= pos < len(output) else None  # a negative index: its schema's
        if type(got) is dict:
            pairs.append((pos, item, got))
    return pairs


def renamed_reasoning(item: Item, got: dict[str, Any]) -> bool:
    """A reasoning item the terminal output gives another id (S074, not a mismatch)."""
    return (
        item.type == "reasoning"
        and got.get("type") == "reasoning"
        and item.id is not None
        and got.get("id") != item.id
    )


def done_unlike_deltas(kind: str, field: str, text: str, acc: Acc) -> str | None:
    """What a `.done` whose ``field`` is not what its deltas built looks like (None: it is)."""
    if acc.matches(text):
        return None
    return (
        f"{kind}: `{field}` ({len(text)} chars) is not what the deltas built "
        f"({acc.size} chars in {acc.deltas} deltas)"
    )
