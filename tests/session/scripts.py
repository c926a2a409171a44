"""A provider-neutral vocabulary for scripting model replies, rendered for each provider's wire
emulator (Gemini REST, OpenAI Chat Completions, Anthropic Messages), and a neutral view of what
the loop sent back.

    model.script(calls(replace("a", "b"), done(), ids=["c1", "c2"]), rate_limited(0.1))
    ...
    assert model.results(1)[0].id == "c1"

A `Harness` wraps one emulator: it renders steps into that API's replies and reads its recorded
requests (tool results, history, key, model) the same way for every provider.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, TypeVar

from tests.fakes import anthropic_emulator as anthropic
from tests.fakes import gemini_emulator as gemini
from tests.fakes import openai_emulator as openai
from tests.fakes.anthropic_emulator import AnthropicEmulator
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.openai_emulator import OpenAIEmulator

PROVIDERS = ("gemini", "openai", "anthropic")
KEY_VARIABLE = {
    "gemini": "GEMINI_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}
DEFAULT_MODEL = {
    "gemini": "gemini-3.8-flash",
    "openai": "gpt-5.4-mini",
    "anthropic": "claude-sonnet-4-6",
}

R = TypeVar("R", gemini.Reply, openai.Reply, anthropic.Reply)
Args = Mapping[str, Any]
CallSpec = tuple[str, Args]


# ------------------------------------------------------------------------------------------
# Steps: one scripted model reply (or fault) each
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    times: int | None = 1

    def repeat(self, times: int | None) -> Self:
        """The same reply for `times` consecutive requests (None: forever)."""
        return dataclasses.replace(self, times=times)


@dataclass(frozen=True)
class Calls(Step):
    """A model turn made of tool calls; `truncated`: cut off at the output-token limit;
    `thinking`: (text, signature) the model's reasoning, as a thought signature (Gemini) or a
    thinking block (Anthropic); Chat Completions has no such thing."""

    calls: tuple[CallSpec, ...] = ()
    ids: tuple[str | None, ...] | None = None
    usage: tuple[int, int] = (100, 20)
    truncated: bool = False
    thinking: tuple[str, str] | None = None
    cached: int | None = None
    """Input tokens the service read from its prompt cache."""


@dataclass(frozen=True)
class RawArguments(Step):
    """One call whose arguments are sent as this exact JSON text (OpenAI only)."""

    name: str = ""
    raw: str = ""


@dataclass(frozen=True)
class TextOnly(Step):
    """A reply with text and no tool call."""

    text: str = "I think the document is fine."


@dataclass(frozen=True)
class RateLimited(Step):
    """429; `delay`: the retry delay the service asks for (seconds)."""

    delay: float | None = None


@dataclass(frozen=True)
class ServerError(Step):
    status: int = 503


@dataclass(frozen=True)
class Overloaded(Step):
    """The provider's "overloaded" error (Anthropic 529, others 503)."""


@dataclass(frozen=True)
class AuthError(Step):
    status: int = 401


@dataclass(frozen=True)
class TooLarge(Step):
    """The prompt does not fit the model's context window."""


@dataclass(frozen=True)
class Blocked(Step):
    """A safety stop or refusal."""


@dataclass(frozen=True)
class ModelNotFound(Step):
    pass


@dataclass(frozen=True)
class Hang(Step):
    """The request is read and never answered."""


@dataclass(frozen=True)
class HtmlPage(Step):
    """HTTP 200 with an HTML page."""


@dataclass(frozen=True)
class TruncatedJson(Step):
    """HTTP 200 whose JSON stops half-way."""


@dataclass(frozen=True)
class Streamed(Step):
    """`inner` streamed in many events `gap` seconds apart (Gemini: one part per chunk; OpenAI
    and Anthropic: arguments in three fragments cut mid-string). `break_after_calls`: the
    connection drops once that many calls are complete and the next has begun;
    `stall_after_calls`: the stream stalls there instead."""

    inner: Calls = Calls()
    gap: float = 0.05
    break_after_calls: int | None = None
    stall_after_calls: int | None = None


