"""The README stays a page, its test command is the one CI runs, and the user guide's links
lead somewhere (issue 25)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide"
README_MAX_BYTES = 16 * 1024


def _links(path: Path) -> list[str]:
    """Relative link and image targets of a Markdown file, without #anchors."""
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)  # code is not links
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t) and t.split("#")[0]]


def test_the_readme_is_a_page_not_a_manual():
    assert README.stat().st_size <= README_MAX_BYTES


def test_the_readmes_test_command_is_exactly_what_ci_runs():
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S)
    commands = [line for block in blocks for line in block.splitlines() if "pytest" in line]
    assert len(commands) == 1
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[0].strip() in ci.splitlines()


def test_every_relative_link_of_the_readme_and_the_guide_exists():
    pages = [README, *sorted(GUIDE.glob("*.md"))]
    broken = [f"{page.relative_to(ROOT)} -> {target}" for page in pages for target in _links(page)
              if not (page.parent / target).exists()]
    assert not broken


def test_every_guide_page_is_listed_in_the_guides_index():
    index = GUIDE / "index.md"
    linked = {target for target in _links(index)}
    pages = {page.name for page in GUIDE.glob("*.md")} - {"index.md"}
    assert pages <= linked, f"not in docs/guide/index.md: {sorted(pages - linked)}"
