--- Runs `performComplexEdit` on a buffer (`:ComplexEdit`, `:ComplexEditReview`), and cancels it
--- (`:ComplexEditCancel`).

local client_of = require('complex_edit.client')
local config = require('complex_edit.config')
local history = require('complex_edit.history')
local jobs = require('complex_edit.jobs')
local messages = require('complex_edit.messages')
local progress = require('complex_edit.progress')

local M = {}

local levels = vim.log.levels
local notify = messages.notify

function M.resolve_buf(bufnr)
  if bufnr == nil or bufnr == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return bufnr
end

--- LSP range of whole lines `line1`..`line2` (1-based, inclusive): lines are 0-based in LSP,
--- and the end is the start of the line after the last selected one.
function M.line_range(line1, line2)
  if line2 < line1 then
    line1, line2 = line2, line1
  end
  return {
    start = { line = line1 - 1, character = 0 },
    ['end'] = { line = line2, character = 0 },
  }
end

---@class complex_edit.EditOpts
---@field prompt string the instruction
---@field bufnr? integer buffer (default: current)
---@field line1? integer first selected line (1-based), with `line2`
---@field line2? integer last selected line (1-based, inclusive)
---@field range? lsp.Range an explicit LSP range (instead of line1/line2)
---@field dry_run? boolean compute the change and return its diff, apply nothing
---@field model? string
---@field max_turns? integer
---@field on_done? fun(err: table?, result: table?) called once, after the notification
---@field review? boolean ask for hunks to review instead of an applied edit (see M.review)
---@field other_files? 'off'|'read'|'edit' the argument `otherFiles` ('edit': other files may change too)

--- Runs `performComplexEdit` on a buffer. Returns the request id, or nil after notifying why not.
---@param opts complex_edit.EditOpts
---@return integer?
function M.edit(opts)
  local bufnr = M.resolve_buf(opts.bufnr)
  local prompt = vim.trim(opts.prompt or '')
  if prompt == '' then
    notify('the instruction is empty.', levels.WARN)
    return nil
  end
  if jobs.on(bufnr) then
    messages.notify_busy()
    return nil
  end
  if require('complex_edit.review').is_open(bufnr) then
    notify('a review is open here; finish or cancel it first.', levels.WARN)
    return nil
  end
  local client, why = client_of.get(bufnr)
  if not client then
    notify(why, levels.ERROR)
    return nil
  end
  if not client_of.advertises_command(client) then
    notify(
      ('the server %q does not advertise %s; is it complex-edit?'):format(
        client.name,
        config.command_name
      ),
      levels.ERROR
    )
    return nil
  end

  local args = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, prompt = prompt }
  if opts.range then
    args.range = opts.range
  elseif opts.line1 and opts.line2 then
    args.range = M.line_range(opts.line1, opts.line2)
  end
  if opts.dry_run then
    args.dryRun = true
  end
  if opts.review then
    args.review = true
  end
  args.otherFiles = opts.other_files
  args.model = opts.model
  args.maxTurns = opts.max_turns

  progress.follow()
  local job = jobs.add(bufnr, client.id, opts.on_done, opts.review)
  history.remember(prompt)
  -- Client:exec_cmd() returns nothing in 0.11, so the request goes out directly: its id is what
  -- :ComplexEditCancel needs. Client:request flushes pending didChange for the buffer first.
  local ok, request_id = client:request('workspace/executeCommand', {
    command = config.command_name,
    arguments = { args },
  }, function(err, result)
    jobs.settle(job, 'answer', err, result)
  end, bufnr)
  if not ok or not request_id then
    jobs.release(job)
    notify('not sent: the language server is shutting down.', levels.ERROR)
    return nil
  end
  job.request_id = request_id
  messages.echo_progress(prompt)
  messages.redraw_status()
  messages.fire('ComplexEditStart', { bufnr = bufnr, request_id = request_id, prompt = prompt })
  return request_id
end

