"""request:*: what the gateway forwarded of the client's request, parameter by parameter.

The client's request is read as its endpoint's wire says it, each request that reached the
upstream as the upstream's wire says it (``Wire.read_request``), both into one meaning
(``wires.base.PARAMS``): so ``max_completion_tokens`` on chat, ``max_tokens`` on Messages,
``max_output_tokens`` on Responses and ``generationConfig.maxOutputTokens`` on Gemini are
one parameter, and ``tool_choice: "required"``, ``{"type": "any"}`` and
``functionCallingConfig.mode: ANY`` one value. Only what both wires can say is compared (a
``top_k`` asked of a chat upstream has nowhere to go). Where a mapping is a judgement (an
effort to a budget across wires), only what a user would call wrong is graded: thinking turned
off, a forced tool no longer forced, a cache marker gone.

The decision is here, beside the docs: :data:`POLICY` holds each parameter's severity when it
is lost, changed or added, and :func:`compare` applies it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sseconform.rules.catalog import Rule, Severity, define_gate
from sseconform.rules.docs import RuleDoc
from sseconform.wires.base import PARAMS, Asked, Said, Wire

__all__ = ["ADDED", "CHANGED", "LOST", "POLICY", "Deviation", "compare"]

E, W = Severity.ERROR, Severity.WARNING

_CLIENTS = (
    "Every client: none of them sees the request the provider received, so nothing fails; "
    "the answer is what a request without the parameter gets (an unforced tool call, a "
    "free-form answer where JSON was asked, no thinking, a prompt cache that never hits). "
    "The severity is per parameter, by what it costs the user (the table on this page)."
)
_TABLE = (
    "| parameter | lost | changed | added |\n|---|---|---|---|\n"
    "| max_output_tokens | error | error | warning (not where the upstream requires one) |\n"
    "| temperature, top_p, top_k | warning | warning | warning |\n"
    "| stop | error | error | warning |\n"
    "| tool_choice | error (but `auto`) | error when loosened, else warning | warning (but "
    "`auto`) |\n"
    "| parallel_tool_calls | warning (but `true`) | warning | warning (but `true`) |\n"
    "| structured_output | error | error | warning |\n"
    "| reasoning | error (thinking turned off) | error when turned off, else warning | "
    "warning |\n"
    "| reasoning_effort, reasoning_budget, reasoning_summary | warning | warning | - |\n"
    "| reasoning_included | warning | - | - |\n"
    "| cache_markers | error | error (a TTL shortened, a marker gone) | - |\n"
    "| prompt_cache_key, user, metadata | warning | warning | - |\n"
    "| stream_usage | warning | warning | - |\n"
    "| service_tier | warning | warning | warning |\n"
    "| features | error | error when a flag is lost, else warning | warning |\n"
)

LOST = define_gate(
    "request:lost",
    Severity.ERROR,
    "A parameter the client's request carried did not reach the upstream.",
    RuleDoc(
        what="The client asked for something (a max tokens, a forced tool, structured "
        "output, thinking, a cache marker, a stop sequence...) and the request the upstream "
        "received does not say it, in any of its wire's words. The message names the "
        "parameter in both wires' words with both values.\n\n" + _TABLE,
        why="The gateway's translation has no place for the parameter, or it drops what it "
        "does not know (LiteLLM's `drop_params`), or a default of its own replaces it. "
        "Every stream still looks perfect: only the answer differs, or the bill.",
        clients=_CLIENTS,
        fix="Forward the parameter, translated into the upstream's words (the equivalences "
        "are on the guide's page 'What the gateway forwards', docs/gating/forwarding.md). "
        "A documented policy (dropping what a provider refuses) is allowed by key in the "
        'suite: `allow = ["request:lost:temperature"]`.',
    ),
)
CHANGED = define_gate(
    "request:changed",
    Severity.ERROR,
    "A parameter reached the upstream with another value than the client asked.",
    RuleDoc(
        what="The upstream got the parameter, with another meaning: max tokens replaced by "
        "a gateway default, a forced tool loosened to `auto`, a 1-hour cache marker "
        "reduced to 5 minutes, thinking turned off.\n\n" + _TABLE,
        why="A default of the gateway's overrides the client's value, or a mapping between "
        "two wires' words loses precision (an effort mapped to a budget is a judgement and "
        "is not graded across wires; turning thinking off is).",
        clients=_CLIENTS,
        fix="Pass the client's value through; map between wires by the documented equivalences.",
    ),
)
ADDED = define_gate(
    "request:added",
    Severity.WARNING,
    "The upstream's request carried a parameter the client did not ask for.",
    RuleDoc(
        what="The gateway added a parameter of its own (a default max tokens, sampling, a "
        "tool choice, a service tier).\n\n" + _TABLE,
        why="A gateway default changes what the model does behind the client's back. Where "
        "the upstream's provider refuses a request without the parameter (Anthropic "
        "without `max_tokens`), adding one is required and not reported.",
        clients=_CLIENTS,
        fix="Add only what the upstream requires, and say so in the gateway's docs.",
    ),
)


@dataclass(frozen=True)
class Policy:
    """A parameter's severity when lost, changed or added (None: not reported)."""

    lost: Severity | None
    changed: Severity | None
    added: Severity | None


