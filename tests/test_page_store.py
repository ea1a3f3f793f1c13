"""Pages' HTML kept between builds (docexec.pages.page_store and the hook's render_kept): reused while
nothing the page depends on changed, converted again as soon as something did, and never a reason
for a message or a check to be lost."""

from __future__ import annotations

import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from docexec.core.files import sealed, unsealed
from docexec.pages.page_store import PAGE_HTML_CACHE, ConvertedPage, PageStore, page_dependencies, stable_text

from .conftest import ROOT, write_snippets

pytestmark = pytest.mark.slow


def hook_module():
    """hooks/mkdocs_adapter.py as a module (MkDocs loads it from its path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("mkdocs_adapter_under_test", ROOT / "hooks/mkdocs_adapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

SNIPPETS_CONFIG = {"base_path": ["snippets", "includes"], "check_paths": True, "auto_append": ["abbreviations.md"]}


@pytest.fixture
def small_site(tmp_path: Path) -> Path:
    """The site's configuration, hook and machinery, with two pages of its own: ``index.md`` links
    to a heading of ``other.md``, which includes a snippet."""
    site = tmp_path / "repo"
    site.mkdir()
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = re.sub(r"\nnav:\n(?:[ \t].*\n|\n)*", "\n", config)  # its own pages: no nav, no old addresses
    config = re.sub(r"\n  - redirects:\n(?:      .*\n)+", "\n", config)
    (site / "mkdocs.yml").write_text(config, encoding="utf-8")
    for name in ("hooks", "docexec", "includes", "docs/javascripts", "docs/stylesheets"):
        shutil.copytree(ROOT / name, site / name, ignore=shutil.ignore_patterns("__pycache__"))
    (site / "diagrams").mkdir()
    write_snippets(site, {
        "snippets/demo/hello.py": "# --8<-- [start:main]\nx = 1 + 1\nprint(x)  # 2\n# --8<-- [end:main]\n",
        "docs/index.md": "# Home\n\nSee [the second part](other.md#second-part).\n",
        "docs/other.md": ('# Other page\n\n```python\n--8<-- "demo/hello.py:main"\n```\n\n## Second part\n\n'
                          'A leaf.\n\n--8<-- "note.md"\n'),
        "includes/note.md": "A note.\n",
        "docs/third.md": "# Third\n",
    })
    return site


def build(site: Path, out: str = "out") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", out], cwd=site,
                          capture_output=True, text=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))


def built(site: Path, out: str = "out") -> dict[str, bytes]:
    return {p.relative_to(site / out).as_posix(): p.read_bytes() for p in (site / out).rglob("*") if p.is_file()}


def mark_kept_pages(site: Path) -> int:
    """Put a word in every kept page's HTML, as if it had been converted so: a build that shows the
    word reused the page. Returns how many pages were marked."""
    marked = 0
    for path in (site / PAGE_HTML_CACHE).glob("*.pickle"):
        kept = pickle.loads(unsealed(path.stem, path.read_bytes()))
        kept.content = kept.content.replace("</h1>", "</h1><p>KEPT-PAGE</p>", 1)  # every page has a title
        path.write_bytes(sealed(path.stem, pickle.dumps(kept)))  # sealed again: as the store wrote it
        marked += 1
    return marked


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


CHANGES = {  # what a page depends on -> an edit of it, and the pages it must convert again (the others are reused)
    "the page's Markdown": ("docs/other.md", "A leaf.", "A leaf, again.", {"other"}),
    "an included snippet": ("snippets/demo/hello.py", "x = 1 + 1", "x = 2 + 0", {"other"}),
    "the auto-appended file": ("includes/abbreviations.md", "*[leaf]: A tensor", "*[leaf]: One tensor", {"", "other"}),
    "a file included outside a fence": ("includes/note.md", "A note.", "A longer note.", {"other"}),
    "a line of an included file outside the section included": (  # the reading time counts the whole file
        "snippets/demo/hello.py", "# --8<-- [end:main]\n", "# --8<-- [end:main]\ny = x * 2\n", {"other"}),
    "a file's inclusion": ("mkdocs.yml", "strict: true", "strict: true\nexclude_docs: third.md", {"", "other"}),
    "a Markdown option": ("mkdocs.yml", "permalink: true", "permalink: true\n      toc_depth: 6", {"", "other"}),
}


def test_a_warm_build_reuses_every_page_and_writes_the_same_bytes(small_site):
    first = build(small_site)
    assert first.returncode == 0, first.stderr[-3000:]
    cold = built(small_site)
    assert len(list((small_site / PAGE_HTML_CACHE).glob("*.pickle"))) == 3
    warm = build(small_site, "again")
    assert warm.returncode == 0, warm.stderr[-3000:]
    assert built(small_site, "again") == cold
    assert mark_kept_pages(small_site) == 3
    assert build(small_site).returncode == 0
    assert all("KEPT-PAGE" in (small_site / f"out/{page}/index.html").read_text() for page in ("", "other", "third"))


@pytest.mark.parametrize("change", CHANGES)
def test_a_change_to_what_a_page_depends_on_converts_it_again(small_site, change):
    assert build(small_site).returncode == 0
    mark_kept_pages(small_site)
    file, old, new, converted = CHANGES[change]
    edit(small_site / file, old, new)
    proc = build(small_site)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for page in ("", "other"):
        reused = "KEPT-PAGE" in (small_site / f"out/{page}/index.html").read_text(encoding="utf-8")
        assert reused == (page not in converted), f"{change} changed: page {page or 'index'!r} reused: {reused}"


def test_a_new_page_converts_every_page_again(small_site):
    """Links are resolved against the site's files: a file added may turn a broken link good."""
    assert build(small_site).returncode == 0
    mark_kept_pages(small_site)
    (small_site / "docs/fourth.md").write_text("# Fourth\n", encoding="utf-8")
    assert build(small_site).returncode == 0
    assert "KEPT-PAGE" not in (small_site / "out/index.html").read_text(encoding="utf-8")


