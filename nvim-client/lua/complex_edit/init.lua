--- complex-edit for Neovim 0.11+: runs `performComplexEdit` on a buffer through the attached
--- `complex_edit` client, shows its progress, reports the result and cancels on request.
---
--- Public API (the user commands call it):
---   require('complex_edit').edit({ prompt = ..., bufnr = 0, line1 = 2, line2 = 5,
---                                   model = nil, max_turns = nil, dry_run = false,
---                                   on_done = function(err, result) end })
---   require('complex_edit').cancel(bufnr)
---   require('complex_edit').is_running(bufnr)
---   require('complex_edit').status(bufnr)      -- latest progress message, for a statusline
---   require('complex_edit').last()             -- the latest message in full (:ComplexEditLast)
---   require('complex_edit').review({ prompt = ..., bufnr = 0, line1 = ..., line2 = ... })
---   require('complex_edit').setup({ review_keys = { keep = 'y', ... }, flash_ms = 600 })
---
--- Autocommands for statuslines and progress plugins: `User ComplexEditStart` (data: bufnr,
--- request_id, prompt) and `User ComplexEditDone` (data: bufnr, request_id, outcome, result,
--- err, message), fired once per edit.

local M = {}

--- The `vim.lsp.config` name of the server (lsp/complex_edit.lua).
M.name = 'complex_edit'
--- The `workspace/executeCommand` command of the server.
M.command_name = 'performComplexEdit'

local TITLE = 'Complex Edit'
--- How long `:ComplexEditCancel` waits for the server to acknowledge before giving up on it.
local CANCEL_GRACE_MS = 5000
-- JSON-RPC RequestCancelled. Neovim's RPC layer swallows it (the handler is never called), but a
-- server could also send it as a plain error.
local REQUEST_CANCELLED = -32800

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
local jobs = {}
local started = 0
--- Jobs waiting for the server to acknowledge a cancel, by "client_id:request_id". A job stays
--- here after it leaves `jobs` because the server was slow to answer (see M.cancel).
---@type table<string, complex_edit.Job>
local cancelling = {}
--- The latest message the plugin reported, in full; notifications are shortened to fit.
---@type { message: string, level: integer, result: table? }?
local last = nil

local function request_key(client_id, request_id)
  return client_id .. ':' .. tostring(request_id)
end

--- Fits `text` on the command line (one line, `v:echospace` cells, more with 'cmdheight' > 1),
--- so it never asks to press Enter. A shortened text ends with `…` and `suffix`.
local function fit(text, suffix)
  text = vim.trim((text:gsub('%s+', ' ')))
  suffix = suffix or ''
  local rows = math.max(vim.o.cmdheight - 1, 0)
  local width = math.max((vim.v.echospace or 80) + rows * vim.o.columns - 1, 20)
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local room = width - 1 - vim.fn.strdisplaywidth(suffix)
  local chars = vim.fn.strchars(text)
  while chars > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(text, 0, chars)) > room do
    chars = chars - 1
  end
  return vim.trim(vim.fn.strcharpart(text, 0, chars)) .. '…' .. suffix
end

--- Reports `message` shortened to fit the command line; `:ComplexEditLast` shows all of it.
local function notify(message, level, result)
  level = level or levels.INFO
  local text = TITLE .. ': ' .. message
  last = { message = text, level = level, result = result }
  vim.notify(fit(text, ' :ComplexEditLast'), level, { title = TITLE })
end

M.notify = notify

local function notify_busy()
  notify('an edit is already running here (:ComplexEditCancel).', levels.WARN)
end

--- Redraws every statusline (and winbar), so `status()` shows what changed without waiting for
--- the next cursor move.
local function redraw_status()
  pcall(vim.cmd, 'redrawstatus!')
end

--- Fires `User {event}`: hooks for statuslines and progress plugins. A failing hook is reported,
--- never allowed to break the plugin's own bookkeeping.
local function fire(event, data)
  local ok, err = pcall(vim.api.nvim_exec_autocmds, 'User', {
    pattern = event,
    modeline = false,
    data = data,
  })
  if not ok then
    notify(('a User %s autocommand failed: %s'):format(event, tostring(err)), levels.WARN)
  end
