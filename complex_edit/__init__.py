"""complex-edit: an editing sub-agent behind a language server, a CLI and an MCP server.

The repository's `server/`, `edit_tools/` and `prompts/` folders are installed as
`complex_edit.server`, `complex_edit.edit_tools` and `complex_edit.prompts` (see
`pyproject.toml`); nothing else is installed at the top level.
"""
