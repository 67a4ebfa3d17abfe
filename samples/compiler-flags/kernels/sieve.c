/* sieve: sieve of Eratosthenes over a byte array, repeated REPS times. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifndef LIMIT
#define LIMIT 8000000
#endif
#ifndef REPS
#define REPS 12
#endif

static unsigned char composite[LIMIT + 1];
volatile long sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    long total = 0;
    double t0 = now();
    for (int r = 0; r < REPS; r++) {
        memset(composite, 0, sizeof composite);
        for (long i = 2; i * i <= LIMIT; i++)
            if (!composite[i])
                for (long j = i * i; j <= LIMIT; j += i)
                    composite[j] = 1;
        long count = 0;
        for (long i = 2; i <= LIMIT; i++)
            count += !composite[i];
        total += count;
    }
    sink = total;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "sieve primes<=%d: %ld (x%d = %ld)\n", LIMIT, total / REPS, REPS, total);
    return 0;
}
