--- `:checkhealth complex_edit`: what only Neovim knows (its version, the plugin's commands, the
--- server command it starts and its version, the clients attached), then the server's own
--- report, `complexEdit.doctor` (provider, model and its rules, key present or not, settings
--- with their layers), shown as the server words it: no provider or model table lives here.

local M = {}

local NAME = 'complex_edit'
local VERSION_TIMEOUT_MS = 3000
local DOCTOR_TIMEOUT_MS = 5000
local DOCTOR = 'complexEdit.doctor'

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
    return
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
end

--- Each check of the server's report, shown at its level (the server words them).
local function show(check)
  local advice = type(check.advice) == 'table' and #check.advice > 0 and check.advice or nil
  if check.level == 'ok' then
    vim.health.ok(check.text)
  elseif check.level == 'warn' then
    vim.health.warn(check.text, advice)
  elseif check.level == 'error' then
    vim.health.error(check.text, advice)
  else
    vim.health.info(check.text)
  end
end

--- The server's own report (`complexEdit.doctor`): provider, model and its rules, the key
--- (named, never shown), base URL, settings and where each came from, with this client's
--- settings. Without a running client, says how to get the same report from a terminal.
local function check_model_access()
  vim.health.start('complex-edit: model access')
  local client = vim.iter(vim.lsp.get_clients({ name = NAME })):find(function(c)
    return not c:is_stopped()
  end)
  if not client then
    vim.health.info(
      'Not attached: no server to report what it would use (provider, model, key, settings). '
        .. 'Open a file so that it starts, or run `complex-edit doctor` in a terminal.'
    )
    return
  end
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  if not vim.list_contains(type(provider) == 'table' and provider.commands or {}, DOCTOR) then
    vim.health.warn(('The server does not offer %s: it is older than this plugin.'):format(DOCTOR), {
      'Update the server, or run `complex-edit doctor` in a terminal.',
    })
    return
  end
  local bufnr = next(client.attached_buffers or {})
  local arguments = bufnr and { { textDocument = { uri = vim.uri_from_bufnr(bufnr) } } } or {}
  local params = { command = DOCTOR, arguments = arguments }
  local response, err = client:request_sync('workspace/executeCommand', params, DOCTOR_TIMEOUT_MS)
  local report = response and response.result
  if type(report) ~= 'table' or type(report.checks) ~= 'table' then
    local why = err or (response and response.err and response.err.message) or 'no answer'
    vim.health.warn(('%s failed: %s'):format(DOCTOR, tostring(why)), {
      'Run `complex-edit doctor` in a terminal.',
    })
    return
  end
  for _, check in ipairs(report.checks) do
    show(check)
  end
end

function M.check()
  check_neovim()
  check_server()
  check_model_access()
end

return M
