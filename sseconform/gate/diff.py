"""The semantic comparison of an upstream stream with what a gateway made of it.

Equal means: the same text and reasoning (no token lost, duplicated, reordered or changed),
the same tool calls in the same order with the same names and arguments (compared as JSON
values when both parse: a gateway may re-serialise them), the same finish reason after
mapping, the same usage when it was asked for, and an error where the upstream failed.

Usage means what OpenAI defines, the one definition in :mod:`sseconform.rules.usage` that
``check`` (U004) uses too: ``prompt_tokens`` includes the cached tokens,
``completion_tokens`` includes the reasoning tokens, ``total_tokens`` is their sum. The
upstream's native counters reach that form through the reference translator (Anthropic:
input + cache reads + cache writes as the prompt, output as the completion; Gemini:
candidates + thoughts as the completion; Responses: input and output tokens as they are);
xAI's spelling (reasoning outside ``completion_tokens``, inside the total) is read as
completion + reasoning on either side, so passing it on or normalising it is no change.
Call ids are not compared: gateways may rewrite them (``check`` requires that they exist).

Each :class:`Difference` is located in both streams (frame number and byte offset), and
classified: ``lost``, ``duplicated`` (a restart after failover shows as a duplicated
prefix), ``extra``, ``reordered``, ``changed``, ``missing``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson

from sseconform import providers
from sseconform.gate.content import Content, Loc, describe
from sseconform.gate.rules import diff as diff_rules
from sseconform.rules.catalog import Rule, Severity
from sseconform.rules.usage import Tokens, read_usage
from sseconform.wires import by_grammar
from sseconform.wires.reassemble import ChoiceState
from sseconform.wires.state import KINDS

__all__ = ["Difference", "compare"]


@dataclass(frozen=True, slots=True)
class Difference:
    """One way the gateway's stream means something else than the upstream's."""

    field: str  # "text", "reasoning", "tool_calls[1].arguments", "finish_reason", ...
    rule: Rule  # one of gate.rules.diff's: LOST, CHANGED, MISSING, ...
    message: str
    upstream: Loc | None = None
    gateway: Loc | None = None
    #: an error unless the loss can only be judged on the next turn (see :func:`_state`)
    severity: Severity = Severity.ERROR

    @property
    def kind(self) -> str:
        """The rule's name within its family (``lost``), as reports print it."""
        return self.rule.code.removeprefix("diff:")

    def to_dict(self) -> dict[str, Any]:
        def loc(x: Loc | None) -> dict[str, int] | None:
            return None if x is None else {"frame": x.frame, "offset": x.offset}

        return {
            "field": self.field,
            "kind": self.kind,
            "message": self.message,
            "upstream": loc(self.upstream),
            "gateway": loc(self.gateway),
            "severity": self.severity,
        }