def streamed(
    inner: Calls,
    *,
    gap: float = 0.05,
    break_after_calls: int | None = None,
    stall_after_calls: int | None = None,
) -> Streamed:
    return Streamed(
        inner=inner,
        gap=gap,
        break_after_calls=break_after_calls,
        stall_after_calls=stall_after_calls,
    )


# Server-sent events before call k of a streamed turn has begun (calls before it complete):
# Gemini, one part per chunk; OpenAI, a role chunk then a head and three argument fragments
# per call; Anthropic, message_start then start, three deltas and stop per block.
EVENTS_BEFORE_CALL = {
    "gemini": lambda k: k,
    "openai": lambda k: 1 + 4 * k + 1,
    "anthropic": lambda k: 1 + 5 * k + 1,
}


def stream_reply(provider: str, step: Streamed, reply: R) -> R:
    """`reply` (the rendering of `step.inner`) with `step`'s stream shape."""
    reply = reply.streamed(chunk_delay=step.gap)
    for count, fault in ((step.break_after_calls, "break"), (step.stall_after_calls, "stall")):
        if count is not None:
            events = EVENTS_BEFORE_CALL[provider](count)
            reply = dataclasses.replace(reply, fault=fault, stall_after=events)
    return reply


def calls(
    *items: CallSpec,
    ids: Sequence[str | None] | None = None,
    usage: tuple[int, int] = (100, 20),
    thinking: tuple[str, str] | None = None,
    cached: int | None = None,
) -> Calls:
    chosen = tuple(ids) if ids is not None else None
    return Calls(calls=items, ids=chosen, usage=usage, thinking=thinking, cached=cached)


def truncated(*items: CallSpec) -> Calls:
    """Calls cut off by the output-token limit (MAX_TOKENS / length / max_tokens)."""
    return Calls(calls=items, truncated=True)


def raw_arguments(name: str, raw: str) -> RawArguments:
    return RawArguments(name=name, raw=raw)


def text_only(text: str = "I think the document is fine.") -> TextOnly:
    return TextOnly(text=text)


def rate_limited(delay: float | None = None) -> RateLimited:
    return RateLimited(delay=delay)


def server_error(status: int = 503) -> ServerError:
    return ServerError(status=status)


def overloaded() -> Overloaded:
    return Overloaded()


def auth_error(status: int = 401) -> AuthError:
    return AuthError(status=status)


def too_large() -> TooLarge:
    return TooLarge()


def blocked() -> Blocked:
    return Blocked()


def model_not_found() -> ModelNotFound:
    return ModelNotFound()


def hang() -> Hang:
    return Hang()


def html_page() -> HtmlPage:
    return HtmlPage()


def truncated_json() -> TruncatedJson:
    return TruncatedJson()


def done(message: str = "done") -> CallSpec:
    return ("complete_task", {"success": True, "message": message})


def give_up(error: str = "cannot do it") -> CallSpec:
    return ("complete_task", {"success": False, "error": error})


def replace(old: str, new: str) -> CallSpec:
    return ("replace_text", {"old_text": old, "new_text": new})


# ------------------------------------------------------------------------------------------
# Rendering, per provider
# ------------------------------------------------------------------------------------------