end

--- The buffer is free again: refresh statuslines and fire `User ComplexEditDone`, once per job.
local function finish(job, data)
  if job.finished then
    return
  end
  job.finished = true
  redraw_status()
  data.bufnr, data.request_id = job.bufnr, job.request_id
  fire('ComplexEditDone', data)
end

--- Shows a progress line on the command line without adding it to the message history.
local function echo_progress(text)
  if vim.g.complex_edit_progress == false then
    return
  end
  vim.api.nvim_echo({ { text == '' and '' or fit(TITLE .. ': ' .. text) } }, false, {})
end

local function resolve_buf(bufnr)
  if bufnr == nil or bufnr == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return bufnr
end

local function is_enabled()
  if vim.lsp.is_enabled then
    return vim.lsp.is_enabled(M.name)
  end
  return vim.lsp._enabled_configs ~= nil and vim.lsp._enabled_configs[M.name] ~= nil
end

--- Why no initialized `complex_edit` client is attached to `bufnr`, in words a user can act on.
local function why_no_client(bufnr)
  local starting = vim.lsp.get_clients({ bufnr = bufnr, name = M.name, _uninitialized = true })
  if #starting > 0 then
    return 'the server is still starting; try again in a moment.'
  end
  if not is_enabled() then
    return "add vim.lsp.enable('complex_edit') to your config."
  end
  if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr) == '' then
    return 'not a file buffer; the server attaches to files only.'
  end
  local ok, config = pcall(function()
    return vim.lsp.config[M.name]
  end)
  config = ok and config or {}
  if type(config.cmd) == 'table' and vim.fn.executable(config.cmd[1]) == 0 then
    return ('%q is not executable; see :checkhealth complex_edit.'):format(tostring(config.cmd[1]))
  end
  local filetype = vim.bo[bufnr].filetype
  if filetype == '' then
    return 'no filetype, so no server; try :setfiletype text'
  end
  if config.filetypes and not vim.list_contains(config.filetypes, filetype) then
    return ('filetype %q is not in the config\'s filetypes.'):format(filetype)
  end
  return 'no server attached; see :checkhealth complex_edit.'
end

--- The initialized `complex_edit` client attached to `bufnr`, or nil and the reason.
---@return vim.lsp.Client?, string?
function M.client(bufnr)
  bufnr = resolve_buf(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = M.name })[1]
  if client then
    return client
  end
  return nil, why_no_client(bufnr)
end

local function advertises_command(client)
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  local commands = type(provider) == 'table' and provider.commands or {}
  return vim.list_contains(commands, M.command_name)
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

local function stop_timer(job)
  local timer = job.timer
  job.timer = nil
  if timer and not timer:is_closing() then
    timer:stop()
    timer:close()
  end
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
local function settle(job, outcome, err, result)
  if job.settled then
    return -- reported already (an answer after a detach, ...)
  end
  job.settled = true
  if jobs[job.bufnr] == job then
    jobs[job.bufnr] = nil
  end
  if job.request_id then
    cancelling[request_key(job.client_id, job.request_id)] = nil
  end
  stop_timer(job)

  if outcome == 'answer' and err and err.code == REQUEST_CANCELLED then
    outcome = 'cancelled'
  end
  local answer = outcome == 'answer' and result or nil
  local message, level, ended = describe_end(job, outcome, err, result)
  notify(message, level, answer)
  if ended == 'done' and answer and answer.applied and type(answer.diff) == 'string' then
    M.flash_diff(job.bufnr, answer.diff)
  end

  local cb_err = err
  if outcome == 'cancelled' then
    cb_err = { code = REQUEST_CANCELLED, message = 'cancelled' }
  elseif outcome == 'lost' then
    cb_err = { code = -32097, message = 'the language server detached from the buffer' }
  end
  finish(job, { outcome = ended, result = answer, err = cb_err, message = message })
  if job.on_done then
    job.on_done(cb_err, answer)
  end
