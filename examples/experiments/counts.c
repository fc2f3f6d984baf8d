/* A deterministic loop of LENGTH iterations (a compile-time constant): docs/metrics.md. */
int main(void) {
    volatile unsigned long s = 0;
    for (long i = 0; i < LENGTH; i++) s += (unsigned long)i ^ (s >> 3);
    return (int)(s & 0);
}
