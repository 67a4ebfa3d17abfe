/* quicksort: hand-written quicksort (median-of-three, insertion sort for small
 * ranges) of pseudo-random 32-bit integers. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef COUNT
#define COUNT 3000000
#endif

static int32_t a[COUNT];
volatile uint64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void swap(int32_t *x, int32_t *y) { int32_t t = *x; *x = *y; *y = t; }

static void insertion(int32_t *v, long lo, long hi)
{
    for (long i = lo + 1; i <= hi; i++) {
        int32_t x = v[i];
        long j = i - 1;
        while (j >= lo && v[j] > x) { v[j + 1] = v[j]; j--; }
        v[j + 1] = x;
    }
}

static void quicksort(int32_t *v, long lo, long hi)
{
    while (hi - lo > 16) {
        long mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo]) swap(&v[mid], &v[lo]);
        if (v[hi] < v[lo]) swap(&v[hi], &v[lo]);
        if (v[hi] < v[mid]) swap(&v[hi], &v[mid]);
        int32_t pivot = v[mid];
        long i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) { swap(&v[i], &v[j]); i++; j--; }
        }
        /* recurse into the smaller part, loop on the larger one */
        if (j - lo < hi - i) { quicksort(v, lo, j); lo = i; }
        else                 { quicksort(v, i, hi); hi = j; }
    }
    insertion(v, lo, hi);
}

int main(void)
{
    uint32_t x = 2463534242u; /* xorshift32 */
    for (long i = 0; i < COUNT; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        a[i] = (int32_t)x;
    }

    double t0 = now();
    quicksort(a, 0, COUNT - 1);
    uint64_t h = 0;
    for (long i = 0; i < COUNT; i += 997)
        h = h * 31 + (uint32_t)a[i];
    sink = h;
    double t1 = now();

    for (long i = 1; i < COUNT; i++)
        if (a[i - 1] > a[i]) { fprintf(stderr, "quicksort: NOT SORTED at %ld\n", i); return 1; }
    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "quicksort checksum %llu\n", (unsigned long long)h);
    return 0;
}
