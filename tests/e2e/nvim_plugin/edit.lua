-- Runs `:ComplexEdit` commands on one buffer, like a user would, and records after each one the
-- notification that reported it and the buffer text.
--
-- CONFIG: file, steps = { { command = 'ComplexEdit ...' | '2,3ComplexEdit ...' | 'ComplexEdit',
--                            input = optional answer to vim.ui.input } }

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

H.run(function()
  H.load_plugin()
  vim.g.complex_edit_flash_ms = 60000 -- the changed lines stay highlighted while we look
  H.enable_server()
  local buf = H.open(H.cfg.file)
  H.report.results = {}
  H.report.input_prompts = {}
  for _, step in ipairs(H.cfg.steps) do
    if step.input then
      vim.ui.input = function(opts, on_confirm)
        table.insert(H.report.input_prompts, opts.prompt)
        vim.schedule(function()
          on_confirm(step.input)
        end)
      end
    end
    local seen = #H.report.notifications
    vim.cmd(step.command)
    local note = H.wait_notifications(seen + 1, 'the result of :' .. step.command)
    table.insert(H.report.results, {
      notification = note,
      text = H.buffer_text(buf),
      modified = vim.bo[buf].modified,
      running = require('complex_edit').is_running(buf),
      flashed = H.flashed(buf),
    })
    vim.api.nvim_buf_clear_namespace(buf, require('complex_edit.flash').ns, 0, -1)
    H.step('done: ' .. step.command)
  end
end)
