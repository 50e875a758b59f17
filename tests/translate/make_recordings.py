"""Write the per-dialect scenario recordings and their golden translations (re-runnable).

    python tests/translate/make_recordings.py [ROOT]

writes, under ``ROOT`` (default: the repository's ``recordings/``), one recording per dialect
and scenario, ``<dialect>/<scenario>-<dialect>.jsonl`` (the dialect in the file name keeps
names unique across folders, as ``replay`` requires), and its golden translation
``golden/<dialect>/<scenario>-<dialect>.sse``, the output of
``sseconform translate --include-usage RECORDING``:

    anthropic   text, tool-call, parallel-calls, text-then-call, thinking, usage, max-tokens,
                max-tokens-call (partial_json cut), safety (refusal), error (overloaded_error)
    gemini      the same nine (safety: finishReason SAFETY), plus streamed-args (partialArgs)
    responses   the same nine (safety: response.incomplete content_filter; error: ``error``
                then ``response.failed``)
    openai      off-grammar chat streams: azure-tool-call, openrouter-reasoning,
                mistral-parallel-calls, groq-error

The streams follow each provider's event grammar and the shapes seen in real captures (GUIDE
§2, ../shared/real-streams); their content, ids and timings are made up here. Timings are
realistic and kept short, since the replay/record tests play every bundled recording in real
time: the response head after 0.18-0.45 s, the first token 0.1-0.35 s later, 5-28 ms between
tokens (50-150 ms between Gemini's larger chunks), closing events together; about one event in
eight arrives split across two reads. Everything random comes from a generator seeded by the
file name, and the ``created`` stamp is fixed, so a re-run rewrites the same bytes
(``test_golden.py`` checks that). Only these files are written: nothing else under
``recordings/`` is touched.
"""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sseconform.recording.format import Response, write_recording

ROOT = Path(__file__).resolve().parents[2] / "recordings"
CREATED = "2026-11-24T09:15:02+00:00"
DATE = "Tue, 24 Nov 2026 09:15:02 GMT"
Obj = dict[str, Any]
Read = tuple[float, bytes]

# Gaps between events, in seconds: a token, events sent together, a pause (a block boundary).
TOKEN = (0.005, 0.028)
BURST = (0.0001, 0.0009)
PAUSE = (0.03, 0.1)
FIRST = (0.1, 0.3)  # before the first token: the model's time to first token
GEMINI_CHUNK = (0.05, 0.15)  # Gemini sends fewer, larger chunks


class Stream:
    """Native events with their arrival times, cut into reads the way a network delivers them."""

    def __init__(self, name: str, t_head: float, nl: str = "\n") -> None:
        self.rng = random.Random(name)
        self.t_head = t_head
        self.t = t_head
        self.nl = nl
        self.events: list[tuple[float, bytes]] = []

    def rid(self, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def add(self, name: str | None, data: str, gap: tuple[float, float] = TOKEN) -> None:
        self.t += self.rng.uniform(*gap)
        head = f"event: {name}{self.nl}" if name else ""
        self.events.append((round(self.t, 4), f"{head}data: {data}{self.nl}{self.nl}".encode()))

    def comment(self, text: str, gap: tuple[float, float] = TOKEN) -> None:
        self.t += self.rng.uniform(*gap)
        self.events.append((round(self.t, 4), f": {text}{self.nl}{self.nl}".encode()))

    def reads(self) -> list[Read]:
        """Events that arrive within a millisecond share a read; about one event in eight
        (the longer ones) is split across two reads, the first part a little earlier."""
        reads: list[Read] = []
        for t, data in self.events:
            if reads and t - reads[-1][0] < 0.001:
                reads[-1] = (reads[-1][0], reads[-1][1] + data)
                continue
            if len(data) > 120 and self.rng.random() < 0.125:
                cut = self.rng.randrange(20, len(data) - 20)
                early = max(
                    round(t - self.rng.uniform(0.0005, 0.004), 4), reads[-1][0] if reads else t
                )
                reads.append((early, data[:cut]))
                reads.append((max(t, early), data[cut:]))
                continue
            reads.append((t, data))
        return reads


def compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def spaced(obj: Any) -> str:
    """Gemini's JSON: no space after commas, one after colons."""
    return json.dumps(obj, separators=(",", ": "), ensure_ascii=False)


def padded(s: Stream, obj: Obj) -> str:
    """Anthropic pads most events' JSON with spaces before the closing brace."""
    text = compact(obj)
    pad = s.rng.choice([0, 0, 1, 3, 5, 6, 8, 10, 12, 14])
    return text[:-1] + " " * pad + "}" if pad else text


def pieces_of(text: str, rng: random.Random, lo: int = 6, hi: int = 28) -> list[str]:
    """A text cut into token-sized pieces."""
    out = []
    pos = 0
    while pos < len(text):
        n = rng.randint(lo, hi)
        out.append(text[pos : pos + n])
        pos += n
    return out


def _write(path: Path, reads: list[Read], resp: Response, req: Obj) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_recording(path, reads, response=resp, request=req, force=True)
    first, rest = path.read_bytes().split(b"\n", 1)
    header = json.loads(first)
    header["created"] = CREATED
    path.write_bytes(json.dumps(header, ensure_ascii=False).encode() + b"\n" + rest)
    return path


# -- Anthropic Messages ------------------------------------------------------------------------

A_MODEL = "claude-sonnet-4-5-20250929"
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
        "required": ["city"],
    },
}


def anthropic_request(prompt: str, *, tools: bool = False, **extra: Any) -> Obj:
    body: Obj = {
        "model": A_MODEL,
        "max_tokens": 1024,
        "stream": True,
        "messages": [{"role": "user", "content": prompt}],
        **extra,
    }
    if tools:
        body["tools"] = [WEATHER_TOOL]
    return {
        "method": "POST",
        "url": "https://api.anthropic.com/v1/messages",
        "headers": [
            ["x-api-key", "[REDACTED]"],
            ["anthropic-version", "2023-06-01"],
            ["content-type", "application/json"],
            ["accept", "application/json"],
        ],
        "body": body,
    }


