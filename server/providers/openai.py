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

from complex_edit.server.outcome import CREDENTIALS, RunError, scrub
from complex_edit.server.providers import access
from complex_edit.server.providers._retry import readable, retry_after_seconds, service_host
from complex_edit.server.providers.access import ACCESS, key_status
from complex_edit.server.providers.base import (
    PLACEHOLDER_KEY,
    ConversationRequest,
    ToolReply,
    effective_model,
)
from complex_edit.server.providers.conversation import (
    StatusAnswer,
    StreamedConversation,
    hints_in,
    import_sdk,
    label,
)
from complex_edit.server.providers.openai_turn import TurnAssembly

if TYPE_CHECKING:
    from openai import AsyncOpenAI, AsyncStream
    from openai.types.chat import ChatCompletionChunk

KEY_VARIABLES = CREDENTIALS["openai"]
BASE_URL_VARIABLE = ACCESS["openai"].base_url_variable
DEFAULT_MODEL = ACCESS["openai"].default_model
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
    return import_sdk("openai", "The 'openai' provider needs the OpenAI SDK", INSTALL_HINT)


class OpenAIProvider:
    """Builds conversations; owns the process's SDK clients (one per base URL)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env if env is not None else os.environ
        self._clients: dict[tuple[str | None, str], AsyncOpenAI] = {}

    def open(self, request: ConversationRequest) -> OpenAIConversation:
        base_url = access.base_url("openai", request.settings.base_url, self._env)
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


class OpenAIConversation(StreamedConversation[dict[str, Any], dict[str, Any]]):
    API_NAME = "OpenAI API"
    KEY_VARIABLES = KEY_VARIABLES
    BASE_URL_VARIABLE = BASE_URL_VARIABLE

    def __init__(
        self,
        client: AsyncOpenAI,
        request: ConversationRequest,
        env: Mapping[str, str],
        *,
        host: str,
        keyless: bool,
    ) -> None:
        model = effective_model(request.settings, DEFAULT_MODEL)
        super().__init__(request, env, host=host, model=model, keyless=keyless)
        self._client = client
        self._tool_choice = "required"
        self._made_ids = 0
        self._history = [
            {"role": "system", "content": request.system_instruction},
            {"role": "user", "content": request.first_message},
        ]
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

    def _assembly(self) -> TurnAssembly:
        return TurnAssembly(self._new_id, self._host)

    def add_tool_results(self, results: Sequence[ToolReply]) -> None:
        """Chat Completions takes each result as a message of its own."""
        start = len(self._history)
        self._history.extend(_tool_message(result) for result in results)
        for index, stub in self._views.outdated(list(enumerate(results, start))):
            self._history[index] = _tool_message(stub)

    async def _send(self) -> AsyncStream[ChatCompletionChunk]:
        openai = _sdk()
        try:
            return await self._create()
        except openai.BadRequestError as exc:
            # Some local servers accept only "auto" (or "none"): fall back once, for good.
            if self._tool_choice == "required" and "tool_choice" in _detail(exc).lower():
                self._tool_choice = "auto"
                return await self._create()
            raise

    async def _create(self) -> AsyncStream[ChatCompletionChunk]:
        extra: dict[str, Any] = {}
        if self._settings.temperature is not None:
            extra["temperature"] = self._settings.temperature
        if self._settings.thinking_level is not None:
            extra["reasoning_effort"] = self._settings.thinking_level
        completion: Any = await self._client.chat.completions.create(
            model=self._model,
            messages=cast(Any, self._history),
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

    def _read_status(self, exc: Exception) -> StatusAnswer | None:
        if not isinstance(exc, _sdk().APIStatusError):
            return None
        code = int(exc.status_code)
        error_code = _error_code(exc)
        return StatusAnswer(
            code=code,
            label=label(code, error_code),
            detail=readable(scrub(_detail(exc), self._env)),
            kind=error_code or "",
            delay=retry_after_seconds(exc.response.headers),
            raw=exc,
            final=error_code in QUOTA_EXHAUSTED_CODES,
        )

    def _is_connection_error(self, exc: Exception) -> bool:
        return isinstance(exc, _sdk().APIConnectionError)

    def _about_the_model(self, answer: StatusAnswer) -> bool:
        return answer.kind == "model_not_found" or super()._about_the_model(answer)

    def _too_large(self, answer: StatusAnswer) -> bool:
        return answer.kind in TOO_LARGE_CODES or hints_in(answer.detail, TOO_LARGE_HINTS)


def _tool_message(result: ToolReply) -> dict[str, Any]:
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
    return ""  # no body: the status says all there is


def _error_code(exc: Any) -> str | None:
    code = getattr(exc, "code", None)
    return str(code) if code else None