def compare(
    upstream: Content,
    gateway: Content,
    *,
    usage: bool = False,
    prefix_only: bool = False,
    grammar: str = "chat",
) -> list[Difference]:
    """Differences between ``upstream`` and ``gateway``.

    ``usage``: compare token counts too (the request asked for them). ``prefix_only``: the
    upstream failed mid-stream, so the gateway may stop short of it (but not invent, drop
    or repeat anything before that point); finish reasons are then not compared.
    ``grammar``: the gateway endpoint's, whose words name the finish and the counts.
    """
    out: list[Difference] = []
    up, gw = upstream.model, gateway.model
    for idx in sorted(set(up.choices) | set(gw.choices)):
        a, b = up.choices.get(idx), gw.choices.get(idx)
        pre = f"choices[{idx}]." if idx else ""
        if b is None:
            assert a is not None
            if _has_content(a):
                out.append(
                    Difference(
                        f"{pre}choice",
                        diff_rules.MISSING,
                        f"the gateway never sent choice {idx}",
                        upstream.finish_at.get(idx) or upstream.last,
                        gateway.last,
                    )
                )
            continue
        if a is None:
            if _has_content(b):
                out.append(
                    Difference(
                        f"{pre}choice",
                        diff_rules.EXTRA,
                        f"the gateway sent choice {idx}, the upstream did not",
                        upstream.last,
                        gateway.finish_at.get(idx) or gateway.last,
                    )
                )
            continue
        moved = _relabelled(pre, a.text, a.reasoning, b.text, b.reasoning, gateway, idx)
        if moved is not None:
            out.append(moved)
        for name in ("text", "reasoning", "refusal"):
            if moved is not None and name != "refusal":
                continue  # one finding names both sides of the move
            out += _strings(
                f"{pre}{name}",
                getattr(a, name),
                getattr(b, name),
                partial(upstream.where, idx, name),
                partial(gateway.where, idx, name),
                prefix_only,
                upstream.last,
                gateway.last,
            )
        out += _calls(pre, idx, a, b, upstream, gateway, prefix_only)
        # a finish the gateway's grammar never sends (``stop_reason: error``, ``incomplete
        # (error)``) folds into a known one: it differs from the upstream's whatever that
        # folded to, unless the upstream sent that very value (passed through as it came)
        native = gateway.native_finish if idx == 0 else None
        known = providers.KNOWN_FINISH.get(gateway.dialect or "")
        unknown = native is not None and known is not None and native not in known
        unknown = unknown and not (
            upstream.dialect == gateway.dialect and upstream.native_finish == native
        )
        if not prefix_only and (a.finish_reason != b.finish_reason or unknown):
            field = by_grammar(grammar).finish_field
            got, want = (by_grammar(grammar).finish_value(x.finish_reason) for x in (b, a))
            if native is not None and grammar != "chat":
                got = native  # the gateway's own value, not a re-encoding
            out.append(
                Difference(
                    f"{pre}{field}",
                    diff_rules.CHANGED if b.finish_reason else diff_rules.MISSING,
                    f"{field} {got!r}, the upstream's maps to {want!r}",
                    upstream.finish_at.get(idx),
                    gateway.finish_at.get(idx) or gateway.last,
                )
            )
    if usage and not prefix_only:
        out += _usage(upstream, gateway, grammar)
    if not prefix_only:  # after a failure there is no next turn to carry state to
        out += _state(upstream, gateway)
    if up.error is None and gw.error is not None:
        out.append(
            Difference(
                "error",
                diff_rules.EXTRA,
                f"the gateway sent an error frame ({describe(_message(gw.error))}); "
                "the upstream did not fail",
                upstream.last,
                gateway.error_at,
            )
        )
    elif up.error is not None and gw.error is None:
        out.append(
            Difference(
                "error",
                diff_rules.MISSING,
                f"the upstream failed ({describe(_message(up.error))}); the gateway's client "
                "never got an error frame",
                upstream.error_at,
                gateway.last,
            )
        )
    return out


def _message(err: dict[str, Any]) -> str:
    msg = err.get("message")
    return msg if isinstance(msg, str) else str(err)


def _has_content(c: ChoiceState) -> bool:
    return bool(c.text or c.reasoning or c.refusal or c.tool_calls)


def _relabelled(
    pre: str, text: str, reasoning: str, got_text: str, got_reasoning: str, gateway: Content,
    idx: int,
) -> Difference | None:  # fmt: skip
    """The upstream's reasoning reached the client as text (before or after the text it
    had): one finding for the move, not a lost reasoning and an unrelated extra text."""
    if not reasoning or got_reasoning or got_text not in (reasoning + text, text + reasoning):
        return None
    return Difference(
        f"{pre}reasoning",
        diff_rules.RELABELLED,
        f"the upstream's {len(reasoning)} chars of reasoning reached the client as "
        f"text ({describe(reasoning)}): a client shows the model's thinking as its answer",
        None,
        gateway.where(idx, "text", 0),
    )


