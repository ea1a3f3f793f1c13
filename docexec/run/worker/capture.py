"""What an example writes, captured in its own process: ``sys.stdout`` and ``sys.stderr`` as
recording streams, each piece tagged with the example's line that wrote it, and ``print`` calls of
the example file with their line (what claims check)."""

from __future__ import annotations

import builtins
import codecs
import contextlib
import io
import json
import locale
import os
import sys

from docexec.core.records import MAX_PART
from docexec.run.protocol import MAX_RECORDED, Event
from docexec.source.claims import ADDRESS_LIKE


class Capture:
    """What one snippet process records: its events file, the raw output file read back in order,
    how much output was kept and dropped, and when the snippet's own code ran."""

    def __init__(self, events_fd: int, raw_fd: int):
        self.events_fd = events_fd
        self.raw_fd = raw_fd  # read end of the raw output file
        self.raw_offset = 0
        self.raw_decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character may span two looks
        self.line = 0  # the snippet line of the last Python-level write
        self.kept = 0
        self.dropped = 0
        self.started = 0.0
        self.ended = 0.0
        self.numbers: set[str] = set()  # printed numbers that may be addresses (ADDRESS_LIKE)
        # snippet lines that wrote to stdout other than by a print call of the snippet file (exec'd
        # code, another file's print, sys.stdout.write, os.write, a child process): no claim there
        self.unattributed: set[int] = set()
        # code objects of the frames the snippet's module frame runs in (``child._as_main``): a
        # look for the snippet's line stops at them, not at the bottom of the worker's deep stack
        self.below: set = set()

    def note_numbers(self, text: str) -> None:
        if len(self.numbers) < 100_000:
            self.numbers.update(ADDRESS_LIKE.findall(text))

    def emit(self, event: Event | dict) -> None:
        data = (_encoded(event) + "\n").encode()
        while data:
            data = data[os.write(self.events_fd, data):]

    def drain_raw(self, line: int) -> None:
        """Turn what C code (or ``os.write``) wrote to file descriptors 1 and 2 since the last look
        into an event, so that it keeps its place among the Python-level writes; counted against
        ``MAX_RECORDED`` as they are."""
        size = os.fstat(self.raw_fd).st_size
        if size > self.raw_offset:
            text = self._read_raw(size)
            self.note_numbers(text)
            self.unattributed.add(line)
            self.emit({"o": text, "l": line, "raw_end": self.raw_offset})

    def _read_raw(self, size: int) -> str:
        """The raw output up to byte ``size`` as text, as much as ``MAX_RECORDED`` leaves room for; the
        characters past it are counted in ``dropped``, read a MiB at a time and not kept."""
        kept = []
        while self.raw_offset < size:
            room = MAX_RECORDED - self.kept
            data = os.pread(self.raw_fd, min(size - self.raw_offset, max(room, 1 << 20)), self.raw_offset)
            if not data:
                break
            self.raw_offset += len(data)
            text = self.raw_decoder.decode(data)
            if room > 0:
                kept.append(text[:room])
            self.kept += min(max(room, 0), len(text))
            self.dropped += max(0, len(text) - max(room, 0))
        return "".join(kept)

    def output(self, text: str, line: int, stream: str, printed: dict | None = None) -> None:
        """Record ``text`` written to ``stream`` while snippet line ``line`` ran (up to ``MAX_RECORDED``),
        in one event with the print of the snippet file that wrote it, if one did (``printed``: its
        line ``pl`` and, where it is not the text itself, what it wrote of each argument ``a``)."""
        self.line = line
        self.drain_raw(line)
        room = MAX_RECORDED - self.kept
        if room <= 0:
            self.dropped += len(text)
            if printed is not None:  # its claim is checked all the same
                self.emit({"p": text[:MAX_RECORDED], "l": printed.pop("pl"), **printed})
            return
        self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - room)
        self.note_numbers(text[:room])
        event: Event = {"o": text[:room], "l": line}
        if stream == "stderr":
            event["s"] = "stderr"
        if printed is not None:
            event["p"] = text[:MAX_RECORDED]
            event.update(printed)
        self.emit(event)


