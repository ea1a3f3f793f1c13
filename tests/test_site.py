"""Strict builds of the whole site, checked on the HTML, and builds that must fail."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import PIN, ROOT, build_log, cold_marker, copy_site_files

pytestmark = pytest.mark.slow


def mkdocs_build(root: Path, site: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        capture_output=True, text=True, cwd=root, env=env,
    )


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.fixture(scope="module")
def site(warm_site) -> Path:
    return warm_site


def chapter_pages() -> list[Path]:
    return sorted(p for p in (ROOT / "docs").glob("[0-9][0-9]-*.md"))


def test_home_page_links_every_chapter_and_nothing_missing(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    for page in chapter_pages():
        assert f'href="{page.stem}/"' in home
    assert "01-computational-graph/" in home


def redirect_maps() -> dict[str, str]:
    """mkdocs.yml's redirects: an old page's source path -> the page it now leads to."""
    from docexec.source.config import site_config

    plugins = [p for p in site_config(ROOT)["plugins"] if isinstance(p, dict) and "redirects" in p]
    return plugins[0]["redirects"]["redirect_maps"] if plugins else {}


def test_an_old_chapter_address_leads_to_the_chapter_it_became(site):
    """Chapters split or renumbered keep their old addresses (and their notebook pages'): each
    holds a redirect to a page of the site, and none hides a page that exists now."""
    moved = redirect_maps()
    assert "07-hooks-debugging.md" in moved and "10-forward-mode.md" in moved
    current = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    for old, new in moved.items():
        assert old not in current and new in current, (old, new)
        page = site / old.removesuffix(".md") / "index.html"
        target = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', page.read_text(encoding="utf-8"))
        assert target, old
        lands = (page.parent / target.group(1) / "index.html").resolve()
        assert lands == site / new.removesuffix(".md") / "index.html", (old, lands)


def test_every_moved_section_is_where_its_old_link_is_sent(site):
    """javascripts/moved-sections.json: each id is no longer on the page an old link lands on (else
    the script never looks), and the address it sends that link to holds the section now."""
    import json

    moved = json.loads((ROOT / "docs/javascripts/moved-sections.json").read_text(encoding="utf-8"))
    assert moved
    for page, sections in moved.items():
        ids = set(re.findall(r'\bid="([^"]+)"', (site / page / "index.html").read_text(encoding="utf-8")))
        for old, new in sections.items():
            target, _, section = new.partition("#")
            assert old not in ids, (page, old)
            assert f'id="{section}"' in (site / target / "index.html").read_text(encoding="utf-8"), (page, old, new)


@pytest.mark.parametrize("page", [p.stem for p in chapter_pages()])
def test_every_example_on_a_chapter_is_followed_by_its_output(site, page):
    source = (ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")
    includes = [t for t in re.findall(r'^\s*--8<-- "([^":]+)[^"]*"\s*$', source, re.M)
                if (ROOT / "snippets" / t).is_file()]
    built = (site / page / "index.html").read_text(encoding="utf-8")
    outputs = re.findall(r'<span class="filename">Output</span>', built)
    assert includes and len(outputs) == len(includes)
    assert f"PyTorch {PIN}" in text_of(built)


@pytest.mark.parametrize("name", ["index.html", "01-computational-graph/index.html", "contributing/index.html"])
def test_no_traceback_no_raw_address_no_include_line(site, name):
    built = text_of((site / name).read_text(encoding="utf-8"))
    assert "Traceback (most recent call last)" not in built
    assert not re.search(r"0x[0-9a-fA-F]{6,}", built)
    if name != "contributing/index.html":  # that page teaches the include syntax itself
        assert not re.search(r"^\s*-+8<-+\s", built, re.M)


def test_no_code_block_or_notebook_cell_shows_a_build_option_line(site):
    """``# docexec:`` lines are for the build: pages, their notebook pages and the notebooks
    readers download show the code without them (``included_text``), and the code still runs."""
    optioned = [p for p in sorted((ROOT / "snippets").rglob("*.py"))
                if re.search(r"^#\s*docexec:", p.read_text(encoding="utf-8"), re.M)]
    assert optioned, "no snippet has an option line: this test would check nothing"
    shown = sorted(site.rglob("*.html")) + sorted(site.rglob("*.ipynb")) + sorted((ROOT / "notebooks").glob("*.ipynb"))
    shown = [p for p in shown if "contributing" not in p.parts]  # the authors' page teaches the option lines
    found = [str(p.relative_to(p.parents[1])) for p in shown
             if re.search(r"#\s*docexec:\s*(figure|timeout|memory)=", text_of(p.read_text(encoding="utf-8")))]
    assert found == []


def test_chapter_shows_real_outputs(site):
    built = text_of((site / "01-computational-graph/index.html").read_text(encoding="utf-8"))
    assert "tensor(7., grad_fn=&lt;AddBackward0&gt;)" in built or "tensor(7., grad_fn=<AddBackward0>)" in built
    assert "element 0 of tensors does not require grad and does not have a grad_fn" in built


def test_the_committed_drift_record_gives_its_page_and_a_mark_on_each_changed_output(site):
    """The real record (``make drift TORCH=...``, committed): every example it lists is on the page,
    linked to the output block it changes, which its chapter's version note links to as well."""
    from docexec.versions import drift

    if not (ROOT / "drift.json").is_file():
        pytest.skip("no drift record is committed (make upgrade removes it; make drift TORCH=<version> writes one)")
    record = drift.loads((ROOT / "drift.json").read_text(encoding="utf-8"))
    page = (site / "what-changes/index.html").read_text(encoding="utf-8")
    assert re.search(rf'<h1 id="[\w-]+">What changes in PyTorch {re.escape(record.torch)}<', page)
    links = re.findall(r'href="\.\./([\w-]+)/#(drift-[\w-]+)"', page)
    assert len(links) == len(record.examples) > 0
    for chapter, anchor in links:
        built = (site / chapter / "index.html").read_text(encoding="utf-8")
        mark = f'<span class="docexec-drift-at" id="{anchor}"></span>'
        after = built[built.index(mark) + len(mark):].lstrip("\n")
        assert after.startswith('<div class="highlight"><span class="filename">Output</span>'), after[:200]
        note = re.search(r'<details class="info docexec-drift"[^>]*>(.*?)</details>', built, re.S).group(1)
        assert f'href="#{anchor}"' in note and f"On PyTorch {record.torch}, " in note


def test_a_page_has_at_most_one_version_note_and_it_is_folded(site):
    """However many of a page's outputs the next PyTorch prints differently, one folded note under
    its title lists them (chapter 11: one warning shared by many of its outputs, shown once)."""
    counts = {}
    for page in sorted(site.glob("*/index.html")):
        html = page.read_text(encoding="utf-8")
        counts[page.parent.name] = html.count("docexec-drift\"")
        assert 'class="admonition info docexec-drift"' not in html
        if counts[page.parent.name]:
            note = re.search(r'<details class="info docexec-drift"[^>]*>(.*?)</details>', html, re.S).group(1)
            shown = re.findall(r"<pre><code>(.*?)</code></pre>", note, re.S)
            assert len(shown) == len(set(shown)), f"{page}: a change is shown more than once"
    assert set(counts.values()) <= {0, 1} and any(counts.values())


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_broken_claim_fails_the_build_with_file_and_line(site_copy, tmp_path):
    snippet = site_copy / "snippets/computational-graph/opt_in.py"
    _replace(snippet, "print(x.requires_grad)  # True", "print(x.requires_grad)  # False")
    _replace(site_copy / "snippets/computational-graph/graph_build.py", "False False", "True False")
    before = {p: p.read_bytes() for p in (site_copy / "snippets").rglob("*.py")}
    proc = mkdocs_build(site_copy, tmp_path / "out")
    assert proc.returncode != 0
    log = proc.stderr + proc.stdout
    assert ("snippets/computational-graph/opt_in.py:5: claim does not hold: "
            "claimed 'False', printed 'True'") in log
    assert "snippets/computational-graph/graph_build.py:13: claim does not hold" in log  # all failures listed
    assert "2 file(s) failed (2 problem(s) in all)" in log
    assert {p: p.read_bytes() for p in before} == before  # a failed build leaves sources untouched
    assert not (tmp_path / "out" / "index.html").exists()


def test_a_snippet_that_raises_fails_the_build_with_file_line_and_exception(site_copy, tmp_path):
    _replace(site_copy / "snippets/computational-graph/opt_in.py", "w = torch.tensor([4.0])",
             "w = torch.tensor([4.0]) + undefined_name")
    proc = mkdocs_build(site_copy, tmp_path / "out")
    assert proc.returncode != 0
    assert ("snippets/computational-graph/opt_in.py:9: raised NameError: name 'undefined_name' is not defined"
            in proc.stderr)


def test_a_cache_file_that_cannot_be_written_fails_the_build_with_one_line_naming_it(site_copy, tmp_path):
    """A full disk, a folder where a file should be: one line naming the file, no traceback."""
    blocked = site_copy / ".cache/docexec/notebooks/notebooks/01-computational-graph.ipynb"
    blocked.unlink(missing_ok=True)  # the copied cache's notebook: the build writes it again
    blocked.mkdir(parents=True, exist_ok=True)  # a folder where the chapter's notebook is written
    proc = mkdocs_build(site_copy, tmp_path / "out")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if "Is a directory" in line]
    assert lines and all(f"{blocked}: Is a directory" in line for line in lines), lines


