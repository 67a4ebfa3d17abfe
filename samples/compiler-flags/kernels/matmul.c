/* matmul: naive triple-loop (i-j-k) dense matrix multiply, C = A * B, doubles. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdint.h>
#include <time.h>

#ifndef N
#define N 650
#endif

static double A[N][N], B[N][N], C[N][N];
volatile double sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double rnd(void) /* xorshift64, value in [0, 1) */
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = rnd() - 0.5;
            B[i][j] = rnd() - 0.5;
        }

    double t0 = now();
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < N; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    double check = 0.0;
    for (int i = 0; i < N; i++)
        check += C[i][(i * 7) % N];
    sink = check;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "matmul checksum %.12e\n", check);
    return 0;
}