def test_a_kept_page_still_has_its_links_to_other_pages_anchors_checked(small_site):
    assert build(small_site).returncode == 0
    mark_kept_pages(small_site)
    edit(small_site / "docs/other.md", "## Second part", "## Part two")
    proc = build(small_site)
    assert proc.returncode == 1
    assert "'index.md' contains a link 'other.md#second-part'" in proc.stderr, proc.stderr[-3000:]
    assert "KEPT-PAGE" in (small_site / "out/index.html").read_text(encoding="utf-8")  # the page checked was kept


def test_a_page_whose_conversion_logged_a_warning_is_not_kept_and_warns_on_every_build(small_site):
    edit(small_site / "docs/index.md", "See [", "See [nothing](missing.md) and [")
    for _ in range(2):  # the site is strict: the warning fails the build, each time
        proc = build(small_site)
        assert proc.returncode == 1, proc.stderr[-3000:]
        assert "'index.md' contains a link 'missing.md'" in proc.stderr, proc.stderr[-3000:]
    assert len(list((small_site / PAGE_HTML_CACHE).glob("*.pickle"))) == 2


def test_a_page_whose_include_changed_while_it_was_converted_is_not_kept(small_site):
    """The key is made before the conversion reads the includes: an edit in between would keep the
    new HTML under the old file's key (a Markdown extension makes the edit, as an editor might)."""
    (small_site / "edit_during.py").write_text(
        "from pathlib import Path\nfrom markdown import Extension\nfrom markdown.preprocessors import Preprocessor\n\n"
        "class Edit(Preprocessor):\n    def run(self, lines):\n        note = Path('includes/note.md')\n"
        "        if 'A leaf.' in lines and 'early' not in note.read_text():\n"
        "            note.write_text('A note written early.\\n')\n        return lines\n\n"
        "class EditExtension(Extension):\n    def extendMarkdown(self, md):\n"
        "        md.preprocessors.register(Edit(md), 'edit_during', 40)\n\n"
        "def makeExtension(**kwargs):\n    return EditExtension(**kwargs)\n", encoding="utf-8")
    edit(small_site / "mkdocs.yml", "markdown_extensions:\n", "markdown_extensions:\n  - edit_during\n")
    proc = build(small_site)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "written early" in (small_site / "out/other/index.html").read_text(encoding="utf-8")
    assert len(list((small_site / PAGE_HTML_CACHE).glob("*.pickle"))) == 2  # index and third, not other


