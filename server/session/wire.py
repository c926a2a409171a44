"""Frames between the language server and its session process: a 4-byte big-endian length,
then a pickle of one of the `messages.py` dataclasses (both ends are the same program, on a
private pipe)."""

from __future__ import annotations

import asyncio
import pickle
import struct

from complex_edit.server.session.messages import Message

HEADER = struct.Struct(">I")
CHUNK = 1 << 20


def encode_frame(message: Message) -> tuple[bytes, bytes]:
    """The header and the body, written one after the other (no copy of a large body)."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)), body


async def read_frame(reader: asyncio.StreamReader) -> Message | None:
    """The next frame, or None at the end of the stream. The body is read in chunks into
    one buffer, so a large frame costs one copy of it, not three."""
    try:
        (size,) = HEADER.unpack(await reader.readexactly(HEADER.size))
    except asyncio.IncompleteReadError:
        return None
    body = bytearray(size)
    view = memoryview(body)
    filled = 0
    while filled < size:
        chunk = await reader.read(min(CHUNK, size - filled))
        if not chunk:
            return None
        view[filled : filled + len(chunk)] = chunk
        filled += len(chunk)
    view.release()
    message = pickle.loads(body)
    if not isinstance(message, Message):
        raise TypeError(f"not a message: {type(message).__name__}")
    return message


async def write_frame(writer: asyncio.StreamWriter, message: Message) -> None:
    """Write one frame in chunks, waiting for the reader, so the pipe's buffer stays small."""
    header, body = encode_frame(message)
    writer.write(header)
    view = memoryview(body)
    for start in range(0, len(body), CHUNK):
        writer.write(view[start : start + CHUNK])
        await writer.drain()
    view.release()
