"""What a reader gets, checked in a real browser: Debian's Chromium driven by Playwright.

The built site is served on 127.0.0.1, and every page is visited at 390 px (a phone) wide in the
light palette, and at 1280 px (a desktop) in the dark one, then switched to light with the palette
toggle (``VISITS``). Every page must
load with no console error, no failed request and no request to another host, and axe-core must
report no serious or critical accessibility violation. On the chapters and their notebooks: no
code or output block is wider than its box, the copy button covers no text, figures are visible
and readable in both palettes (every label at least 12 px at 1280 px and 10 px at 390 px where it
stands, a broad figure scrolling sideways; a shrunk figure opens full screen), tooltips sit on
whole words used in the glossary's sense, and a notebook's page links back to its chapter and
offers the download. Search must find the module's terms, and the copy button must copy the
runnable snippet, and an output exactly as printed. ``make screenshots`` writes screenshots of
every chapter and notebook page, at both widths in both palettes, to ``.cache/screenshots/``.

Without Chromium (``/usr/bin/chromium``) these tests are skipped with the install command, except
under CI (``CI=true``), where a missing browser is a failure: ``.ci/run`` installs it.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import os
import re
import socketserver
import sys
import threading
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from docexec.source.snippets import included_text, read_source

from .conftest import ROOT

pytestmark = pytest.mark.slow

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: Where full-page screenshots of every chapter and notebook page go, when asked for (``make
#: screenshots`` sets ``SCREENSHOTS=1``): for a person to look at; they cost a third of a visit.
SHOTS = ROOT / ".cache" / "screenshots"
TAKE_SHOTS = os.environ.get("SCREENSHOTS") == "1"

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
def base_url(warm_site) -> str:
    site = warm_site
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
NOTEBOOKS = [f"notebooks/{path}" for path in CHAPTERS]


WIDTHS = (390, 1280)  # a phone and a desktop, in CSS pixels
#: The widths every page is visited at, each with the palettes it is measured in there, in order:
#: the page opens in the first (the reader's preference: a phone's light, a desktop's dark), and
#: the reader's palette toggle switches it to the next. A palette changes colours only, and colours
#: do not change with the width: the layout is measured at both widths in the light palette,
#: colours (figures' contrast, axe's colour rules) at 1280 px in both palettes. ``make
#: screenshots`` measures the fourth combination too, for a person to look at.
VISITS = {390: ("light", "dark") if TAKE_SHOTS else ("light",), 1280: ("dark", "light")}
#: Every ``(scheme, width)`` measured on each page.
MEASURED = [(scheme, width) for width, schemes in VISITS.items() for scheme in schemes]
#: The smallest a figure's label (of a box, an arrow or a group) may be drawn inline, in CSS pixels,
#: at each width; a broad figure scrolls sideways rather than shrink below it (figures.js).
LABEL_PX = {1280: 12, 390: 10}


def open_page(browser, url: str, scheme: str, width: int = 1280, idle: bool = True):
    """Open ``url`` in a fresh context ``width`` px wide with ``scheme`` preferred; collect every
    problem on the way. Returns once the network is idle (no request for half a second), or with
    ``idle=False`` at the load event (the caller waits for the network later)."""
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
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
    page.goto(url, wait_until="networkidle" if idle else "load")
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
        page.evaluate(OPEN_ANSWERS)  # see OPEN_ANSWERS
        figure.evaluate("svg => svg.scrollIntoView({block: 'center', behavior: 'instant'})")  # below the header
        box = figure.bounding_box()
        if not box or box["width"] < 50 or box["height"] < 20:
            weak.append(f"{path} figure {index} is not visible ({box})")
            continue
        count += 1
        shot = figure_image(page, figure)
        if shot is None:
            closed = page.evaluate("window.docexecClosed || []")
            weak.append(f"{path} figure {index} cannot be scrolled into view ({box}; answers closed: {closed})")
            continue
        if contrast(shot) < 3:
            weak.append(f"{path} figure {index}: {contrast(shot):.2f}")
        boxes = figure.evaluate("""svg => { const o = svg.getBoundingClientRect();
            return [...svg.querySelectorAll('g.node')].map(g => { const r = g.getBoundingClientRect();
            return [r.x - o.x, r.y - o.y, r.width, r.height, g.textContent.trim()]; }); }""")
        for x, y, width, height, text in boxes:
            if x + width > shot.width or y + height > shot.height:
                continue  # outside what the viewport could show (a figure that scrolls sideways)
            inner = shot.crop((int(x) + 3, int(y) + 3, int(x + width) - 3, int(y + height) - 3))
            if inner.width > 4 and inner.height > 4 and contrast(inner) < 4.5:
                weak.append(f"{path} figure {index} box {text!r}: {contrast(inner):.2f}")
    return count, weak


#: Opens every folded answer (and the key to the figures), so that their figures are measured too.
#: Twice in CI runs an answer opened here was found closed later in the same visit (first before
#: an Enlarge check, then before the contrast check); nothing in the site's scripts or Material's
#: closes a <details> outside printing, so each check opens them again, and ``WATCH_CLOSING``
#: records any closing, with the time, for the failure messages.
OPEN_ANSWERS = "document.querySelectorAll('.md-content details:not([open])').forEach(d => { d.open = true; })"
WATCH_CLOSING = """() => { window.docexecClosed = [];
  document.addEventListener("toggle", e => { if (e.target.tagName === "DETAILS" && !e.target.open)
    window.docexecClosed.push(
      `${e.target.querySelector("summary").textContent} at ${Math.round(performance.now())} ms`);
  }, true); }"""

#: Scrolls the figure so that the part ``offset`` px below its top sits just under the header.
SCROLL_TO_PART = """(svg, [offset, header]) => {
  const top = svg.getBoundingClientRect().top + window.scrollY;
  window.scrollTo({left: window.scrollX, top: top + offset - header, behavior: "instant"});
}"""


def figure_image(page, figure) -> Image.Image | None:
    """The figure's pixels, captured one viewport-high strip at a time below the sticky header.
    An element screenshot waits for the element to be "stable" (past its 30 s timeout on a loaded
    machine), and a full-page capture re-lays the page out at another size, after which the clip
    can miss the figure ("Clipped area is either empty or outside the resulting image")."""
    header = page.evaluate("document.querySelector('.md-header').getBoundingClientRect().bottom")
    view = page.viewport_size
    box = figure.bounding_box()
    width = max(1, int(min(box["width"], view["width"] - max(box["x"], 0))))
    image = Image.new("RGB", (width, max(1, int(box["height"]))), "white")
    done = 0
    while done < image.height:
        figure.evaluate(SCROLL_TO_PART, [done, header])
        box = figure.bounding_box()
        top, bottom = max(box["y"] + done, header), min(box["y"] + box["height"], view["height"])
        if bottom - top < 1:
            return None if done == 0 else image
        clip = {"x": max(box["x"], 0), "y": top, "width": width, "height": bottom - top}
        strip = Image.open(io.BytesIO(page.screenshot(clip=clip))).convert("RGB")
        image.paste(strip, (0, int(top - box["y"])))
        done = int(bottom - box["y"])
    return image


#: Measured in each page, in one pass: blocks wider than their box, text under a copy button,
#: figures (their smallest label, whether they are drawn small and show the hint), tooltips with
#: their neighbours, a notebook page's links on top, a chapter's footer links, its note on versions
#: and its notebook link.
MEASURE = """() => {
  const overlaps = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const longest = text => text.split("\\n").reduce((a, l) => l.length > a.length ? l : a, "").slice(0, 70);
  const blocks = [...document.querySelectorAll(".md-content pre > code, .md-content .jupyter-wrapper pre")];
  const wide = blocks.filter(b => b.scrollWidth > b.clientWidth + 1)
    .map(b => `${b.scrollWidth} px in ${b.clientWidth} px: ${longest(b.textContent)}`);
  const covered = [];
  for (const pre of document.querySelectorAll(".md-content pre")) {
    const holder = pre.closest(".jp-InputArea-editor") || pre;
    const button = holder.querySelector(".md-code__nav, .zeroclipboard-container");
    if (!button || !button.getClientRects().length) continue;
    const area = button.getBoundingClientRect();
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || button.contains(node)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if ([...range.getClientRects()].some(r => r.width > 0 && overlaps(r, area))) {
        covered.push(node.textContent.trim().slice(0, 50));
        break;
      }
    }
  }
  const figures = [...document.querySelectorAll(".md-content figure.docexec-figure")].map(figure => {
    const svg = figure.querySelector("svg");
    const sizes = [...svg.querySelectorAll("text")]
      .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
    const hint = figure.querySelector(".docexec-figure__enlarge");
    return {label: sizes.length ? Math.min(...sizes) : 99, name: svg.getAttribute("aria-label") || "",
            hint: !!hint && hint.getClientRects().length > 0 && hint.getBoundingClientRect().height > 8};
  });
  const tooltips = [...document.querySelectorAll(".md-content abbr")].map(abbr => {
    const previous = abbr.previousSibling;
    let after = "", next = abbr.nextSibling;
    while (next && after.length < 40) {
      after += next.nodeName === "CODE" ? "`" + next.textContent + "`" : next.textContent;
      next = next.nextSibling;
    }
    return [abbr.textContent, abbr.getAttribute("title") || "", previous ? previous.textContent.slice(-20) : "", after];
  });
  const nav = document.querySelector(".docexec-notebook-nav");
  const jupyter = [...document.styleSheets].filter(sheet => (sheet.href || "").includes("/notebooks/jupyter-"))
    .map(sheet => sheet.cssRules.length);
  const footer = [...document.querySelectorAll("a.md-footer__link")].map(a => a.getAttribute("href"));
  const versions = document.querySelector(".docexec-versions");
  return {wide, covered, figures, tooltips, jupyter, footer,
          versions: versions ? versions.innerText : null,
          notebook: document.querySelectorAll(".docexec-notebook a[download]").length,
          back: nav ? [...nav.querySelectorAll("a:not([download])")].map(a => a.href) : [],
          download: nav ? [...nav.querySelectorAll("a[download]")].map(a => a.href) : []};
}"""

#: Resolves once the fonts are in and two frames were drawn: the figures' ResizeObservers have run
#: for the answers just unfolded, so the Enlarge buttons shown are the ones a reader sees.
SETTLED = """() => document.fonts.ready.then(() => new Promise(done =>
  requestAnimationFrame(() => requestAnimationFrame(done))))"""

#: What a figure looks like now, for a failure's message.
FIGURE_STATE = """index => {
  const figure = document.querySelectorAll(".md-content figure.docexec-figure")[index];
  const svg = figure.querySelector("svg"), answer = figure.closest("details");
  const button = figure.querySelector(".docexec-figure__enlarge");
  return `marked shrunk: ${figure.classList.contains("docexec-figure--shrunk")}, drawn `
    + `${Math.round(svg.getBoundingClientRect().width)} of ${Math.round(svg.width.baseVal.value)} px, button `
    + `${button ? getComputedStyle(button).display : "missing"}, answer ${answer ? answer.open : "none"}, `
    + `a full-screen view open: ${!!document.querySelector("dialog[open]")}, `
    + `closed since the visit began: ${JSON.stringify(window.docexecClosed || [])}`;
}"""

ENLARGED = """() => {
  const dialog = document.querySelector("dialog.docexec-zoom[open]");
  if (!dialog) return null;
  const box = dialog.getBoundingClientRect();
  const sizes = [...dialog.querySelectorAll("svg text")]
    .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
  return {width: box.width, height: box.height, label: Math.min(...sizes)};
}"""


def full_screen_report(page, path: str, index: int, width: int) -> list[str]:
    """Open figure ``index`` full screen with its hint, and check that its labels reach
    ``LABEL_PX[width]`` there, that zooming in makes them larger, and that Escape closes it."""
    where = f"{path} [{width} px] figure {index}"
    figure = page.locator(".md-content figure.docexec-figure").nth(index)
    hint = figure.locator(".docexec-figure__enlarge")
    page.evaluate(OPEN_ANSWERS)  # see OPEN_ANSWERS
    page.evaluate(SETTLED)
    try:
        hint.click()
    except sync_api.TimeoutError:  # the page changed since it was measured: judge the figure as it is now
        label = page.evaluate(MEASURE)["figures"][index]["label"]
        state = page.evaluate(FIGURE_STATE, index)
        return [f"{where}: labels are {label:.1f} px and the Enlarge button cannot be clicked ({state})"
                ] if label < LABEL_PX[width] else []
    opened = page.evaluate(ENLARGED)
    if opened is None:
        return [f"{where}: the hint opened no full-screen view"]
    wrong = []
    if opened["width"] < width - 2 or opened["height"] < 800:
        wrong.append(f"{where}: the enlarged view is {opened['width']:.0f}x{opened['height']:.0f} px, not the screen")
    if opened["label"] < LABEL_PX[width]:
        wrong.append(f"{where}: enlarged, labels are {opened['label']:.1f} px")
    page.get_by_role("button", name="Zoom in").click()
    zoomed = page.evaluate(ENLARGED)
    if not zoomed or zoomed["label"] <= opened["label"]:
        wrong.append(f"{where}: zooming in did not enlarge the labels")
    page.keyboard.press("Escape")
    if page.evaluate(ENLARGED) is not None:
        wrong.append(f"{where}: Escape did not close the enlarged view")
    return wrong


def shot_name(path: str, width: int, scheme: str) -> str:
    """The file name of a page's screenshot: ``notebooks-01-computational-graph-390-dark.png``."""
    return f"{path.strip('/').replace('/', '-')}-{width}-{scheme}.png"


