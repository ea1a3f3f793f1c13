"""Values the prose quotes from a run: ``{{ example: expression }}`` shows what that build's run printed."""

from __future__ import annotations

import pytest

from docexec.graphs import figures
from docexec.host import build as builds
from docexec.notebooks.chapter import chapter_notebook
from docexec.source.includes import parse_page

from .conftest import run_all, write_snippets
from .test_markdown_ext import convert, on_disk

SQUARE = """
    import torch

    x = torch.tensor({x}, requires_grad=True)
    y = x * x
    y.backward()
    print(x.grad)  # tensor({grad}.)
    print("made by", y.grad_fn)  # made by <MulBackward0 object at 0x...>
    for step in range(2):
        print(step * {x})
    #> ...
    """

PAGE = """# Quotes

The gradient is {{ square: x.grad | number }}, as code {{ square: x.grad }}; y came from
{{ square: y.grad_fn | name }}. The second step printed {{ square: step * 2.0 #2 }}, and
`{{ square: x.grad }}` in a code span stays as written.

```python
--8<-- "q/square.py"
```
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("quotes")
    write_snippets(root, {"snippets/q/square.py": SQUARE.format(x="2.0", grad=4),
                          "snippets/q/other.py": 'print("elsewhere")  # elsewhere\n'})
    synced(root)
    return root


def synced(root):
    """The runs of ``root``, with the DOT files `make fix` would commit."""
    results = run_all(root)
    figures.sync(root, results.graphs(), set(results.runs))
    return results


def test_a_quote_shows_what_the_run_printed_in_the_form_asked(repo):
    with on_disk(repo, "q.md", PAGE):
        html = convert(repo, PAGE)
    assert "The gradient is 4, as code <code>tensor(4.)</code>; y came from\n<code>MulBackward0</code>." in html
    assert "The second step printed <code>2.0</code>, and" in html
    assert "<code>{{ square: x.grad }}</code> in a code span stays as written" in html


def test_a_changed_input_changes_the_sentence_on_the_page_and_in_the_notebook(repo):
    write_snippets(repo, {"snippets/q/square.py": SQUARE.format(x="3.0", grad=6)})
    page = PAGE.replace("step * 2.0", "step * 3.0")
    try:
        synced(repo)
        with on_disk(repo, "q.md", page):
            html = convert(repo, page)
        assert "The gradient is 6, as code <code>tensor(6.)</code>" in html
        results = synced(repo)
        record = parse_page(page, "docs/q.md", str(repo), ["snippets"], "snippets")
        notebook = chapter_notebook(record, results, builds.Build(builds.runner_for(repo)).drawings)
        prose = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")
        assert "The gradient is 6, as code `tensor(6.)`; y came from\n`MulBackward0`." in prose
        assert "printed `3.0`" in prose and "{{" not in prose.replace("`{{ square: x.grad }}`", "")
    finally:
        write_snippets(repo, {"snippets/q/square.py": SQUARE.format(x="2.0", grad=4)})
        synced(repo)


@pytest.mark.parametrize(("quote", "reason"), [
    ("{{ square: x.gard }}", "quotes {{ square: x.gard }}, but no print call in square.py has the argument 'x.gard'"),
    ("{{ square: step * 2.0 }}", "square.py printed 'step * 2.0' 2 times: say which with #1 to #2"),
    ("{{ square: step * 2.0 #3 }}", "square.py printed 'step * 2.0' 2 time(s), not 3"),
    ("{{ square: y.grad_fn | number }}", "which holds 0 numbers, not one"),
    ("{{ square: x.grad | name }}", "which is neither an object shown as <Name object at 0x…> nor a text with one"),
    ("{{ other: 'elsewhere' }}", "quotes 'other', which is not an example this page runs"),
    ("{{ square: x.grad | bold }}", "there is no form 'bold'"),
    ("{{ square: x.grad( }}", "is not a Python expression"),
])
def test_a_quote_that_names_no_value_fails_the_build_with_its_page_line(repo, quote, reason):
    page = f'# Q\n\n```python\n--8<-- "q/square.py"\n```\n\nSee {quote} here.\n'
    with on_disk(repo, "bad.md", page), pytest.raises(builds.BuildError) as failed:
        convert(repo, page)
    (problem,) = [str(p) for p in failed.value.problems]
    assert problem.startswith("docs/bad.md:7: ") and reason in problem, problem


def test_a_printed_value_written_by_hand_is_listed_unless_the_line_says_why(repo):
    from docexec.pages import quoted

    page = parse_page('# Q\n\n```python\n--8<-- "q/square.py"\n```\n\n'
                      "The gradient is 4 and y came from MulBackward0.\n"
                      "x = 2.0 at the start; Exercise 4, 2x + 1 and {{ square: x.grad | number }} are fine.\n"
                      "Here 4 stays. <!-- literal: the text works it out by hand first -->\n"
                      "The code `x * 4` is code; `tensor(4.)` is what it printed, and x starts at 2.0.\n",
                      "docs/q.md", str(repo), ["snippets"], "snippets")
    found = [str(p).split(" by hand")[0] for p in quoted.restatements(page, run_all(repo))]
    assert found == ["docs/q.md:7: writes 4", "docs/q.md:7: writes MulBackward0", "docs/q.md:10: writes 4",
                     "docs/q.md:10: writes 2.0"]


@pytest.mark.parametrize(("line", "reason"), [
    ("See {{ square: x.grad\n", "that is not a quote"),
    ("See {{ square: {'a': 1}['a'] }} here.\n", "that is not a quote"),
    ("See {{ square x.grad }} here.\n", "that is not a quote"),
    ("See {{ square: x.grad #two }} here.\n", "'#' takes a number"),
])
def test_braces_that_are_not_a_quote_are_named_with_their_line(repo, line, reason):
    page = parse_page(f'# Q\n\n```python\n--8<-- "q/square.py"\n```\n\n{line}', "docs/q.md", str(repo),
                      ["snippets"], "snippets")
    (problem,) = [str(p) for p in page.problems]
    assert problem.startswith("docs/q.md:7: ") and reason in problem, problem


def test_a_quote_of_an_example_that_does_not_parse_is_one_line(repo):
    write_snippets(repo, {"snippets/q/broken.py": "print(1)  # 1\nprint(x +)\n"})
    try:
        page = '# Q\n\n```python\n--8<-- "q/broken.py"\n```\n\nIt printed {{ broken: 1 }}.\n'
        with on_disk(repo, "broken.md", page), pytest.raises(builds.BuildError) as failed:
            convert(repo, page)
        assert "docs/broken.md:7: quotes {{ broken: 1 }}, but broken.py does not parse (line 2), so its prints " \
               "cannot be found" in [
            str(p) for p in failed.value.problems]
    finally:
        (repo / "snippets/q/broken.py").unlink()


def test_a_print_inside_another_prints_arguments_is_its_own_call_and_a_cut_value_is_refused(tmp_path):
    from docexec.pages import quoted
    from docexec.source.quotes import Quote

    write_snippets(tmp_path, {"snippets/q/nested.py": """
        x = 3
        print(
            x + 7,
            [print(x - 1) for _ in range(1)],
        )
        print("y" * 2500 + "END", 1)
        """})
    results = run_all(tmp_path)

    def shown(expression: str) -> str:
        quote = Quote(1, 0, 0, "nested", expression, None, "code", "snippets/q/nested.py")
        return quoted.value(quote, results).text

    assert (shown("x + 7"), shown("x - 1")) == ("10", "2")
    with pytest.raises(quoted.QuoteError, match="more than 2,000 characters"):
        shown("'y' * 2500 + 'END'")


def test_a_wrong_quote_on_a_page_converted_after_the_first_fails_too(repo):
    """The build is checked once, at the first page; each later page's quotes are checked with it."""
    good, bad = PAGE, PAGE.replace("{{ square: x.grad }}", "{{ square: x.gard }}")
    with on_disk(repo, "a.md", good), on_disk(repo, "b.md", bad):
        assert "The gradient is 4" in convert(repo, good)
        with pytest.raises(builds.BuildError) as failed:
            convert(repo, bad)
    assert [str(p).split(",")[0] for p in failed.value.problems] == ["docs/b.md:3: quotes {{ square: x.gard }}"]


