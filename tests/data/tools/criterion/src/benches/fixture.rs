use criterion::{black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use criterion_fixture::{count_primes, sort, values};

fn benchmarks(c: &mut Criterion) {
    let mut group = c.benchmark_group("sort");
    for n in [100usize, 2000] {
        let input = values(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &input, |b, input| {
            b.iter_batched_ref(|| input.clone(), |v| sort(v), BatchSize::SmallInput)
        });
    }
    group.finish();
    c.bench_function("count_primes", |b| b.iter(|| count_primes(black_box(10_000))));
}

criterion_group!(benches, benchmarks);
criterion_main!(benches);
