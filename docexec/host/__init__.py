"""What a site host runs: one build's state and the Markdown extension."""
