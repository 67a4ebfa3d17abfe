// Benchmarks whose Catch2 XML output speeduptest's Catch2 reader is tested on. Only
// fibonacci differs between the two builds (-DOPTIMIZED: a loop instead of the recursion).
#define CATCH_CONFIG_MAIN
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

TEST_CASE("fibonacci", "[benchmark]") {
    REQUIRE(fibonacci(20) == 6765);
    BENCHMARK("fibonacci 20") { return fibonacci(20); };
    BENCHMARK("fibonacci 25") { return fibonacci(25); };
}

TEST_CASE("sorting", "[benchmark]") {
    std::vector<int> data(10000);
    std::iota(data.begin(), data.end(), 0);
    std::reverse(data.begin(), data.end());
    BENCHMARK_ADVANCED("sort 10000")(Catch::Benchmark::Chronometer meter) {
        std::vector<std::vector<int>> copies(meter.runs(), data);
        meter.measure([&](int i) { std::sort(copies[i].begin(), copies[i].end()); });
    };
}
