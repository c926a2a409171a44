"""OpenAI-compatible Chat Completions through the official `openai` SDK: the only module that
imports `openai` (lazily: importing this module does not import the SDK).

Works with OpenAI itself and with local servers speaking the same API (Ollama, llama.cpp, vLLM,
LM Studio) through the `baseUrl` setting or `OPENAI_BASE_URL`. With a base URL configured the key
is optional: a placeholder is sent when `OPENAI_API_KEY` is unset (local servers ignore it).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from complex_edit.server.outcome import CREDENTIALS, RunError, scrub
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
from complex_edit.server.providers.access import ACCESS, key_status
from complex_edit.server.providers.base import (
    ConversationRequest,
    FullViews,
    ToolResult,
    TurnItem,
    effective_model,
)
from complex_edit.server.providers.openai_turn import TurnAssembly
from complex_edit.server.providers.streaming import aclose, stream_with_retries

if TYPE_CHECKING:
    from openai import AsyncOpenAI, AsyncStream
    from openai.types.chat import ChatCompletionChunk

KEY_VARIABLES = CREDENTIALS["openai"]
BASE_URL_VARIABLE = ACCESS["openai"].base_url_variable
DEFAULT_MODEL = ACCESS["openai"].default_model
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
        if key_status("openai", self._env, base_url).missing:
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

    def stream_turn(self) -> AsyncIterator[TurnItem]:
        return stream_with_retries(self._budget, self._attempt, self._classify)

    async def _attempt(self) -> AsyncIterator[TurnItem]:
        """One streamed request: its calls as they are completed, then the whole turn."""
        stream = await self._create()
        assembly = TurnAssembly(self._new_id, self._host)
        try:
            async for chunk in stream:
                for call in assembly.add(chunk):
                    yield call
        finally:
            await aclose(stream)
        for call in assembly.end():
            yield call
        turn, message = assembly.finish()
        if message is not None:
            self._messages.append(message)
        yield turn

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        start = len(self._messages)
        self._messages.extend(_tool_message(result) for result in results)
        for index, stub in self._views.outdated(list(enumerate(results, start))):
            self._messages[index] = _tool_message(stub)

    async def _create(self) -> AsyncStream[ChatCompletionChunk]:
        openai = _sdk()
        try:
            return await self._send()
        except openai.BadRequestError as exc:
            # Some local servers accept only "auto" (or "none"): fall back once, for good.
            if self._tool_choice == "required" and "tool_choice" in _detail(exc).lower():
                self._tool_choice = "auto"
                return await self._send()
            raise

    async def _send(self) -> AsyncStream[ChatCompletionChunk]:
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
            stream=True,
            stream_options={"include_usage": True},
            **extra,
        )
        return cast("AsyncStream[ChatCompletionChunk]", completion)

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
