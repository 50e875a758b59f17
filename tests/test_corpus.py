"""The real-stream corpus in ../shared/real-streams: no crash, and each known quirk found.

The MANIFEST tags what each capture shows (``observations=``, ``features=``); every tag
that names a grammar quirk must be reported by the rule made for it. Real OpenAI streams
must pass with no diagnostic at all. Skips when the corpus is absent.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from sseconform import Settings, check_bytes, check_file
from tests.conftest import REAL_STREAMS
from tests.test_cases import AT_END, decoded_events, starts_a_line, where_of

MANIFEST = REAL_STREAMS / "MANIFEST.tsv"


def _rows(api: str) -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with open(MANIFEST, newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f, delimiter="\t") if r["api"] == api]


CHAT = _rows("chat-completions")
needs_corpus = pytest.mark.skipif(not CHAT, reason="../shared/real-streams is not present")


def _tags(row: dict[str, str], key: str) -> set[str]:
    for part in row["notes"].split(";"):
        part = part.strip()
        if part.startswith(key + "="):
            return {t.strip() for t in part[len(key) + 1 :].split(",")}
    return set()


def _count_assistant_roles(body: bytes) -> int:
    return body.count(b'"role":"assistant"') + body.count(b'"role": "assistant"')


def _rendered(row: dict[str, str]) -> bool:
    """Rendered captures never recorded [DONE], comments or CRLF (see the corpus README)."""
    return "rendered one data: line" in row["notes"]


def _expected_codes(row: dict[str, str], body: bytes) -> set[str]:
    """The codes a capture must produce, from its MANIFEST tags and its visible bytes."""
    obs = row["notes"]
    features = _tags(row, "features")
    want: set[str] = set()
    if "object != chat.completion.chunk" in obs and row["provider"] != "azure-openai":
        want.add("G001")  # Perplexity's chat.completion.done (Azure's prompt-filter chunk passes)
    if "without index" in obs:
        want.add("I001")  # Mistral's whole calls
    if "first tool_calls index is 1" in obs:
        want.add("I003")
    if "finish_reason repeated" in obs:
        want.add("F004")  # OpenRouter-style double finish
    if "role-repeated-in-deltas" in features and _count_assistant_roles(body) > 1:
        want.add("G007")  # a repeated `"role": null` is no repetition for clients
    if "sse-comments" in features:
        want.add("W006")  # ": OPENROUTER PROCESSING" and friends
    if _reasoning_text_details(body) or b'"reasoning":"' in body or b'"reasoning": "' in body:
        want.add("G012")  # reasoning_details entries holding state alone are the carrier
    if b"data: [DONE]" not in body and not _rendered(row):
        want.add("D001")  # a verbatim body with no [DONE]; rendered files never kept it
    return want


def _reasoning_text_details(body: bytes) -> bool:
    """Whether a chunk's ``reasoning_details`` hold reasoning text (not state alone)."""
    for line in body.split(b"\n"):
        if b'"reasoning_details"' in line and (b'"text"' in line or b'"summary"' in line):
            return True
    return False


@needs_corpus
@pytest.mark.parametrize("row", CHAT, ids=lambda r: r["path"])
def test_chat_stream_checks_without_crash_and_finds_its_quirks(row: dict[str, str]) -> None:
    path = REAL_STREAMS / row["path"]
    result = check_file(path)
    assert result.error is None
    assert result.frames > 0
    missing = _expected_codes(row, path.read_bytes()) - result.codes
    if "D001" in missing and ("E003" in result.codes or "E002" in result.codes):
        missing.discard("D001")  # a truncated stream reports E003 in place of D001
    assert not missing, f"quirks not reported: {sorted(missing)}; got {sorted(result.codes)}"


@needs_corpus
def test_real_openai_streams_pass_clean() -> None:
    """No diagnostic at all; a rendered capture may only lack the [DONE] its source dropped."""
    rows = [r for r in CHAT if r["provider"] == "openai" and not r["path"].startswith("_edited/")]
    assert len(rows) >= 10
    for r in rows:
        result = check_file(REAL_STREAMS / r["path"])
        allowed = {"D001"} if _rendered(r) else set()
        assert result.codes <= allowed, (r["path"], [str(d) for d in result.findings])


