-- `:ComplexEditRevert` after an edit of three files (`:ComplexEdit!`) with typing elsewhere in
-- them, against the real server: the revert takes back every file as one step and keeps the
-- typing; the revert is reverted in turn (`:ComplexEditRevert {its id}`); a conflicting revert
-- changes nothing; `:ComplexEditHistory` lists the edits and `<CR>` shows a revert's diff.
--
-- CONFIG: file (main.py, the buffer), others (the edit's other files, not loaded)

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

local function texts(paths)
  local out = {}
  for _, path in ipairs(paths) do
    local buf = vim.fn.bufnr(path)
    if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
      out[vim.fs.basename(path)] = H.buffer_text(buf)
    else
      out[vim.fs.basename(path)] = vim.NIL
    end
  end
  return out
end

H.run(function()
  H.load_plugin()
  H.enable_server()
  local buf = H.open(H.cfg.file)
  local all = { H.cfg.file, unpack(H.cfg.others) }
  local complex_edit = require('complex_edit')

  local function command(cmd, what)
    local seen = #H.report.notifications
    vim.cmd(cmd)
    local note = H.wait_notifications(seen + 1, what)
    H.step('done: ' .. cmd)
    local last = complex_edit.last()
    return note, last and last.result or vim.NIL
  end

  local edited_note, edited = command('ComplexEdit! rename total everywhere', 'the edit')
  H.report.edit = { note = edited_note, result = edited, texts = texts(all) }
  -- the other files' buffers: Neovim loaded them for the edit; wait until the client is
  -- attached to each, so the server knows their (unsaved) text
  for _, path in ipairs(H.cfg.others) do
    local other = vim.fn.bufadd(path)
    vim.fn.bufload(other)
    H.wait('the client on ' .. path, function()
      return H.attached_client(other) ~= nil
    end)
  end
  -- the user types elsewhere: a line at the end of main.py, one at the top of the first other
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '# typed by hand' })
  vim.api.nvim_buf_set_lines(vim.fn.bufnr(H.cfg.others[1]), 0, 0, false, { '# header' })
  H.report.typed = texts(all)

  local note, reverted = command('ComplexEditRevert', 'the revert')
  H.report.revert = { note = note, result = reverted, texts = texts(all) }
  local again_note, again = command('ComplexEditRevert ' .. reverted.editId, 'the revert of the revert')
  H.report.again = { note = again_note, result = again, texts = texts(all) }

  -- :ComplexEditHistory: the list, and <CR> on the newest edit shows its revert's diff
  local shown = nil
  require('complex_edit.revert').history(function(list)
    shown = list
  end)
  H.wait('the history list', function()
    return shown ~= nil
  end)
  H.report.history = vim.api.nvim_buf_get_lines(shown, 0, -1, false)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'mx', false)
  H.wait("the revert's diff", function()
    return vim.bo.filetype == 'diff'
  end)
  H.report.diff = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('only')
  vim.api.nvim_set_current_buf(buf)

  -- a conflict: a line the edit wrote is changed again; the revert changes nothing
  local first = vim.fn.bufnr(H.cfg.others[1])
  local line = vim.api.nvim_buf_get_lines(first, 1, 2, false)[1]
  vim.api.nvim_buf_set_lines(first, 1, 2, false, { line .. '  # changed again' })
  local before = texts(all)
  local conflict_note, conflict = command('ComplexEditRevert ' .. again.editId, 'the conflict')
  H.report.conflict = {
    note = conflict_note,
    result = conflict,
    unchanged = vim.deep_equal(before, texts(all)),
  }
end)