def visit(browser, base_url: str, path: str, width: int) -> dict:
    """Visit one page at one width and measure it in each palette of ``VISITS[width]``, switching
    with the palette toggle: ``(path, scheme, width)`` -> what ``measure`` found. What the browser
    reports (``problems``) belongs to the palette the page was in when it came."""
    schemes = VISITS[width]
    context, page, problems = open_page(browser, base_url + path, schemes[0], width, idle=False)
    # exercises' answers are folded: open them, so that their outputs and figures are measured too
    page.evaluate(SETTLED)
    height = page.evaluate("document.documentElement.scrollHeight")  # as a reader first sees it
    page.evaluate(WATCH_CLOSING)
    page.evaluate(OPEN_ANSWERS)
    page.evaluate(SETTLED)
    found, seen = {}, 0
    for number, scheme in enumerate(schemes):
        if number:
            switch_palette(page, SCHEME_NAMES[scheme])
        found[(path, scheme, width)] = measure(page, path, scheme, width, first=not number)
        found[(path, scheme, width)].update(height=height)
        if number + 1 == len(schemes):
            page.wait_for_load_state("networkidle")  # every request made and answered: its problems are in
        found[(path, scheme, width)]["problems"], seen = problems[seen:], len(problems)
    context.close()
    return found


#: Material's name of each palette (``data-md-color-scheme``).
SCHEME_NAMES = {"light": "default", "dark": "slate"}


