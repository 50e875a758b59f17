"""langchain-openai's ChatOpenAI over many cases, run by the interpreter of its own venv.

Reads ``{"jobs": [{"id", "url", "tools"}]}`` on stdin and writes one JSON line per job, as
``tests/interop/node/matrix.mjs`` does. Imports nothing of the project: it runs where only
langchain-openai is installed. ``llm.stream()`` chunks are added up the way LangChain's docs
show (``chunk + chunk``); the case's tool names are bound so calls are parsed as an
application's would be.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from typing import Any

KEY = "dummy-key-for-loopback"  # never a real key: every request goes to 127.0.0.1
TIMEOUT = 20.0


def _run(job: dict[str, Any]) -> dict[str, Any]:
    from langchain_openai import ChatOpenAI

    llm: Any = ChatOpenAI(
        model="gpt-test",
        base_url=job["url"] + "/v1",
        api_key=KEY,
        max_retries=0,
        timeout=TIMEOUT,
    )
    if job["tools"]:
        llm = llm.bind_tools(
            [
                {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
                for n in job["tools"]
            ]
        )
    total: Any = None
    for chunk in llm.stream("hi"):
        total = chunk if total is None else total + chunk
    if total is None:
        return {"text": "", "calls": [], "finish": None, "rawFinish": None, "notes": []}
    text = total.content if isinstance(total.content, str) else json.dumps(total.content)
    calls = [
        {"id": c.get("id"), "name": c.get("name"), "arguments": c.get("args")}
        for c in total.tool_calls
    ]
    notes = []
    for c in total.invalid_tool_calls:
        calls.append({"id": c.get("id"), "name": c.get("name"), "arguments": c.get("args")})
        notes.append(f"invalid_tool_calls: {c.get('name')}: {str(c.get('error'))[:80]}")
    raw = (total.response_metadata or {}).get("finish_reason")
    known = {"stop", "length", "tool_calls", "content_filter"}
    finish = raw if raw in known else (None if raw is None else f"other:{raw}")
    refusal = (total.additional_kwargs or {}).get("refusal") or ""
    return {
        "text": text,
        "refusal": refusal,
        "calls": calls,
        "finish": finish,
        "rawFinish": raw,
        "notes": notes,
    }


def main() -> None:
    jobs = json.load(sys.stdin)["jobs"]
    if not jobs:
        print(json.dumps({"version": version("langchain-openai")}))
    for job in jobs:
        try:
            out = {"raised": None, **_run(job)}
        except Exception as error:  # the client's own exception is the measurement
            out = {"text": None, "calls": [], "finish": None, "rawFinish": None, "notes": []}
            out["raised"] = f"{type(error).__name__}: {error}"
        print(json.dumps({"id": job["id"], **out}), flush=True)


if __name__ == "__main__":
    main()
