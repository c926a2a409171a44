-- `:ComplexEditReview!` end to end across files: the real server answers `hunks` of the buffer's
-- file and of another file of the workspace; the plugin loads that file into a buffer of its own
-- and reviews its hunks there, in the same review; the user's keys decide each hunk wherever it
-- is; the kept ids of both files go back in one `complexEdit.applyReview`, and the server lands
-- them as one workspace edit. Everything is written with :wall.
--
-- CONFIG: file, other, command, keys (pressed once the review is open)

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
  local other = vim.fn.bufnr(H.cfg.other)
  H.report.other_loaded = other ~= -1
  H.report.states = review.states(buf) or vim.NIL
  H.report.other_in_review = other ~= -1 and review.is_open(other)
  H.report.other_text_during = other ~= -1 and H.buffer_text(other) or vim.NIL
  vim.api.nvim_create_autocmd('User', {
    pattern = 'ComplexEditReviewDone',
    callback = function(ev)
      H.report.review_done = { outcome = ev.data.outcome, result = ev.data.result or vim.NIL }
    end,
  })
  local keys = vim.api.nvim_replace_termcodes(H.cfg.keys, true, false, true)
  vim.api.nvim_feedkeys(keys, 'mx', false)
  H.wait('the server to land the kept hunks', function()
    return H.report.review_done ~= nil
  end)
  H.report.still_open = review.is_open(buf) or review.is_open(other)
  H.report.text = H.buffer_text(buf)
  H.report.other_text = H.buffer_text(other)
  vim.cmd('silent wall')
end)
