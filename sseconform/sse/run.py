"""A run of events that fit a template, as the byte lane hands it to its user: how many,
their value literals, sequence numbers and number holes, and their texts decoded once for
the whole run (``template.py`` finds the run).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["NONE", "Run", "run_of"]


class Run:
    """Consecutive events that fit a template: how many, their value literals (quotes and
    all), their sequence numbers (none when the template has no number)."""

    __slots__ = (
        "_all", "_joined", "_raw", "literals", "loads", "n", "numbers", "plain", "seqs", "size",
    )  # fmt: skip

    def __init__(
        self,
        n: int,
        seqs: list[int],
        text: str | None,
        literals: list[bytes],
        *,
        plain: bool,
        loads: Callable[[bytes], Any] | None = None,
        raw: bytes | None = None,
        joined: str | None = None,
    ) -> None:
        self.n = n
        self.seqs = seqs
        self._all = text  # every value, one after the other, when known
        self._raw = raw  # the literals, one after the other
        self._joined = joined  # the same decoded, when plain
        self.literals = literals
        self.plain = plain  # no literal holds an escape: each one's text is what lies between
        self.loads = loads  # the parser of the escaped ones
        #: the bytes of the run's events, blank lines too, when the matcher knows them
        self.size: int | None = None
        #: each number hole's values (counts that grow), one list a hole, in the data's order
        self.numbers: list[list[int]] = []

    @classmethod
    def one(cls, text: str, seq: int, numbers: tuple[int, ...] = ()) -> Run:
        """A single delta matched on its decoded data (its value's text, its number holes'
        values)."""
        run = cls(1, [seq], text, [], plain=False)
        run.numbers = [[n] for n in numbers]
        return run

    def raw(self) -> bytes:
        """The literals, one after the other."""
        if self._raw is None:
            self._raw = b"".join(self.literals)
        return self._raw

    def texts(self) -> list[str]:
        """Each value on its own."""
        if not self.literals:
            return [] if self._all is None else [self._all]
        if self.plain:
            return [lit[1:-1].decode() for lit in self.literals]
        return self._parsed(self.literals)

    def text(self, k: int) -> str:
        """The first ``k`` values, one after the other."""
        if k == self.n:
            if self._all is None and self._joined is not None:
                self._all = self._joined.replace('"', "")
            if self._all is not None:
                return self._all
        if self.plain:  # plain literals hold no quote but their own two
            return b"".join(self.literals[:k]).decode().replace('"', "")
        return "".join(self._parsed(self.literals[:k]))

    def _parsed(self, literals: list[bytes]) -> list[str]:
        """The values of valid literals, parsed at once (as one JSON array)."""
        loads = self.loads
        assert loads is not None
        values: list[str] = loads(b"[" + b",".join(literals) + b"]")
        return values


#: No event fits.
NONE = Run(0, [], None, [], plain=True)


def run_of(
    literals: list[bytes], seqs: list[int], others: list[bytes], loads: Callable[[bytes], Any]
) -> Run:
    """The run of ``literals`` (each one JSON string, as the matcher proved) that are UTF-8,
    from the first (``others``, the padding, too): one decode of them all, else each on its
    own up to the first that is not."""
    n = len(literals)
    raw = b"".join(literals)
    try:
        joined = raw.decode()
        if others:
            b"".join(others).decode()
    except UnicodeDecodeError:
        pass
    else:
        plain = "\\" not in joined
        got = joined if plain else None
        return Run(n, seqs, None, literals, plain=plain, loads=loads, raw=raw, joined=got)
    k = 0
    plain = True
    while k < n:
        lit = literals[k]
        try:
            lit.decode()
            if others:
                others[k].decode()
        except UnicodeDecodeError:
            break
        plain = plain and b"\\" not in lit
        k += 1
    return Run(k, seqs[:k], None, literals[:k], plain=plain, loads=loads)
