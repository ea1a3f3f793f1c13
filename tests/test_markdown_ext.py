"""The Markdown extension: outputs after includes, figures after the last include, concept diagrams."""

from __future__ import annotations

import contextlib
import re

import markdown
import pytest

from docexec.graphs import figures
from docexec.host import build as builds
from docexec.pages.render import NOT_SEARCHED

from .conftest import run_all, write_snippets


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("md")
    write_snippets(root, {
        "snippets/ch/plain.py": """
            print("hello")  # hello
            """,
        "snippets/ch/parts.py": """
            import torch
            # --8<-- [start:one]
            x = torch.tensor(2.0, requires_grad=True)
            print("first")  # first
            # --8<-- [end:one]
            # --8<-- [start:two]
            y = x * 3
            print("second")  # second
            # --8<-- [end:two]
            """,
        "snippets/ch/prints_include.py": """
            print('--8<-- "ch/plain.py"')  # --8<-- "ch/plain.py"
            """,
        "diagrams/concepts/c.dot": 'digraph c { a [class="backward"]; a -> b }\n',
        "other/elsewhere.py": "VALUE = 1\n",
    })
    results = run_all(root)
    figures.sync(root, results.graphs(), set(results.runs))  # what `make fix` would commit
    return root


@contextlib.contextmanager
def on_disk(repo, name: str, page: str):
    """``page`` as ``docs/<name>`` for the length of a test; after it, the build that read it is
    forgotten (its problems stay with it)."""
    path = repo / "docs" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(page)
    try:
        yield path
    finally:
        path.unlink()
        if builds.current(repo) is not None:
            builds.end(builds.current(repo))


def convert(root, text: str) -> str:
    md = markdown.Markdown(extensions=["admonition", "pymdownx.superfences", "pymdownx.snippets",
                                       "docexec.host.markdown_ext"],
                           extension_configs={"pymdownx.snippets": {"base_path": [str(root / "snippets"),
                                                                                  str(root / "other")]},
                                              "docexec.host.markdown_ext": {"root": str(root), "on_problems": "raise"}})
    return md.convert(text)


def test_output_follows_the_include_even_inside_an_admonition(repo):
    html = convert(repo, '!!! note\n\n    ```python\n    --8<-- "ch/plain.py"\n    ```\n')
    assert html.count('<span class="filename">Output</span>') == 1
    assert html.index("admonition") < html.index("Output") and "hello" in html


def test_output_follows_the_include_inside_a_raw_html_block_and_no_marker_is_left(repo):
    """A fence wrapped in raw HTML never reaches the block parser: the output's placeholder must be
    one that Python-Markdown substitutes anywhere, not a marker only a block processor knows."""
    html = convert(repo, '<div class="example">\n\n```python\n--8<-- "ch/plain.py"\n```\n\n</div>\n')
    assert html.count('<span class="filename">Output</span>') == 1 and "hello" in html
    assert "docexec-block-" not in html


def test_output_placeholders_skip_the_inline_patterns_but_the_prose_does_not(repo):
    """The paragraph that holds an output's placeholder is an AtomicString (inline patterns have
    nothing to find in it); the page's own paragraphs are still processed."""
    md = markdown.Markdown(extensions=["pymdownx.superfences", "pymdownx.snippets", "docexec.host.markdown_ext"],
                           extension_configs={"pymdownx.snippets": {"base_path": [str(repo / "snippets")]},
                                              "docexec.host.markdown_ext": {"root": str(repo), "on_problems": "raise"}})
    seen = []
    md.treeprocessors.register(type("Spy", (markdown.treeprocessors.Treeprocessor,), {
        "run": lambda self, root: seen.extend((p.text, type(p.text).__name__) for p in root.iter("p"))})(md), "spy", 21)
    html = md.convert('Some *prose*.\n\n```python\n--8<-- "ch/plain.py"\n```\n')
    assert "<em>prose</em>" in html and "hello" in html
    kinds = {text.strip("\x02\x03").split(":")[0] if text.startswith("\x02") else "prose": kind for text, kind in seen}
    assert kinds == {"prose": "str", "wzxhzdk": "AtomicString"}