end

--- The job a progress token belongs to. The server creates one token per command; a `begin`
--- claims the oldest job of that client that has no token yet.
local function job_for_token(client_id, token, claim)
  local free = nil
  for _, job in pairs(jobs) do
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

local augroup = nil

--- Autocommands that follow running jobs: progress, cancel acknowledgements, detaches.
local function ensure_autocmds()
  if augroup then
    return
  end
  augroup = vim.api.nvim_create_augroup('complex_edit', { clear = true })

  -- `$/progress` (cancellable work-done progress created by the server) → the command line.
  vim.api.nvim_create_autocmd('LspProgress', {
    group = augroup,
    callback = function(ev)
      local data = ev.data or {}
      local params = data.params or {}
      local value = params.value
      if type(value) ~= 'table' or not data.client_id or not next(jobs) then
        return
      end
      local job = job_for_token(data.client_id, params.token, value.kind == 'begin')
      if not job then
        return -- not ours, or the late end of an edit that already settled
      end
      if value.kind == 'end' then
        job.progress = nil
        echo_progress('')
      elseif value.message or value.title then
        job.progress = value.message or value.title
        echo_progress(job.progress)
      end
      redraw_status()
    end,
  })

  -- Neovim drops the handler of a request the server answered with RequestCancelled; the only
  -- trace of that answer is the request turning 'complete'. The handler (scheduled before this
  -- callback runs) has its turn first, so a real late answer still wins.
  vim.api.nvim_create_autocmd('LspRequest', {
    group = augroup,
    callback = function(ev)
      local data = ev.data or {}
      if not (data.request and data.request.type == 'complete') then
        return
      end
      local job = cancelling[request_key(data.client_id, data.request_id)]
      if job then
        vim.schedule(function()
          settle(job, 'cancelled')
        end)
      end
    end,
  })

  -- A server that exits (or a buffer that goes away) never answers: do not stay "running".
  vim.api.nvim_create_autocmd('LspDetach', {
    group = augroup,
    callback = function(ev)
      local job = jobs[ev.buf]
      if job and ev.data and job.client_id == ev.data.client_id then
        settle(job, 'lost')
      end
    end,
  })
end