def switch_palette(page, name: str) -> None:
    """Switch the page to palette ``name`` as a reader does, with the toggle in the header; then
    move the pointer off it and take the focus away, so that the toggle's tooltip (drawn under the
    header, over the top of what is measured next) closes."""
    page.locator("label.md-header__button[for^='__palette']:visible").first.click()
    page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === '{name}'")
    page.mouse.move(0, page.viewport_size["height"] - 1)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.wait_for_function("!document.querySelector('.md-tooltip--active')")
    page.evaluate(SETTLED)


def measure(page, path: str, scheme: str, width: int, first: bool) -> dict:
    """Measure the page as it is now, in ``scheme``: what each test below checks. The full-screen
    view is opened in the ``first`` palette only (it is laid out the same in the others)."""
    found = {"scheme": page.locator("body").get_attribute("data-md-color-scheme")}
    if path in CHAPTERS or path in NOTEBOOKS:
        found.update(page.evaluate(MEASURE))
        shrunk = [index for index, figure in enumerate(found["figures"]) if figure["hint"]]
        found["enlarged"] = full_screen_report(page, path, shrunk[0], width) if shrunk and first else None
        if TAKE_SHOTS:  # last: a full-page capture lays the page out in a 1x1 px window for a moment
            page.screenshot(path=str(SHOTS / shot_name(path, width, scheme)), full_page=True)
            page.evaluate(SETTLED)
    if path in CHAPTERS and width == 1280:
        found["count"], found["weak"] = figure_report(page, path)
    found["axe"] = accessibility_violations(page, scheme, width)
    return found