def test_sections_show_only_their_own_output_and_the_figure_comes_after_the_last(repo):
    html = convert(repo, '# T\n\n```python\n--8<-- "ch/parts.py:one"\n```\n\nBetween\n\n'
                         '```python\n--8<-- "ch/parts.py:two"\n```\n')
    first, second = html.split("Between", 1)
    assert "first" in first and "second" not in first.split("Output", 1)[1]
    assert "docexec-figure" not in first and second.count('<figure class="docexec-figure"') == 2  # and the key's
    assert second.index('class="docexec-key"') < second.index('<figure class="docexec-figure"')
    assert 'aria-label="Autograd graph: x → AccumulateGrad → MulBackward0 (y)"' in second
    assert "PyTorch" in html.split("first")[0]  # the versions note under the title


def test_concept_diagram_lines_become_figures_but_not_inside_fences(repo):
    html = convert(repo, '![Two boxes](diagrams/concepts/c.dot "A caption")\n\n```markdown\n'
                         '![Two boxes](diagrams/concepts/c.dot)\n```\n')
    assert html.count('<figure class="docexec-figure">') == 1
    assert 'aria-label="Two boxes"' in html and f"<figcaption {NOT_SEARCHED}>A caption</figcaption>" in html
    assert "diagrams/concepts/c.dot</span>)" in html  # the fenced line is shown as code


def test_includes_from_another_folder_get_no_output(repo):
    html = convert(repo, '```python\n--8<-- "elsewhere.py"\n```\n')
    assert "VALUE" in html and "Output" not in html


def test_printed_include_lines_are_shown_not_expanded(repo):
    html = convert(repo, '```python\n--8<-- "ch/prints_include.py"\n```\n')
    output = html.split("Output", 1)[1]
    assert "--8&lt;-- &quot;ch/plain.py&quot;" in output or '--8&lt;-- "ch/plain.py"' in output
    assert "hello" not in output


@pytest.mark.parametrize("text", [
    "tensor([2.], grad_fn=<MulBackward0>)",
    'a <b> & "quoted" \'s\' `one` ```three```',
    "col\tafter a tab\n\tleading tab\nx\t\ty",
    "before a blank line\n   \n\nafter",
    "\n\nleading blank lines, and trailing ones\n\n",
    'printed --8<-- "ch/plain.py"\n;--8<-- escaped',
    "carriage\r\nreturns\rhere",
    "unicode: ∂y/∂x → 0x… ✓",
    "control \x02characters\x03 \x1b[1mbold\x1b[0m \x00",
    "\ufeffstarts with a byte-order mark",
    "\x02wzxhzdk:0\x03 looks like a stash placeholder",
])
def test_output_html_is_the_text_fence_of_the_theme_holding_the_text_as_printed(text):
    """The same frame as pymdownx makes of the fence (so the theme styles it and gives it a copy
    button), but what is inside is the text as printed (tabs, lines of blanks, blank lines at the
    ends): only line breaks are made ``\n`` and Python-Markdown's stash markers dropped."""
    from html import unescape

    from docexec.pages.render import output_html, output_markdown

    md = markdown.Markdown(extensions=["pymdownx.highlight", "pymdownx.superfences"])
    frame = re.compile(r"(?s)(.*<code>).*(</code>.*)")
    assert frame.match(output_html(text)).groups() == frame.match(md.convert("\n".join(output_markdown(text)))).groups()
    inside = unescape(output_html(text).split("<code>", 1)[1].rsplit("</code>", 1)[0])
    as_printed = text.replace("\x02", "").replace("\x03", "").replace("\r\n", "\n").replace("\r", "\n")
    assert inside == as_printed.removesuffix("\n") + "\n"


