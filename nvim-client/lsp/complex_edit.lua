---@brief
---
--- `complex-edit lsp`: an editing sub-agent. One instruction, one document: the server runs a
--- short, capped Gemini tool loop over the buffer and applies the result as one minimal,
--- version-checked edit. Run it with `:ComplexEdit {instruction}` (this plugin) or
--- `workspace/executeCommand` `performComplexEdit`.
---
--- Install the server (Python 3.11+) so that `complex-edit` is on your PATH, and give it a key:
--- ```sh
--- pipx install /path/to/complex-edit     # or: pip install -e . in a venv (see below)
--- complex-edit doctor                    # the key it reads (never shown), the model, settings
--- ```
--- The key goes in the server's environment (docs/providers.md names each provider's variables).
--- A venv's `complex-edit` is on PATH only while the venv is activated: otherwise set
--- `vim.g.complex_edit_cmd = '/path/to/complex-edit/.venv/bin/complex-edit'`.
---
--- The command is `{ 'complex-edit', 'lsp' }`. Point it elsewhere before the first buffer opens
--- with `vim.g.complex_edit_cmd` (a list is the whole command; a string is the path of the
--- `complex-edit` executable and `lsp` is appended), or with your own
--- `vim.lsp.config('complex_edit', { cmd = {...} })`. The server runs in Neovim's working
--- directory, usually your project: to start it through a Python instead of the script, use
--- `{ '/path/to/python', '-P', '-m', 'complex_edit', 'lsp' }`. Without `-P`, `python -m` imports
--- from the working directory first, so a project holding `server.py` or `complex_edit/` would
--- replace the server.
---
--- Settings go under `settings.complexEdit` (`model`, `maxTurns`, `temperature`,
--- `requestTimeoutSeconds`, `maxDocumentBytes`, `baseUrl`, ...); the server re-reads them through
--- `workspace/configuration` on every command:
--- ```lua
--- vim.lsp.config('complex_edit', {
---   settings = { complexEdit = { thinkingLevel = 'high', maxTurns = 12 } },
--- })
--- ```
---
--- `filetypes` is left unset: the server edits any text, so it attaches to every buffer that has
--- a filetype. Files outside a git repository get a client without a workspace folder (one
--- client shared by all of them), which is all the server needs: it only edits open documents.
---
--- While an edit runs, the server sends the change so far (`complexEdit/preview`), which the
--- plugin draws in the buffer without writing it: the client opts in with the capability
--- `experimental.complexEditPreview`. `vim.g.complex_edit_live_preview = false`, set before the
--- first buffer opens, opts out.

local cmd = vim.g.complex_edit_cmd
if type(cmd) == 'string' then
  cmd = { cmd, 'lsp' }
end

---@type vim.lsp.Config
return {
  cmd = cmd or { 'complex-edit', 'lsp' },
  root_markers = { '.git' },
  -- No root marker found → `root_dir` stays nil and Neovim starts (or reuses) a client without
  -- workspace folders: single files work. Never set `workspace_required` here.
  workspace_required = false,
  settings = { complexEdit = vim.empty_dict() },
  -- Merged into Neovim's own capabilities (and your `capabilities`, which win).
  capabilities = {
    experimental = { complexEditPreview = vim.g.complex_edit_live_preview ~= false },
  },
  handlers = {
    ['complexEdit/preview'] = function(err, params, ctx)
      return require('complex_edit.progress').preview(err, params, ctx)
    end,
  },
}
