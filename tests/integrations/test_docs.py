"""The docs' Python code blocks run as written (in a scratch directory).

docs/training.md runs top to bottom in one namespace. docs/integrations.md runs
one section (``## ...``) at a time; a block whose first line is
``# requires: lib, ...`` is skipped when one of those libraries is not installed.
"""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    return [match.group(1) for match in BLOCK.finditer(text)]


def sections(text: str) -> dict[str, list[str]]:
    """``{heading: python blocks}`` of each ``## `` section that has any."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    found = {}
    for heading, body in zip(parts[1::2], parts[2::2]):
        blocks = python_blocks(body)
        if blocks:
            found[heading.strip()] = blocks
    return found


def run_blocks(blocks: list[str], where: str) -> None:
    namespace = {"__name__": "__docs__"}
    for number, code in enumerate(blocks, 1):
        first = code.splitlines()[0] if code.strip() else ""
        if first.startswith("# requires:"):
            for library in first.partition(":")[2].split(","):
                pytest.importorskip(library.strip())
        exec(compile(code, f"{where} block {number}", "exec"), namespace)


def test_the_harness_finds_and_fails_a_broken_block(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = "# T\n\n## A\n\n```python\nx = 1\n```\n\n## B\n\n```python\nraise ValueError('broken')\n```\n"
    assert list(sections(text)) == ["A", "B"]
    run_blocks(sections(text)["A"], "A")
    with pytest.raises(ValueError, match="broken"):
        run_blocks(sections(text)["B"], "B")


def test_training_page_blocks_run(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks((DOCS / "training.md").read_text())
    assert len(blocks) >= 4
    run_blocks(blocks, "docs/training.md")


INTEGRATIONS = sections((DOCS / "integrations.md").read_text()) if (DOCS / "integrations.md").exists() else {}


@pytest.mark.parametrize("heading", list(INTEGRATIONS))
def test_integrations_page_section_runs(heading, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_blocks(INTEGRATIONS[heading], f"docs/integrations.md ({heading})")
