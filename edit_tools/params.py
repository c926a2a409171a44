"""The parameters of the six tools as strict pydantic models; each docstring is the tool's
description for the model, each field description the parameter's."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class GetDocumentParams(Params):
    """Show the current working document, or the lines start_line to end_line of it. Each line
    is shown as its line number, one tab, then the exact line text; the number and the tab are
    not part of the text. A header line gives the range and the document's line count. Leave
    both parameters out to see the whole document."""

    start_line: int | None = Field(
        default=None, ge=1, description="First line to show, 1-based. Default: line 1."
    )
    end_line: int | None = Field(
        default=None,
        ge=1,
        description="Last line to show, 1-based and inclusive. Default: the last line.",
    )


class SetDocumentParams(Params):
    """Replace the whole working document with new content. Use it only when most of the
    document changes or the document is empty; for local changes use replace_text. Send the
    complete text: a placeholder line standing for kept code (such as `# ... existing code
    ...`, `// rest unchanged` or a bare `...`) is never written. When the unchanged lines
    around it show which original lines it stands for, those lines are kept and the result
    says so; otherwise the call is refused. Content sent as one line of escaped text (`\\n` for
    line breaks) is read back, and the result says so."""

    content: str = Field(
        description=(
            "The complete new text of the document, exactly as it should be, without line "
            "numbers and without placeholders for unchanged code. Line breaks are written in "
            "the document's own style."
        )
    )


class ReplaceTextParams(Params):
    """Replace a piece of the document. Copy old_text exactly from the document, indentation
    and whitespace included; unless replace_all is true it must occur exactly once: add a few
    surrounding lines when it could occur elsewhere. If old_text does not occur exactly but
    matches exactly one run of whole lines once indentation (a missing or extra base
    indentation), tabs versus spaces and spaces at line ends are set aside, that run is
    replaced, new_text is re-indented the same way in the document's style, and the result
    says what was adapted. Several such places is an error that lists them: nothing is
    guessed. Line breaks are written the document's way; and, when one place only fits,
    lines added at column 0 after a one-line old_text found after its line's indentation,
    unevenly re-indented blocks, stray blank lines at old_text's ends and arguments escaped
    one time too many are adapted too; the result says so. A placeholder line for kept code
    in new_text is never written: it is replaced by the lines of old_text it stands for when
    they are clear, and the call is refused otherwise. On success you get the numbered lines
    around the change."""

    old_text: str = Field(
        description=(
            "The text to find, copied exactly from the document without the line numbers and "
            "the tab after them. Must not be empty."
        )
    )
    new_text: str = Field(
        description=(
            "The text to put in its place (empty to delete old_text), indented like old_text. "
            "No line numbers, and no placeholders for kept code."
        )
    )
    replace_all: bool = Field(
        default=False,
        description=(
            "true to replace every exact occurrence of old_text; false (default) requires "
            "exactly one."
        ),
    )


class UndoParams(Params):
    """Revert the last change made by set_document or replace_text (a replace_all counts as one
    change). Call it again to revert earlier changes."""


class RedoParams(Params):
    """Re-apply the last change reverted by undo. Any new edit clears what can be redone."""


class CompleteTaskParams(Params):
    """End the task. Call it once the instruction is fully carried out, with success=true and a
    one-sentence message saying what changed; or, when it cannot be done, with success=false
    and an error saying why. Nothing is applied unless success is true."""

    success: bool = Field(description="true when the document now does what the user asked.")
    message: str | None = Field(
        default=None, description="A one-sentence summary of what you changed."
    )
    error: str | None = Field(
        default=None, description="When success is false: why the instruction cannot be done."
    )


class FindInFilesParams(Params):
    """Search the workspace's files for lines containing a text. Answers `path:line: text`
    lines in path order, at most 200 (then how many more). Files that cannot be read are
    skipped: those in .git/, ignored by the .gitignore files, matching the setting
    readExclude (secrets such as .env and keys), binary, not UTF-8, or over maxDocumentBytes.
    Files open in the editor are searched as they are there, and the documents you changed as
    they are now."""

    pattern: str = Field(
        description="The text to find within one line; literal unless regex is true."
    )
    glob: str | None = Field(
        default=None,
        description=(
            "Only files whose path matches this gitignore-style pattern, such as `*.py` (at "
            "any depth) or `src/**/*.ts`. Default: every readable file."
        ),
    )
    regex: bool = Field(
        default=False, description="true to read pattern as a Python regular expression."
    )


PATH_DESCRIPTION = (
    "Another file of the workspace, relative to the workspace folder with forward slashes "
    "(with several folders, starting with the folder's name), such as `src/app.py`. Leave it "
    "out for the document of the instruction. Refused: absolute paths, `..` out of the "
    "workspace, links that leave it, .git/, files ignored by .gitignore or matching "
    "readExclude, binary files and files over maxDocumentBytes."
)
READ_PATH_NOTE = "With path, it reads another file of the workspace; reading does not change it."
EDIT_PATH_NOTE = (
    "With path, it acts on another file of the workspace, which joins the edit when first "
    "changed; each file has its own undo history."
)


def _allows(annotation: Any, kind: type) -> bool:
    if annotation is kind:
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return kind in get_args(annotation)
    return False


def expected(model: type[Params], name: str) -> str:
    """What the parameter `name` accepts, in words for the model."""
    annotation = model.model_fields[name].annotation
    if _allows(annotation, bool):
        return "true or false"
    if _allows(annotation, int):
        return "a whole number, 1 or more"
    if _allows(annotation, str):
        return "a string"
    return "a valid value"


def normalize(model: type[Params], args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments as the model sent them, with integral floats in integer parameters made ints
    (Gemini sends numbers as floats) and nulls in optional parameters treated as absent."""
    out: dict[str, Any] = {}
    for key, value in args.items():
        field = model.model_fields.get(key)
        if field is not None:
            if value is None and not field.is_required():
                continue
            if _allows(field.annotation, int) and isinstance(value, float) and value.is_integer():
                value = int(value)
        out[key] = value
    return out
