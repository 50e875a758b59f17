"""Every form of a secret the masker looks for, and how each is found in a write.

The forms (see :mod:`sseconform.mask`) are compiled once per set of secrets
(:func:`compile_forms`); :func:`mask_bytes` masks a write and :func:`hold` says how much of
its end a stream keeps back. All of it costs time linear in the bytes, whatever they hold:
escapes are decoded in one pass over a write (Google's and Go's JSON write ``<>&=`` as
``\\u003c``, so a stream can hold one every few bytes), and only those of bytes a form
holds; every search made of each write leads with a literal or is a bytes search; and a
secret is at most :data:`MAX_SECRET` characters long.
"""

from __future__ import annotations

import base64
import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "EDGE",
    "EMPTY",
    "KEEP",
    "MAX_SECRET",
    "MIN_SECRET",
    "REDACTED",
    "Compiled",
    "compile_forms",
    "expand",
    "hold",
    "mask_bytes",
]

REDACTED = "[REDACTED]"
_RED = REDACTED.encode()
#: A secret is masked wherever it appears only from this length on (a shorter one would
#: blot out ordinary words).
MIN_SECRET = 8
#: The most characters of a secret any output may show (a masked echo keeps at most these).
KEEP = 4
#: The longest value looked for whole. A credential is shorter: API keys run under 200
#: characters, a bearer JWT to a few hundred (its RS256 signature is 342), and a browser
#: keeps at most 4096 bytes of a cookie. Every form the masker knows costs time and the
#: stream's hold-back in proportion to its secret, so a longer value (a hostile peer's
#: 60 KB ``Set-Cookie``) would slow every write of the run, and with it what ``record``
#: measures. Such a value is looked for by its first and last :data:`EDGE` characters
#: instead: an echo of it holds both, which are masked; the middle they leave is no
#: credential on its own (a JWT's claims; a cookie no client would send back).
MAX_SECRET = 1024
#: How much of each end of a value longer than :data:`MAX_SECRET` is a secret.
EDGE = 512
#: Runs of characters that stand for masked or cut-off text: ``***``, ``...``, ``…``,
#: ``••``; one expression each, led by a literal (``re`` scans for a literal many times
#: faster than for a class, which a full stop in every sentence would start an attempt of).
_MASK_RUNS = tuple(
    re.compile(p)
    for p in (
        rb"\*\*\*+",
        rb"\.\.\.+",
        rb"\xe2\x80\xa6(?:\xe2\x80\xa6)*",
        rb"\xe2\x80\xa2(?:\xe2\x80\xa2)+",
    )
)
#: An ASCII character written as an escape: JSON ``\u00XX``, a percent escape (``%25XX`` when
#: the ``%`` was escaped again), JSON's ``\/``; a JSON escape quoted in JSON again (a report
#: quoting an event's raw text) has its backslash doubled. HEX stands for the two hex digits
#: (lower case: the data is compared lower-cased) of the bytes the masker's forms hold.
_ESC = (  # a leading class, then the branch it chose: many times faster in re
    rb"[\\%](?:(?<=\\)\\*u00(HEX)|(?<=%)(?:25)?(HEX)|(?<=\\)\\*(/))"
)
#: The end of a write that may be the start of an escape the next write completes.
_PARTIAL_ESC = re.compile(rb"(?:\\+(?:u(?:0(?:0[0-7]?)?)?)?|%(?:2(?:5(?:[0-7])?)?|[0-7])?)\Z")
#: A mask run (or the start of one) at the very end of a write, with at most KEEP characters
#: after it.
_TRAILING_ECHO = re.compile(
    rb"(?:\*+|\.+|(?:\xe2\x80\xa6)+|(?:\xe2\x80\xa2)+|\xe2\x80?)[\w./+=-]{0,4}\Z"
)
#: Tokens longer than this are looked at only near a piece found in them.
_TOKEN_REACH = 4096
#: Each escape's decoded byte, by its two hex digits (lower case: the data is compared
#: lower-cased).
_HEX = {b"%02x" % i: bytes([i]).lower() for i in range(128)}
#: The bytes any escape is written with (lower case).
_ESCAPE_BYTES = b"\\u%/0123456789abcdef"


def _decoded(m: re.Match[bytes]) -> bytes:
    """The byte one escape stands for."""
    hexa = m.group(1) or m.group(2)
    return _HEX[hexa] if hexa else b"/"


