--- `:checkhealth complex_edit`: Neovim version, the server command, the effective provider's
--- key (present, missing, or not needed; the one in use when both Gemini keys are set), and the
--- model and thinking level in effect.
--- Never prints the value of a key or of any other environment variable.

local M = {}

local NAME = 'complex_edit'
local VERSION_TIMEOUT_MS = 3000

--- `:ComplexEditReview` shows old lines with DiffDelete and new ones with DiffAdd: a colorscheme
--- that leaves them empty makes the hunks invisible.
local function check_review()
  if vim.fn.exists(':ComplexEditReview') ~= 2 then
    vim.health.warn(':ComplexEditReview is not defined', { 'Update nvim-client/ as a whole.' })
    return
  end
  local empty = {}
  for _, group in ipairs({ 'DiffDelete', 'DiffAdd' }) do
    if vim.tbl_isempty(vim.api.nvim_get_hl(0, { name = group, link = false })) then
      table.insert(empty, group)
    end
  end
  if #empty == 0 then
    vim.health.ok(':ComplexEditReview is defined; its hunks use DiffDelete and DiffAdd')
  else
    vim.health.warn(
      ':ComplexEditReview: highlight group(s) ' .. table.concat(empty, ', ') .. ' are empty',
      { 'Your colorscheme clears them, so review hunks will not stand out; define them.' }
    )
  end
end

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
    check_review()
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
        'Install the server so that `complex-edit` is on PATH (pipx install . in the repo).',
        "A venv's complex-edit is on PATH only when the venv was activated before Neovim started.",
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

local function env_value(env, name)
  local value = env and env[name]
  if value == nil then
    value = vim.env[name]
  end
  if type(value) == 'string' and value ~= '' then
    return value
  end
  return nil
end

local function is_set(env, name)
  return env_value(env, name) ~= nil
end

local function truthy(value)
  return value ~= nil and vim.list_contains({ '1', 'true', 'yes' }, value:lower())
end

