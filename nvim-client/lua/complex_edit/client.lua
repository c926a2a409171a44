--- Finds the `complex_edit` client of a buffer, or says in words a user can act on why there is
--- none.

local config = require('complex_edit.config')

local M = {}

--- How often a wait for a starting server looks again.
local POLL_MS = 50

local function is_enabled()
  if vim.lsp.is_enabled then
    return vim.lsp.is_enabled(config.name)
  end
  return vim.lsp._enabled_configs ~= nil and vim.lsp._enabled_configs[config.name] ~= nil
end

--- Whether a `complex_edit` client attached to `bufnr` is still starting (not initialized).
function M.is_starting(bufnr)
  local clients = vim.lsp.get_clients({ bufnr = bufnr, name = config.name, _uninitialized = true })
  for _, client in ipairs(clients) do
    if not client.initialized then
      return true
    end
  end
  return false
end
local is_starting = M.is_starting

--- Why no initialized `complex_edit` client is attached to `bufnr`, in words a user can act on.
local function why_no_client(bufnr)
  if is_starting(bufnr) then
    return 'the server is still starting; try again in a moment.'
  end
  if not is_enabled() then
    return "add vim.lsp.enable('complex_edit') to your config."
  end
  if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr) == '' then
    return 'not a file buffer; the server attaches to files only.'
  end
  local ok, lsp_config = pcall(function()
    return vim.lsp.config[config.name]
  end)
  lsp_config = ok and lsp_config or {}
  if type(lsp_config.cmd) == 'table' and vim.fn.executable(lsp_config.cmd[1]) == 0 then
    return ('%q is not executable; see :checkhealth complex_edit.'):format(
      tostring(lsp_config.cmd[1])
    )
  end
  local filetype = vim.bo[bufnr].filetype
  if filetype == '' then
    return 'no filetype, so no server; try :setfiletype text'
  end
  if lsp_config.filetypes and not vim.list_contains(lsp_config.filetypes, filetype) then
    return ('filetype %q is not in the config\'s filetypes.'):format(filetype)
  end
  return 'no server attached; see :checkhealth complex_edit.'
end

--- The initialized `complex_edit` client attached to `bufnr` (a buffer number, not 0), or nil
--- and the reason.
---@return vim.lsp.Client?, string?
function M.get(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = config.name })[1]
  if client then
    return client
  end
  return nil, why_no_client(bufnr)
end

--- How long `:ComplexEdit` waits for a starting server (`vim.g.complex_edit_start_timeout_ms`).
local function start_timeout_ms()
  local ms = tonumber(vim.g.complex_edit_start_timeout_ms)
  return ms and ms > 0 and ms or config.start_timeout_ms
end

--- Calls `on_ready(client)` once an initialized `complex_edit` client is attached to `bufnr`:
--- at once when there is one, else, while one is starting, when it has initialized. Neovim
--- sends the buffer's didOpen before it counts the client as attached and initialized, so the
--- document is open on the server by then, and a request sent later arrives after it.
--- `on_wait()` runs once if it has to wait. `on_fail(why)` runs instead when there is no client
--- and none starting, when the starting one goes away, or after the start timeout; never both.
---@param on_ready fun(client: vim.lsp.Client)
---@param on_fail fun(why: string)
---@param on_wait fun()
function M.when_ready(bufnr, on_ready, on_fail, on_wait)
  local client, why = M.get(bufnr)
  if client then
    on_ready(client)
    return
  end
  if not is_starting(bufnr) then
    on_fail(why)
    return
  end
  on_wait()
  local timeout = start_timeout_ms()
  local deadline = vim.uv.now() + timeout
  local function poll()
    if not vim.api.nvim_buf_is_valid(bufnr) then
      return -- the buffer went away: nothing to run, nobody to tell
    end
    local ready, reason = M.get(bufnr)
    if ready then
      on_ready(ready)
    elseif not is_starting(bufnr) then
      on_fail('the server stopped while starting: ' .. reason)
    elseif vim.uv.now() >= deadline then
      on_fail(
        ('the server did not start within %s s; see :checkhealth complex_edit.'):format(
          timeout % 1000 == 0 and tostring(timeout / 1000) or ('%.1f'):format(timeout / 1000)
        )
      )
    else
      vim.defer_fn(poll, POLL_MS)
    end
  end
  vim.defer_fn(poll, POLL_MS)
end

function M.advertises_command(client)
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  local commands = type(provider) == 'table' and provider.commands or {}
  return vim.list_contains(commands, config.command_name)
end

return M
