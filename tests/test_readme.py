"""The documentation runs: every ```python block of README.md and of docs/**/*.md is executed, every ``privamp ...``
command line of the docs' shell blocks is a valid command, and the README's set-up commands are the ones CI runs
(.ci/run).

The blocks of one file run in order in one fresh namespace, as a reader would run them (a later block may use names
an earlier one defined), in one test per file; the test fails on any exception or warning and names the block that
raised it. Each file starts from a fresh namespace, so the tests are independent of one another and of their order
(pytest-xdist). Comments such as ``# -> ...`` are only comments. A block of docs/ preceded by a line
``<!-- no-test -->`` (blank lines allowed in between) is not run.
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
TEST_COMMAND = "pip install -e '.[test]' && ruff check src tests && mypy src && python -m pytest -n auto"
DOCS_COMMAND = "pip install -e '.[docs]' && mkdocs build --strict --site-dir \"$(mktemp -d)\""
BROWSER_COMMAND = "pip install -e '.[browser]' && python -m pytest -m browser -p no:xdist"

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


def doc_files() -> list[Path]:
    """The README and every Markdown page of docs/."""
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


def _cases() -> list[Any]:
    cases: list[Any] = []
    for path in doc_files():
        blocks = python_blocks(path, honour_no_test=path != README)
        if blocks:
            cases.append(pytest.param(blocks, id=str(path.relative_to(ROOT))))
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
def test_code_blocks_run(blocks: list[Block]) -> None:
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


# --------------------------------------------------------------------------------------------- command lines of docs/
# Every ``privamp ...`` line of a shell block of docs/ (``$ privamp ...`` in ```console blocks) is a command of the
# command line: it runs through the entry point and exits with status 0, and every output line shown after it in a
# ```console block appears in its output (trailing spaces aside), so that the CLI guide cannot go stale. Commands run
# in a temporary directory (files they write land there); those that take long (PARSE_ONLY) are only parsed.

SHELL_LANGS = ("console", "bash", "sh", "shell")
PARSE_ONLY = ("figures",)


@dataclass(frozen=True)
class CliExample:
    block: Block
    argv: list[str]
    shown: list[str]

    @property
    def label(self) -> str:
        return f"{self.block.label}:{' '.join(self.argv[:1])}"


def cli_examples(path: Path) -> list[CliExample]:
    """The documented ``privamp`` command lines of one Markdown file, with the output lines shown after each."""
    examples: list[CliExample] = []
    for block in code_blocks(path):
        if block.lang not in SHELL_LANGS or block.no_test:
            continue
        current: CliExample | None = None
        for line in block.source.replace("\\\n", " ").splitlines():
            command = line[2:] if block.lang == "console" and line.startswith("$ ") else line
            if command.startswith("privamp ") and (block.lang != "console" or line.startswith("$ ")):
                current = CliExample(block, shlex.split(command)[1:], [])
                examples.append(current)
            elif block.lang == "console" and line.startswith("$ "):
                current = None
            elif current is not None and block.lang == "console" and line.strip():
                current.shown.append(line.rstrip())
    return examples


def _cli_cases() -> list[Any]:
    examples = [e for path in doc_files()[1:] for e in cli_examples(path)]
    return [pytest.param(e, id=e.label) for e in examples]


@pytest.mark.parametrize("example", _cli_cases())
def test_documented_command_runs(
    example: CliExample, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from privamp.cli import build_parser, main

    monkeypatch.chdir(tmp_path)
    if example.argv[0] in PARSE_ONLY:
        build_parser().parse_args(example.argv)
        return
    status = main(example.argv)
    out = capsys.readouterr().out
    assert status == 0, f"{example.block.label}: privamp {' '.join(example.argv)} exited with {status}"
    printed = {line.rstrip() for line in out.splitlines()}
    missing = [line for line in example.shown if line not in printed]
    assert not missing, f"{example.block.label}: lines shown but not printed: {missing}\nprinted:\n{out}"


def test_cli_examples_are_found(tmp_path: Path) -> None:
    doc = tmp_path / "cli.md"
    doc.write_text(
        "```console\n$ privamp rdp --alpha 2\nalpha = 2\n$ ls\nfoo\n```\n\n"
        "```bash\nprivamp epsilon --delta 1e-5\n```\n\n<!-- no-test -->\n```console\n$ privamp x\n```\n"
    )
    got = [(e.argv, e.shown) for e in cli_examples(doc)]
    assert got == [(["rdp", "--alpha", "2"], ["alpha = 2"]), (["epsilon", "--delta", "1e-5"], [])]


# ------------------------------------------------------------------------------------ tables generated from the library
# docs/choosing.md holds tables rendered from the registry between ``<!-- generated:NAME -->`` and
# ``<!-- end:NAME -->``; the test below fails when the registry changes and the page does not. Regenerate with
# ``python tests/test_readme.py --regenerate``.

CHOOSING = ROOT / "docs" / "choosing.md"


def _cell(text: str) -> str:
    """Text that stays one Markdown table cell and shows as typed."""
    return text.replace("|", "\\|").replace("*", "\\*").replace("<", "&lt;").replace("[", "\\[")


def _events() -> tuple[dict[str, Any], dict[str, Any]]:
    import privamp as pa

    mechanisms = {
        "Gaussian": pa.Gaussian(1.0),
        "Laplace": pa.Laplace(1.0),
        "randomized response": pa.RandomizedResponse(0.75),
        "pure DP": pa.PureDP(1.0),
        "`RdpCurve` (add/remove curve)": pa.RdpCurve.from_table([2, 4], [0.1, 0.3], neighboring="add-remove"),
    }
    samplings = {
        "none": pa.NoSampling(),
        "Poisson": pa.Poisson(0.01),
        "without replacement": pa.WithoutReplacement(10, 1000),
        "with replacement": pa.WithReplacement(10, 1000),
    }
    return mechanisms, samplings


def _role(bound: Any) -> str:
    if bound.kind.value == "lower":
        return " (lower)"
    if bound.kind.value == "numerical":
        return " (numerical, opt-in)"
    if not bound.in_best:
        return " (by name)"
    return " (exact)" if bound.kind.value == "exact" else ""


def coverage_matrix() -> str:
    """Sampling × relation × mechanism: the RDP bounds that apply (:meth:`Registry.bounds_for`)."""
    from privamp.coverage import REGISTRY

    mechanisms, samplings = _events()
    lines = ["| sampling | relation | " + " | ".join(mechanisms) + " |", "|---|---|" + "---|" * len(mechanisms)]
    for sampling_name, sampling in samplings.items():
        for relation in ("add-remove", "replace-one"):
            cells = []
            for mechanism in mechanisms.values():
                found = REGISTRY.bounds_for(mechanism.subsampled(sampling, relation))
                names = dict.fromkeys(f"`{b.name}`{_role(b)}" for b in found)
                cells.append(", ".join(names) or "—")
            lines.append(f"| {sampling_name} | {relation} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def evidence_table() -> str:
    """Every registered bound: its cell, kind, scale, whether ``best`` uses it, and what it rests on."""
    from privamp.coverage import REGISTRY

    head = ("bound", "what it is", "sampling × relation", "kind", "scale", "in `best`", "upper rests on", "lower")
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for b in REGISTRY.all():
        upper = _cell(str(b.upper)) if b.upper else "—"
        lower = _cell(str(b.lower)) if b.lower else "—"
        cell = f"{b.sampling.__name__} × {b.neighboring.value}" + (" × user level (k ≥ 2)" if b.user_level else "")
        in_best = "yes" if b.in_best else "no"
        row = (f"`{b.name}`", _cell(b.description), cell, b.kind.value, b.scale.value, in_best, upper, lower)
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


GENERATED = {"coverage-matrix": coverage_matrix, "evidence": evidence_table}


def _section(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated:{name} -->\n)(.*?)(<!-- end:{name} -->)", re.S)


def regenerate(text: str) -> str:
    """``text`` with every generated section replaced by its current rendering."""
    for name, render in GENERATED.items():
        text, n = _section(name).subn(lambda m, r=render: m[1] + r() + "\n" + m[3], text)
        assert n == 1, f"docs/choosing.md must hold exactly one section {name!r}"
    return text


def test_choosing_tables_match_the_registry() -> None:
    text = CHOOSING.read_text(encoding="utf-8")
    assert regenerate(text) == text, "docs/choosing.md is stale: run python tests/test_readme.py --regenerate"


def test_api_docstrings_are_made_markdown_safe() -> None:
    """The griffe extension of the API reference (docs/hooks): roles become optional cross-references, brackets and
    stray asterisks are escaped, emphasis, code and simple tables are kept."""
    pytest.importorskip("griffe")
    import importlib.util

    spec = importlib.util.spec_from_file_location("griffe_docstrings", ROOT / "docs" / "hooks" / "griffe_docstrings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = "== ==\na  b\n== ==\n1  2\n== =="
    text = "*Title*, a*b and Δ[f](0) [derived], :func:`~a.b.c`, ``x[1]``\n\n    code [1]\n\n" + table
    link = '<autoref identifier="privamp.m.a.b.c" optional><code>c</code></autoref>'
    assert module.markdown_safe(text, "privamp.m").split("\n") == [
        rf"*Title*, a\*b and Δ\[f\](0) \[derived\], {link}, ``x[1]``",
        "",
        "    code [1]",
        "",
        "",
        "```text",
        "== ==",
        "a  b",
        "== ==",
        "1  2",
        "== ==",
        "```",
        "",
    ]


def test_every_page_is_in_the_site_navigation() -> None:
    """Every page of docs/ is listed in mkdocs.yml's nav, except the gallery's per-figure caption pages (linked from
    gallery/index.md)."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config[config.index("\nnav:") :]
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")]
    captions = re.compile(r"gallery/[^/]+/.+\.md")
    missing = [p for p in pages if not captions.fullmatch(p) and f" {p}" not in nav]
    assert not missing, f"pages missing from the nav of mkdocs.yml: {missing}"