def test_a_heading_cannot_quote_and_a_comment_is_not_read(repo):
    page = parse_page('# Q\n\n```python\n--8<-- "q/square.py"\n```\n\n### Step {{ square: x.grad }}\n\n'
                      "<!-- {{ not read }} --> and {{ square: x.grad | number }}\n",
                      "docs/q.md", str(repo), ["snippets"], "snippets")
    assert [str(p).split(":")[:3] for p in page.problems] == [["docs/q.md", "7", " a heading cannot quote a value"]]
    assert [q.line for q in page.quotes] == [9]


def test_a_value_stays_one_value_in_the_notebooks_markdown():
    from docexec.pages.quoted import Value, markdown

    assert markdown(Value("a|b", code=True), in_table=True) == "`a\\|b`"
    assert markdown(Value("a`b", code=True)) == "``a`b``"
    assert markdown(Value("&lt; *x* #1", code=False)) == "&amp;lt; \\*x\\* \\#1"


def test_a_build_says_which_quoted_value_changed_since_the_last(repo, capfd):
    with on_disk(repo, "q.md", PAGE):
        convert(repo, PAGE)
    capfd.readouterr()
    write_snippets(repo, {"snippets/q/square.py": SQUARE.format(x="2.0", grad=4).replace("y = x * x", "y = x * x * x")
                          .replace("tensor(4.)", "tensor(12.)")})
    try:
        synced(repo)
        with on_disk(repo, "q.md", PAGE):
            convert(repo, PAGE)
        said = capfd.readouterr().err
        assert "docexec: a quoted value changed: docs/q.md: {{ square: x.grad | number }} was '4', is '12'" in said
        assert "square: y.grad_fn | name" not in said  # MulBackward0 both times
    finally:
        write_snippets(repo, {"snippets/q/square.py": SQUARE.format(x="2.0", grad=4)})
        synced(repo)


