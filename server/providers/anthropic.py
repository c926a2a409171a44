"""Anthropic's Messages API through the official `anthropic` SDK: the only module that imports
`anthropic` (lazily: importing this module does not import the SDK).

Turns are streamed (`anthropic_turn`); the model's turns (thinking blocks and their signatures
included) are appended to the history as they came; each turn's tool results go back as one
user message of `tool_result` blocks, with `is_error` on the failed ones.
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
from complex_edit.server.providers.anthropic_turn import TurnAssembly
from complex_edit.server.providers.base import (
    ConversationRequest,
    FullViews,
    ToolResult,
    TurnItem,
    effective_model,
)
from complex_edit.server.providers.streaming import aclose, stream_with_retries

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic, AsyncStream
    from anthropic.types import RawMessageStreamEvent

KEY_VARIABLES = CREDENTIALS["anthropic"]
BASE_URL_VARIABLE = ACCESS["anthropic"].base_url_variable
DEFAULT_MODEL = ACCESS["anthropic"].default_model
PLACEHOLDER_KEY = "complex-edit-no-key"
INSTALL_HINT = "pip install 'complex-edit[anthropic]'"
DEFAULT_HOST = "api.anthropic.com"
# The Messages API needs an output budget. 8192 tokens is accepted by every current Claude model
# (older ones reject more) and holds a set_document of roughly 30 KB.
MAX_OUTPUT_TOKENS = 8192
TOO_LARGE_HINTS = ("prompt is too long", "too long", "too large", "context window", "maximum")


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError:
        raise RunError(
            "config",
            "The 'anthropic' provider needs the Anthropic SDK, which is not installed: "
            f"{INSTALL_HINT}",
        ) from None
    return anthropic


class AnthropicProvider:
    """Builds conversations; owns the process's SDK clients (one per base URL)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env if env is not None else os.environ
        self._clients: dict[tuple[str | None, str, bool], AsyncAnthropic] = {}

    def open(self, request: ConversationRequest) -> AnthropicConversation:
        base_url = request.settings.base_url or self._env.get(BASE_URL_VARIABLE) or None
        api_key = self._env.get("ANTHROPIC_API_KEY") or None
        token = None if api_key else self._env.get("ANTHROPIC_AUTH_TOKEN") or None
        if key_status("anthropic", self._env, base_url).missing:
            raise RunError(
                "config",
                "No Anthropic API key is configured. Set ANTHROPIC_API_KEY in the environment "
                "of the complex-edit server.",
            )
        client = self._client(base_url, token or api_key or PLACEHOLDER_KEY, bearer=bool(token))
        return AnthropicConversation(
            client,
            request,
            self._env,
            host=service_host(base_url, DEFAULT_HOST),
            keyless=api_key is None and token is None,
        )

    def _client(self, base_url: str | None, secret: str, *, bearer: bool) -> AsyncAnthropic:
        cache_key = (base_url, secret, bearer)
        client = self._clients.get(cache_key)
        if client is None:
            anthropic = _sdk()
            credential = {"auth_token": secret} if bearer else {"api_key": secret}
            client = anthropic.AsyncAnthropic(base_url=base_url, max_retries=0, **credential)
            self._clients[cache_key] = client
        return cast("AsyncAnthropic", client)


class AnthropicConversation:
    def __init__(
        self,
        client: AsyncAnthropic,
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
        self._system = request.system_instruction
        self._messages: list[dict[str, Any]] = [{"role": "user", "content": request.first_message}]
        self._views: FullViews[tuple[int, int]] = FullViews()
        self._tools = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in request.tools
        ]

    def stream_turn(self) -> AsyncIterator[TurnItem]:
        return stream_with_retries(self._budget, self._attempt, self._classify)

    async def _attempt(self) -> AsyncIterator[TurnItem]:
        """One streamed request: its calls as their blocks close, then the whole turn."""
        stream = await self._send()
        assembly = TurnAssembly(self._host, lambda text: scrub(text, self._env))
        try:
            async for event in stream:
                for item in assembly.add(event):
                    yield item
        finally:
            await aclose(stream)
        for item in assembly.end():
            yield item
        turn, content = assembly.finish()
        if content is not None:
            self._messages.append({"role": "assistant", "content": content})
        yield turn

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        at = len(self._messages)
        self._messages.append(
            {"role": "user", "content": [_tool_result_block(result) for result in results]}
        )
        placed = [((at, index), result) for index, result in enumerate(results)]
        for (message, block), stub in self._views.outdated(placed):
            self._messages[message]["content"][block] = _tool_result_block(stub)

    async def _send(self) -> AsyncStream[RawMessageStreamEvent]:
        extra: dict[str, Any] = {}
        if self._settings.temperature is not None:
            extra["temperature"] = min(self._settings.temperature, 1.0)
        stream: Any = await self._client.messages.create(
            model=self._model,
            max_tokens=MAX_OUTPUT_TOKENS,
            system=self._system,
            messages=cast(Any, self._messages),
            tools=cast(Any, self._tools),
            tool_choice={"type": "any"},
            timeout=self._limit,
            stream=True,
            extra_body=extra or None,
        )
        return cast("AsyncStream[RawMessageStreamEvent]", stream)

    def _classify(self, exc: Exception) -> Retry | RunError:
        anthropic = _sdk()
        if isinstance(exc, anthropic.APIStatusError):
            failure = self._map_status(exc)
            status = int(exc.status_code)
            if status not in RETRYABLE_STATUS:
                return failure
            return status_retry(status, failure, retry_after_seconds(exc.response.headers))
        if isinstance(exc, anthropic.APIConnectionError):
            return connection_failure(f"Could not reach the model service at {self._host}.")
        return transport_failure(exc, self._settings, self._env, KEY_VARIABLES)

    def _map_status(self, exc: Any) -> RunError:
        code = int(exc.status_code)
        kind = str(getattr(exc, "type", None) or "")
        detail = readable(scrub(_detail(exc), self._env))
        label = f"{code} {kind}".strip()
        if code in (401, 403) or kind in ("authentication_error", "permission_error"):
            hint = (
                f"No ANTHROPIC_API_KEY is set, and the server at {self._host} needs one."
                if self._keyless
                else "Check ANTHROPIC_API_KEY."
            )
            return RunError(
                "auth",
                f"The server at {self._host} refused the credentials ({label}): "
                f"{sentence(detail)} {hint}",
            )
        if code == 429 or kind == "rate_limit_error":
            return RunError("quota", f"The Anthropic API rate limit was hit ({label}): {detail}")
        if code == 413 or kind == "request_too_large":
            return RunError("too_large", f"The request is too large for the model ({detail}).")
        if code == 400 and any(hint in detail.lower() for hint in TOO_LARGE_HINTS):
            return RunError("too_large", f"The request is too large for the model ({detail}).")
        if code == 404:
            return RunError(
                "config",
                f"The model '{self._model}' was not found at {self._host} ({label}): {detail} "
                "Check the 'model' and 'baseUrl' settings.",
            )
        return RunError("model_error", f"The server at {self._host} answered {label}: {detail}")


def _tool_result_block(result: ToolResult) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": result.call.id or "",
        "content": result.text,
    }
    if not result.ok:
        block["is_error"] = True
    return block


def _detail(exc: Any) -> str:
    message = getattr(exc, "api_message", None)
    if isinstance(message, str) and message:
        return message
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        return json.dumps(body, ensure_ascii=False)
    if isinstance(body, str) and body:
        return body
    return str(getattr(exc, "message", "") or exc)
