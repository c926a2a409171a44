-- `:checkhealth complex_edit` for each provider: the server's own report (`complexEdit.doctor`)
-- follows the effective provider (client settings, else COMPLEX_EDIT_PROVIDER) and says when no
-- key is needed. A case with `env` starts a new server with that environment (the server's, not
-- Neovim's, is what counts). Records the "model access" section of each run, by case name.
--
-- CONFIG: file, cases = { { name, settings = {...}, env = { NAME = value | false } } }

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

local CLEARED = {
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENAI_USE_VERTEXAI',
  'GOOGLE_CLOUD_PROJECT',
  'GOOGLE_CLOUD_LOCATION',
  'GOOGLE_GEMINI_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'COMPLEX_EDIT_PROVIDER',
  'COMPLEX_EDIT_BASE_URL',
}

local function model_access_section()
  vim.cmd('checkhealth complex_edit')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local out, inside = {}, false
  for _, line in ipairs(lines) do
    if line:find('complex-edit: model access', 1, true) then
      inside = true
    elseif inside and line:find('^complex%-edit: ') then
      inside = false
    end
    if inside then
      table.insert(out, line)
    end
  end
  vim.cmd('bwipeout')
  return out
end

local function set_environment(env)
  for _, name in ipairs(CLEARED) do
    vim.env[name] = nil
  end
  for name, value in pairs(env or {}) do
    vim.env[name] = value
  end
end

H.run(function()
  -- Before enabling: `vim.lsp.enable` may start a server at once, for the empty buffer.
  set_environment(nil)
  H.load_plugin()
  H.enable_server()
  local _, client = H.open(H.cfg.file)
  local started_with = vim.json.encode(vim.empty_dict())
  H.report.cases = {}
  for _, case in ipairs(H.cfg.cases) do
    local env = vim.json.encode(case.env or vim.empty_dict())
    if env ~= started_with then
      set_environment(case.env)
      _, client = H.restart(H.cfg.file)
      started_with = env
    end
    -- What `client.settings` holds is what the server reads through workspace/configuration.
    client.settings = { complexEdit = case.settings or vim.empty_dict() }
    H.report.cases[case.name] = model_access_section()
  end
end)