def test_the_drift_record_lists_a_quoted_value_another_version_shows_differently(repo):
    from docexec.pages import quoted
    from docexec.pages.drift_page import page_markdown
    from docexec.tasks.drift_report import report
    from docexec.versions.drift import Record, dumps, loads

    page = parse_page(PAGE, "docs/q.md", str(repo), ["snippets"], "snippets")
    main = run_all(repo)
    write_snippets(repo, {"snippets/q/square.py": SQUARE.format(x="2.0", grad=4).replace("y = x * x", "y = x * x * x")})
    try:
        side = run_all(repo)  # stands for the other PyTorch's runs
    finally:
        write_snippets(repo, {"snippets/q/square.py": SQUARE.format(x="2.0", grad=4)})
    record = Record("9.9.9", "2.13", "3.11", 2, {}, {}, quoted.prose_changes([page], main, side))
    assert [(c.quote, c.before, c.after) for c in record.prose] == [
        ("{{ square: x.grad | number }}", "4", "12"), ("{{ square: x.grad | code }}", "tensor(4.)", "tensor(12.)")]
    assert loads(dumps(record)) == record
    assert "docs/q.md: {{ square: x.grad | number }} shows '4' on 2.13; on 9.9.9 it shows '12'" in report(record)
    shown = page_markdown(record, [("q.md", page)])
    assert "- `{{ square: x.grad | number }}`: `4` here, `12` on PyTorch 9.9.9" in shown
    edited = parse_page(PAGE.replace("{{ square: x.grad | number }}", "four"), "docs/q.md", str(repo), ["snippets"],
                        "snippets")
    shown = page_markdown(record, [("q.md", edited)])  # a quote taken out since the record was made
    assert "x.grad | number" not in shown and "| values quoted in the prose that would change | 1 |" in shown


def test_a_print_that_dynamo_traces_writes_no_warning_about_the_recording(tmp_path):
    """The print that records arguments prints first, as Python's does: Dynamo stops at it quietly
    (it warned about ``sys._getframe`` when the recording came first)."""
    write_snippets(tmp_path, {"snippets/q/compiled.py": """
        import torch


        def f(x):
            print("inside", 1)
            return x * 2


        print(torch.compile(f, backend="eager")(torch.ones(2)))
        """})
    result = run_all(tmp_path).runs["snippets/q/compiled.py"]
    assert result.ok and "inside 1" in result.output
    assert "_getframe" not in result.output and "Dynamo" not in result.output, result.output


def test_with_execution_switched_off_a_quote_shows_its_expression(repo):
    import dataclasses

    from docexec.pages import quoted

    page = parse_page(PAGE, "docs/q.md", str(repo), ["snippets"], "snippets")
    off = dataclasses.replace(run_all(repo), execute=False)  # as DOCEXEC_EXECUTE=0 gives
    assert quoted.problems(page, off) == []
    assert quoted.html(quoted.value(page.quotes[0], off)) == "<code>x.grad</code>"


def test_a_literal_note_is_for_authors_only(repo):
    page = PAGE.replace("The second step", "The 4 here stays. <!-- literal: a reason --> The second step")
    with on_disk(repo, "q.md", page):
        html = convert(repo, page)
    assert "The 4 here stays. The second step" in html.replace("\n", " ") and "literal:" not in html
    record = parse_page(page, "docs/q.md", str(repo), ["snippets"], "snippets")
    notebook = chapter_notebook(record, synced(repo), builds.Build(builds.runner_for(repo)).drawings)
    assert "literal:" not in "".join("".join(cell["source"]) for cell in notebook["cells"])


