"""ARCHITECTURE.md's import rules, enforced: each layer imports only the layers below it."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "sseconform"

#: layer -> sseconform modules it may import (besides itself), and third-party packages.
ALLOWED: dict[str, tuple[set[str], set[str]]] = {
    "sse": (set(), set()),
    "recording": ({"mask", "websocket"}, {"orjson"}),
    "websocket": (set(), {"orjson"}),
    "rules": (
        {"sse", "errors", "safetext", "jsonstr", "providers", "websocket"},
        {"orjson", "jsonschema_rs"},
    ),
    "findings": ({"rules", "safetext"}, set()),
    "errors": (set(), set()),
    "model": (set(), set()),
    "wires": ({"sse", "model", "providers", "safetext"}, {"orjson"}),
    "api": (
        {"sse", "recording", "rules", "findings", "errors", "baseline", "providers", "websocket"},
        set(),
    ),
    "config": ({"rules", "errors"}, set()),
    "report": ({"api", "rules", "findings", "version", "safetext"}, set()),
    "version": (set(), set()),
    "safetext": (set(), set()),
    "mask": (set(), set()),
    "jsonstr": (set(), set()),
    "providers": (set(), set()),
    "baseline": ({"errors", "mask"}, set()),
    "paths": ({"errors", "recording"}, set()),
    "record": (
        {"recording", "sse", "version", "providers", "mask", "wires"},
        {"httpx", "h11", "wsproto"},
    ),
    "replay": (
        {"providers", "recording", "sse", "wires", "errors", "safetext", "websocket"},
        {"orjson", "wsproto"},
    ),
    "translate": ({"providers", "sse", "jsonstr", "wires"}, {"orjson"}),
    "gate": (
        {"sse", "model", "rules", "findings", "translate", "providers", "recording", "errors"}
        | {"safetext", "api", "record", "replay", "baseline", "version", "mask", "report"}
        | {"wires", "websocket"},
        {"orjson", "h11", "wsproto"},
    ),
    "load": (
        {"gate", "replay", "rules", "findings", "safetext", "errors", "recording", "providers"}
        | {"mask", "report"},
        {"orjson", "locust", "requests"},
    ),
    "html": ({"gate", "api", "rules", "findings", "safetext", "version"}, set()),
    "inspect": (
        {"sse", "model", "rules", "findings", "translate", "providers", "recording", "errors"}
        | {"safetext", "mask", "wires"},
        {"orjson", "rich"},
    ),
    "demo": ({"sse", "translate", "wires", "websocket"}, {"httpx", "wsproto"}),
    "cli": ({"*"}, {"typer", "rich"}),
    "pytest_plugin": ({"*"}, {"pytest"}),
    "__init__": ({"*"}, set()),
    "__main__": ({"cli"}, set()),
}


def _layer(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "sseconform":  # from sseconform import providers: a submodule
                out.update(f"sseconform.{a.name}" for a in node.names)
            else:
                out.add(node.module)
    return out


@pytest.mark.parametrize("path", sorted(PKG.rglob("*.py")), ids=lambda p: str(p.relative_to(PKG)))
def test_layer_imports(path: Path) -> None:
    layer = _layer(path)
    assert layer in ALLOWED, f"{layer} is not a layer in ARCHITECTURE.md"
    inner, third = ALLOWED[layer]
    for mod in _imports(path):
        top = mod.split(".")[0]
        if top == "sseconform":
            parts = mod.split(".")
            target = parts[1] if len(parts) > 1 else "__init__"
            assert target == layer or "*" in inner or target in inner, (
                f"{path.name}: layer {layer!r} may not import sseconform.{target}"
            )
        elif top not in sys.stdlib_module_names and top != "__future__":
            assert top in third, f"{path.name}: layer {layer!r} may not import {top}"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}


def _resolve(name: str) -> str | None:
    """The sseconform module an import names (a package is its ``__init__``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _edges(path: Path) -> tuple[set[str], list[str]]:
    """The sseconform modules ``path`` imports (at any depth of the file, type-only ones
    too), and the private names it takes from another module."""
    me = _module_name(path)
    out: set[str] = set()
    private: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("sseconform"):
                    target = _resolve(a.name)
                    if target:
                        out.add(target)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("sseconform"):
                continue
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full in MODULES:  # from sseconform.gate import report: a submodule
                    out.add(full)
                    continue
                target = _resolve(node.module)
                if target:
                    out.add(target)
                if a.name.startswith("_") and not a.name.startswith("__") and target != me:
                    private.append(f"{a.name} from {node.module}")
    out.discard(me)
    return out, private


GRAPH = {name: _edges(path)[0] for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    """No two modules import each other, directly or round a loop, even for types only or
    inside a function: a layer's modules stand in an order a reader can follow."""
    assert _cycles(GRAPH) == []


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("path", sorted(PKG.rglob("*.py")), ids=lambda p: str(p.relative_to(PKG)))
def test_no_private_imports(path: Path) -> None:
    """A module's ``_private`` names are its own: another module that needs one needs a
    public function instead."""
    assert _edges(path)[1] == []


def test_every_test_folder_is_in_the_architecture_note() -> None:
    """ARCHITECTURE.md says what each test folder holds: a new folder needs its line there."""
    tests = Path(__file__).resolve().parent
    note = (tests.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    folders = sorted(
        p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
    )
    missing = [f for f in folders if f"`tests/{f}/`" not in note]
    assert not missing, f"test folders ARCHITECTURE.md does not name: {missing}"


def test_no_module_is_past_all_reason() -> None:
    """One concept a module, however long it must be, is better than two halves: cohesion
    decides where code goes, not a line count. This only catches a module that has grown
    past anything one concept needs (the longest, a wire or a checker, are about 600)."""
    long = {
        str(p.relative_to(PKG)): n
        for p in PKG.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 1200
    }
    assert not long, f"modules over 1200 lines: {long}"


def test_no_two_classes_share_a_name() -> None:
    """One name, one class: a reader who meets ``Settings`` or ``Outcome`` knows which."""
    where: dict[str, list[str]] = {}
    for p in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(p.relative_to(PKG)))
    twice = {name: files for name, files in where.items() if len(files) > 1}
    assert len(where) > 100 and not twice, twice


def test_at_most_three_functions_are_excused_from_the_size_limits() -> None:
    """ruff's C901 and PLR0915 hold every function to complexity 20 and 60 statements; a
    hand-written parser's hot loop may be excused with a noqa that says why, three at most."""
    excused = [
        f"{p.relative_to(PKG)}:{i}"
        for p in PKG.rglob("*.py")
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "noqa: C901" in line or "noqa: PLR0915" in line
    ]
    assert len(excused) <= 3, excused
    for where in excused:
        path, line = where.rsplit(":", 1)
        text = (PKG / path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        assert "(" in text.split("noqa", 1)[1], f"{where}: a noqa here says why"


def _note_table() -> dict[str, set[str]]:
    """ARCHITECTURE.md's "Who may import whom": layer -> the sseconform layers it names."""
    note = (PKG.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = note.split("## Who may import whom", 1)[1].split("\n## ", 1)[0]
    out: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        layers = re.findall(r"`([a-z_]+)`", cells[0])
        said = re.sub(r"\([^)]*\)", "", cells[1])  # a reason in brackets names no layer
        names = {"*"} if said.startswith("anything") else set(re.findall(r"`([a-z_]+)`", said))
        for layer in layers:
            out[layer] = names - {layer}
    return out


def test_the_note_says_what_the_test_enforces() -> None:
    """The table a reader reads is the table this file enforces, row for row."""
    table = _note_table()
    assert table, "no table found under 'Who may import whom'"
    wrong = {}
    for layer, (allowed, _) in ALLOWED.items():
        if layer in ("__init__", "__main__"):
            continue
        if table.get(layer) != allowed - {layer}:
            wrong[layer] = (sorted(table.get(layer, {"<missing>"})), sorted(allowed - {layer}))
    assert wrong == {}, "ARCHITECTURE.md (left) and ALLOWED (right) disagree"
