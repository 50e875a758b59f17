"""The assertions the matrix tests share: a client's fresh run against the committed file."""

from __future__ import annotations

import os
from typing import Any

from tests.interop.matrix.cases import discover
from tests.interop.matrix.clients import Client
from tests.interop.matrix.outcome import OK
from tests.interop.matrix.reading import expectations
from tests.interop.matrix.run import REFRESH, digest, load, measure

#: Run a heavy client over every case, not only the changed ones and the sample.
FULL = os.environ.get("SSECONFORM_HEAVY_FULL") == "1"
#: Run a sampled light client (``Client.sampled``) over every case too.
TESTS_FULL = os.environ.get("SSECONFORM_TESTS_FULL") == "1"


def heavy_subset(grammar: str, client: Client, committed: dict[str, Any]) -> frozenset[str]:
    """The cases a heavy client is run over when its committed rows are for the version it is
    pinned at: every case whose bytes or corrections changed since they were measured (or that
    has no row), and the first ``client.sample`` unchanged cases of each outcome. A whole CLI run
    costs seconds of CPU, and a pinned client reads the same bytes the same way (a full run,
    ``SSECONFORM_HEAVY_FULL=1`` or the refresh command, shows it)."""
    fixes = expectations(grammar)
    rows = committed["cases"]
    changed: set[str] = set()
    kept: dict[str, list[str]] = {}
    for case in discover(grammar):
        if client.cases is not None and case.id not in client.cases:
            continue
        row = rows.get(case.id)
        if row is None or row.get("sha") != digest(case, fixes.get(case.id, {})):
            changed.add(case.id)
        else:
            kept.setdefault(row["outcome"], []).append(case.id)
    sample = {case for ids in kept.values() for case in sorted(ids)[: client.sample]}
    return frozenset(changed | sample)


def problems(grammar: str, client: Client) -> list[str]:
    """Everything wrong with the committed matrix for one client, as sentences (none: fine).

    The committed outcomes must equal a fresh run's, case for case, at the same version (for a
    heavy client at its committed version: the cases :func:`heavy_subset` picks); every pass
    case must be ``ok`` unless ``expect/<grammar>.json`` lists it as ``known`` for the client,
    and a listed case that is ``ok`` now is a stale entry.
    """
    heavy = " --heavy" if client.heavy else ""
    refresh = f"{REFRESH} --grammar {grammar} --clients {client.name}{heavy}"
    committed = load(grammar)["clients"].get(client.name)
    if committed is None:
        return [
            f"tests/interop/matrix/{grammar}.json has no entry for {client.name}: run {refresh}"
        ]
    only = None
    same = committed["client"].get("version") == client.version()
    if same and ((client.heavy and not FULL) or (client.sampled and not (FULL or TESTS_FULL))):
        only = heavy_subset(grammar, client, committed)
    entries, missing = measure(grammar, [client], only=only)
    if missing:
        return missing
    fresh: dict[str, Any] = entries[client.name]
    out = []
    if committed["client"] != fresh["client"]:
        out.append(f"version {committed['client']} committed, {fresh['client']} ran: run {refresh}")
    was = {case: r["outcome"] for case, r in committed["cases"].items()}
    now = {case: r["outcome"] for case, r in fresh["cases"].items()}
    ran = set(now) if only is not None else set(was) | set(now)
    for case in sorted(ran):
        if was.get(case) != now.get(case):
            out.append(
                f"{case}: committed {was.get(case)}, now {now.get(case)} "
                f"({fresh['cases'].get(case, {}).get('detail', '')}): run {refresh}"
            )
    cases = {c.id for c in discover(grammar)}
    gone = sorted(set(was) - cases)
    if gone:
        out.append(f"rows for cases that no longer exist: {', '.join(gone)}: run {refresh}")
    rows = {**committed["cases"], **fresh["cases"]}
    known = {case: fix.get("known", {}) for case, fix in expectations(grammar).items()}
    for case, result in sorted(rows.items()):
        listed = client.name in known.get(case, {})
        if case.startswith("pass/") and result["outcome"] != OK and not listed:
            out.append(f"{case} is a passing case, but {client.name}: {result['detail']}")
        if listed and result["outcome"] == OK:
            out.append(f"{case} is ok now: drop {client.name} from its known list in expect/")
    return out
