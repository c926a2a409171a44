-- Drives one `performComplexEdit` through a real headless Neovim.
--
--   nvim --clean --headless -l perform_edit.lua CONFIG.json
--
-- CONFIG (JSON) fields:
--   python       interpreter that runs `-m complex_edit lsp`
--   file         the file to open and edit
--   root         root_dir of the client
--   prompt       the instruction
--   range        optional LSP Range sent as `range`
--   result       path of the JSON report this script writes
--   timeout_ms   bound of every single wait (default 20000)
--   typing       optional user edit made while the sub-agent works:
--                  { start = 0-based line, ["end"] = exclusive line, lines = {...},
--                    flag = path written once Neovim has sent the didChange }
--                or { keys = "Go# note<Esc>", flag = ... }: keys typed as the user would
--   apply_typing optional keystrokes around the moment the edit lands, typed from inside
--                Neovim's own `workspace/applyEdit` handler:
--                  { before = {keystroke, ...}  typed right before Neovim applies the edit,
--                    after = {keystroke, ...}   typed right after it (before Neovim's
--                                               debounced didChange leaves),
--                    later = {keystroke, ...}   each typed `delay_ms` after the apply }
--                keystroke = { line = 0-based (negative: from the end, -1 is the last line),
--                              col = byte column (omitted or -1: end of the line),
--                              text = inserted text (a "\n" splits the line),
--                              delay_ms = (later only) }
--
--   arguments    optional extra performComplexEdit arguments (e.g. { otherFiles = "edit" })
--   attach_loaded  attach the client to every buffer that gets a filetype later (as
--                vim.lsp.enable does), e.g. a file Neovim loads to apply an edit; without it
--                the client stays attached to the one buffer (vim.lsp.start)
--
-- The report holds: ok, error, response {err, result}, offset_encoding, fileformat,
-- version_before / version_after, buffer_text (as Neovim would write it), typed, steps, the
-- progress messages seen, and did_changes: every didChange Neovim sent ({version, changes},
-- the contentChanges as sent), opened: the URIs of every didOpen, others: every other loaded
-- buffer ({name, text, modified}) at the end. Neovim applies `workspace/applyEdit` itself (its own handler);
-- the script only writes the buffer afterwards. Every wait is bounded; the script always exits.

local cfg_path = assert(arg[1], 'usage: perform_edit.lua CONFIG.json')

-- Opening a *.py file sources ftplugin/python.vim, which probes the python3 provider (runs
-- the interpreter looking for pynvim: ~2 s). The provider is irrelevant here.
vim.g.loaded_python3_provider = 0

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local data = f:read('*a')
  f:close()
  return data
end

local function write_file(path, data)
  local f = assert(io.open(path, 'wb'))
  f:write(data)
  f:close()
end

local cfg = vim.json.decode(read_file(cfg_path))
local timeout = cfg.timeout_ms or 20000
local report = { ok = false, steps = {}, progress = {}, notified = {} }

local started = vim.uv.hrtime()
local function step(name)
  -- name@milliseconds since the script started
  table.insert(report.steps, string.format('%s@%d', name, (vim.uv.hrtime() - started) / 1e6))
end

local function full_text(buf)
  local eol = vim.bo[buf].fileformat == 'dos' and '\r\n' or '\n'
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), eol)
  if vim.bo[buf].eol then
    text = text .. eol
  end
  return text
end

local function wait(what, cond)
  if not vim.wait(timeout, cond, 10) then
    error('timed out after ' .. timeout .. ' ms waiting for ' .. what, 0)
  end
end

local client_id = nil

-- One keystroke (see `apply_typing` above).
local function keystroke(buf, k)
  local count = vim.api.nvim_buf_line_count(buf)
  local row = k.line < 0 and count + k.line or k.line
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, true)[1]
  local col = (k.col == nil or k.col < 0) and #line or k.col
  local lines = vim.split(k.text, '\n', { plain = true })
  vim.api.nvim_buf_set_text(buf, row, col, row, col, lines)
end

