--- Review of proposed hunks in the buffer itself (`:ComplexEditReview`): the server applied
--- nothing and answered `hunks` (each `{ id, range, newText, oldText, label }` in the coordinates
--- of the document at `version`) and a `proposalId`. Each hunk shows its old lines highlighted and
--- its new lines as virtual lines below; the user keeps or drops each, and the ids of the kept
--- ones go back to the server (`complexEdit.applyReview`), which lands exactly those as one undo
--- step, rebased over what the user typed meanwhile, or answers `document_changed`.
---
--- An edit across files (`:ComplexEditReview!`) proposes hunks with the `uri` of another file:
--- that file is loaded into a buffer of its own (listed, not written) and its hunks are reviewed
--- there, in the same review: ]h and [h go from file to file (the window shows the hunk's
--- buffer), the review's keys work in every buffer of it, and finishing sends the kept ids of
--- every file in one `complexEdit.applyReview`, which lands them as one workspace edit.
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
---@field bufnr integer the buffer it is reviewed in (its file's)
---@field range lsp.Range
---@field newText string
---@field oldText string?
---@field label string?
---@field state 'pending'|'kept'|'dropped'

---@class complex_edit.Review
---@field bufnr integer the command's buffer
---@field buffers integer[] every buffer with hunks of it, the command's first
---@field hunks complex_edit.Hunk[]
---@field version integer?
---@field encoding string
---@field current integer
---@field maps { [1]: integer, [2]: string }[] the buffer-local keys set: (buffer, lhs)
---@field on_end fun(outcome: string, message: string)?
---@field apply fun(keep: integer[], callback: fun(err: table?, answer: table?))?

--- The open review of each buffer (one review can span several).
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
  for _, bufnr in ipairs(review.buffers) do
    if vim.api.nvim_buf_is_valid(bufnr) then
      vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
    end
  end
  for i, hunk in ipairs(review.hunks) do
    local bufnr = hunk.bufnr
    local count = vim.api.nvim_buf_line_count(bufnr)
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
  local bufnr = review.hunks[index].bufnr
  local shown = vim.fn.win_findbuf(bufnr)
  if #shown == 0 and vim.tbl_contains(review.buffers, vim.api.nvim_get_current_buf()) then
    vim.api.nvim_win_set_buf(0, bufnr) -- another file's hunk: show its buffer here
    shown = { vim.api.nvim_get_current_win() }
  end
  local last_row = vim.api.nvim_buf_line_count(bufnr) - 1
  local row = math.min(review.hunks[index].range.start.line, last_row)
  for _, win in ipairs(shown) do
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
  for _, bufnr in ipairs(review.buffers) do
    for _, action in ipairs(M.actions) do
      for _, lhs in ipairs(keys_for(action)) do
        vim.keymap.set('n', lhs, plug(action), {
          buffer = bufnr,
          remap = true,
          nowait = true,
          desc = 'Complex Edit review: ' .. action:gsub('_', ' '),
        })
        table.insert(review.maps, { bufnr, lhs })
      end
    end
  end
end

--- Takes the review off its buffers: their marks and keys.
local function dismiss(review)
  for _, bufnr in ipairs(review.buffers) do
    if reviews[bufnr] == review then
      reviews[bufnr] = nil
    end
    if vim.api.nvim_buf_is_valid(bufnr) then
      vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
    end
  end
  for _, map in ipairs(review.maps) do
    if vim.api.nvim_buf_is_valid(map[1]) then
      pcall(vim.keymap.del, 'n', map[2], { buffer = map[1] })
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

--- Flashes the lines that landed: the command's buffer's, and each other file's (`documents`).
local function flash_landed(review, answer)
  local flash = require('complex_edit.flash')
  if vim.api.nvim_buf_is_valid(review.bufnr) then
    flash.changes(review.bufnr, answer.changedLines)
  end
  for _, doc in ipairs(type(answer.documents) == 'table' and answer.documents or {}) do
    local bufnr = type(doc.uri) == 'string' and vim.uri_to_bufnr(doc.uri) or nil
    if bufnr and bufnr ~= review.bufnr and vim.api.nvim_buf_is_loaded(bufnr) then
      flash.changes(bufnr, doc.changedLines)
    end
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
    if outcome == 'applied' then
      flash_landed(review, answer)
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
  local hunks, buffers = {}, { bufnr }
  local own = vim.uri_from_bufnr(bufnr)
  for i, raw in ipairs(result.hunks or {}) do
    local target = bufnr
    if raw.uri ~= nil and raw.uri ~= own then
      -- Another file's hunk: reviewed in that file's buffer (loaded as on disk, not written).
      target = vim.uri_to_bufnr(raw.uri)
      vim.fn.bufload(target)
      vim.bo[target].buflisted = true
      if not vim.tbl_contains(buffers, target) then
        table.insert(buffers, target)
      end
      if reviews[target] then
        close(reviews[target], 'cancelled', 'previous review cancelled.', levels.WARN)
      end
    end
    table.insert(hunks, {
      id = raw.id or (i - 1),
      bufnr = target,
      range = raw.range,
      newText = raw.newText or '',
      oldText = raw.oldText,
      label = raw.label,
      state = 'pending',
    })
  end
  if #hunks == 0 then
    notify('no changes proposed; nothing to review.')
    return nil
  end
  ---@type complex_edit.Review
  local review = {
    bufnr = bufnr,
    buffers = buffers,
    hunks = hunks,
    version = result.version,
    encoding = opts.encoding or 'utf-8',
    current = 1,
    maps = {},
    on_end = opts.on_end,
    apply = opts.apply,
  }
  for _, each in ipairs(buffers) do
    reviews[each] = review
    vim.api.nvim_create_autocmd({ 'BufUnload', 'BufWipeout' }, {
      buffer = each,
      once = true,
      callback = function()
        if reviews[each] == review then
          reviews[each] = nil
        end
      end,
    })
  end
  map_keys(review)
  goto_hunk(review, 1)
  local files = #buffers > 1 and (' in %d files'):format(#buffers) or ''
  notify(
    ('%d %s%s: %s keep, %s drop, %s write'):format(
      #hunks,
      #hunks == 1 and 'change' or 'changes',
      files,
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