def test_a_build_that_logs_less_keeps_pages_apart_from_one_that_logs_all(small_site):
    """`mkdocs build -q` logs no warning (MkDocs does not count what it does not log): a page it
    converted must not hide a broken link's warning from the next build."""
    edit(small_site / "docs/index.md", "See [", "See [nothing](missing.md) and [")
    quiet = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", "out"], cwd=small_site,
                           capture_output=True, text=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert quiet.returncode == 0 and "missing.md" not in quiet.stderr, quiet.stderr[-3000:]
    assert len(list((small_site / PAGE_HTML_CACHE).glob("*.pickle"))) == 3  # index.md too: it logged nothing
    proc = build(small_site)
    assert proc.returncode == 1 and "'index.md' contains a link 'missing.md'" in proc.stderr, proc.stderr[-3000:]


def test_a_function_named_in_the_options_counts_by_its_code():
    stable = stable_text

    def fmt(text):
        return text.upper()

    first = stable(fmt)

    def fmt(text):  # the same name, other code
        return text[::-1]

    assert stable(fmt) != first and "fmt" in first
    assert stable(object()) == stable(object())  # no address
    def dependencies(config, files):  # where the options reach the key
        return page_dependencies(config, files, b"hook")

    def config(function):
        return SimpleNamespace(markdown_extensions=["pymdownx.superfences"], validation={},
                               mdx_configs={"pymdownx.superfences": {"custom_fences": [{"format": function}]}})

    assert dependencies(config(fmt), []) != dependencies(config(lambda text: text), [])
    assert dependencies(config(fmt), []) == dependencies(config(fmt), [])
    mixed = SimpleNamespace(markdown_extensions=[], mdx_configs={1: {}, "a": {}}, validation={})
    assert dependencies(mixed, []) is None  # JSON cannot sort the keys: no page is kept


def test_a_broken_kept_page_is_converted_again(small_site):
    assert build(small_site).returncode == 0
    cold = built(small_site)
    for path in (small_site / PAGE_HTML_CACHE).glob("*.pickle"):
        path.write_bytes(path.read_bytes()[:40])
    proc = build(small_site, "again")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert built(small_site, "again") == cold


def test_the_key_covers_the_text_the_page_names_and_every_include(tmp_path, monkeypatch):
    write_snippets(tmp_path, {"snippets/a.py": "print(1)\n", "includes/abbreviations.md": "*[leaf]: L\n"})
    monkeypatch.chdir(tmp_path)  # pymdownx.snippets' base_path is relative to the working folder
    store = PageStore(tmp_path / "kept")
    assert store.key("# T\n", ["t.md"]) is None  # before begin: nothing is known of the includes
    store.begin(["config"], SNIPPETS_CONFIG)
    page = '# T\n\n```python\n--8<-- "a.py"\n```\n'
    key = store.key(page, ["t.md", "t/"])
    assert key == store.key(page, ["t.md", "t/"])
    assert key != store.key(page, ["u.md", "u/"])
    assert store.key('--8<-- "missing.py"\n', ["t.md"]) is None  # the conversion reports it
    (tmp_path / "snippets/a.py").write_text("print(2)\n", encoding="utf-8")
    assert store.key(page, ["t.md", "t/"]) != key
    other = PageStore(tmp_path / "kept")
    other.begin(["other config"], SNIPPETS_CONFIG)
    assert other.key(page, ["t.md", "t/"]) != store.key(page, ["t.md", "t/"])
    without = PageStore(tmp_path / "kept")
    without.begin(["config"], None)
    assert without.key(page, ["t.md"]) is None


def test_a_build_forgets_the_pages_it_did_not_use(tmp_path):
    store = PageStore(tmp_path)
    page = ConvertedPage("<p>x</p>", "token", [], [], "T")
    store.put("old", page)
    assert store.get("old") == page
    later = PageStore(tmp_path)
    later.put("new", page)
    assert later.forget_unused() == 1
    assert [p.name for p in tmp_path.iterdir()] == ["new.pickle"]
    (tmp_path / "new.pickle").write_bytes(b"not a pickle")
    assert PageStore(tmp_path).get("new") is None


def test_a_kept_page_changed_by_hand_is_converted_again(small_site):
    """A kept page carries the seal of its key and bytes: one edited without it (here its HTML,
    pickled again as is) is a miss, and the build converts the page again."""
    assert build(small_site).returncode == 0
    cold = built(small_site)
    for path in (small_site / PAGE_HTML_CACHE).glob("*.pickle"):
        head, _, data = path.read_bytes().partition(b"\n")
        kept = pickle.loads(data)
        kept.content = kept.content.replace("</h1>", "</h1><p>EDITED</p>", 1)
        path.write_bytes(head + b"\n" + pickle.dumps(kept))
    proc = build(small_site, "again")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert built(small_site, "again") == cold
