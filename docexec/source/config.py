"""The site's configuration as docexec reads it: ``mkdocs.yml``, the folders pages include from, and
the address the site is published at."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

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


def published(site_url: str) -> str:
    """``site_url`` ending in ``/`` if it is where the site is published, or "" for none or a
    local address (``mkdocs.yml``'s default, ``mkdocs serve``'s): a downloaded notebook must not
    link to a server that ran on the machine it was made on."""
    host = urlsplit(site_url).hostname or ""
    local = host in ("localhost", "0.0.0.0", "::1") or host.startswith("127.")
    return "" if local or not host else site_url.rstrip("/") + "/"