@needs_corpus
def test_whole_arguments_in_the_first_delta_are_reported() -> None:
    """Groq sends each call whole in its first delta (GUIDE: the guide snippet doubles it)."""
    result = check_file(REAL_STREAMS / "groq" / "tool-call__vercel-ai.sse")
    assert "T008" in result.codes


@needs_corpus
@pytest.mark.parametrize("api", ["anthropic-messages", "gemini", "responses"])
def test_native_streams_are_reported_as_leaks(api: str) -> None:
    """A native stream served where chunks belong is caught by no-native-leak, not crashed on."""
    rows = [r for r in _rows(api) if not r["path"].startswith("_edited/")]  # live captures
    assert rows
    for r in rows:
        result = check_file(REAL_STREAMS / r["path"])
        assert result.error is None
        expected = {"N001", "N002"} if result.frames else {"W018"}  # a JSON error body
        assert result.codes & expected, (r["path"], sorted(result.codes))
        assert not result.ok()


@needs_corpus
def test_every_corpus_file_checks_without_crash() -> None:
    for path in sorted(Path(REAL_STREAMS).rglob("*.sse")):
        result = check_file(path)
        assert result.error is None, path


# -- usage: one definition (sseconform.rules.usage), what real providers send ---------------------

#: Gateways and routers in the corpus: their usage is a translation, not a provider's own.
GATEWAYS = frozenset({"openrouter", "vercel-ai-gateway", "huggingface-router"})


@needs_corpus
def test_no_provider_gets_a_usage_error_from_its_own_stream() -> None:
    """OpenAI's definition holds for every provider's own stream; xAI spells it its way
    (reasoning outside completion_tokens, inside the total): U006, a warning, never U004."""
    own = [r for r in CHAT if r["provider"] not in GATEWAYS and not r["path"].startswith("_")]
    assert len(own) >= 100
    spelled: set[str] = set()
    for r in own:
        result = check_file(REAL_STREAMS / r["path"])
        assert "U004" not in result.codes, (r["path"], [str(d) for d in result.findings])
        if "U006" in result.codes:
            spelled.add(r["provider"])
    assert spelled == {"xai"}


@needs_corpus
def test_xai_usage_reads_with_its_reasoning_in_the_completion() -> None:
    rows = [r for r in CHAT if r["provider"] == "xai"]
    assert rows
    for r in rows:
        [u006] = [d for d in check_file(REAL_STREAMS / r["path"]).findings if d.code == "U006"]
        assert "leaves out the" in u006.message and "read as completion" in u006.message


@needs_corpus
def test_a_gateway_that_counts_gemini_thoughts_nowhere_is_reported() -> None:
    """The Vercel AI Gateway serving Gemini: reasoning_tokens above completion_tokens and a
    total without them (Gemini's own totalTokenCount, in the same stream, counts them)."""
    name = "vercelcommon-gemini-2.5-flash-simple-streaming__fantasy.sse"
    path = REAL_STREAMS / "vercel-ai-gateway" / name
    if not path.is_file():
        pytest.skip("capture not in this corpus")
    [u004] = [d for d in check_file(path).findings if d.code == "U004"]
    assert u004.message.startswith("reasoning_tokens 25 > completion_tokens 2")
    assert b'"totalTokenCount":36' in path.read_bytes()


@needs_corpus
def test_every_location_in_the_corpus_is_where_an_event_starts() -> None:
    """The rule of tests/test_cases.py on every real stream, whatever its framing."""
    for path in sorted(Path(REAL_STREAMS).rglob("*.sse")):
        body = path.read_bytes()
        events = decoded_events(body, Settings())
        starts = {ev.frame: (ev.frame, ev.line, ev.offset) for ev in events}
        last = starts[events[-1].frame] if events else (None, 1, 0)
        for d in check_bytes(body).findings:
            where = (path.name, str(d))
            if d.code in AT_END or (d.code == "E002" and "ends after" in d.message):
                assert where_of(d) == last, where
            elif d.frame in starts:
                assert where_of(d) == starts[d.frame], where
            else:
                at = where_of(d)[2]
                assert d.code.startswith("W") and starts_a_line(body, at), where
                assert not any(ev.offset <= at < ev.end for ev in events), where