--- Runs `performComplexEdit` with `review: true`: the server applies nothing and answers
--- `hunks`, which open in the buffer for review (lua/complex_edit/review.lua). Takes the options
--- of M.edit; `on_done` is called with the answer, `on_review_end(outcome, message)` when the
--- review closes.
---@param opts complex_edit.EditOpts|{ on_review_end: fun(outcome: string, message: string)? }
function M.review(opts)
  local bufnr = M.resolve_buf(opts.bufnr)
  local on_done = opts.on_done
  local edit = vim.tbl_extend('force', opts, { bufnr = bufnr, review = true })
  edit.on_done = function(err, result)
    local client = vim.lsp.get_clients({ bufnr = bufnr, name = config.name })[1]
    if not err and type(result) == 'table' and type(result.hunks) == 'table' then
      if vim.api.nvim_buf_is_valid(bufnr) then
        local review = require('complex_edit.review')
        review.start(bufnr, result, {
          encoding = client and client.offset_encoding or 'utf-8',
          on_end = opts.on_review_end,
          apply = client and review.server_apply(client.id, bufnr, result.proposalId),
        })
      end
    end
    if on_done then
      on_done(err, result)
    end
  end
  return M.edit(edit)
end

--- Cancels the edit running on the buffer: `$/cancelRequest`, then the server answers
--- RequestCancelled and applies nothing.
function M.cancel(bufnr)
  bufnr = M.resolve_buf(bufnr)
  local job = jobs.on(bufnr)
  if not job then
    notify('no edit is running on this buffer.', levels.WARN)
    return
  end
  if job.cancelling then
    return
  end
  job.cancelling = true
  local client = vim.lsp.get_client_by_id(job.client_id)
  if not client or client:is_stopped() or not job.request_id then
    jobs.settle(job, 'cancelled')
    return
  end
  jobs.await_cancel(job)
  client:cancel_request(job.request_id)
  messages.echo_progress('cancelling…')
  messages.redraw_status()
  -- A server that does not acknowledge must not leave the buffer "busy" forever: free it, and
  -- still report the answer if one comes later (it may be an edit that was already on its way).
  job.timer = vim.defer_fn(function()
    job.timer = nil
    if not job.settled and jobs.on(bufnr) == job then
      jobs.release(job)
      local message = ('cancel unconfirmed after %d s; the buffer is free.'):format(
        config.cancel_grace_ms / 1000
      )
      notify(message, levels.WARN)
      jobs.finish(job, { outcome = 'unconfirmed', message = message })
    end
  end, config.cancel_grace_ms)
end

--- Buffers whose command waits for their server to start.
---@type table<integer, true>
local waiting = {}

--- Runs `go()` once the buffer's server is ready: at once, or after it finished starting (the
--- command line says it waits meanwhile); or tells why it cannot.
local function when_ready(bufnr, go)
  waiting[bufnr] = true
  client_of.when_ready(bufnr, function()
    waiting[bufnr] = nil
    go()
  end, function(why)
    waiting[bufnr] = nil
    notify(why, levels.ERROR)
  end, function()
    messages.echo_progress('waiting for the server to start…')
  end)
end

--- `:[range]ComplexEdit[!] [instruction]`: without an instruction, asks with vim.ui.input.
--- With `!`, the edit may change other files of the workspace too (`otherFiles: "edit"`). With
--- `review` (`:ComplexEditReview`), the proposed hunks open for review instead. A server
--- still starting is waited for (bounded), then the edit runs.
function M.command(opts, review)
  local bufnr = vim.api.nvim_get_current_buf()
  local edit = { bufnr = bufnr, other_files = opts.bang and 'edit' or nil }
  local run = review and M.review or M.edit
  if opts.range and opts.range > 0 then
    edit.line1, edit.line2 = opts.line1, opts.line2
  end
  if waiting[bufnr] then
    messages.notify_busy()
    return
  end
  local prompt = vim.trim(opts.args or '')
  if prompt ~= '' then
    edit.prompt = prompt
    when_ready(bufnr, function()
      run(edit)
    end)
    return
  end
  -- Check what can be checked before the user types a long instruction.
  if jobs.on(bufnr) then
    messages.notify_busy()
    return
  end
  local client, why = client_of.get(bufnr)
  if not client and not client_of.is_starting(bufnr) then
    notify(why, levels.ERROR)
    return
  end
  vim.ui.input({ prompt = config.title .. ': ' }, function(input)
    if input == nil or vim.trim(input) == '' then
      return -- dismissed
    end
    if not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    edit.prompt = input
    when_ready(bufnr, function()
      run(edit)
    end)
  end)
end

--- Whether an edit is running on the buffer.
function M.is_running(bufnr)
  return jobs.on(M.resolve_buf(bufnr)) ~= nil
end

--- For a statusline: the latest progress message of the edit running on the buffer, or nil.
function M.status(bufnr)
  local job = jobs.on(M.resolve_buf(bufnr))
  if not job then
    return nil
  end
  return job.cancelling and 'cancelling…' or job.progress or 'running…'
end

return M
