/* collatz: total and maximum Collatz (3n+1) stopping times for 1..LIMIT; pure integer loop. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdint.h>
#include <time.h>

#ifndef LIMIT
#define LIMIT 1500000
#endif

volatile uint64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    double t0 = now();
    uint64_t total = 0, best = 0, best_n = 0;
    for (uint64_t n = 1; n <= LIMIT; n++) {
        uint64_t v = n, steps = 0;
        while (v != 1) {
            v = (v & 1) ? 3 * v + 1 : v >> 1;
            steps++;
        }
        total += steps;
        if (steps > best) { best = steps; best_n = n; }
    }
    sink = total ^ best_n;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "collatz total steps %llu, longest %llu at n=%llu\n",
            (unsigned long long)total, (unsigned long long)best, (unsigned long long)best_n);
    return 0;
}