def _strings(
    field: str,
    a: str,
    b: str,
    where_a: Callable[[int], Loc | None],
    where_b: Callable[[int], Loc | None],
    prefix_only: bool,
    last_a: Loc | None,
    last_b: Loc | None,
) -> list[Difference]:
    """Compare one string; one difference at most, at the first place they part."""
    if a == b or (prefix_only and a.startswith(b)):
        return []
    p = 0
    n = min(len(a), len(b))
    while p < n and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    mid_a = a[p : len(a) - s]
    mid_b = b[p : len(b) - s]
    at_a = where_a(p) or last_a
    at_b = where_b(p) or last_b
    if prefix_only and b[p:]:
        # The gateway stopped short: what it sent after the split may resume the upstream's
        # text further on, so the characters in between were lost.
        j = a.find(b[p:], p + 1)
        if j > p:
            lost = a[p:j]
            return [
                Difference(
                    field,
                    diff_rules.LOST,
                    f"{len(lost)} chars the upstream sent are missing at char {p}: "
                    f"{describe(lost)}",
                    at_a,
                    at_b,
                )
            ]
    if not mid_b:
        if prefix_only and s == 0:
            return []
        return [
            Difference(
                field,
                diff_rules.LOST,
                f"{len(mid_a)} chars the upstream sent are missing at char {p}: {describe(mid_a)}",
                at_a,
                at_b,
            )
        ]
    if not mid_a:
        restart = p >= len(mid_b) and b[p - len(mid_b) : p] == mid_b
        return [
            Difference(
                field,
                diff_rules.DUPLICATED if restart else diff_rules.EXTRA,
                (
                    f"{len(mid_b)} chars sent twice at char {p}: {describe(mid_b)}"
                    + " (the stream restarted)"
                    if restart
                    else f"{len(mid_b)} chars the upstream never sent at char {p}: "
                    f"{describe(mid_b)}"
                ),
                at_a,
                at_b,
            )
        ]
    if prefix_only and not s and len(mid_b) < len(mid_a) and a[p:].startswith(mid_b):
        return []
    twice = repeated(a, b)
    if twice is not None:
        return [
            Difference(
                field,
                diff_rules.DUPLICATED,
                f"{twice} chars sent twice from char {p}: the gateway repeats pieces of the "
                "text (a delta passed on twice, or from two fields of one event?)",
                at_a,
                at_b,
            )
        ]
    kind = diff_rules.REORDERED if sorted(mid_a) == sorted(mid_b) else diff_rules.CHANGED
    return [
        Difference(
            field,
            kind,
            f"from char {p}: the upstream sent {describe(mid_a)}, the gateway {describe(mid_b)}",
            at_a,
            at_b,
        )
    ]


#: :func:`repeated` looks this far back for the piece a repeat repeats (a delta is short).
REPEAT_WINDOW = 4096


def repeated(a: str, b: str) -> int | None:
    """When ``b`` is ``a`` with pieces sent twice (each extra piece a copy of the text just
    before it, as when every delta is passed on twice), how many chars were repeated; else
    None. Linear in practice: a mismatch looks back at most REPEAT_WINDOW chars."""
    if not len(a) < len(b) <= 3 * len(a) or len(b) > 4_000_000:
        return None
    i = j = extra = 0
    while j < len(b):
        if i < len(a) and a[i] == b[j]:
            i += 1
            j += 1
            continue
        for k in range(i - 1, max(-1, i - REPEAT_WINDOW - 1), -1):
            if b.startswith(a[k:i], j):
                j += i - k
                extra += i - k
                break
        else:
            return None
    return extra if i == len(a) and extra else None


def _calls(
    pre: str,
    idx: int,
    a: ChoiceState,
    b: ChoiceState,
    upstream: Content,
    gateway: Content,
    prefix_only: bool,
) -> list[Difference]:
    out: list[Difference] = []
    ua = list(a.tool_calls.values())
    gb = list(b.tool_calls.values())
    for i in range(max(len(ua), len(gb))):
        field = f"{pre}tool_calls[{i}]"
        if i >= len(gb):
            if prefix_only:
                break
            call = ua[i]
            out.append(
                Difference(
                    field,
                    diff_rules.MISSING,
                    f"the upstream's call {i} ({call.name!r}) never reached the client",
                    upstream.call_at.get((idx, call.index)),
                    gateway.last,
                )
            )
            continue
        if i >= len(ua):
            call = gb[i]
            out.append(
                Difference(
                    field,
                    diff_rules.EXTRA,
                    f"call {i} ({call.name!r}) was not in the upstream's answer",
                    upstream.last,
                    gateway.call_at.get((idx, call.index)),
                )
            )
            continue
        ca, cb = ua[i], gb[i]
        at_a = upstream.call_at.get((idx, ca.index))
        at_b = gateway.call_at.get((idx, cb.index))
        if ca.name != cb.name:
            out.append(
                Difference(
                    f"{field}.name",
                    diff_rules.CHANGED,
                    f"name {cb.name!r}, the upstream's is {ca.name!r}",
                    at_a,
                    at_b,
                )
            )
        if _same_json(ca.arguments, cb.arguments):
            continue
        ptr = _json_pointer_of_change(ca.arguments, cb.arguments)
        diffs = _strings(
            f"{field}.arguments",
            ca.arguments,
            cb.arguments,
            partial(upstream.where, idx, f"call:{ca.index}"),
            partial(gateway.where, idx, f"call:{cb.index}"),
            prefix_only,
            at_a,
            at_b,
        )
        if ptr is not None:
            diffs = [
                Difference(
                    d.field, d.rule, f"{d.message} (first change at {ptr})", d.upstream, d.gateway
                )
                for d in diffs
            ]
        out += diffs
    return out


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, orjson.loads(text)
    except orjson.JSONDecodeError:
        return False, None


