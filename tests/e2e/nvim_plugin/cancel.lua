-- `:ComplexEditCancel` while the model call is held by the emulator, a second `:ComplexEdit`
-- while the first runs, a follow-up edit that must run normally, then a third edit held while
-- the server stops (the plugin must not stay "running").
--
-- CONFIG: file, prompt, followup, flags (the emulator writes flags[n] when the model request n
-- arrives)

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

H.run(function()
  H.load_plugin()
  H.enable_server()
  local buf = H.open(H.cfg.file)
  local complex_edit = require('complex_edit')
  H.report.text_before = H.buffer_text(buf)

  vim.cmd('ComplexEdit ' .. H.cfg.prompt)
  H.wait('the model request to reach the emulator', function()
    return H.file_exists(H.cfg.flags[1])
  end)
  H.report.running_before_cancel = complex_edit.is_running(buf)
  H.report.status_in_flight = complex_edit.status(buf) or vim.NIL
  H.step('in flight')

  vim.cmd('ComplexEdit ' .. H.cfg.prompt)
  H.report.busy = H.wait_notifications(1, 'the busy notification')

  local started = vim.uv.hrtime()
  vim.cmd('ComplexEditCancel')
  H.report.cancelled = H.wait_notifications(2, 'the cancelled notification')
  H.report.cancel_ms = (vim.uv.hrtime() - started) / 1e6
  H.report.text_after_cancel = H.buffer_text(buf)
  H.report.modified_after_cancel = vim.bo[buf].modified
  H.report.running_after_cancel = complex_edit.is_running(buf)
  H.report.status_after_cancel = complex_edit.status(buf) or vim.NIL
  H.step('cancelled')

  vim.cmd('ComplexEditCancel')
  H.report.nothing_to_cancel = H.wait_notifications(3, 'the nothing-to-cancel notification')

  vim.cmd('ComplexEdit ' .. H.cfg.followup)
  H.report.followup = H.wait_notifications(4, 'the follow-up result')
  H.report.text_after_followup = H.buffer_text(buf)
  H.step('follow-up')

  vim.cmd('ComplexEdit ' .. H.cfg.prompt)
  H.wait('the third model request to reach the emulator', function()
    return H.file_exists(H.cfg.flags[3])
  end)
  H.attached_client(buf):stop()
  H.report.server_gone = H.wait_notifications(5, 'the server-stopped notification')
  H.report.running_after_stop = complex_edit.is_running(buf)
  H.report.text_after_stop = H.buffer_text(buf)
  H.step('server stopped')
end)
