--- The instructions run before: this session's and the command-line history's, for completion.

local M = {}

--- Instructions run in this session, most recent first (completion of the commands' argument).
---@type string[]
local session = {}
local HISTORY_MAX = 100

function M.remember(prompt)
  for i, seen in ipairs(session) do
    if seen == prompt then
      table.remove(session, i)
      break
    end
  end
  table.insert(session, 1, prompt)
  session[HISTORY_MAX + 1] = nil
end

--- Instructions from this session and from the command-line history (`:ComplexEdit ...`,
--- `:ComplexEditReview ...`, kept across sessions in the shada file), most recent first.
function M.list()
  local seen, out = {}, {}
  local function add(prompt)
    prompt = vim.trim(prompt or '')
    if prompt ~= '' and not seen[prompt] then
      seen[prompt] = true
      table.insert(out, prompt)
    end
  end
  for _, prompt in ipairs(session) do
    add(prompt)
  end
  for i = vim.fn.histnr('cmd'), 1, -1 do
    local line = vim.fn.histget('cmd', i)
    local args = line:match("^[%s:]*[%w%s,.'<>$%%+-]-ComplexEdit%s+(.*)$")
      or line:match("^[%s:]*[%w%s,.'<>$%%+-]-ComplexEditReview%s+(.*)$")
    add(args)
  end
  return out
end

--- Completion of `:ComplexEdit` / `:ComplexEditReview`: earlier instructions that start with
--- what is typed so far. Neovim replaces only the word under the cursor (`arglead`), so each
--- candidate is the rest of an instruction from where that word starts.
function M.complete(arglead, cmdline, cursorpos)
  local before = cmdline:sub(1, cursorpos or #cmdline)
  local typed = before:match('ComplexEdit%a*!?%s+(.*)$') or ''
  local head = typed:sub(1, #typed - #arglead)
  local out = {}
  for _, prompt in ipairs(M.list()) do
    if vim.startswith(prompt, typed) then
      table.insert(out, prompt:sub(#head + 1))
    end
  end
  return out
end

return M
