"""The records of a run and their one codec: what the worker writes and the cache stores reads back the same."""

from __future__ import annotations

import json

import pytest

from docexec.core.problems import Problem
from docexec.core.records import (
    STDERR,
    Chunk,
    Failure,
    Graph,
    Printed,
    Reads,
    RunResult,
    decode,
    encode,
    event_of,
    from_report,
    record_of,
)


def full_result() -> RunResult:
    """A result with every field set to something other than its default."""
    return RunResult(
        "snippets/a/b.py", Failure("ValueError", "bad", 3, "Traceback ..."),
        chunks=[Chunk(1, "one\n"), Chunk(2, "warn\n", STDERR)], prints=[Printed(1, "one\n")], raw="C\n",
        versions={"torch": "2.13.0"}, seconds=0.5, own_seconds=0.25, graph=Graph("digraph {}", "alt", "<b>c</b>"),
        dropped=7, reads=Reads(("snippets/a/_h.py",), ("snippets/a/_m.py",), ("snippets/a",), {"/x.py": [1, 2]}),
        addresses=["0x7f00"], cached=True, claim_problems=[Problem("snippets/a/b.py", 1, "no")])


def test_a_result_reads_back_as_it_was_written_through_json():
    result = full_result()
    back = decode(json.loads(json.dumps(encode(result))))
    assert back == RunResult(**{**vars(result), "cached": False})  # whether it came from a cache is not stored
    assert back.chunks[1].stream == STDERR and back.graph.caption == "<b>c</b>" and not back.ok


def test_chunks_and_prints_are_stored_as_the_worker_writes_them():
    encoded = encode(full_result())
    assert encoded["chunks"] == [{"o": "one\n", "l": 1}, {"o": "warn\n", "l": 2, "s": STDERR}]
    assert encoded["prints"] == [{"p": "one\n", "l": 1}]
    for record in (Chunk(4, "x"), Chunk(5, "y", STDERR), Printed(6, "z")):
        assert record_of(event_of(record)) == record


def test_a_report_becomes_one_record_per_event():
    events = [{"o": "a\n", "l": 1}, {"p": "a\n", "l": 1}, {"graph": {"dot": "digraph {}", "alt": "w", "caption": ""}}]
    end = {"status": "ok", "deps": ["snippets/a/_h.py"], "dropped": 3}
    result = from_report("snippets/a/b.py", events, end, raw="", seconds=1.0)
    assert result.ok and result.chunks == [Chunk(1, "a\n")] and result.prints == [Printed(1, "a\n")]
    assert result.graph == Graph("digraph {}", "w") and result.reads.deps == ("snippets/a/_h.py",)
    assert result.dropped == 3 and result.seconds == 1.0
    died = from_report("snippets/a/b.py", [], None)
    assert not died.ok and died.failure == Failure("")


def test_an_entry_of_another_shape_is_refused():
    encoded = encode(full_result())
    with pytest.raises((KeyError, TypeError, ValueError)):
        decode({**encoded, "chunks": [{"p": "a print where a chunk belongs", "l": 1}]})
    with pytest.raises((KeyError, TypeError, ValueError)):
        decode({**encoded, "graph": {"dot": "d", "colour": "red"}})
