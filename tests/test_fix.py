"""`make fix` (python -m docexec fix): rewrites stale claims, prints changes, never breaks a file."""

from __future__ import annotations

import io

from docexec.cli import fix
from docexec.session import Session

from .conftest import write_snippets


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
    assert fix(Session(tmp_path), ["snippets/c/stale.py"], out) == 0
    text = (tmp_path / "snippets/c/stale.py").read_text()
    assert "print(y)  # tensor(6., grad_fn=<MulBackward0>) -> the note is kept\n" in text
    assert "print(y.grad_fn)  # <MulBackward0 object at 0x…>\n" in text
    assert "print(x.is_leaf)  # True\n" in text
    assert out.getvalue().splitlines() == [
        "snippets/c/stale.py:4: tensor(5., grad_fn=<AddBackward0>)  =>  tensor(6., grad_fn=<MulBackward0>)",
        "snippets/c/stale.py:5: (no claim)  =>  <MulBackward0 object at 0x…>",
    ]
    again = io.StringIO()
    assert fix(Session(tmp_path), ["snippets/c/stale.py"], again) == 0
    assert again.getvalue() == "" and (tmp_path / "snippets/c/stale.py").read_text() == text


def test_fix_never_writes_a_snippet_that_does_not_parse_or_fails(tmp_path):
    write_snippets(tmp_path, {
        "snippets/c/broken.py": "print(1)  # 2\nprint(\n",
        "snippets/c/raises.py": "print(1)  # 2\nraise SystemExit(4)\n",
    })
    before = {p: (tmp_path / p).read_bytes() for p in ("snippets/c/broken.py", "snippets/c/raises.py")}
    out = io.StringIO()
    assert fix(Session(tmp_path), list(before), out) == 2
    assert {p: (tmp_path / p).read_bytes() for p in before} == before
    report = out.getvalue()
    assert "snippets/c/broken.py:2: " in report and "(claims not rewritten" in report
    assert "snippets/c/raises.py:2: the snippet called sys.exit(4)" in report