def render_gemini(step: Step) -> gemini.Reply:
    reply: gemini.Reply
    match step:
        case Streamed():
            reply = stream_reply("gemini", step, render_gemini(step.inner).in_chunks())
        case Calls():
            reply = gemini.Reply.function_calls(
                list(step.calls),
                ids=step.ids,
                usage=step.usage,
                finish_reason="MAX_TOKENS" if step.truncated else "STOP",
                thought_signature=step.thinking[1].encode() if step.thinking else None,
                cached_tokens=step.cached,
            )
        case TextOnly():
            reply = gemini.Reply.text(step.text)
        case RateLimited():
            delay = f"{step.delay:g}s" if step.delay is not None else None
            reply = gemini.Reply.rate_limited(delay)
        case ServerError():
            reply = gemini.Reply.error(step.status)
        case Overloaded():
            reply = gemini.Reply.error(503)
        case AuthError():
            reply = gemini.Reply.error(step.status)
        case TooLarge():
            reply = gemini.Reply.input_too_large()
        case Blocked():
            reply = gemini.Reply.finish("SAFETY", [])
        case ModelNotFound():
            reply = gemini.Reply.error(404)
        case Hang():
            reply = gemini.Reply.hang()
        case HtmlPage():
            reply = gemini.Reply.html(status=200)
        case TruncatedJson():
            reply = gemini.Reply.truncated_json()
        case _:
            raise NotImplementedError(f"{type(step).__name__} has no Gemini form")
    return reply.repeat(step.times)


def render_openai(step: Step) -> openai.Reply:
    reply: openai.Reply
    match step:
        case Streamed():
            reply = stream_reply("openai", step, render_openai(step.inner))
        case Calls():
            reply = openai.Reply.tool_calls(
                list(step.calls),
                ids=step.ids,
                usage=step.usage,
                finish_reason="length" if step.truncated else "tool_calls",
                cached_tokens=step.cached,
            )
        case RawArguments():
            reply = openai.Reply.tool_calls([openai.Call(step.name, step.raw)])
        case TextOnly():
            reply = openai.Reply.text(step.text)
        case RateLimited():
            reply = openai.Reply.rate_limited(retry_after=step.delay)
        case ServerError():
            reply = openai.Reply.error(step.status)
        case Overloaded():
            reply = openai.Reply.error(503)
        case AuthError():
            reply = (
                openai.Reply.invalid_api_key()
                if step.status == 401
                else openai.Reply.error(step.status)
            )
        case TooLarge():
            reply = openai.Reply.context_too_long()
        case Blocked():
            reply = openai.Reply.finish("content_filter")
        case ModelNotFound():
            reply = openai.Reply.model_not_found()
        case Hang():
            reply = openai.Reply.hang()
        case HtmlPage():
            reply = openai.Reply.html(status=200)
        case TruncatedJson():
            reply = openai.Reply.truncated_json()
        case _:
            raise NotImplementedError(f"{type(step).__name__} has no OpenAI form")
    return reply.repeat(step.times)


def render_anthropic(step: Step) -> anthropic.Reply:
    reply: anthropic.Reply
    match step:
        case Streamed():
            reply = stream_reply("anthropic", step, render_anthropic(step.inner))
        case Calls():
            reply = anthropic.Reply.tool_use(
                list(step.calls),
                ids=step.ids,
                usage=step.usage,
                stop_reason="max_tokens" if step.truncated else "tool_use",
                thinking=step.thinking,
                cache_read_tokens=step.cached,
            )
        case TextOnly():
            reply = anthropic.Reply.text(step.text)
        case RateLimited():
            reply = anthropic.Reply.rate_limited(retry_after=step.delay)
        case ServerError():
            reply = anthropic.Reply.error(step.status)
        case Overloaded():
            reply = anthropic.Reply.overloaded()
        case AuthError():
            reply = anthropic.Reply.error(step.status)
        case TooLarge():
            reply = anthropic.Reply.prompt_too_long()
        case Blocked():
            reply = anthropic.Reply.refusal()
        case ModelNotFound():
            reply = anthropic.Reply.not_found()
        case Hang():
            reply = anthropic.Reply.hang()
        case HtmlPage():
            reply = anthropic.Reply.html(status=200)
        case TruncatedJson():
            reply = anthropic.Reply.truncated_json()
        case _:
            raise NotImplementedError(f"{type(step).__name__} has no Anthropic form")
    return reply.repeat(step.times)


