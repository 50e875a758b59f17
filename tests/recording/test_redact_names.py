"""What counts as a credential's name: the words it says, not a list of today's names.

A header, query parameter or body field holds a credential when one of its words is a key,
a token, auth, a secret, a cookie, a password, credentials or a signature, in any case,
behind any vendor's prefix, however its words are joined; a count of tokens, an author, a
vendor whose name ends like a key, a JSON Schema's property names and a cookie's attributes
are not.
"""

from __future__ import annotations

import json

import pytest

from sseconform.mask import REDACTED, Masker
from sseconform.recording.redact import (
    Redactor,
    credential_name,
    credential_values,
    request_secrets,
    secret_header,
)

CREDENTIALS = [
    "Authorization", "proxy-authorization", "x-api-key", "X-API-KEY", "x-goog-api-key",
    "x-portkey-api-key", "X-Portkey-Virtual-Key", "cf-aig-authorization", "helicone-auth",
    "Helicone-Auth", "x-litellm-api-key", "x-auth-token", "x-amz-security-token",
    "Ocp-Apim-Subscription-Key", "set-cookie", "Cookie", "api_key", "apikey", "xapikey",
    "accessToken", "APIKey", "user_token", "refresh_token", "client_secret", "clientSecret",
    "password", "passphrase", "credentials", "sig", "X-Amz-Signature", "oauth", "secrets",
    "api_key[]", "api\x00key",
]  # fmt: skip
NOT_CREDENTIALS = [
    "max_tokens", "maxOutputTokens", "x-ratelimit-remaining-tokens",
    "anthropic-ratelimit-input-tokens-remaining", "keep-alive", "author", "authority",
    "www-authenticate", "x-portkey-provider", "x-portkey-custom-host", "monkey", "tokenizer",
    "content-type", "x-request-id", "cache_control", "keys", "model", "metadata",
    "prompt_cache_key", "Idempotency-Key",
]  # fmt: skip


@pytest.mark.parametrize("name", CREDENTIALS)
def test_a_name_that_says_credential_is_one(name: str) -> None:
    assert credential_name(name)


@pytest.mark.parametrize("name", NOT_CREDENTIALS)
def test_a_name_that_does_not_is_not(name: str) -> None:
    assert not credential_name(name)
    assert not secret_header(name)


def test_the_header_list_redacts_by_the_rule_and_keep_overrides_it() -> None:
    headers = [
        ("X-Portkey-Api-Key", "pk-live-0123456789"),
        ("cf-aig-authorization", "Bearer cfk-0123456789"),
        ("x-ratelimit-remaining-tokens", "2026-01-01T00:00:00Z"),
    ]
    r = Redactor(masker=Masker())
    stored = dict(r.header_list(headers, "request"))
    assert stored["X-Portkey-Api-Key"] == REDACTED and stored["cf-aig-authorization"] == REDACTED
    assert stored["x-ratelimit-remaining-tokens"] == "2026-01-01T00:00:00Z"
    assert {"pk-live-0123456789", "cfk-0123456789"} <= r.masker.secrets
    kept = Redactor.configured(keep=["x-portkey-api-key"])
    kept.masker = Masker()
    assert dict(kept.header_list(headers, "request"))["X-Portkey-Api-Key"] == "pk-live-0123456789"


def test_a_cookie_gives_its_values_not_its_attributes() -> None:
    r = Redactor(masker=Masker())
    r.header_list(
        [("Set-Cookie", "session=abcdefgh12345678; Path=/; HttpOnly; Expires=Wed, 21 Oct 2026"),
         ("Cookie", "a=first-value-123; b=second-value-456")],
        "response",
    )  # fmt: skip
    assert r.masker.secrets == {"abcdefgh12345678", "first-value-123", "second-value-456"}
    assert credential_values([("Set-Cookie", "s=abcdefgh12345678; Secure")]) == ["abcdefgh12345678"]


def test_a_tools_schema_keeps_its_property_names() -> None:
    """``properties`` of a tool's parameters name what the model fills in: no value to
    redact there; a field of the body with the same name is one."""
    body = {
        "api_key": "sk-live-value-0123",
        "tools": [{"type": "function", "function": {"name": "login", "parameters": {
            "type": "object", "properties": {"api_key": {"type": "string"},
                                             "token": {"type": "string"}}}}}],
    }  # fmt: skip
    out = Redactor(masker=Masker()).body(body)
    assert out["api_key"] == REDACTED
    assert out["tools"] == body["tools"]


@pytest.mark.parametrize(
    "text",
    [
        '{"model": "m", "api_key": "sk-live-value-0123", "metadata": {"user_token": "tok-',
        '{"model": "m", "metadata": {"user_token": "tok-live-0123456"}, "messages": [',
        "model=m&accessToken=tok-live-0123456",
    ],
)
def test_a_body_cut_short_or_not_json_loses_its_secret_named_values(text: str) -> None:
    r = Redactor(masker=Masker())
    out = r.text(text)
    assert "sk-live-value-0123" not in out and "tok-live-0123456" not in out
    assert REDACTED in out and "model" in out


def test_a_whole_json_body_is_redacted_at_any_depth() -> None:
    text = json.dumps({"model": "m", "metadata": {"user_token": "tok-live-0123456"}})
    out = json.loads(Redactor(masker=Masker()).text(text))
    assert out == {"model": "m", "metadata": {"user_token": REDACTED}}


def test_replay_scrubs_every_credential_a_request_carried() -> None:
    headers = {"x-portkey-api-key": "pk-live-0123456789", "helicone-auth": "Bearer hk-0123456789",
               "x-request-id": "req-0123456789"}  # fmt: skip
    found = request_secrets("/v1/chat/completions", headers)
    assert {"pk-live-0123456789", "hk-0123456789"} <= set(found)
    assert "req-0123456789" not in found
