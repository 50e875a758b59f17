"""Where a heavy client's install script put it: one folder per client outside the clone."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(variable: str, name: str) -> Path:
    """``$variable`` (the folder the install script printed, as CI exports it) or the script's
    default, ``name`` under TMPDIR."""
    return Path(os.environ.get(variable) or Path(os.environ.get("TMPDIR") or "/tmp") / name)
