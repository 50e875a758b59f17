"""The rule case folders (``tests/cases``) as the tests and the generators read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sseconform import Settings

__all__ = ["case_settings"]


def case_settings(case: Path) -> Settings:
    """A case folder's checker settings: the defaults, and its ``settings.json`` if it has one."""
    from sseconform import Settings  # here: importing the tests' conftest loads no checker

    s = Settings()
    extra = case / "settings.json"
    if extra.is_file():
        for key, value in json.loads(extra.read_text()).items():
            setattr(s, key, value)
    return s
