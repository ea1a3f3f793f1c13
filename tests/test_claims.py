"""The claim checker and rewriter: pure text in, problems or new text out."""

from __future__ import annotations

import ast
import textwrap

import pytest

from docexec.core.records import Printed
from docexec.source import claims, rewrite
from docexec.source.snippets import long_lines


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_inline_claim_and_note_are_read():
    (site,) = claims.find_print_sites("print(x)  # True -> a note\n")
    assert (site.claim, site.note, site.expected) == ("True", "a note", ["True"])


def test_comment_without_arrow_is_all_claim():
    (site,) = claims.find_print_sites("print(x)  # tensor([1., 2.])\n")
    assert site.expected == ["tensor([1., 2.])"] and site.note is None


def test_block_claim_lines_and_note_only_comment():
    source = src("""
        for i in range(2):
            print(i)  # -> runs twice
            #> 0
            #> 1
        print("after")  # after
        """)
    first, second = claims.find_print_sites(source)
    assert first.note == "runs twice" and first.claim is None and first.expected == ["0", "1"]
    assert second.expected == ["after"]


def test_multiline_print_call_takes_comment_from_its_last_line():
    source = src("""
        print(
            "a",
            "b",
        )  # a b
        """)
    (site,) = claims.find_print_sites(source)
    assert (site.line, site.end_line, site.expected) == (1, 4, ["a b"])
    assert claims.check("s.py", source, [Printed(2, "a b\n")]) == []


def test_matching_claim_passes_and_mismatch_names_file_and_line():
    source = "x = 1\nprint(x)  # 1\nprint(x + 1)  # 3 -> wrong on purpose\n"
    problems = claims.check("snippets/a/b.py", source, [Printed(2, "1\n"), Printed(3, "2\n")])
    assert [str(p) for p in problems] == [
        "snippets/a/b.py:3: claim does not hold: claimed '3', printed '2' (run `make fix` to update it)"]


def test_ellipsis_matches_any_text():
    assert claims.matches(["tensor(..., grad_fn=<MulBackward0>)"], ["tensor(6., grad_fn=<MulBackward0>)"])
    assert claims.matches(["<MulBackward0 ...>"], ["<MulBackward0 object at 0x7f03b095d810>"])
    assert not claims.matches(["<AddBackward0 ...>"], ["<MulBackward0 object at 0x7f03b095d810>"])


def test_the_numbers_a_run_found_to_be_addresses_are_masked_as_whole_numbers():
    assert claims.mask("at 0x7f03b095d810> 0x7f03b095d8100", ["0x7f03b095d810"]) == "at 0x…> 0x7f03b095d8100"
    assert claims.mask("id 140000000000001, 1400000000000012", ["140000000000001"]) == "id …, 1400000000000012"
    assert claims.matches(["<Foo object at 0x…>"], [claims.mask("<Foo object at 0x55d1c0ffee12>", ["0x55d1c0ffee12"])])
    assert not claims.matches(["<Foo object at 0x7f0000000000>"], ["<Foo object at 0x55d1c0ffee12>"])


def test_multiline_and_repeated_prints_are_joined_in_order():
    source = src("""
        for i in range(3):
            print(i)
            #> 0
            #> 1
            #> 2
        print("a\\nb")
        #> a
        #> b
        """)
    every = [Printed(2, "0\n"), Printed(2, "1\n"), Printed(2, "2\n"), Printed(6, "a\nb\n")]
    assert claims.check("s.py", source, every) == []
    problems = claims.check("s.py", source, [Printed(2, "0\n"), Printed(2, "2\n"), Printed(6, "a\nb\n")])
    assert len(problems) == 1 and problems[0].line == 2


def test_missing_claim_and_print_that_never_ran_are_problems():
    source = "if False:\n    print(1)  # 1\nprint(2)\n"
    problems = claims.check("s.py", source, [Printed(3, "2\n")])
    assert [(p.line, "never ran" in p.message, "no output claim" in p.message) for p in problems] == [
        (2, True, False), (3, False, True)]


