-- `:ComplexEditLiveDiff` against the in-process fake server: while an edit across files runs,
-- the server previews the command's buffer, another loaded buffer (text that is not ASCII) and
-- a file not loaded (`version` null, CRLF and tabs on disk). The live diff buffer grows one
-- section per file as their previews arrive, is redrawn in place, and says how the edit ended;
-- the other loaded buffer gets its inline preview too, cleared when the edit ends.
--
-- CONFIG: file (the command's buffer), other (a loaded file), disk (a file not loaded),
--         own_hunks, other_hunks, disk_hunks, own_hunks_later (utf-8 positions)

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))
local fake = dofile(vim.fs.joinpath(here, 'fake_server.lua'))

H.run(function()
  H.load_plugin()
  vim.lsp.config('complex_edit', { cmd = fake.cmd })
  vim.lsp.enable('complex_edit')
  local other = H.open(H.cfg.other)
  local buf = H.open(H.cfg.file)
  local complex_edit = require('complex_edit')
  local live_diff = require('complex_edit.live_diff')
  local live_preview = require('complex_edit.live_preview')
  local report = H.report

  local function preview(bufnr_or_path, hunks)
    local document
    if type(bufnr_or_path) == 'number' then
      document = {
        uri = vim.uri_from_bufnr(bufnr_or_path),
        version = vim.lsp.util.buf_versions[bufnr_or_path],
      }
    else
      document = { uri = vim.uri_from_fname(bufnr_or_path), version = vim.NIL }
    end
    fake.deliver('complexEdit/preview', { textDocument = document, hunks = hunks }, H.wait)
  end

  local function shown()
    local bufnr = vim.fn.bufnr(live_diff.name)
    return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  end

  local function marks(bufnr)
    return #vim.api.nvim_buf_get_extmarks(bufnr, live_preview.ns, 0, -1, {})
  end

  -- Opened before the edit: says no edit has run.
  vim.cmd('ComplexEditLiveDiff')
  report.diff_buffer = vim.api.nvim_get_current_buf()
  report.diff_filetype = vim.bo.filetype
  report.diff_buftype = vim.bo.buftype
  report.before_edit = shown()
  vim.cmd('wincmd p')

  fake.last_id = nil
  vim.api.nvim_set_current_buf(buf)
  vim.cmd('ComplexEdit! rename foo to bar everywhere')
  H.wait('the command to reach the fake server', function()
    return fake.last_id ~= nil
  end)
  local id = fake.last_id
  report.at_start = shown()

  preview(buf, H.cfg.own_hunks)
  report.own = shown()
  preview(other, H.cfg.other_hunks)
  report.with_other = shown()
  report.other_marks = marks(other)
  preview(H.cfg.disk, H.cfg.disk_hunks)
  report.with_disk = shown()
  preview(buf, H.cfg.own_hunks_later)
  report.redrawn = shown()
  report.same_buffer = vim.fn.bufnr(live_diff.name) == report.diff_buffer
  report.disk_untouched = vim.fn.bufnr(H.cfg.disk) == -1
  report.other_text = H.buffer_text(other)

  fake.pending[id] = nil
  fake.reply(id, nil, { success = true, applied = true, message = 'renamed', turns = 1 })
  H.wait('the edit to end', function()
    return not complex_edit.is_running(buf)
  end)
  report.after_done = shown()
  report.other_marks_after = marks(other)

  -- A failed edit starts the view over and says it failed.
  fake.last_id = nil
  vim.cmd('ComplexEdit! break it')
  H.wait('the second command to reach the fake server', function()
    return fake.last_id ~= nil
  end)
  id = fake.last_id
  report.second_start = shown()
  fake.pending[id] = nil
  fake.reply(id, nil, { success = false, reason = 'task_failed', error = 'no', applied = false })
  H.wait('the failed edit to end', function()
    return not complex_edit.is_running(buf)
  end)
  report.after_failure = shown()
end)
