"""What a scenario asks of the gateway: the URL of its endpoint, the headers and the body,
in the endpoint's own request shape (chat completions, Anthropic Messages, Responses or
Gemini's ``generateContent``)."""

from __future__ import annotations

from typing import Any

from sseconform.gate.content import Content
from sseconform.gate.profile import UPSTREAM
from sseconform.gate.scenario import Scenario
from sseconform.gate.suite import Suite
from sseconform.mask import RUN
from sseconform.providers import endpoint_path

__all__ = ["GatewayRequests", "request_body", "substitute"]


#: How each endpoint's reference agent asks for thinking, and for the state it must send
#: back on its next turn: Claude Code (``thinking``, which needs ``max_tokens`` above its
#: budget), Codex (stateless: ``store: false`` and the encrypted reasoning included), a chat
#: client (``reasoning_effort``).
REASONING: dict[str, dict[str, Any]] = {
    "messages": {"max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 2048}},
    "responses": {
        "reasoning": {"effort": "medium", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
        "store": False,
    },
    "chat": {"reasoning_effort": "medium"},
    # Gemini CLI: the thoughts shown, and each call's thoughtSignature sent back with it
    "gemini": {"generationConfig": {"thinkingConfig": {"includeThoughts": True}}},
}


def substitute(value: Any, upstream: str) -> Any:
    """``{upstream}`` in every string of a request setting, at any depth."""
    if isinstance(value, str):
        return value.replace(UPSTREAM, upstream)
    if isinstance(value, dict):
        return {k: substitute(v, upstream) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, upstream) for v in value]
    return value


def request_body(
    suite: Suite, sc: Scenario, reference: Content, tag: str | None = None
) -> dict[str, Any]:
    """The endpoint's own request shape: chat completions, Anthropic Messages (which needs
    ``max_tokens`` and always streams usage), Responses (``input``, flat function tools) or
    Gemini (``contents`` and ``functionDeclarations``; the model and the stream are asked for
    in the URL, and usage always comes).
    ``tag`` goes into the prompt as ``[sseconform:TAG]``: the replay upstream finds the
    scenario by it, whatever else is in flight."""
    assert sc.upstream is not None
    dialect = sc.served_dialect or sc.upstream
    prompt = f"sseconform gate scenario {sc.name}"
    if tag is not None:
        prompt += f" [sseconform:{tag}]"
    calls = [c for ch in reference.model.choices.values() for c in ch.tool_calls.values()]
    names = sorted({c.name for c in calls if c.name is not None})
    declare = sc.tools if sc.tools is not None else bool(names)
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    about = f"a tool of the {sc.name} scenario"
    body: dict[str, Any] = {"model": sc.model or suite.model_for(dialect), "stream": True}
    if suite.endpoint == "messages":
        body["max_tokens"] = 1024
        body["messages"] = [{"role": "user", "content": prompt}]
        if declare:
            body["tools"] = [
                {"name": n, "description": about, "input_schema": schema} for n in names
            ]
    elif suite.endpoint == "gemini":
        body = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
        if declare:
            declared = [{"name": n, "description": about, "parameters": schema} for n in names]
            body["tools"] = [{"functionDeclarations": declared}]
    elif suite.endpoint == "responses":
        body["input"] = prompt
        if declare:
            body["tools"] = [
                {"type": "function", "name": n, "description": about, "parameters": schema}
                for n in names
            ]
    else:
        body["messages"] = [{"role": "user", "content": prompt}]
        if declare:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": n, "description": about, "parameters": schema},
                }
                for n in names
            ]
        if sc.usage:
            body["stream_options"] = {"include_usage": True}
    if sc.reasoning:
        body.update(REASONING[suite.endpoint])
        if suite.endpoint == "responses" and sc.history == "previous-response":
            body["store"] = True  # the next turn continues the stored response
    body.update(suite.route(dialect).request)
    body.update(sc.request)
    return body


class GatewayRequests:
    """How one suite's scenarios are sent to one gateway, whose upstream is at
    ``upstream_url``: ``headers`` (``gate --header``) go with every request, over the
    suite's and the profile's."""

    def __init__(
        self,
        suite: Suite,
        gateway: str,
        upstream_url: str,
        key: str | None = None,
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self.suite = suite
        self.gateway = gateway.rstrip("/")
        self.upstream_url = upstream_url
        self.key = key
        self.extra = headers or []
        RUN.add(key)  # from here on, no writer of the run shows it

    def url(self, dialect: str, model: str | None = None) -> str:
        """The gateway's URL for a dialect's scenarios: a URL given with its path is used as
        is; a base URL gets the dialect's path (profile, suite, ``[dialect.X] path``), with
        the model in it where the path names one (Gemini's; default: the dialect's)."""
        path = endpoint_path(self.suite.path_for(dialect), model or self.suite.model_for(dialect))
        if self.gateway.endswith("/chat/completions"):
            if self.suite.endpoint == "chat":
                return self.gateway
            base = self.gateway.removesuffix("/chat/completions").removesuffix("/v1")
            return base + path
        path = path.replace(UPSTREAM, self.upstream_url)
        return path if path.startswith("http") else self.gateway + path

    def headers(self, dialect: str, sc: Scenario) -> list[tuple[str, str]]:
        """JSON and the key (as the endpoint's SDKs send it), then the profile's, suite's,
        dialect's and scenario's headers, then ``gate --header``: the later wins, by name."""
        out: dict[str, tuple[str, str]] = {"content-type": ("content-type", "application/json")}
        if self.key:
            out["authorization"] = ("authorization", f"Bearer {self.key}")
        if self.suite.endpoint == "messages":  # as the Anthropic SDKs and Claude Code send it
            out["anthropic-version"] = ("anthropic-version", "2023-06-01")
            if self.key:
                out["x-api-key"] = ("x-api-key", self.key)
        if self.suite.endpoint == "gemini" and self.key:  # as google-genai and Gemini CLI do
            out["x-goog-api-key"] = ("x-goog-api-key", self.key)
        for name, value in self.suite.headers_for(dialect, sc).items():
            out[name.lower()] = (name, value.replace(UPSTREAM, self.upstream_url))
        for name, value in self.extra:
            out[name.lower()] = (name, value.replace(UPSTREAM, self.upstream_url))
        return list(out.values())

    def body(self, sc: Scenario, reference: Content, tag: str | None = None) -> dict[str, Any]:
        """:func:`request_body` with ``{upstream}`` filled in."""
        body: dict[str, Any] = substitute(
            request_body(self.suite, sc, reference, tag), self.upstream_url
        )
        return body
