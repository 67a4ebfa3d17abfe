/* dotprod: single-precision dot product of two vectors, repeated; eight explicit
 * partial sums so the compiler may (or may not) vectorise without -ffast-math. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdint.h>
#include <time.h>

#ifndef LEN
#define LEN (1 << 16)        /* 2 x 256 KiB: stays in L2 */
#endif
#ifndef REPS
#define REPS 2000
#endif

static float x[LEN], y[LEN];
volatile double sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float dot(const float *restrict a, const float *restrict b, int n)
{
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < n; i += 8)
        for (int k = 0; k < 8; k++)
            s[k] += a[i + k] * b[i + k];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

int main(void)
{
    uint32_t r = 7u;
    for (int i = 0; i < LEN; i++) {
        r = r * 1664525u + 1013904223u; x[i] = (float)(r >> 8) / 16777216.0f - 0.5f;
        r = r * 1664525u + 1013904223u; y[i] = (float)(r >> 8) / 16777216.0f - 0.5f;
    }

    double t0 = now();
    double total = 0;
    for (int rep = 0; rep < REPS; rep++) {
        total += dot(x, y, LEN);
        x[rep % LEN] += 1e-3f; /* perturb so repetitions are not loop-invariant */
    }
    sink = total;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "dotprod total %.9e\n", total);
    return 0;
}
