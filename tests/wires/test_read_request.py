"""Each wire reads a request into one meaning: the same ask in four wires' words reads alike."""

from __future__ import annotations

from typing import Any

import pytest

from sseconform.wires import by_endpoint
from sseconform.wires.base import PARAMS

SCHEMA = {"type": "object"}
#: One ask (777 tokens at most, temperature 0.3, top_p 0.9, stop at END, the get_weather tool
#: forced, JSON by a schema, thinking on) in each endpoint's words.
SAID: dict[str, dict[str, Any]] = {
    "chat": {
        "max_completion_tokens": 777, "temperature": 0.3, "top_p": 0.9, "stop": "END",
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "response_format": {"type": "json_schema",
                            "json_schema": {"name": "a", "strict": True, "schema": SCHEMA}},
        "reasoning_effort": "medium",
    },
    "messages": {
        "max_tokens": 777, "temperature": 0.3, "top_p": 0.9, "stop_sequences": ["END"],
        "tool_choice": {"type": "tool", "name": "get_weather"},
        "output_format": {"type": "json_schema", "schema": SCHEMA},
        "thinking": {"type": "enabled", "budget_tokens": 2048},
    },
    "responses": {
        "max_output_tokens": 777, "temperature": 0.3, "top_p": 0.9,
        "tool_choice": {"type": "function", "name": "get_weather"},
        "text": {"format": {"type": "json_schema", "name": "a", "strict": True,
                            "schema": SCHEMA}},
        "reasoning": {"effort": "medium"},
    },
    "gemini": {
        "generationConfig": {
            "maxOutputTokens": 777, "temperature": 0.3, "topP": 0.9, "stopSequences": ["END"],
            "responseMimeType": "application/json", "responseSchema": SCHEMA,
            "thinkingConfig": {"thinkingBudget": 2048},
        },
        "toolConfig": {"functionCallingConfig": {"mode": "ANY",
                                                 "allowedFunctionNames": ["get_weather"]}},
    },
}  # fmt: skip
MEANT = {
    "max_output_tokens": 777,
    "temperature": 0.3,
    "top_p": 0.9,
    "stop": frozenset({"END"}),
    "tool_choice": "tool:get_weather",
    "reasoning": True,
}


@pytest.mark.parametrize("endpoint", list(SAID))
def test_one_ask_in_each_wires_words_means_the_same(endpoint: str) -> None:
    wire = by_endpoint(endpoint)
    asked = wire.read_request(SAID[endpoint], {})
    checked = 0
    for param, value in MEANT.items():
        if param in wire.carries:
            assert asked[param].value == value, (endpoint, param, asked[param])
            checked += 1
    assert checked >= 5
    kind, _, _ = asked["structured_output"].value
    assert kind == "json_schema"
    assert set(asked) <= wire.carries <= set(PARAMS)


@pytest.mark.parametrize(
    ("endpoint", "body", "choice"),
    [
        ("chat", {"tool_choice": "required"}, "required"),
        ("messages", {"tool_choice": {"type": "any"}}, "required"),
        ("responses", {"tool_choice": "required"}, "required"),
        ("gemini", {"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}, "required"),
        ("messages", {"tool_choice": {"type": "auto"}}, "auto"),
        ("gemini", {"toolConfig": {"functionCallingConfig": {"mode": "NONE"}}}, "none"),
    ],
)
def test_a_forced_call_reads_alike(endpoint: str, body: dict[str, Any], choice: str) -> None:
    assert by_endpoint(endpoint).read_request(body, {})["tool_choice"].value == choice


def test_thinking_off_reads_as_off_in_each_wire() -> None:
    off: dict[str, dict[str, Any]] = {
        "chat": {"reasoning_effort": "none"},
        "messages": {"thinking": {"type": "disabled"}},
        "responses": {"reasoning": {"effort": "none"}},
        "gemini": {"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}},
    }
    for endpoint, body in off.items():
        assert by_endpoint(endpoint).read_request(body, {})["reasoning"].value is False


def test_cache_markers_are_read_with_their_ttl_and_place() -> None:
    body = {
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        "tools": [{"name": "t", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "q",
                                          "cache_control": {"type": "ephemeral"}}]},
        ],
    }  # fmt: skip
    said = by_endpoint("messages").read_request(body, {"anthropic-beta": "a, b"})
    assert said["cache_markers"].value == ("5m", "1h", "5m")
    assert "system.0 (5m)" in said["cache_markers"].words
    assert "messages.0.content.0 (5m)" in said["cache_markers"].words
    assert said["features"].value == frozenset({"a", "b"})


@pytest.mark.parametrize("endpoint", list(SAID))
@pytest.mark.parametrize(
    "odd", [None, True, "x", [], {"generationConfig": []}, {"tool_choice": 3, "stop": [1]}]
)
def test_odd_values_are_no_parameters_and_no_crash(endpoint: str, odd: Any) -> None:
    body = odd if isinstance(odd, dict) else {"max_tokens": odd, "thinking": odd, "text": odd}
    asked = by_endpoint(endpoint).read_request(body, {})
    assert "stop" not in asked and "max_output_tokens" not in asked


def test_gemini_reads_the_protos_snake_case_too() -> None:
    """Gemini's JSON takes the proto's field names as well (LiteLLM writes
    ``generation_config`` keys so): the same meaning."""
    body = {
        "generationConfig": {"max_output_tokens": 777, "stop_sequences": ["END"],
                             "thinking_config": {"thinking_budget": 0}},
        "tool_config": {"function_calling_config": {"mode": "ANY",
                                                    "allowed_function_names": ["f"]}},
    }  # fmt: skip
    said = by_endpoint("gemini").read_request(body, {})
    assert said["max_output_tokens"].value == 777
    assert said["stop"].value == frozenset({"END"})
    assert said["reasoning"].value is False
    assert said["tool_choice"].value == "tool:f"


def test_a_gemini_thinking_level_asks_for_thinking() -> None:
    """Portkey maps a chat ``reasoning_effort`` to ``thinkingLevel``: thinking on."""
    body = {"generationConfig": {"thinkingConfig": {"thinkingLevel": "medium"}}}
    said = by_endpoint("gemini").read_request(body, {})
    assert said["reasoning"].value is True and said["reasoning_effort"].value == "medium"