#: axe-core's rules that judge colours (tagged ``cat.color`` in axe-core 4.14: the contrast of text,
#: and a link told from the text around it by colour alone).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def accessibility_violations(page, scheme: str, width: int) -> list[str]:
    """axe-core's serious and critical violations on ``page``. A palette changes colours only, and
    colours not with the width: every rule runs in the light palette at each width but the colour
    rules (``COLOUR_RULES``), which run at 1280 px in both palettes (and alone in the dark one);
    nothing runs in the dark palette at 390 px (only ``make screenshots`` visits it)."""
    if not AXE.exists() or (scheme == "dark" and width != 1280):
        return []
    page.add_script_tag(path=str(AXE))
    if scheme == "dark":
        options = f"runOnly: {{type: 'rule', values: {COLOUR_RULES}}}"
    else:
        options = "rules: {'color-contrast': {enabled: " + ("true" if width == 1280 else "false") + "}}"
    result = page.evaluate(f"axe.run(document, {{resultTypes: ['violations'], {options}}})")
    return [f"{v['id']}: {v['help']} {[n['target'] for n in v['nodes'][:3]]}"
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


def visit_all(base_url: str, jobs: list[tuple[str, int]]) -> dict:
    """``visit`` each ``(path, width)`` of ``jobs`` with a browser of this thread's own (Playwright's
    objects belong to the thread that made them)."""
    found = {}
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for job in jobs:
            found.update(visit(browser, base_url, *job))
        browser.close()
    return found


@pytest.fixture(scope="module")
def visits(base_url) -> dict:
    """Every page at each width of ``VISITS``, visited once each: ``(path, scheme, width)`` ->
    what ``visit`` measured, shared out among three browsers."""
    from concurrent.futures import ThreadPoolExecutor

    if TAKE_SHOTS:
        SHOTS.mkdir(parents=True, exist_ok=True)
    jobs = [(path, width) for width in VISITS for path in site_pages()]
    with ThreadPoolExecutor(max_workers=3) as pool:
        shares = list(pool.map(lambda share: visit_all(base_url, share), [jobs[i::3] for i in range(3)]))
    found = {(path, scheme, width): share[(path, scheme, width)] for path, width in jobs
             for scheme in VISITS[width] for share in shares if (path, scheme, width) in share}
    if TAKE_SHOTS:
        sys.__stdout__.write(f"\nscreenshots of every chapter and notebook page, 390 and 1280 px, both palettes: "
                             f"{SHOTS}\n")
    return found


def reader_pages(visits: dict) -> dict:
    """The visits of chapters and notebook pages (the pages with code, outputs and figures)."""
    return {key: v for key, v in visits.items() if "figures" in v}


def test_every_page_loads_cleanly_and_stays_on_this_host(visits):
    assert [f"{path} [{scheme}, {width} px]: {p}" for (path, scheme, width), v in visits.items()
            for p in v["problems"]] == []
    # the palette a page opens in is the reader's preference (light on the phone, dark on the desktop)
    assert {(scheme, v["scheme"]) for (_, scheme, width), v in visits.items() if scheme == VISITS[width][0]} == {
        ("light", "default"), ("dark", "slate")}
    assert {v["scheme"] for (_, scheme, _), v in visits.items() if scheme == "light"} == {"default"}


#: How far a phone (390 px) may scroll through one page: a page with two lessons becomes two pages
#: (chapter 07 "Hooks & Debugging Gradients" became 07 and 08; 10 "Forward Mode & Higher-order
#: Gradients" became 11 and 12).
PAGE_PX = 22_000
#: Chapters that are one lesson each and longer than that, with the height they may grow to (about
#: 5 % over today's). Most of the length is code: at 390 px a line of code wraps into two or three
#: (about 32 px a line against 20 at 1280 px), and the examples are the lesson.
LONG_CHAPTERS = {
    "01-computational-graph/": 30_500,
    "02-backward-pass/": 23_800,
    "03-gradient-tracking/": 24_300,
    "04-leaf-tensors/": 23_500,
    "05-inplace-operations/": 30_600,
    "06-saved-tensors/": 28_300,  # with the step-through of what a pass unpacks (27,000 px)
    "07-hooks/": 28_000,
    "09-custom-functions/": 40_400,
    "10-torch-func/": 33_900,
    "11-forward-mode/": 23_900,  # with the step-through of a forward pass (22,800 px)
    "13-torch-compile/": 45_100,
    "14-training-loop/": 30_400,
}


def test_no_page_is_longer_on_a_phone_than_its_lesson_needs(visits):
    """Every page but the notebook pages (a notebook page is its chapter again, as a notebook)."""
    heights = {path: v["height"] for (path, scheme, width), v in visits.items()
               if width == 390 and path not in NOTEBOOKS}
    assert set(LONG_CHAPTERS) <= set(heights)
    too_long = [f"{path}: {px} px" for path, px in heights.items() if px > LONG_CHAPTERS.get(path, PAGE_PX)]
    assert too_long == [], "split the chapter where it holds two lessons, or shorten it"


def test_an_old_link_to_a_section_of_a_split_chapter_lands_on_that_section(browser, base_url):
    """The old address redirects to the chapter that kept its name, keeping the #section; the section
    moved to the next chapter, and moved-sections.js sends the reader on there."""
    context, page, _ = open_page(browser, base_url + "07-hooks-debugging/#checking-a-backward-with-gradcheck",
                                 "light")
    page.wait_for_url("**/08-debugging-gradients/#checking-a-backward-with-gradcheck", timeout=10_000)
    context.close()


def test_every_chapter_and_notebook_page_is_measured(visits):
    assert len(reader_pages(visits)) == len(MEASURED) * (len(CHAPTERS) + len(NOTEBOOKS))
    if TAKE_SHOTS:
        for path in CHAPTERS + NOTEBOOKS:
            assert (SHOTS / shot_name(path, 390, "dark")).is_file()


def test_no_code_or_output_block_is_wider_than_its_box(visits):
    wide = [f"{path} [{scheme}, {width} px]: {block}" for (path, scheme, width), v in reader_pages(visits).items()
            for block in v["wide"]]
    assert wide == [], "\n".join(wide)


def test_the_copy_button_covers_no_text(visits):
    covered = [f"{path} [{scheme}, {width} px]: {text!r}" for (path, scheme, width), v in reader_pages(visits).items()
               for text in v["covered"]]
    assert covered == [], "\n".join(covered)


def test_figure_labels_are_readable_inline_and_a_shrunk_figure_opens_full_screen(visits):
    """Every label of every figure is drawn at ``LABEL_PX`` or more where it stands on the page, at
    both widths, without opening anything; and on every page that has a figure drawn below its
    natural size, the first such opens full screen, larger (``full_screen_report``)."""
    small, opened = [], 0
    for (path, scheme, width), v in reader_pages(visits).items():
        small += [f"{path} [{scheme}, {width} px] figure {index} ({figure['name'][:60]}): labels "
                  f"{figure['label']:.1f} px" for index, figure in enumerate(v["figures"])
                  if figure["label"] < LABEL_PX[width]]
        if v["enlarged"] is not None:
            small += v["enlarged"]
            opened += width == 390
    assert small == [], "\n".join(small)
    assert opened > 0  # figures are drawn below their natural size on a phone, and were opened full screen


def test_figures_are_visible_and_readable_in_both_palettes(visits):
    chapters = {key: v for key, v in visits.items() if "count" in v}
    assert len(chapters) == 2 * len(CHAPTERS)
    assert all(v["count"] >= 1 for v in chapters.values())
    assert [w for v in chapters.values() for w in v["weak"]] == []


def test_tooltips_sit_on_whole_words_used_in_the_glossarys_sense(visits):
    from .reading import glossary, misused_tooltip

    terms, wrong, seen = glossary(), set(), set()
    for (path, _, _), v in reader_pages(visits).items():
        for word, title, before, after in v["tooltips"]:
            seen.add(word)
            reason = misused_tooltip(word, title, before, after, terms)
            if reason:
                wrong.add(f"{path}: {reason}")
    assert sorted(wrong) == []
    assert {"non-leaf", "Non-leaf", "non-leaves", "leaves"} <= seen


def test_notebook_pages_link_back_offer_the_download_and_load_jupyters_style_sheet(visits, base_url, browser):
    context = browser.new_context()
    for (path, scheme, width), v in reader_pages(visits).items():
        if path not in NOTEBOOKS:
            continue
        chapter = path.removeprefix("notebooks/")
        assert v["back"] == [base_url + chapter], f"{path} [{scheme}, {width} px]: {v['back']}"
        assert len(v["download"]) == 1 and v["download"][0].endswith(f"{chapter.strip('/')}.ipynb"), v["download"]
        assert len(v["jupyter"]) == 1 and v["jupyter"][0] > 1000, f"{path}: JupyterLab's style sheet {v['jupyter']}"
        if scheme == "light" and width == 1280:
            response = context.request.get(v["download"][0])
            assert response.ok and response.json()["nbformat"] == 4
    context.close()


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
                                           ("retain_grad", "04-leaf-tensors/"),
                                           ("GradScaler", "14-training-loop/")])
