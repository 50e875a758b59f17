"""The cases of each grammar, found afresh on every run, so new case folders join the matrix."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tools.cases import case_settings

ROOT = Path(__file__).resolve().parents[3]
CASES = ROOT / "tests" / "cases"
GRAMMARS = ("chat", "anthropic", "responses", "open-responses", "gemini")
#: Where each grammar keeps its ``pass/`` and ``fail/`` folders.
FOLDERS = {
    "chat": CASES,
    "anthropic": CASES / "anthropic",
    "responses": CASES / "responses",
    "open-responses": CASES / "open-responses",
    "gemini": CASES / "gemini",
}


@dataclass(frozen=True)
class Case:
    """One case folder: ``id`` is ``pass/<name>`` or ``fail/<name>``."""

    grammar: str
    id: str
    path: Path

    @property
    def body(self) -> bytes:
        return (self.path / "stream.sse").read_bytes()

    @property
    def codes(self) -> tuple[str, ...]:
        """The rule codes the case's ``expected.txt`` lists."""
        expected = self.path / "expected.txt"
        if not expected.is_file():
            return ()
        return tuple(ln.strip() for ln in expected.read_text().splitlines() if ln.strip())

    @property
    def key(self) -> str:
        """A URL-safe name for the case's route."""
        return re.sub(r"[^\w.-]", "_", f"{self.grammar}.{self.id.replace('/', '.')}")


def discover(grammar: str, root: Path | None = None) -> list[Case]:
    """Every ``fail/*`` then ``pass/*`` case of a grammar that has a ``stream.sse``, but a
    non-streaming answer's (``settings.json`` says ``whole``): the matrix serves streams,
    and google-genai's non-streaming call is measured on those in
    ``tests/grammars/test_gemini_whole.py``."""
    base = root if root is not None else FOLDERS[grammar]
    out = []
    for kind in ("fail", "pass"):
        folder = base / kind
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if (path / "stream.sse").is_file() and not case_settings(path).whole:
                out.append(Case(grammar, f"{kind}/{path.name}", path))
    return out