DEFER_PAGE = '''# A chapter

Some prose about `grad_fn`.

```python
--8<-- "ch/plain.py"
```

!!! note "Inside an admonition"

    ```python
    --8<-- "ch/parts.py:one"
    ```

- a list item

    ```python
    --8<-- "ch/parts.py:two"
    ```

<div class="example">

```python
--8<-- "ch/silent.py"
```

</div>

```python
--8<-- "ch/plain.py"
--8<-- "ch/prints_include.py"
```

![A concept](diagrams/concepts/c.dot "A caption")

*[backward()]: The call that walks the graph in reverse.
'''


def test_a_deferred_page_filled_in_is_the_page_converted_with_the_results_at_hand(repo):
    """The hook converts pages while the snippets run (defer), then fills them in: the same HTML
    byte for byte, wherever the include stands. A snippet that writes nothing and draws no graph
    is the one exception: its empty place may leave blank lines (whitespace only)."""
    import re

    write_snippets(repo, {"snippets/ch/silent.py": "x = 1\n"})
    build = builds.begin(repo, include_paths=["snippets"])

    def convert_with(page: str, defer: bool) -> str:
        md = markdown.Markdown(extensions=["abbr", "admonition", "pymdownx.superfences", "pymdownx.snippets",
                                           "md_in_html", "docexec.host.markdown_ext"],
                               extension_configs={"pymdownx.snippets": {"base_path": [str(repo / "snippets")]},
                                                  "docexec.host.markdown_ext": {"root": str(repo), "defer": defer,
                                                                           "on_problems": "raise"}})
        return md.convert(page)

    try:
        speaking = DEFER_PAGE.replace('```python\n--8<-- "ch/silent.py"\n```\n', "")
        deferred = convert_with(speaking, True)
        assert '"filename">Output' not in deferred and "docexec-versions" not in deferred
        assert "<svg" not in deferred  # not even the concept diagram's: drawings come last
        assert deferred.count(f"<!--docexec-{build.token}-") == 6  # four fences, the note, the diagram
        expected = convert_with(speaking, False)
        assert expected.count('<span class="filename">Output</span>') == 4 and "docexec-versions" in expected
        assert expected.count("<svg") == 3  # the concept diagram, the key to the figures before the first graph,
        assert expected.count('class="docexec-key"') == 1  # and the graph parts.py left after its last include
        assert '<abbr title="The call that walks the graph in reverse."><code>backward()</code></abbr>' in expected
        results = build.check()
        text_only = build.fill(deferred, results, late=False)
        assert "<svg" not in text_only
        assert text_only.count(f"<!--docexec-{build.token}-") == 3  # the drawings (and the key's)
        assert build.fill(text_only, results) == expected

        filled, expected = build.fill(convert_with(DEFER_PAGE, True), results), convert_with(DEFER_PAGE, False)
        assert f"docexec-{build.token}" not in filled and filled.count('"filename">Output') == 4
        assert re.sub(r"\n+", "\n", filled) == re.sub(r"\n+", "\n", expected)
    finally:
        builds.end(build)


def test_fill_leaves_page_text_that_looks_like_a_place_alone(repo):
    build = builds.Build(builds.runner_for(repo))
    text = f"<p><!--docexec-{build.token}-x--> and &lt;!--docexec-{build.token}-0--&gt; <!--docexec-0--></p>"
    assert build.fill(text, build.runner.results()) == text


