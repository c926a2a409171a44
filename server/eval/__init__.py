"""`complex-edit eval`: how well a model edits through the sub-agent's tools, on a task suite."""
