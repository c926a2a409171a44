"""`complex-edit try`: one edit of a bundled sample against replayed model answers."""
