"""What each setting does, for people: the settings' JSON Schema carries it (`description`, and
`x-enumDescriptions` for the values of a choice; `Settings`' `json_schema_extra`), and what the
clients show of a setting is generated from there (VS Code's package.json, by
`python -m complex_edit.server.schema`). A setting added to `Settings` needs its entry here:
tests/unit/test_client_settings.py fails without it. Markdown; neutral about the client.
"""

from __future__ import annotations

from typing import Any

from complex_edit.server import DEFAULT_MODEL

# By the setting's name on the wire.
DESCRIPTIONS: dict[str, str] = {
    "provider": "Model provider (`provider`).",
    "model": f"Model the sub-agent uses (`model`). Default `{DEFAULT_MODEL}`; "
    "`gemini-3.7-flash` costs less per task, `gemini-3.5-flash-lite` is the smallest. See "
    "`complex-edit eval` to compare them on your own tasks.",
    "maxTurns": "Model requests per edit (`maxTurns`); reaching it ends the edit with "
    "`max_turns` and applies nothing.",
    "thinkingLevel": "How much the model thinks before it answers (`thinkingLevel`). Unset: "
    "not sent, so the model's own default applies. Sent as Gemini's thinking level (never "
    "with a thinking budget), as OpenAI's `reasoning_effort`.",
    "thoughtSummaries": "Show a short line of what the model is thinking about in the progress "
    "while it works (`thoughtSummaries`). Only for models that summarise their thoughts "
    "(Gemini 2.5 and 3.x); thoughts never reach the document or the result.",
    "temperature": "Sampling temperature (`temperature`, 0–2). Unset: the model's default. Not "
    "sent to Gemini 3.6 and later, where it is deprecated (the server's log says so).",
    "requestTimeoutSeconds": "Time a model request has to answer, in seconds "
    "(`requestTimeoutSeconds`). Each request also gets time to write an answer as long as the "
    "document (a whole-file rewrite) at a pace slower than any current model, so slow answers "
    "land; a request that outlives its limit ends the edit with one error and is not sent "
    "again.",
    "maxDocumentBytes": "Documents larger than this many UTF-8 bytes are refused with "
    "`too_large` (`maxDocumentBytes`).",
    "baseUrl": "Model API base URL (`baseUrl`). Unset: the SDK's default, or "
    "`GOOGLE_GEMINI_BASE_URL` from the environment.",
    "maxRetries": "Retries of a model request after 408/429/5xx answers or connection faults "
    "(`maxRetries`).",
    "wallTimeSeconds": "Time budget of one whole edit, every model request, tool call and retry "
    "included, in seconds (`wallTimeSeconds`).",
    "applyTimeoutSeconds": "How long the server waits for the editor to apply the edit, in "
    "seconds (`applyTimeoutSeconds`).",
    "maxPromptBytes": "Instructions longer than this many UTF-8 bytes are refused before any "
    "model call (`maxPromptBytes`).",
    "validate": "What is checked before a result is accepted (`validate`). Errors the document "
    "already had never block.",
    "review": "Review every edit before it lands (`review`): each change is shown with a choice, "
    "and only the changes you keep are applied.",
    "otherFiles": "What the sub-agent may do with the workspace's other files (`otherFiles`). "
    "Never read: files outside the workspace, `.git/`, ignored by `.gitignore`, binary, over "
    "`maxDocumentBytes`, or matching `readExclude`.",
    "readExclude": "Files the sub-agent never reads (`readExclude`, gitignore-style patterns). "
    "Yours add to the defaults (the usual credential files) unless `readExcludeReplace` is on.",
    "readExcludeReplace": "`readExclude` replaces the credential defaults instead of adding to "
    "them (`readExcludeReplace`).",
    "maxFiles": "How many documents one command may change (`maxFiles`).",
    "checkers": "Language servers that check an edit before it lands (`checkers`): `auto` "
    "(per language, those found on `PATH` or beside the server: ruff, basedpyright or pyright, "
    "typescript-language-server, gopls, rust-analyzer, clangd), `off`, or a list of "
    "`{name, languages, command, initializationOptions?}`. Errors the edit introduced go back "
    "to the sub-agent; those left are named in the result.",
    "checkRounds": "How many times the sub-agent is asked to fix errors the checkers found new "
    "(`checkRounds`); the same errors twice end the rounds.",
    "checkTimeoutSeconds": "How long one check waits for each checker's diagnostics, in seconds "
    "(`checkTimeoutSeconds`); a silent checker is reported as not checked, never a failed "
    "edit.",
    "checkSeverity": "Which new diagnostics count (`checkSeverity`).",
    "searchTimeoutSeconds": "How long one `find_in_files` search may take; past it the model "
    "gets the lines found so far, said to be partial (`searchTimeoutSeconds`).",
    "historyMax": "Landed edits kept per workspace for taking back (`historyMax`; `0` records "
    "none).",
    "historyDays": "Days a landed edit is kept for taking back (`historyDays`).",
    "historyDir": "Where the edit history is kept (`historyDir`). Unset: the user's state "
    "directory (`$XDG_STATE_HOME/complex-edit`); never inside the workspace or a `.git` folder.",
}

# The values of a choice (`""`: the setting unset), by the setting's name on the wire.
CHOICES: dict[str, dict[str, str]] = {
    "provider": {
        "gemini": "Gemini through the google-genai SDK (the key from `GEMINI_API_KEY` or "
        "`GOOGLE_API_KEY`, or the one the editor stores).",
        "openai": "An OpenAI-compatible API; its key and base URL come from the server's "
        "environment.",
        "anthropic": "Anthropic; its key comes from the server's environment.",
    },
    "thinkingLevel": {
        "": "Not sent: the model's own default (medium on gemini-3.7/3.8-flash, high on "
        "gemini-3.1-pro).",
        "minimal": "Least thinking. Refused by gemini-3.7-flash and gemini-3.8-flash (the edit "
        "answers `config` before any request).",
        "low": "Little thinking: fastest and cheapest.",
        "medium": "The default of gemini-3.7/3.8-flash.",
        "high": "Most thinking: slowest, for hard restructurings.",
    },
    "validate": {
        "syntax": "A result with syntax errors the document did not have is refused back to the "
        "model, with the errors' lines (tree-sitter; a language without a grammar is not "
        "checked, and the answer says so).",
        "off": "Results are not checked.",
    },
    "checkers": {
        "off": "No checks: the edit lands as the sub-agent left it.",
        "auto": "The language servers found for the document's language.",
    },
    "checkSeverity": {
        "error": "Errors only.",
        "warning": "Errors and warnings.",
    },
    "otherFiles": {
        "off": "The command's document alone.",
        "read": "The sub-agent may read and search the workspace's other files; it changes only "
        "the command's document.",
        "edit": "The sub-agent may change other files too, every file written or none.",
    },
}


def describe_settings(schema: dict[str, Any]) -> None:
    """`Settings`' `json_schema_extra`: each property's description and value texts."""
    for name, prop in schema.get("properties", {}).items():
        if name in DESCRIPTIONS:
            prop["description"] = DESCRIPTIONS[name]
        if name in CHOICES:
            prop["x-enumDescriptions"] = CHOICES[name]
