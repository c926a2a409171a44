"""complex-edit: the language server, CLI and MCP front ends around the edit session."""