# ------------------------------------------------------------------------------------------
# Harnesses: one emulator, read the same way for every provider
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SentResult:
    """One tool result as the loop sent it to the model."""

    id: str | None
    text: str
    is_error: bool | None
    """None where the API has no error flag (Chat Completions)."""
    name: str | None = None
    """The tool's name, where the API sends it back (Gemini)."""


class Harness(Protocol):
    provider: str
    base_url: str

    @property
    def key_variable(self) -> str: ...

    def reset(self) -> None: ...

    def script(self, *steps: Step) -> None: ...

    @property
    def request_count(self) -> int: ...

    def api_key(self, index: int) -> str | None: ...

    def model(self, index: int) -> str | None: ...

    def system_text(self, index: int) -> str: ...

    def first_message(self, index: int) -> str: ...

    def tool_names(self, index: int) -> list[str]: ...

    def forces_tool_calls(self, index: int) -> bool: ...

    def results(self, index: int) -> list[SentResult]:
        """The tool results sent in request `index` (the answer to the previous turn)."""
        ...

    def history_results(self, index: int) -> list[SentResult]:
        """Every tool result in the history of request `index`, oldest first."""
        ...

    def model_turns(self, index: int) -> int:
        """How many model turns the history of request `index` holds."""
        ...

    def model_turn_bodies(self, index: int) -> list[Any]:
        """The model turns of request `index` exactly as sent (parsed JSON)."""
        ...

    def request_bytes(self, index: int) -> bytes:
        """The body of request `index` as it went over the wire."""
        ...

    async def wait_for_requests(self, n: int) -> None: ...

    @property
    def in_flight(self) -> int: ...

    async def wait_for_disconnect(self) -> bool: ...

    @property
    def problems(self) -> list[str]: ...


class _Base:
    provider: str
    emulator: Any

    @property
    def key_variable(self) -> str:
        return KEY_VARIABLE[self.provider]

    @property
    def base_url(self) -> str:
        return str(self.emulator.base_url)

    def reset(self) -> None:
        self.emulator.reset()

    @property
    def request_count(self) -> int:
        return len(self.emulator.requests)

    @property
    def in_flight(self) -> int:
        """Requests being answered right now."""
        return int(self.emulator.in_flight)

    def model(self, index: int) -> str | None:
        return self.emulator.requests[index].model  # type: ignore[no-any-return]

    def api_key(self, index: int) -> str | None:
        return self.emulator.requests[index].api_key  # type: ignore[no-any-return]

    def system_text(self, index: int) -> str:
        return str(self.emulator.requests[index].system_text)

    def request_bytes(self, index: int) -> bytes:
        return bytes(self.emulator.requests[index].raw_body)

    async def wait_for_requests(self, n: int) -> None:
        await self.emulator.wait_for_requests_async(n)

    async def wait_for_disconnect(self) -> bool:
        return bool(await self.emulator.wait_for_disconnect_async())

    @property
    def problems(self) -> list[str]:
        return list(self.emulator.problems)


class GeminiHarness(_Base):
    provider = "gemini"

    def __init__(self, emulator: GeminiEmulator) -> None:
        self.emulator = emulator

    def script(self, *steps: Step) -> None:
        self.emulator.enqueue(*(render_gemini(step) for step in steps))

    def first_message(self, index: int) -> str:
        contents = self.emulator.requests[index].contents
        return "\n".join(part.get("text", "") for part in contents[0]["parts"])

    def tool_names(self, index: int) -> list[str]:
        return [d["name"] for d in self.emulator.requests[index].function_declarations]

    def forces_tool_calls(self, index: int) -> bool:
        config = self.emulator.requests[index].tool_config or {}
        return bool(config.get("functionCallingConfig", {}).get("mode") == "ANY")

    def results(self, index: int) -> list[SentResult]:
        return [_gemini_result(r) for r in self.emulator.requests[index].function_responses]

    def history_results(self, index: int) -> list[SentResult]:
        return [
            _gemini_result(part["functionResponse"])
            for content in self.emulator.requests[index].contents
            for part in content.get("parts", [])
            if "functionResponse" in part
        ]

    def model_turns(self, index: int) -> int:
        return len(self.model_turn_bodies(index))

    def model_turn_bodies(self, index: int) -> list[Any]:
        return [c for c in self.emulator.requests[index].contents if c.get("role") == "model"]


