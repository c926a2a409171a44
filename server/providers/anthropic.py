"""Anthropic's Messages API through the official `anthropic` SDK: the only module that imports
`anthropic` (lazily: importing this module does not import the SDK).

Turns are streamed (`anthropic_turn`); the model's turns (thinking blocks and their signatures
included) are appended to the history as they came; each turn's tool results go back as one
user message of `tool_result` blocks, with `is_error` on the failed ones.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from complex_edit.server.outcome import CREDENTIALS, Reason, RunError, scrub
from complex_edit.server.providers import access
from complex_edit.server.providers._retry import readable, retry_after_seconds, service_host
from complex_edit.server.providers.access import ACCESS, key_status
from complex_edit.server.providers.anthropic_turn import TurnAssembly
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

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic, AsyncStream
    from anthropic.types import RawMessageStreamEvent

KEY_VARIABLES = CREDENTIALS["anthropic"]
BASE_URL_VARIABLE = ACCESS["anthropic"].base_url_variable
DEFAULT_MODEL = ACCESS["anthropic"].default_model
INSTALL_HINT = "pip install 'complex-edit[anthropic]'"
DEFAULT_HOST = "api.anthropic.com"
# The Messages API needs an output budget. 8192 tokens is accepted by every current Claude model
# (older ones reject more) and holds a set_document of roughly 30 KB.
MAX_OUTPUT_TOKENS = 8192
TOO_LARGE_HINTS = ("prompt is too long", "too long", "too large", "context window", "maximum")
# The API's error types that say more than their status.
REASON_BY_KIND: Mapping[str, Reason] = {
    "authentication_error": "auth",
    "permission_error": "auth",
    "rate_limit_error": "quota",
    "request_too_large": "too_large",
}


def _sdk() -> Any:
    return import_sdk("anthropic", "The 'anthropic' provider needs the Anthropic SDK", INSTALL_HINT)


class AnthropicProvider:
    """Builds conversations; owns the process's SDK clients (one per base URL)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env if env is not None else os.environ
        self._clients: dict[tuple[str | None, str, bool], AsyncAnthropic] = {}

    def open(self, request: ConversationRequest) -> AnthropicConversation:
        base_url = access.base_url("anthropic", request.settings.base_url, self._env)
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


class AnthropicConversation(StreamedConversation[dict[str, Any], dict[str, Any]]):
    API_NAME = "Anthropic API"
    KEY_VARIABLES = KEY_VARIABLES
    BASE_URL_VARIABLE = BASE_URL_VARIABLE

    def __init__(
        self,
        client: AsyncAnthropic,
        request: ConversationRequest,
        env: Mapping[str, str],
        *,
        host: str,
        keyless: bool,
    ) -> None:
        model = effective_model(request.settings, DEFAULT_MODEL)
        super().__init__(request, env, host=host, model=model, keyless=keyless)
        self._client = client
        # The prefix every turn re-sends (tools, system, first message) is cached: a breakpoint
        # on the system block covers the tools before it, one on the first message the rest.
        self._system = [_cached({"type": "text", "text": request.system_instruction})]
        first = _cached({"type": "text", "text": request.first_message})
        self._history = [{"role": "user", "content": [first]}]
        self._tools = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in request.tools
        ]

    def _assembly(self) -> TurnAssembly:
        return TurnAssembly(self._host, lambda text: scrub(text, self._env))

    async def _send(self) -> AsyncStream[RawMessageStreamEvent]:
        extra: dict[str, Any] = {}
        if self._settings.temperature is not None:
            extra["temperature"] = min(self._settings.temperature, 1.0)
        stream: Any = await self._client.messages.create(
            model=self._model,
            max_tokens=MAX_OUTPUT_TOKENS,
            system=cast(Any, self._system),
            messages=cast(Any, self._history),
            tools=cast(Any, self._tools),
            tool_choice={"type": "any"},
            timeout=self._limit,
            stream=True,
            extra_body=extra or None,
        )
        return cast("AsyncStream[RawMessageStreamEvent]", stream)

    def _result_block(self, result: ToolReply) -> dict[str, Any]:
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": result.call.id or "",
            "content": result.text,
        }
        if not result.ok:
            block["is_error"] = True
        return block

    def _results_entry(self, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        return {"role": "user", "content": blocks}

    def _blocks_of(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        return cast("list[dict[str, Any]]", entry["content"])

    def _read_status(self, exc: Exception) -> StatusAnswer | None:
        if not isinstance(exc, _sdk().APIStatusError):
            return None
        code = int(exc.status_code)
        kind = str(getattr(exc, "type", None) or "")
        return StatusAnswer(
            code=code,
            label=label(code, kind),
            detail=readable(scrub(_detail(exc), self._env)),
            kind=kind,
            delay=retry_after_seconds(exc.response.headers),
            raw=exc,
        )

    def _is_connection_error(self, exc: Exception) -> bool:
        return isinstance(exc, _sdk().APIConnectionError)

    def _reason(self, answer: StatusAnswer) -> Reason:
        return REASON_BY_KIND.get(answer.kind) or super()._reason(answer)

    def _about_the_model(self, answer: StatusAnswer) -> bool:
        return answer.kind == "not_found_error" and super()._about_the_model(answer)

    def _too_large(self, answer: StatusAnswer) -> bool:
        return hints_in(answer.detail, TOO_LARGE_HINTS)


def _cached(block: dict[str, Any]) -> dict[str, Any]:
    """`block` marked as the end of a prefix the API caches (`cache_control`)."""
    return {**block, "cache_control": {"type": "ephemeral"}}


def _detail(exc: Any) -> str:
    message = getattr(exc, "api_message", None)
    if isinstance(message, str) and message:
        return message
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        return json.dumps(body, ensure_ascii=False)
    if isinstance(body, str) and body:
        return body
    return ""  # no body: the status says all there is
