"""Build-time benchmark (`make bench`): the project against markdown-exec and plain Material (BASE).

Every figure is a whole command in a fresh process (a `mkdocs build`, or a file written under a
running `mkdocs serve` until its reload), run in temporary copies of the site: nothing here
touches the repository but the side environment under ``.cache/bench/``. Three sites are made from
the project's pages, with the same pages, examples and theme:

* project: the site as it is (the docexec hook and Markdown extension, mkdocs-jupyter), built with
  ``--strict`` as ``make build`` does;
* BASE: plain Material building the same pages with the code shown, not executed: a generated
  mkdocs.yml without the docexec hook, the docexec Markdown extension and mkdocs-jupyter
  (pymdownx.snippets still includes the files); it has no cache, so every build is the same;
* markdown-exec 1.12.6: the same config with the ``markdown-exec`` plugin, and every fence that
  includes an example opened as ``python exec="on" source="above" result="text"``, so that the
  included source is run in the MkDocs process and its printed output shown under it. It has no
  cache either: each build runs every example. It needs only markupsafe and pymdown-extensions,
  which the project has; it is installed, pinned, in a side environment (``.cache/bench/markdown-
  exec``, made by ``python -m venv --without-pip`` whose ``.pth`` file adds the project's
  site-packages), never into the project's .venv.

The same is done with a 10x site (``--skip-scaling`` leaves it out): each chapter page holds its
text ten times, each copy including copies of its examples (``scaled_copy``).

The builds are made in rounds (``--repeat``, 3 by default). A round makes every kind of build of
every site, one right after the other, and every ratio is computed within its round; the figure
printed is the median over the rounds, with each round's value beside it. The machine is shared
and its speed can change by a third from one minute to the next: within a round both sides of a
ratio see about the same machine. Every other round runs the sides in the opposite order, and the
warm builds are made in groups of four, project BASE BASE project (``--warm-groups``), each
side's figure being its mean, so that a steady drift does not favour one side.

A round, for each site size:

* cold: the project with empty caches (``.cache/`` removed), markdown-exec's build, BASE's build;
  at 1x the same again with each build limited to the first CPU;
* warm: the project with nothing changed, against BASE;
* example edit: a line ``print("bench edit N")  # bench edit N`` appended to the first example
  of the first chapter, then the project rebuilt; prose edit: a sentence appended to that
  chapter's page, then the project rebuilt;
* recording (1x site only, ``--skip-recording`` leaves it out): every example that asks for a
  teaching figure run with and without its recording (``tools/recording_cost.py``); and what a
  print costs under the engine against ``python -u`` (``tools/printing_cost.py``);
* serve (1x site only, ``--skip-serve`` leaves it out): each site under ``mkdocs serve``; the
  same edits (``--serve-edits`` of each per side, their mean), each timed from the file write to
  the reload: MkDocs' livereload endpoint ``/livereload/<epoch>/<id>`` answers once a build newer
  than the page's epoch is visible; the page is then fetched and must show the edit (else the
  next reload is waited for). The prose edit is not timed for markdown-exec (no target uses it).

Peak memory: every build is waited for with ``os.wait4``, whose ``ru_maxrss`` is the largest
resident set any process of the build's tree reached (MkDocs, the project's worker, each example's
process), as ``getrusage(RUSAGE_CHILDREN)`` or ``/usr/bin/time -v`` report it.

Targets: a cold build at most 1.0 x markdown-exec's CPU seconds (the whole process tree) and at
most 0.75 x its wall-clock time (1x and 10x); a cold build limited to one CPU (``taskset -c 0``,
1x, ``--skip-one-core`` leaves it out) at most 1.0 x markdown-exec's on one CPU; warm <= 0.8 x
BASE (1x) and <= 0.7 x BASE (10x); an example edited under serve reloaded at most 1.0 s after the
write, a prose edit at most 0.8 x BASE's; peak memory of a cold build at the largest size at most
316 MiB; recording a teaching figure <= 5 ms per example that asks for one; a print at most 3 x
``python -u``'s.

Parts: ``bench_sites.py`` (timed builds, the three sites, markdown-exec's side environment, the
edits), ``bench_serve.py`` (edits timed under ``mkdocs serve``), ``bench_report.py`` (the rounds'
figures and the table); this file runs the rounds.

Usage: python tools/bench.py [--repeat N] [--warm-groups N] [--serve-edits N] [--skip-scaling] [--skip-serve]
                             [--skip-one-core] [--skip-recording]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_report import (
    Round,
    evaluate,
    machine,
    measures,
    print_cpu,
    print_memory,
    print_printing,
    print_recording,
    print_round,
    print_table,
)
from bench_serve import Served
from bench_sites import (
    MARKDOWN_EXEC,
    ROOT,
    Run,
    Sites,
    copy_site,
    edit_example,
    edit_prose,
    make_sites,
    markdown_exec_python,
    run,
    scaled_copy,
)
from printing_cost import printing_cost
from recording_cost import recording_cost

MARKDOWN_EXEC_FAILED = "Execution of python code block exited with errors"
SCALE = 10


# ---------------------------------------------------------------------------------------------
# Rounds: the builds of one round, timed


def cold_builds(sites: Sites, rnd: Round, one_core: bool = False) -> None:
    """The project with empty caches, markdown-exec and BASE, one after the other; with
    ``one_core``, each limited to the first CPU (as under ``taskset -c 0``)."""
    for side in rnd.ordered([sites.project, sites.mdexec, sites.base]):
        if side is sites.project:
            side.clear_caches()
        result = side.build(one_core)
        kind = "one core" if one_core else "cold" if side is sites.project else "build"
        rnd.record(f"{sites.label} {side.name} {kind}", [result])
        failed = result.log.count(MARKDOWN_EXEC_FAILED)
        if side is sites.mdexec and failed:
            rnd.notes.append(f"{sites.label} markdown-exec: {failed} of {sites.examples} blocks failed in-process")


def warm_builds(sites: Sites, rnd: Round, groups: int) -> None:
    """Groups of four builds, project BASE BASE project (the other way round every other round);
    each side's figure is its mean."""
    results: dict[str, list[Run]] = {"project": [], "BASE": []}
    for _ in range(groups):
        for side in rnd.ordered([sites.project, sites.base, sites.base, sites.project]):
            results[side.name].append(side.build())
    for name, runs in results.items():
        rnd.record(f"{sites.label} {name} warm", runs)


