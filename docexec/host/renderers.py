"""What fills in each kind of place (``docexec.pages.places``): one renderer per kind, registered
with ``renders``. A renderer gets the build (``docexec.host.build.Build``), the place, the build's
results and the figures each page shows so far, and returns the place's HTML. A new kind of place
is one record in ``places`` and one renderer here."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from docexec.pages import drift_page, quoted, render
from docexec.pages.places import ConceptDiagram, Drawing, FenceOutput, PageHtml, Place, QuotedValue, TitleNote
from docexec.run.results import Results

#: Each kind of place (``docexec.pages.places``) and what fills it in: ``renderer(build, place,
#: results, shown)`` returns the place's HTML (``shown``: the figures each page shows so far).
RENDERERS: dict[type[Place], Callable[..., str]] = {}


def renders(kind: type[Place]):
    """Register the decorated function as what fills in places of ``kind``."""
    def register(renderer):
        RENDERERS[kind] = renderer
        return renderer
    return register


@renders(Drawing)
def _drawing_html(build, place: Drawing, results: Results, shown: dict) -> str:  # noqa: ARG001 - a renderer
    figure = place.figure
    svg = build.drawings.svg(figure.dot, render.slug(figure.name.removeprefix(f"{build.runner.folder}/")))
    return render.labelled(svg, figure.alt)


@renders(ConceptDiagram)
def _diagram_html(build, place: ConceptDiagram, results: Results, shown: dict) -> str:  # noqa: ARG001
    diagram = place.diagram
    dot = (build.root / diagram.path).read_text(encoding="utf-8")
    return build.figure(render.Figure(diagram.path, dot, diagram.alt, escape(diagram.caption)))


@renders(FenceOutput)
def _fence_html(build, place: FenceOutput, results: Results, shown: dict) -> str:
    out = render.include_output(results, place.fence)
    note = drift_page.fence_note(build.drift, place.fence) if build.drift else None
    return "\n".join(([render.drift_at_html(note)] if note else [])
                     + ([render.output_html(out.text)] if out.text else [])
                     + [build.page_figure(shown.setdefault(place.page, {}), figure) for figure in out.figures])


@renders(QuotedValue)
def _quoted_html(build, place: QuotedValue, results: Results, shown: dict) -> str:  # noqa: ARG001 - a renderer
    try:
        return quoted.html(quoted.value(place.quote, results))
    except quoted.QuoteError:  # a problem of the build, listed on the page by a preview server
        return f"<code>{{{{ {escape(place.quote.example)}: {escape(place.quote.expression)} }}}}</code>"


@renders(TitleNote)
def _note_html(build, place: TitleNote, results: Results, shown: dict) -> str:  # noqa: ARG001 - a renderer
    notes = drift_page.page_notes(build.drift, place.fences) if build.drift else []
    extra = "\n".join(html for html in ([render.drift_summary_html(notes)] if notes else [])
                       + [build.notes.get(place.page, "")] if html)
    return render.note_html(results.versions(), place.minutes, extra)


@renders(PageHtml)
def _page_html(build, place: PageHtml, results: Results, shown: dict) -> str:  # noqa: ARG001 - a renderer
    return place.html