def anthropic_response(s: Stream) -> Response:
    return Response(
        200,
        "OK",
        "HTTP/1.1",
        [
            ("date", DATE),
            ("content-type", "text/event-stream; charset=utf-8"),
            ("transfer-encoding", "chunked"),
            ("connection", "keep-alive"),
            ("cache-control", "no-cache"),
            ("request-id", "req_011CV" + s.rid(18)),
            ("anthropic-organization-id", "00000000-0000-4000-8000-000000000000"),
            ("via", "1.1 google"),
            ("server", "cloudflare"),
            ("x-robots-tag", "none"),
        ],
        s.t_head,
    )


class Claude:
    """Builds one Messages stream: message_start, blocks, message_delta, message_stop."""

    def __init__(self, s: Stream, *, input_tokens: int = 18, cache_read: int = 0) -> None:
        self.s = s
        self.block = -1
        self.usage = {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cache_read,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 1,
            "service_tier": "standard",
        }
        message: Obj = {
            "model": A_MODEL,
            "id": "msg_01" + s.rid(22),
            "type": "message",
            "role": "assistant",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": self.usage,
        }
        self.ev("message_start", {"type": "message_start", "message": message}, (0.02, 0.06))

    def ev(self, name: str, obj: Obj, gap: tuple[float, float] = TOKEN) -> None:
        self.s.add(name, padded(self.s, obj), gap)

    def ping(self) -> None:
        self.s.add("ping", '{"type": "ping"}', BURST)

    def start(self, block: Obj, gap: tuple[float, float] = PAUSE) -> int:
        self.block += 1
        self.ev(
            "content_block_start",
            {"type": "content_block_start", "index": self.block, "content_block": block},
            gap,
        )
        return self.block

    def delta(self, delta: Obj, gap: tuple[float, float] = TOKEN) -> None:
        obj = {"type": "content_block_delta", "index": self.block, "delta": delta}
        self.ev("content_block_delta", obj, gap)

    def stop(self) -> None:
        self.ev("content_block_stop", {"type": "content_block_stop", "index": self.block}, BURST)

    def text(self, text: str, *, first: bool = False) -> None:
        self.start({"type": "text", "text": ""}, FIRST if first else PAUSE)
        if first:
            self.ping()
        for piece in pieces_of(text, self.s.rng):
            self.delta({"type": "text_delta", "text": piece})
        self.stop()

    def thinking(self, text: str) -> None:
        self.start({"type": "thinking", "thinking": "", "signature": ""}, FIRST)
        self.ping()
        for piece in pieces_of(text, self.s.rng, 20, 60):
            self.delta({"type": "thinking_delta", "thinking": piece})
        self.delta({"type": "thinking_delta", "thinking": ""})
        sig = "Eu" + self.s.rid(180, string.ascii_letters + string.digits + "+/") + "=="
        self.delta({"type": "signature_delta", "signature": sig}, BURST)
        self.stop()

    def tool(self, name: str, arguments: str, *, first: bool = False, close: bool = True) -> None:
        block = {"type": "tool_use", "id": "toolu_01" + self.s.rid(22), "name": name, "input": {}}
        self.start(block, FIRST if first else PAUSE)
        if first:
            self.ping()
        self.delta({"type": "input_json_delta", "partial_json": ""}, BURST)
        for piece in pieces_of(arguments, self.s.rng, 4, 16):
            self.delta({"type": "input_json_delta", "partial_json": piece})
        if close:
            self.stop()

    def end(self, reason: str, output_tokens: int) -> None:
        usage = {k: v for k, v in self.usage.items() if k not in ("service_tier", "cache_creation")}
        usage["output_tokens"] = output_tokens
        delta = {"stop_reason": reason, "stop_sequence": None}
        self.ev("message_delta", {"type": "message_delta", "delta": delta, "usage": usage}, BURST)
        self.ev("message_stop", {"type": "message_stop"}, BURST)


def _anthropic(
    root: Path, scenario: str, prompt: str, build: Callable[[Claude], None], **req: Any
) -> Path:
    name = f"{scenario}-anthropic.jsonl"
    s = Stream(name, round(random.Random(name + "head").uniform(0.18, 0.35), 4))
    c = Claude(s, **req.pop("claude", {}))
    build(c)
    return _write(
        root / "anthropic" / name,
        s.reads(),
        anthropic_response(s),
        anthropic_request(prompt, **req),
    )


