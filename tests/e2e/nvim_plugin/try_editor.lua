-- `complex-edit try --editor nvim`'s own command line, run headless with this file added as a
-- last `-c luafile`: it waits for the client to attach, reads the command line the try command
-- typed, presses Enter as the user would, waits for the edit to land, undoes it once, and
-- writes what it saw as JSON to $CE_TRY_REPORT. No harness.lua: the command line under test
-- loads the plugin and points the server at the replay itself.

local report = { notifications = {} }
local buf = vim.api.nvim_get_current_buf()
local deadline = vim.uv.now() + tonumber(vim.env.CE_TRY_TIMEOUT_MS or '30000')

local function text()
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

local function finish(problem)
  report.error = problem
  local file = assert(io.open(vim.env.CE_TRY_REPORT, 'w'))
  file:write(vim.json.encode(report))
  file:close()
  vim.cmd('qa!')
end

--- Calls `next` once `ready()` is true, polling every 20 ms until the deadline.
local function when(what, ready, next)
  local function poll()
    local ok, value = pcall(ready)
    if ok and value then
      return next()
    end
    if vim.uv.now() > deadline then
      return finish('timed out waiting for ' .. what)
    end
    vim.defer_fn(poll, 20)
  end
  poll()
end

local notify = vim.notify
vim.notify = function(message, level, opts)
  table.insert(report.notifications, message)
  return notify(message, level, opts)
end

report.before = text()
report.filetype = vim.bo[buf].filetype

when('the complex_edit client', function()
  local client = vim.lsp.get_clients({ bufnr = buf, name = 'complex_edit' })[1]
  return client ~= nil and client.initialized and vim.fn.getcmdtype() == ':'
end, function()
  report.cmdline = vim.fn.getcmdline()
  vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'n', false)
  when('the edit', function()
    return text() ~= report.before and #report.notifications > 0
  end, function()
    report.after = text()
    report.modified = vim.bo[buf].modified
    -- An edit across files: the other files' buffers, loaded by the edit (not written).
    report.others = vim.empty_dict()
    for _, other in ipairs(vim.api.nvim_list_bufs()) do
      if other ~= buf and vim.api.nvim_buf_is_loaded(other) then
        local name = vim.fs.basename(vim.api.nvim_buf_get_name(other))
        if name ~= '' then
          report.others[name] = table.concat(vim.api.nvim_buf_get_lines(other, 0, -1, false), '\n')
        end
      end
    end
    vim.cmd('undo')
    report.undone = text()
    finish(nil)
  end)
end)
