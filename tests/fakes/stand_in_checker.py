"""A stand-in checker: a stdio language server that misbehaves on purpose.

python stand_in_checker.py silent   answers initialize, then never publishes anything
python stand_in_checker.py crash    answers initialize, exits (code 3) on the first didOpen
"""

from __future__ import annotations

import json
import sys


def read() -> dict[str, object] | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line.strip() == b"":
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message = json.loads(sys.stdin.buffer.read(length))
    return message if isinstance(message, dict) else {}


def write(message: dict[str, object]) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    sys.stdout.buffer.flush()


def main() -> None:
    mode = sys.argv[1]
    while (message := read()) is not None:
        method = message.get("method")
        if method == "initialize":
            write({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {}}})
        elif method == "shutdown":
            write({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif method == "exit":
            return
        elif method == "textDocument/didOpen" and mode == "crash":
            sys.exit(3)


if __name__ == "__main__":
    main()
