-- complex-edit: user commands only; the logic lives in lua/complex_edit/ and loads on first use.
-- The server itself is configured by lsp/complex_edit.lua and started by
-- `vim.lsp.enable('complex_edit')` in your config.

if vim.g.loaded_complex_edit then
  return
end
vim.g.loaded_complex_edit = 1

vim.api.nvim_create_user_command('ComplexEdit', function(opts)
  require('complex_edit').command(opts)
end, {
  nargs = '*',
  range = true,
  desc = 'Complex Edit: run an instruction on the buffer (a range is sent as the selection)',
})

vim.api.nvim_create_user_command('ComplexEditCancel', function()
  require('complex_edit').cancel()
end, {
  nargs = 0,
  desc = 'Complex Edit: cancel the edit running on the current buffer',
})

vim.api.nvim_create_user_command('ComplexEditLast', function()
  require('complex_edit').show_last()
end, {
  nargs = 0,
  desc = 'Complex Edit: show the latest result or error in full (also kept in :messages)',
})