def test_search_finds_the_modules_terms(browser, base_url, term, chapter):
    context, page, _ = open_page(browser, base_url, "light")
    page.locator("input.md-search__input").click()
    page.keyboard.type(term)  # Material listens for key events, which fill() does not send
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    page.evaluate(SETTLED)
    links = [a.get_attribute("href") for a in page.locator(".md-search-result__item a").all()]
    page.locator(".md-search-result__item > a").first.click()  # the page's own result
    page.wait_for_load_state()
    # the marks are added by scripts after the load event (a loaded CI run counted 0 right away);
    # none within 10 s counts as 0 below
    with contextlib.suppress(sync_api.TimeoutError):
        page.locator(".md-content mark").first.wait_for(timeout=10_000)
    marked = page.locator(".md-content mark").count()
    context.close()
    assert any(chapter in (href or "") for href in links), links
    assert [h for h in links if parse_qs(urlparse(h).query).get("h", [""])[0] == ""] == []  # each says what to mark
    assert marked > 0  # and the page marks it


@pytest.mark.parametrize("query", ['"retain_grad"', "retain_grad -leaf", "retain_grad~1"])
def test_a_search_link_marks_the_querys_words_not_its_syntax(browser, base_url, query):
    """Quotes, an excluded term (-leaf) and an edit distance (~1) are query syntax: a page's own
    result marks the words searched for, as Material's section results do."""
    context, page, _ = open_page(browser, base_url, "light")
    page.locator("input.md-search__input").click()
    page.keyboard.type(query)
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    page.evaluate(SETTLED)
    marks = {parse_qs(urlparse(a.get_attribute("href")).query)["h"][0]
             for a in page.locator(".md-search-result__item > a").all()}
    context.close()
    assert marks == {"retain_grad"}


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