--- Instructions run in this session, most recent first (completion of the commands' argument).
---@type string[]
local history = {}
local HISTORY_MAX = 100

local function remember(prompt)
  for i, seen in ipairs(history) do
    if seen == prompt then
      table.remove(history, i)
      break
    end
  end
  table.insert(history, 1, prompt)
  history[HISTORY_MAX + 1] = nil
end

--- Instructions from this session and from the command-line history (`:ComplexEdit ...`,
--- `:ComplexEditReview ...`, kept across sessions in the shada file), most recent first.
function M.history()
  local seen, out = {}, {}
  local function add(prompt)
    prompt = vim.trim(prompt or '')
    if prompt ~= '' and not seen[prompt] then
      seen[prompt] = true
      table.insert(out, prompt)
    end
  end
  for _, prompt in ipairs(history) do
    add(prompt)
  end
  for i = vim.fn.histnr('cmd'), 1, -1 do
    local line = vim.fn.histget('cmd', i)
    local args = line:match("^[%s:]*[%w%s,.'<>$%%+-]-ComplexEdit%s+(.*)$")
      or line:match("^[%s:]*[%w%s,.'<>$%%+-]-ComplexEditReview%s+(.*)$")
    add(args)
  end
  return out
end

--- Completion of `:ComplexEdit` / `:ComplexEditReview`: earlier instructions that start with
--- what is typed so far. Neovim replaces only the word under the cursor (`arglead`), so each
--- candidate is the rest of an instruction from where that word starts.
function M.complete(arglead, cmdline, cursorpos)
  local before = cmdline:sub(1, cursorpos or #cmdline)
  local typed = before:match('ComplexEdit%a*!?%s+(.*)$') or ''
  local head = typed:sub(1, #typed - #arglead)
  local out = {}
  for _, prompt in ipairs(M.history()) do
    if vim.startswith(prompt, typed) then
      table.insert(out, prompt:sub(#head + 1))
    end
  end
  return out
end

--- Briefly highlights the lines a unified diff added or changed (the new side of its hunks).
function M.flash_diff(bufnr, diff)
  local review = require('complex_edit.review')
  local row = nil
  local first, last = nil, nil
  local function flush()
    if first then
      review.flash(bufnr, first, last)
    end
    first, last = nil, nil
  end
  for line in vim.gsplit(diff, '\n', { plain = true }) do
    local start = line:match('^@@ %-%d+,?%d* %+(%d+),?%d* @@')
    if start then
      flush()
      row = tonumber(start) - 1
    elseif row and line:sub(1, 3) ~= '+++' and line:sub(1, 3) ~= '---' then
      local mark = line:sub(1, 1)
      if mark == '+' then
        first = first or row
        last = row
        row = row + 1
      elseif mark == ' ' then
        flush()
        row = row + 1
      elseif mark == '-' then
        first = first or row -- a deletion: mark the line that took its place
        last = last or row
      end
    end
  end
  flush()
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

--- Runs `performComplexEdit` on a buffer. Returns the request id, or nil after notifying why not.
---@param opts complex_edit.EditOpts
---@return integer?
function M.edit(opts)
  local bufnr = resolve_buf(opts.bufnr)
  local prompt = vim.trim(opts.prompt or '')
  if prompt == '' then
    notify('the instruction is empty.', levels.WARN)
    return nil
  end
  if jobs[bufnr] then
    notify_busy()
    return nil
  end
  if require('complex_edit.review').is_open(bufnr) then
    notify('a review is open here; finish or cancel it first.', levels.WARN)
    return nil
  end
  local client, why = M.client(bufnr)
  if not client then
    notify(why, levels.ERROR)
    return nil
  end
  if not advertises_command(client) then
    notify(
      ('the server %q does not advertise %s; is it complex-edit?'):format(
        client.name,
        M.command_name
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
  args.model = opts.model
  args.maxTurns = opts.max_turns

  ensure_autocmds()
  started = started + 1
  ---@type complex_edit.Job
  local job = { bufnr = bufnr, client_id = client.id, seq = started, on_done = opts.on_done }
  job.review = opts.review or nil
  remember(prompt)
  jobs[bufnr] = job
  -- Client:exec_cmd() returns nothing in 0.11, so the request goes out directly: its id is what
  -- :ComplexEditCancel needs. Client:request flushes pending didChange for the buffer first.
  local ok, request_id = client:request('workspace/executeCommand', {
    command = M.command_name,
    arguments = { args },
  }, function(err, result)
    settle(job, 'answer', err, result)
  end, bufnr)
  if not ok or not request_id then
    jobs[bufnr] = nil
    notify('not sent: the language server is shutting down.', levels.ERROR)
    return nil
  end
  job.request_id = request_id
  echo_progress(prompt)
  redraw_status()
  fire('ComplexEditStart', { bufnr = bufnr, request_id = request_id, prompt = prompt })
  return request_id
end

--- Runs `performComplexEdit` with `review: true`: the server applies nothing and answers
--- `hunks`, which open in the buffer for review (lua/complex_edit/review.lua). Takes the options
--- of M.edit; `on_done` is called with the answer, `on_review_end(outcome, message)` when the
--- review closes.
---@param opts complex_edit.EditOpts|{ on_review_end: fun(outcome: string, message: string)? }
function M.review(opts)
  local bufnr = resolve_buf(opts.bufnr)
  local on_done = opts.on_done
  local edit = vim.tbl_extend('force', opts, { bufnr = bufnr, review = true })
  edit.on_done = function(err, result)
    local client = vim.lsp.get_clients({ bufnr = bufnr, name = M.name })[1]
    if not err and type(result) == 'table' and type(result.hunks) == 'table' then
      if vim.api.nvim_buf_is_valid(bufnr) then
        require('complex_edit.review').start(bufnr, result, {
          encoding = client and client.offset_encoding or 'utf-8',
          on_end = opts.on_review_end,
        })
      end
    end
    if on_done then
      on_done(err, result)
    end
  end
  return M.edit(edit)
end

--- Options: `review_keys` (see README: which keys a review uses; false for none) and
--- `flash_ms` (how long the changed lines stay highlighted after an edit; 0 for never).
function M.setup(opts)
  opts = opts or {}
  if opts.review_keys ~= nil then
    vim.g.complex_edit_review_keys = opts.review_keys
  end
  if opts.flash_ms ~= nil then
    vim.g.complex_edit_flash_ms = opts.flash_ms
  end
end

--- Whether an edit is running on the buffer.
function M.is_running(bufnr)
  return jobs[resolve_buf(bufnr)] ~= nil
end

--- For a statusline: the latest progress message of the edit running on the buffer, or nil.
function M.status(bufnr)
  local job = jobs[resolve_buf(bufnr)]
  if not job then
    return nil
  end
  return job.cancelling and 'cancelling…' or job.progress or 'running…'
end

--- The latest message the plugin reported, in full (`:ComplexEditLast`): `{ message, level,
--- result }` (`result`: the server's answer when the message reported one), or nil.
function M.last()
  return last and vim.deepcopy(last) or nil
end

local HIGHLIGHTS = { [levels.ERROR] = 'ErrorMsg', [levels.WARN] = 'WarningMsg' }

--- `:ComplexEditLast`: the latest message in full, also kept in `:messages`.
function M.show_last()
  if not last then
    vim.notify(TITLE .. ': no message yet.', levels.INFO, { title = TITLE })
    return
  end
  vim.api.nvim_echo({ { last.message, HIGHLIGHTS[last.level] } }, true, {})
end

--- Cancels the edit running on the buffer: `$/cancelRequest`, then the server answers
--- RequestCancelled and applies nothing.
function M.cancel(bufnr)
  bufnr = resolve_buf(bufnr)
  local job = jobs[bufnr]
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
    settle(job, 'cancelled')
    return
  end
  cancelling[request_key(job.client_id, job.request_id)] = job
  client:cancel_request(job.request_id)
  echo_progress('cancelling…')
  redraw_status()
  -- A server that does not acknowledge must not leave the buffer "busy" forever: free it, and
  -- still report the answer if one comes later (it may be an edit that was already on its way).
  job.timer = vim.defer_fn(function()
    job.timer = nil
    if not job.settled and jobs[bufnr] == job then
      jobs[bufnr] = nil
      local message = ('cancel unconfirmed after %d s; the buffer is free.'):format(
        CANCEL_GRACE_MS / 1000
      )
      notify(message, levels.WARN)
      finish(job, { outcome = 'unconfirmed', message = message })
    end
  end, CANCEL_GRACE_MS)
end

--- `:[range]ComplexEdit [instruction]`: without an instruction, asks with vim.ui.input.
--- With `review` (`:ComplexEditReview`), the proposed hunks open for review instead.
function M.command(opts, review)
  local bufnr = vim.api.nvim_get_current_buf()
  local edit = { bufnr = bufnr }
  local run = review and M.review or M.edit
  if opts.range and opts.range > 0 then
    edit.line1, edit.line2 = opts.line1, opts.line2
  end
  local prompt = vim.trim(opts.args or '')
  if prompt ~= '' then
    edit.prompt = prompt
    run(edit)
    return
  end
  -- Check what can be checked before the user types a long instruction.
  if jobs[bufnr] then
    notify_busy()
    return
  end
  local client, why = M.client(bufnr)
  if not client then
    notify(why, levels.ERROR)
    return
  end
  vim.ui.input({ prompt = TITLE .. ': ' }, function(input)
    if input == nil or vim.trim(input) == '' then
      return -- dismissed
    end
    if not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    edit.prompt = input
    run(edit)
  end)
end

return M
