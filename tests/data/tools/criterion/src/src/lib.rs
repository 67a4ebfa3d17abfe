//! Code whose benchmarks speeduptest's Criterion reader is tested on. Only `sort` differs
//! between the initial and optimized builds (feature "optimized").

/// Sorts in place: an insertion sort (initial) or the standard library's (optimized).
pub fn sort(values: &mut [u32]) {
    if cfg!(feature = "optimized") {
        values.sort_unstable();
    } else {
        for i in 1..values.len() {
            let mut j = i;
            while j > 0 && values[j] < values[j - 1] {
                values.swap(j, j - 1);
                j -= 1;
            }
        }
    }
}

/// The number of primes below n (a sieve): the same code in both builds.
pub fn count_primes(n: usize) -> usize {
    let mut composite = vec![false; n];
    let mut count = 0;
    for i in 2..n {
        if !composite[i] {
            count += 1;
            let mut j = i * i;
            while j < n {
                composite[j] = true;
                j += i;
            }
        }
    }
    count
}

/// Pseudo-random values (a fixed linear congruential sequence).
pub fn values(n: usize) -> Vec<u32> {
    let mut state = 12345u32;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            state >> 8
        })
        .collect()
}
