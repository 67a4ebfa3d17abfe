// Benchmarks whose Catch2 XML reports speeduptest's Catch2 reader is tested on. Only
// fibonacci differs between the two builds (-DOPTIMIZED: a loop instead of the recursion);
// sort 1000 runs the same code in both. Catch2's main is in main.cpp, built once.
//
// Every benchmark's call is kept short: Catch2 2.x warms each benchmark up with at least
// 10,000 calls, so a call of 100 µs would make each run of the program last seconds.
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

static std::uint64_t fibonacci(std::uint64_t n) {
#ifdef OPTIMIZED
    std::uint64_t a = 0, b = 1;
    for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t next = a + b;
        a = b;
        b = next;
    }
    return a;
#else
    return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
#endif
}

// Read at run time, so that the compiler cannot compute fibonacci(n) once and for all.
static volatile std::uint64_t fifteen = 15, twenty = 20;

TEST_CASE("fibonacci", "[benchmark]") {
    REQUIRE(fibonacci(20) == 6765);
    BENCHMARK("fibonacci 15") { return fibonacci(fifteen); };
    BENCHMARK("fibonacci 20") { return fibonacci(twenty); };
}

TEST_CASE("sorting", "[benchmark]") {
    std::vector<int> data(1000);
    std::iota(data.begin(), data.end(), 0);
    std::reverse(data.begin(), data.end());
    BENCHMARK("sort 1000") {
        std::vector<int> copy = data;
        std::sort(copy.begin(), copy.end());
        return copy.front();
    };
}
