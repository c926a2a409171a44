"""Every sentence the model reads. Loaded with importlib.resources; no logic."""
