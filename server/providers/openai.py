"""OpenAI-compatible Chat Completions through the official `openai` SDK: the only module that
imports `openai` (lazily: importing this module does not import the SDK).

Works with OpenAI itself and with local servers speaking the same API (Ollama, llama.cpp, vLLM,
LM Studio) through the `baseUrl` setting or `OPENAI_BASE_URL`. With a base URL configured the key
is optional: a placeholder is sent when `OPENAI_API_KEY` is unset (local servers ignore it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from complex_edit.edit_tools import errors as tool_errors
from complex_edit.server.outcome import CREDENTIALS, RunError, Usage, scrub
from complex_edit.server.providers._retry import (
    RETRYABLE_STATUS,
    Retry,
    RetryBudget,
    connection_failure,
    readable,
    retry_after_seconds,
    sentence,
    service_host,
    status_retry,
    transport_failure,
)
from complex_edit.server.providers.base import (
    ConversationRequest,
    FullViews,
    ModelTurn,
    ToolCall,
    ToolResult,
    effective_model,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

KEY_VARIABLES = CREDENTIALS["openai"]
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
DEFAULT_MODEL = "gpt-5.4-mini"
PLACEHOLDER_KEY = "complex-edit-no-key"
INSTALL_HINT = "pip install 'complex-edit[openai]'"
DEFAULT_HOST = "api.openai.com"
# Error codes and message fragments that mean "the prompt does not fit the context window",
# from OpenAI, vLLM, llama.cpp, Ollama and LM Studio.
TOO_LARGE_CODES = frozenset({"context_length_exceeded", "string_above_max_length"})
TOO_LARGE_HINTS = (
    "context length",
    "context_length",
    "context window",
    "context size",
    "maximum context",
    "too many tokens",
    "too long",
    "too large",
)
QUOTA_EXHAUSTED_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})


def _sdk() -> Any:
    try:
        import openai
    except ImportError:
        raise RunError(
            "config",
            f"The 'openai' provider needs the OpenAI SDK, which is not installed: {INSTALL_HINT}",
        ) from None
    return openai


class OpenAIProvider:
    """Builds conversations; owns the process's SDK clients (one per base URL)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env if env is not None else os.environ
        self._clients: dict[tuple[str | None, str], AsyncOpenAI] = {}

    def open(self, request: ConversationRequest) -> OpenAIConversation:
        base_url = request.settings.base_url or self._env.get(BASE_URL_VARIABLE) or None
        key = self._env.get("OPENAI_API_KEY") or None
        if key is None and base_url is None:
            raise RunError(
                "config",
                "No OpenAI API key is configured. Set OPENAI_API_KEY in the environment of the "
                "complex-edit server, or point the 'baseUrl' setting (or OPENAI_BASE_URL) at an "
                "OpenAI-compatible server such as Ollama (http://localhost:11434/v1).",
            )
        client = self._client(base_url, key or PLACEHOLDER_KEY)
        return OpenAIConversation(
            client,
            request,
            self._env,
            host=service_host(base_url, DEFAULT_HOST),
            keyless=key is None,
        )

    def _client(self, base_url: str | None, key: str) -> AsyncOpenAI:
        client = self._clients.get((base_url, key))
        if client is None:
            openai = _sdk()
            client = openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0)
            self._clients[(base_url, key)] = client
        return cast("AsyncOpenAI", client)


