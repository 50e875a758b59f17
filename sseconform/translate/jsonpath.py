"""Gemini's streamed function arguments (``partialArgs``) turned into JSON text, incrementally.

Each record names a leaf by JSONPath (``$.recipe.ingredients[0].name``) and gives a value
(``stringValue`` possibly split over records with ``willContinue``, ``numberValue``,
``boolValue``, ``nullValue``). Records come in document order, so the text can be written as
they arrive: close the containers the new path leaves, open the ones it enters, write the
value. Memory is the open path, never the arguments.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TOKEN = re.compile(
    r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\[\"((?:[^\"\\]|\\.)*)\"\]"
)


def parse_path(path: str) -> list[str | int]:
    """``$.a.b[0]['c d']`` -> ``["a", "b", 0, "c d"]``; ValueError when it is not one."""
    if not path.startswith("$"):
        raise ValueError(f"not a JSONPath: {path!r}")
    out: list[str | int] = []
    pos = 1
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None:
            raise ValueError(f"not a simple JSONPath: {path!r}")
        name, index, single, double = m.groups()
        if index is not None:
            out.append(int(index))
        else:
            quoted = single if single is not None else double
            out.append(name if name is not None else _unescape(quoted))
        pos = m.end()
    return out


class ArgsBuilder:
    """Feed partialArgs records, get JSON text fragments; ``close()`` ends the document."""

    def __init__(self) -> None:
        self._path: list[str | int] = []  # the open containers' keys below the root
        self._kinds: list[str] = ["{"]  # "{" or "[" per open container, root first
        self._count: list[int] = [0]  # members written per open container
        self._string_open = False
        self._started = False
        self.closed = False

    def _open(self) -> str:
        if not self._started:
            self._started = True
            return "{"
        return ""

    def feed(self, record: dict[str, Any]) -> str:
        """JSON text for one record."""
        out = self._open()
        path = parse_path(str(record.get("jsonPath", "$")))
        if not path:
            raise ValueError("a partialArgs record for the root")
        parent, leaf = path[:-1], path[-1]
        continuing = self._string_open and self._path == path
        if not continuing:
            if self._string_open:  # a string left open by a record for another path
                out += '"'
                self._string_open = False
                self._path = self._path[:-1]  # the leaf is no container
            out += self._move_to(path)
            out += self._member(leaf, path)
        if "stringValue" in record:
            text = str(record["stringValue"])
            if not continuing:
                out += '"'
            out += json.dumps(text, ensure_ascii=False)[1:-1]
            if record.get("willContinue"):
                self._string_open = True
                self._path = path
            else:
                out += '"'
                self._string_open = False
                self._path = parent
        else:
            if "numberValue" in record:
                out += json.dumps(record["numberValue"])
            elif "boolValue" in record:
                out += "true" if record["boolValue"] else "false"
            else:
                out += "null"
            self._path = parent
        return out

    def _move_to(self, path: list[str | int]) -> str:
        """Close containers the leaf's path leaves and open the ones it enters; a container is
        an array when the key inside it is an index."""
        parent = path[:-1]
        out = ""
        common = 0
        while (
            common < len(self._path)
            and common < len(parent)
            and self._path[common] == parent[common]
        ):
            common += 1
        while len(self._path) > common:
            self._path.pop()
            out += "}" if self._kinds.pop() == "{" else "]"
            self._count.pop()
        for i in range(common, len(parent)):
            out += self._member(parent[i], parent[: i + 1])
            kind = "[" if isinstance(path[i + 1], int) else "{"
            out += kind
            self._kinds.append(kind)
            self._count.append(0)
            self._path.append(parent[i])
        return out

    def _member(self, key: str | int, full: list[str | int]) -> str:
        """The separator and key that come before a value in the innermost container."""
        out = "," if self._count[-1] else ""
        self._count[-1] += 1
        if self._kinds[-1] == "{":
            out += json.dumps(str(key), ensure_ascii=False) + ":"
        return out

    def close(self) -> str:
        """Close the open string and every container; the text is then one JSON document."""
        if self.closed:
            return ""
        self.closed = True
        out = self._open()
        if self._string_open:
            out += '"'
            self._string_open = False
        while self._kinds:
            out += "}" if self._kinds.pop() == "{" else "]"
        self._path.clear()
        return out


def _unescape(quoted: str) -> str:
    """A quoted JSONPath key's escapes (``\\'``, ``\\"``, ``\\\\``) resolved."""
    return re.sub(r"\\(.)", r"\1", quoted)