class TextCapture(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` of a snippet: a text stream that turns every write into an
    output event, tagged with the snippet line, and otherwise behaves as the stream ``python
    file.py`` gives: its ``repr``, ``buffer`` (bytes written there are decoded as UTF-8 and
    recorded the same way), ``fileno()`` (the file descriptor 1 or 2, which a subprocess can be
    given: what it writes lands in the raw output and keeps its place among the other writes),
    ``encoding`` and ``errors`` (taken from the process's real stream: a lone surrogate raises
    ``UnicodeEncodeError`` on stdout as it does there), ``reconfigure()`` and ``close()`` (a write
    after it raises ``ValueError``)."""

    def __init__(self, capture: Capture, filename: str, name: str):
        self._capture = capture
        self._filename = filename
        self._name = name
        real = sys.__stderr__ if name == "<stderr>" else sys.__stdout__
        self._encoding = getattr(real, "encoding", None) or "utf-8"
        self._errors = getattr(real, "errors", None) or ("backslashreplace" if name == "<stderr>" else "strict")
        self._line_buffering = False
        self._write_through = False
        self._newline = "\n"
        self.buffer = BytesCapture(self)

    def __repr__(self) -> str:  # what print(sys.stdout) shows under `python file.py`
        return f"<_io.TextIOWrapper name={self._name!r} mode='w' encoding={self._encoding!r}>"

    @property
    def name(self) -> str:  # what some libraries print for sys.stdout.name
        return self._name

    @property
    def encoding(self) -> str:
        return self._encoding

    @property
    def errors(self) -> str:
        return self._errors

    @property
    def line_buffering(self) -> bool:
        return self._line_buffering

    @property
    def write_through(self) -> bool:
        return self._write_through

    def reconfigure(self, *, encoding=None, errors=None, newline=None, line_buffering=None,
                    write_through=None) -> None:
        """As ``io.TextIOWrapper.reconfigure``. Every write is recorded as it comes, so buffering
        changes nothing but what ``line_buffering`` and ``write_through`` say; ``newline`` turns
        each ``\\n`` written into it, as the real stream does."""
        self._checkClosed()
        if newline not in (None, "", "\n", "\r", "\r\n"):
            raise ValueError(f"illegal newline value: {newline}")
        if encoding == "locale":  # Python 3.11's name for the locale's encoding
            encoding = locale.getencoding()
        if encoding is not None:
            # LookupError for an unknown encoding or one that is not text (what io.TextIOWrapper checks)
            if not codecs.lookup(encoding)._is_text_encoding:
                raise LookupError(f"{encoding!r} is not a text encoding; use codecs.open() to handle arbitrary codecs")
            self._encoding = encoding
            self._errors = "strict" if errors is None else errors
        elif errors is not None:
            self._errors = errors
        if newline is not None:
            self._newline = newline
        if line_buffering is not None:
            self._line_buffering = bool(line_buffering)
        if write_through is not None:
            self._write_through = bool(write_through)

    def fileno(self) -> int:
        return 2 if self._name == "<stderr>" else 1

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        written = self.put(text)
        if written and self._name == "<stdout>":  # a warning's text on stderr is nobody's claim
            self._capture.unattributed.update((self._capture.line, _innermost_line(self._filename)))
        return len(text)

    def put(self, text: str, printed: dict | None = None) -> str:
        """Write ``text`` as ``write`` does and return it as written (``shown``): what a print records;
        ``printed``: the print of the snippet file that wrote it (``Capture.output``)."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._checkClosed()
        written = self.shown(text) if text else text
        if written:
            self.record(written, printed)
        elif printed is not None:  # print(end=""): nothing written, a print all the same
            self._capture.emit({"p": "", "l": printed.pop("pl"), **printed})
        return written

    def shown(self, text: str) -> str:
        """``text`` as this stream writes it: newlines turned as ``newline`` says, encoded with its
        encoding and errors (raising where the real stream would: a lone surrogate under strict
        errors), read back (``?`` for what ``errors="replace"`` replaced). A print is recorded as
        shown, so that its claim is checked against what the page shows."""
        if self._newline not in ("\n", ""):
            text = text.replace("\n", self._newline)
        encoded = text.encode(self._encoding, self._errors)
        return text if self._errors == "strict" else encoded.decode(self._encoding, "replace")

    def record(self, text: str, printed: dict | None = None) -> None:
        """Record ``text`` as written to this stream while the snippet's current line ran."""
        self._capture.output(text, _module_line(self._filename, self._capture.below),
                             "stderr" if self._name == "<stderr>" else "stdout", printed)

    def flush(self) -> None:
        self._checkClosed()


class BytesCapture(io.BufferedIOBase):
    """The ``buffer`` of a ``TextCapture``: bytes, decoded as UTF-8 as they come (a character split
    over two writes waits for its end), are written to the text stream."""

    def __init__(self, text: TextCapture):
        import codecs

        self._text = text
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._text.fileno()

    @property
    def closed(self) -> bool:  # closed with its text stream, as a real stream's buffer is
        return self._text.closed

    def write(self, data) -> int:
        if self._text.closed:
            raise ValueError("write to closed file")
        data = bytes(data)
        text = self._decoder.decode(data)
        if text:
            self._text.record(text)  # bytes as written: the text stream's encoding does not apply
        return len(data)

    def flush(self) -> None:
        pass


def _encoded(event: dict) -> str:
    """``json.dumps(event)`` for an event of text, numbers and lists of text, without its Python layers
    (about 6 µs an event, two events a print); anything else through ``json.dumps``."""
    parts = []
    for key, value in event.items():
        if isinstance(value, str):
            parts.append(f'"{key}":{_ascii(value)}')
        elif type(value) is int:
            parts.append(f'"{key}":{value}')
        elif type(value) is list and all(type(item) is str for item in value):
            parts.append(f'"{key}":[{",".join(map(_ascii, value))}]')
        else:
            return json.dumps(event)
    return "{" + ",".join(parts) + "}"


#: A string as JSON text, in ASCII (what ``json.dumps`` writes for it, from its C accelerator).
_ascii = json.encoder.encode_basestring_ascii


def _innermost_line(filename: str) -> int:
    """Line of the innermost frame that runs code of ``filename`` (0 if none): inside a function of
    the snippet that writes by another route than print, the line that does (its comment too
    would read as a claim)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename != filename:
        frame = frame.f_back
    return frame.f_lineno if frame is not None else 0


def _module_line(filename: str, below: set) -> int:
    """Line of the outermost frame that runs code of ``filename``: the statement being executed
    (frames of the code objects ``below`` and under them are not looked at)."""
    line = 0
    frame = sys._getframe(2)
    while frame is not None and frame.f_code not in below:
        if frame.f_code.co_filename == filename:
            line = frame.f_lineno
        frame = frame.f_back
    return line


def _write(capture: Capture, target, text: str, printed: dict | None, texts: list[str], sep: str | None,
           end: str | None, original) -> str:
    """Write a print's ``text`` to ``target`` and record it with the print of the snippet file that
    wrote it (``printed``), with what it wrote of each argument (``texts``) unless its one text is
    the text; returns the text as written. A stream of the example's own gets the pieces as
    Python's print (``original``) writes them, one ``write()`` each."""
    if printed is not None and (len(texts) != 1 or end not in ("\n", None)):
        shown = target.shown if isinstance(target, TextCapture) else str
        printed["a"] = [shown(part)[:MAX_PART] for part in texts]
    if isinstance(target, TextCapture):
        return target.put(text, printed)  # as the stream wrote it, encoded once; one event with the print
    original(*texts, sep=sep, end=end, file=target)
    if printed is not None:
        capture.emit({"p": text[:MAX_RECORDED], "l": printed.pop("pl"), **printed})
    return text


def _note_raised(capture: Capture, filename: str, exc: BaseException) -> None:
    """Record that a print call of the snippet file raised ``exc`` before it wrote anything: under
    `python file.py` it ran, and an example may catch what it raised (``Printed.raised``)."""
    caller = sys._getframe(2)
    if caller.f_code.co_filename == filename:
        capture.emit({"p": "", "l": caller.f_lineno, "r": type(exc).__name__})


def install_print(capture: Capture, filename: str) -> None:
    """Replace ``print`` so that each call made in the snippet file is also recorded with its line
    and what it wrote of each argument."""
    original = builtins.print

    def print(*args, sep=" ", end="\n", file=None, flush=False):  # noqa: A001 - same name on purpose
        # print first, as Python does: under torch.compile, Dynamo stops tracing at print without a
        # word, and would warn about the sys._getframe below if it came first
        texts: list[str] = []
        try:
            for arg in args:  # str() once for each, as print does
                texts.append(arg if type(arg) is str else str(arg))
            buffer = io.StringIO()
            original(*texts, sep=sep, end=end, file=buffer)
        except BaseException as exc:
            if texts and len(texts) < len(args):  # an argument's str() raised: Python wrote those before it
                with contextlib.suppress(Exception):  # each followed by the separator, a write() each
                    original(*texts, sep=sep, end=" " if sep is None else sep, file=file)
            _note_raised(capture, filename, exc)
            raise
        target = sys.stdout if file is None else file
        if target is None:  # as Python does: no stream, nothing printed
            return
        caller = sys._getframe(1)
        printed = {"pl": caller.f_lineno} if caller.f_code.co_filename == filename else None
        try:  # a print that raises (a closed stream, an encoding error) wrote nothing
            written = _write(capture, target, buffer.getvalue(), printed, texts, sep, end, original)
        except BaseException as exc:
            if isinstance(exc, UnicodeEncodeError) and isinstance(target, TextCapture):
                with contextlib.suppress(Exception):  # the pieces before the one it cannot encode, as Python does
                    original(*texts, sep=sep, end=end, file=target)
            _note_raised(capture, filename, exc)
            raise
        if flush:
            target.flush()
        if printed is None and written and target is sys.stdout:
            capture.unattributed.update((capture.line, _innermost_line(filename)))

    builtins.print = print
