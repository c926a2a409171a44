"""Checks: language servers that check an edit before it lands (see README.md)."""
