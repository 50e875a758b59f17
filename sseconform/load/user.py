"""The Locust user: streams scenarios through the gateway and grades every stream as it
arrives. Each stream is one Locust request event (type ``SSE``, named by its scenario): a
nonconforming stream is a failure whose error is its failing finding keys, so Locust's own
stats, CSV and web UI show conformance beside latency.

Use it in your own locustfile::

    from sseconform.load.user import SseconformUser

    class Streams(SseconformUser):
        pass  # wait_time, weight, tasks of your own: as for any Locust user

and give it the run's settings in ``$SSECONFORM_LOAD_SETTINGS`` (a JSON file, as
``sseconform load --write-settings FILE`` writes it; the gateway key in
``$SSECONFORM_GATEWAY_KEY``). Distributed (``--master`` / ``--worker``), every process reads
the same settings; workers send their figures to the master, which writes the report.
"""

from __future__ import annotations

import os
import random
import threading
import time
from typing import Any

import orjson
import requests
from locust import LoadTestShape, User, constant, events, task
from locust.env import Environment
from locust.runners import MasterRunner, WorkerRunner

from sseconform.gate.prepared import Prepared
from sseconform.load.plan import LoadSettings, StreamOutcome, prepare
from sseconform.load.send import send
from sseconform.load.stats import LoadStats, level_broken
from sseconform.mask import RUN, environment_secrets, open_binary

#: This process writes the report: it masks what the command was given (the key comes in the
#: environment) before anything is graded.
RUN.add_all(environment_secrets())

__all__ = ["CapacitySteps", "Nonconforming", "SseconformUser"]

SETTINGS_ENV = "SSECONFORM_LOAD_SETTINGS"


class Nonconforming(Exception):
    """A stream that broke the grammar or changed the meaning: its failing finding keys."""


class _State:
    """This process's plan and figures, made once (at Locust's init)."""

    def __init__(self) -> None:
        self.settings: LoadSettings | None = None
        self.plan: list[Prepared] = []
        self.stats = LoadStats()
        self.lock = threading.Lock()
        self.environment: Environment | None = None

    def load(self) -> None:
        if self.settings is not None:
            return
        path = os.environ.get(SETTINGS_ENV)
        if not path:
            raise RuntimeError(f"${SETTINGS_ENV} is not set: the load run's settings file")
        with open(path, "rb") as fp:
            self.settings = LoadSettings.from_json(fp.read())
        self.plan = prepare(self.settings, os.environ.get("SSECONFORM_GATEWAY_KEY"))
        if not self.plan:
            raise RuntimeError("no applicable scenario in the load settings")


STATE = _State()


def _on_init(environment: Environment, **_: Any) -> None:
    STATE.environment = environment
    if isinstance(environment.runner, MasterRunner):
        return  # the master sends nothing: it adds up its workers' figures
    STATE.load()  # a bad settings file fails at start, not in every user


def _to_master(client_id: str, data: dict[str, Any], **_: Any) -> None:
    with STATE.lock:  # what this worker saw since its last report
        data["sseconform"] = STATE.stats.to_dict()
        STATE.stats = LoadStats()


def _from_worker(client_id: str, data: dict[str, Any], **_: Any) -> None:
    if "sseconform" in data:
        env = STATE.environment
        users = env.runner.user_count if env is not None and env.runner is not None else 0
        with STATE.lock:
            STATE.stats.merge(data["sseconform"])
            STATE.stats.users_at([int(k) for k in data["sseconform"]["timeline"]], users)


def _write_report(environment: Environment, **_: Any) -> None:
    if isinstance(environment.runner, WorkerRunner):
        return
    settings = STATE.settings
    if settings is None:
        path = os.environ.get(SETTINGS_ENV)
        if not path:
            return
        with open(path, "rb") as fp:
            settings = LoadSettings.from_json(fp.read())
    if not settings.report:
        return
    with STATE.lock:
        state = STATE.stats.to_dict()
        # the report a person reads (what ``load --render`` takes), and the raw state that
        # ``sseconform load`` adds its own figures to
        report = STATE.stats.report(
            settings={"gateway": settings.gateway, "locust": "distributed or by hand"}
        )
    with open_binary(settings.report) as fp:
        fp.write(orjson.dumps({**report, "state": state}))


events.init.add_listener(_on_init)  # type: ignore[no-untyped-call]
events.report_to_master.add_listener(_to_master)  # type: ignore[no-untyped-call]
events.worker_report.add_listener(_from_worker)  # type: ignore[no-untyped-call]
events.quitting.add_listener(_write_report)  # type: ignore[no-untyped-call]


class SseconformUser(User):
    """Picks a scenario at random, streams it through the gateway, grades it."""

    abstract = True
    wait_time = constant(0)

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.session = requests.Session()
        self.uid = f"{os.getpid()}-{id(self):x}"
        self.sent = 0

    def on_stop(self) -> None:
        self.session.close()

    @task
    def stream(self) -> None:
        STATE.load()
        sc = random.choice(STATE.plan)
        self.sent += 1
        outcome = self.send(sc, f"L{sc.index}.{self.uid}.{self.sent}")
        runner = self.environment.runner
        users = runner.user_count if runner is not None else 0
        with STATE.lock:
            STATE.stats.add(outcome, time.time(), users)
        self.environment.events.request.fire(
            request_type="SSE",
            name=sc.name,
            response_time=outcome.seconds * 1000,
            response_length=outcome.bytes,
            response=None,
            context={"ttft_ms": None if outcome.ttft is None else outcome.ttft * 1000},
            exception=None if outcome.conforming else Nonconforming(" ".join(outcome.errors)),
        )

    def send(self, sc: Prepared, tag: str) -> StreamOutcome:
        """One request, its stream read and graded piece by piece (never kept whole)."""
        speed = STATE.settings.speed if STATE.settings is not None else 1.0
        return send(self.session, sc, tag, speed)


class CapacitySteps(LoadTestShape):
    """``load --find-capacity``: the users in steps (``$SSECONFORM_LOAD_STEPS``, a JSON file:
    ``{"steps": [[users, seconds], ...], "budget_ms": ...}``), all of a step's users started
    at once; the run stops after the first step whose streams broke (one did not conform,
    or the overhead's p99 was over the budget), as this process's figures show them (the
    master's, when distributed)."""

    abstract = True

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        path = os.environ.get("SSECONFORM_LOAD_STEPS")
        if not path:
            raise RuntimeError("$SSECONFORM_LOAD_STEPS is not set: the capacity steps file")
        with open(path, "rb") as fp:
            raw = orjson.loads(fp.read())
        self.steps: list[tuple[int, int]] = [(int(u), int(s)) for u, s in raw["steps"]]
        budget_ms = raw.get("budget_ms")
        self.budget = None if budget_ms is None else float(budget_ms) / 1000
        self.checked = 0  # steps already judged

    def tick(self) -> tuple[int, float] | None:
        elapsed = float(self.get_run_time())  # type: ignore[no-untyped-call]
        end = 0.0
        for n, (users, seconds) in enumerate(self.steps):
            end += seconds
            if elapsed < end:
                if n > self.checked and self._broke(self.steps[n - 1][0]):
                    return None
                self.checked = max(self.checked, n)
                return users, float(users)
        return None

    def _broke(self, users: int) -> bool:
        with STATE.lock:
            levels = STATE.stats.levels()
        mine = [lv for lv in levels if lv["users"] == users]
        return bool(mine) and level_broken(mine[0], self.budget) is not None
