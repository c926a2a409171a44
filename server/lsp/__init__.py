"""The language server front end: the only package that imports pygls and lsprotocol (see
README.md)."""
