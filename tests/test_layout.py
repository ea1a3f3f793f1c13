"""The package reads as the pipeline: each stage folder imports only from the stages below it, no
module imports another that imports it back, and every module is on the package map."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import ROOT

PACKAGE = ROOT / "docexec"
#: The stages, lowest first: a module may import from its own stage and the ones before it.
FLOORS = ["core", "source", "graphs", "run", "versions", "pages", "notebooks", "host", "tasks", "cli"]


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, name: str) -> set[str]:
    """The docexec modules ``path`` imports (anywhere in it, type-checking imports included)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    known = modules()
    return {module for module in found if module in known and module != name}


def floor(module: str) -> int:
    parts = module.split(".")
    stage = parts[1] if len(parts) > 1 else "cli"
    return FLOORS.index(stage) if stage in FLOORS else len(FLOORS)


GRAPH = {name: imports(path, name) for name, path in modules().items()}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_a_module_imports_only_its_own_stage_and_the_stages_below(module):
    if module in ("docexec", "docexec.__main__"):
        return
    upward = sorted(m for m in GRAPH[module] if floor(m) > floor(module))
    assert not upward, f"{module} ({FLOORS[floor(module)] if floor(module) < len(FLOORS) else '?'}) imports {upward}"


def test_no_import_circle():
    state: dict[str, int] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for other in sorted(GRAPH[module]):
            if state.get(other) == 1:
                raise AssertionError(" -> ".join(trail[trail.index(other):] + [module, other]))
            if other not in state:
                visit(other, trail + [module])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [])


def test_the_floor_checker_notices_an_upward_import(tmp_path):
    assert floor("docexec.run.cache") < floor("docexec.pages.render")
    assert floor("docexec.core.files") < floor("docexec.source.claims") < floor("docexec.cli")


def test_every_module_is_on_the_package_map():
    """Each stage folder has its heading (````core````:), each module its line, a module of a package
    listed whole (the worker) its name in that line."""
    import docexec

    paths = modules()
    for module in paths:
        if module == "docexec" or module.endswith("__main__"):
            continue
        parent, _, last = module.rpartition(".")
        if paths[module].name == "__init__.py" and parent == "docexec":
            assert f"``{last}``:" in docexec.__doc__, f"stage {module} has no heading in docexec/__init__.py"
        else:
            assert f"``{module}``" in docexec.__doc__ or (
                f"``{parent}``" in docexec.__doc__ and f"``{last}``" in docexec.__doc__), \
                f"{module} is missing from docexec/__init__.py's map"


def test_the_engine_knows_its_own_folder_from_every_stage():
    """Where docexec lives is said once (``core.files``): the worker's PYTHONPATH, what counts as
    the engine's own frames and files, and the source digest all start from it."""
    import os

    from docexec.core.files import IMPORT_DIR, PACKAGE_DIR
    from docexec.run.worker import pool, reads

    assert PACKAGE_DIR == ROOT / "docexec" and IMPORT_DIR == ROOT
    assert str(ROOT / "docexec") + os.sep == reads._OWN_DIR
    assert pool._ENGINE_FRAME.match(f'  File "{ROOT}/docexec/host/build.py", line 3 in begin')


def test_the_source_digest_covers_every_stage(tmp_path, monkeypatch):
    import shutil

    from docexec.run import cache

    copy = tmp_path / "docexec"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "PACKAGE_DIR", copy)
    before = cache.source_digest.__wrapped__()
    (copy / "graphs" / "teach.py").write_text((copy / "graphs" / "teach.py").read_text() + "\n# edited\n")
    assert cache.source_digest.__wrapped__() != before


#: The most lines a module of the package may have: past it, a module holds more than one job.
MOST_LINES = 400


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_is_over_the_size_limit(name):
    lines = modules()[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MOST_LINES, f"{name}: {lines} lines (at most {MOST_LINES}): split it by job"
