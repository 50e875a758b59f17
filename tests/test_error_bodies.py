"""The HTTP error path: H005 (error-body-shape) over its case folders, and what the SDKs do
with an error body that is not in their API's shape (the measurement behind H005's severity).

``tests/cases/http/{pass,fail}/<slug>/`` each hold ``response.jsonl`` (a recorded HTTP error:
the request URL says which API answered it) and ``expected.txt`` (the exact set of codes
``check --grammar auto`` reports). The SDK test serves each case's body on 127.0.0.1 and calls
the endpoint with anthropic-python or openai-python: the class they raise comes from the status
alone, and what they say comes from the body only when it has their shape.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from sseconform.api import check_file
from sseconform.gate.graded import retried as retried_status
from sseconform.recording.format import RecordingReader
from sseconform.rules.shared.rules.h005_error_body_shape import problem
from tests.conftest import ROOT

CASES = sorted((ROOT / "tests" / "cases" / "http").glob("*/*/"))


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_http_case(case: Path) -> None:
    expected = set((case / "expected.txt").read_text().split())
    got = check_file(case / "response.jsonl", grammar="auto")
    assert {d.code for d in got.findings} == expected
    if case.parent.name == "fail":
        assert case.name.split("-", 1)[0] in expected
        [h005] = [d for d in got.findings if d.code == "H005"]
        assert "this endpoint's clients read" in h005.message


@pytest.mark.parametrize(
    ("grammar", "body", "why"),
    [
        ("anthropic", b'{"type":"error","error":{"type":"api_error","message":"x"}}', None),
        ("anthropic", b'{"error":{"type":"api_error","message":"x"}}', 'top-level "type"'),
        ("anthropic", b'{"type":"error","error":{"message":"x"}}', "error.type"),
        ("chat", b'{"error":{"message":"x","type":null,"code":null}}', None),
        ("chat", b'{"error":"x"}', "no `error` object"),
        ("responses", b"[1]", "not an object"),
        ("gemini", b'{"error":{"code":429,"message":"x","status":"RESOURCE_EXHAUSTED"}}', None),
        ("gemini", b'{"error":{"code":"429","message":"x","status":"R"}}', "error.code"),
        ("chat", b"", "not JSON"),
    ],
)
def test_problem(grammar: str, body: bytes, why: str | None) -> None:
    said = problem(grammar, body)
    assert (said is None) == (why is None), said
    if why is not None:
        assert said is not None and why in said


# -- what the SDKs do with each case's body ---------------------------------------------------


def _served(case: Path) -> tuple[str, int, bytes]:
    with open(case / "response.jsonl", "rb") as fp:
        reader = RecordingReader(fp, str(case))
        body = b"".join(data for _, data in reader.reads())
        assert reader.response is not None and reader.request is not None
        return str(reader.request["url"]), reader.response.status, body


@pytest.fixture(scope="module")
def server() -> Iterator[dict[str, Any]]:
    """Answers every POST with the status and body the test puts in ``answer``."""
    answer: dict[str, Any] = {"status": 500, "body": b"{}"}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            answer["requests"] = answer.get("requests", 0) + 1
            self.send_response(answer["status"])
            self.send_header("retry-after", "0")
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer["body"])))
            self.end_headers()
            self.wfile.write(answer["body"])

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    answer["url"] = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield answer
    httpd.shutdown()
    httpd.server_close()


ANTHROPIC_CLASSES = {429: anthropic.RateLimitError, 529: anthropic.OverloadedError}
OPENAI_CLASSES = {429: openai.RateLimitError, 500: openai.InternalServerError}


def _error_object(body: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(body)
    except ValueError:
        return {}
    err = obj.get("error") if isinstance(obj, dict) else None
    return err if isinstance(err, dict) else {}


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_sdks_raise_by_status_and_read_only_their_shape(
    server: dict[str, Any], case: Path
) -> None:
    """Measured (anthropic-python 2.13.0, openai-python 3.57.0): the exception class is the
    status's, whatever the body; the error's type (Anthropic) or message and code (OpenAI)
    are read from the body's error object, and are None or missing when it is not there."""
    url, status, body = _served(case)
    server["status"], server["body"] = status, body
    err = _error_object(body)
    if "/v1/messages" in url:
        with (
            anthropic.Anthropic(base_url=server["url"], api_key="k", max_retries=0) as c,
            pytest.raises(anthropic.APIStatusError) as raised,
        ):
            c.messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "hi"}])
        assert raised.value.status_code == status
        assert isinstance(raised.value, ANTHROPIC_CLASSES[status])
        # what Claude Code and the SDK's users branch on: the error's type, from the body
        assert raised.value.type == err.get("type")
        assert (raised.value.type is None) == (case.parent.name == "fail")
    elif "/chat/completions" in url or "/v1/responses" in url:
        with (
            openai.OpenAI(base_url=server["url"] + "/v1", api_key="k", max_retries=0) as o,
            pytest.raises(openai.APIStatusError) as failed,
        ):
            if "/v1/responses" in url:
                o.responses.create(model="m", input="hi")
            else:
                o.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert failed.value.status_code == status
        if status in OPENAI_CLASSES:
            assert isinstance(failed.value, OPENAI_CLASSES[status])
        else:
            assert isinstance(failed.value, openai.InternalServerError)  # any 5xx
        # the message says why only when the error object has one
        said = failed.value.message.removeprefix(f"Error code: {status}")
        assert said == (f" - {err['message']}" if "message" in err else "")
        assert (failed.value.type, failed.value.code) == (err.get("type"), err.get("code"))
    else:
        pytest.skip("a Gemini case: google-genai is not one of the measured clients here")


@pytest.mark.parametrize(
    ("status", "retried"), [(400, False), (404, False), (408, True), (429, True), (500, True),
                            (529, True)],
)  # fmt: skip
def test_the_sdks_retry_by_status(server: dict[str, Any], status: int, retried: bool) -> None:
    """The rule gate's ``diff:changed:status`` severity rests on (``graded.RETRIED``):
    anthropic-python and openai-python retry 408, 409, 429 and 5xx, and give up on other 4xx,
    so a gateway that turns a 429 or 529 into a 400 stops its clients' retries."""
    server["status"] = status
    server["body"] = b'{"type":"error","error":{"type":"api_error","message":"x"}}'
    server["requests"] = 0
    with (
        anthropic.Anthropic(base_url=server["url"], api_key="k", max_retries=1) as c,
        pytest.raises(anthropic.APIStatusError),
    ):
        c.messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "hi"}])
    assert server["requests"] == (2 if retried else 1)
    server["requests"] = 0
    with (
        openai.OpenAI(base_url=server["url"] + "/v1", api_key="k", max_retries=1) as o,
        pytest.raises(openai.APIStatusError),
    ):
        o.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert server["requests"] == (2 if retried else 1)
    assert retried_status(status) == retried
