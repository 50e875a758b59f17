"""ARCHITECTURE.md's import rules, enforced: each layer imports only the layers below it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "sseconform"

#: layer -> sseconform modules it may import (besides itself), and third-party packages.
ALLOWED: dict[str, tuple[set[str], set[str]]] = {
    "sse": (set(), set()),
    "recording": (set(), {"orjson"}),
    "rules": (
        {"sse", "diagnostics", "errors", "safetext", "jsonstr", "providers"},
        {"orjson", "jsonschema_rs"},
    ),
    "diagnostics": ({"rules", "safetext"}, set()),
    "errors": (set(), set()),
    "model": ({"sse"}, {"orjson"}),
    "api": ({"sse", "recording", "rules", "diagnostics", "errors", "baseline"}, set()),
    "config": ({"rules", "errors"}, set()),
    "report": ({"api", "rules", "diagnostics", "version"}, set()),
    "version": (set(), set()),
    "safetext": (set(), set()),
    "jsonstr": (set(), set()),
    "providers": (set(), set()),
    "baseline": ({"errors"}, set()),
    "record": ({"recording", "sse", "version"}, {"httpx"}),
    "replay": ({"providers", "recording", "sse", "errors", "safetext"}, set()),
    "translate": ({"providers", "sse", "jsonstr"}, {"orjson"}),
    "gate": (
        {"sse", "model", "rules", "diagnostics", "translate", "providers", "recording", "errors"}
        | {"safetext", "api", "record", "replay", "baseline"},
        {"orjson"},
    ),
    "load": (
        {"gate", "replay", "rules", "diagnostics", "safetext"},
        {"orjson", "locust", "requests"},
    ),
    "html": ({"gate", "api", "rules", "diagnostics", "safetext", "version"}, set()),
    "inspect": (
        {"sse", "model", "rules", "diagnostics", "translate", "providers", "recording", "errors"}
        | {"safetext"},
        {"orjson", "rich"},
    ),
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
