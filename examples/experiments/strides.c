/* One array of 1 Mi ints read four times, element by element or (with -DSTRIDE=64)
   column by column in 64 passes of a 256 B stride: the same instructions, about one
   first-level data cache miss per read instead of one per 16 (docs/metrics.md). */
#include <stdlib.h>
#ifndef STRIDE
#define STRIDE 1
#endif
int main(void) {
    long n = 1 << 20;
    int *a = calloc(n, sizeof(int));
    volatile long s = 0;
    for (long r = 0; r < 4; r++)
        for (long j = 0; j < STRIDE; j++)
            for (long i = j; i < n; i += STRIDE) s += a[i];
    free(a);
    return (int)(s & 0);
}