def _gemini_result(response: Mapping[str, Any]) -> SentResult:
    body = response.get("response", {})
    is_error = "error" in body
    text = str(body.get("error" if is_error else "result"))
    return SentResult(response.get("id"), text, is_error, response.get("name"))


class OpenAIHarness(_Base):
    provider = "openai"

    def __init__(self, emulator: OpenAIEmulator) -> None:
        self.emulator = emulator

    def script(self, *steps: Step) -> None:
        self.emulator.enqueue(*(render_openai(step) for step in steps))

    def first_message(self, index: int) -> str:
        users = [m for m in self.emulator.requests[index].messages if m.get("role") == "user"]
        return str(users[0]["content"])

    def tool_names(self, index: int) -> list[str]:
        return list(self.emulator.requests[index].function_names)

    def forces_tool_calls(self, index: int) -> bool:
        return bool(self.emulator.requests[index].tool_choice == "required")

    def results(self, index: int) -> list[SentResult]:
        return [_openai_result(m) for m in self.emulator.requests[index].tool_messages]

    def history_results(self, index: int) -> list[SentResult]:
        messages = self.emulator.requests[index].messages
        return [_openai_result(m) for m in messages if m.get("role") == "tool"]

    def model_turns(self, index: int) -> int:
        return len(self.model_turn_bodies(index))

    def model_turn_bodies(self, index: int) -> list[Any]:
        messages = self.emulator.requests[index].messages
        return [m for m in messages if m.get("role") == "assistant"]


def _openai_result(message: Mapping[str, Any]) -> SentResult:
    return SentResult(message.get("tool_call_id"), str(message.get("content")), None)


class AnthropicHarness(_Base):
    provider = "anthropic"

    def __init__(self, emulator: AnthropicEmulator) -> None:
        self.emulator = emulator

    def script(self, *steps: Step) -> None:
        self.emulator.enqueue(*(render_anthropic(step) for step in steps))

    def first_message(self, index: int) -> str:
        content = self.emulator.requests[index].messages[0]["content"]
        if isinstance(content, list):
            return "\n".join(str(block.get("text", "")) for block in content)
        return str(content)

    def tool_names(self, index: int) -> list[str]:
        return list(self.emulator.requests[index].function_names)

    def forces_tool_calls(self, index: int) -> bool:
        return bool(self.emulator.requests[index].tool_choice == {"type": "any"})

    def results(self, index: int) -> list[SentResult]:
        return [_anthropic_result(b) for b in self.emulator.requests[index].tool_results]

    def history_results(self, index: int) -> list[SentResult]:
        return [
            _anthropic_result(block)
            for message in self.emulator.requests[index].messages
            if message.get("role") == "user" and isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]

    def model_turns(self, index: int) -> int:
        return len(self.model_turn_bodies(index))

    def model_turn_bodies(self, index: int) -> list[Any]:
        messages = self.emulator.requests[index].messages
        return [m for m in messages if m.get("role") == "assistant"]


def _anthropic_result(block: Mapping[str, Any]) -> SentResult:
    return SentResult(
        block.get("tool_use_id"), str(block.get("content")), bool(block.get("is_error"))
    )


def harness(
    provider: str,
    *,
    gemini_emulator: GeminiEmulator,
    openai_emulator: OpenAIEmulator,
    anthropic_emulator: AnthropicEmulator,
) -> Harness:
    if provider == "gemini":
        return GeminiHarness(gemini_emulator)
    if provider == "openai":
        return OpenAIHarness(openai_emulator)
    return AnthropicHarness(anthropic_emulator)
