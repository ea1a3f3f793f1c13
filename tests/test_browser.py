"""What a reader gets, checked in a real browser: Debian's Chromium driven by Playwright.

The built site is served on 127.0.0.1. Every page must load with no console error, no failed
request and no request to another host; figures must be visible and readable in both palettes;
search must find the module's terms; the copy button must copy the runnable snippet; axe-core must
report no serious or critical accessibility violation. Screenshots of every chapter in both
palettes are written to a folder this module prints.

Without Chromium (``/usr/bin/chromium``) these tests are skipped with the install command, except
under CI (``CI=true``), where a missing browser is a failure: ``.ci/run`` installs it.
"""

from __future__ import annotations

import functools
import http.server
import io
import os
import re
import socketserver
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from docexec.snippets import included_text, read_source

from .conftest import ROOT

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ROOT / ".cache" / "screenshots"

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing; .ci/run must install Debian's chromium")
    pytest.skip(f"no browser at {CHROMIUM}: install it with `apt-get update && apt-get install -y chromium` "
                "(as root; otherwise `sudo` before each apt-get) to run these", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")
Image = pytest.importorskip("PIL.Image")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


@pytest.fixture(scope="module")
def base_url(tmp_path_factory) -> str:
    site = tmp_path_factory.mktemp("browser-site")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def site_pages() -> list[str]:
    """Every page's path under the site root, from the sources (chapters, home, notebooks, ...)."""
    pages = [""] + [f"{p.stem}/" for p in sorted((ROOT / "docs").glob("*.md")) if p.stem != "index"]
    pages += [f"notebooks/{p.stem}/" for p in sorted((ROOT / "docs").glob("[0-9][0-9]-*.md"))]
    return pages


CHAPTERS = [f"{p.stem}/" for p in sorted((ROOT / "docs").glob("[0-9][0-9]-*.md"))]


def open_page(browser, url: str, scheme: str):
    """Open ``url`` in a fresh context with ``scheme`` preferred; collect every problem on the way."""
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url} ({r.failure})"))

    def only_local(route):
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            route.continue_()
        else:
            problems.append(f"request to another host: {route.request.url}")
            route.abort()

    page.route("**/*", only_local)
    page.goto(url, wait_until="networkidle")
    return context, page, problems


def _luminance(rgb) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = rgb[:3]
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(image) -> float:
    """WCAG contrast ratio between an image's most common colour and the colour farthest from it."""
    image = image.convert("RGB")
    colors = image.getcolors(image.width * image.height)
    background = _luminance(max(colors)[1])

    def ratio(other: float) -> float:
        return (max(background, other) + 0.05) / (min(background, other) + 0.05)

    return max(ratio(_luminance(color)) for _, color in colors)


def figure_report(page, path: str) -> tuple[int, list[str]]:
    """Check every figure on ``page``: visible, outlines at 3:1 and box text at 4.5:1 (WCAG AA)."""
    weak, count = [], 0
    for index, figure in enumerate(page.locator(".docexec-figure svg").all()):
        figure.scroll_into_view_if_needed()
        box = figure.bounding_box()
        if not box or box["width"] < 50 or box["height"] < 20:
            weak.append(f"{path} figure {index} is not visible ({box})")
            continue
        count += 1
        shot = Image.open(io.BytesIO(figure.screenshot()))
        if contrast(shot) < 3:
            weak.append(f"{path} figure {index}: {contrast(shot):.2f}")
        boxes = figure.evaluate("""svg => { const o = svg.getBoundingClientRect();
            return [...svg.querySelectorAll('g.node')].map(g => { const r = g.getBoundingClientRect();
            return [r.x - o.x, r.y - o.y, r.width, r.height, g.textContent.trim()]; }); }""")
        for x, y, width, height, text in boxes:
            inner = shot.crop((int(x) + 3, int(y) + 3, int(x + width) - 3, int(y + height) - 3))
            if inner.width > 4 and inner.height > 4 and contrast(inner) < 4.5:
                weak.append(f"{path} figure {index} box {text!r}: {contrast(inner):.2f}")
    return count, weak


