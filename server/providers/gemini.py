"""Gemini through the official google-genai SDK: the only module that imports `google.genai`.

The SDK is imported lazily (it is slow to import) and one client is built per base URL and kept
by the provider object for the life of the process.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from complex_edit.server.outcome import CREDENTIALS, RunError, scrub
from complex_edit.server.providers._retry import (
    RETRYABLE_STATUS,
    Retry,
    RetryBudget,
    readable,
    sentence,
    service_host,
    status_retry,
    transport_failure,
)
from complex_edit.server.providers.access import base_url, key_status, uses_vertex
from complex_edit.server.providers.base import (
    ConversationRequest,
    FullViews,
    ToolResult,
    TurnItem,
)
from complex_edit.server.providers.gemini_turn import TurnAssembly
from complex_edit.server.providers.models import ModelParameters, parameters_for
from complex_edit.server.providers.streaming import aclose, stream_with_retries
from complex_edit.server.settings import DEFAULT_MODEL

if TYPE_CHECKING:
    from google import genai
    from google.genai import types

log = logging.getLogger("complex_edit.providers.gemini")

KEY_VARIABLES = CREDENTIALS["gemini"]
DEFAULT_HOST = "generativelanguage.googleapis.com"


def key_in_use(env: Mapping[str, str]) -> str | None:
    """The name of the variable whose key the SDK would pick (GOOGLE_API_KEY wins), or None
    for Vertex AI."""
    return key_status("gemini", env, None).variable


def _api_key(env: Mapping[str, str]) -> str | None:
    name = key_in_use(env)
    return env[name] if name is not None else None


class GeminiProvider:
    """Builds conversations; owns the process's SDK clients (one per base URL)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env if env is not None else os.environ
        self._clients: dict[str | None, genai.Client] = {}
        self._told_key = False

    def open(self, request: ConversationRequest) -> GeminiConversation:
        """Raises `RunError('config')` before any request: no key, or a parameter the model
        refuses (`models.parameters_for`)."""
        parameters = parameters_for(request.settings, request.settings.model)
        for note in parameters.notes:
            log.warning("%s", note)
        url = base_url("gemini", request.settings.base_url, self._env)
        if key_status("gemini", self._env, url).missing:
            raise RunError(
                "config",
                "No Gemini API key is configured. Set GEMINI_API_KEY (or GOOGLE_API_KEY) in the "
                "environment of the complex-edit server, or use Vertex AI with "
                "GOOGLE_GENAI_USE_VERTEXAI=true, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION.",
            )
        self._tell_key()
        client = self._client(request.settings.base_url)
        return GeminiConversation(client, request, parameters, self._env)

    def _tell_key(self) -> None:
        """Several key variables set: say which one is used (its name, never its value), once."""
        status = key_status("gemini", self._env, None)
        if self._told_key or not status.ignored:
            return
        self._told_key = True
        both = [name for name in KEY_VARIABLES if self._env.get(name)]
        log.warning(
            "Both %s are set; using %s (%s is ignored).",
            " and ".join(both),
            status.variable,
            ", ".join(status.ignored),
        )

    def _client(self, base_url: str | None) -> genai.Client:
        client = self._clients.get(base_url)
        if client is None:
            from google import genai
            from google.genai import types

            options = types.HttpOptions(base_url=base_url) if base_url else None
            client = genai.Client(api_key=_api_key(self._env), http_options=options)
            self._clients[base_url] = client
        return client


