-- `:ComplexEdit` right after the file opens, while the server is still starting: the command
-- waits for it (the command line says so), then runs. With a server that never initializes, it
-- gives up after the start timeout with one clear error and sends nothing.
--
-- CONFIG: file, prompt, via = 'argument' | 'input', never_starts? (the server is a process that
--          never answers `initialize`), start_timeout_ms?

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

H.run(function()
  H.load_plugin()
  if H.cfg.start_timeout_ms then
    vim.g.complex_edit_start_timeout_ms = H.cfg.start_timeout_ms
  end
  if H.cfg.never_starts then
    local silent = { H.cfg.python, '-c', 'import time; time.sleep(60)' }
    vim.lsp.config('complex_edit', { cmd = silent })
    vim.lsp.enable('complex_edit')
  else
    H.enable_server()
  end
  vim.cmd.edit(vim.fn.fnameescape(H.cfg.file))
  local buf = vim.api.nvim_get_current_buf()
  local complex_edit = require('complex_edit')
  -- At once: the client exists but has not initialized yet.
  H.report.ready_at_command = complex_edit.client(buf) ~= nil
  H.report.starting_at_command =
    #vim.lsp.get_clients({ bufnr = buf, name = 'complex_edit', _uninitialized = true }) > 0
  local started = vim.uv.now()
  if H.cfg.via == 'input' then
    vim.ui.input = function(_, on_confirm)
      H.report.asked = true
      vim.schedule(function()
        on_confirm(H.cfg.prompt)
      end)
    end
    vim.cmd('ComplexEdit')
  else
    vim.cmd('ComplexEdit ' .. H.cfg.prompt)
  end
  -- A second command while the first one waits is refused as busy.
  vim.cmd('ComplexEdit ' .. H.cfg.prompt)
  local note = H.wait_notifications(2, 'the result of :ComplexEdit')
  H.report.busy = H.report.notifications[1]
  H.report.result = note
  H.report.last = complex_edit.last().message
  H.report.elapsed_ms = vim.uv.now() - started
  H.report.text = H.buffer_text(buf)
end)