def test_a_missing_snippet_section_or_diagram_is_named_with_the_page_line(repo):
    page = ('# T\n\n```python\n--8<-- "ch/nothing.py"\n```\n\n```python\n--8<-- "ch/parts.py:three"\n```\n\n'
            '![x](diagrams/concepts/none.dot)\n')
    with on_disk(repo, "broken.md", page), pytest.raises(builds.BuildError) as failed:
        convert(repo, page)
    assert [str(p) for p in failed.value.problems] == [
        "docs/broken.md:4: includes 'ch/nothing.py', which is not a file under snippets or other",
        "docs/broken.md:8: includes section 'three' of 'ch/parts.py', which has no '# --8<-- [start:three]' marker",
        "docs/broken.md:11: shows the diagram 'diagrams/concepts/none.dot', which is not a file"]


@pytest.mark.parametrize(("fence", "problem"), [
    ('```python\n--8<-- "ch/_helper.py"\n```', "includes 'ch/_helper.py', which is not an example"),
    ('```python\n--8<-- "ch/notes.txt"\n```', "includes 'ch/notes.txt', which is not an example"),
    ('```text\n--8<-- "ch/plain.py"\n```', "includes the example 'ch/plain.py' in a 'text' fence"),
    ('```python\n--8<-- "ch/plain.py"\n--8<-- "elsewhere.py"\n```', "mixes examples with files that are not"),
])
def test_an_include_either_runs_or_is_marked_as_shown_and_anything_else_is_named(repo, fence, problem):
    write_snippets(repo, {"snippets/ch/_helper.py": "print('helper')  # wrong\n",
                          "snippets/ch/notes.txt": "print('notes')\n"})
    page = f"# T\n\n{fence}\n"
    with on_disk(repo, "kinds.md", page), pytest.raises(builds.BuildError) as failed:
        convert(repo, page)
    (found,) = failed.value.problems
    assert str(found).startswith("docs/kinds.md:4: " + problem)


def test_a_fence_marked_show_shows_a_helper_without_running_it(repo):
    write_snippets(repo, {"snippets/ch/_helper.py": "print('helper')  # wrong\n"})
    html = convert(repo, '# T\n\n<!-- docexec: show -->\n```python\n--8<-- "ch/_helper.py"\n```\n')
    assert "helper" in html and "Output" not in html


@pytest.mark.parametrize("page", [
    '# T\n\n--8<-- "ch/nothing.py"\n',  # outside any fence
    '# T\n\n```python\n# a comment\n--8<-- "ch/nothing.py"\n```\n',  # in a fence with other lines
])
def test_every_include_line_is_checked_wherever_it_stands(repo, page):
    with on_disk(repo, "stray.md", page), pytest.raises(builds.BuildError) as failed:
        convert(repo, page)
    line = page.split("\n").index('--8<-- "ch/nothing.py"') + 1
    assert [str(p) for p in failed.value.problems] == [
        f"docs/stray.md:{line}: includes 'ch/nothing.py', which is not a file under snippets or other"]


EXERCISE_PAGE = '''# T

<!-- docexec: exercise -->
```python
--8<-- "ch/plain.py"
```

??? success "Answer"

    <!-- docexec: answer -->

    Because it prints hello.
'''


def test_an_exercise_shows_its_output_in_its_answer_not_under_its_code(repo):
    md = markdown.Markdown(extensions=["pymdownx.details", "pymdownx.superfences", "pymdownx.snippets",
                                       "docexec.host.markdown_ext"],
                           extension_configs={"pymdownx.snippets": {"base_path": [str(repo / "snippets")]},
                                              "docexec.host.markdown_ext": {"root": str(repo), "on_problems": "raise"}})
    html = md.convert(EXERCISE_PAGE)
    code, answer = html.split("<details", 1)
    assert "hello" in code and '<span class="filename">Output</span>' not in code  # the code, not its output
    assert "# ?" in code and "# hello" not in code  # its claim hidden: the reader predicts it
    assert '<span class="filename">Output</span>' in answer and "Because it prints hello." in answer
    assert answer.startswith(' class="success" data-search-exclude="data-search-exclude"')  # searched by its question


