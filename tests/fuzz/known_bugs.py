"""Open product bugs the fuzz tests found, so the properties can step over them and keep looking.

Empty today: every bug found so far is fixed (see ``test_regressions.py``). A new one gets a
strict-xfail regression test with its minimal input (``open_bug``) and an entry here. When it
is fixed that test passes, which fails the run (strict): make it a plain test and delete the
entry, so the property guards the fix from then on.

A crash is matched by its exception type and the product file it was raised from (the
innermost ``sseconform/`` frame of the traceback), not by line or function: product code is
being edited, and a new crash of the same kind in the same file is most likely the same bug.
A diagnostic in a translation is matched by its code and a pattern for its JSON pointer.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass

from sseconform.findings import Finding


@dataclass(frozen=True)
class KnownCrash:
    bug: str
    types: tuple[type[BaseException], ...]
    file: str  # path below sseconform/
    what: str


#: e.g. KnownCrash("B20", (TypeError,), "translate/gemini.py", "what it is, minimal input")
KNOWN_CRASHES: tuple[KnownCrash, ...] = ()


def _product_file(exc: BaseException) -> str | None:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/sseconform/" in f.filename]
    if not frames:
        return None
    return frames[-1].filename.replace("\\", "/").rsplit("/sseconform/", 1)[1]


def known_crash(exc: BaseException) -> KnownCrash | None:
    """The known bug ``exc`` is an instance of, or None (a new bug: let it fail the test)."""
    where = _product_file(exc)
    for k in KNOWN_CRASHES:
        if where == k.file and isinstance(exc, k.types):
            return k
    return None


#: (bug, code, pointer pattern), e.g. ("B21", "J003", re.compile(r"/model"))
KNOWN_OUTPUT: tuple[tuple[str, str, re.Pattern[str]], ...] = ()


def known_output(d: Finding) -> str | None:
    for bug, code, pointer in KNOWN_OUTPUT:
        if d.code == code and pointer.fullmatch(d.pointer):
            return bug
    return None
