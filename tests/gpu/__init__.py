"""GPU tests: tilec's PTX run on a real device (skipped without one)."""
