"""The provider a run uses, chosen by the `provider` setting.

`ProviderHub` is what runs hold: it implements the `Provider` protocol, builds each provider
(and so its SDK clients) on first use, and dispatches every conversation on
`request.settings.provider`. No SDK is imported until a conversation needs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from complex_edit.server.outcome import RunError
from complex_edit.server.providers import anthropic, gemini, openai
from complex_edit.server.providers.base import Conversation, ConversationRequest, Provider

_FACTORIES: Mapping[str, Callable[[Mapping[str, str]], Provider]] = {
    "gemini": gemini.GeminiProvider,
    "openai": openai.OpenAIProvider,
    "anthropic": anthropic.AnthropicProvider,
}


class ProviderHub:
    """One provider per kind, built lazily; `open` dispatches on the `provider` setting."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env if env is not None else os.environ
        self._providers: dict[str, Provider] = {}

    def open(self, request: ConversationRequest) -> Conversation:
        return self.provider(request.settings.provider).open(request)

    def provider(self, name: str) -> Provider:
        """The provider called `name`; `RunError('config')` for a name that does not exist."""
        provider = self._providers.get(name)
        if provider is None:
            factory = _FACTORIES.get(name)
            if factory is None:
                raise RunError(
                    "config",
                    f"Unknown provider {name!r} (setting 'provider'); use one of "
                    f"{', '.join(_FACTORIES)}.",
                )
            provider = factory(self._env)
            self._providers[name] = provider
        return provider
