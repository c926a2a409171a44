"""`complex-edit mcp`: an MCP server over stdio with the tool `perform_complex_edit` (and
`revert_complex_edit`, `revert.py`, which takes an edit back).

The tool runs the shared file flow (`server.edit.disk`) on a path confined to the allowed
roots, relays the session's events as MCP progress notifications, and returns the contract's
result as structured content plus a text block with the same facts. A cancelled call (the
SDK cancels the tool's task on `notifications/cancelled`) writes nothing.

`main.py` starts it: `early.py` answers the first requests from `listing.json` while
`server.py` (the SDK server and the tool's declaration) loads, then `call.py`, which runs the
edit; `answer.py` shapes the answer. Nothing is imported here, so that the
command starts with the standard library alone.
"""