def test_an_output_that_starts_with_blank_lines_and_tabs_keeps_them_on_the_page(repo):
    write_snippets(repo, {"snippets/ch/lead.py": 'print("\\n\\nlead\\tafter a tab")\n#>\n#>\n#> lead\tafter a tab\n'})
    page = '```python\n--8<-- "ch/lead.py"\n```\n'
    try:
        with on_disk(repo, "lead.md", page):
            html = convert(repo, page)
        assert "<code>\n\nlead\tafter a tab\n</code>" in html.split("Output", 1)[1]
    finally:
        (repo / "snippets/ch/lead.py").unlink()


def test_an_include_path_with_a_dot_folder_is_the_same_example(repo):
    page = '```python\n--8<-- "ch/./plain.py"\n```\n'
    with on_disk(repo, "dot.md", page):
        html = convert(repo, page)
    assert "Output" in html and "hello" in html.split("Output", 1)[1]


@pytest.mark.parametrize("page", ['Prose.\n\n--8<--\nch/plain.py\n--8<--\n',
                                  '```python\n--8<--\nch/plain.py\n--8<--\n```\n'])
def test_an_example_in_the_block_form_of_an_include_is_named(repo, page):
    with on_disk(repo, "block.md", page), pytest.raises(builds.BuildError) as failed:
        convert(repo, page)
    assert any(str(p).startswith("docs/block.md:") and "block form of an include" in str(p)
               for p in failed.value.problems), failed.value.problems


@pytest.mark.parametrize(("page", "what"), [
    ('> ```python\n> --8<-- "ch/plain.py"\n> ```\n', "'ch/plain.py'"),
    ('> Note:\n>\n> > ```python\n> > --8<-- "ch/plain.py"\n> > ```\n', "'ch/plain.py'"),
    ("> ```python\n> --8<-- 'ch/plain.py'\n> ```\n", "'ch/plain.py'"),  # pymdownx takes single quotes
    ('1. > ```python\n   > --8<-- "ch/plain.py"\n   > ```\n', "'ch/plain.py'"),
    ('1. > --8<-- "ch/plain.py"\n', "'ch/plain.py'"),  # a quote opened on a list item's line
    ("> ```python\n> --8<--\n> ch/plain.py\n> --8<--\n> ```\n", "a file"),  # the block form
    ('> ```python\n> --8<-- "it\'s.py"\n> ```\n', '"it\'s.py"'),  # the other quote in the name
])
def test_an_include_inside_a_blockquote_is_named_with_its_line(repo, page, what):
    """Neither pymdownx.snippets nor the build reads an include in a blockquote: the page would show
    the raw line and run nothing, so the build names it."""
    with on_disk(repo, "quoted.md", page), pytest.raises(builds.BuildError) as failed:
        convert(repo, page)
    line = page.splitlines().index(next(x for x in page.splitlines() if "--8<--" in x)) + 1
    assert [str(p) for p in failed.value.problems if "blockquote" in str(p)][:1] == [
        f"docs/quoted.md:{line}: includes {what} inside a blockquote ('>'), where it is neither read nor "
        "run: take the fence out of the blockquote (an admonition, indented by four spaces, works)"]


@pytest.mark.parametrize("page", [
    'Do not write this:\n\n```text\n> --8<-- "ch/plain.py"\n```\n',  # shown as text in a fence
    '<!--\n> --8<-- "ch/plain.py"\n-->\n',  # in a comment
    '> --8<-- "ch/plain.py" is how a page includes a file.\n',  # prose: pymdownx needs the line to end there
])
def test_a_quoted_include_line_that_is_text_is_no_problem(repo, page):
    with on_disk(repo, "shown.md", page):
        html = convert(repo, page)
    assert "blockquote" not in html or "8&lt;" in html or "8<" in html


def test_an_example_in_an_admonition_runs(repo):
    page = '!!! note\n\n    ```python\n    --8<-- "ch/plain.py"\n    ```\n'
    with on_disk(repo, "admonition.md", page):
        html = convert(repo, page)
    assert "Output" in html and "hello" in html.split("Output", 1)[1]


