"""The session: the tool loop, its events, and the child-process hop (see README.md)."""
