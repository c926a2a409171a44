"""What every provider's conversation shares: the streamed turn, the history of tool results,
and one table from an HTTP error status to the reason a run ends with.

An adapter subclasses `StreamedConversation` and keeps only what differs: the request it sends
(`_send`), how its stream becomes a turn (`_assembly`), how its tool results are written
(`_result_block`, `_results_entry`, `_blocks_of`), how its SDK's exceptions read
(`_read_status`, `_is_connection_error`), and, where its API says more than the status, the
reason and the wording (`_reason`, `_auth_message`, …).
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from complex_edit.server.outcome import Reason, RunError
from complex_edit.server.providers._retry import (
    RETRYABLE_STATUS,
    Retry,
    RetryBudget,
    connection_failure,
    sentence,
    status_retry,
    transport_failure,
)
from complex_edit.server.providers.access import nothing_listening
from complex_edit.server.providers.base import (
    ConversationRequest,
    FullViews,
    ModelTurn,
    ToolReply,
    TurnItem,
)
from complex_edit.server.providers.streaming import aclose, stream_with_retries

REASON_BY_STATUS: Mapping[int, Reason] = {
    401: "auth",
    403: "auth",
    404: "config",
    413: "too_large",
    429: "quota",
}
"""The reason an HTTP error answer ends a run with; any other status is `model_error`."""
# Statuses whose answer is `too_large` when its text says the prompt does not fit.
MAYBE_TOO_LARGE = frozenset({400, 422})

Entry = TypeVar("Entry")
Block = TypeVar("Block")
Reply = TypeVar("Reply", covariant=True)


@dataclass(frozen=True)
class StatusAnswer:
    """An HTTP error answer, as the adapter read it from its SDK's exception. `label`: the
    status and the API's own error code (`404 NOT_FOUND`); `detail`: the service's message,
    one line, credentials removed; `kind`: the API's error code or type (`model_not_found`);
    `delay`: the retry delay the service asked for; `final`: never retried, whatever the
    status (an exhausted quota); `raw`: the SDK's exception, for what an adapter reads
    beyond these."""

    code: int
    label: str
    detail: str
    kind: str = ""
    delay: float | None = None
    final: bool = False
    raw: Any = None


class Assembly(Protocol[Reply]):
    """One streamed turn being put together (the adapters' `*_turn.TurnAssembly`)."""

    def add(self, event: Any) -> Sequence[TurnItem]: ...

    def end(self) -> Sequence[TurnItem]: ...

    def finish(self) -> tuple[ModelTurn, Reply | None]: ...


class StreamedConversation(Generic[Entry, Block]):
    """A conversation whose turns are streamed and retried (`streaming.stream_with_retries`),
    whose history is a list of the API's own messages (`Entry`), and whose tool results of one
    turn go back as one message of `Block`s (see `add_tool_results`)."""

    API_NAME = ""
    """How messages name the API ("The OpenAI API quota …")."""
    KEY_VARIABLES: tuple[str, ...] = ()
    """The credential variables, removed from every message; the first is the one to set."""
    BASE_URL_VARIABLE = ""
    """The environment variable that sets the base URL when the setting does not."""

    def __init__(
        self,
        request: ConversationRequest,
        env: Mapping[str, str],
        *,
        host: str,
        model: str,
        keyless: bool = False,
    ) -> None:
        self._env = env
        self._host = host
        self._model = model
        self._keyless = keyless
        self._settings = request.settings
        self._limit = request.limit
        self._budget = RetryBudget(request.settings, limit=self._limit, on_retry=request.on_retry)
        self._history: list[Entry] = []
        self._views: FullViews[Any] = FullViews()

    # -- the turn --------------------------------------------------------------------------

    def stream_turn(self) -> AsyncIterator[TurnItem]:
        return stream_with_retries(self._budget, self._attempt, self._classify)

    async def _attempt(self) -> AsyncIterator[TurnItem]:
        """One streamed request: its calls and thoughts as they arrive, then the whole turn,
        whose reply joins the history."""
        stream = await self._send()
        assembly = self._assembly()
        try:
            async for event in stream:
                for item in assembly.add(event):
                    yield item
        finally:
            await aclose(stream)
        for item in assembly.end():
            yield item
        turn, entry = assembly.finish()
        if entry is not None:
            self._history.append(entry)
        yield turn

    async def _send(self) -> AsyncIterator[Any]:
        """Send the history; the stream of the answer."""
        raise NotImplementedError

    def _assembly(self) -> Assembly[Entry]:
        raise NotImplementedError

    # -- tool results ----------------------------------------------------------------------

    def add_tool_results(self, results: Sequence[ToolReply]) -> None:
        """One message holding every result of the turn; an older full view of the document
        becomes the `STALE_VIEW` stub in place (`FullViews`)."""
        at = len(self._history)
        self._history.append(self._results_entry([self._result_block(r) for r in results]))
        placed = [((at, index), result) for index, result in enumerate(results)]
        for (entry, block), stub in self._views.outdated(placed):
            self._blocks_of(self._history[entry])[block] = self._result_block(stub)

    def _result_block(self, result: ToolReply) -> Block:
        raise NotImplementedError

    def _results_entry(self, blocks: list[Block]) -> Entry:
        raise NotImplementedError

    def _blocks_of(self, entry: Entry) -> list[Block]:
        raise NotImplementedError

    # -- failures --------------------------------------------------------------------------

    def _classify(self, exc: Exception) -> Retry | RunError:
        answer = self._read_status(exc)
        if answer is not None:
            failure = self._map_status(answer)
            if answer.code not in RETRYABLE_STATUS or answer.final:
                return failure
            return status_retry(answer.code, failure, answer.delay)
        if self._is_connection_error(exc):
            unreached = f"Could not reach the model service at {self._host}."
            return connection_failure(f"{unreached} {nothing_listening(self._host)}".rstrip())
        return transport_failure(exc, self._settings, self._env, self.KEY_VARIABLES, self._host)

    def _read_status(self, exc: Exception) -> StatusAnswer | None:
        """The HTTP error answer `exc` carries; None for any other failure."""
        raise NotImplementedError

    def _is_connection_error(self, exc: Exception) -> bool:
        return False

    def _map_status(self, answer: StatusAnswer) -> RunError:
        reason = self._reason(answer)
        return RunError(reason, self._message(reason, answer))

    def _reason(self, answer: StatusAnswer) -> Reason:
        """`REASON_BY_STATUS`, and `too_large` for a 400 or 422 that says so."""
        if answer.code in MAYBE_TOO_LARGE and self._too_large(answer):
            return "too_large"
        return REASON_BY_STATUS.get(answer.code, "model_error")

    def _too_large(self, answer: StatusAnswer) -> bool:
        """The answer says the prompt does not fit the model."""
        return False

    def _message(self, reason: Reason, answer: StatusAnswer) -> str:
        match reason:
            case "auth":
                return self._auth_message(answer)
            case "quota":
                return self._quota_message(answer)
            case "too_large":
                return f"The request is too large for the model{said(answer.detail)}"
            case "config":
                return self._not_found_message(answer)
            case _:
                return self._other_message(answer)

    def _auth_message(self, answer: StatusAnswer) -> str:
        key = self.KEY_VARIABLES[0]
        hint = (
            f"No {key} is set, and the server at {self._host} needs one."
            if self._keyless
            else f"Check {key}."
        )
        return (
            f"The server at {self._host} refused the credentials ({answer.label})"
            f"{said(mask_key_echo(answer.detail))} {hint}"
        )

    def _quota_message(self, answer: StatusAnswer) -> str:
        return (
            f"The {self.API_NAME} quota or rate limit was hit ({answer.label}){said(answer.detail)}"
        )

    def _not_found_message(self, answer: StatusAnswer) -> str:
        """The API saying the model does not exist, or something else at the base URL."""
        if self._about_the_model(answer):
            return (
                f"The model '{self._model}' was not found at {self._host} ({answer.label})"
                f"{said(answer.detail)} Check the 'model' setting."
            )
        return (
            f"The server at {self._host} answered {answer.label} to the model request, and not "
            f"as the {self.API_NAME} answers about a model{said(answer.detail)} Check "
            f"baseUrl / {self.BASE_URL_VARIABLE}."
        )

    def _about_the_model(self, answer: StatusAnswer) -> bool:
        """A 404 in the API's own error format (a JSON error body) about a model, not about a
        URL or route."""
        in_api_format = isinstance(getattr(answer.raw, "body", None), dict)
        detail = answer.detail
        return in_api_format and "model" in detail.lower() and not about_a_url(detail)

    def _other_message(self, answer: StatusAnswer) -> str:
        return f"The server at {self._host} answered {answer.label}{said(answer.detail)}"


def said(detail: str) -> str:
    """What the service said, to end a sentence with: `: It said this.`, or `.` when it said
    nothing. Never in parentheses, which its own text may hold."""
    return f": {sentence(detail)}" if detail else "."


def about_a_url(detail: str) -> bool:
    """A not-found text that talks about the URL, route or path asked for."""
    lowered = detail.lower()
    return any(word in lowered for word in ("url", "route", "path"))


def import_sdk(module: str, needs: str, install_hint: str) -> Any:
    """The SDK `module`, imported on first use; `RunError('config')` with the install hint
    when it is missing ("{needs}, which is not installed: {install_hint}")."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise RunError("config", f"{needs}, which is not installed: {install_hint}") from None


def label(code: int, kind: str | None) -> str:
    """`404 model_not_found`, or `404` when the API gave no code of its own."""
    return f"{code} {kind or ''}".strip()


def hints_in(detail: str, hints: Iterable[str]) -> bool:
    lowered = detail.lower()
    return any(hint in lowered for hint in hints)


def mask_key_echo(detail: str) -> str:
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
