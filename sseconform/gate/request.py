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
from sseconform.wires import by_dialect, by_endpoint

__all__ = ["GatewayRequests", "request_body", "substitute"]


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
    """The endpoint's request as its reference agent sends it (its wire's
    ``request_body``), the route's settings, the agent's thinking (where the agent always
    thinks, the scenario asks, or its recording thinks) over the route's (a route's
    ``max_tokens`` 1024 under a thinking budget is a request Anthropic refuses), then the
    scenario's own settings.
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
    wire = by_endpoint(suite.endpoint)
    model = sc.model or suite.model_for(dialect)
    about = f"a tool of the {sc.name} scenario"
    body = wire.request_body(model, prompt, names if declare else None, about)
    body.update(suite.route(dialect).request)
    thinks = any(ch.reasoning for ch in reference.model.choices.values())
    if sc.reasoning or wire.agent_reasons or thinks:  # the provider shows only what is asked
        merge(body, wire.reasoning_request)
        if suite.endpoint == "responses" and sc.history == "previous-response":
            body["store"] = True  # the next turn continues the stored response
    if _reads_cache(reference) and not by_dialect(dialect).reads_cache({}):
        wire.ask_cache(body)  # the provider caches only what is marked: its agents mark it
    body.update(sc.request)
    wire.fit(body, sc.request)
    return body


def _reads_cache(reference: Content) -> bool:
    """Whether the recording's usage counts tokens read from the prompt cache."""
    usage = reference.model.usage or {}
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return isinstance(cached, int) and cached > 0


def merge(body: dict[str, Any], extra: dict[str, Any]) -> None:
    """``extra`` into ``body``, objects into objects (Gemini's thinking goes into the
    ``generationConfig`` that holds its sampling)."""
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            body[key] = {**body[key]}
            merge(body[key], value)
        else:
            body[key] = value


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
        for name, value in by_endpoint(self.suite.endpoint).client_headers(self.key):
            out[name] = (name, value)
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
