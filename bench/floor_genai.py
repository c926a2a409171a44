"""The second floor for the overhead benchmark: the bare pygls server of ``floor_server.py``
plus one bare google-genai ``generate_content_stream`` call carrying the request complex-edit
sends (read to its end).

Before it sends the edit it was given, the server builds the model request the way
complex-edit's Gemini provider builds its first one (``server/providers/gemini.py``
``GeminiConversation``, with the system instruction, the tool declarations and the first
message of ``server/session.py``): the system prompt, every tool declaration, ``ANY`` function
calling over those tools, automatic function calling off, one attempt, the request timeout;
one user message holding the instruction and the numbered document, built from the text pygls
holds. It awaits the SDK's parsed answer and ignores it. One SDK client for the process (the
SDK is imported on the first command, as complex-edit does); no loop, no tools run, no diff, no
settings round trip, no progress, one process: what any server pays to send this request
through the official SDK and deliver the edit. ``bench/bench_overhead.py`` checks that the
request body equals ours.

Run: ``python bench/floor_genai.py [--server-root DIR]`` (stdio); the SDK reads
``GOOGLE_GEMINI_BASE_URL``. With ``--server-root`` the request is built by that checkout's code
(prompts, tools), as its server builds it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any


def _project_root() -> str:
    """This checkout, or the one of ``--server-root DIR`` (the request of the server measured)."""
    args = sys.argv[1:]
    if "--server-root" in args:
        return args[args.index("--server-root") + 1]
    return str(Path(__file__).resolve().parent.parent)


sys.path.insert(0, _project_root())

from floor_server import build  # noqa: E402

from complex_edit.edit_tools.registry import Toolbox  # noqa: E402
from complex_edit.prompts.loader import load  # noqa: E402
from complex_edit.server.settings import Settings  # noqa: E402

try:  # the layout of issue 16
    from complex_edit.server.session.loop import build_first_message
    from complex_edit.server.session.request import EditRequest
except ImportError:  # the flat layout before it
    from complex_edit.server.session import EditRequest, build_first_message  # type: ignore[no-redef,attr-defined]

if TYPE_CHECKING:
    from google import genai
    from google.genai import types


class ModelCall:
    """``ask`` for ``floor_server.build``: one streamed ``generate_content`` per command."""

    def __init__(self) -> None:
        self._settings = Settings()
        self._client: genai.Client | None = None

    async def ask(self, text: str, argument: Mapping[str, Any]) -> None:
        from google.genai import types

        uri = str(argument["textDocument"]["uri"])
        request = EditRequest(
            instruction=str(argument["prompt"]),
            text=text,
            settings=self._settings,
            path_label=uri.rsplit("/", 1)[-1] or uri,
        )
        contents = [
            types.Content(role="user", parts=[types.Part(text=build_first_message(request))])
        ]
        stream = await self.client().aio.models.generate_content_stream(
            model=self._settings.model, contents=contents, config=self.config()
        )
        async for _ in stream:
            pass

    def config(self) -> types.GenerateContentConfig:
        from google.genai import types

        tools = Toolbox.declarations()
        return types.GenerateContentConfig(
            system_instruction=load("system"),
            temperature=self._settings.temperature,
            thinking_config=types.ThinkingConfig(include_thoughts=True),
            tools=[
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(
                            name=tool.name,
                            description=tool.description,
                            parameters_json_schema=tool.parameters,
                        )
                        for tool in tools
                    ]
                )
            ],
            tool_config=types.ToolConfig(
                function_calling_config=types.FunctionCallingConfig(
                    mode=types.FunctionCallingConfigMode.ANY,
                    allowed_function_names=[tool.name for tool in tools],
                )
            ),
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            http_options=types.HttpOptions(
                timeout=int(self._settings.request_timeout_seconds * 1000),
                retry_options=types.HttpRetryOptions(attempts=1),
            ),
        )

    def client(self) -> genai.Client:
        if self._client is None:
            from google import genai

            key = os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")
            self._client = genai.Client(api_key=key)
        return self._client


if __name__ == "__main__":
    build(ask=ModelCall().ask).start_io()
