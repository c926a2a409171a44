-- `:checkhealth complex_edit` with the server attached, started with the API key in its
-- environment, then (a new server each time) without it (the base URL still set), and without
-- either; then with no server attached. Records the health buffer's lines.
--
-- CONFIG: file

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))

local function checkhealth()
  vim.cmd('checkhealth complex_edit')
  local buf = vim.api.nvim_get_current_buf()
  local report = {
    filetype = vim.bo[buf].filetype,
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
  }
  vim.cmd('bwipeout')
  return report
end

H.run(function()
  H.load_plugin()
  H.enable_server()
  H.open(H.cfg.file)
  H.report.with_key = checkhealth()
  vim.env.GEMINI_API_KEY = nil
  vim.env.GOOGLE_API_KEY = nil
  H.restart(H.cfg.file)
  H.report.without_key = checkhealth()
  vim.env.GOOGLE_GEMINI_BASE_URL = nil
  H.restart(H.cfg.file)
  H.report.without_key_or_url = checkhealth()
  H.stop_clients()
  H.wait('the server to go', function()
    return #vim.lsp.get_clients({ name = 'complex_edit', _uninitialized = true }) == 0
  end)
  H.report.detached = checkhealth()
end)