def test_a_missing_snippet_fails_the_build(site_copy, tmp_path):
    _replace(site_copy / "docs/01-computational-graph.md", '"computational-graph/opt_in.py"',
             '"computational-graph/no_such_file.py"')
    proc = mkdocs_build(site_copy, tmp_path / "out")
    assert proc.returncode != 0
    line = next(n for n, text in enumerate((site_copy / "docs/01-computational-graph.md").read_text().splitlines(), 1)
                if "no_such_file.py" in text)
    assert (f"docs/01-computational-graph.md:{line}: includes 'computational-graph/no_such_file.py', "
            "which is not a file under snippets or docexec") in proc.stderr


def test_a_missing_section_fails_the_build_with_page_and_line(site_copy, tmp_path):
    _replace(site_copy / "docs/01-computational-graph.md", '"graph.py:to_dot"', '"graph.py:to_svg"')
    proc = mkdocs_build(site_copy, tmp_path / "out")
    assert proc.returncode != 0
    assert re.search(r"docs/01-computational-graph\.md:\d+: includes section 'to_svg' of 'graph.py'", proc.stderr)


def test_a_build_that_stops_early_leaves_no_snippet_running(site_copy, tmp_path):
    """Pages are converted while the snippets run; a page that stops the build (here a bad
    include) must stop the run too, not leave a snippet running after the build has ended."""
    import time

    from .test_execute import assert_ends

    pid_file = tmp_path / "sleeper.pid"
    (site_copy / "snippets/backward-pass/aa_sleeper.py").write_text(  # the first to run
        f"# docexec: timeout=300\nimport os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "time.sleep(200)\n", encoding="utf-8")
    _replace(site_copy / "docs/02-backward-pass.md", '"backward-pass/', '"backward-pass/no_such_')
    started = time.monotonic()
    proc = mkdocs_build(site_copy, tmp_path / "out")
    assert proc.returncode != 0 and "no_such_" in proc.stderr
    assert time.monotonic() - started < 120  # not the sleeper's 200 s
    # The build may stop before the worker has even imported torch: give a worker left behind the
    # time to start the sleeper, then it must be gone (or have never started).
    deadline = time.monotonic() + 15
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    if pid_file.exists():
        assert_ends(int(pid_file.read_text()), "a snippet still runs after the build stopped")


def test_a_cold_build_and_a_warm_build_write_the_same_bytes(warm_site, tmp_path):
    """A cold build converts the notebooks in another order (those waiting for slow snippets
    last) and fills pages in after converting them: what it writes must not show it. The
    session's first build is the cold one when it found no build cache and ran every example (a
    fresh clone, as in CI: ``cold_marker``); otherwise a copy without any cache is built cold here."""
    cold_log = build_log(warm_site).read_text(encoding="utf-8")
    if cold_marker(warm_site).exists() and re.search(r"docexec: \d+ snippets: [1-9]\d* run, 0 from the cache",
                                                    cold_log):
        root, cold_site = ROOT, warm_site
    else:
        (tmp_path / "copy").mkdir()
        root, cold_site = copy_site_files(tmp_path / "copy"), tmp_path / "cold"
        cold = mkdocs_build(root, cold_site)
        assert cold.returncode == 0, cold.stderr[-3000:]
        cold_log = cold.stderr
    assert re.search(r"docexec: \d+ snippets: [1-9]\d* run, 0 from the cache", cold_log)
    warm = mkdocs_build(root, tmp_path / "warm")
    assert warm.returncode == 0, warm.stderr[-3000:]
    assert re.search(r"docexec: \d+ snippets: 0 run", warm.stderr)
    written = {p.relative_to(cold_site): p.read_bytes() for p in cold_site.rglob("*") if p.is_file()}
    again = {p.relative_to(tmp_path / "warm"): p.read_bytes() for p in (tmp_path / "warm").rglob("*") if p.is_file()}
    assert sorted(map(str, written)) == sorted(map(str, again))
    assert [str(name) for name in written if written[name] != again[name]] == []


def test_a_draft_page_that_mkdocs_serve_shows_gets_its_outputs(site_copy, tmp_path):
    """`mkdocs serve` builds draft pages too (MkDocs' draft_docs), which `mkdocs build` leaves
    out: their places must be filled like any other page's."""
    import textwrap

    (site_copy / "docs/zz-draft.md").write_text(
        '# A draft\n\n```python\n--8<-- "computational-graph/opt_in.py"\n```\n', encoding="utf-8")
    config = (site_copy / "mkdocs.yml").read_text(encoding="utf-8")
    (site_copy / "mkdocs.yml").write_text(config + "draft_docs: |\n  zz-draft.md\n", encoding="utf-8")
    script = textwrap.dedent("""
        import sys
        from mkdocs.commands.build import build
        from mkdocs.config import load_config
        build(load_config("mkdocs.yml", site_dir=sys.argv[1]), serve_url="http://127.0.0.1:8000/")
        """)  # what `mkdocs serve` runs for each build
    proc = subprocess.run([sys.executable, "-c", script, str(tmp_path / "out")], cwd=site_copy, capture_output=True,
                          text=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    built = (tmp_path / "out/zz-draft/index.html").read_text(encoding="utf-8")
    assert "docexec-deferred" not in built
    assert built.count('<span class="filename">Output</span>') == 1 and "docexec-versions" in built


def generated_diagrams() -> dict[str, str]:
    """Committed generated DOT files -> the snippet each came from."""
    from docexec.graphs.figures import generated_by

    found = {}
    for path in sorted((ROOT / "diagrams").rglob("*.dot")):
        snippet = generated_by(path.read_text(encoding="utf-8").split("\n", 1)[0] + "\n")
        if snippet:
            found[path.relative_to(ROOT).as_posix()] = snippet
    return found


def test_every_snippet_with_a_graph_has_a_figure_and_every_figure_is_on_a_page(site):
    diagrams = generated_diagrams()
    assert len(diagrams) >= 8
    shown = 0
    for page in chapter_pages():
        source = page.read_text(encoding="utf-8")
        built = (site / page.stem / "index.html").read_text(encoding="utf-8")
        included = set(re.findall(r'^\s*--8<-- "([^":]+)', source, re.M))
        with_graph = {s for s in diagrams.values() if s.removeprefix("snippets/") in included}
        concepts = re.findall(r"^\s*!\[[^\]]+\]\((diagrams/[^)\s]+\.dot)", source, re.M)
        examples = re.findall(r'<figure class="docexec-figure" id="[^"]+">\s*<svg role="img" aria-label="([^"]+)"',
                              built)
        drawn = re.findall(r'<figure class="docexec-figure">\s*<svg role="img" aria-label="([^"]+)"', built)
        again = re.findall(r'<p class="docexec-same-figure">', built)
        # each example's graph once (or a line pointing to the same graph above), each concept
        # diagram, and the key to the figures (folded) if the page has any figure
        assert len(examples) + len(again) == len(with_graph)
        assert len(drawn) == len(concepts) + bool(examples or concepts)
        assert "<!--docexec-" not in built  # every place filled
        for snippet in with_graph:
            name = re.escape(Path(snippet).name)  # its caption, or the line that points to the same graph
            assert re.search(rf"(At the end of|The graph behind the tensors of) <code>{name}</code>", built), snippet
        shown += len(with_graph)
    assert shown == len(diagrams)  # no generated figure is left off every page


def drift_torch() -> str:
    """The PyTorch the committed drift record speaks of (its notes' titles name it)."""
    import json

    record = ROOT / "drift.json"
    return json.loads(record.read_text(encoding="utf-8"))["torch"] if record.is_file() else "?"


def test_the_search_index_finds_an_exercise_by_its_question_and_holds_no_answer_caption_or_drawing(site):
    """Search results are the lesson's text: an exercise's entry holds its question and program, not
    its answer; no figure caption, version note or word inside a drawing is indexed; and the
    attribute that keeps them out does not reach the page."""
    import json

    index = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))
    text = " ".join(doc["text"] for doc in index["docs"] if doc["location"].startswith("04-leaf-tensors/"))
    built = (site / "04-leaf-tensors/index.html").read_text(encoding="utf-8")
    exercise = next(doc["text"] for doc in index["docs"] if doc["location"].startswith("04-leaf-tensors/#exercise-3"))
    assert "Predict the three" in exercise and "h.retain_grad()" in exercise  # the question and its program
    answer = "so it recovers nothing from the"
    assert answer in built and answer not in text
    assert "At the end of <code>define_by_run.py</code>, " in (site / "01-computational-graph/index.html").read_text(
        encoding="utf-8")
    found = [doc["location"] for doc in index["docs"] if doc["location"][:2].isdigit() and (
             re.search(r"At the end of <code>[\w.]+</code>, ", doc["text"])
             or f"On PyTorch {drift_torch()}, " in doc["text"] or "docexec-" in doc["text"])]
    assert found == []
    labels = set(re.findall(r"<text[^>]*>([^<]+)</text>", built))  # words inside the drawings
    only_drawn = {label for label in labels if label not in re.sub(r"<svg\b.*?</svg>", "", built, flags=re.S)}
    assert only_drawn and not [label for label in only_drawn if label in text]
    assert "data-search-exclude" not in built


