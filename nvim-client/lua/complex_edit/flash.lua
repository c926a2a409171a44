--- The brief highlight of the lines an edit changed, like a yank highlight.

local M = {}

M.ns = vim.api.nvim_create_namespace('complex_edit_changed')

--- Briefly highlights rows `first`..`last` (0-based, inclusive) of `bufnr`, like a yank.
function M.lines(bufnr, first, last)
  local hl = vim.hl or vim.highlight
  if last < first or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local ms = vim.g.complex_edit_flash_ms or 600
  if ms <= 0 then
    return
  end
  pcall(hl.range, bufnr, M.ns, 'IncSearch', { first, 0 }, { last, 0 }, {
    regtype = 'V',
    inclusive = true,
    timeout = ms,
  })
end

--- Briefly highlights the lines an edit changed. `changed` is the result's `changedLines`: one
--- region per change, whose `document = { start, end }` (0-based, end exclusive) holds its new
--- lines in the buffer after the edit; a pure deletion (start == end) marks the line that took
--- its place.
function M.changes(bufnr, changed)
  if type(changed) ~= 'table' or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local last_row = vim.api.nvim_buf_line_count(bufnr) - 1
  for _, region in ipairs(changed) do
    local span = type(region) == 'table' and region.document or nil
    if type(span) == 'table' and type(span.start) == 'number' and type(span['end']) == 'number' then
      local first = math.min(span.start, last_row)
      M.lines(bufnr, first, math.min(math.max(span['end'] - 1, span.start), last_row))
    end
  end
end

return M