@pytest.fixture(scope="module")
def visits(browser, base_url) -> dict:
    """Every page in both palettes, visited once: load problems, palette, figures, axe-core results."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    found = {}
    for scheme in ("light", "dark"):
        for path in site_pages():
            context, page, problems = open_page(browser, base_url + path, scheme)
            visit = {"problems": problems, "scheme": page.locator("body").get_attribute("data-md-color-scheme")}
            if path in CHAPTERS:
                page.screenshot(path=str(SHOTS / f"{path.strip('/')}-{scheme}.png"), full_page=True)
                visit["figures"], visit["weak"] = figure_report(page, path)
            if AXE.exists():
                page.add_script_tag(path=str(AXE))
                result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
                visit["axe"] = [f"{v['id']}: {v['help']} {[n['target'] for n in v['nodes'][:3]]}"
                                for v in result["violations"] if v["impact"] in ("serious", "critical")]
            found[path, scheme] = visit
            context.close()
    sys.__stdout__.write(f"\nscreenshots of every chapter in both palettes: {SHOTS}\n")
    return found


def test_every_page_loads_cleanly_and_stays_on_this_host(visits):
    assert [f"{path} [{scheme}]: {p}" for (path, scheme), v in visits.items() for p in v["problems"]] == []
    assert {v["scheme"] for (_, scheme), v in visits.items() if scheme == "dark"} == {"slate"}
    assert {v["scheme"] for (_, scheme), v in visits.items() if scheme == "light"} == {"default"}


def test_figures_are_visible_and_readable_in_both_palettes(visits):
    chapters = {key: v for key, v in visits.items() if "figures" in v}
    assert len(chapters) == 2 * len(CHAPTERS)
    assert all(v["figures"] >= 1 for v in chapters.values())
    assert [w for v in chapters.values() for w in v["weak"]] == []


def test_contrast_measure_tells_readable_from_unreadable():
    grey_on_white = Image.new("RGB", (20, 20), "white")
    grey_on_white.paste((200, 200, 200), (5, 5, 15, 15))
    black_on_white = Image.new("RGB", (20, 20), "white")
    black_on_white.paste((0, 0, 0), (5, 5, 15, 15))
    assert contrast(grey_on_white) < 3 < 4.5 < contrast(black_on_white)


def test_the_palette_toggle_switches_to_dark_and_back(browser, base_url):
    context, page, _ = open_page(browser, base_url + CHAPTERS[0], "light")
    assert page.locator("body").get_attribute("data-md-color-scheme") == "default"
    page.locator("label.md-header__button[for^='__palette']:visible").first.click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.locator("label.md-header__button[for^='__palette']:visible").first.click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'")
    context.close()


@pytest.mark.parametrize("term, chapter", [("grad_fn", "01-computational-graph/"),
                                           ("AccumulateGrad", "01-computational-graph/"),
                                           ("retain_grad", "04-leaf-tensors/")])
def test_search_finds_the_modules_terms(browser, base_url, term, chapter):
    context, page, _ = open_page(browser, base_url, "light")
    page.locator("input.md-search__input").click()
    page.keyboard.type(term)  # Material listens for key events, which fill() does not send
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    links = [a.get_attribute("href") for a in page.locator(".md-search-result__item > a").all()]
    context.close()
    assert any(chapter in (href or "") for href in links), links


def test_copy_button_copies_the_runnable_snippet(browser, base_url):
    context, page, _ = open_page(browser, base_url + "01-computational-graph/", "light")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/"))
    block = page.locator(".md-content pre").first
    block.hover()
    block.locator("button[data-md-type='copy']").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    context.close()
    expected = included_text(read_source(ROOT / "snippets/computational-graph/opt_in.py"))
    assert copied.strip("\n") == expected


def test_chapters_have_footer_links_reading_time_and_versions(browser, base_url):
    for number, path in enumerate(CHAPTERS):
        context, page, _ = open_page(browser, base_url + path, "light")
        note = page.locator(".docexec-versions").inner_text()
        assert re.match(r"\d+ min read · Every output on this page was produced .* by PyTorch 2\.13\.0", note), note
        footer = [a.get_attribute("href") for a in page.locator("a.md-footer__link").all()]
        if number + 1 < len(CHAPTERS):
            assert any(CHAPTERS[number + 1].rstrip("/") in (h or "") for h in footer), footer
        assert page.locator(".docexec-notebook a[download]").count() == 1
        context.close()


def test_no_serious_accessibility_violations(visits):
    if not AXE.exists():
        if os.environ.get("CI"):
            raise AssertionError(f"{AXE} is missing: .ci/run must install it (npm ci)")
        pytest.skip(f"{AXE} is missing: run `npm ci` (make does it)")
    found = [f"{path} [{scheme}] {line}" for (path, scheme), v in visits.items() for line in v["axe"]]
    assert found == [], "\n".join(found)