class OpenAIConversation:
    def __init__(
        self,
        client: AsyncOpenAI,
        request: ConversationRequest,
        env: Mapping[str, str],
        *,
        host: str,
        keyless: bool,
    ) -> None:
        self._client = client
        self._env = env
        self._host = host
        self._keyless = keyless
        self._settings = request.settings
        self._model = effective_model(request.settings, DEFAULT_MODEL)
        self._limit = request.limit
        self._budget = RetryBudget(request.settings, limit=self._limit, on_retry=request.on_retry)
        self._tool_choice = "required"
        self._made_ids = 0
        self._messages: list[dict[str, Any]] = [
            {"role": "system", "content": request.system_instruction},
            {"role": "user", "content": request.first_message},
        ]
        self._views: FullViews[int] = FullViews()
        self._tools = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]

    async def next_turn(self) -> ModelTurn:
        completion = await self._budget.call(self._create, self._classify)
        turn, message = self._read(completion)
        if message is not None:
            self._messages.append(message)
        return turn

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        start = len(self._messages)
        self._messages.extend(_tool_message(result) for result in results)
        for index, stub in self._views.outdated(list(enumerate(results, start))):
            self._messages[index] = _tool_message(stub)

    async def _create(self) -> ChatCompletion:
        openai = _sdk()
        try:
            return await self._send()
        except openai.BadRequestError as exc:
            # Some local servers accept only "auto" (or "none"): fall back once, for good.
            if self._tool_choice == "required" and "tool_choice" in _detail(exc).lower():
                self._tool_choice = "auto"
                return await self._send()
            raise

    async def _send(self) -> ChatCompletion:
        extra: dict[str, Any] = {}
        if self._settings.temperature is not None:
            extra["temperature"] = self._settings.temperature
        if self._settings.thinking_level is not None:
            extra["reasoning_effort"] = self._settings.thinking_level
        completion: Any = await self._client.chat.completions.create(
            model=self._model,
            messages=cast(Any, self._messages),
            tools=cast(Any, self._tools),
            tool_choice=cast(Any, self._tool_choice),
            timeout=self._limit,
            **extra,
        )
        if not hasattr(completion, "choices"):  # an HTML page or plain text answered 200
            raise RunError(
                "model_error",
                f"The server at {self._host} did not answer with a chat completion "
                f"(got {type(completion).__name__}). Check the 'baseUrl' setting.",
            )
        return cast("ChatCompletion", completion)

    def _read(self, completion: ChatCompletion) -> tuple[ModelTurn, dict[str, Any] | None]:
        usage = _usage(completion)
        if not completion.choices:
            return ModelTurn(calls=[], usage=usage, problem="no choices"), None
        choice = completion.choices[0]
        finish = str(choice.finish_reason or "")
        message = choice.message
        if finish == "content_filter":
            raise RunError(
                "blocked", "The model's reply was withheld (finish reason content_filter)."
            )
        if finish == "length":
            raise RunError(
                "model_error",
                "The model's reply was cut off (finish reason length); nothing was applied. "
                "Try a smaller instruction or selection.",
            )
        tool_calls = list(message.tool_calls or [])
        if not tool_calls:
            refusal = getattr(message, "refusal", None)
            if refusal:
                raise RunError("blocked", f"The model refused the request: {str(refusal)[:300]}")
            empty = f"reply without a tool call (finish reason {finish or 'none'})"
            return ModelTurn(calls=[], usage=usage, problem=empty), None
        calls: list[ToolCall] = []
        echoed: list[dict[str, Any]] = []
        for tool_call in tool_calls:
            call_id = getattr(tool_call, "id", None) or self._new_id()
            function = getattr(tool_call, "function", None)
            if function is None:  # a non-function (custom) tool call: never declared
                custom = str(getattr(getattr(tool_call, "custom", None), "name", "") or "")
                calls.append(ToolCall(name=custom, args={}, id=call_id))
                echoed.append(tool_call.model_dump(exclude_none=True) | {"id": call_id})
                continue
            name = function.name or ""
            raw = function.arguments
            args, problem = parse_arguments(name, raw)
            calls.append(ToolCall(name=name, args=args, id=call_id, args_error=problem))
            echoed.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": raw or ""},
                }
            )
        assistant: dict[str, Any] = {"role": "assistant", "tool_calls": echoed}
        if message.content is not None:
            assistant["content"] = message.content
        return ModelTurn(calls=calls, usage=usage), assistant

    def _new_id(self) -> str:
        self._made_ids += 1
        return f"call_ce_{self._made_ids}"

    def _classify(self, exc: Exception) -> Retry | RunError:
        openai = _sdk()
        if isinstance(exc, openai.APIStatusError):
            failure = self._map_status(exc)
            code = int(exc.status_code)
            if code not in RETRYABLE_STATUS or _error_code(exc) in QUOTA_EXHAUSTED_CODES:
                return failure
            return status_retry(code, failure, retry_after_seconds(exc.response.headers))
        if isinstance(exc, openai.APIConnectionError):
            return connection_failure(f"Could not reach the model service at {self._host}.")
        return transport_failure(exc, self._settings, self._env, KEY_VARIABLES)

    def _map_status(self, exc: Any) -> RunError:
        code = int(exc.status_code)
        detail = readable(scrub(_detail(exc), self._env))
        label = f"{code} {_error_code(exc) or ''}".strip()
        if code in (401, 403):
            hint = (
                f"No OPENAI_API_KEY is set, and the server at {self._host} needs one."
                if self._keyless
                else "Check OPENAI_API_KEY."
            )
            return RunError(
                "auth",
                f"The server at {self._host} refused the credentials ({label}): "
                f"{sentence(_mask_key_echo(detail))} {hint}",
            )
        if code == 429:
            return RunError(
                "quota", f"The OpenAI API quota or rate limit was hit ({label}): {detail}"
            )
        if code in (400, 413, 422) and _looks_too_large(exc, detail):
            return RunError("too_large", f"The request is too large for the model ({detail}).")
        if code == 404:
            return RunError(
                "config",
                f"The model '{self._model}' was not found at {self._host} ({label}): {detail} "
                "Check the 'model' and 'baseUrl' settings.",
            )
        return RunError("model_error", f"The server at {self._host} answered {label}: {detail}")