class GeminiConversation:
    def __init__(
        self,
        client: genai.Client,
        request: ConversationRequest,
        parameters: ModelParameters,
        env: Mapping[str, str],
    ) -> None:
        from google.genai import types

        self._client = client
        self._env = env
        self._settings = request.settings
        limit = request.limit
        self._budget = RetryBudget(request.settings, limit=limit, on_retry=request.on_retry)
        self._history: list[types.Content] = [
            types.Content(role="user", parts=[types.Part(text=request.first_message)])
        ]
        self._views: FullViews[tuple[int, int]] = FullViews()
        self._config = types.GenerateContentConfig(
            system_instruction=request.system_instruction,
            temperature=parameters.temperature,
            thinking_config=_thinking(parameters),
            tools=[
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(
                            name=tool.name,
                            description=tool.description,
                            parameters_json_schema=tool.parameters,
                        )
                        for tool in request.tools
                    ]
                )
            ],
            tool_config=types.ToolConfig(
                function_calling_config=types.FunctionCallingConfig(
                    mode=types.FunctionCallingConfigMode.ANY,
                    allowed_function_names=[tool.name for tool in request.tools],
                )
            ),
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            http_options=types.HttpOptions(
                timeout=int(limit * 1000),
                retry_options=types.HttpRetryOptions(attempts=1),
            ),
        )

    def stream_turn(self) -> AsyncIterator[TurnItem]:
        return stream_with_retries(self._budget, self._attempt, self._classify)

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        from google.genai import types

        at = len(self._history)
        self._history.append(
            types.Content(role="user", parts=[_function_response(result) for result in results])
        )
        placed = [((at, index), result) for index, result in enumerate(results)]
        for (content, part), stub in self._views.outdated(placed):
            parts = self._history[content].parts
            assert parts is not None  # a content of our own function responses
            parts[part] = _function_response(stub)

    async def _attempt(self) -> AsyncIterator[TurnItem]:
        """One streamed request: its calls and thoughts as they arrive, then the whole turn."""
        stream = await self._client.aio.models.generate_content_stream(
            model=self._settings.model, contents=self._history, config=self._config
        )
        assembly = TurnAssembly(lambda text: scrub(text, self._env))
        try:
            async for chunk in stream:
                for item in assembly.add(chunk):
                    yield item
        finally:
            await aclose(stream)
        turn, content = assembly.finish()
        if content is not None:
            self._history.append(content)
        yield turn

    def _classify(self, exc: Exception) -> Retry | RunError:
        from google.genai import errors

        if not isinstance(exc, errors.APIError):
            return transport_failure(
                exc, self._settings, self._env, KEY_VARIABLES, host=self._host()
            )
        code = int(exc.code or 0)
        failure = self._map_api_error(exc)
        if code not in RETRYABLE_STATUS:
            return failure
        return status_retry(code, failure, _retry_delay(exc.details) if code == 429 else None)

    def _host(self) -> str:
        vertex = uses_vertex("gemini", self._env)
        url = base_url("gemini", self._settings.base_url, self._env)
        return service_host(url, "Vertex AI" if vertex else DEFAULT_HOST)

    def _map_api_error(self, exc: Any) -> RunError:
        code = int(exc.code or 0)
        status = str(exc.status or "")
        detail = readable(scrub(str(exc.message or ""), self._env))
        label = f"{code} {status}".strip()
        if code in (401, 403) or _is_invalid_key(exc.details):
            return RunError(
                "auth",
                f"The Gemini API refused the credentials ({label}): {detail} "
                "Check GEMINI_API_KEY / GOOGLE_API_KEY.",
            )
        if code == 429:
            return RunError("quota", f"The Gemini API quota or rate limit was hit ({label}).")
        if code == 400 and _looks_too_large(detail):
            return RunError("too_large", f"The request is too large for the model ({detail}).")
        if code == 404 and not _about_the_model(exc):
            return RunError(
                "config",
                f"The service at {self._host()} answered {label} for the model request's URL, "
                f"and not as the Gemini API answers about a model ({detail}). Check baseUrl / "
                "GOOGLE_GEMINI_BASE_URL.",
            )
        if code == 404 or (code in (400, 410) and _says_retired(detail)):
            return RunError(
                "config",
                f"The model '{self._settings.model}' was not found or is no longer served "
                f"({label}). Check the 'model' setting; the current default is {DEFAULT_MODEL}.",
            )
        return RunError("model_error", sentence(f"The Gemini API answered {label}: {detail}"))


def _thinking(parameters: ModelParameters) -> types.ThinkingConfig | None:
    from google.genai import types

    if parameters.thinking_level is None and not parameters.include_thoughts:
        return None
    return types.ThinkingConfig(
        thinking_level=(
            types.ThinkingLevel(parameters.thinking_level.upper())
            if parameters.thinking_level is not None
            else None
        ),
        include_thoughts=parameters.include_thoughts or None,
    )


def _function_response(result: ToolResult) -> types.Part:
    from google.genai import types

    return types.Part(
        function_response=types.FunctionResponse(
            id=result.call.id, name=result.call.name, response=result.response
        )
    )


def _retry_delay(details: object) -> float | None:
    error = details.get("error") if isinstance(details, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("RetryInfo"):
            match = re.fullmatch(r"\s*([0-9.]+)s\s*", str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def _is_invalid_key(details: object) -> bool:
    error = details.get("error") if isinstance(details, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    return any(
        isinstance(item, dict) and str(item.get("reason", "")).startswith("API_KEY_")
        for item in (items if isinstance(items, list) else [])
    )


def _about_the_model(exc: Any) -> bool:
    """A 404 in the API's own error format (`{"error": {"status": "NOT_FOUND", ...}}`) that
    does not talk about a URL or a route: the API saying the model does not exist. An HTML or
    plain-text 404, or one about the path, comes from something else at the base URL."""
    details = exc.details
    error = details.get("error") if isinstance(details, dict) else None
    if not isinstance(error, dict) or str(error.get("status", "")) != "NOT_FOUND":
        return False
    message = str(error.get("message", "")).lower()
    return not any(word in message for word in ("url", "route", "path"))


def _says_retired(message: str) -> bool:
    lowered = message.lower()
    return "model" in lowered and any(
        word in lowered for word in ("no longer", "retired", "shut down", "discontinued")
    )


def _looks_too_large(message: str) -> bool:
    lowered = message.lower()
    return any(
        hint in lowered
        for hint in ("token count", "too large", "too long", "exceeds the maximum", "payload size")
    )
