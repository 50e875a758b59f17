"""A suite aimed at what a gateway serves: an endpoint (``gate --endpoint``), and Gemini's
non-streaming call on it (``gate --non-streaming``). Each renames its scenarios, so reports
and baselines keep the runs apart."""

from __future__ import annotations

import dataclasses

from sseconform.gate.suite import Suite
from sseconform.providers import ENDPOINTS, non_streaming_path

__all__ = ["NON_STREAMING", "for_endpoint", "non_streaming"]


def for_endpoint(suite: Suite, endpoint: str) -> Suite:
    """The suite aimed at one endpoint. Off the chat endpoint its scenario names start with
    the endpoint (``messages/anthropic/text``), so reports and baselines keep them apart."""
    if endpoint == suite.endpoint:
        return suite
    renamed = [
        dataclasses.replace(sc, name=sc.name if endpoint == "chat" else f"{endpoint}/{sc.name}")
        for sc in suite.scenarios
    ]
    return dataclasses.replace(
        suite, name=f"{suite.name} ({endpoint})", scenarios=renamed, endpoint=endpoint
    )


#: Where a non-streaming suite's scenario names start (``gemini:generateContent/openai/text``):
#: reports and baselines keep them apart from the streaming ones.
NON_STREAMING = "gemini:generateContent"


def non_streaming(suite: Suite) -> Suite:
    """The suite aimed at Gemini's non-streaming call (``gate --non-streaming``): each
    scenario asks ``:generateContent`` where the gemini endpoint streams. Raises ValueError
    for another endpoint, or a gemini path that is no ``:streamGenerateContent`` call."""
    if suite.endpoint != "gemini":
        raise ValueError(
            f"only the gemini endpoint is asked without streaming, not {suite.endpoint}"
        )
    path = suite.endpoint_route.path or ENDPOINTS["gemini"]
    if non_streaming_path(path) is None:
        raise ValueError(f"the gemini endpoint's path {path!r} has no :streamGenerateContent")
    prefix = f"{suite.endpoint}/"
    renamed = [
        dataclasses.replace(sc, name=f"{NON_STREAMING}/{sc.name.removeprefix(prefix)}")
        for sc in suite.scenarios
    ]
    name = suite.name.removesuffix(" (gemini)") + " (gemini, non-streaming)"
    return dataclasses.replace(suite, name=name, scenarios=renamed, streaming=False)
