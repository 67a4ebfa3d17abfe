/* nbody: O(n^2) gravitational n-body simulation, leapfrog-style steps, doubles. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdint.h>
#include <math.h>
#include <time.h>

#ifndef NB
#define NB 256
#endif
#ifndef STEPS
#define STEPS 800
#endif

static double px[NB], py[NB], pz[NB], vx[NB], vy[NB], vz[NB], m[NB];
volatile double sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 42;
static double rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull; /* 64-bit LCG */
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

int main(void)
{
    for (int i = 0; i < NB; i++) {
        px[i] = rnd() * 10 - 5; py[i] = rnd() * 10 - 5; pz[i] = rnd() * 10 - 5;
        vx[i] = rnd() - 0.5;    vy[i] = rnd() - 0.5;    vz[i] = rnd() - 0.5;
        m[i] = 0.5 + rnd();
    }
    const double dt = 1e-3, soft = 1e-2;

    double t0 = now();
    for (int s = 0; s < STEPS; s++) {
        for (int i = 0; i < NB; i++) {
            double ax = 0, ay = 0, az = 0;
            for (int j = 0; j < NB; j++) {
                double dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
                double d2 = dx * dx + dy * dy + dz * dz + soft;
                double inv = 1.0 / (d2 * sqrt(d2));
                ax += m[j] * dx * inv; ay += m[j] * dy * inv; az += m[j] * dz * inv;
            }
            vx[i] += dt * ax; vy[i] += dt * ay; vz[i] += dt * az;
        }
        for (int i = 0; i < NB; i++) {
            px[i] += dt * vx[i]; py[i] += dt * vy[i]; pz[i] += dt * vz[i];
        }
    }
    double e = 0;
    for (int i = 0; i < NB; i++)
        e += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
    sink = e;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "nbody kinetic energy %.12e\n", e);
    return 0;
}
