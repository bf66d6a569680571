"""The measurements the code and the documents cite exist: every bench/RESULTS_* file named in the repository's
sources and documents is there, and every section cited by its title (`RESULTS_msm.md, "The counting sort's ranks"`)
is a heading of that file. A kernel's comment that justifies a constant by a measurement is only as good as the
reader's way to that measurement (session 42 found msm.cu citing a section an edit had dropped)."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED_DIRS = ("gpu", "reference", "conformance", "vectors", "bench", "docs", "tests")
SCANNED_SUFFIXES = {".py", ".cu", ".cuh", ".md", ".sh", ".toml"}
RESULTS_FILE = re.compile(r"\bRESULTS_[A-Za-z0-9_.\-]+?\.(?:md|json|log|csv)\b")
SECTION_CITATION = re.compile(r"\b(RESULTS_[A-Za-z0-9_]+\.md),?\s*\"([^\"]+)\"")
COMMENT_WRAP = re.compile(r"\s*\n\s*(?://|#)?\s*")
"""A line break with the next line's indentation and comment marker: citations wrap across comment lines."""
THIS_FILE = Path(__file__).resolve()


def scanned_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder in SCANNED_DIRS:
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in SCANNED_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(ROOT).parts)]
    return sorted(p for p in files if p.resolve() != THIS_FILE)


def headings(document: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in document.read_text().splitlines() if line.startswith("#")]


def unresolved_section_citations(text: str, bench: Path) -> list[str]:
    """The citations in ``text`` whose title is no heading (nor part of one) of the RESULTS file they name."""
    missing = []
    for document, title in SECTION_CITATION.findall(COMMENT_WRAP.sub(" ", text)):
        path = bench / document
        if not path.exists() or not any(title.lower() in heading.lower() for heading in headings(path)):
            missing.append(f'{document}, "{title}"')
    return missing


def test_every_results_file_named_exists():
    present = {p.name for p in ROOT.rglob("RESULTS_*") if ".git" not in p.parts}
    missing = sorted({f"{path.relative_to(ROOT)}: {name}" for path in scanned_files()
                      for name in RESULTS_FILE.findall(path.read_text(errors="replace")) if name not in present})
    assert not missing, "named but not in the repository:\n" + "\n".join(missing)


def test_every_cited_section_is_a_heading_of_its_file():
    missing = sorted(f"{path.relative_to(ROOT)}: {citation}" for path in scanned_files()
                     for citation in unresolved_section_citations(path.read_text(errors="replace"), ROOT / "bench"))
    assert not missing, "cited sections that are not headings:\n" + "\n".join(missing)


@pytest.mark.parametrize("text, missing", [
    ('// see bench/RESULTS_x.md, "Kept section"', []),
    ('// see bench/RESULTS_x.md, "Kept\n// section"', []),  # wrapped across comment lines
    ('# see RESULTS_x.md "kept SECTION"', []),
    ('// see bench/RESULTS_x.md, "Dropped section"', ['RESULTS_x.md, "Dropped section"']),
    ('// see bench/RESULTS_y.md, "Kept section"', ['RESULTS_y.md, "Kept section"']),  # no such file
    ('Body text only in RESULTS_x.md, "a line of the body"', ['RESULTS_x.md, "a line of the body"']),
])
def test_a_citation_resolves_only_to_a_heading(tmp_path, text, missing):
    (tmp_path / "RESULTS_x.md").write_text("# Title\n\n## Kept section (2026-12-06)\n\na line of the body\n")
    assert unresolved_section_citations(text, tmp_path) == missing
