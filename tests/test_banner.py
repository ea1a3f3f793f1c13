"""The banner a failed rebuild under ``mkdocs serve`` puts on the last good build's pages
(``docexec.host.serve``): what it lists, and that it leaves the kept build's files alone."""

from __future__ import annotations

import logging
import os

from docexec.host.serve import BANNER_LINES, failure_lines, keeping_last_good, show_failure


def test_a_failure_lists_what_was_logged_then_what_the_error_says_each_once():
    class FoundError(Exception):
        lines = ["snippets/a.py:3: claim does not hold"]

    said = ["snippets/a.py:3: claim does not hold", "Doc file 'b.md' contains a link 'nope.md', which is not found"]
    assert failure_lines(said, FoundError("1 problem")) == said
    assert failure_lines([], ValueError("bad value")) == ["ValueError: bad value"]
    assert failure_lines([], RuntimeError()) == ["RuntimeError"]


def test_a_problem_the_log_repeats_inside_more_text_is_listed_once():
    class FoundError(Exception):
        lines = ["snippets/a.py:3: claim does not hold"]

    said = ["docexec: snippets/a.py:3: claim does not hold",
            "1 file(s) failed (1 problem(s) in all); the first problem of each:\n"
            "  snippets/a.py:3: claim does not hold\nFix the snippet or page.",
            "Doc file 'b.md' contains a link 'nope.md', which is not found"]
    assert failure_lines(said, FoundError("1 problem")) == [said[2], FoundError.lines[0]]


def test_the_banner_lists_at_most_ten_lines_escaped_and_keeps_each_pages_mode(tmp_path):
    page = tmp_path / "site" / "a" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html><body class='x'><p>text</p></body></html>", encoding="utf-8")
    os.chmod(page, 0o644)
    show_failure(tmp_path / "site", [f"snippets/a.py:{n}: <script>" for n in range(1, 14)])
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<html><body class='x'><div class=\"docexec-failed-build\" role=\"alert\"><button")
    assert text.count("&lt;script&gt;") == BANNER_LINES and "<script>" not in text
    assert "and 3 more: see the terminal" in text and text.endswith("<p>text</p></body></html>")
    assert page.stat().st_mode & 0o777 == 0o644


def test_a_rebuild_that_fails_shows_what_the_host_logged_and_the_kept_build_stays_clean(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    page = site / "index.html"
    page.write_text("<body>good</body>", encoding="utf-8")

    def failing(config=None):
        page.unlink()  # a build empties the site first
        logging.getLogger("mkdocs.structure.pages").warning("Doc file 'b.md' contains a link 'nope.md', not found")
        raise RuntimeError("Aborted with 1 warnings in strict mode!")

    def succeeding(config=None):
        page.write_text("<body>better</body>", encoding="utf-8")

    reported = []
    rebuild = keeping_last_good(site, failing, reported.append)
    rebuild()
    shown = page.read_text(encoding="utf-8")
    assert "contains a link &#x27;nope.md&#x27;, not found" in shown and "RuntimeError: Aborted" in shown
    assert "good" in shown and reported[-1].startswith("the rebuild failed")
    rebuild()  # failed again: the kept build had no banner written into it, so one banner shows
    assert page.read_text(encoding="utf-8").count("docexec-failed-build") == 1
    keeping_last_good(site, succeeding, reported.append)()
    assert page.read_text(encoding="utf-8") == "<body>better</body>"
