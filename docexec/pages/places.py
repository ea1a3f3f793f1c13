"""What a place left in a page's HTML stands for (``docexec.host.build`` fills each in)."""

from __future__ import annotations

from dataclasses import dataclass, field

from docexec.pages import render
from docexec.source.includes import Diagram, Fence


@dataclass
class Place:
    """What a place in a page's HTML stands for: one of an include fence's output (``fence``), a
    concept diagram (``diagram``), the note under a page's title (``note``: the page's key, see
    ``Build.page_key``, with its reading time in ``minutes``), a drawing (``figure``), or HTML put
    in as it is (``html``: a notebook page's content); and the code-span tooltips (``terms``) the
    rest of its page got, which the filled-in HTML gets too."""

    fence: Fence | None = None
    page: str = ""  # the key of the page a fence's place is on (figures are counted per page)
    diagram: Diagram | None = None
    note: str | None = None
    minutes: int = 0
    figure: render.Figure | None = None
    html: str | None = None
    terms: dict[str, str] = field(default_factory=dict)
