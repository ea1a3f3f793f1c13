"""Autograd graphs and their figures: the graph as DOT, the teaching facts, the drawn SVG."""
