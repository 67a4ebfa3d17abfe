"""Process-level speed mechanisms, each behind a narrow seam (a source of file contents, an
executor of bootstrap work, a pool of workers); the plain path stays the reference."""
