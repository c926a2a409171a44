"""`complex-edit mcp`: an MCP server over stdio with one tool, `perform_complex_edit`.

The tool runs the shared file flow (`server.edit.disk`) on a path confined to the allowed
roots, relays the session's events as MCP progress notifications, and returns the contract's
result as structured content plus a text block with the same facts. A cancelled call (the
SDK cancels the tool's task on `notifications/cancelled`) writes nothing.

`server.py` declares the server and lists the tool cheaply; `call.py`, imported by the first
call, runs the edit; `answer.py` shapes the answer.
"""

from complex_edit.server.mcp.server import TOOL_NAME, build_server, serve

__all__ = ["TOOL_NAME", "build_server", "serve"]
