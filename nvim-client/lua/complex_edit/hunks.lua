--- Hunks (`{ range, newText, oldText? }` in LSP coordinates) read against a buffer and drawn in
--- it: the old lines highlighted, the new lines as virtual lines below them. Shared by the review
--- (`review.lua`) and the live preview (`live_preview.lua`); it never changes the buffer's text.

local M = {}

--- The buffer's version as its LSP clients know it (what `version` in a hunk's answer means).
function M.version(bufnr)
  return vim.lsp.util.buf_versions[bufnr] or vim.b[bufnr].changedtick
end

--- Byte column of an LSP `character` in `line`, in the negotiated position encoding.
local function byte_col(line, character, encoding)
  if encoding == 'utf-8' then
    return math.min(character, #line)
  end
  local ok, col = pcall(vim.str_byteindex, line, encoding, character, false)
  return ok and col or #line
end

--- The buffer as the server sees it (lines joined by "\n", a final "\n" with 'eol') and the
--- byte offset where each line starts.
local function document(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)
  local text = table.concat(lines, '\n')
  if vim.bo[bufnr].eol and text ~= '' then
    text = text .. '\n'
  end
  local starts, offset = {}, 0
  for i, line in ipairs(lines) do
    starts[i] = offset
    offset = offset + #line + 1
  end
  return lines, text, starts
end

local function offset_of(pos, lines, text, starts, encoding)
  local line = lines[pos.line + 1]
  if line == nil then
    return #text
  end
  return starts[pos.line + 1] + byte_col(line, pos.character, encoding)
end

--- The buffer's text in `range` now.
function M.text_at(bufnr, range, encoding)
  local lines, text, starts = document(bufnr)
  local a = offset_of(range.start, lines, text, starts, encoding)
  local b = offset_of(range['end'], lines, text, starts, encoding)
  return text:sub(a + 1, b)
end

---@class complex_edit.HunkShape
---@field first integer first row replaced (0-based)
---@field last integer last row replaced (inclusive; `first - 1` for a pure insertion)
---@field new_lines string[] the whole lines that replace them

--- How a hunk looks in the buffer: the rows it replaces (0-based, inclusive; none for a pure
--- insertion) and the whole lines that replace them.
---@return complex_edit.HunkShape
function M.layout(bufnr, hunk, encoding)
  local count = vim.api.nvim_buf_line_count(bufnr)
  local s, e = hunk.range.start, hunk.range['end']
  local new = (hunk.newText or ''):gsub('\r\n', '\n')
  if s.line == e.line and s.character == e.character and s.character == 0 then
    local added = vim.split(new:gsub('\n$', ''), '\n', { plain = true })
    return { first = s.line, last = s.line - 1, new_lines = added }
  end
  local last = e.line
  if e.character == 0 and e.line > s.line then
    last = e.line - 1
  end
  last = math.min(last, count - 1)
  local first_line = vim.api.nvim_buf_get_lines(bufnr, s.line, s.line + 1, false)[1] or ''
  local prefix = first_line:sub(1, byte_col(first_line, s.character, encoding))
  local suffix = ''
  if last == e.line then
    local last_line = vim.api.nvim_buf_get_lines(bufnr, last, last + 1, false)[1] or ''
    suffix = last_line:sub(byte_col(last_line, e.character, encoding) + 1)
  end
  local whole = prefix .. new .. suffix
  if last < e.line or e.line >= count then
    whole = whole:gsub('\n$', '')
  end
  local new_lines = whole == '' and {} or vim.split(whole, '\n', { plain = true })
  return { first = s.line, last = last, new_lines = new_lines }
end

--- Draws a hunk's `shape` in namespace `ns` of `bufnr`: its old rows highlighted with
--- `hl.old`, its new lines as virtual lines (`hl.new`) below them, or above the row a pure
--- insertion goes before.
---@param shape complex_edit.HunkShape
---@param hl { old: string, new: string }
function M.draw(bufnr, ns, shape, hl)
  local count = vim.api.nvim_buf_line_count(bufnr)
  if shape.last >= shape.first then
    vim.api.nvim_buf_set_extmark(bufnr, ns, shape.first, 0, {
      end_row = shape.last + 1,
      end_col = 0,
      strict = false,
      hl_group = hl.old,
      hl_eol = true,
      priority = 200,
    })
  end
  local anchor, above = shape.last, false
  if shape.last < shape.first then -- a pure insertion: above the line it goes before
    anchor, above = shape.first, true
    if anchor >= count then
      anchor, above = count - 1, false
    end
  end
  local virt = {}
  for _, line in ipairs(shape.new_lines) do
    table.insert(virt, { { line, hl.new } })
  end
  if #shape.new_lines == 0 then
    table.insert(virt, { { '(lines removed)', hl.new } })
  end
  vim.api.nvim_buf_set_extmark(bufnr, ns, math.max(anchor, 0), 0, {
    virt_lines = virt,
    virt_lines_above = above,
    strict = false,
  })
end

return M
