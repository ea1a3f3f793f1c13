"""``make serve`` and ``mkdocs serve``: an address it cannot use ends in one line that says what to
do; a failed rebuild leaves the last good build on show; nothing outlives the server."""

from __future__ import annotations

import html
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from .conftest import ROOT
from .test_execute import assert_ends
from .test_hosts import copy_site

pytestmark = pytest.mark.slow


def serve(address: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "serve", f"ADDR={address}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def own_lines(proc: subprocess.CompletedProcess) -> list[str]:
    """What the command wrote, but make's own closing "make: *** ... Error 1" line (``make[1]:``
    under another make, such as ``make test``)."""
    return [line for line in (proc.stdout + proc.stderr).splitlines()
            if line.strip() and not re.match(r"make(\[\d+\])?: \*\*\*", line)]


def test_a_busy_port_gives_one_clear_line():
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        proc = serve(f"127.0.0.1:{port}")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    assert own_lines(proc) == [f"make serve: 127.0.0.1:{port} is in use (another server?); serve on another "
                               f"address: make serve ADDR=127.0.0.1:{port + 1}"]


def test_an_address_that_is_not_host_and_port_says_how_to_write_one():
    proc = serve("8000")
    assert proc.returncode != 0
    assert own_lines(proc) == ["make serve: ADDR='8000' is not host:port; for example: make serve ADDR=127.0.0.1:8001"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url: str, timeout: float = 20.0) -> str:
    """The page at ``url``, without the live-reload script MkDocs adds (it names the build's epoch)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return re.sub(r"livereload\(\d+, \d+\)", "livereload()", response.read().decode())


def processes_in(folder) -> list[int]:
    """The processes whose working folder is ``folder`` (the worker and the build run there)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd") == str(folder):
                found.append(int(pid))
        except OSError:
            continue
    return found


def wait_for(condition, timeout: float = 120.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_a_failed_rebuild_keeps_the_last_good_build_on_show_and_sigterm_leaves_nothing(tmp_path):
    root = copy_site(tmp_path)
    port = free_port()
    log = tmp_path / "serve.log"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(root))
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--livereload", "--dev-addr",
                                   f"127.0.0.1:{port}"], cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    page = f"http://127.0.0.1:{port}/01-computational-graph/"
    try:
        wait_for(lambda: "Serving on" in log.read_text(), what="the first build")
        good = get(page)
        assert "operations that use x will be recorded" in good
        snippet = root / "snippets/computational-graph/opt_in.py"
        text = snippet.read_text()
        snippet.write_text(text.replace("print(x.requires_grad)  # True", "print(x.requires_grad)  # False"))
        wait_for(lambda: "keeps showing the last good build" in log.read_text(), what="the failed rebuild")
        assert "opt_in.py" in log.read_text() and "claim does not hold" in log.read_text()
        failed = get(page, timeout=10)  # served at once: the last good page, with a banner naming the problem
        banner = re.search(r'<div class="docexec-failed-build" role="alert">.*?</div>', failed, re.S)
        assert banner and failed.replace(banner.group(0), "") == good
        line = next(line for line in log.read_text().splitlines() if "opt_in.py:" in line and "claim" in line)
        # the line the terminal shows, once (the log's summary quotes it again: it was listed three times)
        assert banner.group(0).count(html.escape(line[line.index("snippets/"):])) == 1
        snippet.write_text(text.replace("# True -> operations", "# True -> operations, again,"))
        wait_for(lambda: "operations, again," in get(page, timeout=30), what="the fixed rebuild")
        assert "docexec-failed-build" not in get(page)  # gone with the next good build
        index = get(f"http://127.0.0.1:{port}/search/search_index.json")  # read again: the edited page only
        assert "operations, again," in index and '"location":"02-backward-pass/"' in index.replace(" ", "")
        # an edit that changes a recorded figure: the page shows the new figure before `make fix`
        before = get(page).count("AddBackward0")
        later = root / "snippets/computational-graph/requires_grad_later.py"
        later.write_text(later.read_text().replace("b = (a * 3).sum()", "b = (a + a + a).sum()"))
        wait_for(lambda: get(page, timeout=30).count("AddBackward0") > before, what="the new figure")
        assert "docexec-failed-build" not in get(page)
        assert ("the page shows the run's figure; `make build` fails until `make fix` runs: diagrams/"
                "computational-graph/requires_grad_later.dot: is stale") in log.read_text()
        pid_file = tmp_path / "sleeper.pid"  # a rebuild whose example runs when the server is stopped
        snippet.write_text(f"# docexec: timeout=300\nimport os, time\nopen({str(pid_file)!r}, 'w').write("
                           "str(os.getpid()))\ntime.sleep(200)\n" + text)
        wait_for(lambda: pid_file.exists() and pid_file.read_text(), what="the long example to start")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    wait_for(lambda: not processes_in(root), timeout=10, what="the worker to end after the server")
    assert_ends(int(pid_file.read_text()), "the example still runs after the server was stopped")


def test_search_entries_of_an_unchanged_page_are_given_again_and_a_changed_page_is_read_again():
    """Under serve, Material's search index reads only the pages an edit changed; what it holds is
    what reading every page gives."""
    import uuid
    from types import SimpleNamespace

    from material.plugins.search.plugin import SearchIndex

    from docexec.host.serve import SearchEntries

    def page(text: str) -> SimpleNamespace:  # a place to fill, named by the build (a comment), in each
        return SimpleNamespace(content=f'<h1 id="t">Title</h1><p>{text}</p><!--docexec-{uuid.uuid4().hex}-1-->'
                                       '<h2 id="s">Part</h2><p>more</p>', url="p/", title="Title", toc="", meta={})

    read = []

    def add_entries(index, page):
        read.append(page.content)
        SearchIndex.add_entry_from_context(index, page)

    memo, plain = SearchEntries(), SearchIndex()
    for text in ("one", "one", "two", "<!-- a -- > three", "<!-- a -- > four"):  # -- > ends a comment too
        index = SearchIndex()
        memo.add(index, page(text), add_entries)
        plain.entries = []
        SearchIndex.add_entry_from_context(plain, page(text))
        assert index.entries == plain.entries and len(index.entries) == 2
        index.entries[0]["text"] = "changed by a later step"  # the kept entries are copies
    assert [next(word for word in ("one", "two", "three", "four") if word in content) for content in read] == [
        "one", "two", "three", "four"]


def test_templates_compiled_in_one_build_are_not_compiled_again_unless_edited(tmp_path):
    import jinja2

    from docexec.host.serve import TemplateCache

    cache, compiled = TemplateCache(), []

    class Counting(jinja2.Environment):
        def _compile(self, source, filename):
            compiled.append(filename)
            return super()._compile(source, filename)

    template = tmp_path / "main.html"
    template.write_text("<p>{{ x }}</p>")
    for text, wanted in (("<p>{{ x }}</p>", 1), ("<p>{{ x }}</p>", 1), ("<b>{{ x }}</b>", 2)):
        template.write_text(text)
        env = Counting(loader=jinja2.FileSystemLoader(tmp_path), bytecode_cache=cache)  # a new one each build
        assert env.get_template("main.html").render(x=1) == text.replace("{{ x }}", "1")
        assert len(compiled) == wanted
