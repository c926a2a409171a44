"""The one edit flow every front end uses, over an editor port (see README.md)."""
