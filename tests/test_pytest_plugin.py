"""The pytest plugin as a team uses it: an inner pytest run (pytester) with the entry point."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT

pytest_plugins = ["pytester"]

CHAT = ROOT / "recordings" / "chat"
BUGGY = ROOT / "recordings" / "gateway-bugs" / "anthropic-tool-call.jsonl"
NATIVE = ROOT / "recordings" / "anthropic" / "text-then-call-anthropic.jsonl"
GOLDEN = ROOT / "recordings" / "golden" / "anthropic" / "text-then-call-anthropic.sse"


def test_marker_parametrises_over_a_folder_and_asserts(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        f"""
        import pytest
        from sseconform.pytest_plugin import assert_conforms

        @pytest.mark.sseconform_streams({str(CHAT)!r})
        def test_stream(sseconform_stream):
            assert_conforms(sseconform_stream)

        def test_buggy():
            assert_conforms({str(BUGGY)!r})
        """
    )
    result = pytester.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_stream?parallel-tool-calls.jsonl? PASSED*",
            "*test_stream?text-usage.jsonl? PASSED*",
            "*AssertionError: *anthropic-tool-call.jsonl: * finding(s)*",
            "*I003*",
        ]
    )


def test_same_content_and_replay_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        f"""
        import pathlib

        import httpx
        from sseconform.pytest_plugin import assert_same_content

        def test_translation_matches():
            assert_same_content({str(NATIVE)!r}, {str(GOLDEN)!r})

        def test_a_lost_token_is_named():
            body = pathlib.Path({str(GOLDEN)!r}).read_bytes().replace(b"ditions in", b"", 1)
            assert_same_content({str(NATIVE)!r}, body)

        def test_replay(sseconform_replay):
            server = sseconform_replay({str(NATIVE)!r}, speed=0)
            assert server.url.startswith("http://127.0.0.1:")
            r = httpx.post(server.url + "/v1/messages", json={{"stream": True}})
            assert r.status_code == 200 and b"message_stop" in r.content
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*differs from*", "*text: lost: * chars the upstream sent*"])


def test_streams_helper_rejects_a_missing_folder(tmp_path: object) -> None:
    from sseconform.pytest_plugin import streams

    with pytest.raises(FileNotFoundError):
        streams(str(tmp_path) + "/nope")
    assert [p.name for p in streams(CHAT)] == ["parallel-tool-calls.jsonl", "text-usage.jsonl"]