@pytest.mark.parametrize("width", WIDTHS)
def test_copy_button_copies_an_output_exactly_as_printed(browser, base_url, width):
    """An output whose lines are wrapped on the page (a warning line of 140 characters) is copied
    with the characters and line breaks it was printed with."""
    from .conftest import run_all

    expected = run_all(ROOT, paths=["snippets/computational-graph/old_names.py"]).output(
        "computational-graph/old_names.py")
    assert max(len(line) for line in expected.splitlines()) > 100
    context, page, _ = open_page(browser, base_url + "01-computational-graph/", "light", width)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/"))
    block = page.locator(".md-content div.highlight", has=page.locator(".filename", has_text="Output"),
                         has_text="UserWarning: volatile was removed").first
    block.scroll_into_view_if_needed()
    block.hover()
    lines_shown = block.locator("code").evaluate("code => Math.round(code.getBoundingClientRect().height / "
                                                 "parseFloat(getComputedStyle(code).lineHeight))")
    block.locator("button[data-md-type='copy']").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    context.close()
    assert lines_shown > len(expected.splitlines())  # wrapped on the page
    assert copied.removesuffix("\n") == expected


def test_chapters_have_footer_links_reading_time_and_versions(visits):
    for number, path in enumerate(CHAPTERS):
        v = visits[(path, "light", 1280)]
        assert re.match(r"\d+ min read · Every output on this page was produced .* by PyTorch 2\.13\.0",
                        v["versions"] or ""), (path, v["versions"])
        if number + 1 < len(CHAPTERS):
            assert any(CHAPTERS[number + 1].rstrip("/") in (h or "") for h in v["footer"]), (path, v["footer"])
        assert v["notebook"] == 1, path


def test_no_serious_accessibility_violations(visits):
    """axe-core's serious and critical findings on every page (see ``accessibility_violations``)."""
    if not AXE.exists():
        if os.environ.get("CI"):
            raise AssertionError(f"{AXE} is missing: .ci/run must install it (npm ci)")
        pytest.skip(f"{AXE} is missing: run `npm ci` (make does it)")
    found = [f"{path} [{scheme}, {width} px] {line}" for (path, scheme, width), v in visits.items()
             for line in v["axe"]]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("width", WIDTHS)
def test_an_answer_opens_and_closes_from_the_keyboard_and_shows_the_run(browser, base_url, width):
    """An exercise shows its code with its claims hidden; its answer is folded until the reader
    opens it (Enter on its summary), then shows what the build printed; Space folds it again."""
    context, page, problems = open_page(browser, base_url + CHAPTERS[0], "light", width)
    exercise = page.locator("h3[id^='exercise-1']")
    code = exercise.locator("xpath=following::div[contains(@class, 'highlight')][1]")
    assert "# ?" in code.inner_text()
    answer = exercise.locator("xpath=following::details[1]")
    summary = answer.locator("summary")
    assert answer.get_attribute("open") is None and not answer.locator(".filename").first.is_visible()
    summary.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("d => d.open", arg=answer.element_handle())
    assert answer.locator(".filename", has_text="Output").first.is_visible()
    page.keyboard.press("Space")
    page.wait_for_function("d => !d.open", arg=answer.element_handle())
    context.close()
    assert problems == []