def _same_json(a: str, b: str) -> bool:
    if a == b:
        return True
    ok_a, va = _loads(a)
    ok_b, vb = _loads(b)
    return ok_a and ok_b and _same(va, vb)


def _same(x: Any, y: Any) -> bool:
    """JSON equality: ``true`` is not ``1`` (Python's ``==`` says it is); 1 and 1.0 are."""
    if isinstance(x, bool) or isinstance(y, bool):
        return type(x) is type(y) and x == y
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(map(_same, x, y))
    return bool(x == y)


def _token(key: object) -> str:
    """A JSON Pointer reference token (RFC 6901): ``~`` and ``/`` escaped."""
    return str(key).replace("~", "~0").replace("/", "~1")


def _json_pointer_of_change(a: str, b: str) -> str | None:
    ok_a, va = _loads(a)
    ok_b, vb = _loads(b)
    if not (ok_a and ok_b):
        return None

    def walk(x: Any, y: Any, path: str) -> str | None:
        if isinstance(x, dict) and isinstance(y, dict):
            for k in list(x) + [k for k in y if k not in x]:
                here = f"{path}/{_token(k)}"
                if k not in x or k not in y:
                    return here
                hit = walk(x[k], y[k], here)
                if hit is not None:
                    return hit
            return None
        if isinstance(x, list) and isinstance(y, list):
            for i in range(max(len(x), len(y))):
                if i >= len(x) or i >= len(y):
                    return f"{path}/{i}"
                hit = walk(x[i], y[i], f"{path}/{i}")
                if hit is not None:
                    return hit
            return None
        return None if _same(x, y) else path or "/"

    return walk(va, vb, "")


def _usage(upstream: Content, gateway: Content, grammar: str = "chat") -> list[Difference]:
    """Token counts compared as they are defined once, in :mod:`sseconform.rules.usage`
    (the definition U004 checks): the completion includes the reasoning, so xAI's spelling
    (reasoning left out of ``completion_tokens``, counted in the total) and OpenAI's compare
    equal when they mean the same tokens. The three counts are compared, the details only
    through them, and the cached tokens where the prompts agree and both sides report them
    (the replay upstream reads no cache for a request without its breakpoints); a count
    the upstream did not report is not compared."""
    ua, gb = upstream.model.usage, gateway.model.usage
    if ua is None:
        return []
    if gb is None:
        return [
            Difference(
                "usage",
                diff_rules.MISSING,
                "usage was asked for and the upstream reported it; the gateway sent none",
                upstream.usage_at,
                gateway.last,
            )
        ]
    ta, tb = read_usage(ua), read_usage(gb)
    out: list[Difference] = []
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        name = by_grammar(grammar).usage_key(key)
        if key not in ua or name is None:
            continue
        a, b = _count(ta, ua, key), _count(tb, gb, key)
        lost_cache = _lost_cache(ta, tb, a, b) if key == "prompt_tokens" else False
        if lost_cache:  # the prompt differs by the cached tokens alone: say which count
            cached = by_grammar(grammar).usage_key("cached_tokens")
            shown = "none" if tb.cached is None else repr(tb.cached)
            out.append(
                Difference(
                    f"usage.{cached}",
                    diff_rules.CHANGED,
                    f"{cached} {shown}, the upstream reported {ta.cached!r} (the prompt's "
                    f"{a!r} tokens counted as {b!r})",
                    upstream.usage_at,
                    gateway.usage_at,
                )
            )
        elif a != b:
            out.append(
                Difference(
                    f"usage.{name}",
                    diff_rules.CHANGED,
                    f"{name} {_shown(tb, b, key)}, the upstream reported {_shown(ta, a, key)}",
                    upstream.usage_at,
                    gateway.usage_at,
                )
            )
    if not out and None not in (ta.cached, tb.cached) and ta.cached != tb.cached:
        # the same prompt, read from the cache or not: a lost breakpoint shows here
        cached = by_grammar(grammar).usage_key("cached_tokens")
        out.append(
            Difference(
                f"usage.{cached}",
                diff_rules.CHANGED,
                f"{cached} {tb.cached!r}, where the upstream's answer to the client's request "
                f"reads {ta.cached!r} from the prompt cache",
                upstream.usage_at,
                gateway.usage_at,
            )
        )
    return out


