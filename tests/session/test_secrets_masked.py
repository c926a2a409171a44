"""No secret reaches the model: a session over a fake home directory holding every credential
file and a source file with planted secrets, in-process against the Gemini emulator through
the real SDK. Credential files are refused; the source file's values reach the model masked
(get_document with a path, find_in_files) and the outcome says where, never a value; an edit
holding a marker is refused, the file's other lines stay editable, and the file keeps its real
values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.request import EditRequest, WorkspaceRoot
from complex_edit.server.session.result import run_and_diff
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.fakes.planted import PLAIN_LINE, PLANTED, SOURCE, leaked, make_home

OWN = "from settings import TIMEOUT\n"
MARKED = 'AWS_SECRET_ACCESS_KEY = "«secret: aws-access-key, 40 chars»"'


def results(emulator: GeminiEmulator, request: int) -> list[dict[str, Any]]:
    return [part["response"] for part in emulator.requests[request].function_responses]


async def test_no_planted_secret_reaches_the_model_and_the_rest_stays_editable(
    emulator: GeminiEmulator, tmp_path: Path
) -> None:
    home = make_home(tmp_path / "home")
    settings_py = "project/settings.py"
    emulator.enqueue(
        Reply.function_calls(
            [
                ("get_document", {"path": settings_py}),
                ("find_in_files", {"pattern": "pL4nt3d"}),
                ("find_in_files", {"pattern": "PASSWORD"}),
            ]
        ),
        Reply.function_calls(
            [("get_document", {"path": name}) for name in (".netrc", ".aws/credentials", ".env")]
        ),
        Reply.function_calls(
            [
                ("replace_text", {"path": settings_py, "old_text": MARKED, "new_text": "X = 1"}),
                ("replace_text", {"old_text": "TIMEOUT", "new_text": MARKED}),
                (
                    "replace_text",
                    {"path": settings_py, "old_text": PLAIN_LINE, "new_text": "DEBUG = True"},
                ),
            ]
        ),
        Reply.function_calls([("complete_task", {"success": True, "message": "done"})]),
    )
    settings = Settings.from_layers({}, {"baseUrl": emulator.base_url, "requestTimeoutSeconds": 5})
    request = EditRequest(
        instruction="turn debugging on",
        text=OWN,
        settings=settings,
        path_label="project/app.py",
        language="python",
        other_files="edit",
        roots=(WorkspaceRoot("home", str(home)),),
        document_path=str(home / "project" / "app.py"),
    )
    events: list[object] = []
    finished = await run_and_diff(
        request, GeminiProvider({"GEMINI_API_KEY": TEST_KEY}), events.append
    )

    assert leaked(request.body for request in emulator.requests) == []
    read, found, password = results(emulator, 1)
    assert MARKED in read["result"]
    assert "project/settings.py:7" in read["masked"]
    assert "secret values masked" in found["result"]
    assert "project/settings.py:15" in password["result"]  # the line, its value masked
    assert all("readExclude" in refused["error"] for refused in results(emulator, 2))
    on_marker, into_own, plain = results(emulator, 3)
    assert "marker" in on_marker["error"]
    assert "marker" in into_own["error"]
    assert "error" not in plain
    assert finished.outcome.success, finished.outcome
    own, edited = finished.documents
    assert edited.target() == SOURCE.replace(PLAIN_LINE, "DEBUG = True")
    assert all(value in edited.target() for value in PLANTED.values())
    assert "«secret" not in edited.target()
    assert "«secret" not in edited.diff
    assert own.changes == ()
    # The answer says how many values were masked and where, never a value.
    masked = finished.outcome.masked
    assert masked is not None
    assert masked.count == len(masked.places) >= 11
    assert {place.path for place in masked.places} == {settings_py}
    assert (settings_py, 7, "aws-access-key") in {
        (place.path, place.line, place.kind) for place in masked.places
    }
    assert leaked([finished.outcome.model_dump_json()]) == []