class _Escapes:
    """The escapes of the bytes a masker's forms hold (``used``, lower case), and how a
    write is decoded in one pass. Any other escape stands for a byte no form holds, so it
    breaks a form as its own bytes do: Gemini's ``\\u003c`` for ``<`` costs nothing unless
    a form holds ``<``. The looks for each kind lead with a literal, which ``re`` scans
    for many times faster than for a class: a write without them is decoded by none."""

    def __init__(self, used: set[int]) -> None:
        codes = {b for b in range(128) if bytes([b]).lower()[0] in used}
        alts = []
        for high in "01234567":
            digits = "".join(f"{b:02x}"[1] for b in sorted(codes) if f"{b:02x}"[0] == high)
            if digits:
                alts.append(f"{high}[{digits}]")
        hexa = "|".join(alts).encode() or b"(?!)"
        self.slash = ord("/") in used
        pattern = _ESC.replace(b"HEX", hexa)
        if not self.slash:
            pattern = pattern.replace(rb"|(?<=\\)\\*(/)", rb"|(?!)(/)")
        self.pattern = re.compile(pattern)
        self._unicode = re.compile(rb"\\u00(?:" + hexa + rb")")
        self._percent = re.compile(rb"%(?:25)?(?:" + hexa + rb")")

    def decode(self, low: bytes) -> bytes:
        """``low`` (lower-cased) with its escapes decoded (itself when it has none)."""
        if (b"\\u00" in low and self._unicode.search(low)) or (
            b"%" in low and self._percent.search(low)
        ):
            return self.pattern.sub(_decoded, low)
        if not self.slash or b"\\/" not in low:
            return low
        out = low.replace(b"\\/", b"/")  # JSON's \/ alone (after a doubled backslash: twice)
        out = out.replace(b"\\/", b"/") if b"\\/" in out else out
        return out if b"\\/" not in out else self.pattern.sub(_decoded, low)


def _origin(low: bytes, esc: _Escapes) -> Callable[[int], int]:
    """Where in ``low`` each byte of :meth:`_Escapes.decode`'s result began: a function of
    its index (one past the end maps to the end). Built only once a form was found."""
    decoded_at: list[int] = []  # where each escape stands in the decoded bytes
    shift = [0]  # bytes the escapes before it were longer than the byte they stand for
    for m in esc.pattern.finditer(low):
        decoded_at.append(m.start() - shift[-1])
        shift.append(shift[-1] + m.end() - m.start() - 1)

    def where(i: int) -> int:
        return i + shift[bisect.bisect_left(decoded_at, i)]

    return where


