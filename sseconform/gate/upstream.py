"""The upstream's side of a suite: each scenario's recording as the replay server serves it
(native, or translated to chunks as an OpenAI-compatible upstream would send it), loaded once,
and the replay rules that make the upstream answer a scenario's request with it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from sseconform import providers
from sseconform.gate.scenario import Scenario
from sseconform.replay.plan import Loaded, load
from sseconform.replay.scenario import ReplayRule
from sseconform.translate import translate_reads

__all__ = ["Upstream", "as_served", "quiet", "rules_for", "spread", "translated"]


def translated(rec: Loaded, dialect: str, usage: bool) -> Loaded:
    """A native recording served as an OpenAI-compatible upstream would: translated to chunks
    by the reference translator, at the native events' times."""
    reads = translate_reads(rec.reads, dialect, status=rec.status, include_usage=usage)
    suffix = ".chunks+usage" if usage else ".chunks"
    return Loaded(
        rec.name + suffix,
        rec.path + suffix,
        providers.OPENAI,
        rec.model,
        200,
        "OK",
        [("content-type", "text/event-stream")],
        rec.t_head,
        reads,
        rec.complete,
    )


def spread(rec: Loaded, seconds: float) -> Loaded:
    """The recording's reads re-timed evenly over ``seconds`` after its head: content that
    arrives over time, so a gateway that buffers it cannot hide."""
    n = len(rec.reads)
    step = seconds / max(n - 1, 1)
    reads = [(rec.t_head + i * step, data) for i, (_, data) in enumerate(rec.reads)]
    return dataclasses.replace(rec, name=f"{rec.name}.spread{seconds:g}", reads=reads)


def quiet(rec: Loaded, seconds: float, after: int, dialect: str | None) -> Loaded:
    """The upstream goes quiet for ``seconds`` after read ``after`` (as while it thinks),
    sending only what its provider sends then (:data:`providers.KEEPALIVE`, once a second);
    the later reads keep their spacing."""
    keep = providers.KEEPALIVE.get(dialect or "")
    reads = rec.reads[:after]
    t = reads[-1][0] if reads else rec.t_head
    if keep is not None:
        reads += [(t + k, keep) for k in range(1, int(seconds) + 1) if k < seconds]
    reads += [(rt + seconds, data) for rt, data in rec.reads[after:]]
    name = f"{rec.name}.quiet{seconds:g}@{after}"
    return dataclasses.replace(rec, name=name, reads=reads)


def as_served(sc: Scenario, rec: Loaded) -> Loaded:
    """``rec`` as the scenario's upstream sends it: re-timed (``spread``), with a quiet
    spell (``quiet``), translated when the scenario says so."""
    dialect = sc.upstream or rec.dialect or providers.OPENAI
    if sc.spread is not None:
        rec = spread(rec, sc.spread)
    if sc.quiet is not None:
        rec = quiet(rec, sc.quiet[0], sc.quiet[1], dialect)
    if not sc.translate:
        return rec
    return translated(rec, dialect, sc.usage)


def rules_for(sc: Scenario, rec: Loaded) -> list[ReplayRule]:
    """The replay rules for one request of the scenario: its fault on the first
    ``fault_times`` requests, the clean recording after them (a retry)."""
    dialect = sc.served_dialect
    assert dialect is not None
    rules = [ReplayRule(recording=rec.name, path=dialect, fault=sc.fault, times=sc.fault_times)]
    if sc.fault_times is not None:
        rules.append(ReplayRule(recording=rec.name, path=dialect))
    return rules


class Upstream:
    """The recordings a suite's scenarios need, loaded once (translated ones built in memory);
    a scenario with no ``upstream`` dialect takes its recording's."""

    def __init__(self, scenarios: Iterable[Scenario]) -> None:
        self.by_scenario: dict[str, Loaded] = {}
        #: a conversation's later turns' recordings, in order (see ``Scenario.turns``)
        self.turns: dict[str, list[Loaded]] = {}
        self._loaded: dict[str, Loaded] = {}
        for sc in scenarios:
            rec = load(sc.recording)
            if sc.upstream is None:
                sc.upstream = rec.dialect or providers.OPENAI
            self.by_scenario[sc.name] = self._keep(as_served(sc, rec))
            self.turns[sc.name] = [
                self._keep(as_served(sc, load(turn.recording))) for turn in sc.turns
            ]
        self.all = list(self._loaded.values())

    def _keep(self, rec: Loaded) -> Loaded:
        """``rec`` under a name no other recording of the suite has (two files of one name
        in two folders are two recordings)."""
        key = rec.name
        if key in self._loaded and self._loaded[key].path != rec.path:
            key = f"{len(self._loaded)}-{rec.name}"
            rec = dataclasses.replace(rec, name=key)
        return self._loaded.setdefault(key, rec)
