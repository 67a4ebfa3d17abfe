"""Statistics: pure functions on arrays, with no I/O and no model. The protocol's six tests
(scalar and batched), effect sizes, calls and corrections, aggregates, omnibus and post-hoc
tests, planning; each result type beside the code that makes it."""
