"""Shared helpers: the repository root and throwaway repositories holding given snippets."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The PyTorch the course pins (requirements.txt), so that no test names it: `make upgrade` moves it.
PIN = re.search(r"^torch==(\S+)$", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.M).group(1)


def write_snippets(root: Path, files: dict[str, str]) -> list[str]:
    """Write ``{relative path: source}`` under ``root`` (sources are dedented); return the paths."""
    for rel, source in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return list(files)


def _config() -> dict:
    """mkdocs.yml (its ``!ENV`` tags read as nothing)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)


def snippet_base_paths() -> list[str]:
    """The folders pages include files from (``pymdownx.snippets``' ``base_path`` in mkdocs.yml)."""
    from docexec.source.config import include_paths

    return include_paths(ROOT)


def markdown_extensions(skip: tuple[str, ...] = ()) -> tuple[list[str], dict[str, dict]]:
    """The Markdown extensions of mkdocs.yml but those in ``skip``: their names, and their options."""
    names, configs = [], {}
    for entry in _config()["markdown_extensions"]:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        if name not in skip:
            names.append(name)
            if options:
                configs[name] = options
    return names, configs


@pytest.fixture
def site_copy(tmp_path: Path) -> Path:
    """A copy of everything a site build reads (config, pages, snippets, hooks) in a temp folder."""
    for name in ("mkdocs.yml",):
        shutil.copy2(ROOT / name, tmp_path / name)
    for name in ("docs", "snippets", "hooks", "diagrams", "docexec", "includes"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def run_all(root: Path, folder: str = "snippets", paths: list[str] | None = None, **options):
    """Run ``paths`` (default: every snippet under ``folder``) with a new ``Runner`` and return the
    complete ``Results``."""
    from docexec.run.runner import Runner

    runner = Runner(root, folder, **options)
    runner.start(paths)
    return runner.wait()
