--- complex-edit for Neovim 0.11+: runs `performComplexEdit` on a buffer through the attached
--- `complex_edit` client, shows its progress, reports the result and cancels on request.
---
--- Public API (the user commands call it):
---   require('complex_edit').edit({ prompt = ..., bufnr = 0, line1 = 2, line2 = 5,
---                                   model = nil, max_turns = nil, dry_run = false,
---                                   other_files = nil, -- 'off' | 'read' | 'edit'
---                                   on_done = function(err, result) end })
---   require('complex_edit').cancel(bufnr)
---   require('complex_edit').is_running(bufnr)
---   require('complex_edit').status(bufnr)      -- latest progress message, for a statusline
---   require('complex_edit').last()             -- the latest message in full (:ComplexEditLast)
---   require('complex_edit').review({ prompt = ..., bufnr = 0, line1 = ..., line2 = ...,
---                                     other_files = 'edit' }) -- every file's hunks reviewed
---   require('complex_edit').setup({ review_keys = { keep = 'y', ... }, flash_ms = 600 })
---
--- Autocommands for statuslines and progress plugins: `User ComplexEditStart` (data: bufnr,
--- request_id, prompt) and `User ComplexEditDone` (data: bufnr, request_id, outcome, result,
--- err, message), fired once per edit.
---
--- This file only wires the public API; each job lives in its own module: `run` (the command,
--- its arguments, cancel), `jobs` (the running edits and how each ends), `progress` (the LSP
--- events that follow them), `client` (finding the buffer's client), `messages` (what the user
--- sees), `history` (instructions, completion), `flash` (the changed-lines highlight), `config`,
--- `review` and `live_preview` (hunks shown in the buffer, drawn by `hunks`).

local client = require('complex_edit.client')
local config = require('complex_edit.config')
local flash = require('complex_edit.flash')
local history = require('complex_edit.history')
local messages = require('complex_edit.messages')
local run = require('complex_edit.run')

local M = {}

M.name = config.name
M.command_name = config.command_name

M.edit = run.edit
M.review = run.review
M.cancel = run.cancel
M.command = run.command
M.is_running = run.is_running
M.status = run.status
M.line_range = run.line_range

M.notify = messages.notify
M.last = messages.last
M.show_last = messages.show_last

M.history = history.list
M.complete = history.complete

M.setup = config.setup
--- Briefly highlights the lines of `bufnr` a result's `changedLines` says an edit changed.
M.flash_changes = flash.changes

--- The initialized `complex_edit` client attached to `bufnr`, or nil and the reason.
---@return vim.lsp.Client?, string?
function M.client(bufnr)
  return client.get(run.resolve_buf(bufnr))
end

return M