def anthropic_scenarios(root: Path) -> list[Path]:
    def text(c: Claude) -> None:
        c.text(
            "The sky looks blue because air molecules scatter short (blue) wavelengths of "
            "sunlight much more strongly than long (red) ones: Rayleigh scattering.",
            first=True,
        )
        c.end("end_turn", 38)

    def tool_call(c: Claude) -> None:
        c.tool("get_weather", '{"city": "Lisbon, Portugal", "unit": "celsius"}', first=True)
        c.end("tool_use", 62)

    def parallel(c: Claude) -> None:
        c.tool("get_weather", '{"city": "Paris, France"}', first=True)
        c.tool("get_weather", '{"city": "Tokyo, Japan"}')
        c.end("tool_use", 91)

    def text_then_call(c: Claude) -> None:
        c.text("I'll look up the current conditions in Oslo for you.", first=True)
        c.tool("get_weather", '{"city": "Oslo, Norway", "unit": "celsius"}')
        c.end("tool_use", 77)

    def thinking(c: Claude) -> None:
        c.thinking(
            "The user asks how many prime numbers are below 20. Listing them: 2, 3, 5, 7, 11, "
            "13, 17, 19. That is eight primes. Double-check 1: not prime by definition. "
            "So the answer is 8."
        )
        c.text("There are 8 primes below 20: 2, 3, 5, 7, 11, 13, 17 and 19.")
        c.end("end_turn", 164)

    def usage(c: Claude) -> None:
        c.text(
            "Section 4.2 says refunds are issued within 14 days of the return being received.",
            first=True,
        )
        c.end("end_turn", 24)

    def max_tokens(c: Claude) -> None:
        c.text(
            "Here is a detailed, step-by-step plan for migrating the service: first, freeze "
            "writes on the old cluster and take a consistent snapshot; second,",
            first=True,
        )
        c.end("max_tokens", 32)

    def max_tokens_call(c: Claude) -> None:
        c.tool(
            "write_file",
            '{"path": "notes/summary.md", "content": "# Meeting notes\\n\\n- Budget approved',
            first=True,
            close=False,
        )
        c.stop()
        c.end("max_tokens", 48)

    def safety(c: Claude) -> None:
        c.text("I can explain general lab safety practices, but I", first=True)
        c.end("refusal", 14)

    def error(c: Claude) -> None:
        c.text("Let me walk through the proof. Assume, for contradiction, that", first=True)
        err = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        c.s.add("error", compact(err), (0.1, 0.25))

    def agent_loop(c: Claude) -> None:
        c.thinking(
            "The user wants the weather in Lisbon. I have a get_weather tool; I should call it "
            "with the city and celsius, then answer from its result."
        )
        c.tool("get_weather", '{"city": "Lisbon, Portugal", "unit": "celsius"}')
        c.end("tool_use", 118)

    def agent_answer(c: Claude) -> None:
        c.text("It is 18 °C and sunny in Lisbon right now.", first=True)
        c.end("end_turn", 17)

    cache = {"claude": {"input_tokens": 14, "cache_read": 2048}}
    thinking_on = {"type": "enabled", "budget_tokens": 2048}
    return [
        _anthropic(root, "text", "Why is the sky blue? One sentence.", text),
        _anthropic(root, "tool-call", "Weather in Lisbon?", tool_call, tools=True),
        _anthropic(root, "parallel-calls", "Weather in Paris and Tokyo?", parallel, tools=True),
        _anthropic(root, "text-then-call", "Is it cold in Oslo?", text_then_call, tools=True),
        _anthropic(
            root,
            "thinking",
            "How many primes are below 20?",
            thinking,
            thinking={"type": "enabled", "budget_tokens": 2048},
        ),
        _anthropic(root, "usage", "When are refunds issued?", usage, **cache),
        _anthropic(root, "max-tokens", "Plan the migration.", max_tokens, max_tokens=32),
        _anthropic(
            root, "max-tokens-call", "Save the notes.", max_tokens_call, tools=True, max_tokens=48
        ),
        _anthropic(root, "safety", "How do I make ...?", safety),
        _anthropic(root, "error", "Prove that sqrt(2) is irrational.", error),
        _anthropic(
            root, "agent-loop", "Weather in Lisbon?", agent_loop, tools=True, thinking=thinking_on
        ),
        _anthropic(
            root,
            "agent-answer",
            "Weather in Lisbon?",
            agent_answer,
            tools=True,
            thinking=thinking_on,
            claude={"input_tokens": 212},
        ),
    ]


# -- Gemini ---------------------------------------------------------------------------------------

G_MODEL = "gemini-2.5-pro"


def gemini_request(model: str, prompt: str, *, tools: bool = False, **config: Any) -> Obj:
    body: Obj = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
    if tools:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "description": "Current weather for a city.",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"city": {"type": "STRING"}},
                            "required": ["city"],
                        },
                    }
                ]
            }
        ]
    if config:
        body.update(config)
    return {
        "method": "POST",
        "url": f"https://generativelanguage.googleapis.com/v1beta/models/{model}"
        ":streamGenerateContent?alt=sse",
        "headers": [["x-goog-api-key", "[REDACTED]"], ["content-type", "application/json"]],
        "body": body,
    }


def gemini_response(s: Stream) -> Response:
    return Response(
        200,
        "OK",
        "HTTP/1.1",
        [
            ("content-type", "text/event-stream"),
            ("content-disposition", "attachment"),
            ("vary", "Origin"),
            ("vary", "X-Origin"),
            ("vary", "Referer"),
            ("date", DATE),
            ("server", "scaffolding on HTTPServer2"),
            ("x-xss-protection", "0"),
            ("x-frame-options", "SAMEORIGIN"),
            ("x-content-type-options", "nosniff"),
            ("server-timing", f"gfet4t7; dur={int(s.t_head * 1000) - 12}"),
            ("transfer-encoding", "chunked"),
        ],
        s.t_head,
    )


class Gem:
    """Builds one streamGenerateContent stream: whole GenerateContentResponses, CRLF framed."""

    def __init__(self, s: Stream, model: str = G_MODEL, prompt_tokens: int = 11) -> None:
        self.s = s
        self.model = model
        self.prompt_tokens = prompt_tokens
        self.response_id = s.rid(23, string.ascii_letters + string.digits + "-_")
        self.gap = (0.15, 0.35)

    def ev(
        self, parts: list[Obj], *, finish: str | None = None, usage: Obj | None = None, **cand: Any
    ) -> None:
        candidate: Obj = {"content": {"parts": parts, "role": "model"}}
        if finish:
            candidate["finishReason"] = finish
        candidate["index"] = 0
        candidate.update(cand)
        # before the last chunk, the prompt's count alone (as real captures show it early):
        # a total that adds up, and no count that the final one goes below (rules V009, V010)
        meta = usage or {
            "promptTokenCount": self.prompt_tokens,
            "totalTokenCount": self.prompt_tokens,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": self.prompt_tokens}],
        }
        obj = {
            "candidates": [candidate],
            "usageMetadata": meta,
            "modelVersion": self.model,
            "responseId": self.response_id,
        }
        self.s.add(None, spaced(obj), self.gap)
        self.gap = GEMINI_CHUNK if not parts or "text" in parts[0] else (0.02, 0.06)

    def final_usage(self, candidates: int, thoughts: int = 0, cached: int = 0) -> Obj:
        usage: Obj = {
            "promptTokenCount": self.prompt_tokens,
            "candidatesTokenCount": candidates,
            "totalTokenCount": self.prompt_tokens + candidates + thoughts,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": self.prompt_tokens}],
        }
        if cached:
            usage["cachedContentTokenCount"] = cached
            usage["cacheTokensDetails"] = [{"modality": "TEXT", "tokenCount": cached}]
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        return usage

    def texts(self, text: str, *, thought: bool = False) -> None:
        for piece in pieces_of(text, self.s.rng, 30, 90):
            part: Obj = {"text": piece}
            if thought:
                part["thought"] = True
            self.ev([part])

    def signature(self) -> str:
        return "Cs" + self.s.rid(120, string.ascii_letters + string.digits + "+/") + "="


