--- Taking an edit back: `:ComplexEditRevert [id]` (the server's `complexEdit.revert`, default
--- the latest edit; with ! the files that do not conflict are reverted and the others left alone)
--- and `:ComplexEditHistory` (the server's `complexEdit.history` in a list: <CR> shows the
--- revert's diff, r reverts the edit under the cursor, q closes).
---
--- The server lands a revert as one workspace edit (every buffer, unsaved ones included, and
--- files not loaded), so it is one step for the user, like an edit.

local client = require('complex_edit.client')
local config = require('complex_edit.config')
local messages = require('complex_edit.messages')

local M = {}
local levels = vim.log.levels

--- Sends `command` with `args` to the `complex_edit` client of `bufnr` (default: the current
--- buffer; else any `complex_edit` client); `on_result(result)` gets the server's answer.
local function execute(command, args, on_result, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local found, why = client.get(bufnr)
  if not found then
    found = vim.lsp.get_clients({ name = config.name })[1]
  end
  if not found then
    messages.notify(why or 'no server attached.', levels.ERROR)
    return
  end
  -- A revert reaches every buffer: the server must have each one's latest change first (Neovim
  -- flushes only the request's own buffer's pending changes).
  pcall(function()
    require('vim.lsp._changetracking').flush(found)
  end)
  -- (an empty table would go as a JSON array)
  local params = { command = command, arguments = { next(args) and args or vim.empty_dict() } }
  found:request('workspace/executeCommand', params, function(err, result)
    if err then
      messages.notify(command .. ' failed: ' .. (err.message or tostring(err)), levels.ERROR)
      return
    end
    on_result(result)
  end, bufnr)
end

--- What a revert's answer says, as one notification.
local function report(result)
  if result.success then
    messages.notify(result.message or 'reverted.', levels.INFO, result)
  else
    local level = result.reason == 'conflict' and levels.WARN or levels.ERROR
    messages.notify(
      ('%s [%s]'):format(result.error or 'the revert failed', result.reason or '?'),
      level,
      result
    )
  end
end

--- `:ComplexEditRevert [id]`: take back the edit `id` (nil: the latest); `force`: revert what
--- does not conflict. `on_done(result)` runs after the notification.
function M.revert(id, force, on_done, bufnr)
  local args = { force = force or nil, id = id }
  execute('complexEdit.revert', args, function(result)
    report(result)
    if on_done then
      on_done(result)
    end
  end, bufnr)
end

--- The lines of the history list, and the id of each line.
local function lines_of(entries)
  local lines, ids = {}, {}
  for _, entry in ipairs(entries) do
    table.insert(
      lines,
      ('%s  %s  +%d -%d  %s  %s'):format(
        entry.id,
        entry.time,
        entry.added,
        entry.removed,
        table.concat(entry.files, ', '),
        (entry.instruction:gsub('%s+', ' '))
      )
    )
    table.insert(ids, entry.id)
  end
  return lines, ids
end

--- A scratch buffer in a new window below, holding `lines`.
local function scratch(name, lines, filetype)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype
  vim.keymap.set('n', 'q', '<Cmd>close<CR>', { buffer = buf, desc = 'close' })
  return buf
end

--- `:ComplexEditHistory`: the landed edits, newest first. `on_shown(buf)` runs once listed.
function M.history(on_shown)
  local origin = vim.api.nvim_get_current_buf() -- the list's own buffer has no client
  execute('complexEdit.history', { limit = 100 }, function(entries)
    if type(entries) ~= 'table' or #entries == 0 then
      messages.notify('no edit is recorded for this workspace.', levels.INFO)
      return
    end
    local lines, ids = lines_of(entries)
    local buf = scratch('complex-edit://history', lines, 'complexedithistory')
    local function current_id()
      return ids[vim.api.nvim_win_get_cursor(0)[1]]
    end
    vim.keymap.set('n', '<CR>', function()
      local id = current_id()
      execute('complexEdit.revert', { id = id, dryRun = true }, function(result)
        if not result.success then
          report(result)
          return
        end
        scratch('complex-edit://revert/' .. id, vim.split(result.diff or '', '\n'), 'diff')
      end, origin)
    end, { buffer = buf, desc = "Complex Edit: show the revert's diff" })
    vim.keymap.set('n', 'r', function()
      M.revert(current_id(), false, function()
        if vim.api.nvim_buf_is_valid(buf) then
          vim.api.nvim_buf_delete(buf, { force = true })
        end
      end, origin)
    end, { buffer = buf, desc = 'Complex Edit: revert this edit' })
    if on_shown then
      on_shown(buf)
    end
  end)
end

return M
