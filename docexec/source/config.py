"""The site's configuration as docexec reads it: ``mkdocs.yml`` and the folders pages include from."""

from __future__ import annotations

import os
from pathlib import Path

from docexec.source.includes import include_folders


def site_config(root: Path) -> dict:
    """``root/mkdocs.yml`` as a dict ({} without one), ``!ENV [NAME, default]`` read as MkDocs
    reads it (the variable's value, else the default); other tags as nothing."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def env(loader, node):
        sequence = isinstance(node, yaml.SequenceNode)
        names = loader.construct_sequence(node) if sequence else [loader.construct_scalar(node)]
        return next((os.environ[name] for name in names[:-1] if name in os.environ), names[-1])

    Loader.add_constructor("!ENV", env)
    Loader.add_multi_constructor("!", lambda *_: None)
    try:
        return yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader) or {}
    except OSError:
        return {}


def include_paths(root: Path) -> list[str]:
    """The folders pages include files from: ``pymdownx.snippets``' ``base_path`` in ``mkdocs.yml``."""
    for entry in site_config(root).get("markdown_extensions", []):
        if isinstance(entry, dict) and "pymdownx.snippets" in entry:
            return include_folders((entry["pymdownx.snippets"] or {}).get("base_path", "."), str(root))
    return include_folders(".", str(root))
