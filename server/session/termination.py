"""The contract's termination rule, judged on a whole turn: `complete_task(success=true)` ends
the run only when no other call of the same turn failed, and a completion the result cannot
stand behind (syntax errors) is turned back into an error the model can act on."""

from __future__ import annotations

from collections.abc import Sequence

from complex_edit.edit_tools.registry import Completion, ToolOutcome
from complex_edit.server.providers.base import ToolCall, ToolReply


def settle_completion(
    outcomes: Sequence[tuple[ToolCall, ToolOutcome]],
) -> tuple[list[ToolReply], Completion | None]:
    """Apply the turn-level termination rule; returns the results to send and, when the run
    ends in this turn, the accepted completion."""
    failed = [call.name for call, outcome in outcomes if not outcome.ok]
    completion: Completion | None = None
    results: list[ToolReply] = []
    for call, outcome in outcomes:
        response = outcome.response
        ok = outcome.ok
        if outcome.completion is not None:
            if completion is not None:
                ok = False
                response = {"error": "complete_task was already called in this turn."}
            elif outcome.completion.success and failed:
                ok = False
                response = {
                    "error": (
                        "The task is NOT complete: "
                        f"{len(failed)} other call(s) in this turn failed "
                        f"({', '.join(failed)}). Fix them, then call complete_task again."
                    )
                }
            else:
                completion = outcome.completion
        results.append(ToolReply(call=call, ok=ok, response=response, full_view=outcome.full_view))
    return results, completion


SYNTAX_ASK = (
    "Fix them (errors the original already had do not count), then call complete_task again."
)


def refuse_completion(
    results: Sequence[ToolReply], problems: str, ask: str = SYNTAX_ASK
) -> list[ToolReply]:
    """`results` with the accepted complete_task turned into an error listing `problems`,
    then `ask`."""
    error = {"error": f"The task is NOT complete: {problems}\n{ask}"}
    return [
        ToolReply(call=result.call, ok=False, response=error, full_view=result.full_view)
        if result.call.name == "complete_task" and result.ok
        else result
        for result in results
    ]


def refusal_line(result: ToolReply) -> str:
    """`complete_task: refused: 1 other call(s) in this turn failed (replace_text)`."""
    error = str(result.response.get("error", "")).removeprefix("The task is NOT complete: ")
    lines = error.splitlines() or ["refused"]
    why = lines[0].split(". Fix them")[0].rstrip(":. ")
    where = (
        f" {lines[1].removeprefix('- ')}" if len(lines) > 1 and lines[1].startswith("- ") else ""
    )
    return f"{result.call.name}: refused: {why}{':' if where else ''}{where}"
