--- Review of proposed hunks in the buffer itself (`:ComplexEditReview`): the server applied
--- nothing and answered `hunks` (each `{ range, newText, oldText, label }` in the coordinates of
--- the document at `version`). Each hunk shows its old lines highlighted and its new lines as
--- virtual lines below; the user keeps or drops each, and the kept ones are written as one undo
--- step, or nothing at all when the buffer moved on so that a kept hunk no longer matches.
---
---   require('complex_edit.review').start(bufnr, result, { encoding = 'utf-8', on_end = fn })
---   require('complex_edit.review').act(action, bufnr)  -- next, prev, keep, drop, keep_all,
---                                                       -- drop_all, finish, cancel

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

local function close(review, outcome, message, level)
  reviews[review.bufnr] = nil
  if vim.api.nvim_buf_is_valid(review.bufnr) then
    vim.api.nvim_buf_clear_namespace(review.bufnr, M.ns, 0, -1)
    for _, lhs in ipairs(review.maps) do
      pcall(vim.keymap.del, 'n', lhs, { buffer = review.bufnr })
    end
  end
  notify(message, level)
  if review.on_end then
    review.on_end(outcome, message)
  end
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

--- The kept hunks that no longer match the buffer (checked once the buffer moved on past
--- `version`, or always when the answer had no `version`).
local function stale_hunks(review, kept)
  if review.version ~= nil and view.version(review.bufnr) == review.version then
    return {}
  end
  local stale = {}
  for i, hunk in ipairs(kept) do
    local now = view.text_at(review.bufnr, hunk.range, review.encoding)
    if hunk.oldText == nil or now ~= hunk.oldText then
      table.insert(stale, i)
    end
  end
  return stale
end

--- Briefly highlights rows `first`..`last` (0-based, inclusive) of `bufnr`, like a yank.
M.flash = require('complex_edit.flash').lines

local function write_kept(review)
  local kept = {}
  for _, hunk in ipairs(review.hunks) do
    if hunk.state == 'kept' then
      table.insert(kept, hunk)
    end
  end
  local n_kept, total = counts(review)
  if n_kept == 0 then
    return close(review, 'none', ('kept none of %d changes; nothing was applied.'):format(total))
  end
  if #stale_hunks(review, kept) > 0 then
    local message = 'the buffer changed under the review; nothing applied.'
    return close(review, 'stale', message, levels.ERROR)
  end
  local shapes = {}
  for _, hunk in ipairs(kept) do
    table.insert(shapes, view.layout(review.bufnr, hunk, review.encoding))
  end
  local edits = {}
  for _, hunk in ipairs(kept) do
    table.insert(edits, { range = hunk.range, newText = hunk.newText })
  end
  vim.api.nvim_buf_clear_namespace(review.bufnr, M.ns, 0, -1)
  -- One call: Neovim records every change it makes as one undo step.
  vim.lsp.util.apply_text_edits(edits, review.bufnr, review.encoding)
  local delta = 0
  for _, shape in ipairs(shapes) do
    local first = shape.first + delta
    M.flash(review.bufnr, first, first + #shape.new_lines - 1)
    delta = delta + #shape.new_lines - (shape.last - shape.first + 1)
  end
  close(review, 'applied', ('applied %d of %d changes.'):format(n_kept, total))
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
    close(review, 'cancelled', 'review cancelled; nothing was applied.', levels.WARN)
  else
    error('unknown review action: ' .. tostring(action))
  end
end

--- Opens a review of `result.hunks` in `bufnr`.
---@param opts { encoding: string?, on_end: fun(outcome: string, message: string)? }?
function M.start(bufnr, result, opts)
  opts = opts or {}
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if reviews[bufnr] then
    close(reviews[bufnr], 'cancelled', 'previous review cancelled.', levels.WARN)
  end
  local hunks = {}
  for _, raw in ipairs(result.hunks or {}) do
    table.insert(hunks, {
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
    hunks = hunks,
    version = result.version,
    encoding = opts.encoding or 'utf-8',
    current = 1,
    maps = {},
    on_end = opts.on_end,
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