STEPPED = """figure => {
  const svg = figure.querySelector(":scope > svg") || figure.querySelector("svg");
  const now = [...svg.querySelectorAll(".docexec-step-now")].map(g => g.textContent.trim().replace(/\\s+/g, " "));
  const sent = [...svg.querySelectorAll(".docexec-step-sent")]
    .map(g => [...g.querySelectorAll("text")].map(t => t.textContent.trim()).join(" "));
  const lines = [...svg.querySelectorAll(".docexec-step-now text")].map(t => t.textContent.trim());
  return {now, sent, lines, later: svg.querySelectorAll(".docexec-step-later").length,
          say: figure.querySelector(".docexec-steps__say").textContent};
}"""


#: Whether the Node of the current step lies inside the visible part of its scrolling canvas.
IN_VIEW = """canvas => {
  const box = canvas.querySelector(".docexec-step-now").getBoundingClientRect();
  const view = canvas.getBoundingClientRect();
  return box.left >= view.left - 1 && box.right <= view.right + 1 && box.top >= view.top - 1
    && box.bottom <= view.bottom + 1;
}"""


def _box_says(line: str) -> tuple[str, str]:
    """A line of a Node's box and what the step's announced line must say of it: a hook's name and
    what it returned (``prehook before(): returned None``), a saved tensor and its name (``self (x)``)."""
    ran = re.match(r"(?:prehook|hook|post-accumulate) (.+): returned (.+)$", line)
    if ran:
        return line, f"{ran.group(1)} runs on what it " + ("receives" if line.startswith("prehook") else "computed") \
            + f" and returns {ran.group(2)}"
    saved = re.match(r"saved (\S+)(?: = |: )(.+?)(?: \(freed\))?$", line)
    return line, (f"{saved.group(1)} ({saved.group(2)})" if saved else "")


def step_report(figure, where: str) -> list[str]:
    """Walk a figure's recorded backward pass with the keyboard and check what each step shows."""
    wrong = []
    figure.get_by_role("button", name="Next step").focus()
    first = figure.evaluate(STEPPED)
    steps = int(re.search(r"(\d+) (?:Nodes|operations) will run", first["say"]).group(1))
    if first["now"] or first["later"]:
        wrong.append(f"{where}: before the first step, Nodes are marked: {first}")
    for number in range(1, steps + 1):
        figure.page.keyboard.press("ArrowRight")
        shown = figure.evaluate(STEPPED)
        circled = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"[number - 1] if number <= 20 else f"({number})"
        if len(shown["now"]) != 1 or f"step {circled}" not in shown["now"][0]:
            wrong.append(f"{where}: step {number} marks {shown['now']}")
        if not shown["say"].startswith(f"Step {number} of {steps}: ") or shown["later"] != steps - number:
            wrong.append(f"{where}: step {number} says {shown['say']!r} with {shown['later']} Nodes still to run")
        wrong += [f"{where}: step {number} sends {value!r}, which its line does not say: {shown['say']!r}"
                  for value in shown["sent"] if value and value not in shown["say"]]
        wrong += [f"{where}: step {number}'s box says {line!r}, which its line does not: {shown['say']!r}"
                  for line, words in map(_box_says, shown["lines"]) if words and words not in shown["say"]]
    figure.page.keyboard.press("Home")
    if figure.evaluate(STEPPED)["now"]:
        wrong.append(f"{where}: Home did not go back before the first step")
    figure.page.keyboard.press("End")
    if not figure.evaluate(STEPPED)["say"].startswith(f"Step {steps} of {steps}: "):
        wrong.append(f"{where}: End did not go to the last step")
    return wrong


def test_a_step_says_what_its_hooks_returned_and_what_its_node_unpacked(browser, base_url):
    """On the chapters about saved tensors and hooks, every step-through figure announces, at the step
    of each Node, what that Node's hooks returned and which saved tensors it unpacked, as its box
    (the run's record) says; and a tensor's hook at the step of the Node that runs after it."""
    said = []
    for path in ("06-saved-tensors/", "07-hooks/"):
        context, page, problems = open_page(browser, base_url + path, "light", 390)
        page.evaluate(OPEN_ANSWERS)
        page.evaluate(SETTLED)
        figures = page.locator("figure.docexec-figure:has(> .docexec-steps)")
        for number in range(figures.count()):
            assert step_report(figures.nth(number), f"{path} figure {number + 1}") == []
            figures.nth(number).get_by_role("button", name="Next step").focus()
            page.keyboard.press("Home")
            first = figures.nth(number).evaluate(STEPPED)["say"]
            for _ in range(int(re.search(r"(\d+) (?:Nodes|operations) will run", first)[1])):
                page.keyboard.press("ArrowRight")
                said.append(figures.nth(number).evaluate(STEPPED)["say"])
        assert problems == []
        context.close()
    assert any("its prehook before() runs on what it receives and returns None" in line for line in said)
    assert any("the hook show() registered on h runs on the gradient h receives" in line for line in said)
    assert any("It unpacks what it saved for this step: other (w), self (x)." in line for line in said)
    # two gradients along two arrows into one Node are added before it runs (what its prehook sees)
    assert any("added into one gradient before it runs. Before the Node runs, its prehook before()" in line
               for line in said)


