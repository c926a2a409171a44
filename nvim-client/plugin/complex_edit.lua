-- complex-edit: user commands only; the logic lives in lua/complex_edit/ and loads on first use.
-- The server itself is configured by lsp/complex_edit.lua and started by
-- `vim.lsp.enable('complex_edit')` in your config.

if vim.g.loaded_complex_edit then
  return
end
vim.g.loaded_complex_edit = 1

local function complete(arglead, cmdline, cursorpos)
  return require('complex_edit').complete(arglead, cmdline, cursorpos)
end

vim.api.nvim_create_user_command('ComplexEdit', function(opts)
  require('complex_edit').command(opts)
end, {
  nargs = '*',
  range = true,
  bang = true,
  complete = complete,
  desc = 'Complex Edit: run an instruction on the buffer (a range is sent as the selection; '
    .. 'with ! it may change other files of the workspace too)',
})

vim.api.nvim_create_user_command('ComplexEditReview', function(opts)
  require('complex_edit').command(opts, true)
end, {
  nargs = '*',
  range = true,
  bang = true,
  complete = complete,
  desc = 'Complex Edit: propose the change as hunks to keep or drop one by one (with ! other '
    .. 'files of the workspace too, each reviewed in its own buffer)',
})

-- <Plug> mappings (none is bound to a key by default; see the README for a suggestion).
-- In visual mode `:` inserts '<,'>, so the selected lines are sent as the range.
vim.keymap.set('n', '<Plug>(complex-edit)', '<Cmd>ComplexEdit<CR>', { desc = 'Complex Edit' })
vim.keymap.set('x', '<Plug>(complex-edit)', ':ComplexEdit<CR>', { desc = 'Complex Edit' })
vim.keymap.set('n', '<Plug>(complex-edit-across)', '<Cmd>ComplexEdit!<CR>', {
  desc = 'Complex Edit across files',
})
vim.keymap.set('x', '<Plug>(complex-edit-across)', ':ComplexEdit!<CR>', {
  desc = 'Complex Edit across files',
})
vim.keymap.set('n', '<Plug>(complex-edit-review)', '<Cmd>ComplexEditReview<CR>', {
  desc = 'Complex Edit with review',
})
vim.keymap.set('x', '<Plug>(complex-edit-review)', ':ComplexEditReview<CR>', {
  desc = 'Complex Edit with review',
})
vim.keymap.set('n', '<Plug>(complex-edit-cancel)', '<Cmd>ComplexEditCancel<CR>', {
  desc = 'Complex Edit: cancel',
})
-- While a review is open, its buffer maps the keys of `vim.g.complex_edit_review_keys` (default
-- ]h [h y n a d <CR> q <Esc>) to these.
local review_actions =
  { 'next', 'prev', 'keep', 'drop', 'keep_all', 'drop_all', 'finish', 'cancel' }
for _, action in ipairs(review_actions) do
  vim.keymap.set('n', '<Plug>(complex-edit-review-' .. action:gsub('_', '-') .. ')', function()
    require('complex_edit.review').act(action)
  end, { desc = 'Complex Edit review: ' .. action:gsub('_', ' ') })
end

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
