"""A griffe extension that lets privamp's plain-text docstrings render as Markdown in the API reference.

privamp's docstrings are written to be read in a terminal: Sphinx roles (``:func:`name```), formulas with brackets and
asterisks (``Δ^l[f](0)``, ``[(1 − p)^{1−l} + p^{1−l}] [derived]``, ``a*b``), reStructuredText simple tables
(``====  ====``). Read as Markdown, brackets become links, asterisks emphasis and tables run-on text. This extension
turns each role into an optional cross-reference (plain code where the target is not documented), shows each simple
table as preformatted text, and escapes ``[``, ``]`` and ``*`` (but for emphasis) outside code (spans and indented
blocks) before mkdocstrings renders the docstring. The source is not changed.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|data|attr|exc|obj|const|ref):`~?([^`]+)`")
_BULLET = re.compile(r"^(\s*)([*+-]|\d+\.)(\s+)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)[^*\n]+?(?<=\S)\*(?![\w*])")
_TABLE_RULE = re.compile(r"^\s*=+(\s+=+)+\s*$")


def _role(match: re.Match[str], module: str) -> str:
    """A role as an optional cross-reference (plain code when the target is not in the reference)."""
    target = match.group(1)
    shown = target.rsplit(".", 1)[-1] if match.group(0).split("`", 1)[1].startswith("~") else target
    identifier = target if target.startswith("privamp.") or not module else f"{module}.{target}"
    return f'<autoref identifier="{identifier}" optional><code>{shown}</code></autoref>'


def _escape_text(text: str) -> str:
    """Brackets escaped; asterisks escaped unless they enclose an emphasised phrase (``*the paper's title*``)."""
    out, last = [], 0
    for phrase in _EMPHASIS.finditer(text):
        out.append(text[last : phrase.start()].replace("*", r"\*"))
        out.append(phrase.group(0))
        last = phrase.end()
    out.append(text[last:].replace("*", r"\*"))
    return "".join(out).replace("[", r"\[").replace("]", r"\]")


def _escape_line(line: str) -> str:
    bullet = _BULLET.match(line)
    head, body = (line[: bullet.end()], line[bullet.end() :]) if bullet else ("", line)
    out, last = [], 0
    for span in _CODE_SPAN.finditer(body):
        out.append(_escape_text(body[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(_escape_text(body[last:]))
    return head + "".join(out)


def fence_simple_tables(lines: list[str]) -> list[str]:
    """reStructuredText simple tables (a rule, the header, a rule, the rows, a rule) as fenced preformatted text."""
    out: list[str] = []
    rules = 0
    for line in lines:
        if _TABLE_RULE.match(line):
            if rules == 0:
                out += ["", "```text"]
            rules += 1
            out.append(line)
            if rules == 3:
                out += ["```", ""]
                rules = 0
            continue
        out.append(line)
    return out


def markdown_safe(docstring: str, module: str = "") -> str:
    """The docstring with roles as cross-references (names relative to ``module`` qualified), simple tables
    preformatted, and Markdown link/emphasis characters escaped outside code."""
    text = _ROLE.sub(lambda m: _role(m, module), docstring)
    lines, out, in_fence = fence_simple_tables(text.split("\n")), [], False
    previous_blank = True
    in_indented = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            out.append(line)
            continue
        indented = line.startswith("    ") and (previous_blank or in_indented)
        in_indented = bool(stripped) and indented
        previous_blank = not stripped
        out.append(line if in_fence or indented else _escape_line(line))
    return "\n".join(out)


class MarkdownSafeDocstrings(Extension):
    """Rewrite every docstring with :func:`markdown_safe` when griffe loads it."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_safe(obj.docstring.value, obj.module.path)
