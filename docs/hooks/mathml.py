"""An MkDocs hook that renders the pages' math to MathML at build time, so that the site needs no script and no
network to show it (browsers render MathML Core natively).

``pymdownx.arithmatex`` (generic mode) leaves each formula as ``<span class="arithmatex">\\(...\\)</span>`` or
``<div class="arithmatex">\\[...\\]</div>``; this hook replaces each with the MathML of ``latex2mathml`` (pure
Python, the ``docs`` extra); the headings' formulas in the navigation (the table of contents, written as plain
``\\(...\\)`` text by the theme) likewise. A formula it cannot convert (or TeX it does not know) is a build warning
naming the page and the formula (an error under ``mkdocs build --strict``), never a silent gap.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

from latex2mathml.converter import convert

log = logging.getLogger("mkdocs.hooks.mathml")

_FORMULA = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<block>.*?)\\\])\s*</(?P=tag)>',
    re.S,
)
#: A formula left as text in a navigation label (a heading of the table of contents).
_NAV_LABEL = re.compile(r'(<span class="md-ellipsis">)(.*?)(</span>)', re.S)
_NAV_FORMULA = re.compile(r"\\\((.+?)\\\)", re.S)
#: TeX that latex2mathml does not know, written as what it means (spacing and sizing that MathML sets itself).
_SPELLINGS = (
    (re.compile(r"\\(?:displaystyle|textstyle|nonumber|notag)\b"), ""),
    (re.compile(r"\\tag\{([^{}]*)\}"), r"\\qquad (\1)"),
    (re.compile(r"\{\\rm\s*([^{}]*)\}"), r"\\mathrm{\1}"),
    (re.compile(r"\\rm\b\s*"), r"\\mathrm "),
    (re.compile(r"\\([Bb]ig{1,2}[lr]?)\b"), ""),
    (re.compile(r"\\(begin|end)\{aligned\}"), r"\\\1{align*}"),
)
#: What the converter writes for TeX it does not know: the command or an alignment mark as a plain identifier.
_UNKNOWN = re.compile(r"<m(?:i|o|n|text)>(\\[A-Za-z]+|&amp;|&)</m(?:i|o|n|text)>")


def to_mathml(tex: str, display: bool) -> str:
    """The MathML of one formula (``display``: a block)."""
    for pattern, spelling in _SPELLINGS:
        tex = pattern.sub(spelling, tex)
    out = str(convert(tex.strip(), display="block" if display else "inline"))
    unknown = _UNKNOWN.search(out)
    if unknown:
        raise ValueError(f"latex2mathml does not know {unknown.group(1)}")
    return out


def on_page_content(content: str, page: Any, **_: Any) -> str:
    def render(match: re.Match[str]) -> str:
        display = match.group("block") is not None
        tex = html.unescape(match.group("block") if display else match.group("inline"))
        try:
            return to_mathml(tex, display)
        except Exception as exc:  # noqa: BLE001 — any failure of the converter is reported, with the formula
            log.warning("%s: cannot render the formula %r to MathML (%s)", page.file.src_uri, tex[:120], exc)
            return match.group(0)

    return _FORMULA.sub(render, content)


def on_post_page(output: str, page: Any, **_: Any) -> str:
    def label(match: re.Match[str]) -> str:
        inner = _NAV_FORMULA.sub(lambda m: to_mathml(html.unescape(m.group(1)), False), match.group(2))
        return match.group(1) + inner + match.group(3)

    return _NAV_LABEL.sub(label, output)
