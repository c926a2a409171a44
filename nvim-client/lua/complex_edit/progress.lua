--- Follows the running edits through Neovim's LSP events: `$/progress` to the command line,
--- the completion of a cancelled request, the server detaching from a buffer, and the server's
--- live preview of the change so far (`complexEdit/preview`).

local jobs = require('complex_edit.jobs')
local live_diff = require('complex_edit.live_diff')
local live_preview = require('complex_edit.live_preview')
local view = require('complex_edit.hunks')
local messages = require('complex_edit.messages')

local M = {}

local augroup = nil

--- Creates the autocommands once (the first edit calls it).
function M.follow()
  if augroup then
    return
  end
  augroup = vim.api.nvim_create_augroup('complex_edit', { clear = true })

  -- `$/progress` (cancellable work-done progress created by the server) → the command line.
  vim.api.nvim_create_autocmd('LspProgress', {
    group = augroup,
    callback = function(ev)
      local data = ev.data or {}
      local params = data.params or {}
      local value = params.value
      if type(value) ~= 'table' or not data.client_id or not jobs.any() then
        return
      end
      local job = jobs.for_token(data.client_id, params.token, value.kind == 'begin')
      if not job then
        return -- not ours, or the late end of an edit that already settled
      end
      if value.kind == 'end' then
        job.progress = nil
        messages.echo_progress('')
      elseif value.message or value.title then
        job.progress = value.message or value.title
        messages.echo_progress(job.progress)
      end
      messages.redraw_status()
    end,
  })

  -- Neovim drops the handler of a request the server answered with RequestCancelled; the only
  -- trace of that answer is the request turning 'complete'. The handler (scheduled before this
  -- callback runs) has its turn first, so a real late answer still wins.
  vim.api.nvim_create_autocmd('LspRequest', {
    group = augroup,
    callback = function(ev)
      local data = ev.data or {}
      if not (data.request and data.request.type == 'complete') then
        return
      end
      local job = jobs.cancelled(data.client_id, data.request_id)
      if job then
        vim.schedule(function()
          jobs.settle(job, 'cancelled')
        end)
      end
    end,
  })

  -- A server that exits (or a buffer that goes away) never answers: do not stay "running".
  vim.api.nvim_create_autocmd('LspDetach', {
    group = augroup,
    callback = function(ev)
      local job = jobs.on(ev.buf)
      if job and ev.data and job.client_id == ev.data.client_id then
        jobs.settle(job, 'lost')
      end
    end,
  })
end

--- The `complexEdit/preview` handler (lsp/complex_edit.lua registers it): drawn only while an
--- edit runs — in its own buffer and in every other loaded buffer an edit across files changes
--- —, so no preview outlives its edit; every preview, of a loaded buffer or of a file not
--- loaded, also feeds `:ComplexEditLiveDiff`.
---@param params complex_edit.PreviewParams
---@param ctx lsp.HandlerContext
function M.preview(_, params, ctx)
  local document = type(params) == 'table' and params.textDocument or nil
  if type(document) ~= 'table' or type(document.uri) ~= 'string' then
    return
  end
  local bufnr = live_preview.buffer_of(document.uri)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = client and client.offset_encoding or 'utf-8'
  if jobs.any() then
    live_diff.receive(params, bufnr, encoding, view.version)
  end
  if not bufnr then
    return
  end
  local job = jobs.on(bufnr)
  if not jobs.any() or (job and job.client_id ~= ctx.client_id) then
    return live_preview.clear(bufnr)
  end
  live_preview.show(bufnr, params, encoding)
end

return M
