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
#define REPS 19000
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
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (int i = 0; i < n; i += 8) {
        s0 += a[i + 0] * b[i + 0]; s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2]; s3 += a[i + 3] * b[i + 3];
        s4 += a[i + 4] * b[i + 4]; s5 += a[i + 5] * b[i + 5];
        s6 += a[i + 6] * b[i + 6]; s7 += a[i + 7] * b[i + 7];
    }
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
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
