/* stencil: 2-D Jacobi relaxation with a 5-point stencil on a square grid, doubles,
 * fixed boundary values, ping-pong between two grids. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>

#ifndef G
#define G 512
#endif
#ifndef ITERS
#define ITERS 1000
#endif

static double a[G][G], b[G][G];
volatile double sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sweep(double (*restrict dst)[G], double (*restrict src)[G])
{
    for (int i = 1; i < G - 1; i++)
        for (int j = 1; j < G - 1; j++)
            dst[i][j] = 0.2 * (src[i][j] + src[i - 1][j] + src[i + 1][j]
                               + src[i][j - 1] + src[i][j + 1]);
}

int main(void)
{
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            double v = (i == 0) ? 1.0 : (j == 0) ? 0.5 : 0.0;
            a[i][j] = b[i][j] = v;
        }

    double t0 = now();
    for (int it = 0; it < ITERS; it += 2) {
        sweep(b, a);
        sweep(a, b);
    }
    double s = 0;
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++)
            s += a[i][j];
    sink = s;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "stencil sum %.12e\n", s);
    return 0;
}
