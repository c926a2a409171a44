--- `:checkhealth complex_edit`: Neovim version, the server command, the API key's presence.
--- Never prints the value of a key or of any other environment variable.

local M = {}

local NAME = 'complex_edit'
local VERSION_TIMEOUT_MS = 3000
local KEY_VARIABLES = { 'GEMINI_API_KEY', 'GOOGLE_API_KEY' }

local function check_neovim()
  vim.health.start('complex-edit: Neovim')
  local v = vim.version()
  local version = ('%d.%d.%d'):format(v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.11') == 1 then
    vim.health.ok('Neovim ' .. version)
  else
    vim.health.warn(
      'Neovim ' .. version .. ': complex-edit needs 0.11 or newer',
      { 'It relies on vim.lsp.config(), vim.lsp.enable() and lsp/*.lua configs (Neovim 0.11).' }
    )
  end
  if vim.fn.exists(':ComplexEdit') == 2 then
    vim.health.ok(':ComplexEdit and :ComplexEditCancel are defined')
  else
    vim.health.warn(
      ':ComplexEdit is not defined',
      { 'plugin/complex_edit.lua was not loaded: put nvim-client/ on the runtimepath at startup.' }
    )
  end
end

--- The server command with `lsp ...` replaced by `--version`, or nil.
local function version_command(cmd)
  for i, part in ipairs(cmd) do
    if part == 'lsp' then
      local out = vim.list_slice(cmd, 1, i - 1)
      table.insert(out, '--version')
      return out
    end
  end
  return nil
end

local function first_line(text)
  return vim.trim((text or ''):match('[^\r\n]*') or '')
end

local function check_version(cmd, env)
  local version_cmd = version_command(cmd)
  if not version_cmd then
    vim.health.info('Version not checked: the command has no `lsp` argument to replace.')
    return
  end
  local ok, proc = pcall(vim.system, version_cmd, { text = true, env = env })
  if not ok then
    vim.health.warn('`' .. table.concat(version_cmd, ' ') .. '` could not run: ' .. tostring(proc))
    return
  end
  local done = proc:wait(VERSION_TIMEOUT_MS)
  local out = first_line(done.stdout)
  if done.code == 0 and out ~= '' then
    vim.health.ok('Version: ' .. out)
  elseif done.signal and done.signal ~= 0 then
    vim.health.warn(
      ('`%s` did not answer within %d ms'):format(
        table.concat(version_cmd, ' '),
        VERSION_TIMEOUT_MS
      )
    )
  else
    vim.health.warn(
      ('`%s` exited with code %d: %s'):format(
        table.concat(version_cmd, ' '),
        done.code,
        first_line(done.stderr) ~= '' and first_line(done.stderr) or out
      )
    )
  end
end

---@return vim.lsp.Config?
local function check_server()
  vim.health.start('complex-edit: language server')
  local ok, config = pcall(function()
    return vim.lsp.config[NAME]
  end)
  if not ok or type(config) ~= 'table' or config.cmd == nil then
    vim.health.error('No `complex_edit` LSP config', {
      'lsp/complex_edit.lua is not on the runtimepath: add nvim-client/ to it (see its README).',
      "Or define one: vim.lsp.config('complex_edit', { cmd = { 'complex-edit', 'lsp' } }).",
    })
    return nil
  end

  local enabled = vim.lsp.is_enabled and vim.lsp.is_enabled(NAME)
    or (vim.lsp._enabled_configs or {})[NAME] ~= nil
  if enabled then
    vim.health.ok("Enabled: vim.lsp.enable('complex_edit')")
  else
    vim.health.warn('Not enabled', { "Add vim.lsp.enable('complex_edit') to your config." })
  end

  local env = config.cmd_env
  if type(config.cmd) == 'function' then
    vim.health.info('The command is a Lua function (e.g. a TCP connection); not checked.')
  elseif type(config.cmd) == 'table' then
    local shown = '`' .. table.concat(config.cmd, ' ') .. '`'
    local exe = config.cmd[1]
    if vim.fn.executable(exe) == 1 then
      vim.health.ok(('Command %s (%s)'):format(shown, vim.fn.exepath(exe)))
      check_version(config.cmd, env)
    else
      vim.health.error(('Command %s: %q is not executable'):format(shown, exe), {
        'Install the server so that `complex-edit` is on PATH (pip install -e . in the repo).',
        "Or set vim.g.complex_edit_cmd = '/path/to/complex-edit' before the first buffer opens.",
        "Or vim.lsp.config('complex_edit', { cmd = { '/path/to/complex-edit', 'lsp' } }).",
      })
    end
  end

  local clients = vim.lsp.get_clients({ name = NAME })
  if #clients == 0 then
    vim.health.info('No complex_edit client is running (it starts when a file buffer opens).')
  end
  for _, client in ipairs(clients) do
    local buffers = vim.tbl_count(client.attached_buffers or {})
    vim.health.ok(
      ('Client %d running%s, %d buffer(s) attached, position encoding %s'):format(
        client.id,
        client.root_dir and (' in ' .. client.root_dir) or ' (no workspace folder)',
        buffers,
        tostring(client.offset_encoding)
      )
    )
  end
  return config
end

local function is_set(env, name)
  local value = env and env[name]
  if value == nil then
    value = vim.env[name]
  end
  return type(value) == 'string' and value ~= ''
end

local function check_model_access(config)
  vim.health.start('complex-edit: model access')
  local env = config and config.cmd_env or nil
  local set = {}
  for _, name in ipairs(KEY_VARIABLES) do
    if is_set(env, name) then
      table.insert(set, name)
    end
  end
  local vertex = is_set(env, 'GOOGLE_GENAI_USE_VERTEXAI')
  if #set > 0 then
    -- Names only: the value is never shown.
    vim.health.ok('API key set: ' .. table.concat(set, ', '))
    if #set > 1 then
      vim.health.info('Both are set; the Gemini SDK uses GOOGLE_API_KEY.')
    end
  elseif vertex then
    vim.health.ok('Vertex AI selected (GOOGLE_GENAI_USE_VERTEXAI); no API key needed')
  else
    vim.health.warn('No API key: neither GEMINI_API_KEY nor GOOGLE_API_KEY is set', {
      "Set one in the environment Neovim starts the server with, or in the config's cmd_env.",
      "Without a key every edit fails with reason 'config'.",
    })
  end
  for _, name in ipairs({ 'GOOGLE_GEMINI_BASE_URL', 'COMPLEX_EDIT_BASE_URL' }) do
    if is_set(env, name) then
      vim.health.info(name .. ' is set: requests go to a custom endpoint')
    end
  end
  local settings = config and config.settings and config.settings.complexEdit
  if type(settings) == 'table' and next(settings) then
    local keys = vim.tbl_keys(settings)
    table.sort(keys)
    vim.health.info('settings.complexEdit sets: ' .. table.concat(keys, ', '))
  end
end

function M.check()
  check_neovim()
  local config = check_server()
  check_model_access(config)
end

return M