def test_figure_alt_text_states_the_graph_in_words(site):
    built = (site / "01-computational-graph/index.html").read_text(encoding="utf-8")
    assert 'aria-label="Autograd graph: x → AccumulateGrad → MulBackward0 (y) → AddBackward0 (z)"' in built


def test_a_stale_committed_diagram_fails_the_build_naming_it(site_copy, tmp_path):
    # Same printed output, different graph: only the figure can notice.
    _replace(site_copy / "snippets/computational-graph/requires_grad_later.py", "b = (a * 3).sum()",
             "b = (a + a + a).sum()")
    proc = mkdocs_build(site_copy, tmp_path / "out")
    assert proc.returncode != 0
    assert ("diagrams/computational-graph/requires_grad_later.dot: is stale: snippets/computational-graph/"
            "requires_grad_later.py now draws a different graph (run `make fix` to update it)") in proc.stderr


def test_missing_dot_gives_one_line_reason_with_install_command(site_copy, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    env_path = str(empty)
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "out")],
        capture_output=True, text=True, cwd=site_copy, env=dict(os.environ, PATH=env_path, NO_MKDOCS_2_WARNING="1"),
    )
    assert proc.returncode != 0
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if "Graphviz" in line]
    assert lines and "apt-get install -y graphviz" in lines[0] and "brew install graphviz" in lines[0]


