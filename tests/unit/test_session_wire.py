"""The frames between the language server and its session process (`server/session/wire.py`,
`server/session/messages.py`) over a real pipe: every message arrives as it was sent, a
multi-megabyte one too (written in chunks while the other end reads), the end of the pipe is
the end of the frames, and a frame that is not a message is refused."""

from __future__ import annotations

import asyncio
import os
import pickle
from collections.abc import AsyncIterator

import pytest

from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.session.changed import DocumentResult
from complex_edit.server.session.events import SessionFinished, TurnStarted
from complex_edit.server.session.messages import (
    CancelSession,
    Event,
    Failed,
    Message,
    Returned,
    RunSession,
)
from complex_edit.server.session.request import EditRequest
from complex_edit.server.session.result import FinishedSession
from complex_edit.server.session.wire import CHUNK, HEADER, read_frame, write_frame
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange

Pipe = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@pytest.fixture
async def pipe() -> AsyncIterator[Pipe]:
    """Both ends of an OS pipe as this loop's streams, as the server and the child use them."""
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader(limit=CHUNK)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()),
        os.fdopen(write_fd, "wb", buffering=0),
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    yield reader, writer
    writer.close()
    read_transport.close()


def _request(text: str) -> EditRequest:
    return EditRequest(instruction="edit", text=text, settings=Settings.from_layers({}))


async def _send_and_receive(pipe: Pipe, message: Message) -> Message | None:
    reader, writer = pipe
    _, received = await asyncio.gather(write_frame(writer, message), read_frame(reader))
    return received


@pytest.mark.parametrize(
    "message",
    [
        RunSession(1, _request("alpha\r\nbeta \U0001f600\n")),
        CancelSession(2),
        Event(3, TurnStarted(turn=1, max_turns=8, last_calls=("replace_text",))),
        Event(3, SessionFinished(SessionOutcome(success=True, message="done"))),
        Returned(
            3,
            FinishedSession(
                SessionOutcome(success=True),
                (DocumentResult("a.txt", "a", "-a\n+b\n", (TextChange(0, 1, "b"),)),),
            ),
        ),
        Failed(4, "KeyError: 'x'"),
    ],
    ids=lambda message: type(message).__name__,
)
async def test_every_message_arrives_as_sent(pipe: Pipe, message: Message) -> None:
    received = await _send_and_receive(pipe, message)
    assert type(received) is type(message)
    assert received == message


async def test_a_large_message_arrives_whole(pipe: Pipe) -> None:
    """A 10 MB document, more than the pipe's buffer and several chunks."""
    text = "".join(f"line {n} {'x' * 60}\n" for n in range(150_000))
    assert len(text) > 8 * CHUNK
    received = await _send_and_receive(pipe, RunSession(9, _request(text)))
    assert isinstance(received, RunSession)
    assert received.run_id == 9
    assert received.request.text == text


async def test_the_end_of_the_pipe_ends_the_frames(pipe: Pipe) -> None:
    reader, writer = pipe
    await write_frame(writer, CancelSession(1))
    writer.close()
    assert await read_frame(reader) == CancelSession(1)
    assert await read_frame(reader) is None


async def test_a_frame_that_is_not_a_message_is_refused(pipe: Pipe) -> None:
    """What the frames held before they were typed: a tuple with a string kind."""
    reader, writer = pipe
    body = pickle.dumps(("run", 1, None))
    writer.write(HEADER.pack(len(body)) + body)
    with pytest.raises(TypeError, match="not a message: tuple"):
        await read_frame(reader)
