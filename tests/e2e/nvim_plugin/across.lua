-- `:ComplexEdit!` (an edit across files) against the in-process fake server: the bang sends
-- `otherFiles: "edit"` (a plain `:ComplexEdit` sends none, so the server's setting applies); the
-- server's one workspace edit changes the buffer and a file that is not loaded, which Neovim
-- loads and leaves unsaved; the message names that file and hints `:wall`.
--
-- CONFIG: file (the buffer's file), other (a file of the same folder, not loaded)

local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local H = dofile(vim.fs.joinpath(here, 'harness.lua'))
local fake = dofile(vim.fs.joinpath(here, 'fake_server.lua'))

H.run(function()
  H.load_plugin()
  vim.lsp.config('complex_edit', { cmd = fake.cmd })
  vim.lsp.enable('complex_edit')
  local buf = H.open(H.cfg.file)
  local complex_edit = require('complex_edit')
  local uri, other_uri = vim.uri_from_bufnr(buf), vim.uri_from_fname(H.cfg.other)
  H.report.other_loaded_before = vim.fn.bufnr(H.cfg.other) ~= -1

  local function run(command)
    fake.last_id = nil
    vim.cmd(command)
    H.wait('the command to reach the fake server', function()
      return fake.last_id ~= nil
    end)
    local id = fake.last_id
    return id, fake.pending[id].arguments[1]
  end

  -- A plain :ComplexEdit: no otherFiles.
  local id, args = run('ComplexEdit rename foo to bar here')
  H.report.plain_other_files = args.otherFiles or vim.NIL
  fake.pending[id] = nil
  fake.reply(id, nil, { success = true, applied = false, message = 'nothing to do' })
  H.wait('the plain edit to end', function()
    return not complex_edit.is_running(buf)
  end)

  -- :ComplexEdit!: the server lands one edit on both documents, then answers.
  id, args = run('ComplexEdit! rename foo to bar everywhere')
  H.report.bang_other_files = args.otherFiles or vim.NIL
  local answered = nil
  fake.request('workspace/applyEdit', {
    label = 'Complex Edit',
    edit = {
      documentChanges = {
        {
          textDocument = { uri = uri, version = vim.lsp.util.buf_versions[buf] },
          edits = {
            {
              range = { start = { line = 0, character = 4 }, ['end'] = { line = 0, character = 7 } },
              newText = 'bar',
            },
          },
        },
        {
          textDocument = { uri = other_uri },
          edits = {
            {
              range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 3 } },
              newText = 'bar',
            },
          },
        },
      },
    },
  }, function(err, result)
    answered = { err = err or vim.NIL, result = result or vim.NIL }
  end)
  H.wait('Neovim to answer the workspace edit', function()
    return answered ~= nil
  end)
  H.report.apply_answer = answered
  fake.pending[id] = nil
  fake.reply(id, nil, {
    success = true,
    applied = true,
    message = 'renamed foo to bar',
    documents = {
      { uri = uri, applied = true },
      { uri = other_uri, applied = true },
    },
  })
  H.wait('the edit across files to end', function()
    return not complex_edit.is_running(buf)
  end)
  local other = vim.fn.bufnr(H.cfg.other)
  H.report.other_loaded = other ~= -1
  H.report.other_modified = other ~= -1 and vim.bo[other].modified
  H.report.other_text = other ~= -1 and H.buffer_text(other) or vim.NIL
  H.report.last = complex_edit.last().message
end)
