"""Syntax validation of a result against its snapshot with tree-sitter (see README.md)."""

from complex_edit.edit_tools.syntax.checker import MAX_REPORTED, SyntaxCheck
from complex_edit.edit_tools.syntax.languages import grammar_for, language_for_path
from complex_edit.edit_tools.syntax.message import render_problems
from complex_edit.edit_tools.syntax.models import SyntaxProblem, Validation
from complex_edit.edit_tools.syntax.offsets import TextChange

__all__ = [
    "MAX_REPORTED",
    "SyntaxCheck",
    "SyntaxProblem",
    "TextChange",
    "Validation",
    "grammar_for",
    "language_for_path",
    "render_problems",
]
