"""The documentation site, built strictly once for every test that reads it
(tests/test_docs_site.py, tests/html/test_site_chromium.py): a build costs some 10 s of CPU.

``$SSECONFORM_DOCS_SITE``, when set, is a site already built from this tree with
``mkdocs build --strict``; else (as in ``.ci/run``) the first test worker to ask builds it
under the run's temporary folder, beside the other tests, and the others wait for it and
read the same one.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DOCS_SITE, ROOT

BUILT = ".sseconform-built"  # written last: a build that failed halfway is not taken


def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site's folder (an AssertionError with mkdocs' output if it does not build)."""
    given = os.environ.get("SSECONFORM_DOCS_SITE")
    if given:
        site = Path(given)
        assert (site / "index.html").is_file(), f"SSECONFORM_DOCS_SITE={given}: no site there"
        return site
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, shared by its workers
    site = base / DOCS_SITE
    with open(base / f"{DOCS_SITE}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker building it: wait, then read it
        if not (site / BUILT).is_file():
            env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
            run = subprocess.run(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
            assert run.returncode == 0, run.stderr[-3000:]
            (site / BUILT).write_text("")
    return site
