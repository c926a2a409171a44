--- `:ComplexEditLiveDiff`: the whole change a running edit is making, every file it changes, as
--- one scratch buffer in diff form (`filetype=diff`), one section per file (`--- a/PATH`,
--- `+++ b/PATH`, its hunks), the command's own document first and the others as they start
--- changing, redrawn as the server's previews (`complexEdit/preview`) arrive. Its first line says
--- whether the edit is running or how it ended (done, failed, cancelled). A preview of an open
--- buffer is read against the buffer at its `version`; one of a file not open (`version` null)
--- against the file as it is on disk, read once when its first preview arrives (the server's
--- hunks are on the text it read from disk). Only shown: nothing is written anywhere.

local M = {}

M.name = 'complex-edit://live-diff'

---@class complex_edit.LiveDoc
---@field label string the path shown in the section's header
---@field before string the text the preview was read against
---@field after string that text with the change so far

---@class complex_edit.LiveDiff
---@field status 'idle'|'running'|'done'|'failed'|'cancelled'|'lost'
---@field order string[] URIs, in the order they got a section (the command's own first)
---@field docs table<string, complex_edit.LiveDoc>
---@field disk table<string, string> the text read from disk for each file not open

---@type complex_edit.LiveDiff
local state = { status = 'idle', order = {}, docs = {}, disk = {} }
local running = 0

--- Byte offset (0-based) of an LSP position in `text`, whose lines start at `starts`.
local function offset_of(text, starts, pos, encoding)
  local start = starts[pos.line + 1]
  if start == nil then
    return #text
  end
  local stop = (starts[pos.line + 2] or (#text + 1)) - 1
  local line = text:sub(start + 1, stop):gsub('\r?\n$', '')
  if encoding == 'utf-8' then
    return start + math.min(pos.character, #line)
  end
  local ok, col = pcall(vim.str_byteindex, line, encoding, pos.character, false)
  return start + (ok and col or #line)
end

--- `text` with the preview's `hunks` (LSP ranges in `encoding`) applied.
function M.apply(text, hunks, encoding)
  local starts, at = { 0 }, 1
  while true do
    local nl = text:find('\n', at, true)
    if nl == nil or nl == #text then
      break
    end
    table.insert(starts, nl)
    at = nl + 1
  end
  local spans = {}
  for _, hunk in ipairs(hunks) do
    local a = offset_of(text, starts, hunk.range.start, encoding)
    local b = offset_of(text, starts, hunk.range['end'], encoding)
    table.insert(spans, { a, b, hunk.newText or '' })
  end
  table.sort(spans, function(x, y)
    return x[1] > y[1]
  end)
  for _, span in ipairs(spans) do
    text = text:sub(1, span[1]) .. span[3] .. text:sub(span[2] + 1)
  end
  return text
end

local function buffer_text(bufnr)
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, true), '\n')
  if vim.bo[bufnr].eol and text ~= '' then
    text = text .. '\n'
  end
  return text
end

local function disk_text(uri)
  local file = io.open(vim.uri_to_fname(uri), 'rb')
  if file == nil then
    return nil
  end
  local text = file:read('*a')
  file:close()
  return text
end

local function label_of(uri)
  return vim.fn.fnamemodify(vim.uri_to_fname(uri), ':.')
end

--- The buffer showing the live diff, or nil.
local function view()
  local bufnr = vim.fn.bufnr(M.name)
  return bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) and bufnr or nil
end

--- The live diff as lines: the status line, then each changed file's section.
function M.lines()
  local status = state.status == 'running' and 'running…'
    or state.status == 'idle' and 'no edit has run yet'
    or state.status
  local lines = { ('# Complex Edit live diff: %s'):format(status) }
  local changed = 0
  for _, uri in ipairs(state.order) do
    local doc = state.docs[uri]
    local before = doc.before:gsub('\r\n', '\n')
    local after = doc.after:gsub('\r\n', '\n')
    if before ~= after then
      changed = changed + 1
      table.insert(lines, '--- a/' .. doc.label)
      table.insert(lines, '+++ b/' .. doc.label)
      local diff = vim.diff(before, after, { result_type = 'unified', ctxlen = 3 })
      ---@cast diff string
      vim.list_extend(lines, vim.split(diff:gsub('\n$', ''), '\n', { plain = true }))
    end
  end
  if changed == 0 then
    table.insert(lines, '# no change yet')
  end
  return lines
end

local function redraw()
  local bufnr = view()
  if bufnr == nil then
    return
  end
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, M.lines())
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].modified = false
end

--- A new edit starts: when no other runs, the live diff starts over, `own` (the command's
--- buffer) first.
function M.started(own)
  running = running + 1
  if running == 1 then
    state = { status = 'running', order = {}, docs = {}, disk = {} }
  end
  if vim.api.nvim_buf_is_valid(own) then
    local uri = vim.uri_from_bufnr(own)
    if state.docs[uri] == nil then
      local text = buffer_text(own)
      state.docs[uri] = { label = label_of(uri), before = text, after = text }
      table.insert(state.order, uri)
    end
  end
  redraw()
end

--- An edit ended (`outcome`: done, failed, cancelled, lost): once none runs, the live diff
--- says how the last one ended and stays as it was.
function M.ended(outcome)
  running = math.max(running - 1, 0)
  if not require('complex_edit.jobs').any() then
    running = 0
  end
  if running == 0 then
    state.status = outcome or 'done'
    redraw()
  end
end

--- A `complexEdit/preview` notification while an edit of this client runs (`bufnr`: the loaded
--- buffer of its URI, or nil; `version_of(bufnr)`: the buffer's version).
function M.receive(params, bufnr, encoding, version_of)
  if running == 0 or params.done or type(params.hunks) ~= 'table' then
    return
  end
  local uri = params.textDocument.uri
  local version = params.textDocument.version
  local before
  if type(version) == 'number' then
    if bufnr == nil or version ~= version_of(bufnr) then
      return -- computed for another version: a newer preview follows
    end
    before = buffer_text(bufnr)
  else
    before = state.disk[uri] or disk_text(uri)
    if before == nil then
      return
    end
    state.disk[uri] = before
  end
  local ok, after = pcall(M.apply, before, params.hunks, encoding)
  if not ok then
    return
  end
  if state.docs[uri] == nil then
    table.insert(state.order, uri)
  end
  state.docs[uri] = { label = label_of(uri), before = before, after = after }
  redraw()
end

--- `:ComplexEditLiveDiff`: shows the live diff in a split (the same buffer each time).
function M.open()
  local bufnr = view()
  if bufnr == nil then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, M.name)
    vim.bo[bufnr].buftype = 'nofile'
    vim.bo[bufnr].bufhidden = 'hide'
    vim.bo[bufnr].swapfile = false
    vim.bo[bufnr].filetype = 'diff'
  end
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, bufnr)
  else
    vim.api.nvim_set_current_win(win)
  end
  redraw()
  return bufnr
end

local augroup = vim.api.nvim_create_augroup('complex_edit_live_diff', { clear = true })
vim.api.nvim_create_autocmd('User', {
  group = augroup,
  pattern = 'ComplexEditStart',
  callback = function(ev)
    M.started(ev.data and ev.data.bufnr or 0)
  end,
})
vim.api.nvim_create_autocmd('User', {
  group = augroup,
  pattern = 'ComplexEditDone',
  callback = function(ev)
    M.ended(ev.data and ev.data.outcome or nil)
  end,
})

return M
