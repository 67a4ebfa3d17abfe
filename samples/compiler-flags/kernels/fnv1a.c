/* fnv1a: 64-bit FNV-1a hashing of many short variable-length strings, counted
 * into an open-addressing hash table (a word-count style workload). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#ifndef TEXT
#define TEXT (16u << 20)      /* bytes of synthetic text */
#endif
#ifndef PASSES
#define PASSES 5
#endif
#define TABLE (1u << 17)      /* table slots, power of two; > 2x the vocabulary */

static char text[TEXT];
static uint64_t keys[TABLE];
static uint32_t counts[TABLE];
volatile uint64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

int main(void)
{
    /* words of 1..6 letters from a 6-letter alphabet, separated by spaces:
     * at most 55986 distinct words, so the table sees many repeats */
    uint32_t x = 12345u;
    for (size_t i = 0; i < TEXT; ) {
        x = x * 1103515245u + 12345u;
        size_t len = 1 + (x >> 16) % 6;
        for (size_t k = 0; k < len && i < TEXT; k++) {
            x = x * 1103515245u + 12345u;
            text[i++] = (char)('a' + (x >> 16) % 6);
        }
        if (i < TEXT) text[i++] = ' ';
    }

    double t0 = now();
    uint64_t distinct = 0, total = 0;
    for (int p = 0; p < PASSES; p++) {
        memset(keys, 0, sizeof keys);
        memset(counts, 0, sizeof counts);
        distinct = 0;
        size_t i = 0;
        while (i < TEXT) {
            size_t start = i;
            while (i < TEXT && text[i] != ' ') i++;
            if (i > start) {
                uint64_t h = fnv1a(text + start, i - start) | 1; /* 0 = empty slot */
                uint32_t slot = (uint32_t)(h ^ (h >> 32)) & (TABLE - 1);
                while (keys[slot] != 0 && keys[slot] != h)
                    slot = (slot + 1) & (TABLE - 1);
                if (keys[slot] == 0) { keys[slot] = h; distinct++; }
                counts[slot]++;
                total++;
            }
            i++;
        }
    }
    uint64_t check = distinct;
    for (uint32_t s = 0; s < TABLE; s++)
        check = check * 1000003u + counts[s];
    sink = check;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "fnv1a words %llu distinct %llu checksum %llu\n",
            (unsigned long long)total, (unsigned long long)distinct,
            (unsigned long long)check);
    return 0;
}
