"""Pure, vectorised bound functions, one module per source paper.

Every function here is a pure function of NumPy arrays of Rényi orders and plain parameters;
the mapping from events (what happened) to these functions lives in :mod:`privamp.catalog`.
"""
