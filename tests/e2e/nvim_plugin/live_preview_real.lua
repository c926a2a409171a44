-- The live preview with the real server: `:ComplexEdit` runs a session whose first turn changes
-- the text and whose second turn waits (for `flag`); meanwhile the buffer shows the preview and
-- holds its text. Then the edit lands, the preview is gone, and one `u` undoes the edit.
--
-- CONFIG: file, prompt, flag (written once the preview is seen: the model's second turn answers)

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

H.run(function()
  H.load_plugin()
  H.enable_server()
  local buf = H.open(H.cfg.file)
  local live_preview = require('complex_edit.live_preview')
  local complex_edit = require('complex_edit')

  local function marks()
    return vim.api.nvim_buf_get_extmarks(buf, live_preview.ns, 0, -1, { details = true })
  end

  --- What the buffer shows and holds now.
  local function look()
    local seen = { marks = #marks(), virt_lines = {}, old_rows = {} }
    for _, mark in ipairs(marks()) do
      for _, line in ipairs(mark[4].virt_lines or {}) do
        table.insert(seen.virt_lines, line[1][1])
      end
      if mark[4].hl_group then
        table.insert(seen.old_rows, { mark[2], mark[4].end_row })
      end
    end
    seen.text = H.buffer_text(buf)
    seen.changedtick = vim.b[buf].changedtick
    seen.undo_seq = vim.fn.undotree(buf).seq_last
    seen.modified = vim.bo[buf].modified
    return seen
  end

  H.report.before = look()
  vim.cmd('ComplexEdit ' .. H.cfg.prompt)
  H.report.running = complex_edit.is_running(buf)
  H.wait('the live preview', function()
    return #marks() > 0
  end)
  H.step('preview shown')
  H.report.during = look()
  H.report.running_during = complex_edit.is_running(buf)
  local flag = assert(io.open(H.cfg.flag, 'w'))
  flag:close()
  H.wait('the edit to end', function()
    return not complex_edit.is_running(buf)
  end)
  H.step('edit ended')
  H.report.after = look()
  vim.cmd('silent undo')
  H.report.undone = look()
end)
