/* baseline_impartial_sowing.c — a plain solver for impartial Sowing 1^n: the baseline that
 * benchmarks/bench_impartial.py runs beside `ruma eval` when the shared calibration solver is not
 * there. What one would write in an afternoon: a move sows a pot's seeds one a pot to the right or
 * to the left (the last seed must land on a nonempty pot); a position is stripped of its empty end
 * pots and read in the smaller of its two orientations; its key is its pots as 4-bit digits (16
 * pots at most, each below 16), first pot in the top digit, so the nonzero first pot marks the
 * length; one open-addressing table of 2^BITS slots (an 8-byte key and a 1-byte nim value each),
 * plain recursion, no components, no store.
 *
 * Build: cc -O2 -o baseline baseline_impartial_sowing.c
 * Run:   ./baseline N BITS      prints "1^N = *G  positions P ..."
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t *keys;
static uint8_t *values;
static uint64_t slots_mask, stored;
static int bits;

static uint64_t key_of(const int *row, int n) {
    uint64_t key = 0;
    for (int i = 0; i < n; i++) {
        if (row[i] > 15) {
            fprintf(stderr, "a pot of %d seeds does not fit a 4-bit digit\n", row[i]);
            exit(1);
        }
        key = key << 4 | (uint64_t)row[i];
    }
    return key;
}

static uint64_t home(uint64_t key) { return (key * 0x9E3779B97F4A7C15ull) >> (64 - bits); }

static int find(uint64_t key, int *value) {
    for (uint64_t i = home(key); keys[i]; i = (i + 1) & slots_mask)
        if (keys[i] == key) {
            *value = values[i];
            return 1;
        }
    return 0;
}

static void store(uint64_t key, int value) {
    if (stored + 1 >= slots_mask) {
        fprintf(stderr, "2^%d slots are too few\n", bits);
        exit(1);
    }
    uint64_t i = home(key);
    while (keys[i]) i = (i + 1) & slots_mask;
    keys[i] = key;
    values[i] = (uint8_t)value;
    stored++;
}

/* Strip the empty end pots of row[0..n) and write the smaller orientation to out; its length. */
static int normalise(const int *row, int n, int *out) {
    int lo = 0, hi = n;
    while (lo < hi && row[lo] == 0) lo++;
    while (hi > lo && row[hi - 1] == 0) hi--;
    int m = hi - lo, reversed = 0;
    for (int i = 0; i < m; i++)
        if (row[lo + i] != row[hi - 1 - i]) {
            reversed = row[hi - 1 - i] < row[lo + i];
            break;
        }
    for (int i = 0; i < m; i++) out[i] = reversed ? row[hi - 1 - i] : row[lo + i];
    return m;
}

static int nim_value(const int *row, int n) {
    uint64_t key = key_of(row, n);
    int value;
    if (find(key, &value)) return value;
    uint64_t seen = 0;
    int next[32], canonical[32];
    for (int step = -1; step <= 1; step += 2)
        for (int i = 0; i < n; i++) {
            int seeds = row[i], last = i + step * seeds;
            if (seeds == 0 || last < 0 || last >= n || row[last] == 0) continue;
            memcpy(next, row, sizeof(int) * (size_t)n);
            next[i] = 0;
            for (int k = 1; k <= seeds; k++) next[i + step * k]++;
            int m = normalise(next, n, canonical);
            seen |= 1ull << nim_value(canonical, m);
        }
    value = 0;
    while (seen >> value & 1) value++;
    store(key, value);
    return value;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s N BITS\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    bits = atoi(argv[2]);
    if (n < 1 || n > 16 || bits < 8 || bits > 34) {
        fprintf(stderr, "N must be 1..16 (4-bit pots in a 64-bit key), BITS 8..34\n");
        return 2;
    }
    slots_mask = (1ull << bits) - 1;
    keys = calloc(slots_mask + 1, sizeof *keys);
    values = calloc(slots_mask + 1, 1);
    if (!keys || !values) {
        fprintf(stderr, "no memory for 2^%d slots\n", bits);
        return 1;
    }
    int row[32];
    for (int i = 0; i < n; i++) row[i] = 1;
    clock_t start = clock();
    int value = nim_value(row, n);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("1^%d = *%d  positions %llu  %.2f s  table %.0f MB\n", n, value, (unsigned long long)stored, seconds,
           (double)(slots_mask + 1) * 9 / 1e6);
    return 0;
}
