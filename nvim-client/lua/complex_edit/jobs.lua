--- The edits running, one per buffer, and how each one ends: reported once, its buffer freed,
--- `User ComplexEditDone` fired and its `on_done` called.

local config = require('complex_edit.config')
local flash = require('complex_edit.flash')
local live_preview = require('complex_edit.live_preview')
local messages = require('complex_edit.messages')

local M = {}

local levels = vim.log.levels

---@class complex_edit.Job
---@field bufnr integer
---@field client_id integer
---@field request_id integer?
---@field seq integer order of start
---@field token (integer|string)? its work-done progress token, once the server began one
---@field progress string? the latest progress message
---@field cancelling boolean? `:ComplexEditCancel` sent `$/cancelRequest`
---@field settled boolean? reported (only once)
---@field finished boolean? the buffer was freed and `User ComplexEditDone` fired (only once)
---@field timer uv.uv_timer_t?
---@field on_done fun(err: table?, result: table?)?
---@field review boolean? sent with `review: true`: the answer's hunks are shown, not applied

--- The edit running on each buffer (the server runs at most one per document, so do we).
---@type table<integer, complex_edit.Job>
local by_buffer = {}
local started = 0
--- Jobs waiting for the server to acknowledge a cancel, by "client_id:request_id". A job stays
--- here after it leaves `by_buffer` because the server was slow to answer (see run.cancel).
---@type table<string, complex_edit.Job>
local cancelling = {}

local function request_key(client_id, request_id)
  return client_id .. ':' .. tostring(request_id)
end

--- The job running on `bufnr`, or nil.
---@return complex_edit.Job?
function M.on(bufnr)
  return by_buffer[bufnr]
end

function M.any()
  return next(by_buffer) ~= nil
end

--- Registers a new job on its buffer and returns it.
---@return complex_edit.Job
function M.add(bufnr, client_id, on_done, review)
  started = started + 1
  ---@type complex_edit.Job
  local job = { bufnr = bufnr, client_id = client_id, seq = started, on_done = on_done }
  job.review = review or nil
  by_buffer[bufnr] = job
  return job
end

--- Frees the buffer of `job` (if it still holds it) without reporting anything.
function M.release(job)
  if by_buffer[job.bufnr] == job then
    by_buffer[job.bufnr] = nil
  end
end

--- `job` sent `$/cancelRequest`: its acknowledgement ends it (see M.cancelled).
function M.await_cancel(job)
  cancelling[request_key(job.client_id, job.request_id)] = job
end

--- The job whose cancelled request `request_id` of `client_id` just completed, or nil.
function M.cancelled(client_id, request_id)
  return cancelling[request_key(client_id, request_id)]
end

--- The job a progress token belongs to. The server creates one token per command; a `begin`
--- claims the oldest job of that client that has no token yet.
function M.for_token(client_id, token, claim)
  local free = nil
  for _, job in pairs(by_buffer) do
    if job.client_id == client_id then
      if job.token == token then
        return job
      end
      if claim and job.token == nil and (free == nil or job.seq < free.seq) then
        free = job
      end
    end
  end
  if free then
    free.token = token
  end
  return free
end

function M.stop_timer(job)
  local timer = job.timer
  job.timer = nil
  if timer and not timer:is_closing() then
    timer:stop()
    timer:close()
  end
end

--- The buffer is free again: clear its live preview, refresh statuslines and fire
--- `User ComplexEditDone`, once per job.
function M.finish(job, data)
  if job.finished then
    return
  end
  job.finished = true
  live_preview.clear(job.bufnr)
  if not M.any() then
    live_preview.clear_all() -- the other buffers an edit across files previewed
  end
  messages.redraw_status()
  data.bufnr, data.request_id = job.bufnr, job.request_id
  messages.fire('ComplexEditDone', data)
end

--- " (also changed: lib/b.py, c.py; unsaved, :wall writes them)" for the documents of an edit
--- across files other than the job's own (the answer's `documents`); Neovim loads a file the
--- edit changes that was not loaded, and leaves every changed buffer unsaved.
local function other_files(job, result)
  if type(result.documents) ~= 'table' then
    return ''
  end
  local own = vim.uri_from_bufnr(job.bufnr)
  local names, unsaved = {}, false
  for _, doc in ipairs(result.documents) do
    if type(doc) == 'table' and type(doc.uri) == 'string' and doc.uri ~= own then
      local file = vim.uri_to_fname(doc.uri)
      local buf = vim.fn.bufnr(file)
      unsaved = unsaved or (buf ~= -1 and vim.bo[buf].modified)
      table.insert(names, vim.fn.fnamemodify(file, ':~:.'))
    end
  end
  if #names == 0 then
    return ''
  end
  return (' (also changed: %s%s)'):format(
    table.concat(names, ', '),
    unsaved and '; unsaved, :wall writes them' or ''
  )
end

--- What the user is told about an ended job: the message, its level and the outcome name
--- (`done`, `failed`, `cancelled`, `lost`) that `User ComplexEditDone` carries.
---@param outcome 'answer'|'cancelled'|'lost'
---@return string, integer, string
local function describe_end(job, outcome, err, result)
  if outcome == 'cancelled' then
    return 'cancelled; nothing was applied.', levels.WARN, 'cancelled'
  elseif outcome == 'lost' then
    return 'stopped: the server detached from the buffer.', levels.ERROR, 'lost'
  elseif err then
    return 'failed: ' .. tostring(err.message or err), levels.ERROR, 'failed'
  elseif type(result) ~= 'table' then
    return 'failed: the server sent an unexpected answer.', levels.ERROR, 'failed'
  elseif result.success then
    local message = result.message ~= nil and result.message ~= '' and result.message or 'done'
    if result.applied == false and not (job.review and type(result.hunks) == 'table') then
      message = message .. ' (not applied)'
    elseif result.applied then
      message = message .. other_files(job, result)
    end
    if job.cancelling then
      message = message .. ' (it finished before the cancel reached the server)'
    end
    return message, levels.INFO, 'done'
  elseif result.reason == 'cancelled' then
    return 'cancelled; nothing was applied.', levels.WARN, 'cancelled'
  end
  return ('failed (%s): %s'):format(
    tostring(result.reason or 'error'),
    tostring(result.error or 'no reason given')
  ),
    levels.ERROR,
    'failed'
end

--- Ends `job` once: clears it, reports, fires `User ComplexEditDone` and calls its `on_done`.
---@param outcome 'answer'|'cancelled'|'lost'
function M.settle(job, outcome, err, result)
  if job.settled then
    return -- reported already (an answer after a detach, ...)
  end
  job.settled = true
  M.release(job)
  if job.request_id then
    cancelling[request_key(job.client_id, job.request_id)] = nil
  end
  M.stop_timer(job)

  if outcome == 'answer' and err and err.code == config.request_cancelled then
    outcome = 'cancelled'
  end
  local answer = outcome == 'answer' and result or nil
  local message, level, ended = describe_end(job, outcome, err, result)
  messages.notify(message, level, answer)
  if ended == 'done' and answer and answer.applied then
    flash.changes(job.bufnr, answer.changedLines)
  end

  local cb_err = err
  if outcome == 'cancelled' then
    cb_err = { code = config.request_cancelled, message = 'cancelled' }
  elseif outcome == 'lost' then
    cb_err = { code = -32097, message = 'the language server detached from the buffer' }
  end
  M.finish(job, { outcome = ended, result = answer, err = cb_err, message = message })
  if job.on_done then
    job.on_done(cb_err, answer)
  end
end

return M