def _lost_cache(ta: Tokens, tb: Tokens, a: Any, b: Any) -> bool:
    """Whether two prompt counts differ by the cached tokens alone: on Anthropic's wire
    ``input_tokens`` leaves them out, so a lost ``cache_read_input_tokens`` is what changed,
    not ``input_tokens``."""
    if a == b or ta.cached == tb.cached or not isinstance(a, int) or not isinstance(b, int):
        return False
    return a - b == (ta.cached or 0) - (tb.cached or 0)


def _count(t: Tokens, raw: dict[str, Any], key: str) -> Any:
    """One count under the shared definition; a value that is no count is compared as sent."""
    value = {"prompt_tokens": t.prompt, "completion_tokens": t.completion, "total_tokens": t.total}
    got = value[key]
    return raw.get(key) if got is None else got


def _shown(t: Tokens, value: Any, key: str) -> str:
    if key == "completion_tokens" and t.reasoning_outside:
        return (
            f"{value!r} (completion_tokens {t.sent_completion} + the {t.reasoning} "
            "reasoning_tokens it leaves out)"
        )
    return repr(value)


def _state(upstream: Content, gateway: Content) -> list[Difference]:
    """The opaque state the upstream issued (:mod:`.state`), against what the gateway's
    client got: each piece must arrive byte for byte, or the provider refuses the next turn.

    Through the same dialect a piece has its native place and a client sends it back as it
    got it, so a piece lost or changed is an error. Into another dialect a gateway may carry
    it in that dialect's field (a signature as ``encrypted_content``), in a carrier chat
    clients read (``reasoning_details``, ``thinking_blocks``), wrapped, or keep it itself;
    a client of that dialect sends back only what its dialect holds, and the provider needs
    the state back only beside a tool call (the turn that sends the call's result). So there
    a piece found nowhere is a warning, where the answer has a tool call: only the next turn
    (a conversation scenario) shows whether the state came back. Chat to chat is judged so
    too: chat has no standard field for state, only carriers some clients read."""
    tokens = upstream.state.tokens
    same = upstream.dialect == gateway.dialect and upstream.dialect != providers.OPENAI
    needed = any(ch.tool_calls for ch in upstream.model.choices.values())
    if not tokens or not (same or needed):
        return []
    got = gateway.state
    thought = any(ch.reasoning for ch in gateway.model.choices.values())
    if same and not needed and not got.tokens and not thought:
        # the whole thinking never reached the client (the reasoning's loss says so): it has
        # no block to send back, and without a tool call the provider asks for none
        return []
    values = got.values()
    out: list[Difference] = []
    theirs: dict[str, list[str]] = {}
    for t in got.tokens:
        theirs.setdefault(t.kind, []).append(t.value)
    seen: dict[str, int] = {}
    for t in tokens:
        n = seen.get(t.kind, 0)
        seen[t.kind] = n + 1
        if t.value in values:
            continue
        up_loc = Loc(t.frame, t.offset)
        field = f"state.{t.kind}"
        piece = f"{t.owner}'s {KINDS.get(t.kind, t.kind)}: the upstream sent {len(t.value):,} bytes"
        peers = theirs.get(t.kind, [])
        if same and n < len(peers):
            other = peers[n]
            at = next((i for i, (a, b) in enumerate(zip(t.value, other, strict=False)) if a != b),
                      min(len(t.value), len(other)))  # fmt: skip
            out.append(Difference(
                field, diff_rules.CHANGED,
                f"{piece}, the gateway's client got {len(other):,} "
                f"that differ from byte {at}; the provider refuses the next turn that sends "
                "it back", up_loc, gateway.last))  # fmt: skip
            continue
        if same:
            out.append(Difference(
                field, diff_rules.LOST,
                f"{piece}, the gateway's client got none; the "
                "provider refuses the next turn without it", up_loc, gateway.last))  # fmt: skip
            continue
        carried = "something else in its place" if got.tokens else "none"
        out.append(Difference(
            field, diff_rules.LOST,
            f"{piece}; the gateway's client got {carried} (no "
            f"byte-for-byte copy in {gateway.dialect or 'its'} stream): unless the gateway "
            "keeps it and sends it back itself, the next turn is refused",
            up_loc, gateway.last, severity=Severity.WARNING))  # fmt: skip
    return out
