"""sseconform's pytest plugin, for teams who gate from their own test suite.

Registered as the ``sseconform`` pytest11 entry point, so installing sseconform is enough:

- ``assert_conforms(stream)``: a stream (path, recording or bytes) passes ``check``;
  the assertion message lists every finding with its code and location;
- ``assert_same_content(upstream, gateway)``: the gateway's stream means what the upstream
  sent (``sseconform diff``);
- ``@pytest.mark.sseconform_streams("folder")`` with a ``sseconform_stream`` argument: the test
  runs once per stream file in the folder (ids are the file names); ``streams("folder")``
  gives the same list for ``pytest.mark.parametrize``;
- the ``sseconform_replay`` fixture starts a replay upstream on 127.0.0.1 for the test:
  ``server = sseconform_replay("a.jsonl", speed=0)``; ``server.url``; stopped afterwards.

Everything heavy is imported when used, so the plugin costs nothing to a test run that does
not use it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["assert_conforms", "assert_same_content", "streams"]

MARKER = "sseconform_streams"


def streams(folder: str | os.PathLike[str], pattern: str = "*") -> list[Path]:
    """The stream files (recordings and raw bodies) in ``folder``, sorted, recursively."""
    from sseconform.paths import expand_paths

    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a folder of streams")
    return [Path(p) for p in expand_paths([str(root)]) if Path(p).match(pattern)]


def _read(stream: str | os.PathLike[str] | bytes) -> tuple[str, list[bytes]]:
    from sseconform.replay.plan import load

    if isinstance(stream, bytes):
        return "<bytes>", [stream]
    loaded = load(os.fspath(stream))
    return os.fspath(stream), [b for _, b in loaded.reads]


def assert_conforms(
    stream: str | os.PathLike[str] | bytes,
    *,
    strict: bool = False,
    allow: tuple[str, ...] | list[str] = (),
) -> None:
    """Fail unless ``stream`` has no error (``strict``: and no warning) outside ``allow``."""
    from sseconform.api import check_bytes, check_file
    from sseconform.report.text import line_for
    from sseconform.rules.catalog import Severity

    if isinstance(stream, bytes):
        result = check_bytes(stream, path="<bytes>")
    else:
        result = check_file(os.fspath(stream))
    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    bad = [d for d in result.findings if d.severity in failing and d.code not in allow]
    if bad:
        lines = "\n".join(line_for(result.path, d, result.kind) for d in bad)
        raise AssertionError(f"{result.path}: {len(bad)} finding(s)\n{lines}")


def assert_same_content(
    upstream: str | os.PathLike[str] | bytes,
    gateway: str | os.PathLike[str] | bytes,
    *,
    dialect: str | None = None,
    usage: bool = False,
    prefix: bool = False,
) -> None:
    """Fail unless ``gateway`` carries what ``upstream`` sent (text, reasoning, calls, finish,
    and usage when asked); ``prefix``: the upstream failed, the gateway may stop short."""
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare

    a_name, a = _read(upstream)
    b_name, b = _read(gateway)
    diffs = compare(
        content_of(a, dialect), content_of(b, "openai"), usage=usage, prefix_only=prefix
    )
    if diffs:
        lines = "\n".join(
            f"{d.field}: {d.kind}: {d.message} (upstream {d.upstream}; gateway {d.gateway})"
            for d in diffs
        )
        raise AssertionError(f"{b_name} differs from {a_name}:\n{lines}")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(folder, pattern='*'): run the test once per stream file in folder, "
        "passed as the sseconform_stream argument",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None or "sseconform_stream" not in metafunc.fixturenames:
        return
    folder = Path(marker.args[0])
    if not folder.is_absolute():
        folder = Path(str(metafunc.config.rootpath)) / folder
    files = streams(folder, *marker.args[1:2])
    metafunc.parametrize("sseconform_stream", files, ids=[str(f.name) for f in files])


@pytest.fixture
def sseconform_replay() -> Iterator[Callable[..., Any]]:
    """Start replay upstreams on 127.0.0.1 for this test: ``sseconform_replay(*files, **opts)``."""
    from contextlib import ExitStack

    from sseconform.replay.plan import load
    from sseconform.replay.server import ReplayServer

    with ExitStack() as stack:

        def start(*files: str | os.PathLike[str], **options: Any) -> ReplayServer:
            server = ReplayServer([load(os.fspath(f)) for f in files], **options)
            if not ReplayServer.is_loopback(server.host):
                raise ValueError("the sseconform_replay fixture serves on loopback only")
            return stack.enter_context(server.running())

        yield start
