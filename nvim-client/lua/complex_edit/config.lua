--- complex-edit's fixed names and constants, and the options `setup()` sets.

local M = {}

--- The `vim.lsp.config` name of the server (lsp/complex_edit.lua).
M.name = 'complex_edit'
--- The `workspace/executeCommand` command of the server.
M.command_name = 'performComplexEdit'
M.title = 'Complex Edit'
--- How long `:ComplexEditCancel` waits for the server to acknowledge before giving up on it.
M.cancel_grace_ms = 5000
--- How long `:ComplexEdit` waits for a server that is still starting, by default.
M.start_timeout_ms = 10000
-- JSON-RPC RequestCancelled. Neovim's RPC layer swallows it (the handler is never called), but a
-- server could also send it as a plain error.
M.request_cancelled = -32800

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

return M