def test_a_build_with_networking_off_gives_identical_bytes(site, tmp_path):
    """Two clean builds of the same sources are byte-identical, even with no network at all (a
    network namespace of its own, with only the loopback interface up, as on a machine with no
    network: chapter 12's DistributedDataParallel examples talk to themselves over 127.0.0.1)."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "again")]
    offline = shutil.which("unshare") is not None and shutil.which("ip") is not None and os.geteuid() == 0 \
        and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    if offline:
        command = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *command]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    first = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    second = {p.relative_to(tmp_path / "again"): p.read_bytes() for p in (tmp_path / "again").rglob("*") if p.is_file()}
    assert sorted(first) == sorted(second)
    assert [str(name) for name in first if first[name] != second[name]] == []
    if os.geteuid() == 0 and os.environ.get("CI"):
        assert offline, "CI runs as root: the offline build must really have had no network"


def test_pages_load_nothing_from_other_hosts(site):
    external = []
    for page in site.rglob("*.html"):
        for tag in re.findall(r"<(?:script|img|link|iframe|source)\b[^>]*>", page.read_text(encoding="utf-8")):
            if 'rel="canonical"' in tag:
                continue
            if re.search(r'(?:src|href)="(?:https?:)?//', tag):
                external.append(f"{page.relative_to(site)}: {tag}")
    assert external == []


def test_a_rebuild_draws_no_figure_again_and_the_figure_cache_holds_what_pages_show(site, tmp_path):
    """Each build drops the drawings it did not use (figures.prune); the hand-drawn diagrams that
    pages embed count as used, so a rebuild finds every drawing in place (not written again)."""
    from docexec.graphs import figures, teach
    from docexec.source.snippets import discover

    from .conftest import run_all

    svg_dir = ROOT / figures.SVG_CACHE
    before = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in svg_dir.glob("*.svg")}
    proc = mkdocs_build(ROOT, tmp_path / "again")
    assert proc.returncode == 0, proc.stderr[-4000:]
    counted = re.search(r"INFO +- +docexec: (\d+) snippets: (\d+) run, (\d+) from the cache", proc.stderr)
    assert counted, proc.stderr[-2000:]  # the log says what a build ran and what it took from the cache
    assert int(counted.group(1)) == len(discover(ROOT)) == int(counted.group(3)) > 0
    after = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in svg_dir.glob("*.svg")}
    assert after == before
    drawings = figures.Drawings()
    shown = list(run_all(ROOT).graphs().values()) + figures.hand_drawn(ROOT) + [teach.legend_dot()]
    assert set(after) == {f"{drawings.key(dot)}.svg" for dot in shown}


def test_a_build_without_execution_drops_no_drawing(site, tmp_path):
    """With execution off no graph is known, so no drawing may be taken for unused."""
    from docexec.graphs import figures

    svg_dir = ROOT / figures.SVG_CACHE
    before = sorted(p.name for p in svg_dir.glob("*.svg"))
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", DOCEXEC_EXECUTE="0")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "plain")],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert sorted(p.name for p in svg_dir.glob("*.svg")) == before and len(before) > 40



def test_every_sentence_of_every_source_page_reaches_its_built_page(site):
    """Each paragraph, list item, heading and table cell of a page, as its Markdown reads without
    includes or outputs, is on the built page whole (a line of prose taken for something else, such
    as a snippet's section marker, would be missing from it)."""
    from .reading import prose_blocks, shows, source_html, squeezed, unquoted

    lost = []
    for source in sorted((ROOT / "docs").glob("*.md")):
        built = (site / ("" if source.stem == "index" else source.stem) / "index.html").read_text(encoding="utf-8")
        article = built[built.index('<article class="md-content__inner'):built.index("</article>")]
        shown = squeezed(prose_blocks(article)[1])
        blocks, _ = prose_blocks(source_html(unquoted(source.read_text(encoding="utf-8"))))
        assert len(blocks) > 3, source.name
        lost += [f"docs/{source.name}: {block[:120]!r}" for block in blocks if not shows(shown, block)]
    assert lost == [], "\n".join(lost)



def test_the_prose_comparison_notices_a_lost_line():
    from .reading import prose_blocks, source_html, squeezed

    page = "A first paragraph.\n\nA second one, with `# --8<-- [start:x]` in it\nand more.\n"
    built = source_html(page.replace("with `# --8<-- [start:x]` in it\n", ""))
    blocks, _ = prose_blocks(source_html(page))
    shown = squeezed(prose_blocks(built)[1])
    assert [squeezed(block) in shown for block in blocks] == [True, False]


def test_tooltips_only_where_a_term_is_used_as_that_term(site):
    """A tooltip covers a whole word ("non-leaf" gets the non-leaf definition, never "leaf" inside
    it), carries that word's definition, and does not sit on the verb "leaves"."""
    from .reading import glossary, misused_tooltip, tooltips_in_html

    terms, wrong, seen = glossary(), [], set()
    for page in sorted(site.glob("**/index.html")):
        for word, title, before, after in tooltips_in_html(page.read_text(encoding="utf-8")):
            seen.add(word)
            reason = misused_tooltip(word, title, before, after, terms)
            if reason:
                wrong.append(f"{page.relative_to(site)}: {reason}")
    assert wrong == [], "\n".join(wrong)
    assert {"non-leaf", "Non-leaf", "non-leaves", "leaves", "Node"} <= seen


def test_the_tooltip_rules_tell_right_from_wrong():
    from .reading import glossary, misused_tooltip

    terms = glossary()
    assert misused_tooltip("leaf", terms["leaf"], "a non-", " tensor", terms)  # inside "non-leaf"
    assert misused_tooltip("leaf", terms["leaf"], "a ", "-like", terms)
    assert misused_tooltip("leaves", terms["leaves"], "pass ", " behind an object", terms)  # the verb
    assert misused_tooltip("leaves", terms["leaves"], "backward() ", " `x.grad` at None", terms)
    assert misused_tooltip("non-leaf", terms["leaf"], "a ", " tensor", terms)  # another word's definition
    assert misused_tooltip("leaves", terms["leaves"], "Only ", " that require grad", terms) is None
    assert misused_tooltip("non-leaves", terms["non-leaves"], "and ", ").", terms) is None


def test_a_tampered_recorded_value_in_a_committed_diagram_fails_the_build_naming_it(site_copy, tmp_path):
    _replace(site_copy / "diagrams/backward-pass/seed_gradient.dot", ".grad = 12", ".grad = 13")
    proc = mkdocs_build(site_copy, tmp_path / "out")
    assert proc.returncode != 0
    assert "diagrams/backward-pass/seed_gradient.dot: is stale: snippets/backward-pass/seed_gradient.py" in proc.stderr


def test_each_chapter_has_the_key_once_and_no_figure_twice(site):
    for page in chapter_pages():
        built = (site / page.stem / "index.html").read_text(encoding="utf-8")
        if '<figure class="docexec-figure"' not in built:
            continue
        assert built.count('<details class="docexec-key">') == 1, page.stem
        drawings = re.findall(r'<figure class="docexec-figure" id="[^"]+">\s*(<svg.*?</svg>)', built, re.S)
        bodies = [re.sub(r'id="[^"]*"', "", svg) for svg in drawings]
        assert len(bodies) == len(set(bodies)), f"{page.stem} draws one graph twice"
    first = (site / "01-computational-graph/index.html").read_text(encoding="utf-8")
    assert ('The graph behind the tensors of <code>next_functions.py</code> is the one drawn above for '
            '<a href="#fig-computational-graph-graph-build-py-70fcf1-figure"><code>graph_build.py</code></a>') in first


def test_captions_say_what_each_figure_shows(site):
    captions = []
    for page in chapter_pages():
        built = (site / page.stem / "index.html").read_text(encoding="utf-8")
        captions += re.findall(r'<figure class="docexec-figure" id="[^"]+">.*?<figcaption>(.*?)</figcaption>',
                               built, re.S)
    assert len(captions) > 40 and len(set(captions)) == len(captions)
    assert any("order the Nodes ran in" in c for c in captions) and any("why it was cut off" in c for c in captions)


@pytest.mark.parametrize("stem", [p.stem for p in sorted((ROOT / "docs").glob("[0-9][0-9]-*.md"))])
def test_a_notebook_page_marks_its_chapter_in_the_navigation_and_nothing_else(site, stem):
    built = (site / "notebooks" / stem / "index.html").read_text(encoding="utf-8")
    marked = [re.search(r'href="([^"]*)"', built[at.end():]).group(1)
              for at in re.finditer(r'class="md-nav__item md-nav__item--active[^"]*"', built)]
    assert marked == [f"../../{stem}/"]


def test_notebook_pages_links_lead_to_their_headings_and_the_title_keeps_its_code(site):
    """Every entry of a notebook page's table of contents, and every link of its text to a section,
    points to a heading on the page (headings with inline code included: ch10's "Did `grad` leave a
    graph?"), and the title keeps its code."""
    pages = [site / "notebooks" / chapter.stem / "index.html" for chapter in chapter_pages()]
    for page in pages:
        html = page.read_text(encoding="utf-8")
        found = re.findall(r'<h[1-6] id="([^"]*)"', html)
        ids = set(found)
        assert len(ids) == len(found) and "" not in ids, f"{page}: repeated or empty ids"
        toc = re.findall(r'<a href="#([^"]*)" class="md-nav__link">', html)
        assert toc and set(toc) <= ids, f"{page}: {sorted(set(toc) - ids)}"
        # the chapter's own links to its sections, copied into the notebook, lead somewhere too
        links = set(re.findall(r'<a href="#([^"]+)">', html))  # the text's (the contents' have a class)
        assert len(links) > 3 and links <= ids, f"{page}: {sorted(links - ids)}"
    torch_func = (site / "notebooks/10-torch-func/index.html").read_text(encoding="utf-8")
    assert "<title>10 · Functional autograd with torch.func (notebook)" in torch_func
    assert "Back to the chapter: 10 · Functional autograd with <code>torch.func</code></a>" in torch_func


def test_every_figure_on_every_page_has_a_text_alternative(site):
    """A drawing without words is nothing to a screen reader: every inline figure, on the chapter
    pages and on the notebook pages (where chapter 01's concept diagram takes the alt text of the
    image nbconvert made of it), carries a non-empty ``aria-label``."""
    pages = sorted(site.glob("*/index.html")) + sorted((site / "notebooks").glob("*/index.html"))
    labels = {page: re.findall(r'<svg role="img" aria-label="([^"]*)"', page.read_text(encoding="utf-8"))
              for page in pages}
    assert len(labels[site / "notebooks/01-computational-graph/index.html"]) > 10
    assert [(page.relative_to(site).as_posix(), n) for page, found in labels.items()
            for n, label in enumerate(found) if not label.strip()] == []


def test_the_prose_comparison_takes_a_quote_for_its_value_and_no_less():
    from .reading import prose_blocks, shows, source_html, squeezed, unquoted

    (block,), _ = prose_blocks(source_html(unquoted("The gradient is {{ ex: x.grad | number }} here.\n")))
    assert shows(squeezed("<p>The gradient is 12 here.</p>"), block)
    assert not shows(squeezed("<p>The gradient is here.</p>"), block)
    assert not shows(squeezed("<p>The slope is 12 here.</p>"), block)


@pytest.mark.parametrize("page", [p.stem for p in chapter_pages()])
def test_every_chapter_ends_with_takeaways_that_link_to_where_the_page_shows_them(site, page):
    """A short "Takeaways" box closes each chapter, before Further Reading: three to five points,
    each linked to the section of the same page whose example shows it."""
    built = (site / page / "index.html").read_text(encoding="utf-8")
    box = re.search(r'<div class="admonition abstract">\s*<p class="admonition-title">Takeaways</p>(.*?)</div>',
                    built, re.S)
    assert box, f"{page}: no Takeaways box"
    assert box.start() < built.index('id="further-reading"')
    points = re.findall(r"<li>(.*?)</li>", box.group(1), re.S)
    assert 3 <= len(points) <= 5
    ids = set(re.findall(r'\bid="([^"]+)"', built))
    for point in points:
        targets = re.findall(r'href="#([^"]+)"', point)
        assert targets and set(targets) <= ids, f"{page}: {text_of(point)}"