local function main()
  vim.cmd.edit(vim.fn.fnameescape(cfg.file))
  local buf = vim.api.nvim_get_current_buf()
  report.fileformat = vim.bo[buf].fileformat
  step('opened')

  local typed = false
  local didchange_after_typing = 0
  vim.api.nvim_create_autocmd('LspProgress', {
    callback = function(ev)
      local value = ev.data and ev.data.params and ev.data.params.value or {}
      table.insert(report.progress, { kind = value.kind, message = value.message })
    end,
  })
  report.did_changes = {}
  report.opened = {}
  vim.api.nvim_create_autocmd('LspNotify', {
    callback = function(ev)
      local method = ev.data and ev.data.method
      table.insert(report.notified, method)
      if method == 'textDocument/didOpen' then
        table.insert(report.opened, ev.data.params.textDocument.uri)
      end
      if method == 'textDocument/didChange' then
        local params = ev.data.params or {}
        table.insert(report.did_changes, {
          version = params.textDocument and params.textDocument.version,
          changes = vim.deepcopy(params.contentChanges),
        })
      end
      if typed and method == 'textDocument/didChange' then
        didchange_after_typing = didchange_after_typing + 1
      end
    end,
  })

  -- Record every workspace/applyEdit and Neovim's own answer to it; the built-in handler
  -- does the work (it mutates the params, hence the copy).
  report.apply_edits = {}
  local around = cfg.apply_typing or {}
  local pending_keystrokes = 0
  local function record_apply_edit(err, params, ctx)
    for _, k in ipairs(around.before or {}) do
      keystroke(buf, k)
    end
    local entry = {
      params = vim.deepcopy(params),
      version_before = vim.lsp.util.buf_versions[buf],
    }
    local answer = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx)
    entry.answer = answer
    table.insert(report.apply_edits, entry)
    for _, k in ipairs(around.after or {}) do
      keystroke(buf, k)
    end
    for _, k in ipairs(around.later or {}) do
      pending_keystrokes = pending_keystrokes + 1
      vim.defer_fn(function()
        keystroke(buf, k)
        pending_keystrokes = pending_keystrokes - 1
      end, k.delay_ms or 0)
    end
    return answer
  end

  client_id = vim.lsp.start({
    name = 'complex_edit',
    cmd = { cfg.python, '-m', 'complex_edit', 'lsp' },
    root_dir = cfg.root,
    handlers = { ['workspace/applyEdit'] = record_apply_edit },
  }, { bufnr = buf })
  if not client_id then
    error('vim.lsp.start returned nil', 0)
  end
  wait('the client to initialize and attach', function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c ~= nil and c.initialized and vim.lsp.buf_is_attached(buf, client_id)
  end)
  local client = assert(vim.lsp.get_client_by_id(client_id))
  report.offset_encoding = client.offset_encoding
  local provider = client.server_capabilities.executeCommandProvider or {}
  report.advertised_commands = provider.commands or {}
  if not vim.list_contains(report.advertised_commands, 'performComplexEdit') then
    -- exec_cmd would only warn and never call the handler.
    error('the server does not advertise performComplexEdit', 0)
  end
  step('attached')

  report.version_before = vim.lsp.util.buf_versions[buf]
  local response = nil
  local args = { textDocument = { uri = vim.uri_from_bufnr(buf) }, prompt = cfg.prompt }
  for key, value in pairs(cfg.arguments or {}) do
    args[key] = value
  end
  if cfg.attach_loaded then
    vim.api.nvim_create_autocmd('FileType', {
      callback = function(ev)
        vim.lsp.buf_attach_client(ev.buf, client_id)
      end,
    })
  end
  if cfg.range then
    args.range = cfg.range
  end
  -- 0.11: Client:exec_cmd(command, context, handler) -> Client:request(
  --   'workspace/executeCommand', {command, arguments}, handler, context.bufnr)
  client:exec_cmd(
    { title = 'Complex Edit', command = 'performComplexEdit', arguments = { args } },
    { bufnr = buf },
    function(err, result)
      response = { err = err or vim.NIL, result = result or vim.NIL }
    end
  )
  step('sent')

  if cfg.typing then
    -- The first progress report is sent from inside the session loop: by then the server has
    -- taken its snapshot, so what we type now happens while the sub-agent works.
    wait('a progress report from the running session', function()
      if response ~= nil then
        return true
      end
      for _, p in ipairs(report.progress) do
        if p.kind == 'report' then
          return true
        end
      end
      return false
    end)
    if response == nil then
      local t = cfg.typing
      if t.keys then
        vim.api.nvim_feedkeys(vim.keycode(t.keys), 'xt', false)
      else
        vim.api.nvim_buf_set_lines(buf, t.start, t['end'], true, t.lines)
      end
      typed = true
      report.typed = true
      step('typed')
      -- Neovim debounces didChange (flags.debounce_text_changes, 150 ms by default).
      wait('the didChange of the typed text', function()
        return didchange_after_typing > 0
      end)
      step('typing sent')
    else
      report.typed = false
    end
    write_file(cfg.typing.flag, 'typed')
  end

  wait('the performComplexEdit response', function()
    return response ~= nil
  end)
  report.response = response
  step('answered')
  wait('the keystrokes typed after the edit', function()
    return pending_keystrokes == 0
  end)
  report.version_after = vim.lsp.util.buf_versions[buf]

  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent write')
  end)
  report.buffer_text = full_text(buf)
  report.others = {}
  for _, other in ipairs(vim.api.nvim_list_bufs()) do
    if other ~= buf and vim.api.nvim_buf_is_loaded(other) then
      table.insert(report.others, {
        name = vim.api.nvim_buf_get_name(other),
        text = full_text(other),
        modified = vim.bo[other].modified,
      })
    end
  end
  step('written')
  report.ok = true
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  report.error = tostring(err)
end

-- Stop the server politely, then by force; never wait unbounded.
if client_id then
  local client = vim.lsp.get_client_by_id(client_id)
  if client then
    client:stop()
    local stopped = vim.wait(3000, function()
      return client:is_stopped()
    end, 20)
    if not stopped then
      client:stop(true)
      vim.wait(1000, function()
        return client:is_stopped()
      end, 20)
    end
    report.server_stopped = client:is_stopped()
  end
end

step('stopped')
write_file(cfg.result, vim.json.encode(report))
vim.cmd('qa!')
