"""privamp: privacy accounting of subsampled mechanisms."""

__version__ = "0.1.0"
