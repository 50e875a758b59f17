"""The assertions the matrix tests share: a client's fresh run against the committed file."""

from __future__ import annotations

from typing import Any

from tests.interop.matrix.clients import Client
from tests.interop.matrix.outcome import OK
from tests.interop.matrix.reading import expectations
from tests.interop.matrix.run import REFRESH, load, measure


def problems(grammar: str, client: Client) -> list[str]:
    """Everything wrong with the committed matrix for one client, as sentences (none: fine).

    The committed outcomes must equal a fresh run's, case for case, at the same version; every
    pass case must be ``ok`` unless ``expect/<grammar>.json`` lists it as ``known`` for the
    client, and a listed case that is ``ok`` now is a stale entry.
    """
    heavy = " --heavy" if client.heavy else ""
    refresh = f"{REFRESH} --grammar {grammar} --clients {client.name}{heavy}"
    entries, missing = measure(grammar, [client])
    if missing:
        return missing
    fresh: dict[str, Any] = entries[client.name]
    committed = load(grammar)["clients"].get(client.name)
    out = []
    if committed is None:
        return [
            f"tests/interop/matrix/{grammar}.json has no entry for {client.name}: run {refresh}"
        ]
    if committed["client"] != fresh["client"]:
        out.append(f"version {committed['client']} committed, {fresh['client']} ran: run {refresh}")
    was = {case: r["outcome"] for case, r in committed["cases"].items()}
    now = {case: r["outcome"] for case, r in fresh["cases"].items()}
    for case in sorted(set(was) | set(now)):
        if was.get(case) != now.get(case):
            out.append(
                f"{case}: committed {was.get(case)}, now {now.get(case)} "
                f"({fresh['cases'].get(case, {}).get('detail', '')}): run {refresh}"
            )
    known = {case: fix.get("known", {}) for case, fix in expectations(grammar).items()}
    for case, result in sorted(fresh["cases"].items()):
        listed = client.name in known.get(case, {})
        if case.startswith("pass/") and result["outcome"] != OK and not listed:
            out.append(f"{case} is a passing case, but {client.name}: {result['detail']}")
        if listed and result["outcome"] == OK:
            out.append(f"{case} is ok now: drop {client.name} from its known list in expect/")
    return out
