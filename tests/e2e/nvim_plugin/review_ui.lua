-- The review UI alone, fed a hand-made answer with `hunks` (no server): the keys a user presses
-- (through the buffer-local maps and the <Plug> mappings), the extmarks shown, the kept ids sent
-- back, what lands, undo, and the refusal when the buffer moved on. The server's part (landing the
-- kept hunks, or `document_changed`) is played by `apply` below, as the contract says the server
-- answers; review.lua runs it against the real server. Also the completion of the commands'
-- argument.
--
-- CONFIG: file (each case edits its own copy of `original`), original, cases = { { name, hunks,
--          keys, review_keys? (vim.g.complex_edit_review_keys), typed? = 'top'|'bottom' (a line
--          the user adds while reviewing) } }

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

local function press(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'mx', false)
end

H.run(function()
  H.load_plugin()
  local review = require('complex_edit.review')
  vim.g.complex_edit_flash_ms = 60000 -- the changed lines stay highlighted while we look

  local flashed = H.flashed
  local hunks_view = require('complex_edit.hunks')
  H.report.cases = {}
  --- The server's side of `complexEdit.applyReview` for `hunks` in `buf`: the kept hunks land as
  --- one edit while their old text is where they point, else `document_changed`, nothing applied.
  local function server(buf, hunks, sent)
    return function(keep, callback)
      table.insert(sent, keep)
      local edits = {}
      for _, id in ipairs(keep) do
        local hunk = hunks[id + 1]
        if hunks_view.text_at(buf, hunk.range, 'utf-8') ~= hunk.oldText then
          return callback(nil, { success = false, applied = false, reason = 'document_changed' })
        end
        table.insert(edits, { range = hunk.range, newText = hunk.newText })
      end
      if #edits > 0 then
        vim.lsp.util.apply_text_edits(edits, buf, 'utf-8')
      end
      callback(nil, {
        success = true,
        applied = #edits > 0,
        declined = #hunks - #edits,
      })
    end
  end
  for i, case in ipairs(H.cfg.cases) do
    local path = H.cfg.file .. '.' .. i .. '.py'
    vim.fn.writefile(vim.split(H.cfg.original, '\n', { plain = true }), path, 'b')
    vim.cmd.edit(vim.fn.fnameescape(path))
    local buf = vim.api.nvim_get_current_buf()
    local out = { name = case.name }
    vim.g.complex_edit_review_keys = case.review_keys
    local ended = nil
    out.sent = {}
    review.start(buf, { hunks = case.hunks, version = vim.b[buf].changedtick }, {
      encoding = 'utf-8',
      on_end = function(outcome, message)
        ended = { outcome = outcome, message = message }
      end,
      apply = server(buf, case.hunks, out.sent),
    })
    out.marks = #vim.api.nvim_buf_get_extmarks(buf, review.ns, 0, -1, {})
    out.virt_lines = {}
    local marks = vim.api.nvim_buf_get_extmarks(buf, review.ns, 0, -1, { details = true })
    for _, mark in ipairs(marks) do
      for _, vl in ipairs(mark[4].virt_lines or {}) do
        table.insert(out.virt_lines, vl[1][1])
      end
    end
    out.cursor_row = vim.api.nvim_win_get_cursor(0)[1]
    out.y_mapped = vim.fn.maparg('y', 'n', false, true).buffer == 1
    if case.typed then
      local at = case.typed == 'top' and 0 or -1
      vim.api.nvim_buf_set_lines(buf, at, at, true, { '# typed during the review' })
    end
    press(case.keys)
    out.states_left = review.states(buf) or vim.NIL
    out.ended = ended or vim.NIL
    out.text = H.buffer_text(buf)
    out.flashed = flashed(buf)
    vim.api.nvim_buf_clear_namespace(buf, review.flash_ns, 0, -1)
    out.marks_after = #vim.api.nvim_buf_get_extmarks(buf, review.ns, 0, -1, {})
    out.maparg_y = vim.fn.maparg('y', 'n', false, true).buffer or 0
    vim.cmd('silent undo')
    out.after_undo = H.buffer_text(buf)
    table.insert(H.report.cases, out)
    vim.cmd('silent bwipeout!')
  end
  -- After a plain :ComplexEdit lands, the lines its answer's changedLines hold are highlighted
  -- (a hand-made answer: b -> B, e f -> E F, and the last line deleted).
  vim.cmd.enew()
  local scratch = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(scratch, 0, -1, true, { 'a', 'B', 'c', 'd', 'E', 'F', 'g' })
  local function region(s1, e1, s2, e2)
    return { snapshot = { start = s1, ['end'] = e1 }, document = { start = s2, ['end'] = e2 } }
  end
  require('complex_edit').flash_changes(scratch, {
    region(1, 2, 1, 2),
    region(4, 6, 4, 6),
    region(7, 8, 7, 7),
  })
  H.report.changes_flashed = flashed(scratch)
  vim.fn.histadd('cmd', 'ComplexEdit rename foo to bar')
  vim.fn.histadd('cmd', "'<,'>ComplexEditReview add type hints")
  H.report.completion = vim.fn.getcompletion('ComplexEditReview rename f', 'cmdline')
  H.report.completion_all = vim.fn.getcompletion('ComplexEdit ', 'cmdline')
  H.report.plugs = {
    vim.fn.maparg('<Plug>(complex-edit)', 'n') ~= '',
    vim.fn.maparg('<Plug>(complex-edit-review)', 'x') ~= '',
    vim.fn.maparg('<Plug>(complex-edit-review-keep)', 'n') ~= '',
  }
  H.report.across_plug = {
    vim.fn.maparg('<Plug>(complex-edit-across)', 'n'),
    vim.fn.maparg('<Plug>(complex-edit-across)', 'x'),
  }
end)
