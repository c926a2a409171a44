--- Review of proposed hunks in the buffer itself (`:ComplexEditReview`): the server applied
--- nothing and answered `hunks` (each `{ id, range, newText, oldText, label }` in the coordinates
--- of the document at `version`) and a `proposalId`. Each hunk shows its old lines highlighted and
--- its new lines as virtual lines below; the user keeps or drops each, and the ids of the kept
--- ones go back to the server (`complexEdit.applyReview`), which lands exactly those as one undo
--- step, rebased over what the user typed meanwhile, or answers `document_changed`.
---
---   require('complex_edit.review').start(bufnr, result, { encoding = 'utf-8', on_end = fn,
---                                                         apply = fn })
---   require('complex_edit.review').act(action, bufnr)  -- next, prev, keep, drop, keep_all,
---                                                       -- drop_all, finish, cancel
---
--- `apply(keep, callback)` sends the kept hunk ids and calls `callback(err, answer)` with the
--- server's answer (`M.server_apply` builds the one that asks the server).

local view = require('complex_edit.hunks')

local M = {}

local levels = vim.log.levels

M.ns = vim.api.nvim_create_namespace('complex_edit_review')
M.flash_ns = require('complex_edit.flash').ns

--- Default buffer-local keys while a review is open; `vim.g.complex_edit_review_keys` (or
--- `require('complex_edit').setup({ review_keys = ... })`) overrides any of them: a string, a
--- list of strings, or false for none.
M.default_keys = {
  next = ']h',
  prev = '[h',
  keep = 'y',
  drop = 'n',
  keep_all = 'a',
  drop_all = 'd',
  finish = { '<CR>', 'q' },
  cancel = '<Esc>',
}

M.actions = { 'next', 'prev', 'keep', 'drop', 'keep_all', 'drop_all', 'finish', 'cancel' }

---@class complex_edit.Hunk
---@field id integer the hunk's id in the proposal
---@field range lsp.Range
---@field newText string
---@field oldText string?
---@field label string?
---@field state 'pending'|'kept'|'dropped'

---@class complex_edit.Review
---@field bufnr integer
---@field hunks complex_edit.Hunk[]
---@field version integer?
---@field encoding string
---@field current integer
---@field maps string[]
---@field on_end fun(outcome: string, message: string)?
---@field apply fun(keep: integer[], callback: fun(err: table?, answer: table?))?

--- The open review of each buffer.
---@type table<integer, complex_edit.Review>
local reviews = {}

local function notify(message, level)
  require('complex_edit.messages').notify(message, level)
end

function M.is_open(bufnr)
  return reviews[bufnr] ~= nil
end

local MARKS = { pending = '?', kept = 'keep', dropped = 'drop' }

local HL = { old = 'DiffDelete', new = 'DiffAdd' }

