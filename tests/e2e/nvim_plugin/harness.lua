-- Shared by the scripts in this folder: each runs in `nvim --clean --headless -l SCRIPT CONFIG`,
-- loads the plugin from the repository (nvim-client/ on the runtimepath, as a plugin manager
-- would put it), records what the user would see (vim.notify, progress echoes), and writes a JSON
-- report that tests/e2e/test_nvim_plugin.py reads. Every wait is bounded and the script always
-- exits.
--
-- CONFIG (JSON): plugin_dir, python, result, timeout_ms, and per-script fields.

local H = {}

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local data = f:read('*a')
  f:close()
  return data
end

local function write_file(path, data)
  local f = assert(io.open(path, 'wb'))
  f:write(data)
  f:close()
end

H.cfg = vim.json.decode(read_file(assert(arg[1], 'usage: nvim -l SCRIPT CONFIG.json')))
H.timeout = H.cfg.timeout_ms or 15000
H.report = { ok = false, steps = {}, notifications = {}, echoes = {} }

local started = vim.uv.hrtime()

--- Records a named step with the milliseconds since the script started.
function H.step(name)
  table.insert(H.report.steps, ('%s @%d ms'):format(name, (vim.uv.hrtime() - started) / 1e6))
end

function H.wait(what, cond, timeout)
  timeout = timeout or H.timeout
  if not vim.wait(timeout, cond, 10) then
    error(('timed out after %d ms waiting for %s'):format(timeout, what), 0)
  end
end

--- Puts the plugin on the runtimepath and sources its plugin/ file (startup has already passed
--- when a -l script runs, so Neovim will not source it by itself).
function H.load_plugin()
  vim.opt.rtp:prepend(H.cfg.plugin_dir)
  vim.cmd.runtime('plugin/complex_edit.lua')
  -- What the user would see: every vim.notify, and the command-line progress echoes.
  vim.notify = function(msg, level, _)
    local entry = { msg = tostring(msg), level = level or vim.log.levels.INFO }
    table.insert(H.report.notifications, entry)
  end
  local real_echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    local text = {}
    for _, chunk in ipairs(chunks) do
      table.insert(text, chunk[1])
    end
    table.insert(H.report.echoes, table.concat(text))
    return real_echo(chunks, history, opts)
  end
end

--- The user's config: the server from this repository's venv instead of `complex-edit` on PATH;
--- with `complex_edit_cmd` in the config, the plugin's own `vim.g.complex_edit_cmd` instead.
function H.enable_server()
  if H.cfg.complex_edit_cmd then
    vim.g.complex_edit_cmd = H.cfg.complex_edit_cmd
  else
    vim.lsp.config('complex_edit', { cmd = { H.cfg.python, '-m', 'complex_edit', 'lsp' } })
  end
  vim.lsp.enable('complex_edit')
end

function H.attached_client(buf)
  return vim.lsp.get_clients({ bufnr = buf, name = 'complex_edit' })[1]
end

--- Opens `path` and waits until the complex_edit client is attached and initialized.
function H.open(path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  H.report.filetype = vim.bo[buf].filetype
  H.wait('the complex_edit client to attach', function()
    return H.attached_client(buf) ~= nil
  end)
  local client = H.attached_client(buf)
  H.report.root_dir = client.root_dir or vim.NIL
  H.report.offset_encoding = client.offset_encoding
  H.step('attached')
  return buf, client
end

--- Stops the server and opens `path` again in a new buffer: a new server, started with the
--- environment Neovim has now.
function H.restart(path)
  H.stop_clients()
  H.wait('the server to go', function()
    return #vim.lsp.get_clients({ name = 'complex_edit', _uninitialized = true }) == 0
  end)
  vim.cmd('silent! %bwipeout!')
  return H.open(path)
end

--- The rows the changed-lines flash covers in `buf` (an extmark ending at column 0 stops
--- before its row).
function H.flashed(buf)
  local rows = {}
  local ns = require('complex_edit.flash').ns
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    local last = mark[4].end_row or mark[2]
    if last > mark[2] and mark[4].end_col == 0 then
      last = last - 1
    end
    for row = mark[2], last do
      table.insert(rows, row)
    end
  end
  return rows
end

function H.buffer_text(buf)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n')
  if vim.bo[buf].eol and text ~= '' then
    text = text .. '\n'
  end
  return text
end

--- Waits until `count` notifications have been recorded in total; returns the last one.
function H.wait_notifications(count, what)
  H.wait(what or ('notification #' .. count), function()
    return #H.report.notifications >= count
  end)
  return H.report.notifications[count]
end

function H.file_exists(path)
  return vim.uv.fs_stat(path) ~= nil
end

function H.stop_clients()
  local clients = vim.lsp.get_clients({ name = 'complex_edit', _uninitialized = true })
  for _, client in ipairs(clients) do
    client:stop()
  end
  local stopped = vim.wait(3000, function()
    for _, client in ipairs(clients) do
      if not client:is_stopped() then
        return false
      end
    end
    return true
  end, 20)
  if not stopped then
    for _, client in ipairs(clients) do
      client:stop(true)
    end
    stopped = vim.wait(1000, function()
      for _, client in ipairs(clients) do
        if not client:is_stopped() then
          return false
        end
      end
      return true
    end, 20)
  end
  H.report.server_stopped = stopped
end

--- Runs `main`, records its error, stops the servers, writes the report and quits.
function H.run(main)
  local ok, err = xpcall(main, debug.traceback)
  H.report.ok = ok
  if not ok then
    H.report.error = tostring(err)
  end
  H.step('main done')
  H.stop_clients()
  H.step('stopped')
  write_file(H.cfg.result, vim.json.encode(H.report))
  vim.cmd('qa!')
end

return H
