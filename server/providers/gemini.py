"""Gemini through the official google-genai SDK: the only module that imports `google.genai`.

The SDK is imported lazily (it is slow to import) and one client is built per base URL and kept
by the provider object for the life of the process.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING

from complex_edit.server.outcome import CREDENTIALS, Reason, RunError, scrub
from complex_edit.server.providers._retry import readable, service_host
from complex_edit.server.providers.access import ACCESS, base_url, key_status, uses_vertex
from complex_edit.server.providers.base import PLACEHOLDER_KEY, ConversationRequest, ToolReply
from complex_edit.server.providers.conversation import (
    StatusAnswer,
    StreamedConversation,
    about_a_url,
    hints_in,
    label,
    said,
)
from complex_edit.server.providers.gemini_turn import TurnAssembly
from complex_edit.server.providers.models import ModelParameters, parameters_for
from complex_edit.server.settings import DEFAULT_MODEL, Settings

if TYPE_CHECKING:
    from google import genai
    from google.genai import types

log = logging.getLogger("complex_edit.providers.gemini")

KEY_VARIABLES = CREDENTIALS["gemini"]
BASE_URL_VARIABLE = ACCESS["gemini"].base_url_variable
DEFAULT_HOST = "generativelanguage.googleapis.com"
TOO_LARGE_HINTS = ("token count", "too large", "too long", "exceeds the maximum", "payload size")


def key_in_use(env: Mapping[str, str]) -> str | None:
    """The name of the variable whose key is used (an editor's stored key, else the SDK's
    rule: GOOGLE_API_KEY wins), or None for Vertex AI."""
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
        """Raises `RunError('config')` before any request: no key for Google's own endpoint,
        or a parameter the model refuses (`models.parameters_for`). With a base URL (a local
        proxy or emulator) the key is optional: a placeholder is sent."""
        parameters = parameters_for(request.settings, request.settings.model)
        for note in parameters.notes:
            log.warning("%s", note)
        url = base_url("gemini", request.settings.base_url, self._env)
        status = key_status("gemini", self._env, url)
        if status.missing:
            raise RunError(
                "config",
                "No Gemini API key is configured. Set GEMINI_API_KEY (or GOOGLE_API_KEY) in the "
                "environment of the complex-edit server, or use Vertex AI with "
                "GOOGLE_GENAI_USE_VERTEXAI=true, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, "
                "or point the 'baseUrl' setting (or GOOGLE_GEMINI_BASE_URL) at a server that "
                "needs no key.",
            )
        self._tell_key()
        keyless = status.variable is None and not status.vertex
        client = self._client(request.settings.base_url, keyless=keyless)
        return GeminiConversation(client, request, parameters, self._env, keyless=keyless)

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

    def _client(self, base_url: str | None, *, keyless: bool) -> genai.Client:
        client = self._clients.get(base_url)
        if client is None:
            from google import genai
            from google.genai import types

            options = types.HttpOptions(base_url=base_url) if base_url else None
            if keyless:  # the SDK would look for Vertex AI in os.environ: this env has none
                client = genai.Client(api_key=PLACEHOLDER_KEY, vertexai=False, http_options=options)
            else:
                client = genai.Client(api_key=_api_key(self._env), http_options=options)
            self._clients[base_url] = client
        return client


class GeminiConversation(StreamedConversation["types.Content", "types.Part"]):
    API_NAME = "Gemini API"
    KEY_VARIABLES = KEY_VARIABLES
    BASE_URL_VARIABLE = BASE_URL_VARIABLE

    def __init__(
        self,
        client: genai.Client,
        request: ConversationRequest,
        parameters: ModelParameters,
        env: Mapping[str, str],
        *,
        keyless: bool = False,
    ) -> None:
        from google.genai import types

        host = _host(request.settings, env)
        super().__init__(request, env, host=host, model=parameters.model, keyless=keyless)
        self._client = client
        self._history = [types.Content(role="user", parts=[types.Part(text=request.first_message)])]
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
                timeout=int(self._limit * 1000),
                retry_options=types.HttpRetryOptions(attempts=1),
            ),
        )

    async def _send(self) -> AsyncIterator[types.GenerateContentResponse]:
        return await self._client.aio.models.generate_content_stream(
            model=self._settings.model, contents=self._history, config=self._config
        )

    def _assembly(self) -> TurnAssembly:
        return TurnAssembly(lambda text: scrub(text, self._env))

    def _result_block(self, result: ToolReply) -> types.Part:
        from google.genai import types

        return types.Part(
            function_response=types.FunctionResponse(
                id=result.call.id, name=result.call.name, response=result.response
            )
        )

    def _results_entry(self, blocks: list[types.Part]) -> types.Content:
        from google.genai import types

        return types.Content(role="user", parts=blocks)

    def _blocks_of(self, entry: types.Content) -> list[types.Part]:
        assert entry.parts is not None  # a content of our own function responses
        return entry.parts

    def _read_status(self, exc: Exception) -> StatusAnswer | None:
        from google.genai import errors

        if not isinstance(exc, errors.APIError):
            return None
        code = int(exc.code or 0)
        return StatusAnswer(
            code=code,
            label=label(code, str(exc.status or "")),
            detail=readable(scrub(str(exc.message or ""), self._env)),
            delay=_retry_delay(exc.details) if code == 429 else None,
            raw=exc,
        )

    def _reason(self, answer: StatusAnswer) -> Reason:
        if _is_invalid_key(answer.raw.details):
            return "auth"
        reason = super()._reason(answer)
        if reason == "model_error" and answer.code in (400, 410) and _says_retired(answer.detail):
            return "config"
        return reason

    def _too_large(self, answer: StatusAnswer) -> bool:
        return hints_in(answer.detail, TOO_LARGE_HINTS)

    def _auth_message(self, answer: StatusAnswer) -> str:
        hint = (
            f"No GEMINI_API_KEY is set, and the server at {self._host} needs one."
            if self._keyless
            else "Check GEMINI_API_KEY / GOOGLE_API_KEY."
        )
        return (
            f"The Gemini API refused the credentials ({answer.label}){said(answer.detail)} {hint}"
        )

    def _quota_message(self, answer: StatusAnswer) -> str:
        return f"The Gemini API quota or rate limit was hit ({answer.label})."

    def _not_found_message(self, answer: StatusAnswer) -> str:
        if answer.code == 404 and not self._about_the_model(answer):
            return super()._not_found_message(answer)
        return (
            f"The model '{self._settings.model}' was not found or is no longer served "
            f"({answer.label}). Check the 'model' setting; the current default is {DEFAULT_MODEL}."
        )

    def _about_the_model(self, answer: StatusAnswer) -> bool:
        """In the API's own error format (`{"error": {"status": "NOT_FOUND", ...}}`); an HTML
        or plain-text 404 comes from something else at the base URL."""
        details = answer.raw.details
        error = details.get("error") if isinstance(details, dict) else None
        if not isinstance(error, dict) or str(error.get("status", "")) != "NOT_FOUND":
            return False
        return not about_a_url(str(error.get("message", "")))

    def _other_message(self, answer: StatusAnswer) -> str:
        return f"The Gemini API answered {answer.label}{said(answer.detail)}"


def _host(settings: Settings, env: Mapping[str, str]) -> str:
    vertex = uses_vertex("gemini", env)
    url = base_url("gemini", settings.base_url, env)
    return service_host(url, "Vertex AI" if vertex else DEFAULT_HOST)


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


def _says_retired(message: str) -> bool:
    lowered = message.lower()
    return "model" in lowered and any(
        word in lowered for word in ("no longer", "retired", "shut down", "discontinued")
    )
