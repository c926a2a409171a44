"""The sub-agent's toolbox: a working buffer and the six tools. Pure Python: no LSP, no SDK."""
