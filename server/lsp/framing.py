"""stdio as pygls uses it. stdin: hardened against garbage frames (`FramedInput`) and read ahead
on one thread (`PrefetchingReader`). stdout: written until the first failure and never after
(`EditorOutput`), and watched for the editor closing it (`watch_hangup`)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import re
import select
import threading
from collections.abc import Callable
from typing import BinaryIO

# A frame larger than this is read and dropped instead of being parsed (a client bug or garbage;
# a 10 MB document is ~20 MB of JSON even with every character escaped).
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
# FramedInput runs in the stdin reading thread: its log must not be forwarded to the client (that
# would write to stdout from a second thread), so it uses a logger outside "complex_edit".
_input_log = logging.getLogger("complex_edit_input")
# The same for the output: a failed write to the editor is not reported by writing to it.
_output_log = logging.getLogger("complex_edit_output")


class FramedInput:
    """stdin as pygls reads it (`readline`, `read`), hardened against garbage frames.

    pygls reads a header only when a line is exactly `Content-Length: N\\r\\n`, and trusts N.
    Bytes without a line break before a header (a truncated or over-long body, binary noise)
    then glue onto the next header and every later message is lost; a huge N crashes the
    server or makes it wait forever. Here a header is recognised at the end of a line whatever
    precedes it (so the stream resynchronises at the next frame) and spelled loosely; a body
    over `MAX_MESSAGE_BYTES` is skipped in chunks, up to the next `Content-Length:` seen.
    """

    _HEADER = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n\Z", re.IGNORECASE)
    _NEXT_HEADER = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
    _LINE_LIMIT = 64 * 1024
    _TAIL = 64
    _CHUNK = 1024 * 1024

    def __init__(self, raw: BinaryIO, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self._raw = raw
        self._max = max_message_bytes
        self._skip = 0
        self._pushed = bytearray()

    def readline(self) -> bytes:
        tail = b""
        while True:
            chunk = self._readline_raw()
            if not chunk:
                return b""
            if chunk.endswith(b"\n"):
                return self._header(tail + chunk if tail else chunk)
            tail = (tail + chunk)[-self._TAIL :]  # a very long line: only its end matters

    def read(self, size: int) -> bytes:
        if not self._pushed:
            return self._raw.read(size)
        head = bytes(self._pushed[:size])
        del self._pushed[:size]
        if len(head) < size:
            head += self._raw.read(size - len(head))
        return head

    def _read_some(self, size: int) -> bytes:
        """What is there (at least one byte, up to `size`): a pipe's `read(size)` would wait for
        all of it, which never comes after a bogus length."""
        if self._pushed:
            return self.read(min(size, len(self._pushed)))
        read1 = getattr(self._raw, "read1", None)
        return bytes(read1(size)) if read1 is not None else self._raw.read(size)

    def _readline_raw(self) -> bytes:
        if not self._pushed:
            return self._raw.readline(self._LINE_LIMIT)
        end = self._pushed.find(b"\n")
        if end >= 0:
            line = bytes(self._pushed[: end + 1])
            del self._pushed[: end + 1]
            return line
        head = bytes(self._pushed)
        self._pushed.clear()
        return head + self._raw.readline(self._LINE_LIMIT)

    def _header(self, line: bytes) -> bytes:
        if not line.strip():
            if self._skip:
                self._discard(self._skip)
                self._skip = 0
            return line
        match = self._HEADER.search(line)
        if match is None:
            return line
        digits = match.group(1)
        size = int(digits) if len(digits) <= 18 else self._max + 1
        if size > self._max:
            _input_log.warning(
                "Ignored a message of %s bytes from the editor (over the %d-byte limit).",
                digits.decode("ascii")[:24],
                self._max,
            )
            self._skip = size
            return b"X-Complex-Edit-Ignored: too large\r\n"
        return b"Content-Length: %d\r\n" % size

    def _discard(self, size: int) -> None:
        tail = b""
        while size > 0:
            chunk = self._read_some(min(size, self._CHUNK))
            if not chunk:
                return
            size -= len(chunk)
            window = tail + chunk
            match = self._NEXT_HEADER.search(window)
            if match is not None and match.end() > len(tail):
                # The next frame starts here: give it back to the reader. (A body that is
                # really this large and quotes a header is cut short; it was being dropped.)
                self._pushed[:0] = window[match.start() :]
                return
            tail = window[-self._TAIL :]


class PrefetchingReader:
    """What pygls' message loop awaits (`readline`, `readexactly`), fed by one thread that
    reads whole messages ahead from a blocking stream.

    pygls' own stdin reader sends every header line and every body to a thread pool and back,
    three or four hand-offs per message. Here the thread reads a message's header lines and
    body in one go and hands them over together; the loop then takes them without waiting.
    The thread reads the way pygls' loop does (the body after the blank line that follows a
    `Content-Length` header), so both stay in step.
    """

    _CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")

    def __init__(self, stream: FramedInput | BinaryIO) -> None:
        self._stream = stream
        self._items: collections.deque[bytes] = collections.deque()
        self._lock = threading.Lock()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._taken = 0
        self._ended = False
        self._stopped = False

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        threading.Thread(target=self._run, name="complex-edit-stdin", daemon=True).start()

    def stop(self) -> None:
        """End the stream now, from any thread (the editor is gone, or sent `exit`): what was
        read ahead is dropped, and the loop's next read sees the end. The reading thread may
        stay blocked in stdin; it is a daemon and reads from a copy of the descriptor."""
        with self._lock:
            self._stopped = True
            self._items.clear()
        self._hand_over([], ended=True)

    async def readline(self) -> bytes:
        return await self._next()

    async def readexactly(self, size: int) -> bytes:
        return await self._next()

    async def _next(self) -> bytes:
        while True:
            with self._lock:
                if self._items:
                    item = self._items.popleft()
                    break
                if self._ended:
                    return b""
                self._waiter = asyncio.get_running_loop().create_future()
                waiter = self._waiter
            await waiter
        self._taken += 1
        if self._taken % 64 == 0:
            await asyncio.sleep(0)  # a long burst still lets other tasks run
        return item

    def _run(self) -> None:
        try:
            self._read_messages()
        except (OSError, ValueError) as exc:  # stdin broken or closed: as good as its end
            _input_log.warning("Reading from the editor failed (%s).", type(exc).__name__)
            self._hand_over([b""], ended=True)

    def _read_messages(self) -> None:
        batch: list[bytes] = []
        length = 0
        while True:
            line = self._stream.readline()
            batch.append(line)
            if not line:
                self._hand_over(batch, ended=True)
                return
            if not length:
                match = self._CONTENT_LENGTH.fullmatch(line)
                if match:
                    length = int(match.group(1))
            if length and not line.strip():
                body = self._stream.read(length)
                batch.append(body)
                length = 0
                self._hand_over(batch, ended=not body)
                batch = []
                if not body:
                    return

    def _hand_over(self, batch: list[bytes], *, ended: bool = False) -> None:
        with self._lock:
            if not self._stopped:
                self._items.extend(batch)
            self._ended = self._ended or ended
            waiter, self._waiter = self._waiter, None
        if waiter is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server is exiting
                self._loop.call_soon_threadsafe(_wake, waiter)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class EditorOutput:
    """stdout as pygls writes to it (`write`, `close`).

    pygls' `StdoutWriter` raises once the editor has closed the stream (a broken pipe, or a
    closed file after `exit`), and pygls reports a failed send by sending: a log message or a
    pop-up, which fails the same way and is reported again. That loop, through the server's
    log handler and `report_server_error`, kept orphaned servers at full CPU. Here the first
    failure (or `close`) ends the output for good: `on_lost` is called once, so that the server
    stops, every later write is dropped, and a write never raises.
    """

    def __init__(self, stream: BinaryIO, on_lost: Callable[[], None]) -> None:
        self._stream = stream
        self._on_lost = on_lost
        self._lock = threading.Lock()
        self.closed = False

    def write(self, data: bytes) -> None:
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
                return
            except (OSError, ValueError) as exc:
                failure = type(exc).__name__
                self._close_stream()
        _output_log.warning("Writing to the editor failed (%s); stopping.", failure)
        self._on_lost()

    def close(self) -> None:
        with self._lock:
            if self.closed:
                return
            self._close_stream()
        self._on_lost()

    def _close_stream(self) -> None:
        self.closed = True
        # Closed, not only abandoned: the interpreter would flush it again at exit.
        with contextlib.suppress(OSError, ValueError):
            self._stream.close()


def watch_hangup(stream: BinaryIO, on_hangup: Callable[[], None]) -> None:
    """Call `on_hangup` (from a thread of its own) when the editor closes its end of `stream`
    while nothing is being written: a pipe whose reader is gone reports POLLERR, a socket whose
    peer closed reports POLLHUP. Polling for no event waits for exactly these two; a file or a
    terminal never reports them, and a socket the peer only half-closed does not either."""
    poll = getattr(select, "poll", None)
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    if poll is None:
        return

    def wait() -> None:
        poller = poll()
        poller.register(fd, 0)
        while True:
            masks = [mask for _, mask in poller.poll()]
            if any(mask & select.POLLNVAL for mask in masks):
                return  # closed on our side
            if any(mask & (select.POLLERR | select.POLLHUP) for mask in masks):
                on_hangup()
                return

    threading.Thread(target=wait, name="complex-edit-stdout-watch", daemon=True).start()