local function render(review)
  local bufnr = review.bufnr
  vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  local count = vim.api.nvim_buf_line_count(bufnr)
  for i, hunk in ipairs(review.hunks) do
    local shape = view.layout(bufnr, hunk, review.encoding)
    if hunk.state ~= 'dropped' then
      view.draw(bufnr, M.ns, shape, HL)
    end
    local tag = ('[%d/%d %s]'):format(i, #review.hunks, MARKS[hunk.state])
    local label_hl = i == review.current and 'Search' or 'Comment'
    vim.api.nvim_buf_set_extmark(bufnr, M.ns, math.min(math.max(shape.first, 0), count - 1), 0, {
      virt_text = { { tag .. ' ' .. (hunk.label or ''), label_hl } },
      virt_text_pos = 'eol',
      strict = false,
    })
  end
end

local function goto_hunk(review, index)
  review.current = index
  local last_row = vim.api.nvim_buf_line_count(review.bufnr) - 1
  local row = math.min(review.hunks[index].range.start.line, last_row)
  for _, win in ipairs(vim.fn.win_findbuf(review.bufnr)) do
    pcall(vim.api.nvim_win_set_cursor, win, { row + 1, 0 })
  end
  render(review)
end

local function next_pending(review, from)
  local n = #review.hunks
  for step = 1, n do
    local i = (from - 1 + step) % n + 1
    if review.hunks[i].state == 'pending' then
      return i
    end
  end
  return nil
end

local function keys_for(action)
  local configured = vim.g.complex_edit_review_keys
  local keys = M.default_keys[action]
  if type(configured) == 'table' and configured[action] ~= nil then
    keys = configured[action]
  end
  if keys == false or keys == nil then
    return {}
  end
  return type(keys) == 'string' and { keys } or keys
end

local function first_key(action)
  return keys_for(action)[1] or ('<Plug>(complex-edit-review-' .. action:gsub('_', '-') .. ')')
end

local function plug(action)
  return '<Plug>(complex-edit-review-' .. action:gsub('_', '-') .. ')'
end
M.plug = plug

local function map_keys(review)
  for _, action in ipairs(M.actions) do
    for _, lhs in ipairs(keys_for(action)) do
      vim.keymap.set('n', lhs, plug(action), {
        buffer = review.bufnr,
        remap = true,
        nowait = true,
        desc = 'Complex Edit review: ' .. action:gsub('_', ' '),
      })
      table.insert(review.maps, lhs)
    end
  end
end

--- Takes the review off the buffer: its marks and keys.
local function dismiss(review)
  if reviews[review.bufnr] == review then
    reviews[review.bufnr] = nil
  end
  if vim.api.nvim_buf_is_valid(review.bufnr) then
    vim.api.nvim_buf_clear_namespace(review.bufnr, M.ns, 0, -1)
    for _, lhs in ipairs(review.maps) do
      pcall(vim.keymap.del, 'n', lhs, { buffer = review.bufnr })
    end
  end
end

--- Tells how the review ended: the message, `User ComplexEditReviewDone` and `on_end`.
local function report(review, outcome, message, level, answer)
  notify(message, level)
  require('complex_edit.messages').fire('ComplexEditReviewDone', {
    bufnr = review.bufnr,
    outcome = outcome,
    message = message,
    result = answer,
  })
  if review.on_end then
    review.on_end(outcome, message)
  end
end

local function close(review, outcome, message, level)
  dismiss(review)
  report(review, outcome, message, level)
end

local function counts(review)
  local kept, total = 0, #review.hunks
  for _, hunk in ipairs(review.hunks) do
    if hunk.state == 'kept' then
      kept = kept + 1
    end
  end
  return kept, total
end

--- Briefly highlights rows `first`..`last` (0-based, inclusive) of `bufnr`, like a yank.
M.flash = require('complex_edit.flash').lines

--- What the server's answer to the kept hunks means: outcome, message, level.
local function landed(n_kept, total, err, answer)
  if err then
    local code = type(err.data) == 'table' and err.data.code or nil
    if code == 'unknown_proposal' then -- the server says why, and how long it keeps one
      return 'failed', 'the proposal is gone: ' .. tostring(err.message), levels.ERROR
    end
    return 'failed', 'failed: ' .. tostring(err.message or err), levels.ERROR
  elseif type(answer) ~= 'table' then
    return 'failed', 'failed: the server sent an unexpected answer.', levels.ERROR
  elseif answer.success and answer.applied then
    return 'applied', ('applied %d of %d changes.'):format(n_kept, total), levels.INFO
  elseif answer.reason == 'document_changed' then
    return 'stale', 'the buffer changed under the review; nothing applied.', levels.ERROR
  elseif answer.success then
    return 'none', ('kept none of %d changes; nothing was applied.'):format(total), levels.INFO
  end
  return 'failed',
    ('failed (%s): %s'):format(tostring(answer.reason or 'error'), tostring(answer.error or '')),
    levels.ERROR
end

--- Sends the kept hunks' ids to the server, which lands them (or none); `callback(err, answer)`.
local function send(review, keep, callback)
  if not review.apply then
    callback({ message = 'this review cannot reach the server' }, nil)
    return
  end
  local answered = false
  local function once(err, answer)
    if not answered then
      answered = true
      callback(err, answer)
    end
  end
  local ok, problem = pcall(review.apply, keep, once)
  if not ok and not answered then
    once({ message = tostring(problem) }, nil)
  end
end

local function write_kept(review)
  local keep = {}
  for _, hunk in ipairs(review.hunks) do
    if hunk.state == 'kept' then
      table.insert(keep, hunk.id)
    end
  end
  local n_kept, total = counts(review)
  dismiss(review)
  if n_kept == 0 then
    send(review, keep, function() end) -- the server forgets the proposal; nothing lands
    return report(review, 'none', ('kept none of %d changes; nothing was applied.'):format(total))
  end
  notify(('applying %d of %d changes…'):format(n_kept, total))
  send(review, keep, function(err, answer)
    local outcome, message, level = landed(n_kept, total, err, answer)
    if outcome == 'applied' and vim.api.nvim_buf_is_valid(review.bufnr) then
      require('complex_edit.flash').changes(review.bufnr, answer.changedLines)
    end
    report(review, outcome, message, level, answer)
  end)
end

local function decide(review, state)
  review.hunks[review.current].state = state
  local n = next_pending(review, review.current)
  if n then
    goto_hunk(review, n)
  else
    render(review)
    local kept, total = counts(review)
    local finish, cancel = first_key('finish'), first_key('cancel')
    notify(('%d of %d kept; %s writes, %s cancels.'):format(kept, total, finish, cancel))
  end
end

local function decide_rest(review, state)
  for _, hunk in ipairs(review.hunks) do
    if hunk.state == 'pending' then
      hunk.state = state
    end
  end
  render(review)
end

--- Runs a review action on the buffer's open review.
function M.act(action, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local review = reviews[bufnr]
  if not review then
    notify('no review is open in this buffer.', levels.WARN)
    return
  end
  local n = #review.hunks
  if action == 'next' then
    goto_hunk(review, review.current % n + 1)
  elseif action == 'prev' then
    goto_hunk(review, (review.current - 2) % n + 1)
  elseif action == 'keep' then
    decide(review, 'kept')
  elseif action == 'drop' then
    decide(review, 'dropped')
  elseif action == 'keep_all' then
    decide_rest(review, 'kept')
  elseif action == 'drop_all' then
    decide_rest(review, 'dropped')
  elseif action == 'finish' then
    write_kept(review)
  elseif action == 'cancel' then
    dismiss(review)
    send(review, {}, function() end) -- the server forgets the proposal
    report(review, 'cancelled', 'review cancelled; nothing was applied.', levels.WARN)
  else
    error('unknown review action: ' .. tostring(action))
  end
end

--- Opens a review of `result.hunks` in `bufnr`.
---@param opts { encoding: string?, on_end: fun(outcome: string, message: string)?, apply: fun(keep: integer[], callback: fun(err: table?, answer: table?))? }?
function M.start(bufnr, result, opts)
  opts = opts or {}
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if reviews[bufnr] then
    close(reviews[bufnr], 'cancelled', 'previous review cancelled.', levels.WARN)
  end
  local hunks, elsewhere = {}, 0
  local own = vim.uri_from_bufnr(bufnr)
  for i, raw in ipairs(result.hunks or {}) do
    if raw.uri ~= nil and raw.uri ~= own then
      elsewhere = elsewhere + 1 -- another file's: not shown here, so never kept
    else
      table.insert(hunks, {
        id = raw.id or (i - 1),
        range = raw.range,
        newText = raw.newText or '',
        oldText = raw.oldText,
        label = raw.label,
        state = 'pending',
      })
    end
  end
  if elsewhere > 0 then
    notify(
      ('%d proposed %s to other files cannot be reviewed here and will not land.'):format(
        elsewhere,
        elsewhere == 1 and 'change' or 'changes'
      ),
      levels.WARN
    )
  end
  if #hunks == 0 then
    notify('no changes proposed; nothing to review.')
    return nil
  end
  ---@type complex_edit.Review
  local review = {
    bufnr = bufnr,
    hunks = hunks,
    version = result.version,
    encoding = opts.encoding or 'utf-8',
    current = 1,
    maps = {},
    on_end = opts.on_end,
    apply = opts.apply,
  }
  reviews[bufnr] = review
  map_keys(review)
  vim.api.nvim_create_autocmd({ 'BufUnload', 'BufWipeout' }, {
    buffer = bufnr,
    once = true,
    callback = function()
      if reviews[bufnr] == review then
        reviews[bufnr] = nil
      end
    end,
  })
  goto_hunk(review, 1)
  notify(
    ('%d %s: %s keep, %s drop, %s write'):format(
      #hunks,
      #hunks == 1 and 'change' or 'changes',
      first_key('keep'),
      first_key('drop'),
      first_key('finish')
    )
  )
  return review
end

--- The `apply` of a review whose proposal `proposal_id` the client `client_id` answered: sends
--- `complexEdit.applyReview` with the kept ids; the server lands them through
--- `workspace/applyEdit` and answers like `performComplexEdit`.
function M.server_apply(client_id, bufnr, proposal_id)
  return function(keep, callback)
    local client = vim.lsp.get_client_by_id(client_id)
    if not client or client:is_stopped() then
      return callback({ message = 'the server is gone; nothing applied.' }, nil)
    end
    if type(proposal_id) ~= 'string' then
      return callback({ message = 'the answer has no proposalId (is the server older than the plugin?)' }, nil)
    end
    local ok = client:request('workspace/executeCommand', {
      command = 'complexEdit.applyReview',
      arguments = { { proposalId = proposal_id, keep = keep } },
    }, function(err, answer)
      callback(err, answer)
    end, bufnr)
    if not ok then
      callback({ message = 'not sent: the language server is shutting down.' }, nil)
    end
  end
end

--- The states of the hunks of the buffer's open review (for tests and statuslines), or nil.
function M.states(bufnr)
  local review = reviews[bufnr]
  if not review then
    return nil
  end
  return vim.tbl_map(function(hunk)
    return hunk.state
  end, review.hunks)
end

return M
