"""The test editor shared by ``tests/e2e`` and ``tests/reliability``: the real
``complex-edit lsp`` process driven by a pytest-lsp client that behaves like an editor."""