def test_an_example_included_outside_a_fence_is_named(repo):
    page = 'Some prose.\n\n--8<-- "ch/plain.py"\n'
    with on_disk(repo, "bare.md", page), pytest.raises(builds.BuildError) as failed:
        convert(repo, page)
    assert str(failed.value.problems[0]).startswith("docs/bare.md:3: includes 'ch/plain.py' outside a fence")


@pytest.mark.parametrize(("page", "problem"), [
    ('<!-- docexec: exercise -->\n```python\n--8<-- "ch/plain.py"\n```\n',
     "an exercise needs a fence of code that runs"),
    ('```python\n--8<-- "ch/plain.py"\n```\n\n<!-- docexec: answer -->\n', "follows no exercise"),
    # the second exercise has no answer of its own: it is named, not the third
    ('<!-- docexec: exercise -->\n```python\n--8<-- "ch/plain.py"\n```\n\n<!-- docexec: answer -->\n\n'
     '<!-- docexec: exercise -->\n```python\n--8<-- "ch/plain.py"\n```\n\n'
     '<!-- docexec: exercise -->\n```python\n--8<-- "ch/plain.py"\n```\n\n<!-- docexec: answer -->\n',
     "docs/ex.md:9: an exercise needs a fence of code that runs"),
])
def test_an_exercise_without_an_answer_and_an_answer_without_an_exercise_are_named(repo, page, problem):
    with on_disk(repo, "ex.md", page), pytest.raises(builds.BuildError) as failed:
        convert(repo, page)
    assert problem in str(failed.value.problems[0]) and str(failed.value.problems[0]).startswith("docs/ex.md:")


def test_an_exercise_whose_answer_is_wrong_fails_the_build_naming_its_line(repo):
    """The answer is what the run printed, checked against the exercise's claims like any other:
    a claim edited to a wrong answer stops the build."""
    write_snippets(repo, {"snippets/ch/wrong.py": 'print("hello")  # goodbye\n'})
    page = EXERCISE_PAGE.replace("ch/plain.py", "ch/wrong.py")
    try:
        with on_disk(repo, "wrong.md", page), pytest.raises(builds.BuildError) as failed:
            convert(repo, page)
        assert any(str(p).startswith("snippets/ch/wrong.py:1:") for p in failed.value.problems), failed.value.problems
    finally:
        (repo / "snippets/ch/wrong.py").unlink()


def test_a_new_kind_of_place_is_one_record_and_one_renderer(repo, monkeypatch):
    """What a place stands for is a record (``docexec.pages.places``) and what fills it in one
    renderer (``docexec.host.renderers``): a toy kind added that way is filled in with the rest,
    its code spans get the page's tooltips, and a kind without a renderer is refused."""
    from dataclasses import dataclass

    from docexec.host import renderers
    from docexec.pages.places import Place

    @dataclass(frozen=True)
    class Shout(Place):
        text: str

    monkeypatch.setattr(renderers, "RENDERERS", dict(renderers.RENDERERS))
    renderers.renders(Shout)(lambda build, place, results, shown: f"<p><code>{place.text.upper()}</code></p>")
    build = builds.Build(builds.runner_for(repo))
    place = Shout(text="grad_fn")
    place.terms.update({"GRAD_FN": "the Node that made a tensor"})
    html = f"<div>{build.place(place)}</div>"
    filled = build.fill(html, run_all(repo, paths=["snippets/ch/plain.py"]))
    assert filled.startswith("<div><p><")
    assert "GRAD_FN" in filled and "the Node that made a tensor" in filled

    @dataclass(frozen=True)
    class Whisper(Place):
        text: str

    with pytest.raises(KeyError):
        build.fill(build.place(Whisper(text="x")), run_all(repo, paths=["snippets/ch/plain.py"]))