def _tool_message(result: ToolResult) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": result.call.id or "", "content": result.text}


def parse_arguments(name: str, raw: str | None) -> tuple[dict[str, Any], str | None]:
    """The arguments of a call from their JSON string, or `({}, message for the model)`.

    An empty string means no arguments; a JSON string holding a JSON object (double-encoded,
    as some models send) is unwrapped once."""
    if raw is None or not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
        if isinstance(value, str) and value.lstrip().startswith("{"):
            value = json.loads(value)
    except json.JSONDecodeError as exc:
        return {}, (
            f"The arguments of {name} are not valid JSON ({exc.msg} at character {exc.pos}). "
            "Call it again with the arguments as one JSON object, every string escaped "
            '(\\" for quotes, \\\\ for backslashes, \\n for line breaks). Nothing was changed.'
        )
    if not isinstance(value, dict):
        return {}, tool_errors.arguments_not_object(name, value).message
    return value, None


def _usage(completion: Any) -> Usage:
    usage = getattr(completion, "usage", None)
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        cached_tokens=(getattr(details, "cached_tokens", None) or 0) if details else 0,
    )


def _detail(exc: Any) -> str:
    """The server's own error message (the SDK keeps the `error` object as `body`)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        message = body.get("message")
        if isinstance(message, str) and message:
            return message
        return json.dumps(body, ensure_ascii=False)
    if isinstance(body, str) and body:
        return body
    return str(getattr(exc, "message", "") or exc)


def _error_code(exc: Any) -> str | None:
    code = getattr(exc, "code", None)
    return str(code) if code else None


def _looks_too_large(exc: Any, detail: str) -> bool:
    if _error_code(exc) in TOO_LARGE_CODES or int(exc.status_code) == 413:
        return True
    lowered = detail.lower()
    return any(hint in lowered for hint in TOO_LARGE_HINTS)


def _mask_key_echo(detail: str) -> str:
    """OpenAI echoes a masked form of a wrong key ("Incorrect API key provided: sk-ab***cd"):
    drop it."""
    marker = "key provided:"
    index = detail.lower().find(marker)
    if index < 0:
        return detail
    rest = detail[index + len(marker) :].lstrip()
    end = rest.find(" ")
    shown = rest if end < 0 else rest[:end]
    tail = "" if end < 0 else rest[end:]
    period = "." if shown.endswith(".") else ""
    return detail[: index + len(marker)] + " [redacted]" + period + tail
