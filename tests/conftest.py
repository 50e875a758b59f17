"""Shared fixtures: where the cases and the real-stream corpus live; the session's secret grep.

Every secret a test uses contains ``SECRET_MARK``. When the session ends, every file the tests
wrote under pytest's temporary folder, and every captured output, is searched for it - as is,
UTF-16, and base64 at the three alignments (a recording keeps binary reads as base64) - and the
run fails if it is anywhere. A test that keeps a secret on purpose names its file
``kept-secret*``.
"""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

import pytest

from tools.cases import case_settings as case_settings  # the case tests import it from here

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"


REAL_STREAMS = ROOT.parent / "shared" / "real-streams"
#: ``SSECONFORM_TESTS_FULL=1``: the tests that prove one thing over many near-identical inputs
#: (the real-stream corpus through the SDKs, the fast lane a byte at a time) run over all of
#: them; a run without it takes one input per distinct behaviour (each test's docstring says
#: which), as the heavy client matrices do (``SSECONFORM_HEAVY_FULL``).
TESTS_FULL = os.environ.get("SSECONFORM_TESTS_FULL") == "1"


@pytest.fixture
def real_streams() -> Path:
    if not (REAL_STREAMS / "MANIFEST.tsv").is_file():
        pytest.skip("../shared/real-streams is not present")
    return REAL_STREAMS


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per core. Most of the suite waits - on servers, gateways,
    recorded timing, subprocesses - so a worker per core leaves the cores idle: on CI's two
    cores the five slowest gate, record and load files take 204 s with two workers, 162 s
    with three and 119 s with four, and use under half the CPU with two. The smoke selection
    runs in the test process: it is one file, and workers would cost more than they save.
    So does a command line that names test files only: as many workers as files at most
    (``--dist loadfile`` gives a file to one worker), none for one file."""
    if _smoke(config):
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = 2 * (cores or 1)
    files = _named_files(config)
    if files is not None:  # ``--dist loadfile``: a file runs on one worker, so no more
        workers = min(workers, files)  # workers than files, and none for one file
        return 0 if workers <= 1 else workers
    return workers


def _named_files(config: pytest.Config) -> int | None:
    """How many test files the command line names, when it names only files (or tests in
    them); None when it names a folder or nothing (the whole suite)."""
    named = {str(a).split("::", 1)[0] for a in config.args}
    if not named or not all(n.endswith(".py") and Path(n).is_file() for n in named):
        return None
    return len(named)


#: Where the smoke selection lives (``-m smoke``): every command once, every grammar, one gate
#: run. ``-m smoke`` collects these files alone, as collecting the whole suite's 9,000 tests
#: costs some 20 s of its minute.
SMOKE_FILES = frozenset({"test_smoke.py"})


def _smoke(config: pytest.Config) -> bool:
    return str(config.getoption("markexpr", "") or "").strip() == "smoke"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m smoke``: a test file other than :data:`SMOKE_FILES` is not even collected."""
    if not _smoke(config) or not collection_path.name.startswith("test_"):
        return None
    if collection_path.suffix != ".py" or collection_path.name in SMOKE_FILES:
        return None
    return True


#: The slow groups, by the path of their tests (from tests/): each gets its marker and ``slow``.
SLOW_GROUPS: dict[str, tuple[str, ...]] = {
    "gateway": (
        "gate/test_litellm.py",
        "gate/test_portkey.py",
        "gate/test_ccr.py",
        "gate/test_lmnr_claude_code_proxy.py",
        "gate/test_nullplatform.py",
        "gate/test_profile_pages.py",
    ),
    "agents": ("interop/heavy/",),
    "browser": ("html/test_chromium.py", "html/test_site_chromium.py"),
    "locust": ("load/",),
    "integrations": ("integrations/", "test_pytest_plugin.py"),
}


