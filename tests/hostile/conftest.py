"""The hostile peer every test file here talks to: one per file, on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hostile.peers import hostile_peer


@pytest.fixture(scope="module")
def peer() -> Iterator[str]:
    with hostile_peer() as url:
        yield url
