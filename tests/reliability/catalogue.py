# ruff: noqa: E501 (node ids are kept whole, one per line, so that they can be searched for)
"""The fault catalogue of the reliability brief (`catalogue.md`, next to this module) as data:
every fault line, and the tests that make it happen and check the expected behaviour.

`tests/reliability/test_catalogue.py` keeps this honest: every fault line of the document has
an entry, and every test named here exists. The figures of RELIABILITY_REPORT.md come from this
module:

    .venv/bin/python -m tests.reliability.catalogue          # coverage: faults, tests, levels
    .venv/bin/python -m tests.reliability.catalogue --run    # runs every listed test: survived

A test id is a pytest node id; a function-level id covers all its parametrizations.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = Path(__file__).with_name("catalogue.md")

E2E = "tests/e2e/"
REL = "tests/reliability/"
SES = "tests/session/"
UNIT = "tests/unit/"


@dataclass(frozen=True)
class Fault:
    id: str
    category: str
    text: str
    """The line of the document, as written there (markdown included)."""
    tests: tuple[str, ...]
    note: str = ""


def _t(*ids: str) -> tuple[str, ...]:
    return ids


CATALOGUE: tuple[Fault, ...] = (
    # -- Client misbehaviour ----------------------------------------------------------------
    Fault(
        "client-no-apply-edit",
        "Client misbehaviour",
        "no `workspace.applyEdit` capability → failure before any model call (or a dry-run result)",
        _t(
            E2E
            + "test_lsp_success.py::test_client_without_apply_edit_gets_a_clear_failure_or_a_dry_run",
            REL + "test_lsp_faults.py::test_no_apply_edit_capability_fails_before_any_model_call",
        ),
    ),
    Fault(
        "client-rejects",
        "Client misbehaviour",
        "`applied:false` with or without `failureReason` → `client_rejected`, reason passed "
        "on, no re-send",
        _t(
            E2E
            + "test_lsp_errors.py::test_editor_rejecting_the_edit_is_client_rejected_with_its_reason",
            E2E + "test_lsp_errors.py::test_editor_rejecting_without_a_reason",
            E2E + "test_lsp_errors.py::test_editor_refusing_a_stale_version",
            REL + "test_lsp_faults.py::test_declined_confirmation_is_client_rejected",
        ),
    ),
    Fault(
        "client-error-or-silence",
        "Client misbehaviour",
        "applyEdit answered with an error, or never answered → bounded wait, then a clear failure",
        _t(
            E2E + "test_lsp_errors.py::test_editor_answering_with_an_error_is_client_rejected",
            E2E
            + "test_lsp_errors.py::test_editor_never_answering_is_client_rejected_after_the_apply_timeout",
            E2E + "test_lsp_success.py::test_late_answer_within_the_timeout_is_a_success",
            E2E
            + "test_lsp_errors.py::test_editor_claiming_applied_without_applying_is_not_a_silent_success",
            E2E + "test_lsp_errors.py::test_editor_applying_something_else_is_reported",
        ),
    ),
    Fault(
        "client-no-document-changes",
        "Client misbehaviour",
        "client without `documentChanges` → `changes` form after a version check",
        _t(
            E2E + "test_lsp_success.py::test_edit_is_applied_as_one_minimal_versioned_edit",
            E2E + "test_lsp_success.py::test_neovim_like_lax_client_with_version_zero",
            E2E + "test_lsp_concurrency.py::test_typing_during_the_run_with_a_lax_client",
            REL + "test_lsp_faults.py::test_lax_client_with_backwards_versions",
            E2E + "test_neovim.py::test_success_writes_exactly_the_expected_file",
        ),
    ),
    Fault(
        "client-malformed-arguments",
        "Client misbehaviour",
        "malformed `executeCommand` arguments (missing uri, wrong types, a 1 MB prompt) → "
        "`-32602`, no model call",
        _t(
            E2E
            + "test_lsp_errors.py::test_malformed_arguments_are_invalid_params_before_any_model_call",
            E2E + "test_lsp_errors.py::test_the_server_survives_malformed_requests",
            REL + "test_lsp_faults.py::test_requests_whose_params_do_not_parse_are_answered",
            REL + "test_lsp_faults.py::test_command_error_answers_never_carry_a_traceback",
        ),
    ),
    Fault(
        "client-unopened-uri",
        "Client misbehaviour",
        "URI never opened → `-32602`, no disk read",
        _t(
            E2E + "test_lsp_errors.py::test_unopened_file_on_disk_is_not_read",
            E2E + "test_lsp_errors.py::test_closed_document_is_no_longer_editable",
        ),
    ),
    Fault(
        "client-closes-mid-run",
        "Client misbehaviour",
        "`didClose` during a run → abort, nothing applied",
        _t(
            E2E + "test_lsp_cancel.py::test_close_during_the_run_applies_nothing",
            E2E + "test_lsp_cancel.py::test_close_and_reopen_during_the_run_applies_nothing",
            REL + "test_lsp_faults.py::test_close_while_progress_is_created",
        ),
    ),
    Fault(
        "client-cancels",
        "Client misbehaviour",
        "`$/cancelRequest` or progress cancel during a run → `-32800`, model call cancelled, "
        "nothing applied",
        _t(
            E2E + "test_lsp_cancel.py::test_cancel_request_while_the_model_thinks",
            E2E
            + "test_lsp_cancel.py::test_cancel_request_in_a_later_turn_discards_the_earlier_edits",
            E2E + "test_lsp_cancel.py::test_cancel_while_the_model_delays_its_answer",
            E2E + "test_lsp_cancel.py::test_cancel_the_progress",
            E2E + "test_lsp_cancel.py::test_cancel_after_the_answer_changes_nothing",
            REL + "test_lsp_faults.py::test_cancel_while_progress_is_created_never_runs_the_model",
            REL
            + "test_lsp_faults.py::"
            + "test_a_command_cancelled_while_its_progress_is_created_frees_the_document",
            E2E + "test_nvim_plugin.py::test_cancel_stops_the_running_edit",
            E2E + "test_mcp.py::test_cancellation_stops_the_model_call_and_writes_nothing",
            SES + "test_providers.py::test_cancel_aborts_the_request",
        ),
    ),
    Fault(
        "client-no-progress",
        "Client misbehaviour",
        "client without `window.workDoneProgress` → no progress created",
        _t(
            E2E + "test_lsp_success.py::test_client_without_configuration_or_progress",
            REL + "test_lsp_faults.py::test_no_work_done_progress_capability_creates_no_progress",
        ),
    ),
    Fault(
        "client-encodings",
        "Client misbehaviour",
        "utf-8 / utf-16 / utf-32 negotiated → correct ranges in each",
        _t(
            E2E + "test_lsp_text.py::test_exact_text_in_the_negotiated_encoding",
            E2E + "test_neovim.py::test_utf8_positions_with_multibyte_text_and_emoji",
            REL + "test_document_content.py::test_one_megabyte_single_line",
            REL + "test_properties_ci.py::test_positions_round_trip_in_every_encoding",
            REL + "test_properties_ci.py::test_edits_from_a_to_b_applied_to_a_give_b",
        ),
    ),
    Fault(
        "client-garbage",
        "Client misbehaviour",
        "invalid JSON, bad Content-Length → the server keeps running",
        _t(
            REL + "test_lsp_faults.py::test_garbage_frames_leave_the_server_answering",
            REL + "test_lsp_faults.py::test_framing_resynchronises_after_garbage",
            REL + "test_lsp_faults.py::test_framing_skips_oversized_messages_up_to_the_next_header",
            REL + "test_lsp_faults.py::test_unknown_request_is_method_not_found",
        ),
    ),
    # -- Document content -------------------------------------------------------------------
    Fault(
        "text-edges",
        "Document content",
        "empty document; no final newline; several trailing newlines; BOM",
        _t(
            E2E + "test_lsp_text.py::test_empty_document",
            E2E + "test_lsp_text.py::test_exact_text_in_the_negotiated_encoding",
            E2E + "test_lsp_text.py::test_deleting_everything",
            E2E + "test_cli.py::test_line_endings_bom_and_final_newline_are_preserved",
            E2E + "test_mcp.py::test_crlf_bom_file_round_trips",
        ),
    ),
    Fault(
        "text-line-endings",
        "Document content",
        "CRLF document and LF text from the model; mixed endings; lone CR",
        _t(
            E2E + "test_lsp_text.py::test_exact_text_in_the_negotiated_encoding",
            E2E + "test_neovim.py::test_crlf_document_keeps_crlf_on_disk",
            UNIT
            + "test_tools.py::TestReplaceText::test_crlf_document_with_lf_text_from_the_model_keeps_crlf",
            UNIT + "test_tools.py::TestReplaceText::test_lone_cr_document",
            UNIT + "test_documents.py::test_lone_cr_lines",
        ),
    ),
    Fault(
        "text-separators",
        "Document content",
        r"`\f \v \x1c \x85 \u2028 \u2029` in the text (real source files contain form feeds)",
        _t(
            E2E + "test_lsp_text.py::test_exact_text_in_the_negotiated_encoding",
            E2E + "test_neovim.py::test_form_feed_lines_do_not_shift_positions",
            UNIT + "test_documents.py::test_form_feed_and_unicode_separators_are_not_line_breaks",
            REL + "test_properties_ci.py::test_the_store_equals_the_client_after_any_changes",
        ),
    ),
    Fault(
        "text-unicode",
        "Document content",
        "astral characters and ZWJ emoji next to edit points; combining marks; CJK",
        _t(
            E2E + "test_lsp_text.py::test_exact_text_in_the_negotiated_encoding",
            UNIT + "test_edits.py::test_zwj_sequence_is_replaced_whole",
            UNIT + "test_edits.py::test_combining_mark_is_kept_with_its_base",
            REL + "test_document_content.py::test_one_megabyte_single_line",
            REL + "test_properties_ci.py::test_edits_from_a_to_b_applied_to_a_give_b",
        ),
    ),
    Fault(
        "text-binary-surrogates",
        "Document content",
        "NUL or binary content → refused; lone surrogates → clear error, no crash",
        _t(
            REL + "test_document_content.py::test_nul_content_is_refused_before_any_model_call",
            REL + "test_document_content.py::test_nul_typed_into_an_open_document_is_refused",
            REL + "test_document_content.py::test_lone_surrogate_is_a_clear_error",
            REL + "test_document_content.py::test_lone_surrogate_typed_into_an_open_document",
            E2E + "test_lsp_secrets.py::test_document_with_a_lone_surrogate_is_refused_cleanly",
            UNIT + "test_files.py::test_binary_and_non_utf8_are_refused",
            E2E + "test_mcp.py::test_files_that_cannot_be_edited_are_refused_before_the_model",
        ),
    ),
    Fault(
        "text-size",
        "Document content",
        "one 1 MB line; a document at the size cap and one byte over",
        _t(
            REL + "test_document_content.py::test_one_megabyte_single_line",
            REL + "test_document_content.py::test_size_cap_counts_utf8_bytes",
            REL + "test_document_content.py::test_a_result_over_the_cap_is_refused_by_the_tool",
            E2E + "test_lsp_config.py::test_document_size_cap",
            UNIT + "test_files.py::test_size_limit_is_inclusive",
        ),
    ),
    Fault(
        "text-lookalikes",
        "Document content",
        "text that looks like tool calls, diff markers or instructions → treated as text",
        _t(
            E2E + "test_lsp_text.py::test_text_that_looks_like_protocol_or_instructions",
            REL + "test_document_content.py::test_lookalike_text_is_edited_as_text",
            UNIT
            + "test_tools.py::TestReplaceText::test_text_that_looks_like_instructions_is_just_text",
        ),
    ),
    # -- Model output ------------------------------------------------------------------------
    Fault(
        "model-blocked",
        "Model output",
        "`SAFETY`, `PROHIBITED_CONTENT`, `RECITATION`, `BLOCKLIST`, `SPII` → nothing applied, "
        "`blocked`",
        _t(
            REL + "test_model_output.py::test_every_gemini_finish_reason",
            REL + "test_model_output.py::test_every_openai_finish_reason",
            REL + "test_model_output.py::test_every_anthropic_stop_reason",
            SES + "test_providers.py::test_blocked",
            E2E + "test_lsp_errors.py::test_model_service_failures_apply_nothing",
        ),
    ),
    Fault(
        "model-max-tokens",
        "Model output",
        "`MAX_TOKENS` mid-call → nothing applied",
        _t(
            SES + "test_providers.py::test_truncated_output_applies_nothing",
            REL + "test_model_output.py::test_every_gemini_finish_reason",
        ),
    ),
    Fault(
        "model-malformed",
        "Model output",
        "`MALFORMED_FUNCTION_CALL` / empty content → bounded retry inside the turn budget, "
        "then failure",
        _t(
            SES + "test_session_loop.py::test_malformed_function_call_is_retried_then_succeeds",
            SES + "test_session_loop.py::test_malformed_function_call_repeated_fails",
            SES + "test_providers.py::test_text_only_replies_are_never_an_edit",
            REL + "test_model_output.py::test_gemini_empty_stop_then_a_real_turn_succeeds",
        ),
    ),
    Fault(
        "model-prompt-blocked",
        "Model output",
        "no candidates with `promptFeedback.blockReason` → `blocked`",
        _t(
            SES + "test_session_loop.py::test_blocked_prompt",
            REL + "test_model_output.py::test_every_gemini_block_reason",
        ),
    ),
    Fault(
        "model-empty-stop",
        "Model output",
        'STOP with empty parts → never read as `set_document("")`',
        _t(
            SES + "test_session_loop.py::test_empty_stop_is_never_an_empty_document",
            REL + "test_model_output.py::test_gemini_stop_with_nothing_is_never_an_empty_document",
            REL + "test_model_output.py::test_gemini_no_candidates_without_a_block_reason",
        ),
    ),
    Fault(
        "model-bad-calls",
        "Model output",
        'unknown tool; wrong argument types (`"3"`, `3.0`, -1, missing); oversized arguments '
        "→ tool error back to the model, state untouched",
        _t(
            SES + "test_providers.py::test_unknown_tool_and_bad_arguments_go_back_to_the_model",
            SES + "test_session_loop.py::test_float_integers_are_accepted",
            REL
            + "test_model_output.py::test_bad_tool_calls_are_errors_to_the_model_and_change_nothing",
            UNIT
            + "test_registry.py::TestArguments::test_oversized_arguments_are_refused_with_the_limit",
            UNIT + "test_registry.py::TestArguments::test_bad_line_numbers_are_rejected",
        ),
    ),
    Fault(
        "model-replace-mismatch",
        "Model output",
        "`replace_text` with no match or several → error with counts and line numbers",
        _t(
            UNIT
            + "test_tools.py::TestReplaceText::test_several_matches_is_an_error_with_line_numbers",
            UNIT
            + "test_tools.py::TestReplaceText::test_no_match_shows_the_nearest_lines_with_their_numbers",
            REL
            + "test_model_output.py::test_bad_tool_calls_are_errors_to_the_model_and_change_nothing",
        ),
    ),
    Fault(
        "model-undo-past-history",
        "Model output",
        "`undo`/`redo` past the end of history → error, state unchanged",
        _t(
            UNIT + "test_tools.py::TestUndoRedo::test_undo_past_the_start_is_an_error",
            UNIT + "test_tools.py::TestUndoRedo::test_redo_without_undo_is_an_error",
            UNIT + "test_tools.py::TestUndoRedo::test_undo_past_the_history_bound_says_so",
            SES + "test_providers.py::test_undo_and_redo",
        ),
    ),
    Fault(
        "model-never-completes",
        "Model output",
        "`complete_task` never called → `max_turns`, nothing applied",
        _t(
            SES + "test_providers.py::test_turn_cap",
            E2E + "test_lsp_errors.py::test_edits_without_complete_task_are_never_applied",
            E2E + "test_lsp_errors.py::test_turn_cap_from_the_command",
            REL + "test_security.py::test_a_wipe_without_completion_is_never_applied",
        ),
    ),
    Fault(
        "model-complete-with-failure",
        "Model output",
        "`complete_task(success=true)` alongside a failed call → the loop continues",
        _t(
            SES + "test_providers.py::test_complete_alongside_a_failed_call_continues",
            REL + "test_model_output.py::test_complete_task_alongside_a_failed_call_does_not_apply",
            REL + "test_security.py::test_a_wipe_completed_next_to_a_refused_call_is_not_applied",
        ),
    ),
    Fault(
        "model-no-change",
        "Model output",
        "final text equal to the original → success with nothing to apply, no empty edit sent",
        _t(
            E2E + "test_lsp_success.py::test_unchanged_result_succeeds_without_an_edit",
            E2E + "test_cli.py::test_no_change_is_success_without_a_write",
        ),
    ),
    Fault(
        "model-deletes-most",
        "Model output",
        "a result deleting most of the document → needs confirmation where the client supports it",
        _t(
            REL + "test_lsp_faults.py::test_deleting_most_of_the_document_asks_for_confirmation",
            REL + "test_lsp_faults.py::test_small_changes_need_no_confirmation",
            REL + "test_lsp_faults.py::test_declined_confirmation_is_client_rejected",
            REL + "test_security.py::test_obeyed_wipe_is_one_edit_that_needs_confirmation",
        ),
    ),
    # -- Transport ----------------------------------------------------------------------------
    Fault(
        "transport-429",
        "Transport",
        "429 with a short `retryDelay` → retried; with one longer than the budget → fail "
        "fast, `quota`",
        _t(
            SES + "test_providers.py::test_429_then_success",
            SES + "test_providers.py::test_429_with_a_delay_beyond_the_budget_fails_fast",
            REL + "test_transport_faults.py::test_429_without_a_delay_is_retried_with_backoff",
            REL + "test_transport_faults.py::test_persistent_429_is_quota",
            REL
            + "test_transport_faults.py::test_retry_delay_longer_than_the_budget_fails_fast_with_the_delay",
            REL + "test_transport_faults.py::test_retry_delay_within_the_budget_is_honoured",
        ),
    ),
    Fault(
        "transport-5xx",
        "Transport",
        "503 twice then 200 → success; persistent 5xx → bounded attempts, then `model_error`",
        _t(
            SES + "test_providers.py::test_5xx_twice_then_success",
            SES + "test_providers.py::test_persistent_overload_is_a_model_error",
            REL + "test_transport_faults.py::test_every_transient_5xx_is_retried",
            REL + "test_transport_faults.py::test_408_is_retried_then_succeeds",
            REL + "test_transport_faults.py::test_persistent_408_is_a_bounded_model_error",
            REL + "test_transport_faults.py::test_wall_time_budget_ends_a_slow_run",
        ),
    ),
    Fault(
        "transport-4xx",
        "Transport",
        "400 input too large → `too_large`, no retry; 401/403 → `auth`, no retry, no key in "
        "the message",
        _t(
            SES + "test_providers.py::test_too_large",
            SES + "test_providers.py::test_auth_errors_are_auth_without_the_key",
            SES + "test_session_loop.py::test_403_is_auth",
            REL + "test_transport_faults.py::test_plain_400_is_not_retried",
            REL + "test_security.py::test_run_failures_name_the_variable_not_the_key",
        ),
    ),
    Fault(
        "transport-connection",
        "Transport",
        "connection refused; accepted connection that never answers; stream that stalls → timeout",
        _t(
            REL + "test_transport_faults.py::test_connection_refused_is_retried_then_a_model_error",
            REL + "test_transport_faults.py::test_accepted_connection_that_never_answers_times_out",
            REL + "test_transport_faults.py::test_reply_that_stalls_halfway_times_out",
            REL + "test_transport_faults.py::test_connection_dropped_without_an_answer_is_retried",
            REL + "test_transport_faults.py::test_body_shorter_than_announced_is_retried",
            SES + "test_providers.py::test_silent_server_times_out",
            SES + "test_gemini_streaming.py::test_a_stalled_stream_times_out_naming_the_setting",
            E2E + "test_lsp_config.py::test_request_timeout_setting",
        ),
        note="Every adapter streams its turns; a stream stalls after its first event.",
    ),
    Fault(
        "transport-broken-stream",
        "Transport",
        "a streamed answer that breaks in the middle → retried from scratch while none of its calls ran; once one ran, `model_error` and nothing applied (no call runs twice)",
        _t(
            SES
            + "test_gemini_streaming.py::test_a_stream_broken_before_any_call_is_retried_cleanly",
            SES
            + "test_gemini_streaming.py::test_a_stream_broken_after_a_call_ran_is_not_asked_again",
        ),
    ),
    Fault(
        "transport-unreadable",
        "Transport",
        "HTTP 200 with truncated JSON or an HTML page → `model_error`",
        _t(
            SES + "test_providers.py::test_html_page_is_a_model_error",
            SES + "test_providers.py::test_truncated_json_is_a_model_error",
            REL + "test_transport_faults.py::test_html_error_page_from_a_proxy_is_retried",
            REL + "test_transport_faults.py::test_persistent_html_error_page_is_a_model_error",
        ),
    ),
    Fault(
        "transport-no-key",
        "Transport",
        "no API key at start-up → the server still starts; the command answers `config`",
        _t(
            E2E + "test_lsp_errors.py::test_missing_api_key_answers_config",
            SES + "test_providers.py::test_no_key_is_config_before_any_request",
            E2E + "test_eval_replay.py::test_no_key_stops_the_run_before_any_request",
        ),
    ),
    # -- Concurrency --------------------------------------------------------------------------
    Fault(
        "concurrency-typing",
        "Concurrency",
        "user types during the model call, above, inside and below the edited region",
        _t(
            E2E + "test_lsp_concurrency.py::test_typing_elsewhere_is_kept_and_the_result_rebased",
            E2E + "test_lsp_concurrency.py::test_typing_in_the_edited_region_is_document_changed",
            E2E
            + "test_lsp_concurrency.py::test_typing_while_the_edit_is_in_flight_is_never_a_silent_success",
            E2E + "test_neovim.py::test_typing_elsewhere_is_rebased",
            E2E + "test_neovim.py::test_typing_over_the_edited_text_is_refused_and_kept",
            REL + "test_lsp_faults.py::test_typing_with_odd_versions_is_never_lost",
            REL + "test_lsp_faults.py::test_whole_document_changes_during_a_run",
            REL + "test_lsp_faults.py::test_typed_cr_joining_a_deleted_lf_is_not_lost",
            REL
            + "test_properties_ci.py::test_the_command_never_loses_typing_nor_reports_a_false_success",
            REL + "test_properties_ci.py::test_rebase_over_a_change_elsewhere_keeps_both",
        ),
    ),
    Fault(
        "concurrency-two-commands",
        "Concurrency",
        "two commands on one document → serialised or `busy`; commands on two documents → "
        "independent",
        _t(
            E2E + "test_lsp_concurrency.py::test_second_command_on_a_busy_document",
            E2E + "test_lsp_concurrency.py::test_commands_on_two_documents_run_side_by_side",
            E2E + "test_lsp_success.py::test_several_documents_are_independent",
            REL + "test_lsp_faults.py::test_second_command_while_progress_is_created_is_busy",
        ),
    ),
    Fault(
        "concurrency-shutdown",
        "Concurrency",
        "`shutdown` during a run → nothing applied afterwards",
        _t(
            E2E + "test_lsp_cancel.py::test_shutdown_during_a_run_applies_nothing",
            E2E + "test_lsp_lifecycle.py::test_exit_while_a_cancelled_edit_unwinds_ends_the_server",
        ),
        note="The server and its session process then exit, also when `exit` follows at once.",
    ),
    Fault(
        "concurrency-soak",
        "Concurrency",
        "1,000 sequential commands → memory and task counts stay flat",
        _t(
            REL + "test_soak.py::test_a_hundred_and_fifty_commands_leave_nothing_behind",
            REL + "test_lsp_faults.py::test_handled_messages_leave_nothing_behind",
        ),
        note="The 1,000-command run is bench/soak.py (figures in RELIABILITY_REPORT.md).",
    ),
    # -- Security ----------------------------------------------------------------------------
    Fault(
        "security-injection",
        "Security",
        "a document that asks the model to wipe it, reveal the system prompt or the key → "
        "tools stay confined to the document, the key never reaches the prompt",
        _t(
            REL + "test_security.py::test_tool_schemas_have_no_path_uri_or_network_parameter",
            REL + "test_security.py::test_a_wipe_then_giving_up_is_never_applied",
            REL + "test_security.py::test_path_and_network_calls_are_tool_errors",
            REL + "test_security.py::test_the_system_prompt_and_key_stay_out_of_the_conversation",
            REL + "test_security.py::test_injected_document_in_the_editor",
            REL + "test_security.py::test_injected_file_through_the_cli",
            REL + "test_security.py::test_canary_key_through_the_language_server",
            REL + "test_security.py::test_canary_key_through_the_cli",
            REL + "test_security.py::test_canary_key_through_the_mcp_server",
            REL + "test_security.py::test_canary_key_through_the_eval_harness",
            E2E + "test_lsp_secrets.py::test_no_key_or_text_in_logs_across_outcomes",
        ),
    ),
    Fault(
        "security-paths",
        "Security",
        "CLI/MCP paths: `../`, absolute paths outside the root, a symlink pointing out, a "
        "sibling whose name starts with the root's name → refused",
        _t(
            E2E + "test_mcp.py::test_paths_outside_the_root_are_refused",
            UNIT + "test_roots.py::test_escapes_are_refused",
            UNIT + "test_roots.py::test_absolute_paths_outside_are_refused",
            UNIT + "test_roots.py::test_symlink_loop_is_refused_or_stays_inside",
            REL + "test_security.py::test_injected_file_through_the_cli",
        ),
        note="The CLI edits the one file its user names (a symlink is followed, by contract); "
        "what the model could name is confined by the tools, which have no path parameter.",
    ),
    Fault(
        "security-kill-during-write",
        "Security",
        "kill during a CLI write → old or new content, never truncated",
        _t(
            UNIT + "test_files.py::test_kill_during_writes_leaves_old_or_new_content",
            E2E + "test_cli.py::test_sigterm_during_the_model_call_writes_nothing",
            E2E + "test_cli.py::test_file_changed_during_the_run_is_refused",
        ),
    ),
)


# ------------------------------------------------------------------------------------------
# Reading the document, and the figures
# ------------------------------------------------------------------------------------------


def normalize(text: str) -> str:
    return " ".join(text.split())


def document_faults(text: str) -> list[tuple[str, str]]:
    """(category, line) for every bullet of the "Fault catalogue" section."""
    section = text.split("## Fault catalogue", 1)[1].split("\n## ", 1)[0]
    out: list[tuple[str, str]] = []
    category = ""
    for raw in section.splitlines():
        heading = re.fullmatch(r"\*\*(.+)\*\*", raw.strip())
        if heading:
            category = heading.group(1)
        elif raw.startswith("- "):
            out.append((category, raw[2:].strip()))
        elif raw.startswith("  ") and out:
            out[-1] = (out[-1][0], out[-1][1] + " " + raw.strip())
    return out


def level(node_id: str) -> str:
    if node_id.startswith(UNIT):
        return "unit"
    if node_id.startswith(SES):
        return "session"
    if "test_neovim" in node_id or "test_nvim" in node_id:
        return "neovim"
    if "test_cli" in node_id or "test_mcp" in node_id or "test_eval" in node_id:
        return "cli/mcp/eval"
    if node_id.startswith(E2E):
        return "lsp"
    if node_id.startswith(REL):
        return "reliability"
    return "other"


def all_test_ids() -> list[str]:
    return sorted({test for fault in CATALOGUE for test in fault.tests})


def coverage() -> str:
    lines = [f"{len(CATALOGUE)} faults, {len(all_test_ids())} distinct tests named"]
    by_category = Counter(fault.category for fault in CATALOGUE)
    for category, count in by_category.items():
        lines.append(f"  {category}: {count}")
    levels = Counter(level(test) for test in all_test_ids())
    lines.append("tests by level: " + ", ".join(f"{k} {v}" for k, v in sorted(levels.items())))
    new = sum(1 for fault in CATALOGUE if any(t.startswith(REL) for t in fault.tests))
    lines.append(f"faults with a test added in tests/reliability: {new}")
    return "\n".join(lines)


class _Outcomes:
    """A pytest plugin recording the outcome of every test that ran."""

    def __init__(self) -> None:
        self.failed: set[str] = set()
        self.passed: set[str] = set()
        self.skipped: set[str] = set()

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed:
            self.failed.add(report.nodeid)
        elif report.skipped:
            self.skipped.add(report.nodeid)
        elif report.when == "call":
            self.passed.add(report.nodeid)


def run() -> int:
    import pytest

    outcomes = _Outcomes()
    status = pytest.main(["-q", "-p", "no:cacheprovider", *all_test_ids()], plugins=[outcomes])
    survived = 0
    print()
    for fault in CATALOGUE:
        ran = {
            node
            for node in outcomes.passed | outcomes.failed
            if any(node == t or node.startswith(t + "[") for t in fault.tests)
        }
        broken = sorted(node for node in ran if node in outcomes.failed)
        ok = bool(ran) and not broken
        survived += ok
        mark = "survived" if ok else "FAILED"
        print(f"{mark:9} {fault.id:28} {len(ran):4} test runs" + (f"  {broken}" if broken else ""))
    print(f"\nfaults survived: {survived} / {len(CATALOGUE)}")
    print(f"test runs: {len(outcomes.passed)} passed, {len(outcomes.failed)} failed, "
          f"{len(outcomes.skipped)} skipped")  # fmt: skip
    return 0 if survived == len(CATALOGUE) and status == 0 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The fault catalogue of catalogue.md.")
    parser.add_argument("--run", action="store_true", help="run every test it names")
    args = parser.parse_args(argv)
    print(coverage())
    return run() if args.run else 0


if __name__ == "__main__":
    sys.exit(main())