def test_a_negative_number_is_set_with_a_minus_sign(repo):
    from docexec.pages import quoted
    from docexec.source.quotes import Quote

    source = "import torch\nx = torch.tensor(-1.5)\nprint(x)  # tensor(-1.5000)\n"
    write_snippets(repo, {"snippets/q/negative.py": source})
    try:
        results = run_all(repo)
        shown = quoted.value(Quote(1, 0, 0, "negative", "x", None, "number", "snippets/q/negative.py"), results)
        assert shown == quoted.Value("\u22121.5000", code=False)
    finally:
        (repo / "snippets/q/negative.py").unlink()


def test_make_check_fails_on_a_printed_value_typed_by_hand(repo, capsys, monkeypatch):
    from docexec.cli import main

    page = PAGE + "\nThe run printed 4 here.\n"
    (repo / "mkdocs.yml").write_text("markdown_extensions:\n  - pymdownx.snippets:\n      base_path: [snippets]\n")
    monkeypatch.chdir(repo)  # as MkDocs and pymdownx read base_path: from the working folder
    try:
        with on_disk(repo, "q.md", page):
            status = main(["check", "--root", str(repo)])
    finally:
        (repo / "mkdocs.yml").unlink()
    out = capsys.readouterr().out
    assert status == 1 and "docs/q.md:11: writes 4 by hand" in out, out


def test_round_two_of_hostile_quotes(repo):
    """Found by a second adversarial review: each fails or shows as it should."""
    from docexec.pages import quoted
    from docexec.source.quotes import Quote, without_literal_notes

    write_snippets(repo, {"snippets/q/odd.py": """
        import torch
        y = torch.tensor(2.0, requires_grad=True) * 3
        z = y + 1
        print(torch.tensor(2 + 4j))  # tensor(2.+4.j)
        print(f"{y!r} from {z.grad_fn.name()}")
        #> tensor(6., grad_fn=<MulBackward0>) from AddBackward0
        """})
    try:
        results = run_all(repo)

        def shown(expression, form):
            return quoted.value(Quote(1, 0, 0, "odd", expression, None, form, "snippets/q/odd.py"), results)

        with pytest.raises(quoted.QuoteError, match="complex"):
            shown("torch.tensor(2 + 4j)", "number")
        with pytest.raises(quoted.QuoteError, match="one Node name"):
            shown("f'{y!r} from {z.grad_fn.name()}'", "name")
    finally:
        (repo / "snippets/q/odd.py").unlink()
    head = '# Q\n\n```python\n--8<-- "q/square.py"\n```\n\n'
    setext = parse_page(head + "Value {{ square: x.grad }}\n---\n", "docs/q.md", str(repo), ["snippets"], "snippets")
    assert [p.line for p in setext.problems] == [7] and "heading" in setext.problems[0].message
    hidden = parse_page(head + "<!--\n{{ square: not_printed }}\n-->\n", "docs/q.md", str(repo), ["snippets"],
                        "snippets")
    assert hidden.quotes == [] and hidden.problems == []
    assert without_literal_notes("6 <!-- literal: a > b -->") == "6"


def test_a_note_alone_on_its_line_does_not_split_a_paragraph_and_a_number_opening_a_line_stays_text(repo):
    page = PAGE.replace("{{ square: y.grad_fn | name }}. The second step",
                        "{{ square: y.grad_fn | name }}.\n<!-- literal: a reason -->\n"
                        "{{ square: x.grad | number }}. The second step")
    with on_disk(repo, "q.md", page):
        html = convert(repo, page)
    paragraph = html[html.index("<p>The gradient is 4"):]
    assert "<code>MulBackward0</code>.\n4. The second step" in paragraph[:paragraph.index("</p>")]
    record = parse_page(page, "docs/q.md", str(repo), ["snippets"], "snippets")
    notebook = chapter_notebook(record, synced(repo), builds.Build(builds.runner_for(repo)).drawings)
    prose = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")
    assert "\n4\\. The second step" in prose and "literal" not in prose


def test_the_kept_values_forget_a_quote_taken_out_of_its_page(tmp_path):
    from docexec.pages import quoted

    assert quoted.changed_since_last_build(tmp_path, ["docs/a.md"], {"docs/a.md: {{ e: x | code }}": "1"}) == []
    assert quoted.changed_since_last_build(tmp_path, ["docs/a.md"], {}) == []  # the quote went
    assert quoted.changed_since_last_build(tmp_path, ["docs/a.md"], {"docs/a.md: {{ e: x | code }}": "2"}) == []
