"""One JSON string token, matched exactly as orjson accepts it.

Both the checker's and the translator's template memos rest on it: a frame equal to an
already parsed one but for string literals in known places parses to the same object with
other strings there, provided each literal is exactly one valid JSON string. Standard
library only.
"""

from __future__ import annotations

import re

#: No raw control characters, the standard escapes, \\u escapes that are not lone surrogates.
#: Written as a run of plain characters then (escape, plain run)*: a string with no escape,
#: nearly every one in a stream, is one character-class repeat.
_PLAIN = r'[^"\\\x00-\x1f]*+'
_ESCAPE = (
    r'(?:\\["\\/bfnrt]'
    r"|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4}"
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)
JSON_STRING = re.compile('"' + _PLAIN + "(?:" + _ESCAPE + _PLAIN + ')*+"')


def find_literal(data: str, key: str) -> tuple[int, int] | None:
    """The span of the one string literal that follows ``"key":``; None if none or several."""
    needle = f'"{key}":'
    found: tuple[int, int] | None = None
    i = data.find(needle)
    while i >= 0:
        start = i + len(needle)
        while start < len(data) and data[start] in " \t\r\n":
            start += 1
        m = JSON_STRING.match(data, start)
        if m is not None:
            if found is not None:
                return None  # two candidates: not worth proving which one
            found = (start, m.end())
        i = data.find(needle, i + 1)
    return found


def is_plain_literal(literal: str) -> bool:
    """A JSON string with nothing to unescape, proven by a few C-level string tests.

    Quotes only at both ends, no backslash, and every character printable (so no control
    character, which JSON forbids raw): then it is one valid JSON string, and its text between
    the quotes is its value. Anything else is left to JSON_STRING.
    """
    return (
        len(literal) >= 2
        and literal[0] == '"'
        and literal[-1] == '"'
        and literal.count('"') == 2
        and "\\" not in literal
        and literal.isprintable()
    )


#: JSON_STRING over bytes, for a lane that matches events before decoding them: bytes from
#: 0x80 up pass as they are, so a literal it takes must still be shown to be UTF-8.
JSON_STRING_BYTES = re.compile(JSON_STRING.pattern.encode())
