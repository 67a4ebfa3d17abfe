/* linkedlist: traversal of a singly linked list whose nodes are laid out in a
 * shuffled order in memory (pointer chasing, mostly memory-latency bound). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef NODES
#define NODES (1 << 20)
#endif
#ifndef PASSES
#define PASSES 4
#endif

struct node { struct node *next; int64_t value; };

static struct node pool[NODES];
static uint32_t order[NODES];
volatile int64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    uint64_t x = 88172645463325252ull; /* xorshift64 */
    for (uint32_t i = 0; i < NODES; i++) order[i] = i;
    for (uint32_t i = NODES - 1; i > 0; i--) {    /* Fisher-Yates shuffle */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint32_t j = (uint32_t)(x % (i + 1));
        uint32_t t = order[i]; order[i] = order[j]; order[j] = t;
    }
    for (uint32_t i = 0; i < NODES; i++) {
        pool[order[i]].value = (int64_t)(i % 1000) - 500;
        pool[order[i]].next = (i + 1 < NODES) ? &pool[order[i + 1]] : NULL;
    }
    struct node *head = &pool[order[0]];

    double t0 = now();
    int64_t total = 0;
    for (int p = 0; p < PASSES; p++) {
        int64_t s = 0;
        long len = 0;
        for (struct node *n = head; n != NULL; n = n->next) {
            s += n->value * (len & 7);
            len++;
        }
        total += s + len;
    }
    sink = total;
    double t1 = now();

    printf("%.9f\n", t1 - t0);
    fprintf(stderr, "linkedlist checksum %lld\n", (long long)total);
    return 0;
}
