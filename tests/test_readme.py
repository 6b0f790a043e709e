"""The documentation runs: every ```python block of README.md and of docs/**/*.md is executed, and the README's
set-up commands are the ones CI runs (.ci/run).

Blocks of one file are cumulative, as a reader would run them: the test of block i executes blocks 0..i of that file
in order in one fresh namespace (so a later block may use names an earlier one defined) and fails on any exception
or warning raised by block i or, attributed to it, by an earlier block. Each test starts from a fresh namespace, so
the tests are independent of one another and of their order (pytest-xdist). Comments such as ``# -> ...`` are only
comments. A block of docs/ preceded by a line ``<!-- no-test -->`` (blank lines allowed in between) is not run.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CI_SCRIPT = ROOT / ".ci" / "run"
NO_TEST = "<!-- no-test -->"
TEST_COMMAND = "pip install -e '.[test]' && ruff check src tests && mypy src && python -m pytest"

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    source: str
    no_test: bool

    @property
    def label(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def code_blocks(path: Path, text: str | None = None) -> list[Block]:
    """Fenced code blocks of a Markdown file (CommonMark fences: ``` or ~~~, at most three spaces of indent)."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, start = m["fence"], i
        lang = m["info"].strip().split(" ")[0].lower() if m["info"].strip() else ""
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = _FENCE.match(lines[i])
            if close and close["fence"][0] == fence[0] and len(close["fence"]) >= len(fence) and not close["info"]:
                break
            body.append(lines[i])
            i += 1
        prev = start - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        no_test = prev >= 0 and lines[prev].strip() == NO_TEST
        blocks.append(Block(path, start + 1, lang, "\n".join(body) + "\n", no_test))
        i += 1
    return blocks


def python_blocks(path: Path, honour_no_test: bool) -> list[Block]:
    return [b for b in code_blocks(path) if b.lang in ("python", "py") and not (honour_no_test and b.no_test)]


def _cases() -> list[Any]:
    cases: list[Any] = []
    sources = [(README, False)] + [(p, True) for p in sorted((ROOT / "docs").rglob("*.md"))]
    for path, honour in sources:
        blocks = python_blocks(path, honour)
        for i, block in enumerate(blocks):
            cases.append(pytest.param(blocks[: i + 1], id=block.label))
    return cases


def run_blocks(blocks: list[Block]) -> None:
    """Execute blocks in order in one fresh namespace; stdout is captured so that the suite prints nothing."""
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for block in blocks:
        code = compile(block.source, block.label, "exec")
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, namespace)
        except Exception:
            pytest.fail(f"code block {block.label} raised:\n{traceback.format_exc()}", pytrace=False)


@pytest.mark.parametrize("blocks", _cases())
def test_code_block_runs(blocks: list[Block]) -> None:
    run_blocks(blocks)


def test_readme_has_python_blocks() -> None:
    """The extraction finds the README's example (a broken fence would otherwise silently test nothing)."""
    assert python_blocks(README, honour_no_test=False), "README.md has no ```python block"


def test_no_test_marker_is_honoured(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("```python\nx = 1\n```\n\n<!-- no-test -->\n\n```python\nraise SystemExit\n```\n~~~py\ny = 2\n~~~\n")
    got = python_blocks(doc, honour_no_test=True)
    assert [b.source for b in got] == ["x = 1\n", "y = 2\n"]
    assert len(python_blocks(doc, honour_no_test=False)) == 3


# ---------------------------------------------------------------------------------------------------- set-up commands


def setup_commands() -> list[str]:
    """The shell blocks of the README's "Set-up" section, each joined into one line."""
    text = README.read_text(encoding="utf-8")
    m = re.search(r"^## Set-up.*?$(?P<body>.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert m is not None, "README.md has no '## Set-up' section"
    blocks = [b for b in code_blocks(README, m["body"]) if b.lang in ("bash", "sh", "shell", "console")]
    return [" ".join(b.source.split()) for b in blocks]


def ci_commands() -> list[str]:
    """The commands .ci/run executes: its non-comment lines after ``cd``/``set``, whitespace-normalised."""
    lines = [" ".join(line.split()) for line in CI_SCRIPT.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and not line.startswith("#") and not line.startswith(("set ", "cd "))]


def test_readme_has_the_two_setup_commands() -> None:
    commands = setup_commands()
    assert len(commands) == 2, commands
    assert commands[1].endswith(TEST_COMMAND), commands[1]


def test_readme_test_command_is_what_ci_runs() -> None:
    """The README's second set-up command, split at ``&&``, is exactly the sequence of commands of .ci/run."""
    readme = [c.strip() for c in setup_commands()[1].split(" && ")]
    ci = [part.strip() for line in ci_commands() for part in line.split(" && ")]
    assert readme == ci
    assert TEST_COMMAND in ci_commands()


def test_readme_first_setup_command_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The first set-up command's ``privamp ...`` invocation, run in-process through the CLI entry point."""
    from privamp.cli import main

    command = setup_commands()[0].split(" && ")[-1]
    argv = shlex.split(command)
    assert argv[0] == "privamp"
    assert main(argv[1:]) == 0
    out = capsys.readouterr().out
    assert out.strip()
