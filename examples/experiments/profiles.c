/* A deterministic program for profile-diff (docs/profile-diff.md): three functions with loops of
   known length. Built with -DEXTRA=N, scale() runs N more iterations (an injected
   regression that profile-diff must rank first). */
#include <stdio.h>
#include <stdlib.h>

#ifndef EXTRA
#define EXTRA 0
#endif

__attribute__((noinline)) static long mix(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) s += (i * i) % 7;
    return s;
}

__attribute__((noinline)) static long scale(long n) {
    long s = 1;
    for (long i = 0; i < n + EXTRA; i++) s = (s * 3 + i) % 1000003;
    return s;
}

__attribute__((noinline)) static long total(long n) {
    return mix(n) + scale(n / 2);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    printf("%ld\n", total(n));
    return 0;
}