def _gemini(
    root: Path,
    scenario: str,
    prompt: str,
    build: Callable[[Gem], None],
    *,
    model: str = G_MODEL,
    prompt_tokens: int = 11,
    **req: Any,
) -> Path:
    name = f"{scenario}-gemini.jsonl"
    s = Stream(name, round(random.Random(name + "head").uniform(0.2, 0.4), 4), "\r\n")
    build(Gem(s, model, prompt_tokens))
    return _write(
        root / "gemini" / name, s.reads(), gemini_response(s), gemini_request(model, prompt, **req)
    )


def gemini_scenarios(root: Path) -> list[Path]:
    def text(g: Gem) -> None:
        # long enough (eight events) for the gate's built-in drop and stall to land mid-stream
        g.texts(
            "Photosynthesis turns light, water and carbon dioxide into glucose and oxygen. "
            "Light is absorbed by chlorophyll in the thylakoid membranes, which splits water "
            "and releases oxygen; the energy is stored as ATP and NADPH. The Calvin cycle then "
            "fixes carbon dioxide into sugars in the stroma. "
        )
        g.ev(
            [{"text": "It happens in the chloroplasts of plant cells."}],
            finish="STOP",
            usage=g.final_usage(74, thoughts=412),
        )

    def call(name: str, args: Obj, g: Gem, signed: bool = False) -> Obj:
        part: Obj = {"functionCall": {"name": name, "args": args}}
        if signed:
            part["thoughtSignature"] = g.signature()
        return part

    def tool_call(g: Gem) -> None:
        g.ev(
            [call("get_weather", {"city": "Lisbon"}, g, signed=True)],
            finish="STOP",
            usage=g.final_usage(16, thoughts=88),
            finishMessage="Model generated function call(s).",
        )

    def parallel(g: Gem) -> None:
        g.ev(
            [
                call("get_weather", {"city": "Paris"}, g, True),
                call("get_weather", {"city": "Tokyo"}, g),
            ],
            finish="STOP",
            usage=g.final_usage(32, thoughts=140),
            finishMessage="Model generated function call(s).",
        )

    def calls_one_per_chunk(g: Gem) -> None:
        # as Gemini sends parallel calls (real captures of gemini-2.5-pro and gemini-3-pro):
        # each call in a chunk of its own, the first signed, the finish in a last chunk
        g.ev([call("get_weather", {"city": "Paris"}, g, True)])
        g.ev([call("get_weather", {"city": "Tokyo"}, g)])
        g.ev(
            [{"text": ""}],
            finish="STOP",
            usage=g.final_usage(32, thoughts=140),
        )

    def text_then_call(g: Gem) -> None:
        g.ev([{"text": "Let me check the current weather in Oslo."}])
        g.ev(
            [call("get_weather", {"city": "Oslo"}, g, True)],
            finish="STOP",
            usage=g.final_usage(29, thoughts=61),
        )

    def thinking(g: Gem) -> None:
        g.texts(
            "**Counting the primes**\n\nI'm listing the primes below 20: 2, 3, 5, 7, 11, 13, 17, "
            "19. One is not prime, so the count is eight.\n\n\n",
            thought=True,
        )
        g.texts("There are 8 primes below 20: ")
        g.ev(
            [{"text": "2, 3, 5, 7, 11, 13, 17 and 19."}],
            finish="STOP",
            usage=g.final_usage(24, thoughts=233),
        )

    def usage(g: Gem) -> None:
        g.texts("Section 4.2 says refunds are issued within 14 days ")
        g.ev(
            [{"text": "of the return being received."}],
            finish="STOP",
            usage=g.final_usage(19, thoughts=57, cached=3072),
        )

    def max_tokens(g: Gem) -> None:
        g.texts("Here is a step-by-step plan for the migration: first, freeze writes on ")
        g.ev([{"text": "the old cluster and"}], finish="MAX_TOKENS", usage=g.final_usage(32))

    def safety(g: Gem) -> None:
        g.texts("I can describe general laboratory safety rules, such as ")
        ratings = [
            {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"},
            {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True},
            {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
            {"category": "HARM_CATEGORY_SEXUALLY_EXPLICIT", "probability": "NEGLIGIBLE"},
        ]
        g.ev([], finish="SAFETY", usage=g.final_usage(12), safetyRatings=ratings)

    def error(g: Gem) -> None:
        g.texts("Assume, for contradiction, that the square root of two is rational, ")
        err = {
            "error": {
                "code": 503,
                "message": "The model is overloaded. Please try again later.",
                "status": "UNAVAILABLE",
            }
        }
        g.s.add(None, spaced(err), (0.1, 0.25))

    def streamed_args(g: Gem) -> None:
        g.gap = (0.2, 0.35)
        g.ev(
            [
                {
                    "functionCall": {"name": "plan_trip", "willContinue": True},
                    "thoughtSignature": g.signature(),
                }
            ]
        )
        records: list[list[Obj]] = [
            [{"jsonPath": "$.destination", "stringValue": "Kyoto", "willContinue": True}],
            [{"jsonPath": "$.destination", "stringValue": ", Japan", "willContinue": True}],
            [{"jsonPath": "$.destination", "stringValue": ""}],
            [
                {"jsonPath": "$.days", "numberValue": 4},
                {"jsonPath": "$.budget.flexible", "boolValue": True},
            ],
            [{"jsonPath": "$.stops[0].name", "stringValue": "Fushimi Inari", "willContinue": True}],
            [{"jsonPath": "$.stops[0].name", "stringValue": ""}],
            [{"jsonPath": "$.stops[0].day", "numberValue": 1}],
            [{"jsonPath": "$.stops[1].name", "stringValue": "Arashiyama", "willContinue": True}],
            [
                {"jsonPath": "$.stops[1].name", "stringValue": ""},
                {"jsonPath": "$.stops[1].day", "numberValue": 2},
            ],
            [{"jsonPath": "$.notes", "nullValue": None}],
        ]
        for group in records:
            g.ev([{"functionCall": {"partialArgs": group, "willContinue": True}}])
        g.ev([{"functionCall": {}}])
        g.ev([{"functionCall": {}}], finish="STOP", usage=g.final_usage(41, thoughts=120))

    def agent_loop(g: Gem) -> None:
        g.texts(
            "**Checking the weather**\n\nThe user wants Lisbon's weather; I'll call "
            "get_weather with the city.\n\n",
            thought=True,
        )
        g.ev(
            [call("get_weather", {"city": "Lisbon"}, g, signed=True)],
            finish="STOP",
            usage=g.final_usage(16, thoughts=96),
        )

    def agent_answer(g: Gem) -> None:
        g.ev(
            [{"text": "It is 18 °C and sunny in Lisbon right now."}],
            finish="STOP",
            usage=g.final_usage(14),
        )

    thoughts: Any = {"generationConfig": {"thinkingConfig": {"includeThoughts": True}}}
    return [
        _gemini(root, "text", "Explain photosynthesis in two sentences.", text),
        _gemini(root, "tool-call", "Weather in Lisbon?", tool_call, tools=True),
        _gemini(root, "parallel-calls", "Weather in Paris and Tokyo?", parallel, tools=True),
        _gemini(
            root,
            "calls-one-per-chunk",
            "Weather in Paris and Tokyo?",
            calls_one_per_chunk,
            tools=True,
        ),
        _gemini(root, "text-then-call", "Is it cold in Oslo?", text_then_call, tools=True),
        _gemini(
            root,
            "thinking",
            "How many primes are below 20?",
            thinking,
            generationConfig={"thinkingConfig": {"includeThoughts": True}},
        ),
        _gemini(root, "usage", "When are refunds issued?", usage, prompt_tokens=3104),
        _gemini(
            root,
            "max-tokens",
            "Plan the migration.",
            max_tokens,
            generationConfig={"maxOutputTokens": 32},
        ),
        _gemini(root, "safety", "How do I make ...?", safety),
        _gemini(root, "error", "Prove that sqrt(2) is irrational.", error),
        _gemini(
            root,
            "streamed-args",
            "Plan four days in Kyoto.",
            streamed_args,
            model="gemini-3-pro-preview",
            tools=True,
            toolConfig={"functionCallingConfig": {"streamFunctionCallArguments": True}},
        ),
        _gemini(root, "agent-loop", "Weather in Lisbon?", agent_loop, tools=True, **thoughts),
        _gemini(
            root,
            "agent-answer",
            "Weather in Lisbon?",
            agent_answer,
            tools=True,
            prompt_tokens=64,
            **thoughts,
        ),
    ]


# -- OpenAI Responses ------------------------------------------------------------------------------

R_MODEL = "gpt-5-mini-2025-08-07"


#: The tool the Responses recordings' requests declare.
RESPONSES_TOOL: Obj = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
    "strict": False,
}


def responses_request(prompt: str, *, tools: bool = False, **extra: Any) -> Obj:
    body: Obj = {"model": "gpt-5-mini", "stream": True, "input": prompt, **extra}
    if tools:
        body["tools"] = [RESPONSES_TOOL]
    return {
        "method": "POST",
        "url": "https://api.openai.com/v1/responses",
        "headers": [["authorization", "[REDACTED]"], ["content-type", "application/json"]],
        "body": body,
    }


def responses_response(s: Stream) -> Response:
    return Response(
        200,
        "OK",
        "HTTP/1.1",
        [
            ("date", DATE),
            ("content-type", "text/event-stream; charset=utf-8"),
            ("transfer-encoding", "chunked"),
            ("connection", "keep-alive"),
            ("x-request-id", "req_" + s.rid(32, string.hexdigits.lower()[:16])),
            ("openai-processing-ms", str(int(s.t_head * 1000) - 40)),
            ("openai-version", "2020-10-01"),
            ("strict-transport-security", "max-age=31536000; includeSubDomains; preload"),
            ("cf-cache-status", "DYNAMIC"),
            ("server", "cloudflare"),
        ],
        s.t_head,
    )


class Resp:
    """Builds one Responses stream, numbering events by ``sequence_number``."""

    def __init__(self, s: Stream, *, tools: bool = False, effort: str = "medium") -> None:
        self.s = s
        self.seq = 0
        self.items: list[Obj] = []
        hexa = "0123456789abcdef"
        self.stem = "0" + s.rid(49, hexa)
        self.response: Obj = {
            "id": "resp_" + self.stem,
            "object": "response",
            "created_at": 1795511702,
            "status": "in_progress",
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "max_output_tokens": None,
            "model": R_MODEL,
            "output": [],
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": {"effort": effort, "summary": None},
            "service_tier": "auto",
            "store": True,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": responses_request("", tools=tools)["body"].get("tools", []),
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": None,
            "user": None,
            "metadata": {},
        }
        self.ev("response.created", {"response": self.response}, (0.005, 0.02))
        self.ev("response.in_progress", {"response": self.response}, BURST)
        self.gap = FIRST

    def ev(self, kind: str, fields: Obj, gap: tuple[float, float] = TOKEN) -> None:
        obj = {"type": kind, **fields, "sequence_number": self.seq}
        self.seq += 1
        self.s.add(kind, compact(obj), gap)

    def item_id(self, prefix: str) -> str:
        return f"{prefix}_{self.stem[:26]}{self.s.rid(24, '0123456789abcdef')}"

    def reasoning(self, summary: str = "", *, encrypted: bool = False) -> None:
        """A reasoning item; ``encrypted``: with its ``encrypted_content`` (asked for with
        ``include: ["reasoning.encrypted_content"]``), on the item's ``.done`` alone."""
        item_id = self.item_id("rs")
        item: Obj = {"id": item_id, "type": "reasoning", "summary": []}
        self.ev(
            "response.output_item.added", {"output_index": len(self.items), "item": item}, self.gap
        )
        self.gap = PAUSE
        parts = []
        if summary:
            base = {"item_id": item_id, "output_index": len(self.items), "summary_index": 0}
            self.ev(
                "response.reasoning_summary_part.added",
                {**base, "part": {"type": "summary_text", "text": ""}},
                BURST,
            )
            for piece in pieces_of(summary, self.s.rng, 4, 14):
                self.ev(
                    "response.reasoning_summary_text.delta",
                    {**base, "delta": piece, "obfuscation": self.s.rid(8)},
                )
            self.ev("response.reasoning_summary_text.done", {**base, "text": summary}, BURST)
            part = {"type": "summary_text", "text": summary}
            self.ev("response.reasoning_summary_part.done", {**base, "part": part}, BURST)
            parts = [part]
        done = {**item, "summary": parts}
        if encrypted:
            alphabet = string.ascii_letters + string.digits + "-_"
            done["encrypted_content"] = "gAAAAAB" + self.s.rid(320, alphabet) + "=="
        self.ev("response.output_item.done", {"output_index": len(self.items), "item": done}, BURST)
        self.items.append(done)

    def message(
        self, text: str, *, refusal: bool = False, finish: bool = True, cut: bool = False
    ) -> None:
        """A message item; ``finish=False`` leaves it open (a failure follows), ``cut`` closes it
        as OpenAI closes an item cut by the token limit or a filter: ``.done`` events with what
        was streamed, the item ``incomplete``, and kept in the response's output."""
        item_id = self.item_id("msg")
        index = len(self.items)
        item: Obj = {
            "id": item_id,
            "type": "message",
            "status": "in_progress",
            "content": [],
            "role": "assistant",
        }
        self.ev("response.output_item.added", {"output_index": index, "item": item}, self.gap)
        self.gap = PAUSE
        base = {"item_id": item_id, "output_index": index, "content_index": 0}
        kind, key = ("refusal", "refusal") if refusal else ("output_text", "text")
        empty: Obj = {"type": kind, key: ""}
        if not refusal:
            empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        self.ev("response.content_part.added", {**base, "part": empty}, BURST)
        for piece in pieces_of(text, self.s.rng, 3, 12):
            extra: Obj = {} if refusal else {"logprobs": [], "obfuscation": self.s.rid(9)}
            self.ev(f"response.{kind}.delta", {**base, "delta": piece, **extra})
        if not finish:
            return
        done_fields: Obj = {key: text} if refusal else {"text": text, "logprobs": []}
        self.ev(f"response.{kind}.done", {**base, **done_fields}, BURST)
        part = {**empty, key: text}
        self.ev("response.content_part.done", {**base, "part": part}, BURST)
        status = "incomplete" if cut else "completed"
        done = {**item, "status": status, "content": [part]}
        self.ev("response.output_item.done", {"output_index": index, "item": done}, BURST)
        self.items.append(done)

    def call(self, name: str, arguments: str) -> None:
        index = len(self.items)
        item: Obj = {
            "id": self.item_id("fc"),
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": "call_" + self.s.rid(24),
            "name": name,
        }
        self.ev("response.output_item.added", {"output_index": index, "item": item}, self.gap)
        self.gap = PAUSE
        base = {"item_id": item["id"], "output_index": index}
        for piece in pieces_of(arguments, self.s.rng, 3, 10):
            self.ev(
                "response.function_call_arguments.delta",
                {**base, "delta": piece, "obfuscation": self.s.rid(6)},
            )
        self.ev("response.function_call_arguments.done", {**base, "arguments": arguments}, BURST)
        done = {**item, "status": "completed", "arguments": arguments}
        self.ev("response.output_item.done", {"output_index": index, "item": done}, BURST)
        self.items.append(done)

    def usage(self, inp: int, out: int, *, cached: int = 0, reasoning: int = 0) -> Obj:
        return {
            "input_tokens": inp,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": out,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": inp + out,
        }

    def end(self, usage: Obj, status: str = "completed", reason: str | None = None) -> None:
        response = {**self.response, "status": status, "output": self.items, "usage": usage}
        if reason:
            response["incomplete_details"] = {"reason": reason}
        self.ev(f"response.{status}", {"response": response}, BURST)


def _responses(
    root: Path,
    scenario: str,
    prompt: str,
    build: Callable[[Resp], None],
    *,
    tools: bool = False,
    **req: Any,
) -> Path:
    name = f"{scenario}-responses.jsonl"
    s = Stream(name, round(random.Random(name + "head").uniform(0.18, 0.35), 4))
    build(Resp(s, tools=tools))
    request = responses_request(prompt, tools=tools, **req)
    return _write(root / "responses" / name, s.reads(), responses_response(s), request)


def responses_scenarios(root: Path) -> list[Path]:
    def text(r: Resp) -> None:
        r.reasoning()
        r.message("Server-Sent Events keep one HTTP response open and push text events over it.")
        r.end(r.usage(13, 212, reasoning=192))

    def tool_call(r: Resp) -> None:
        r.reasoning()
        r.call("get_weather", '{"city":"Lisbon"}')
        r.end(r.usage(58, 87, reasoning=64))

    def parallel(r: Resp) -> None:
        r.reasoning()
        r.call("get_weather", '{"city":"Paris"}')
        r.call("get_weather", '{"city":"Tokyo"}')
        r.end(r.usage(60, 151, reasoning=128))

    def text_then_call(r: Resp) -> None:
        r.reasoning()
        r.message("I'll check the current weather in Oslo.")
        r.call("get_weather", '{"city":"Oslo"}')
        r.end(r.usage(57, 133, reasoning=64))

    def thinking(r: Resp) -> None:
        r.reasoning(
            "**Counting primes below 20**\n\nListing them: 2, 3, 5, 7, 11, 13, 17, 19. "
            "That makes eight."
        )
        r.message("There are 8 primes below 20.")
        r.end(r.usage(15, 301, reasoning=256))

    def usage(r: Resp) -> None:
        r.reasoning()
        r.message("Refunds are issued within 14 days of receiving the return (section 4.2).")
        r.end(r.usage(3120, 140, cached=3072, reasoning=112))

    def max_tokens(r: Resp) -> None:
        r.reasoning()
        r.message("Step one: freeze writes on the old cluster and", cut=True)
        r.end(r.usage(14, 64, reasoning=48), "incomplete", "max_output_tokens")

    def safety(r: Resp) -> None:
        r.reasoning()
        r.message("I can share general lab safety guidance, but", cut=True)
        r.end(r.usage(12, 40, reasoning=24), "incomplete", "content_filter")

    def error(r: Resp) -> None:
        r.reasoning()
        r.message("Assume, for contradiction, that", finish=False)
        message = (
            "An error occurred while processing your request. You can retry your request, or "
            "contact us through our help center at help.openai.com if the error persists."
        )
        err = {"type": "server_error", "code": "server_error", "message": message, "param": None}
        r.ev("error", {"error": err}, (0.1, 0.25))
        failed = {
            **r.response,
            "status": "failed",
            "error": {"code": "server_error", "message": message},
        }
        r.ev("response.failed", {"response": failed}, BURST)

    def agent_loop(r: Resp) -> None:
        r.reasoning(
            "**Looking up the weather**\n\nI'll call get_weather for Lisbon.", encrypted=True
        )
        r.call("get_weather", '{"city":"Lisbon"}')
        r.end(r.usage(58, 102, reasoning=80))

    def agent_answer(r: Resp) -> None:
        r.message("It is 18 °C and sunny in Lisbon right now.")
        r.end(r.usage(231, 16))

    stateless = {
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "reasoning": {"effort": "medium", "summary": "auto"},
    }
    return [
        _responses(root, "text", "What is SSE, in one sentence?", text),
        _responses(root, "tool-call", "Weather in Lisbon?", tool_call, tools=True),
        _responses(root, "parallel-calls", "Weather in Paris and Tokyo?", parallel, tools=True),
        _responses(root, "text-then-call", "Is it cold in Oslo?", text_then_call, tools=True),
        _responses(
            root,
            "thinking",
            "How many primes are below 20?",
            thinking,
            reasoning={"effort": "medium", "summary": "auto"},
        ),
        _responses(root, "usage", "When are refunds issued?", usage),
        _responses(root, "max-tokens", "Plan the migration.", max_tokens, max_output_tokens=64),
        _responses(root, "safety", "How do I make ...?", safety),
        _responses(root, "error", "Prove that sqrt(2) is irrational.", error),
        _responses(root, "agent-loop", "Weather in Lisbon?", agent_loop, tools=True, **stateless),
        _responses(
            root, "agent-answer", "Weather in Lisbon?", agent_answer, tools=True, **stateless
        ),
    ]


# -- OpenAI-compatible chat streams that stray from the grammar ----------------------------------


def chat_request(url: str, model: str | None, prompt: str, **extra: Any) -> Obj:
    body: Obj = {"messages": [{"role": "user", "content": prompt}], "stream": True, **extra}
    if model:
        body = {"model": model, **body}
    auth = "api-key" if "azure" in url else "authorization"
    return {
        "method": "POST",
        "url": url,
        "headers": [[auth, "[REDACTED]"], ["content-type", "application/json"]],
        "body": body,
    }


def chat_response(s: Stream, *extra: tuple[str, str]) -> Response:
    headers = [
        ("date", DATE),
        ("content-type", "text/event-stream; charset=utf-8"),
        ("transfer-encoding", "chunked"),
        ("connection", "keep-alive"),
        *extra,
    ]
    return Response(200, "OK", "HTTP/1.1", headers, s.t_head)


def _chat_file(root: Path, scenario: str, t_head: tuple[float, float]) -> tuple[str, Stream]:
    name = f"{scenario}-openai.jsonl"
    return name, Stream(name, round(random.Random(name + "head").uniform(*t_head), 4))


def azure_tool_call(root: Path) -> Path:
    """Azure OpenAI: the prompt-filter chunk first (``object: ""``, no choices), keys in
    alphabetical order, ``content_filter_results`` in each choice, a usage chunk."""
    name, s = _chat_file(root, "azure-tool-call", (0.25, 0.45))
    cid, model, created = "chatcmpl-C" + s.rid(28), "gpt-4.1-nano-2025-04-14", 1795511702
    safe = {"filtered": False, "severity": "safe"}
    filters = {"hate": safe, "self_harm": safe, "sexual": safe, "violence": safe}

    def chunk(choices: list[Obj], gap: tuple[float, float] = TOKEN, **extra: Any) -> None:
        obj = {
            "choices": choices,
            "created": created,
            "id": cid,
            "model": model,
            "obfuscation": s.rid(5),
            "object": "chat.completion.chunk",
            "system_fingerprint": "fp_" + "7a8b9c0d1e",
            "usage": None,
            **extra,
        }
        s.add(None, compact(dict(sorted(obj.items()))), gap)

    def choice(delta: Obj, finish: str | None = None, cfr: Obj | None = None) -> Obj:
        return {
            "content_filter_results": cfr or {},
            "delta": delta,
            "finish_reason": finish,
            "index": 0,
            "logprobs": None,
        }

    prompt_filter = {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": [
            {
                "prompt_index": 0,
                "content_filter_results": {
                    **filters,
                    "jailbreak": {"filtered": False, "detected": False},
                },
            }
        ],
    }
    s.add(None, compact(prompt_filter), (0.01, 0.03))
    head = {
        "index": 0,
        "id": "call_" + s.rid(24),
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    chunk(
        [choice({"content": None, "refusal": None, "role": "assistant", "tool_calls": [head]})],
        FIRST,
    )
    for piece in pieces_of('{"city":"Lisbon","unit":"celsius"}', s.rng, 3, 8):
        chunk([choice({"tool_calls": [{"function": {"arguments": piece}, "index": 0}]})])
    chunk([choice({}, "tool_calls")], BURST)
    usage = {
        "completion_tokens": 19,
        "completion_tokens_details": {"reasoning_tokens": 0},
        "prompt_tokens": 71,
        "prompt_tokens_details": {"cached_tokens": 0},
        "total_tokens": 90,
    }
    chunk([], BURST, usage=usage)
    s.add(None, "[DONE]", BURST)
    url = (
        "https://contoso-eastus2.openai.azure.com/openai/deployments/gpt-4.1-nano/chat/completions"
        "?api-version=2025-01-01-preview"
    )
    req = chat_request(url, None, "Weather in Lisbon?", stream_options={"include_usage": True})
    resp = chat_response(
        s,
        (
            "apim-request-id",
            s.rid(8, "0123456789abcdef") + "-0000-4000-8000-" + s.rid(12, "0123456789abcdef"),
        ),
        ("x-ms-region", "East US 2"),
    )
    return _write(root / "openai" / name, s.reads(), resp, req)


def openrouter_reasoning(root: Path) -> Path:
    """OpenRouter: ``: OPENROUTER PROCESSING`` comments, ``role`` on every delta, ``reasoning``
    with ``reasoning_details``, the finish reason twice (the second with the usage)."""
    name, s = _chat_file(root, "openrouter-reasoning", (0.18, 0.35))
    cid, model = "gen-1795511702-" + s.rid(20), "x-ai/grok-4-fast"
    s.comment("OPENROUTER PROCESSING", (0.01, 0.02))
    s.comment("OPENROUTER PROCESSING", (0.15, 0.3))

    def chunk(
        delta: Obj, finish: str | None = None, gap: tuple[float, float] = TOKEN, **extra: Any
    ) -> None:
        obj = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": 1795511702,
            "model": model,
            "provider": "xAI",
            "choices": [
                {
                    "index": 0,
                    "delta": {"role": "assistant", **delta},
                    "finish_reason": finish,
                    "native_finish_reason": "completed" if finish else None,
                }
            ],
            **extra,
        }
        s.add(None, compact(obj), gap)

    gap = (0.1, 0.2)
    for piece in pieces_of(
        "The user wants the boiling point of water at sea level: 100 °C.", s.rng, 4, 12
    ):
        detail = {
            "type": "reasoning.summary",
            "summary": piece,
            "format": "xai-responses-v1",
            "index": 0,
        }
        chunk({"content": "", "reasoning": piece, "reasoning_details": [detail]}, gap=gap)
        gap = TOKEN
    gap = PAUSE
    for piece in pieces_of("Water boils at 100 °C (212 °F) at sea level.", s.rng, 4, 12):
        chunk({"content": piece}, gap=gap)
        gap = TOKEN
    chunk({"content": "", "reasoning": None}, "stop", BURST)
    usage = {
        "prompt_tokens": 162,
        "completion_tokens": 74,
        "total_tokens": 236,
        "cost": 0.0000694,
        "is_byok": False,
        "prompt_tokens_details": {"cached_tokens": 128, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 58, "image_tokens": 0},
    }
    chunk({"content": ""}, "stop", BURST, usage=usage)
    s.add(None, "[DONE]", BURST)
    req = chat_request(
        "https://openrouter.ai/api/v1/chat/completions", model, "Boiling point of water?",
        reasoning={"effort": "low"},
    )  # fmt: skip
    return _write(
        root / "openai" / name, s.reads(), chat_response(s, ("x-generation-id", cid)), req
    )


