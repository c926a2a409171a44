-- Long results and errors in a narrow terminal: each notification fits the command line
-- (no hit-enter prompt) and `:ComplexEditLast` has the whole text. A statusline that shows
-- `status()` is redrawn when the edit ends, and `User ComplexEditStart` / `ComplexEditDone`
-- fire once per edit.
--
-- CONFIG: file, columns, steps = { 'ComplexEdit ...', ... }

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

H.run(function()
  H.load_plugin()
  H.enable_server()
  local buf = H.open(H.cfg.file)
  local complex_edit = require('complex_edit')
  vim.o.columns = H.cfg.columns
  H.report.echospace = vim.v.echospace

  -- A statusline that shows status(): record what each redraw showed.
  local shown = {}
  _G.ComplexEditProbe = function()
    local text = complex_edit.status(buf) or ''
    if shown[#shown] ~= text then
      table.insert(shown, text)
    end
    return text
  end
  vim.o.laststatus = 2
  vim.o.statusline = '%!v:lua.ComplexEditProbe()'

  local hooks = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = { 'ComplexEditStart', 'ComplexEditDone' },
    callback = function(ev)
      table.insert(hooks, {
        event = ev.match,
        data = ev.data,
        running = complex_edit.is_running(buf),
        statusline = shown[#shown] or vim.NIL,
      })
    end,
  })

  H.report.results = {}
  for _, command in ipairs(H.cfg.steps) do
    local seen, hooks_seen = #H.report.notifications, #hooks
    shown = {}
    vim.cmd(command)
    local note = H.wait_notifications(seen + 1, 'the result of :' .. command)
    H.wait('ComplexEditDone', function()
      return #hooks >= hooks_seen + 2
    end)
    local echoes = #H.report.echoes
    vim.cmd('ComplexEditLast')
    table.insert(H.report.results, {
      notification = note,
      width = vim.fn.strdisplaywidth(note.msg),
      last = complex_edit.last(),
      last_echo = H.report.echoes[echoes + 1] or vim.NIL,
      in_messages = vim.fn.execute('messages'),
      statuslines = shown,
      hooks = vim.list_slice(hooks, hooks_seen + 1),
      hooks_after = #hooks - hooks_seen,
    })
    H.step('done: ' .. command)
  end
end)
