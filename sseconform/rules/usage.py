"""What the numbers of a usage object mean, defined once (OpenAI's definition).

- ``prompt_tokens`` counts every input token; ``prompt_tokens_details.cached_tokens`` is a
  part of it (cached <= prompt).
- ``completion_tokens`` counts every generated token; ``completion_tokens_details.
  reasoning_tokens`` is a part of it (reasoning <= completion).
- ``total_tokens = prompt_tokens + completion_tokens``.

One variant is accepted, because a provider sends it on its own API (xAI, every Grok capture
of the real-stream corpus): ``completion_tokens`` leaves the reasoning out and
``total_tokens`` counts it, so ``prompt + completion + reasoning == total`` with reasoning
above zero. Read that way, the completion is ``completion_tokens + reasoning_tokens``; the
numbers are consistent, only spelled differently (rule U006, a warning).

The checker (U004, U006) and gate's usage comparison both read usage through
:func:`read_usage`, so a usage object ``check`` accepts means the same tokens to ``diff``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Tokens", "count", "read_usage"]


def count(value: Any) -> int | None:
    """A token count as JSON Schema reads one: 2 and 2.0 alike, never a boolean, never
    negative (a negative count is the schema's finding, J003, not a sum that is off)."""
    if type(value) is float and value.is_integer():
        value = int(value)
    return value if type(value) is int and value >= 0 else None


@dataclass(frozen=True, slots=True)
class Tokens:
    """A usage object read under the one definition; ``None`` where a count is absent."""

    prompt: int | None
    #: every generated token, reasoning included (the xAI variant's reasoning added back)
    completion: int | None
    total: int | None
    cached: int | None
    reasoning: int | None
    #: ``completion_tokens`` as sent (differs from ``completion`` in the xAI variant only)
    sent_completion: int | None
    #: the xAI variant: reasoning left out of ``completion_tokens``, counted in the total
    reasoning_outside: bool
    #: what contradicts the definition, one sentence each (U004)
    problems: tuple[str, ...]


def _detail(usage: Mapping[str, Any], holder: str, key: str) -> int | None:
    details = usage.get(holder)
    return count(details.get(key)) if isinstance(details, Mapping) else None


def read_usage(usage: Mapping[str, Any]) -> Tokens:
    """Read one usage object; its ``problems`` are empty when the numbers are consistent."""
    p = count(usage.get("prompt_tokens"))
    c = count(usage.get("completion_tokens"))
    t = count(usage.get("total_tokens"))
    cached = _detail(usage, "prompt_tokens_details", "cached_tokens")
    r = _detail(usage, "completion_tokens_details", "reasoning_tokens")
    outside = (
        p is not None
        and c is not None
        and t is not None
        and r is not None
        and r > 0
        and p + c != t
        and p + c + r == t
    )
    problems: list[str] = []
    if not outside:
        if p is not None and c is not None and t is not None and p + c != t:
            problems.append(f"prompt_tokens {p} + completion_tokens {c} != total_tokens {t}")
        if r is not None and c is not None and r > c:
            problems.append(
                f"reasoning_tokens {r} > completion_tokens {c}: reasoning is a part of the "
                "completion"
                + (", and the total leaves it out too" if p is not None and p + c == t else "")
            )
    if cached is not None and p is not None and cached > p:
        problems.append(
            f"cached_tokens {cached} > prompt_tokens {p}: cached tokens are a part of the prompt"
        )
    completion = c + r if outside and c is not None and r is not None else c
    return Tokens(p, completion, t, cached, r, c, outside, tuple(problems))