#: The longest files, longest first (a CI run's durations, summed per file: tools/slowest_files.py
#: prints them at the end of .ci/run): they go to the
#: workers first, so the short files fill the cores around them instead of the run waiting at
#: its end on one long file that started late. ``--dist loadfile`` hands out files in
#: collection order with ``--no-loadscope-reorder`` (pyproject.toml): by default pytest-xdist
#: sorts them by their count of tests, which put the few-test gateway and agent files last.
FIRST = (
    "gate/test_litellm.py",  # four endpoints through a real LiteLLM: mostly waiting
    "gate/test_ccr.py",
    "translate/test_lane.py",  # the fast lane against the slow path, a byte at a time: CPU
    "translate/test_targets.py",
    "fuzz/test_properties.py",
    "gate/test_nullplatform.py",  # its two endpoints side by side
    "gate/test_websocket_mode.py",  # WebSocket mode through the demo gateway, timing at speed 1
    "interop/test_matrix.py",
    "record/test_record.py",
    "gate/test_timing.py",
    "gate/test_endpoints.py",
    "load/test_load.py",
    "interop/heavy/test_agent_turns.py",  # four agents, two turns each
    "hostile/test_masked_gate.py",
    "gate/test_concurrency.py",
    "gate/test_portkey.py",
    "translate/test_corpus.py",
    "cli/test_cli.py",
    "interop/heavy/test_heavy_opencode.py",
    "hostile/test_masked_outputs.py",
    "gate/test_profile_pages.py",
    "gate/test_gate.py",
    "gate/test_claude_code_proxy.py",
    "hostile/test_echoed_secrets.py",
    "gate/test_llm_proxy_server.py",
    "integrations/",
    "gate/test_slow_scenarios.py",
    "html/test_chromium.py",
    "gate/test_index_scenarios.py",
    "gate/test_timing_builtin.py",
    "gate/test_routing.py",
    "test_quickstart.py",  # two gates side by side, mostly waiting
    "interop/heavy/",
    "record/test_interrupts.py",
    "gate/test_non_streaming.py",
    "inspect/test_cli_inspect.py",
    "translate_diff/test_differential.py",
    "gate/test_verdicts.py",
    "replay/test_load.py",
    "test_smoke.py",
    "test_readme_examples.py",
    "gate/test_lmnr_claude_code_proxy.py",
)


def _rank(rel: str) -> int:
    return next((i for i, prefix in enumerate(FIRST) if rel.startswith(prefix)), len(FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow groups, so ``-m "not slow"`` (or ``-m "not gateway"``) leaves them out;
    the longest files first (:data:`FIRST`), each file's tests in their order."""
    ranks: dict[pytest.Item, int] = {}
    for item in items:
        rel = Path(str(item.path)).relative_to(ROOT / "tests").as_posix()
        ranks[item] = _rank(rel)
        for group, prefixes in SLOW_GROUPS.items():
            if rel.startswith(prefixes):
                item.add_marker(group)
                item.add_marker("slow")
    items.sort(key=ranks.__getitem__)  # stable: the order within a rank is kept


SECRET_MARK = "sk-test-SECRET"
#: The folder a test builds the documentation site in (its security guide names the mark).
DOCS_SITE = "docs-site"
_LEAKS: list[str] = []


def _secret_forms() -> list[bytes]:
    raw = SECRET_MARK.encode()
    forms = [raw, SECRET_MARK.encode("utf-16-le")]
    for pad in (b"", b"x", b"xx"):  # base64 of the mark at each alignment, edges trimmed
        enc = base64.b64encode(pad + raw)
        forms.append(enc[4 if pad else 0 : -4])
    return forms


def pytest_collection_finish(session: pytest.Session) -> None:
    """Locust patches the whole process with gevent when imported, which breaks every asyncio
    server the tests start in a thread; it must only ever run in its own process."""
    if "locust" in sys.modules or "gevent.monkey" in sys.modules:
        raise pytest.UsageError(
            "a test module imported locust/gevent into the test process; check it with "
            "importlib.util.find_spec and run Locust in a subprocess (sseconform load)"
        )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for name, text in report.sections:
        where = f"{report.nodeid}: {name}"
        if SECRET_MARK in text and where not in _LEAKS:
            _LEAKS.append(where)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: its files are under the controller's temp folder, read there
    factory = getattr(session.config, "_tmp_path_factory", None)
    base = getattr(factory, "_basetemp", None) if factory is not None else None
    if base is not None and Path(base).is_dir():
        forms = _secret_forms()
        for path in Path(base).rglob("*"):
            if not path.is_file() or path.is_symlink() or path.name.startswith("kept-secret"):
                continue
            if _is_test_input(path) or "site-packages" in path.parts or DOCS_SITE in path.parts:
                continue  # an installed package, the built docs: their security guide names it
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if any(f in data for f in forms):
                _LEAKS.append(str(path))
    if _LEAKS:
        print("\nsecret grep: a test secret was found in:", *_LEAKS, sep="\n  ")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _is_test_input(path: Path) -> bool:
    """Files a test wrote to feed sseconform (a request body holding a secret, on purpose)."""
    return path.suffix == ".input" or path.name.startswith("input-")


@pytest.fixture(autouse=True)
def _fresh_masker() -> object:
    """Each test starts with a run masker that knows no secret: one test's key, learned in
    this process, must not mask another test's output."""
    from sseconform.mask import RUN

    RUN.clear()
    yield
    RUN.clear()
