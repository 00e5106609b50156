"""Code generation from scheduled nv_tileas IR."""
