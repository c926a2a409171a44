-- The live preview (`complexEdit/preview`) against a tiny in-process fake server: the plugin's
-- own lsp/complex_edit.lua with only `cmd` replaced by a Lua function (Neovim runs it as the
-- server). The fake records the client capabilities, holds each `performComplexEdit` until the
-- script answers it, and sends the preview notifications the script writes, exactly as a server
-- over stdio would (scheduled, in order). The report says what the buffer showed each time.
--
-- CONFIG: file, live_preview (false: `vim.g.complex_edit_live_preview = false` before the
--          server starts), hunks (the preview's hunks on the opened file), more_hunks (a second
--          preview that replaces the first)

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

local fake = dofile(vim.fs.joinpath(here, 'fake_server.lua'))

H.run(function()
  H.load_plugin()
  if H.cfg.live_preview == false then
    vim.g.complex_edit_live_preview = false
  end
  vim.lsp.config('complex_edit', { cmd = fake.cmd })
  vim.lsp.enable('complex_edit')
  local buf = H.open(H.cfg.file)
  local uri = vim.uri_from_bufnr(buf)
  local live_preview = require('complex_edit.live_preview')
  local complex_edit = require('complex_edit')
  H.report.experimental = vim.tbl_get(fake.capabilities or {}, 'experimental') or vim.NIL
  vim.api.nvim_win_set_cursor(0, { 2, 4 })

  local function version()
    return vim.lsp.util.buf_versions[buf]
  end

  local function send(params)
    fake.deliver('complexEdit/preview', params, H.wait)
  end

  local function preview(hunks, at_version)
    send({ textDocument = { uri = uri, version = at_version or version() }, hunks = hunks })
  end

  local function finished()
    send({ textDocument = { uri = uri, version = version() }, hunks = {}, done = true })
  end

  --- What the buffer shows and holds now.
  local function look()
    local marks = vim.api.nvim_buf_get_extmarks(buf, live_preview.ns, 0, -1, { details = true })
    local seen = { marks = #marks, virt_lines = {}, old_rows = {} }
    for _, mark in ipairs(marks) do
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
    seen.cursor = vim.api.nvim_win_get_cursor(0)
    seen.modified = vim.bo[buf].modified
    return seen
  end

  local function start_edit(prompt)
    fake.last_id = nil
    vim.cmd('ComplexEdit ' .. prompt)
    H.wait('the command to reach the fake server', function()
      return fake.last_id ~= nil
    end)
    return fake.last_id
  end

  local report = H.report
  report.before = look()

  -- 1. A running edit: a preview, a newer one that replaces it, stale ones skipped, done clears.
  local id = start_edit('rename foo to bar')
  report.running = complex_edit.is_running(buf)
  preview(H.cfg.hunks)
  report.first = look()
  preview(H.cfg.more_hunks)
  report.replaced = look()
  preview(H.cfg.hunks, version() - 1)
  report.older_version = look()
  preview(H.cfg.hunks, version() + 5)
  report.newer_version = look()
  finished()
  report.after_done = look()

  -- 2. The job ends with a success answer (no `done` before it): the preview goes.
  preview(H.cfg.hunks)
  report.before_success = look()
  fake.pending[id] = nil
  fake.reply(id, nil, { success = true, applied = true, message = 'renamed', turns = 1 })
  H.wait('the edit to end', function()
    return not complex_edit.is_running(buf)
  end)
  report.after_success = look()

  -- 3. A failure answer.
  id = start_edit('break it')
  preview(H.cfg.hunks)
  report.before_failure = look()
  fake.pending[id] = nil
  fake.reply(id, nil, { success = false, reason = 'task_failed', error = 'no', applied = false })
  H.wait('the failed edit to end', function()
    return not complex_edit.is_running(buf)
  end)
  report.after_failure = look()

  -- 4. A cancel (the fake acknowledges with RequestCancelled).
  start_edit('something long')
  preview(H.cfg.hunks)
  report.before_cancel = look()
  vim.cmd('ComplexEditCancel')
  H.wait('the cancelled edit to end', function()
    return not complex_edit.is_running(buf)
  end)
  report.cancels = fake.cancels
  report.after_cancel = look()

  -- 5. The user typed: a preview on the new version shows; one on the old is skipped.
  id = start_edit('while typing')
  local typed_at = version()
  vim.api.nvim_buf_set_lines(buf, -1, -1, true, { '# typed' })
  preview(H.cfg.hunks, typed_at)
  report.typed_old_version = look()
  preview(H.cfg.hunks)
  report.typed_new_version = look()
  fake.pending[id] = nil
  fake.reply(id, nil, { success = false, reason = 'task_failed', error = 'no', applied = false })
  H.wait('the edit while typing to end', function()
    return not complex_edit.is_running(buf)
  end)

  -- 6. No edit runs on the buffer: a preview is not drawn (none outlives its edit).
  preview(H.cfg.hunks)
  report.no_edit = look()

  -- 7. The buffer is unloaded while a preview shows: nothing of it is left.
  start_edit('until unloaded')
  preview(H.cfg.hunks)
  report.before_unload = look()
  vim.bo[buf].modified = false
  report.autocmds_while_shown =
    #vim.api.nvim_get_autocmds({ group = 'complex_edit_preview', buffer = buf })
  vim.cmd.enew() -- the last buffer cannot be unloaded
  vim.cmd('bunload! ' .. buf)
  report.autocmds_after_unload =
    #vim.api.nvim_get_autocmds({ group = 'complex_edit_preview', buffer = buf })
  vim.cmd('buffer ' .. buf)
  report.after_reload = look()
  report.running_after_reload = complex_edit.is_running(buf)
end)
