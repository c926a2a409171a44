"""The history of landed edits (a record per edit in the user's state directory) and the pure
planning of a revert."""