def test_syntax_error_is_reported_with_its_line():
    (problem,) = claims.check("s.py", "print(1)  # 1\nprint(\n", [])
    assert problem.line == 2 and "does not parse" in problem.message


def test_two_prints_on_one_line_are_refused():
    with pytest.raises(claims.ClaimSyntaxError, match="two print calls"):
        claims.find_print_sites("print(1); print(2)  # 1\n")


def test_rewrite_updates_stale_claims_keeps_notes_and_matching_claims():
    source = src("""
        print(a)  # 1 -> the note stays
        print(b)  # <X ...> -> a pattern that still holds stays as written
        print(c)
        """)
    prints = [Printed(1, "2\n"), Printed(2, "<X object at 0x7f03b095d810>\n"), Printed(3, "3\n")]
    new, changes = rewrite.rewrite(source, prints)
    assert new == src("""
        print(a)  # 2 -> the note stays
        print(b)  # <X ...> -> a pattern that still holds stays as written
        print(c)  # 3
        """)
    assert [(c.line, c.before, c.after) for c in changes] == [(1, ["1"], ["2"]), (3, None, ["3"])]
    assert rewrite.rewrite(new, prints) == (new, [])  # a second run changes nothing


def test_rewrite_moves_multiline_output_to_block_lines_and_back():
    source = src("""
        def show():
            print(t)  # wrong -> a note
        show()
        """)
    new, _ = rewrite.rewrite(source, [Printed(2, "line one\n  line two\n")])
    assert new == src("""
        def show():
            print(t)  # -> a note
            #> line one
            #>   line two
        show()
        """)
    prints = rewrite.remap_prints(source, new, [Printed(2, "line one\n  line two\n")])
    assert claims.check("s.py", new, prints) == []
    newer, _ = rewrite.rewrite(new, [Printed(2, "single\n")])
    assert newer == src("""
        def show():
            print(t)  # single -> a note
        show()
        """)


def test_rewrite_uses_block_form_for_text_containing_an_arrow():
    new, _ = rewrite.rewrite("print(s)\n", [Printed(1, "a -> b\n")])
    assert new == "print(s)\n#> a -> b\n"
    assert claims.check("s.py", new, [Printed(1, "a -> b\n")]) == []


def test_rewrite_keeps_lines_within_the_limit_by_moving_a_long_claim_below():
    long = "x" * 60
    new, _ = rewrite.rewrite("print(value)  # old -> a note\n", [Printed(1, long + "\n")])
    assert new == f"print(value)  # -> a note\n#> {long}\n"
    assert long_lines("s.py", new) == [] and claims.check("s.py", new, [Printed(1, long + "\n")]) == []
    short, _ = rewrite.rewrite(new, [Printed(1, "short\n")])
    assert short == "print(value)  # short -> a note\n"


def test_a_line_over_the_limit_is_a_problem_with_file_and_line():
    source = "x = 1\n" + "y = " + "1 + " * 20 + "1\n"
    problems = long_lines("snippets/ch/x.py", source)
    assert [str(p) for p in problems] == [
        "snippets/ch/x.py:2: line is 85 characters; the limit is 80, so that the line shows whole in a page's "
        "code block: break the code, move the claim into '#>' lines below the print, or put the note on a "
        "comment line above it"]
    assert long_lines("snippets/ch/x.py", "z = 1  # " + "n" * 71 + "\n") == []  # exactly 80 is fine
    option = "# docexec: draw=" + "+".join(f"model.layer{n}.weight" for n in range(6))  # not shown on the page
    assert len(option) > 80 and long_lines("snippets/ch/x.py", option + "\nx = 1\n") == []
    assert len(long_lines("snippets/ch/x.py", "   " + option + "\n")) == 1  # indented: code, shown


def test_rewrite_refuses_a_source_that_does_not_parse():
    with pytest.raises(claims.ClaimSyntaxError):
        rewrite.rewrite("print(1\n", [])


