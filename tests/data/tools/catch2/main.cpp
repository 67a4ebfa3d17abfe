// Catch2's main and benchmark machinery (the single header's implementation), built once for
// both versions of bench.cpp.
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>