--- Each provider's key variables, base-URL variable and whether a base URL makes the key
--- optional (the server's rules: server/providers/*.py, docs/providers.md).
local PROVIDERS = {
  gemini = {
    keys = { 'GEMINI_API_KEY', 'GOOGLE_API_KEY' },
    base_url = 'GOOGLE_GEMINI_BASE_URL',
    key_optional_with_base_url = true,
  },
  openai = {
    keys = { 'OPENAI_API_KEY' },
    base_url = 'OPENAI_BASE_URL',
    key_optional_with_base_url = true,
  },
  anthropic = {
    keys = { 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN' },
    base_url = 'ANTHROPIC_BASE_URL',
    key_optional_with_base_url = true,
  },
}

--- The `complexEdit` section of an editor settings object (or the object itself, as the server
--- reads initializationOptions), or nil.
local function section_of(value)
  if type(value) ~= 'table' then
    return nil
  end
  return type(value.complexEdit) == 'table' and value.complexEdit or value
end

--- A server setting as the server resolves it (the later layer wins): `COMPLEX_EDIT_*` in the
--- environment, initializationOptions, then the settings sent through workspace/configuration
--- (those of a running client first). Returns the value and where it came from.
---@return string?, string?
local function setting(config, name, variable)
  local client = vim.lsp.get_clients({ name = NAME })[1]
  local settings = (client and client.settings) or (config and config.settings)
  local layers = {
    { settings and settings.complexEdit, 'settings.complexEdit.' .. name },
    { section_of(config and config.init_options), 'init_options ' .. name },
  }
  for _, layer in ipairs(layers) do
    local value = type(layer[1]) == 'table' and layer[1][name] or nil
    if type(value) == 'number' then
      return tostring(value), layer[2]
    end
    if type(value) == 'string' and vim.trim(value) ~= '' then
      return vim.trim(value), layer[2]
    end
  end
  local value = env_value(config and config.cmd_env, variable)
  if value then
    return vim.trim(value), variable
  end
  return nil, nil
end

local DEFAULT_MODEL = 'gemini-3.8-flash'

--- The model-family rules of server/providers/models.py that the server applies (keep in step):
--- the thinking levels a family accepts (nil: not known) and whether it still takes a temperature.
local FAMILIES = {
  {
    pattern = 'gemini%-3%.[78]%-flash',
    name = 'Gemini 3.7/3.8 Flash',
    levels = { 'low', 'medium', 'high' },
    default_level = 'medium',
    sampling = false,
  },
  { pattern = 'gemini%-3%.6%-flash', name = 'Gemini 3.6 Flash', sampling = false },
  { pattern = 'gemini%-3%.5%-flash%-lite', name = 'Gemini 3.5 Flash-Lite', sampling = true },
  { pattern = 'gemini%-3%.1%-pro', name = 'Gemini 3.1 Pro', default_level = 'high', sampling = true },
}

local function family_of(model)
  local name = (model:lower():gsub('^models/', ''))
  for _, family in ipairs(FAMILIES) do
    local rest = name:match('^' .. family.pattern .. '(.*)$')
    if
      rest
      and (
        rest == ''
        or rest:match('^%-%d%d%d$')
        or rest == '-latest'
        or rest:match('^%-preview')
        or rest:match('^%-exp')
      )
    then
      return family
    end
  end
  return nil
end

--- The model, thinking level and temperature the server will use, and what it will refuse or
--- leave out (server/providers/models.py).
local function check_model(config)
  local model, model_from = setting(config, 'model', 'COMPLEX_EDIT_MODEL')
  model = model or DEFAULT_MODEL
  vim.health.info(
    ('Model: %s (%s)'):format(model, model_from and ('from ' .. model_from) or 'default')
  )
  local family = family_of(model)
  local level, level_from = setting(config, 'thinkingLevel', 'COMPLEX_EDIT_THINKING_LEVEL')
  if not level then
    local own = family and family.default_level and (', ' .. family.default_level) or ''
    vim.health.info("Thinking level: not set (the model's own default" .. own .. ')')
  elseif family and family.levels and not vim.list_contains(family.levels, level:lower()) then
    vim.health.error(
      ('Thinking level %s (from %s): %s refuses it'):format(level, level_from, model),
      {
        ('Use one of %s, or unset thinkingLevel; every edit fails with reason \'config\'.'):format(
          table.concat(family.levels, ', ')
        ),
      }
    )
  else
    vim.health.info(('Thinking level: %s (from %s)'):format(level:lower(), level_from))
  end
  local temperature, temperature_from = setting(config, 'temperature', 'COMPLEX_EDIT_TEMPERATURE')
  if temperature and family and not family.sampling then
    vim.health.warn(
      ('temperature %s (from %s) is not sent: it is deprecated for %s (%s)'):format(
        temperature,
        temperature_from,
        family.name,
        model
      ),
      { 'Remove the setting, or use thinkingLevel to trade speed for care.' }
    )
  end
end

local function check_gemini_key(env, keys_set, base_url_from)
  if #keys_set > 1 then
    vim.health.info(
      'Both are set: the key in use is GOOGLE_API_KEY (the Gemini SDK\'s rule); GEMINI_API_KEY is ignored.'
    )
  end
  if #keys_set > 0 then
    return
  end
  if truthy(env_value(env, 'GOOGLE_GENAI_USE_VERTEXAI')) then
    vim.health.ok('Vertex AI selected (GOOGLE_GENAI_USE_VERTEXAI); no API key needed')
    for _, name in ipairs({ 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION' }) do
      if not is_set(env, name) then
        vim.health.warn(name .. ' is not set: Vertex AI needs a project and a location')
      end
    end
    return
  end
  if base_url_from then
    vim.health.info(
      ('No GEMINI_API_KEY: not needed with a base URL (%s), a local proxy usually needs none. '):format(
        base_url_from
      ) .. 'If yours asks for one, set GEMINI_API_KEY.'
    )
    return
  end
  vim.health.warn('No API key: neither GEMINI_API_KEY nor GOOGLE_API_KEY is set', {
    "Set one in the environment Neovim starts the server with, or in the config's cmd_env.",
    'Or use Vertex AI: GOOGLE_GENAI_USE_VERTEXAI=true, GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION.',
    "Without a key every edit fails with reason 'config'.",
  })
end

local function check_model_access(config)
  vim.health.start('complex-edit: model access')
  local env = config and config.cmd_env or nil
  local provider, provider_from = setting(config, 'provider', 'COMPLEX_EDIT_PROVIDER')
  provider = provider and provider:lower() or 'gemini'
  local spec = PROVIDERS[provider]
  if not spec then
    vim.health.error(
      ('Unknown provider %q (from %s)'):format(provider, provider_from),
      { "Use 'gemini', 'openai' or 'anthropic'; every edit fails with reason 'config'." }
    )
    return
  end
  vim.health.info(
    ('Provider: %s (%s)'):format(provider, provider_from and ('from ' .. provider_from) or 'default')
  )

  -- Names only: the values of keys and URLs are never shown.
  local base_url_from = select(2, setting(config, 'baseUrl', 'COMPLEX_EDIT_BASE_URL'))
  if not base_url_from and is_set(env, spec.base_url) then
    base_url_from = spec.base_url
  end
  if base_url_from then
    vim.health.info(base_url_from .. ' is set: requests go to a custom endpoint')
  end

  local keys_set = vim.tbl_filter(function(name)
    return is_set(env, name)
  end, spec.keys)
  if #keys_set > 0 then
    vim.health.ok('API key set: ' .. table.concat(keys_set, ', '))
  end
  if provider == 'gemini' then
    check_gemini_key(env, keys_set, base_url_from)
    check_model(config)
  elseif #keys_set == 0 and base_url_from and spec.key_optional_with_base_url then
    local key = spec.keys[1]
    vim.health.info(
      ('No %s: not needed with a base URL (%s), local servers usually need none. '):format(
        key,
        base_url_from
      ) .. ('If yours asks for one, set %s.'):format(key)
    )
  elseif #keys_set == 0 then
    vim.health.warn(('No API key: %s is not set'):format(table.concat(spec.keys, ' or ')), {
      "Set it in the environment Neovim starts the server with, or in the config's cmd_env.",
      ('Or point baseUrl (or %s) at a local server that needs no key.'):format(spec.base_url),
      "Without a key every edit fails with reason 'config'.",
    })
  end

  local client = vim.lsp.get_clients({ name = NAME })[1]
  local all = (client and client.settings) or (config and config.settings)
  local settings = type(all) == 'table' and all.complexEdit or nil
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