def mistral_parallel_calls(root: Path) -> Path:
    """Mistral: whole calls with an id and no ``index``, two in one delta, with the finish."""
    name, s = _chat_file(root, "mistral-parallel-calls", (0.2, 0.35))
    cid, model = s.rid(32, "0123456789abcdef"), "mistral-large-latest"

    def chunk(
        delta: Obj, finish: str | None = None, gap: tuple[float, float] = TOKEN, **extra: Any
    ) -> None:
        obj = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": 1795511702,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
            **extra,
        }
        s.add(None, compact(obj), gap)

    chunk({"role": "assistant", "content": ""}, gap=(0.01, 0.03))
    calls = [
        {"id": s.rid(9), "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": s.rid(9), "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'}},
    ]
    usage = {"prompt_tokens": 96, "total_tokens": 134, "completion_tokens": 38}
    chunk({"content": None, "tool_calls": calls}, "tool_calls", (0.25, 0.45), usage=usage)
    s.add(None, "[DONE]", BURST)
    req = chat_request(
        "https://api.mistral.ai/v1/chat/completions", model, "Weather in Paris and Tokyo?"
    )
    return _write(
        root / "openai" / name, s.reads(), chat_response(s, ("x-kong-request-id", s.rid(24))), req
    )


def groq_error(root: Path) -> Path:
    """Groq: text, then ``event: error`` with the error object, and no ``[DONE]``."""
    name, s = _chat_file(root, "groq-error", (0.15, 0.3))
    cid, model = (
        "chatcmpl-"
        + s.rid(8, "0123456789abcdef")
        + "-0b1c-4d2e-9f30-"
        + s.rid(12, "0123456789abcdef"),
        "llama-3.3-70b-versatile",
    )

    def chunk(delta: Obj, gap: tuple[float, float] = TOKEN, **extra: Any) -> None:
        obj = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": 1795511702,
            "model": model,
            "system_fingerprint": "fp_" + "3f39e4be8c",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}],
            **extra,
        }
        s.add(None, compact(obj), gap)

    chunk(
        {"role": "assistant", "content": ""},
        (0.02, 0.05),
        x_groq={"id": "req_01" + s.rid(24).lower()},
    )
    gap = (0.1, 0.2)
    for piece in pieces_of("Rust's borrow checker enforces, at compile time, that", s.rng, 2, 8):
        chunk({"content": piece}, gap)
        gap = TOKEN
    err = {"error": {"message": "Service Unavailable", "type": "internal_server_error"}}
    s.add("error", compact(err), (0.1, 0.25))
    req = chat_request(
        "https://api.groq.com/openai/v1/chat/completions", model, "Explain Rust's borrow checker."
    )
    return _write(
        root / "openai" / name, s.reads(), chat_response(s, ("x-groq-region", "dls")), req
    )


