"""Headless Chromium as the docs build and the browser tests start it: one command line.

This machine's network is closed: without the background-networking flags Chromium's own
connections are refused many at a time, so every start turns them off; each run gets a
fresh profile. ``SSECONFORM_REQUIRE_CHROMIUM=1`` (CI) turns "not installed" into an error.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["FLAGS", "REQUIRED", "command", "find"]

#: Headless, no network of its own, nothing drawn but the page.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
#: The variable that makes a missing Chromium an error rather than a skip.
REQUIRED = "SSECONFORM_REQUIRE_CHROMIUM"


def find() -> str | None:
    """The Chromium binary, or None; raises RuntimeError when it is required and missing."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get(REQUIRED) == "1":
        raise RuntimeError(f"{REQUIRED}=1 but no chromium on PATH")
    return found


def command(binary: str, profile: Path | str, *args: str) -> list[str]:
    """The command line that runs ``binary`` headless with ``profile`` and ``args``."""
    return [binary, *FLAGS, f"--user-data-dir={profile}", *args]