def test_a_forward_mode_figure_steps_through_the_operations_the_run_performed(browser, base_url):
    """Chapter 11's figure of forward mode walks forward: each step marks the result of one operation,
    in the order the run performed them, and says the operation, the value and the tangent its box
    (the run's record) shows, and the tangent of the input it worked from."""
    context, page, problems = open_page(browser, base_url + "11-forward-mode/", "dark", 390)
    page.evaluate(SETTLED)
    figure = page.locator("figure.docexec-figure:has(svg g.graph.forward-mode)").first
    assert figure.get_by_role("group").get_attribute("aria-label").startswith("Step through the forward pass")
    assert step_report(figure, "11 forward mode") == []
    figure.get_by_role("button", name="Next step").focus()
    page.keyboard.press("Home")
    said = []
    for _ in range(3):
        page.keyboard.press("ArrowRight")
        shown = figure.evaluate(STEPPED)
        op, value, tangent = shown["lines"][2], shown["lines"][3], shown["lines"][4]
        assert f"{op} runs" in shown["say"] and f"the {value} " in shown["say"] and f"the {tangent}," in shown["say"]
        said.append(shown["say"])
    assert said[0].startswith("Step 1 of 3: make_dual of x, v runs, and makes dual_x.")
    assert "nothing is computed" in said[0] and "computes" not in said[0]  # make_dual pairs, computes nothing
    assert "worked out from the tangent its input carries: dual_x (tangent [1, 1])" in said[1]
    assert problems == []
    context.close()


def test_the_enlarged_view_opens_with_the_node_of_the_step_reached_in_view(browser, base_url):
    """Chapter 06's figure of a pass that unpacks, wider than a phone: two steps on the page, then
    Enlarge: the Node of step 2 is inside the visible part of the enlarged drawing."""
    context, page, problems = open_page(browser, base_url + "06-saved-tensors/", "light", 390)
    figure = page.locator("figure.docexec-figure:has(svg [id^='fig-saved-tensors-unpacked-in-backward'])").first
    for _ in range(2):
        figure.get_by_role("button", name="Next step").click()
    figure.locator(".docexec-figure__enlarge").click()
    canvas = page.locator("dialog.docexec-zoom[open] .docexec-zoom__canvas")
    assert canvas.evaluate(STEPPED)["say"].startswith("Step 2 of ")
    assert canvas.evaluate(IN_VIEW), "the step's Node is scrolled into view when the enlarged view opens"
    assert problems == []
    context.close()


def test_a_recorded_backward_pass_steps_on_the_page_and_in_the_enlarged_view(browser, base_url):
    """The first figure that records a backward pass walks it with the keyboard: each step marks the
    Node with that step number alone, dims those still to run, and its announced line says the
    gradients it sends; the same works in the full-screen view of a shrunk figure."""
    for path in CHAPTERS:
        context, page, problems = open_page(browser, base_url + path, "light", 390)
        page.evaluate(OPEN_ANSWERS)
        page.evaluate(SETTLED)
        stepped = page.locator("figure.docexec-figure:has(> .docexec-steps)")
        shrunk = page.locator("figure.docexec-figure.docexec-figure--shrunk:has(> .docexec-steps)")
        if stepped.count() and shrunk.count():
            break
        context.close()
    else:
        pytest.fail("no page has a shrunk figure that records a backward pass")
    assert page.locator(".docexec-key .docexec-steps").count() == 0  # not the key to the figures
    assert step_report(stepped.first, f"{path} figure") == []
    assert stepped.first.locator(".docexec-steps__say").get_attribute("aria-live") == "polite"
    shrunk.first.get_by_role("button", name="Next step").focus()
    page.keyboard.press("Home")  # (Start is aria-disabled where the figure already is)
    for _ in range(2):
        shrunk.first.get_by_role("button", name="Next step").click()
    shrunk.first.locator(".docexec-figure__enlarge").click()
    canvas = page.locator("dialog.docexec-zoom[open] .docexec-zoom__canvas")
    assert canvas.evaluate(STEPPED)["say"].startswith("Step 2 of "), "the full-screen view opens at the page's step"
    assert canvas.evaluate(IN_VIEW), "the full-screen view opens with the step's Node in view"
    canvas.get_by_role("button", name="Start: before the first step").click()
    assert step_report(canvas, f"{path} enlarged") == []
    page.keyboard.press("Escape")
    last = shrunk.first.evaluate(STEPPED)["say"]
    assert re.match(r"Step (\d+) of \1: ", last), f"the page's figure takes the step reached full screen: {last}"
    assert problems == []
    context.close()
