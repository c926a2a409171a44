-- No server: the lsp/complex_edit.lua config (defaults and overrides), what `:ComplexEdit`
-- says when no complex_edit client is attached, and the health check of that set-up.
--
-- CONFIG: file, plugin_dir

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

local config_file = vim.fs.joinpath(H.cfg.plugin_dir, 'lsp', 'complex_edit.lua')

local function load_config(cmd_override)
  vim.g.complex_edit_cmd = cmd_override
  local ok, config = pcall(dofile, config_file)
  vim.g.complex_edit_cmd = nil
  assert(ok, config)
  return {
    cmd = config.cmd,
    filetypes = config.filetypes or vim.NIL,
    root_markers = config.root_markers,
    settings = config.settings,
    workspace_required = config.workspace_required,
  }
end

H.run(function()
  H.load_plugin()
  H.report.commands = {
    ComplexEdit = vim.fn.exists(':ComplexEdit'),
    ComplexEditCancel = vim.fn.exists(':ComplexEditCancel'),
  }
  H.report.default = load_config(nil)
  H.report.string_override = load_config('/opt/ce/bin/complex-edit')
  H.report.list_override = load_config({ 'ce', 'lsp', '--log-level', 'DEBUG' })

  -- The config Neovim resolves from the runtimepath, merged with the user's own.
  vim.lsp.config('complex_edit', { cmd = { 'my-complex-edit', 'lsp' } })
  local resolved = vim.lsp.config.complex_edit
  H.report.resolved = { cmd = resolved.cmd, root_markers = resolved.root_markers }

  -- Not enabled: :ComplexEdit explains what to do, and never asks for an instruction first.
  vim.cmd.edit(vim.fn.fnameescape(H.cfg.file))
  H.report.asked = false
  vim.ui.input = function()
    H.report.asked = true
  end
  vim.cmd('ComplexEdit rename foo to bar')
  vim.cmd('ComplexEdit')
  vim.cmd('ComplexEditCancel')
  H.report.no_client = vim.deepcopy(H.report.notifications)
  H.report.running = require('complex_edit').is_running(0)

  -- The health check of this broken set-up.
  vim.cmd('checkhealth complex_edit')
  H.report.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
end)
