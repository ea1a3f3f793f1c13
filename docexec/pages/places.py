"""What a place left in a page's HTML stands for: one record per kind of place.

The Markdown extension leaves a place, an HTML comment, where something is filled in once the
runs are in (``docexec.host.build.Build.fill``); each kind has its own record here and its own
renderer there (``docexec.host.build.RENDERERS``). ``terms`` are the code-span tooltips the rest
of the place's page got, which the filled-in HTML gets too (set once the page's terms are known:
the dict is filled in place).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docexec.pages import render
from docexec.source.includes import Diagram, Fence
from docexec.source.quotes import Quote


@dataclass(frozen=True)
class Place:
    """What every place has: the tooltips of its page."""

    terms: dict[str, str] = field(default_factory=dict, compare=False, kw_only=True)

    #: Filled by the late fill only (after the search plugin read the page).
    late = False
    #: Its HTML may hold places of its own and code spans that get the page's tooltips.
    holds_places = True


@dataclass(frozen=True)
class FenceOutput(Place):
    """An include fence's output block, drift note and figures; ``page`` is the key of the page it
    is on (a figure the page shows already is not drawn again)."""

    fence: Fence
    page: str


@dataclass(frozen=True)
class ConceptDiagram(Place):
    """A hand-written concept diagram."""

    diagram: Diagram


@dataclass(frozen=True)
class TitleNote(Place):
    """The note under a page's title: the versions the run used, the reading time, the page's one
    version note (what the outputs of its ``fences`` do on the next PyTorch) and what else the
    build adds there for the page whose key is ``page`` (``Build.note_for``)."""

    page: str
    minutes: int
    fences: tuple[Fence, ...] = ()


@dataclass(frozen=True)
class QuotedValue(Place):
    """A value the prose quotes from a run (``docexec.source.quotes``)."""

    quote: Quote
    holds_places = False


@dataclass(frozen=True)
class Drawing(Place):
    """The SVG drawing inside a figure, put in by the late fill."""

    figure: render.Figure
    late = True
    holds_places = False


@dataclass(frozen=True)
class PageHtml(Place):
    """HTML put in as it is by the late fill (a notebook page's content)."""

    html: str
    late = True
    holds_places = False
