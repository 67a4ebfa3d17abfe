"""Statistics: pure functions on arrays, with no I/O and no model. The protocol's tests (one
module per test, over the rows of arrays: many benchmarks at once, a single one as a batch of
one), effect sizes, calls and corrections, aggregates, omnibus and post-hoc tests, planning;
each result type beside the code that makes it."""
