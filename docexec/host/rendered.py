"""Under ``mkdocs serve``: a page's template output from the last build, given again while
everything the template reads for that page is the same.

An edit changes one page, yet MkDocs renders the theme's template for every page in every rebuild
(about 10 ms a page with Material: a third of a rebuild of this site). ``RenderedPages`` makes the
environment's templates (Jinja2's ``Environment.template_class``) look up a page's output by a key
of what the template is given: the page (its content, with each place of this build renumbered as
``Build.detach`` does, and what each place stands for; its address, title, table of contents,
metadata, neighbours and section), the whole nav and list of pages (titles, addresses and
metadata: a page's new title, or its ``subtitle`` or ``icon`` in Material's nav, shows on every
page), the context's entries that are text, numbers or lists of them (``extra_css``), ``mkdocs.yml``,
and the theme's ``custom_dir`` (the project's own templates). Any of those different: the template renders
as usual and its output is kept for the next build.

Places left in the output (a figure's drawing, filled after the template) are kept renumbered and
attached again to the places of the build that gives the output again, so ``on_post_page`` fills
them as in any build. Only a serve uses this: ``mkdocs build`` renders every page.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import jinja2

from docexec.host.build import Build
from docexec.pages.page_store import parts_digest
from docexec.source.snippets import files_under


@dataclass(frozen=True)
class Rendered:
    """A page's template output, its places renumbered (``Build.detach``), and what it was made
    from: the key of the template's input and the places in the page's content."""

    key: str
    places_given: list
    html: str
    token: str
    places: list


def _nav_items(items) -> list[str]:
    """Each nav item (section, page or link) as the theme may show it in the nav of every page:
    title, address, metadata (Material shows a page's ``icon``, ``subtitle`` and ``status``) and
    children, depth first."""
    found = []
    for item in items or []:
        meta = repr(sorted((getattr(item, "meta", None) or {}).items()))
        found.append(f"{type(item).__name__}|{item.title}|{getattr(item, 'url', '')}|{meta}"
                     f"|{getattr(item, 'encrypted', '')}")
        found += [f"  {line}" for line in _nav_items(getattr(item, "children", None))]
    return found


def _theme_files(custom_dir: str | None) -> list[str]:
    """Name, size and modification time of every file in the theme's ``custom_dir`` (the project's
    own templates; an installed theme changes only when it is installed again, and a serve started
    before that does not watch it)."""
    if custom_dir is None:
        return []
    found = []
    for name in sorted(files_under(Path(custom_dir), "", "")):
        stat = os.stat(os.path.join(custom_dir, name))
        found.append(f"{name}|{stat.st_size}|{stat.st_mtime_ns}")
    return found


def _plain(key: str, value) -> str | None:
    """A context entry as text if it is text or a number, or the list of style sheets or scripts
    (``extra_javascript`` holds MkDocs' script values, which print as their path); None for the
    others (the page, the nav and the pages are keyed on their own)."""
    if isinstance(value, str | int | float | bool):
        return str(value)
    if key in ("extra_css", "extra_javascript") and isinstance(value, list | tuple):
        return "|".join(map(str, value))
    return None


def _neighbour(page) -> str:
    return "" if page is None else f"{page.title}|{page.url}|{sorted((page.meta or {}).items())!r}"


def _page_parts(page) -> list[str]:
    """What the template reads of ``page`` besides its content."""
    return [page.file.src_uri, page.url, str(page.canonical_url), str(page.edit_url), str(page.title),
            str(page.toc), repr(sorted(page.meta.items())), str(page.is_homepage), str(page.active),
            _neighbour(page.previous_page), _neighbour(page.next_page),
            "|".join(str(section.title) for section in page.ancestors)]


class RenderedPages:
    """The template output of each page in the last build of this process, by page."""

    def __init__(self) -> None:
        self.kept: dict[str, Rendered] = {}
        self.build: Build | None = None
        self._site: str | None = None
        self._site_parts: list[str] = []
        self._rendered: set[str] = set()  # the pages this build rendered
        self.template_class = self._template_class()

    def begin(self, build: Build, config) -> None:
        """A build's pages are about to be rendered: note what every page's template reads alike."""
        self.build, self._site, self._rendered = build, None, set()
        self._site_parts = [Path(config.config_file_path).read_text(encoding="utf-8", errors="surrogateescape"),
                            *_theme_files(config.theme.custom_dir)]

    def _template_class(self) -> type[jinja2.Template]:
        """A Jinja2 template class whose ``render`` of a page looks its output up here first."""
        pages = self

        class KeptTemplate(jinja2.Template):
            def render(self, *args, **kwargs) -> str:
                context = dict(*args, **kwargs)
                page = context.get("page")
                if pages.build is None or page is None or getattr(page, "file", None) is None:
                    return super().render(*args, **kwargs)
                return pages.render(self.name, context, lambda: super(KeptTemplate, self).render(*args, **kwargs))

        return KeptTemplate

    def render(self, name: str | None, context: dict, render_anew) -> str:
        """The output of template ``name`` for ``context``'s page: kept, or ``render_anew()`` (then kept)."""
        build, page = self.build, context["page"]
        content, places = build.detach(page.content or "")
        content = content.replace(build.token, "")  # the places, numbered on the page, not by build
        key = parts_digest([str(name), self._site_key(context), content, *_page_parts(page),
                       *(f"{k}={_plain(k, v)}" for k, v in sorted(context.items()) if _plain(k, v) is not None)])
        self._rendered.add(page.file.src_uri)
        kept = self.kept.get(page.file.src_uri)
        if kept is not None and kept.key == key and kept.places_given == places:  # places: compared whole
            return build.attach(kept.html, kept.token, kept.places)
        html = render_anew()
        kept_html, kept_places = build.detach(html)
        self.kept[page.file.src_uri] = Rendered(key, places, kept_html, build.token, kept_places)
        return html

    def _site_key(self, context: dict) -> str:
        """What every page's template reads alike: ``mkdocs.yml``, the theme's own templates, the nav
        and the list of pages (worked out at the first page: by then every title is known)."""
        if self._site is None:
            pages = [f"{file.src_uri}|{file.url}|{file.page.title if file.page else ''}|"
                     f"{sorted((file.page.meta or {}).items()) if file.page else ''!r}"
                     for file in context.get("pages") or []]
            nav = context.get("nav")
            self._site = parts_digest([*self._site_parts, *pages, *_nav_items(nav.items if nav is not None else [])])
        return self._site

    def end(self, finished: bool = True) -> None:
        """The build is over: forget it, and once it ``finished``, the outputs of pages it did not
        render (removed or renamed); its own stay for the next."""
        if finished:
            self.kept = {page: rendered for page, rendered in self.kept.items() if page in self._rendered}
        self.build = None
