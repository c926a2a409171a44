"""complex-edit: the language server, CLI and MCP front ends around the edit session."""

__version__ = "0.1.0"
# The `model` setting's default (`settings.py`), here so that `--help` can show it without
# importing the settings schema before the language server starts.
DEFAULT_MODEL = "gemini-3.8-flash"
