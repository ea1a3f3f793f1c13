"""The promises hold on every host that runs Markdown extensions: MkDocs, ProperDocs and Zensical.

The Markdown extension ``docexec.host.markdown_ext`` runs, checks and fills in on its own; the MkDocs hook
(which ProperDocs runs too, and Zensical ignores) only makes builds faster. Each host builds the
site, and fails on a claim that does not hold, a snippet that raises, a snippet line longer than the
limit, a stale committed DOT file and an include of a missing file, each with its ``file:line: reason``
line and no traceback.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import PIN, ROOT, copy_caches, copy_site_files

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("warm_site")]

HOSTS = {
    "mkdocs": ["-m", "mkdocs", "build", "--strict", "--site-dir", "site"],
    "properdocs": ["-m", "properdocs", "build", "--strict", "--site-dir", "site"],
    "zensical": ["-m", "zensical", "build"],
}


def copy_site(target: Path) -> Path:
    """What a build reads, with the repository's caches (so only what a test breaks
    runs) and the committed drift record (its notes and, with the hook, its page)."""
    copy_site_files(target)
    copy_caches(target)
    if (ROOT / "drift.json").is_file():
        shutil.copy2(ROOT / "drift.json", target / "drift.json")
    return target


def build(root: Path, host: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true", NO_COLOR="1",
               PYTHONPATH=str(root))
    return subprocess.run([sys.executable, *HOSTS[host]], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


OPT_IN = "snippets/computational-graph/opt_in.py"
GRAPH_DOT = "diagrams/computational-graph/graph_build.dot"
CHAPTER = "docs/01-computational-graph.md"


def false_claim(root: Path) -> str:
    replace(root / OPT_IN, "print(x.requires_grad)  # True", "print(x.requires_grad)  # False")
    line = line_of(root / OPT_IN, "print(x.requires_grad)  # False")
    return f"{OPT_IN}:{line}: claim does not hold: claimed 'False', printed 'True'"


def raising_snippet(root: Path) -> str:
    replace(root / OPT_IN, "w = torch.tensor([4.0])", "w = torch.tensor([4.0]) + undefined_name")
    line = line_of(root / OPT_IN, "undefined_name")
    return f"{OPT_IN}:{line}: raised NameError: name 'undefined_name' is not defined"


def long_line(root: Path) -> str:
    note = "a note that makes this line longer than any page's code block shows whole"
    replace(root / OPT_IN, "print(x.requires_grad)  # True", f"print(x.requires_grad)  # True -> {note}")
    line = line_of(root / OPT_IN, note)
    length = len((root / OPT_IN).read_text(encoding="utf-8").splitlines()[line - 1])
    return f"{OPT_IN}:{line}: line is {length} characters; the limit is 80"


def stale_dot(root: Path) -> str:
    replace(root / GRAPH_DOT, "MulBackward0", "MulBackward9")
    return f"{GRAPH_DOT}: is stale: snippets/computational-graph/graph_build.py now draws a different graph"


def missing_include(root: Path) -> str:
    replace(root / CHAPTER, '--8<-- "computational-graph/opt_in.py"', '--8<-- "computational-graph/missing.py"')
    line = line_of(root / CHAPTER, "computational-graph/missing.py")
    return f"{CHAPTER}:{line}: includes 'computational-graph/missing.py', which is not a file under"


@pytest.mark.parametrize("host", ["properdocs", "zensical"])
def test_the_site_builds_with_outputs_and_figures(host, tmp_path):
    root = copy_site(tmp_path)
    proc = build(root, host)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    page = (root / "site/02-backward-pass/index.html").read_text(encoding="utf-8")
    assert page.count('<span class="filename">Output</span>') >= 8
    assert re.search(r'<figure class="docexec-figure"[^>]*>\n<svg role="img" aria-label="Autograd graph: ', page)
    assert f"PyTorch {PIN}" in page and "<!--docexec-" not in page
    moved = (root / "site/07-hooks-debugging/index.html").read_text(encoding="utf-8")  # mkdocs.yml's redirects
    assert re.search(r'http-equiv="refresh" content="0; ?url=\.\./07-hooks/"', moved), moved[:600]
    if (root / "drift.json").is_file():  # the extension puts the notes in on any host; the page needs the hook
        assert '<details class="info docexec-drift"' in (root / "site/04-leaf-tensors/index.html").read_text(
            encoding="utf-8")
        assert (root / "site/what-changes/index.html").is_file() == (host == "properdocs")


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize("breakage", [false_claim, raising_snippet, long_line, stale_dot, missing_include],
                         ids=lambda f: f.__name__)
def test_a_broken_input_fails_every_host_with_file_and_line(host, breakage, tmp_path):
    root = copy_site(tmp_path)
    expected = breakage(root)
    proc = build(root, host)
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, log[-3000:]
    assert expected in log, log[-3000:]
    assert "Traceback" not in log, log[-3000:]
    assert not (root / "site/01-computational-graph/index.html").exists()  # no page reached the site


def test_zensical_serve_shows_a_problem_and_goes_on(tmp_path):
    """A preview server that runs no hook of ours must not end on a problem: the problem goes to
    its log once, the pages list it at the top, and the next good build takes the notice away."""
    import html
    import signal
    import time
    import urllib.request

    from .test_serve import free_port, wait_for

    root = copy_site(tmp_path)
    port = free_port()
    log = tmp_path / "serve.log"
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(root))
    page = f"http://127.0.0.1:{port}/01-computational-graph/"

    def get() -> str:
        try:
            with urllib.request.urlopen(page, timeout=20) as response:
                return response.read().decode()
        except OSError:
            return ""

    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "zensical", "serve", "-a", f"127.0.0.1:{port}"], cwd=root,
                                  env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: "operations that use x will be recorded" in get(), what="the first build")
        expected = false_claim(root)
        wait_for(lambda: "This build has problems" in get(), what="the notice")
        assert expected in html.unescape(get()) and log.read_text().count(expected) == 1
        replace(root / OPT_IN, "print(x.requires_grad)  # False", "print(x.requires_grad)  # True")
        wait_for(lambda: "operations that use x" in get() and "This build has problems" not in get(),
                 what="the good build")
        assert server.poll() is None
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        time.sleep(0.5)
