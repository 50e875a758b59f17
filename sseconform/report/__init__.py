"""Reporters: pure writers from check results to text. They never decide pass or fail alone:
``strict`` is handed in, so every format agrees with the exit code."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from sseconform.api import FileResult
from sseconform.report import github, jsonfmt, junit, sarif, text

Reporter = Callable[[Sequence[FileResult], TextIO, bool], None]

REPORTERS: dict[str, Reporter] = {
    "text": text.write,
    "json": jsonfmt.write,
    "junit": junit.write,
    "github": github.write,
    "sarif": sarif.write,
}


def get_reporter(name: str) -> Reporter:
    try:
        return REPORTERS[name]
    except KeyError:
        valid = ", ".join(REPORTERS)
        raise ValueError(f"unknown format {name!r}; valid formats: {valid}") from None
