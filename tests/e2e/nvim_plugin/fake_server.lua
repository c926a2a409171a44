-- A tiny in-process fake of the complex-edit server, for the scripts of this folder that test the
-- plugin's side alone: the plugin's own lsp/complex_edit.lua with only `cmd` replaced by
-- `fake.cmd` (Neovim runs it as the server). It records the client capabilities, holds each
-- `workspace/executeCommand` until the script answers it (`fake.reply`), acknowledges
-- `$/cancelRequest`, and sends notifications (`fake.send`) and requests (`fake.request`, e.g.
-- `workspace/applyEdit`) exactly as a server over stdio would (scheduled, in order).
--
--   local fake = dofile(vim.fs.joinpath(here, 'fake_server.lua'))
--   vim.lsp.config('complex_edit', { cmd = fake.cmd })

local REQUEST_CANCELLED = -32800

--- The fake server's state: capabilities received, commands waiting for their answer.
local fake = { pending = {}, last_id = nil, capabilities = nil, cancels = 0 }

local function fake_server(dispatchers)
  fake.dispatchers = dispatchers
  local closing, next_id = false, 0
  local replies = {}
  local function reply(id, err, result)
    local r = replies[id]
    replies[id] = nil
    vim.schedule(function()
      if r.notify_reply then
        r.notify_reply(id)
      end
      -- Like vim.lsp.rpc: a RequestCancelled answer reaches no callback.
      if not (err and err.code == REQUEST_CANCELLED) then
        r.callback(err, result)
      end
    end)
  end
  fake.reply = reply
  fake.send = function(method, params)
    vim.schedule(function()
      dispatchers.notification(method, params)
    end)
  end
  --- Sends a notification and waits (`wait`: the harness's H.wait) until Neovim has handled it:
  --- the scheduled callbacks run in order, so a flag scheduled after it is set once its handler ran.
  fake.deliver = function(method, params, wait)
    local handled = false
    fake.send(method, params)
    vim.schedule(function()
      handled = true
    end)
    wait('the ' .. method .. ' notification to be handled', function()
      return handled
    end)
  end
  --- A request to the client; `callback(err, result)` gets its answer.
  fake.request = function(method, params, callback)
    vim.schedule(function()
      local result, err = dispatchers.server_request(method, params)
      callback(err, result)
    end)
  end
  local server = {}
  function server.request(method, params, callback, notify_reply)
    next_id = next_id + 1
    local id = next_id
    replies[id] = { callback = callback, notify_reply = notify_reply }
    if method == 'initialize' then
      fake.capabilities = params.capabilities
      reply(id, nil, {
        capabilities = {
          positionEncoding = 'utf-8',
          textDocumentSync = 2,
          executeCommandProvider = { commands = { 'performComplexEdit' } },
        },
        serverInfo = { name = 'fake complex-edit' },
      })
    elseif method == 'workspace/executeCommand' then
      fake.pending[id] = params
      fake.last_id = id
    elseif method == 'shutdown' then
      reply(id, nil, vim.NIL)
    else
      reply(id, { code = -32601, message = 'not in the fake: ' .. method }, nil)
    end
    return true, id
  end
  function server.notify(method, params)
    if method == 'exit' then
      closing = true
      vim.schedule(function()
        dispatchers.on_exit(0, 0)
      end)
    elseif method == '$/cancelRequest' and fake.pending[params.id] then
      fake.cancels = fake.cancels + 1
      fake.pending[params.id] = nil
      reply(params.id, { code = REQUEST_CANCELLED, message = 'cancelled' }, nil)
    end
    return true
  end
  function server.is_closing()
    return closing
  end
  function server.terminate()
    closing = true
  end
  return server
end

fake.cmd = fake_server

return fake
