"""The page every HTML report shares: escaping, the document shell, styles and the script.

One self-contained file: styles and script inline, nothing fetched when it is viewed. The
page's Content-Security-Policy allows no network and only the one inline script whose
hash it names, so even markup that slipped through escaping could not run script. All
text from the wire goes through :func:`esc` (element text and attribute values alike).
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable
from pathlib import Path

from sseconform.rules import catalog

__all__ = [
    "anchors",
    "attr",
    "esc",
    "page",
    "rule_doc",
    "rule_link",
    "rules_section",
    "slug",
    "visible",
]

#: C0/C1 controls other than newline and tab, and the JS line separators, made visible.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0)) if c not in (9, 10)}
_CONTROLS.update({0x2028: "\\u2028", 0x2029: "\\u2029"})


def visible(text: str) -> str:
    """Control characters (but newline and tab) as escapes, as a terminal report shows them."""
    return text.translate(_CONTROLS)


def esc(text: object) -> str:
    """Anything, as safe element text or a quoted attribute value."""
    return html.escape(visible(str(text)), quote=True)


def attr(text: object) -> str:
    """A quoted attribute value."""
    return f'"{esc(text)}"'


def slug(name: str) -> str:
    """An id from a scenario or file name: letters, digits and dashes only."""
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "x"


_HERE = Path(__file__).parent


#: Styles and the script, inlined into every page (kept as files to be read and linted).
def anchors(names: list[str]) -> list[str]:
    """A unique element id per name, in order (two names may slug alike)."""
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        base = candidate = slug(name)
        n = 1
        while candidate in seen:
            n += 1
            candidate = f"{base}-{n}"
        seen.add(candidate)
        out.append(candidate)
    return out


STYLE = (_HERE / "page.css").read_text(encoding="utf-8")
SCRIPT = (_HERE / "page.js").read_text(encoding="utf-8")


def page(title: str, body: str) -> str:
    """The whole document around ``body`` (already escaped HTML)."""
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content={attr(csp)}>'
        f'<meta name="referrer" content="no-referrer"><title>{esc(title)}</title>'
        f"<style>{STYLE}</style></head>\n<body>\n{body}\n<script>{SCRIPT}</script>\n"
        "</body></html>\n"
    )


def _rule(key: str) -> catalog.Rule | None:
    """The rule a code, name or finding key names (``E002``, ``diff:lost:text``,
    ``turn2:history:refused``), or None."""
    parts = key.split(":")
    if len(parts) > 1 and parts[0].startswith("turn") and parts[0][4:].isdigit():
        parts = parts[1:]
    try:
        return catalog.GATE_RULES.get(":".join(parts[:2])) or catalog.get(parts[0])
    except KeyError:
        return None


def rule_anchor(code: str) -> str:
    return "rule-" + code.replace(":", "-")


def rule_link(code: str) -> str:
    """A finding's pointer to its rule's docs, which the page gives once, at its end
    (:func:`rules_section`): a page of many findings of one rule stays small."""
    rule = _rule(code)
    if rule is None:
        return ""
    return (
        f'<p class="doc"><a href="#{rule_anchor(rule.code)}">What {esc(rule.code)} means'
        f"</a>: {esc(rule.summary)}</p>"
    )


def rules_section(codes: Iterable[str]) -> str:
    """Each rule the page's findings name, its docs once ("" when there is none)."""
    docs = [rule_doc(c) for c in dict.fromkeys(codes)]
    if not any(docs):
        return ""
    return (
        '<section id="rules"><h2>The rules behind these findings</h2>'
        + "".join(docs)
        + ("</section>")
    )


def rule_doc(code: str) -> str:
    """A rule's documentation, folded: what ``sseconform rule CODE`` prints ("" for a code
    that is not a rule)."""
    rule = _rule(code)
    if rule is None:
        return ""
    doc = catalog.doc(rule.code)
    parts = []
    for key, text in doc.sections():
        if key == "example":
            parts.append(f"<pre>{esc(text)}</pre>")
            if doc.example_from:
                parts.append(f"<p class='muted'>From {esc(doc.example_from)}.</p>")
        else:
            cls = " class='fix'" if key == "fix" else ""
            parts.append(f"<p{cls}><em>{_TITLES[key]}.</em> {esc(text)}</p>")
    return (
        f'<details class="doc" id="{rule_anchor(rule.code)}"><summary>What '
        f"{esc(rule.code)} means</summary>"
        f"<p><strong>{esc(rule.name)}</strong>: {esc(rule.summary)}</p>"
        + "".join(parts)
        + "</details>"
    )


#: Each section's title in the HTML report (``RuleDoc.sections`` gives the order).
_TITLES = {
    "spec": "Specification",
    "what": "What it does",
    "why": "Why it matters",
    "clients": "Which clients break",
    "fix": "Fix",
}