POLICY: dict[str, Policy] = {
    "max_output_tokens": Policy(E, E, W),
    "temperature": Policy(W, W, W),
    "top_p": Policy(W, W, W),
    "top_k": Policy(W, W, W),
    "stop": Policy(E, E, W),
    "tool_choice": Policy(E, W, W),  # lost `auto` and a tightened choice: see _judged
    "parallel_tool_calls": Policy(W, W, W),
    "structured_output": Policy(E, E, W),
    "reasoning": Policy(E, W, W),  # changed to off: an error, see _judged
    "reasoning_effort": Policy(W, W, None),
    "reasoning_budget": Policy(W, W, None),
    "reasoning_summary": Policy(W, W, None),
    "reasoning_included": Policy(W, None, None),
    "cache_markers": Policy(E, E, None),
    "prompt_cache_key": Policy(W, W, None),
    "stream_usage": Policy(W, W, None),
    "user": Policy(W, W, None),
    "metadata": Policy(W, W, None),
    "service_tier": Policy(W, W, W),
    "features": Policy(E, E, W),  # changed with none lost: a warning, see _judged
}
assert set(POLICY) == set(PARAMS), "every parameter has a policy"

#: How strongly a tool choice forces a call: a lower rank upstream loosened it.
_FORCE = {"none": 0, "auto": 1, "required": 2}
#: Parameters compared only when both sides are the same wire: across wires their values
#: are a judgement (an effort to a budget, one wire's summary words to another's), or a
#: provider's own (its feature flags name its own betas).
_SAME_WIRE_ONLY = frozenset(
    {"reasoning_effort", "reasoning_budget", "reasoning_summary", "features"}
)
#: Parameters that mean something across wires only toward the providers that honour them:
#: explicit cache breakpoints are Anthropic's (OpenAI and Gemini cache by prefix, unasked;
#: a gateway that leaves the markers out toward them loses nothing).
_HONOURED_BY = {"cache_markers": frozenset({"anthropic"})}


@dataclass(frozen=True)
class Deviation:
    """One parameter the upstream's request says otherwise than the client's."""

    rule: Rule
    severity: Severity
    param: str
    message: str


def compare(
    client: Asked, client_wire: Wire, upstream: Asked, upstream_wire: Wire
) -> list[Deviation]:
    """What the upstream's request (read by ``upstream_wire``) lost, changed or added of the
    client's (read by ``client_wire``), parameter by parameter, in :data:`PARAMS` order."""
    same = client_wire is upstream_wire
    return list(_deviations(client, upstream, client_wire, upstream_wire, same))


def _deviations(
    client: Asked, upstream: Asked, cw: Wire, uw: Wire, same: bool
) -> Iterator[Deviation]:
    for param in PARAMS:
        if param not in cw.carries or param not in uw.carries:
            continue
        if param in _SAME_WIRE_ONLY and not same:
            continue
        if not same and uw.dialect not in _HONOURED_BY.get(param, {uw.dialect}):
            continue
        asked, got, policy = client.get(param), upstream.get(param), POLICY[param]
        if asked is not None and got is None:
            sev = _judged(param, "lost", asked.value, None, policy.lost)
            if sev is not None:
                yield Deviation(
                    LOST, sev, param,
                    f"request.{param}: the client asked for {asked.words}; the upstream's "
                    "request did not say it" + _lost_because(param, uw),
                )  # fmt: skip
        elif asked is None and got is not None:
            if param in uw.requires:
                continue
            sev = _judged(param, "added", None, got.value, policy.added)
            if sev is not None:
                yield Deviation(
                    ADDED, sev, param,
                    f"request.{param}: the client did not ask for it; the upstream got "
                    f"{got.words}",
                )  # fmt: skip
        elif asked is not None and got is not None and not _same(param, asked, got):
            sev = _judged(param, "changed", asked.value, got.value, policy.changed)
            if sev is not None:
                yield Deviation(
                    CHANGED, sev, param,
                    f"request.{param}: the client asked for {asked.words}; the upstream "
                    f"got {got.words}",
                )  # fmt: skip


def _same(param: str, a: Said, b: Said) -> bool:
    if param == "structured_output":
        (ka, na, sa), (kb, nb, sb) = a.value, b.value
        # a name or strictness only one wire can say is no difference
        return (
            ka == kb
            and (na is None or nb is None or na == nb)
            and (sa is None or sb is None or sa == sb)
        )
    if isinstance(a.value, float | int) and isinstance(b.value, float | int):
        return abs(a.value - b.value) <= 1e-9 * max(1.0, abs(a.value))
    return bool(a.value == b.value)


def _judged(
    param: str, how: str, asked: Any, got: Any, default: Severity | None
) -> Severity | None:
    """The severity where it depends on the values, else the policy's."""
    if param == "tool_choice":
        if how == "lost":
            return None if asked == "auto" else E  # auto is the default with tools
        if how == "added":
            return None if got == "auto" else W
        return E if _loosened(asked, got) else W
    if param == "parallel_tool_calls" and how != "changed":
        value = asked if how == "lost" else got
        return None if value is True else default  # parallel calls are every API's default
    if param == "reasoning":
        if how == "lost":
            return E if asked else None  # a request that turned thinking off lost nothing
        if how == "changed":
            return E if asked and not got else W
    if param == "features" and how == "changed":
        return E if set(asked) - set(got) else W  # a flag lost, or only flags added
    return default


def _loosened(asked: Any, got: Any) -> bool:
    """A forced tool no longer forced: another tool, or a weaker choice."""
    a, g = str(asked), str(got)
    if a.startswith("tool:"):
        return g != a
    return _FORCE.get(g, 1) < _FORCE.get(a, 1)


def _lost_because(param: str, upstream: Wire) -> str:
    if param == "cache_markers":
        return ": the prompt is never cached (every turn pays its whole input)"
    if param == "reasoning":
        return ": the model does not think"
    if param == "tool_choice":
        return ": the model may answer without the tool"
    if param == "structured_output":
        return ": the answer's format is free"
    return ""
