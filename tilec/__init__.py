"""tilec: a pure-Python compiler for NVIDIA's CUDA Tile IR."""

__version__ = "0.1.0"
