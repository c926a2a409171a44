--- What the user sees: notifications fitted to the command line, the latest one in full
--- (`:ComplexEditLast`), progress echoes, statusline redraws and the `User` events.

local config = require('complex_edit.config')

local M = {}

local levels = vim.log.levels

--- The latest message the plugin reported, in full; notifications are shortened to fit.
---@type { message: string, level: integer, result: table? }?
local last = nil

--- Fits `text` on the command line (one line, `v:echospace` cells, more with 'cmdheight' > 1),
--- so it never asks to press Enter. A shortened text ends with `…` and `suffix`.
local function fit(text, suffix)
  text = vim.trim((text:gsub('%s+', ' ')))
  suffix = suffix or ''
  local rows = math.max(vim.o.cmdheight - 1, 0)
  local width = math.max((vim.v.echospace or 80) + rows * vim.o.columns - 1, 20)
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local room = width - 1 - vim.fn.strdisplaywidth(suffix)
  local chars = vim.fn.strchars(text)
  while chars > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(text, 0, chars)) > room do
    chars = chars - 1
  end
  return vim.trim(vim.fn.strcharpart(text, 0, chars)) .. '…' .. suffix
end

--- Reports `message` shortened to fit the command line; `:ComplexEditLast` shows all of it.
function M.notify(message, level, result)
  level = level or levels.INFO
  local text = config.title .. ': ' .. message
  last = { message = text, level = level, result = result }
  vim.notify(fit(text, ' :ComplexEditLast'), level, { title = config.title })
end

function M.notify_busy()
  M.notify('an edit is already running here (:ComplexEditCancel).', levels.WARN)
end

--- The latest message the plugin reported, in full (`:ComplexEditLast`): `{ message, level,
--- result }` (`result`: the server's answer when the message reported one), or nil.
function M.last()
  return last and vim.deepcopy(last) or nil
end

local HIGHLIGHTS = { [levels.ERROR] = 'ErrorMsg', [levels.WARN] = 'WarningMsg' }

--- `:ComplexEditLast`: the latest message in full, also kept in `:messages`.
function M.show_last()
  if not last then
    vim.notify(config.title .. ': no message yet.', levels.INFO, { title = config.title })
    return
  end
  vim.api.nvim_echo({ { last.message, HIGHLIGHTS[last.level] } }, true, {})
end

--- Shows a progress line on the command line without adding it to the message history.
function M.echo_progress(text)
  if vim.g.complex_edit_progress == false then
    return
  end
  vim.api.nvim_echo({ { text == '' and '' or fit(config.title .. ': ' .. text) } }, false, {})
end

--- Redraws every statusline (and winbar), so `status()` shows what changed without waiting for
--- the next cursor move.
function M.redraw_status()
  pcall(vim.cmd, 'redrawstatus!')
end

--- Fires `User {event}`: hooks for statuslines and progress plugins. A failing hook is reported,
--- never allowed to break the plugin's own bookkeeping.
function M.fire(event, data)
  local ok, err = pcall(vim.api.nvim_exec_autocmds, 'User', {
    pattern = event,
    modeline = false,
    data = data,
  })
  if not ok then
    M.notify(('a User %s autocommand failed: %s'):format(event, tostring(err)), levels.WARN)
  end
end

return M
