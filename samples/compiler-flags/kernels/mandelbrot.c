/* mandelbrot: escape-time iteration count over a grid of the complex plane, doubles. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>

#ifndef W
#define W 1280
#endif
#ifndef H
#define H 960
#endif
#ifndef MAXIT
#define MAXIT 300
#endif

volatile long sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    double t0 = now();
    long total = 0;
    for (int y = 0; y < H; y++) {
        double ci = -1.2 + 2.4 * y / H;
        for (int x = 0; x < W; x++) {
            double cr = -2.2 + 3.2 * x / W;
            double zr = 0, zi = 0;
            int it = 0;
            while (it < MAXIT && zr * zr + zi * zi <= 4.0) {
                double t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                it++;
            }
            total += it;
        }
    }
    sink = total;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "mandelbrot total iterations %ld\n", total);
    return 0;
}
