"""An MkDocs hook that shows each notebook of ``docs/notebooks/`` as a page, without Jupyter: at build time
``notebooks/<name>.ipynb`` becomes the page ``notebooks/<name>.md`` — its Markdown cells as they are, each code
cell as a Python block followed by the output stored in the notebook (the test suite executes the notebook and checks
that it prints exactly that: ``tests/docs/test_notebooks.py``). The ``.ipynb`` itself is published beside the page.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any


def _text(lines: list[str] | str) -> str:
    return "".join(lines) if isinstance(lines, list) else lines


def to_markdown(notebook: dict[str, Any], name: str) -> str:
    """The page of one notebook (``name``: the .ipynb file's name, linked for download)."""
    parts = []
    for i, cell in enumerate(notebook["cells"]):
        source = _text(cell["source"]).rstrip()
        if cell["cell_type"] == "markdown":
            parts.append(source)
            if i == 0:
                parts.append(
                    f"*This page is the notebook [{name}]({name}) (download it to run it in Jupyter); the test suite "
                    "executes it and checks every output shown here.*"
                )
        elif cell["cell_type"] == "code":
            parts.append(f"```python\n{source}\n```")
            shown = "".join(_text(o.get("text", "")) for o in cell.get("outputs", []) if o["output_type"] == "stream")
            if shown:
                parts.append(f"```text\n{shown.rstrip()}\n```")
    return "\n\n".join(parts) + "\n"


def on_files(files: Any, config: Any, **_: Any) -> Any:
    from mkdocs.structure.files import File  # imported here: to_markdown is usable (and tested) without MkDocs

    for f in list(files):
        path = PurePosixPath(f.src_uri)
        if path.suffix == ".ipynb" and path.parts[0] == "notebooks":
            notebook = json.loads(f.content_string)
            page = str(path.with_suffix(".md"))
            files.append(File.generated(config, page, content=to_markdown(notebook, path.name)))
    return files