def _base64_forms(secret: bytes) -> list[bytes]:
    """The characters of ``secret``'s base64 that depend on it alone, at each of the three
    alignments it can have inside a longer base64 string, in both alphabets."""
    forms = []
    n = len(secret)
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + secret + b"\0\0")
        piece = enc[-(-8 * k // 6) : (8 * k + 8 * n) // 6]
        forms += [piece, piece.replace(b"+", b"-").replace(b"/", b"_")]
    return [f for f in dict.fromkeys(forms) if len(f) >= MIN_SECRET]


@dataclass(frozen=True)
class Compiled:
    """What the masker matches with, rebuilt whenever a secret is added (all lower case:
    the data is compared lower-cased, which keeps every byte where it was)."""

    forms: tuple[bytes, ...]  # every secret and its base64 forms, longest first
    plain: tuple[bytes, ...]  # the secrets themselves, for pieces and masked echoes
    grams: tuple[bytes, ...]  # pieces of KEEP+1 characters, one in any piece to mask
    alphabet: bytes  # the bytes a token of the secrets' kind is made of (both cases)
    chars: bytes  # the bytes a form may be written with, escapes too (lower case)
    escapes: _Escapes  # the escapes of the bytes a form holds
    longest: int  # the longest form, escaped at every character


EMPTY = Compiled((), (), (), b"", b"", _Escapes(set()), 0)


_QUOTES = re.compile(r'["\\]+')


def expand(value: str) -> list[str]:
    """A credential and the parts of it that are secrets on their own."""
    value = value.strip()
    scheme, _, rest = value.partition(" ")
    rest = rest.strip()
    # ``Bearer KEY``: the key is the secret (masking it masks the header value too); a
    # space kept in a secret would make its pieces swallow the words around it
    out = [value] if len(rest) < MIN_SECRET else []
    if rest:
        out.append(rest)
        if scheme.lower() == "basic":
            try:
                decoded = base64.b64decode(rest, validate=True).decode("utf-8")
            except ValueError:
                decoded = ""
            out += [decoded, decoded.partition(":")[2]]
    # a quote or a backslash is JSON's and the text's own: a value holding one (a JSON
    # string taken for a credential) is masked by its runs between them, so a mask never
    # swallows the quote that closes a string around it
    out = [run for v in out for run in _QUOTES.split(v)]
    capped = []
    for v in out:  # a value too long to look for whole: its two ends (see MAX_SECRET)
        capped += [v[:EDGE], v[-EDGE:]] if len(v) > MAX_SECRET else [v]
    return [v for v in capped if len(v) >= MIN_SECRET]


def compile_forms(secrets: set[str]) -> Compiled:
    plain = tuple(sorted({s.encode("utf-8", "surrogatepass").lower() for s in secrets}))
    forms = set(plain)
    for s in secrets:
        forms.update(f.lower() for f in _base64_forms(s.encode("utf-8", "surrogatepass")))
    ordered = tuple(sorted(forms, key=len, reverse=True))
    # a piece the piece rules mask holds one of these: a cut start holds the first KEEP+1
    # characters, the rest of a split the last KEEP+1, and a middle piece (MIN_SECRET long
    # at least, or a sixteenth of a long key) one of those that start every KEEP characters
    # (every sixteenth of a long key: each is a scan of every write)
    n = KEEP + 1
    grams = tuple(
        {
            p[i : i + n]
            for p in plain
            for i in [*range(0, len(p) - KEEP, max(KEEP, len(p) // 16)), len(p) - n]
        }
    )
    # what a token of the secret's kind is made of: any letter if it has one, any digit if
    # it has one, and its own punctuation (a token is a word of that kind, not just the
    # secret's own characters)
    used = {b for p in plain for b in p}
    alphabet = {b for b in used if not bytes([b]).isalnum() and not bytes([b]).isspace()}
    if any(bytes([b]).isalpha() for b in used):
        alphabet |= set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    if any(bytes([b]).isdigit() for b in used):
        alphabet |= set(b"0123456789")
    held = {b for f in ordered for b in f}
    chars = bytes(sorted(held | set(_ESCAPE_BYTES)))
    return Compiled(
        ordered, plain, grams, bytes(sorted(alphabet)), chars, _Escapes(held),
        6 * len(ordered[0]) + 6,
    )  # fmt: skip


def _prefix_at(norm: bytes, forms: tuple[bytes, ...]) -> int | None:
    """The earliest place in ``norm`` from which the rest of it begins a form (and is
    shorter than the form), or None."""
    best = None
    for f in forms:  # only a tail shorter than the form can be its start
        i = norm.find(f[:1], max(0, len(norm) - len(f) + 1))
        while i != -1 and (best is None or i < best):
            head = f[: min(8, len(norm) - i)]  # a cheap look before the whole compare
            if norm.startswith(head, i) and f.startswith(norm[i:]):
                best = i
                break
            i = norm.find(f[:1], i + 1)
    return best


def _whole(data: bytes, low: bytes, c: Compiled) -> list[tuple[int, int]]:
    """Where a form of a secret stands, written plainly or with escapes: the escapes are
    decoded in one pass, and mapped back only where a form was found."""
    spans = []
    for f in c.forms:
        i = low.find(f)
        while i != -1:
            spans.append((i, i + len(f)))
            i = low.find(f, i + len(f))
    norm = c.escapes.decode(low)
    if norm is low or len(norm) == len(low):  # no escape: the plain search saw it all
        return spans
    where = None
    for f in c.forms:
        i = norm.find(f)
        while i != -1:
            where = where or _origin(low, c.escapes)
            spans.append((where(i), where(i + len(f))))
            i = norm.find(f, i + len(f))
    return spans


def _opens_escape(data: bytes, at: int) -> bool:
    """Whether the backslash at ``at`` begins an escape (an even run of them before it)."""
    if data[at : at + 1] != b"\\":
        return False
    run = at
    while run > 0 and data[run - 1 : run] == b"\\":
        run -= 1
    return (at - run) % 2 == 0


def _unsplit(data: bytes, a: int, b: int) -> tuple[int, int]:
    """The span widened so that it cuts no escape in two (``\\"``, ``\\u00e9``): masked JSON
    stays JSON, whatever piece of a secret (a quote in it, a cut) the span began or ended
    in."""
    for k in range(1, 6):  # a begins inside an escape
        p = a - k
        if p < 0:
            break
        if _opens_escape(data, p):
            if p + (6 if data[p + 1 : p + 2] == b"u" else 2) > a:
                a = p
            break
    for k in range(1, 6):  # an escape begun inside runs past b
        p = b - k
        if p < a:
            break
        if _opens_escape(data, p):
            b = max(b, min(len(data), p + (6 if data[p + 1 : p + 2] == b"u" else 2)))
            break
    return a, b


def _cut(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``data`` with each span (overlapping ones merged) replaced by ``[REDACTED]``; no
    escape is cut in two (see :func:`_unsplit`)."""
    out = []
    done = 0
    for a, b in sorted(_unsplit(data, a, b) for a, b in spans):
        if b <= done:
            continue
        if a < done:
            a = done
        else:
            out += [data[done:a], _RED]
        done = b
    out.append(data[done:])
    return b"".join(out)


def _pieces(data: bytes, low: bytes, c: Compiled) -> bytes:
    """Mask the tokens that hold a piece of a secret: one that ends with more than KEEP of
    its first characters (cut short), begins with more than KEEP of its last (the rest of a
    split), or lies inside it (a middle piece, MIN_SECRET long at least). Each look for a
    piece goes on after the token it found: a flood of one (``aaaa...`` against a key of
    ``a``s) costs a look per token, not per byte."""
    tokens: dict[int, int] = {}  # where each token a piece stands in begins, and ends
    for g in c.grams:
        i = low.find(g)
        while i != -1:
            start, end = _token(data, i, c.alphabet)
            tokens[start] = max(tokens.get(start, 0), end)
            i = low.find(g, max(end, i + 1))
    spans = []
    known: dict[bytes, list[tuple[int, int]]] = {}  # a token seen again costs a look-up
    for start, end in tokens.items():
        token = data[start:end]
        found = known.get(token)
        if found is None:
            found = known[token] = _piece_spans(token, low[start:end], c.plain)
        spans += [(start + a, start + b) for a, b in found]
    return _cut(data, spans) if spans else data


def _token(data: bytes, at: int, alphabet: bytes) -> tuple[int, int]:
    """The run of ``alphabet`` around ``at``, at most :data:`_TOKEN_REACH` each way; a
    short window first, so a short token costs a short look."""
    floor, ceiling = max(0, at - _TOKEN_REACH), min(len(data), at + _TOKEN_REACH)
    lo, hi = max(floor, at - 64), min(ceiling, at + 64)
    start = lo + len(data[lo:at].rstrip(alphabet))
    if start == lo:
        start = floor + len(data[floor:at].rstrip(alphabet))
    end = hi - len(data[at:hi].lstrip(alphabet))
    if end == hi:
        end = ceiling - len(data[at:ceiling].lstrip(alphabet))
    return start, end


def _piece_spans(token: bytes, low: bytes, plain: tuple[bytes, ...]) -> list[tuple[int, int]]:
    """Which parts of ``token`` (``low``: lower-cased) are pieces of a secret: the whole of
    it inside one, its end one's start, its start one's end; distinct pieces only."""
    spans = []
    for s in plain:
        if low in s and _distinct(token, MIN_SECRET):
            return [(0, len(low))]
        k = _left(low, len(low), (s,))  # the longest end of it that begins s
        if k > KEEP and _distinct(token[-k:], KEEP + 1):
            spans.append((len(low) - k, len(low)))
        k = _right(low, 0, (s,))  # the longest start of it that ends s
        if k > KEEP and _distinct(token[:k], KEEP + 1):
            spans.append((0, k))
    return spans


def _distinct(piece: bytes, least: int) -> bool:
    """Is a piece of a secret distinct enough to be masked wherever it stands? A key's
    random part is: a digit, or both cases past its first letter. A word-like piece
    (``stream`` of ``sk-replay-upstream``, ``password`` of a password) stands in ordinary
    text and paths too, and is masked only when long."""
    if len(piece) < least:
        return False
    if len(piece) >= 16 or any(48 <= b <= 57 for b in piece):
        return True
    inner = piece[1:]  # a capital first letter is a word's (``Password``), not a key's
    return inner.lower() != inner and piece.upper() != piece


def _left(low: bytes, at: int, plain: tuple[bytes, ...]) -> int:
    """How many bytes before ``at`` are the first characters of a secret (``low``: the data
    lower-cased)."""
    best = 0
    for s in plain:
        i = low.find(s[:1], max(0, at - len(s)), at)
        while i != -1:  # the earliest start that fits is the longest
            if s.startswith(low[i:at]):
                best = max(best, at - i)
                break
            i = low.find(s[:1], i + 1, at)
    return best


def _right(low: bytes, at: int, plain: tuple[bytes, ...]) -> int:
    """How many bytes from ``at`` on are the last characters of a secret."""
    best = 0
    first = low[at : at + 1]
    if not first:
        return 0
    for s in plain:
        j = s.find(first)
        while j != -1:  # the earliest place in the secret is the longest end
            if low.startswith(s[j:], at):
                best = max(best, len(s) - j)
                break
            j = s.find(first, j + 1)
    return best


def _echoes(data: bytes, c: Compiled) -> bytes:
    """Masked echoes that show more than KEEP characters of a secret around a mask run."""
    spans = []
    low = data.lower()
    runs = sorted((m for r in _MASK_RUNS for m in r.finditer(data)), key=lambda m: m.start())
    for run in runs:  # the kinds share no byte: their runs never overlap
        left = _left(low, run.start(), c.plain)
        right = _right(low, run.end(), c.plain)
        if left + right > KEEP:
            spans.append((run.start() - left, run.end() + right))
    return _cut(data, spans) if spans else data


def mask_bytes(data: bytes, c: Compiled) -> bytes:
    """``data`` masked (the same object when it held nothing to mask)."""
    if not c.forms or not data:
        return data
    low = data.lower()
    spans = _whole(data, low, c)
    if spans:
        data = _cut(data, spans)
        low = data.lower()
    if any(g in low for g in c.grams):
        data = _pieces(data, low, c)
    if b"***" in data or b"..." in data or b"\xe2\x80" in data:
        data = _echoes(data, c)
    return data


def hold(data: bytes, c: Compiled) -> int:
    """How many bytes at the end of ``data`` could begin a secret's form (escaped or
    not) or complete a masked echo: kept back until the next write shows more. Only
    the trailing run of bytes a form can be written with is looked at, once."""
    if not c.forms or not data:
        return 0
    n = len(data)
    base = max(0, n - c.longest)
    low = data[base:].lower()
    held = 0
    partial = _PARTIAL_ESC.search(low, max(0, len(low) - 8))
    if partial is not None and partial.start() < len(low):
        held = len(low) - partial.start()
    stop = len(low) - held
    start = len(low[:stop].rstrip(c.chars))  # a form's start lies in this run
    if start < stop:
        tail = low[start:stop]
        norm = c.escapes.decode(tail)
        at = _prefix_at(norm, c.forms)
        if at is not None:
            at = at if norm is tail else _origin(tail, c.escapes)(at)
            held = max(held, len(low) - start - at)
    token = len(data) - base - len(data[base:].rstrip(c.alphabet))
    if token:  # a token the next write may go on with: a piece of a secret?
        piece = low[len(low) - token :]
        if any(piece in p for p in c.plain):
            held = max(held, token)
    end = data[-KEEP - 1 :]
    echo = None
    if b"*" in end or b"." in end or b"\xe2" in end:
        echo = _TRAILING_ECHO.search(data, max(base, n - 256))
    if echo is not None:
        w = max(0, echo.start() - c.longest)
        left = _left(data[w:].lower(), echo.start() - w, c.plain)
        if left:
            held = max(held, n - echo.start() + left)
    if held:  # never cut through a form written whole (the rest of a token held)
        cut = n - held
        lo = max(0, cut - c.longest)
        window = data[lo:]
        for a, b in sorted(_whole(window, window.lower(), c), reverse=True):
            if lo + a < cut < lo + b:
                cut = lo + a
        held = n - cut
    return held
