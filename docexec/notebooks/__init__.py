"""A chapter as a Jupyter notebook, and that notebook's page."""
