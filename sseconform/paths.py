"""The files a command is given: as named, directories walked for stream files, globs
(``**`` too) expanded. A symlink loop under a directory or a ``**`` is walked once and
skipped with a warning, and a file reached twice through links is checked once: a tree
someone else made can neither hang the walk nor multiply its findings.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from sseconform.errors import InputError
from sseconform.recording.format import looks_like_recording

__all__ = ["STREAM_SUFFIXES", "expand_paths"]

STREAM_SUFFIXES = (".sse", ".jsonl", ".json", ".txt", ".events")


def expand_paths(args: Iterable[str], warn: Callable[[str], None] | None = None) -> Iterator[str]:
    """Files as given, directories walked for stream files, globs expanded; in a stable
    order, each file once. ``warn`` hears of each symlink loop skipped."""
    seen: set[str] = set()
    for arg in args:
        if arg == "-":
            yield arg
            continue
        if glob.has_magic(arg) and not os.path.exists(arg):
            matches = _glob(arg, warn)
            if not matches:
                raise InputError("no file matches", arg)
            found = [f for m in matches for f in _files(m, warn)]
        elif os.path.isdir(arg):
            found = _stream_files(arg, warn)
            if not found:
                raise InputError("no stream files (*.sse or recordings) in this directory", arg)
        else:
            yield arg  # named: checked as often as it is named
            continue
        for f in found:  # found: each file once, however many links lead to it
            key = os.path.realpath(f)
            if key not in seen:
                seen.add(key)
                yield f


def _files(match: str, warn: Callable[[str], None] | None) -> list[str]:
    """A glob's match: a file, or a directory's stream files."""
    return [match] if not os.path.isdir(match) else _stream_files(match, warn)


def _stream_files(root: str, warn: Callable[[str], None] | None) -> list[str]:
    """The stream files (.sse, recordings) under a directory."""
    return [
        f
        for f in _walk(root, warn)
        if Path(f).suffix.lower() in STREAM_SUFFIXES and _is_stream_file(f)
    ]


def _walk(root: str, warn: Callable[[str], None] | None) -> list[str]:
    """Every file under ``root``, sorted; a directory already walked (a link back up the
    tree, or a second link to it) is skipped."""
    visited: set[tuple[int, int]] = set()
    out: list[str] = []
    for top, dirs, files in os.walk(root, followlinks=True):
        st = os.stat(top)
        if (st.st_dev, st.st_ino) in visited:
            dirs[:] = []
            if warn is not None and os.path.islink(top):
                warn(f"{top}: a symlink to a directory already walked (a loop?): skipped")
            continue
        visited.add((st.st_dev, st.st_ino))
        dirs.sort()
        out += [os.path.join(top, f) for f in files]
    return sorted(out)


def _glob(pattern: str, warn: Callable[[str], None] | None) -> list[str]:
    """``pattern`` expanded as :mod:`glob` does (``**`` any depth, a leading dot matched
    only by a leading dot), but walking the tree itself, so a symlink loop ends."""
    if "**" not in pattern:
        return sorted(glob.glob(pattern))
    parts = pattern.split("/")
    fixed: list[str] = []
    for p in parts:
        if glob.has_magic(p):
            break
        fixed.append(p)
    root = "/".join(fixed) or "."
    if fixed == [""]:
        root = "/"
    rest = re.compile(_regex(parts[len(fixed) :]))
    prefix = "" if root == "." and not pattern.startswith("./") else root.rstrip("/") + "/"
    out = []
    for f in _walk(root, warn):
        rel = os.path.relpath(f, root)
        if rest.fullmatch(rel.replace(os.sep, "/")):
            out.append(prefix + rel if prefix else rel)
    return sorted(out)


def _regex(parts: list[str]) -> str:
    """Path components of a glob as a regular expression over a relative path."""
    out = ""
    for i, p in enumerate(parts):
        last = i == len(parts) - 1
        if p == "**":
            out += "(?:(?!\\.)[^/]+/)*" if not last else "(?:(?!\\.)[^/]+/)*(?!\\.)[^/]+"
            continue
        out += ("" if p.startswith(".") else "(?!\\.)") + _component(p) + ("" if last else "/")
    return out


def _component(p: str) -> str:
    """One path component's glob (``*``, ``?``, ``[...]``) as a regular expression."""
    out, i = "", 0
    while i < len(p):
        ch = p[i]
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "[" and (j := p.find("]", i + 2)) > 0:
            inner = p[i + 1 : j]
            inner = "^" + inner[1:] if inner.startswith("!") else inner
            out += "[" + inner.replace("\\", "\\\\") + "]"
            i = j
        else:
            out += re.escape(ch)
        i += 1
    return out


def _is_stream_file(f: str) -> bool:
    """In a directory, take .sse files and recordings; skip other JSON and text."""
    if f.lower().endswith(".sse"):
        return True
    try:
        with open(f, "rb") as fp:
            return looks_like_recording(fp.read(64))
    except OSError:
        return False
