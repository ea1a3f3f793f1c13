"""The next PyTorch: a side environment, and the drift record comparing two versions."""
