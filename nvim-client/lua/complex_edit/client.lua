--- Finds the `complex_edit` client of a buffer, or says in words a user can act on why there is
--- none.

local config = require('complex_edit.config')

local M = {}

local function is_enabled()
  if vim.lsp.is_enabled then
    return vim.lsp.is_enabled(config.name)
  end
  return vim.lsp._enabled_configs ~= nil and vim.lsp._enabled_configs[config.name] ~= nil
end

--- Why no initialized `complex_edit` client is attached to `bufnr`, in words a user can act on.
local function why_no_client(bufnr)
  local starting = vim.lsp.get_clients({ bufnr = bufnr, name = config.name, _uninitialized = true })
  if #starting > 0 then
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

function M.advertises_command(client)
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  local commands = type(provider) == 'table' and provider.commands or {}
  return vim.list_contains(commands, config.command_name)
end

return M
