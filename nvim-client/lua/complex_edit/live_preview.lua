--- The live preview: while an edit runs, the server sends `complexEdit/preview` notifications
--- (`{ textDocument = { uri, version }, hunks = { { range, newText, oldText? } }, done }`), each
--- the whole change so far on the buffer at `version`. It is drawn like a review's hunks, in its
--- own namespace, and never written: no text changes, nothing enters undo, no cursor moves.
--- `vim.g.complex_edit_live_preview = false` turns it off (the client then does not opt in).

local view = require('complex_edit.hunks')

local M = {}

M.ns = vim.api.nvim_create_namespace('complex_edit_preview')

--- Highlight groups a colorscheme or the user may set; by default like a review's hunks.
local HL = { old = 'ComplexEditPreviewOld', new = 'ComplexEditPreviewNew' }

local augroup = vim.api.nvim_create_augroup('complex_edit_preview', { clear = false })

--- Whether the preview is on (`vim.g.complex_edit_live_preview`, default true).
function M.enabled()
  return vim.g.complex_edit_live_preview ~= false
end

--- The buffers a preview was drawn in since they were last cleared.
---@type table<integer, true>
local drawn = {}

--- Removes the preview from `bufnr`, if it shows one.
function M.clear(bufnr)
  drawn[bufnr] = nil
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
    vim.api.nvim_clear_autocmds({ group = augroup, buffer = bufnr })
  end
end

--- The loaded buffer whose URI is `uri`, or nil (never creates one).
function M.buffer_of(uri)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.uri_from_bufnr(bufnr) == uri then
      return bufnr
    end
  end
  return nil
end

local function is_hunk(hunk)
  local range = type(hunk) == 'table' and hunk.range or nil
  return type(range) == 'table'
    and type(range.start) == 'table'
    and type(range['end']) == 'table'
    and type(hunk.newText) == 'string'
end

--- Draws `hunks` (LSP ranges in `encoding`) in `bufnr` in place of the preview shown before.
function M.draw(bufnr, hunks, encoding)
  -- Defined at every draw: `:colorscheme` clears them.
  vim.api.nvim_set_hl(0, HL.old, { link = 'DiffDelete', default = true })
  vim.api.nvim_set_hl(0, HL.new, { link = 'DiffAdd', default = true })
  vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  drawn[bufnr] = true
  for _, hunk in ipairs(hunks) do
    if is_hunk(hunk) then
      view.draw(bufnr, M.ns, view.layout(bufnr, hunk, encoding), HL)
    end
  end
  vim.api.nvim_clear_autocmds({ group = augroup, buffer = bufnr })
  vim.api.nvim_create_autocmd({ 'BufUnload', 'BufWipeout' }, {
    group = augroup,
    buffer = bufnr,
    callback = function()
      M.clear(bufnr)
    end,
  })
end

--- Removes every preview (no edit runs any more: the other buffers of an edit across files).
function M.clear_all()
  for bufnr in pairs(drawn) do
    M.clear(bufnr)
  end
end

---@class complex_edit.PreviewParams
---@field textDocument { uri: string, version: integer? }
---@field hunks { range: lsp.Range, newText: string, oldText: string? }[]?
---@field done boolean?

--- Shows a `complexEdit/preview` notification's change in `bufnr` (`encoding`: the client's
--- position encoding), or clears the preview when it is the last one (`done`). A preview for a
--- version the buffer has left is skipped: a newer one, or the edit itself, follows.
---@param params complex_edit.PreviewParams
function M.show(bufnr, params, encoding)
  if params.done or not M.enabled() then
    return M.clear(bufnr)
  end
  if params.textDocument.version ~= view.version(bufnr) then
    return
  end
  M.draw(bufnr, type(params.hunks) == 'table' and params.hunks or {}, encoding)
end

return M
