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

--- Briefly highlights the lines a unified diff added or changed (the new side of its hunks).
function M.diff(bufnr, diff)
  local row = nil
  local first, last = nil, nil
  local function flush()
    if first then
      M.lines(bufnr, first, last)
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

return M
