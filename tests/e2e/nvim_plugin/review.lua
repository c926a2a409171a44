-- `:ComplexEditReview` end to end: the real server answers `hunks` (Neovim has no change
-- annotations, so it applies nothing), the user keeps and drops them with the review keys, the
-- plugin sends the kept ids back (`complexEdit.applyReview`) and the server lands them as one
-- undo step; they are saved; one `u` restores the original.
-- With `other` (`:ComplexEditReview!`, an edit across files): the other file is loaded into a
-- buffer of the same review, its hunks decided there; the kept ids of both files go back in one
-- `complexEdit.applyReview`, landed as one workspace edit; everything is saved with :wall.
--
-- CONFIG: file, command, keys (pressed once the review is open), other (optional)

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

H.run(function()
  H.load_plugin()
  H.enable_server()
  local buf = H.open(H.cfg.file)
  local review = require('complex_edit.review')
  vim.api.nvim_create_autocmd('User', {
    pattern = 'ComplexEditDone',
    callback = function(ev)
      H.report.done = { outcome = ev.data.outcome, result = ev.data.result }
    end,
  })
  vim.cmd(H.cfg.command)
  H.wait('the review to open', function()
    return review.is_open(buf) or H.report.done ~= nil and not review.is_open(buf)
  end)
  H.report.states = review.states(buf) or vim.NIL
  H.report.text_during = H.buffer_text(buf)
  H.report.modified_during = vim.bo[buf].modified
  local other = H.cfg.other and vim.fn.bufnr(H.cfg.other) or -1
  if H.cfg.other then
    H.report.other_loaded = other ~= -1
    H.report.other_in_review = other ~= -1 and review.is_open(other)
    H.report.other_text_during = other ~= -1 and H.buffer_text(other) or vim.NIL
  end
  local keys = vim.api.nvim_replace_termcodes(H.cfg.keys, true, false, true)
  vim.api.nvim_create_autocmd('User', {
    pattern = 'ComplexEditReviewDone',
    callback = function(ev)
      H.report.review_done = { outcome = ev.data.outcome, result = ev.data.result or vim.NIL }
    end,
  })
  vim.api.nvim_feedkeys(keys, 'mx', false)
  H.report.still_open = review.is_open(buf) or (other ~= -1 and review.is_open(other))
  H.wait('the server to land the kept hunks', function()
    return H.report.review_done ~= nil
  end)
  H.report.text = H.buffer_text(buf)
  if H.cfg.other then
    H.report.other_text = H.buffer_text(other)
    vim.cmd('silent wall')
    return
  end
  vim.cmd('silent write')
  vim.cmd('silent undo')
  H.report.after_undo = H.buffer_text(buf)
end)
