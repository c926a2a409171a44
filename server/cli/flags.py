"""The settings flags of `edit`, `mcp` and `doctor`, and the settings layer they give."""

from __future__ import annotations

from typing import TYPE_CHECKING

from complex_edit.server import DEFAULT_MODEL

if TYPE_CHECKING:
    import argparse

    from complex_edit.server.settings import SettingsLayer

# Settings flags shared by `edit` and `mcp`: (flag, setting, type, metavar, help).
_SETTING_FLAGS: tuple[tuple[str, str, type, str, str], ...] = (
    ("--model", "model", str, "NAME", f"model name (setting model, default {DEFAULT_MODEL})"),
    (
        "--thinking-level",
        "thinkingLevel",
        str,
        "minimal|low|medium|high",
        "how much the model thinks (setting thinkingLevel; default: not sent, the model's own, "
        "medium on gemini-3.7/3.8-flash; they refuse minimal)",
    ),
    ("--max-turns", "maxTurns", int, "N", "model requests per edit (setting maxTurns, default 8)"),
    (
        "--temperature",
        "temperature",
        float,
        "T",
        "sampling temperature (setting temperature; not sent to Gemini 3.6+, where it is "
        "deprecated)",
    ),
    (
        "--request-timeout-seconds",
        "requestTimeoutSeconds",
        float,
        "SECONDS",
        "time a model request has to answer, default 60; each request also gets time to "
        "write an answer as long as the document (setting requestTimeoutSeconds)",
    ),
    (
        "--max-document-bytes",
        "maxDocumentBytes",
        int,
        "BYTES",
        "larger files are refused (setting maxDocumentBytes)",
    ),
    ("--base-url", "baseUrl", str, "URL", "model API base URL (setting baseUrl)"),
    ("--provider", "provider", str, "NAME", "model provider (setting provider, default gemini)"),
    ("--max-retries", "maxRetries", int, "N", "retries of transient faults (setting maxRetries)"),
    (
        "--wall-time-seconds",
        "wallTimeSeconds",
        float,
        "SECONDS",
        "budget for one edit, every turn and retry included, default 600 (setting wallTimeSeconds)",
    ),
    (
        "--thought-summaries",
        "thoughtSummaries",
        str,
        "true|false",
        "show a line of what the model is thinking about in the progress (setting "
        "thoughtSummaries, default true; models that can summarise their thoughts)",
    ),
    (
        "--validate",
        "validate",
        str,
        "syntax|off",
        "refuse a result with new syntax errors (setting validate, default syntax)",
    ),
    (
        "--checkers",
        "checkers",
        str,
        "off|auto|JSON",
        "language servers that check the edit before it lands (setting checkers, default "
        "auto; JSON: a list of {name, languages, command})",
    ),
)


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "settings", "override the COMPLEX_EDIT_* environment variables of the same name"
    )
    for flag, setting, kind, metavar, text in _SETTING_FLAGS:
        group.add_argument(flag, dest=f"setting_{setting}", type=kind, metavar=metavar, help=text)


def setting_overrides(args: argparse.Namespace) -> SettingsLayer:
    """The settings layer given by the flags (camelCase keys; None = not given); a bad value
    is reported with the flag's name."""
    from complex_edit.server.settings import SettingsLayer

    values = {setting: getattr(args, f"setting_{setting}") for _, setting, *_ in _SETTING_FLAGS}
    flags = {setting: flag for flag, setting, *_ in _SETTING_FLAGS}
    if getattr(args, "review", None):
        values["review"], flags["review"] = True, "--review"
    if getattr(args, "other_files", None):
        values["otherFiles"], flags["otherFiles"] = args.other_files, "--other-files"
    return SettingsLayer.flags(values, flags)