def openai_scenarios(root: Path) -> list[Path]:
    return [
        azure_tool_call(root),
        openrouter_reasoning(root),
        mistral_parallel_calls(root),
        groq_error(root),
    ]


# -- golden translations ---------------------------------------------------------------------------

GENERATORS = (anthropic_scenarios, gemini_scenarios, responses_scenarios, openai_scenarios)


def golden_path(root: Path, recording: Path) -> Path:
    return root / "golden" / recording.parent.name / (recording.stem + ".sse")


def write_golden(root: Path, recording: Path) -> Path:
    """``sseconform translate --include-usage RECORDING``, as the command line writes it."""
    env = {k: v for k, v in os.environ.items() if k != "SSECONFORM_DEBUG"}
    proc = subprocess.run(
        [sys.executable, "-m", "sseconform", "translate", "--include-usage", str(recording)],
        capture_output=True,
        check=True,
        env=env,
        timeout=120,
    )
    path = golden_path(root, recording)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(proc.stdout)
    return path


def main(root: Path = ROOT, *, golden: bool = True) -> list[Path]:
    """Write the recordings (and, with ``golden``, their golden translations)."""
    recordings = [path for gen in GENERATORS for path in gen(root)]
    if golden:
        for path in recordings:
            write_golden(root, path)
    return recordings


if __name__ == "__main__":
    for written in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT):
        print(written)