def edit_builds(sites: Sites, rnd: Round) -> None:
    """The project rebuilt after an example edit, then after a prose edit."""
    for kind, edit in (("example edit", edit_example), ("prose edit", edit_prose)):
        edit(sites.project.folder, sites)
        rnd.record(f"{sites.label} project {kind}", [sites.project.build()])


def build_round(sites: Sites, rnd: Round, warm_groups: int, one_core: bool) -> None:
    """Every build of one size's sites for one round."""
    cold_builds(sites, rnd)
    if sites.label == "1x" and one_core:
        cold_builds(sites, rnd, one_core=True)
    warm_builds(sites, rnd, warm_groups)
    edit_builds(sites, rnd)


def serve_round(sites: Sites, rnd: Round, edits: int) -> None:
    """Each site under `mkdocs serve`: ``edits`` example edits, then (not for markdown-exec)
    ``edits`` prose edits, each timed to its reload; each figure is the mean."""
    for side in rnd.ordered([sites.project, sites.mdexec, sites.base]):
        kinds = [("example", edit_example)] + ([("prose", edit_prose)] if side is not sites.mdexec else [])
        with Served(side, sites) as server:
            for kind, edit in kinds:
                times = [server.time_edit(edit) for _ in range(edits)]
                rnd.seconds[f"serve {side.name} {kind}"] = statistics.fmean(times)


def torch_import(rnd: Round) -> None:
    """Seconds of ``python -c "import torch"``, for the record."""
    rnd.seconds["import torch"] = run([sys.executable, "-c", "import torch"], ROOT, Path(os.devnull)).seconds


# ---------------------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (the median over them is reported)")
    parser.add_argument("--warm-groups", type=int, default=2,
                        help="groups of four warm builds (project BASE BASE project) per round and size")
    parser.add_argument("--serve-edits", type=int, default=2, help="edits of each kind per side under serve")
    parser.add_argument("--skip-scaling", action="store_true", help="leave out the 10x site")
    parser.add_argument("--skip-one-core", action="store_true",
                        help="leave out the cold builds limited to one CPU (1x site)")
    parser.add_argument("--skip-serve", action="store_true", help="leave out the timings under mkdocs serve")
    parser.add_argument("--skip-recording", action="store_true", help="leave out what recording a figure costs")
    parser.add_argument("--keep", action="store_true", help="keep the sites and the last logs (printed folder)")
    return parser.parse_args()


@contextmanager
def workspace(keep: bool) -> Iterator[Path]:
    """A temporary folder for the sites and their logs, removed at the end unless ``keep``."""
    temp = Path(tempfile.mkdtemp(prefix="docexec-bench-"))
    try:
        yield temp
    finally:
        if keep:
            print(f"sites and logs kept in {temp}")
        else:
            shutil.rmtree(temp, ignore_errors=True)


def prepare(temp: Path, scaling: bool) -> list[Sites]:
    """The 1x sites, and the 10x ones unless ``scaling`` is off."""
    python = markdown_exec_python()
    print(f"{MARKDOWN_EXEC[0]} {MARKDOWN_EXEC[1]}: {python} (side environment, sees the project's packages)")
    copy_site(temp / "site")
    sizes = [make_sites(temp / "site", "1x", python)]
    if scaling:
        print(f"making the {SCALE}x site (its DOT files with `docexec fix`: every example runs once)...", flush=True)
        scaled_copy(temp / "site", temp / "big", SCALE)
        sizes.append(make_sites(temp / "big", f"{SCALE}x", python))
    for sites in sizes:
        print(f"{sites.label}: {sites.examples} examples; edits go to {sites.example} and {sites.page}")
    return sizes


def main() -> None:
    """Run the rounds and print the table."""
    args = arguments()
    print(machine())
    rounds = []
    with workspace(args.keep) as temp:
        sizes = prepare(temp, not args.skip_scaling)
        for number in range(args.repeat):
            rnd = Round(number)
            torch_import(rnd)
            for sites in sizes:
                build_round(sites, rnd, args.warm_groups, one_core=not args.skip_one_core)
                if sites.label == "1x" and not args.skip_serve:
                    serve_round(sites, rnd, args.serve_edits)
                if sites.label == "1x" and not args.skip_recording:
                    rnd.recording = recording_cost(sites.project.folder, flip=rnd.flip)
                    rnd.printing = printing_cost(sites.project.folder)
            print_round(rnd)
            rounds.append(rnd)
    rows = [row for m in measures({s.label: s.examples for s in sizes}) if (row := evaluate(m, rounds))]
    print(f"\n{machine()}\nmedians over {len(rounds)} rounds; ratios are each round's, their median shown; "
          f"import torch {statistics.median(r.seconds['import torch'] for r in rounds):.2f} s")
    print_table(rows)
    print_memory(rounds, [s.label for s in sizes])
    print_cpu(rounds)
    print_recording(rounds)
    print_printing(rounds)
    print("markdown-exec has no cache (each of its builds runs every example): its one build per round stands in "
          "every build row; BASE runs nothing: its warm builds stand in the edit rows.")


if __name__ == "__main__":
    main()
