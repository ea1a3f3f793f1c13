"""Under ``mkdocs serve`` a rebuild redoes only what an edit changed: a page's template output is
given again while everything the template reads for the page is the same, and rendered anew when
any of it changed; the installed theme is listed once; what the first build leaves alive is kept
out of the collector's full collections."""

from __future__ import annotations

from types import SimpleNamespace

import jinja2
import pytest

from docexec.host.build import Build
from docexec.host.rendered import RenderedPages
from docexec.pages.places import PageHtml
from docexec.run.runner import Runner

TEMPLATE = ("{{ count(page.file.src_uri) }}<title>{{ page.title }}</title>"
            "<nav>{% for file in pages %}{{ file.page.title }};{% endfor %}</nav>{{ page.content }}")


class Site:
    """Two pages, ``a`` and ``b``, and the builds of a serve, each with a new ``Build``."""

    def __init__(self, tmp_path):
        self.root, self.rendered, self.renders = tmp_path, RenderedPages(), []
        (tmp_path / "mkdocs.yml").write_text("site_name: Test\n")
        self.config = SimpleNamespace(config_file_path=str(tmp_path / "mkdocs.yml"),
                                      theme=SimpleNamespace(custom_dir=None))
        self.titles = {"a": "Page A", "b": "Page B"}
        self.metas = {"a": {}, "b": {}}
        self.texts = {"a": "<p>one</p>", "b": "<p>two</p>"}
        self.lates = {"a": "<p>late part of a</p>", "b": "<p>late part of b</p>"}

    def page(self, name: str, build: Build) -> SimpleNamespace:
        late = build.place(PageHtml(html=self.lates[name]))  # a place the template leaves
        return SimpleNamespace(file=SimpleNamespace(src_uri=f"{name}.md", url=f"{name}/"), url=f"{name}/",
                               canonical_url=None,
                               edit_url=None, title=self.titles[name], toc="", meta=dict(self.metas[name]),
                               is_homepage=False,
                               active=True, previous_page=None, next_page=None, ancestors=[],
                               content=self.texts[name] + late)

    def build(self) -> tuple[dict[str, str], list[str]]:
        """Render both pages in a new build: their outputs filled as ``on_post_page`` fills them, and
        the pages the template rendered."""
        build = Build(Runner(self.root))
        env = jinja2.Environment(loader=jinja2.DictLoader({"main.html": TEMPLATE}))
        env.template_class = self.rendered.template_class
        env.globals["count"] = lambda name: self.renders.append(name) or ""
        self.rendered.begin(build, self.config)
        pages = {name: self.page(name, build) for name in ("a", "b")}
        files = [page.file for page in pages.values()]
        for file, page in zip(files, pages.values(), strict=True):
            file.page = page
        self.renders.clear()
        outputs = {}
        for name, page in pages.items():
            html = env.get_template("main.html").render({"page": page, "pages": files, "base_url": ".."})
            assert build.token in html  # its places are this build's, for on_post_page to fill
            outputs[name] = build.fill(html, None)
        self.rendered.end()
        return outputs, list(self.renders)


@pytest.fixture
def site(tmp_path):
    return Site(tmp_path)


def test_a_page_whose_template_input_is_the_same_is_not_rendered_again(site):
    first, rendered = site.build()
    assert rendered == ["a.md", "b.md"]
    assert first["a"] == "<title>Page A</title><nav>Page A;Page B;</nav><p>one</p><p>late part of a</p>"
    again, rendered = site.build()
    assert rendered == [] and again == first


def test_a_new_title_renders_every_page_again(site):
    site.build()
    site.titles["b"] = "Page Bee"
    outputs, rendered = site.build()
    assert rendered == ["a.md", "b.md"] and "Page Bee;" in outputs["a"]


def test_a_new_subtitle_renders_every_page_again(site):  # Material shows it in every page's nav
    site.build()
    site.metas["b"] = {"subtitle": "in short"}
    _, rendered = site.build()
    assert rendered == ["a.md", "b.md"]
    site.metas["b"] = {}
    _, rendered = site.build()
    assert rendered == ["a.md", "b.md"]


def test_new_content_renders_that_page_again(site):
    first, _ = site.build()
    site.texts["a"] = "<p>one, edited</p>"
    outputs, rendered = site.build()
    assert rendered == ["a.md"] and "one, edited" in outputs["a"] and outputs["b"] == first["b"]


def test_a_place_that_stands_for_something_new_renders_that_page_again(site):
    site.build()
    site.lates["b"] = "<p>a new drawing</p>"  # the same comment in the content, a new figure behind it
    outputs, rendered = site.build()
    assert rendered == ["b.md"] and "a new drawing" in outputs["b"]


def test_a_page_no_longer_built_is_forgotten_once_a_build_finishes(site):
    site.build()
    assert sorted(site.rendered.kept) == ["a.md", "b.md"]
    site.rendered.begin(Build(Runner(site.root)), site.config)
    site.rendered.end(finished=False)  # a build that stopped before rendering a page forgets none
    assert sorted(site.rendered.kept) == ["a.md", "b.md"]
    site.rendered.begin(Build(Runner(site.root)), site.config)
    site.rendered.end()
    assert site.rendered.kept == {}


def test_an_edited_mkdocs_yml_renders_every_page_again(site):
    site.build()
    (site.root / "mkdocs.yml").write_text("site_name: Test\nextra: {a: 1}\n")
    _, rendered = site.build()
    assert rendered == ["a.md", "b.md"]


def test_a_template_rendered_without_a_page_is_rendered_as_usual(site):
    env = jinja2.Environment(loader=jinja2.DictLoader({"404.html": "<p>{{ x }}</p>"}))
    env.template_class = site.rendered.template_class
    site.rendered.begin(Build(Runner(site.root)), site.config)
    assert env.get_template("404.html").render(x=1, page=None) == "<p>1</p>"


def test_the_installed_themes_templates_are_listed_once_and_the_custom_dir_every_time(tmp_path):
    from mkdocs.theme import Theme

    from docexec.core import compat
    from docexec.host.serve import ThemeListing

    custom = tmp_path / "overrides"
    (custom / "partials").mkdir(parents=True)
    (custom / "partials" / "footer.html").write_text("<footer></footer>")
    listing, lists = ThemeListing(), []
    for _ in range(2):  # two builds, each with a new Theme, as under serve
        theme = Theme(name="mkdocs", custom_dir=str(custom))
        plain = theme.get_env().loader.list_templates()
        compat.load_templates_with(theme, lambda loader: listing.loader(loader, str(custom)))
        lists.append(theme.get_env().loader.list_templates())
        assert lists[-1] == plain  # what MkDocs' own loader lists
        (custom / "main.html").write_text("{% extends 'base.html' %}")  # the project's templates: seen
        installed = set(theme.dirs) - {str(custom)}
    assert "main.html" in lists[1] and lists[1].count("partials/footer.html") == 1
    assert set(listing.names) == installed and len(installed) == 2  # only installed folders' names are kept


def test_what_the_first_build_leaves_alive_is_kept_out_of_full_collections():
    import gc

    from docexec.host.serve import freeze_what_lasts

    kept = [{"a": [1]} for _ in range(1000)]  # what a first build leaves: modules, caches, templates
    try:
        freeze_what_lasts()
        assert gc.get_freeze_count() >= len(kept)
        scanned = {id(item) for item in gc.get_objects(generation=2)}  # what a full collection looks at
        assert not any(id(item) in scanned for item in kept)
    finally:
        gc.unfreeze()
