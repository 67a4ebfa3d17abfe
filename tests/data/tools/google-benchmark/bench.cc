// Tiny Google Benchmark suite in two versions: built without -DOPTIMIZED it is
// the "initial" version, with -DOPTIMIZED the "optimized" one (both -O2).
//
// Expected outcome of optimized against initial:
//   BM_Sort/256, BM_Sort/4096  much faster  insertion sort -> std::sort
//   BM_MatMul/128 (ms, real time)  faster   i-j-k loop order -> i-k-j
//   BM_StringBuild             about same   identical code in both versions
//   BM_SumList                 slower       std::vector -> std::list
//   BM_Checksum                only in the initial version (unpaired)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <list>
#include <numeric>
#include <random>
#include <string>
#include <vector>

static std::vector<int> random_ints(std::size_t n) {
  std::mt19937 gen(42);
  std::vector<int> v(n);
  for (auto& x : v) x = static_cast<int>(gen() % 100000);
  return v;
}

static void BM_Sort(benchmark::State& state) {
  const auto input = random_ints(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::vector<int> v = input;
#ifdef OPTIMIZED
    std::sort(v.begin(), v.end());
#else
    for (std::size_t i = 1; i < v.size(); ++i) {
      int x = v[i];
      std::size_t j = i;
      while (j > 0 && v[j - 1] > x) {
        v[j] = v[j - 1];
        --j;
      }
      v[j] = x;
    }
#endif
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Sort)->Arg(256)->Arg(4096);

static void BM_MatMul(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  std::vector<double> a(n * n, 1.5), b(n * n, 2.5), c(n * n);
  for (auto _ : state) {
    std::fill(c.begin(), c.end(), 0.0);
#ifdef OPTIMIZED
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < n; ++k)
        for (std::size_t j = 0; j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
#else
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t k = 0; k < n; ++k) c[i * n + j] += a[i * n + k] * b[k * n + j];
#endif
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MatMul)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_StringBuild(benchmark::State& state) {
  for (auto _ : state) {
    std::string s;
    for (int i = 0; i < 200; ++i) s += std::to_string(i);
    benchmark::DoNotOptimize(s.data());
  }
}
BENCHMARK(BM_StringBuild);

static void BM_SumList(benchmark::State& state) {
  const auto v = random_ints(4096);
#ifdef OPTIMIZED
  const std::list<int> data(v.begin(), v.end());
#else
  const std::vector<int> data(v.begin(), v.end());
#endif
  for (auto _ : state) {
    long sum = std::accumulate(data.begin(), data.end(), 0L);
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_SumList);

#ifndef OPTIMIZED
static void BM_Checksum(benchmark::State& state) {
  const auto v = random_ints(4096);
  for (auto _ : state) {
    std::uint32_t h = 2166136261u;
    for (int x : v) h = (h ^ static_cast<std::uint32_t>(x)) * 16777619u;
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_Checksum);
#endif

BENCHMARK_MAIN();
