"""complex-edit: the language server, CLI and MCP front ends around the edit session."""

__version__ = "0.1.0"