def test_line_numbers_follow_pythons_own_line_breaks():
    # A form feed is whitespace to Python, not a line break; str.splitlines would count it as one.
    source = 'x = 1\n\x0c\nprint("a\\nb")\n#> a\n#> b\n'
    assert claims.check("s.py", source, [Printed(3, "a\nb\n")]) == []
    assert claims.split_lines("a\x0cb\u2028c\r\nd\re\n") == ["a\x0cb\u2028c", "d", "e"]


@pytest.mark.parametrize("printed", ["a\rb", "x\rimport os", "x\u2028y", "tab\there", "form\x0cfeed"])
def test_rewrite_never_turns_output_into_code(printed):
    source = "print(value)\n"
    new, _ = rewrite.rewrite(source, [Printed(1, printed + "\n")])
    assert ast.dump(ast.parse(new)) == ast.dump(ast.parse(source))
    assert claims.check("s.py", new, rewrite.remap_prints(source, new, [Printed(1, printed + "\n")])) == []


def test_true_is_not_accepted_for_one():
    assert not claims.matches(["1"], ["True"]) and not claims.matches(["0"], ["False"])


def test_numbers_that_were_not_addresses_are_claimed_as_printed():
    assert claims.mask("0xffffff <A object at 0x7f03b095d810>", ["0x7f03b095d810"]) == "0xffffff <A object at 0x…>"
    assert not claims.matches(["0xfffffe"], ["0xffffff"]) and not claims.matches(["offset 0x20"], ["offset 0x10"])


def test_inline_claim_beside_block_lines_is_a_problem_and_fix_keeps_the_block():
    source = "print(1)  # 999\n#> 1\n"
    (problem,) = claims.check("s.py", source, [Printed(1, "1\n")])
    assert "both an inline claim and '#>' lines" in problem.message
    new, _ = rewrite.rewrite(source, [Printed(1, "1\n")])
    assert new == "print(1)\n#> 1\n"


def test_claim_lines_not_below_a_print_are_problems_and_fix_removes_them():
    source = "print(1)\n\n#> 2\n"
    problems = claims.check("s.py", source, [Printed(1, "1\n")])
    assert [(p.line, "not right below a print" in p.message) for p in problems] == [(3, True), (1, False)]
    new, _ = rewrite.rewrite(source, [Printed(1, "1\n")])
    assert new == "print(1)  # 1\n\n"


def test_print_under_another_name_is_a_problem():
    source = "p = print\np('x')\n"
    (problem,) = claims.check("s.py", source, [Printed(2, "x\n")])
    assert problem.line == 2 and "under another name" in problem.message


def test_a_print_inside_another_prints_arguments_belongs_to_the_outer_call():
    source = src("""
        print(print("inner"),
              [print(i) for i in range(2)])  # None [None, None]
        print("alone")  # alone
        """)
    sites = claims.find_print_sites(source)
    assert [(s.line, s.end_line, s.claim) for s in sites] == [(1, 2, "None [None, None]"), (3, 3, "alone")]


def test_an_exercise_hides_each_claim_and_keeps_the_code():
    source = ('x = 2\nprint(x)  # 2\nprint("a\\nb")\n#> a\n#> b\nprint(x,\n      x)  # 2 2\n'
              'print("free")\n')
    assert claims.hidden(source) == ('x = 2\nprint(x)  # ?\nprint("a\\nb")  # ?\nprint(x,\n      x)  # ?\n'
                                     'print("free")\n')
    assert claims.hidden("print(") == "print("  # does not parse: left for the run to report


def test_a_line_of_code_keeps_its_place_when_fix_adds_claim_lines_above_it():
    """``remap_lines`` (how ``make fix`` places a line that wrote output no print made, after it
    rewrote claims): two '#>' lines added above move it down by two; a line above them stays."""
    source = 'exec("print(1)")\nprint("a\\nb")\nexec("print(2)")\nprint("c")\n'
    new, _ = rewrite.rewrite(source, [Printed(2, "a\nb\n"), Printed(4, "c\n")])
    assert new.splitlines()[4] == 'exec("print(2)")'
    assert rewrite.remap_lines(source, new, [1, 3]) == [1, 5]
