"""Running examples: the worker, the run cache, the scheduler and a build's results."""
