"""The README and the pages under ``docs/`` against the tree they describe.

The README's first lines are the two commands CI runs; its layout map names every package
folder and nothing that is not there; every relative link in the README and ``docs/*.md``
leads to a file that exists, and to a heading there when it names one.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PACKAGES = ("go_env", "search", "agents", "benchmarks")
COMMANDS = [
    'pip install torch==2.13.0 -e ".[all]" && goarena league',
    'pip install torch==2.13.0 -e ".[all]" && python -m pytest',
]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def layout_block(text: str) -> str:
    """The first fenced block after the heading "## Layout"."""
    section = text.split("\n## Layout", 1)[1]
    return section.split("```\n", 2)[1]


def layout_paths(block: str) -> list[str]:
    """Each line's first word as a path from the root: a line at the margin names a top-level
    folder (``go_env/``), an indented one a name inside the last such folder (``core/``)."""
    paths: list[str] = []
    parent = ""
    for line in block.splitlines()[1:]:  # the first line is the header
        if not line.strip():
            continue
        name = line.split()[0]
        if line[0] != " ":
            parent = name.rstrip("/")
            paths.append(parent)
        else:
            paths.append(f"{parent}/{name.rstrip('/')}")
    return paths


def package_folders() -> set[str]:
    return {
        path.parent.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("__init__.py")
        if "__pycache__" not in path.parts
    }


def test_the_readme_opens_with_the_two_commands():
    lines = README.read_text().splitlines()
    assert lines[0].startswith("# "), lines[0]
    assert lines[2] == "```bash"
    commands = [line.split("#")[0].rstrip() for line in lines[3:5]]
    assert commands == COMMANDS
    assert lines[5] == "```"


def test_the_layout_reader_follows_indentation():
    block = "folder  what\ngo_env/  env\n  core/  rules\nagents/  players\n  specs.py  specs\n"
    assert layout_paths(block) == ["go_env", "go_env/core", "agents", "agents/specs.py"]


def test_every_name_in_the_layout_map_exists():
    missing = [path for path in layout_paths(layout_block(README.read_text())) if not (ROOT / path).exists()]
    assert not missing, f"the README's layout map names what is not there: {missing}"


def test_the_layout_map_names_every_package_folder():
    named = set(layout_paths(layout_block(README.read_text())))
    missing = sorted(package_folders() - named)
    assert not missing, f"the README's layout map leaves out: {missing}"


def test_the_package_folders_are_found():
    folders = package_folders()
    assert {"go_env/core", "agents/players", "benchmarks/web"} <= folders


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    return {slug(heading) for heading in re.findall(r"(?m)^#+ (.*)$", text)}


def relative_links(page: Path) -> list[tuple[str, str]]:
    """Each link that is not a URL, as (file, anchor); a link to the page itself has file ""."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)  # links in code are not links
    links = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        links.append((file, anchor))
    return links


def test_slugs_are_githubs():
    assert slug("What runs code, what is data") == "what-runs-code-what-is-data"
    assert slug("Shipped weights (made 2026-11)") == "shipped-weights-made-2026-11"


def test_every_relative_link_leads_to_a_file_and_its_heading():
    pages = [README, *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for file, anchor in relative_links(page):
            target = page.parent / file if file else page
            if not target.exists():
                broken.append(f"{page.relative_to(ROOT)}: {file}")
            elif anchor and target.suffix == ".md" and anchor not in anchors(target):
                broken.append(f"{page.relative_to(ROOT)}: {file}#{anchor}")
    assert not broken, broken
    assert any(file for file, _ in relative_links(README)), "the README links to no page"
