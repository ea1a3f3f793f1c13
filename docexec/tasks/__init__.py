"""The work of ``python -m docexec``'s commands (check, fix, notebooks, drift, upgrade)."""