# ---------------------------------------------------------------------------------------------------- set-up commands


def setup_commands() -> list[str]:
    """The shell blocks of the README's "Set-up" section, each joined into one line."""
    text = README.read_text(encoding="utf-8")
    m = re.search(r"^## Set-up.*?$(?P<body>.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert m is not None, "README.md has no '## Set-up' section"
    blocks = [b for b in code_blocks(README, m["body"]) if b.lang in ("bash", "sh", "shell", "console")]
    return [" ".join(b.source.split()) for b in blocks]


def ci_lines() -> list[str]:
    """The lines .ci/run executes: its non-comment lines after ``cd``/``set``, whitespace-normalised."""
    lines = [" ".join(line.split()) for line in CI_SCRIPT.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and not line.startswith("#") and not line.startswith(("set ", "cd "))]


def ci_commands() -> list[str]:
    """The commands .ci/run executes, in order (a line's ``&&`` chain split into its commands)."""
    return [part.strip() for line in ci_lines() for part in line.split(" && ")]


def parts(command: str) -> list[str]:
    return [c.strip() for c in command.split(" && ")]


def test_readme_has_the_two_setup_commands() -> None:
    commands = setup_commands()
    assert len(commands) == 2, commands
    assert commands[1].endswith(TEST_COMMAND), commands[1]


def test_readme_test_command_is_what_ci_runs() -> None:
    """The README's second set-up command, split at ``&&``, is exactly the sequence of commands of .ci/run up to its
    test run."""
    readme = parts(setup_commands()[1])
    ci = ci_commands()
    last = parts(TEST_COMMAND)[-1]
    assert ci[: ci.index(last) + 1] == readme


def test_ci_stops_at_the_first_failure() -> None:
    """Under ``set -e`` a failure inside an ``a && b`` chain does not stop the script (only the chain's last command
    does): a chain in .ci/run would let a failed lint or install pass CI. One command a line."""
    text = CI_SCRIPT.read_text(encoding="utf-8")
    assert "set -euo pipefail" in text
    chained = [line for line in ci_lines() if " && " in line and not line.startswith("[ ")]
    assert chained == []


def test_ci_then_builds_the_docs_strictly_outside_the_tree() -> None:
    """After the tests (and then the planner's browser tests, deselected by the test command), CI builds the site
    with every warning an error, into a temporary directory."""
    assert ci_commands()[-4:] == parts(BROWSER_COMMAND) + parts(DOCS_COMMAND)


def test_readme_first_setup_command_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The first set-up command's ``privamp ...`` invocation, run in-process through the CLI entry point."""
    from privamp.cli import main

    command = setup_commands()[0].split(" && ")[-1]
    argv = shlex.split(command)
    assert argv[0] == "privamp"
    assert main(argv[1:]) == 0
    out = capsys.readouterr().out
    assert out.strip()


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--regenerate"]:
        CHOOSING.write_text(regenerate(CHOOSING.read_text(encoding="utf-8")), encoding="utf-8")
