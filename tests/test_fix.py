"""`make fix` (python -m docexec fix): rewrites stale claims, prints changes, never breaks a file."""

from __future__ import annotations

import io

from docexec.tasks.fix import fix

from .conftest import run_all, shared_runner, write_snippets


def fixed(root, paths: list[str], out) -> int:
    """``fix`` of ``paths`` under ``root`` on the test process's shared worker."""
    with shared_runner(root) as runner:
        return fix(runner, paths, out)


def test_fix_rewrites_reports_and_is_idempotent(tmp_path):
    write_snippets(tmp_path, {
        "snippets/c/stale.py": """
            import torch
            x = torch.tensor(3.0, requires_grad=True)
            y = x * 2
            print(y)  # tensor(5., grad_fn=<AddBackward0>) -> the note is kept
            print(y.grad_fn)
            print(x.is_leaf)  # True
            """,
    })
    out = io.StringIO()
    assert fixed(tmp_path, ["snippets/c/stale.py"], out) == 0
    text = (tmp_path / "snippets/c/stale.py").read_text()
    assert "print(y)  # tensor(6., grad_fn=<MulBackward0>) -> the note is kept\n" in text
    assert "print(y.grad_fn)  # <MulBackward0 object at 0x…>\n" in text
    assert "print(x.is_leaf)  # True\n" in text
    assert out.getvalue().splitlines() == [
        "snippets/c/stale.py:4: tensor(5., grad_fn=<AddBackward0>)  =>  tensor(6., grad_fn=<MulBackward0>)",
        "snippets/c/stale.py:5: (no claim)  =>  <MulBackward0 object at 0x…>",
        "diagrams/c/stale.dot: written",
    ]
    again = io.StringIO()
    assert fixed(tmp_path, ["snippets/c/stale.py"], again) == 0
    assert again.getvalue() == "" and (tmp_path / "snippets/c/stale.py").read_text() == text


def test_fix_never_writes_a_snippet_that_does_not_parse_or_fails(tmp_path):
    write_snippets(tmp_path, {
        "snippets/c/broken.py": "print(1)  # 2\nprint(\n",
        "snippets/c/raises.py": "print(1)  # 2\nraise SystemExit(4)\n",
    })
    before = {p: (tmp_path / p).read_bytes() for p in ("snippets/c/broken.py", "snippets/c/raises.py")}
    out = io.StringIO()
    assert fixed(tmp_path, list(before), out) == 2
    assert {p: (tmp_path / p).read_bytes() for p in before} == before
    report = out.getvalue()
    assert "snippets/c/broken.py:2: " in report and "(claims not rewritten" in report
    assert "snippets/c/raises.py:2: the snippet called sys.exit(4)" in report


def test_fix_writes_updates_and_removes_generated_diagrams(tmp_path):
    snippet = "snippets/c/graph.py"
    write_snippets(tmp_path, {snippet: """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = x * 3
        print(y)  # tensor(6., grad_fn=<MulBackward0>)
        """})
    dot = tmp_path / "diagrams/c/graph.dot"
    out = io.StringIO()
    fixed(tmp_path, [snippet], out)
    assert out.getvalue() == "diagrams/c/graph.dot: written\n"
    text = dot.read_text()
    assert text.startswith("// Generated from snippets/c/graph.py by docexec; do not edit.")
    assert "MulBackward0" in text and "AddBackward0" not in text
    assert not _problems(tmp_path, snippet)

    source = tmp_path / snippet
    source.write_text(source.read_text().replace("y = x * 3", "y = x + 4"))
    problems = [str(p) for p in _problems(tmp_path, snippet)]
    assert problems[0].startswith("snippets/c/graph.py:4: claim does not hold")
    assert problems[1].startswith("diagrams/c/graph.dot: is stale")
    out = io.StringIO()
    fixed(tmp_path, [snippet], out)
    assert out.getvalue().splitlines()[-1] == "diagrams/c/graph.dot: updated" and "AddBackward0" in dot.read_text()

    source.write_text("print(1)  # 1\n")
    out = io.StringIO()
    fixed(tmp_path, [snippet], out)
    assert out.getvalue() == "diagrams/c/graph.dot: removed\n" and not dot.exists()


def _problems(root, snippet):
    return run_all(root, paths=[snippet]).problems()


def test_fix_keeps_crlf_line_endings_and_a_byte_order_mark_runs(tmp_path):
    path = tmp_path / "snippets/c/crlf.py"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"x = 2\r\nprint(x)\r\nprint(x + 1)  # 4\r\n")
    (tmp_path / "snippets/c/bom.py").write_bytes(b"\xef\xbb\xbfprint('bom')  # bom\n")
    out = io.StringIO()
    assert fixed(tmp_path, ["snippets/c/crlf.py", "snippets/c/bom.py"], out) == 0
    assert path.read_bytes() == b"x = 2\r\nprint(x)  # 2\r\nprint(x + 1)  # 3\r\n"
    assert "bom.py" not in out.getvalue()  # ran, and its claim held


def test_fix_keeps_a_byte_order_mark_and_names_output_too_long_for_a_claim_line(tmp_path):
    bom = tmp_path / "snippets/c/bom_stale.py"
    bom.parent.mkdir(parents=True)
    bom.write_bytes(b"\xef\xbb\xbfprint('new')  # old\n")
    wide = tmp_path / "snippets/c/wide.py"
    before = "for width in (60, 100):\n    print('x' * width)\nprint('end')  # end\n"
    wide.write_text(before)
    out = io.StringIO()
    assert fixed(tmp_path, ["snippets/c/bom_stale.py", "snippets/c/wide.py"], out) == 1
    assert bom.read_bytes() == b"\xef\xbb\xbfprint('new')  # new\n"
    assert wide.read_text() == before  # a claim of 100 x would not fit in 80 columns: nothing written
    assert "snippets/c/wide.py:2: it printed a line too long for a '#>' claim line" in out.getvalue()


def test_one_fix_writes_the_colab_notebook_with_the_claims_it_just_rewrote(tmp_path, monkeypatch):
    """The Colab notebook is made from the snippets as the fix left them, not as the run read
    them: a second `make fix` has nothing left to do."""
    write_snippets(tmp_path, {
        "snippets/c/claim.py": "print(1 + 1)  # 3\n",
        "docs/c.md": '# C\n\n```python\n--8<-- "c/claim.py"\n```\n',
        "mkdocs.yml": "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: [snippets]\n",
    })
    monkeypatch.chdir(tmp_path)  # as MkDocs and pymdownx read base_path: from the working folder
    assert fixed(tmp_path, ["snippets/c/claim.py"], io.StringIO()) == 0
    assert "print(1 + 1)  # 2" in (tmp_path / "notebooks/c.ipynb").read_text()
    again = io.StringIO()
    assert fixed(tmp_path, ["snippets/c/claim.py"], again) == 0 and again.getvalue() == ""
