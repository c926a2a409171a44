"""Model providers behind the provider-agnostic session loop."""
