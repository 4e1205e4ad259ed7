"""bench/ as a package: its shared helpers (:mod:`bench.sm90`) import from the repository root."""
