// base_sort.c: a stable sort that never allocates, for queries (glibc's qsort takes its merge
// buffer from malloc). Insertion sorts of short blocks, then merges: through a stack buffer when
// the shorter run fits in it, else by rotations (Kim and Kutzner, "Stable minimum storage merging
// by symmetric comparisons", 2004), whose pieces soon fit.

#include "base_internal.h"

#include <string.h>

enum {
    SORT_BLOCK = 16,   // elements per insertion-sorted block
    SORT_BUFFER = 4096 // bytes of stack for a merge's shorter run (and one held element)
};

typedef struct sorter {
    unsigned char* base;
    size_t size;
    int (*compare)(const void*, const void*);
    unsigned char* buffer; // SORT_BUFFER bytes
} sorter;

static inline unsigned char* element(const sorter* s, size_t i) { return s->base + i * s->size; }

static inline bool less(const sorter* s, const void* x, const void* y) { return s->compare(x, y) < 0; }

// exchanges the ranges [a, a + n) and [b, b + n) in 8-byte words, then the tail bytes
static void swap_ranges(const sorter* s, size_t a, size_t b, size_t n) {
    unsigned char* x = element(s, a);
    unsigned char* y = element(s, b);
    size_t bytes = n * s->size, k = 0;
    for (; k + 8 <= bytes; k += 8) {
        uint64_t t, u;
        memcpy(&t, x + k, 8);
        memcpy(&u, y + k, 8);
        memcpy(x + k, &u, 8);
        memcpy(y + k, &t, 8);
    }
    for (; k < bytes; ++k) {
        unsigned char t = x[k];
        x[k] = y[k];
        y[k] = t;
    }
}

// [first, end) sorted by insertion: each element held in the buffer while the larger ones before
// it move up by one (elements larger than the buffer are swapped down instead)
static void insertion_sort(const sorter* s, size_t first, size_t end) {
    for (size_t i = first + 1; i < end; ++i) {
        if (!less(s, element(s, i), element(s, i - 1))) continue;
        if (s->size > SORT_BUFFER) {
            for (size_t j = i; j > first && less(s, element(s, j), element(s, j - 1)); --j) swap_ranges(s, j, j - 1, 1);
            continue;
        }
        memcpy(s->buffer, element(s, i), s->size);
        size_t j = i - 1;
        while (j > first && less(s, s->buffer, element(s, j - 1))) --j;
        memmove(element(s, j + 1), element(s, j), (i - j) * s->size);
        memcpy(element(s, j), s->buffer, s->size);
    }
}

// exchanges the blocks [a, m) and [m, b) by block swaps
static void rotate(const sorter* s, size_t a, size_t m, size_t b) {
    size_t i = m - a, j = b - m;
    while (i != j) {
        if (i > j) {
            swap_ranges(s, m - i, m, j);
            i -= j;
        } else {
            swap_ranges(s, m - i, m + j - i, i);
            j -= i;
        }
    }
    swap_ranges(s, m - i, m, i);
}

// merges [a, m) and [m, b) with the left run in the buffer, front to back (ties: left first)
static void merge_left_buffered(const sorter* s, size_t a, size_t m, size_t b) {
    size_t size = s->size, left = m - a;
    memcpy(s->buffer, element(s, a), left * size);
    size_t i = 0, j = m, k = a;
    while (i < left && j < b) {
        if (less(s, element(s, j), s->buffer + i * size))
            memcpy(element(s, k++), element(s, j++), size);
        else
            memcpy(element(s, k++), s->buffer + size * i++, size);
    }
    memcpy(element(s, k), s->buffer + i * size, (left - i) * size);
}

// merges [a, m) and [m, b) with the right run in the buffer, back to front (ties: right last)
static void merge_right_buffered(const sorter* s, size_t a, size_t m, size_t b) {
    size_t size = s->size, right = b - m;
    memcpy(s->buffer, element(s, m), right * size);
    size_t i = m, j = right, k = b; // the next elements are i - 1 (in place) and j - 1 (buffer)
    while (i > a && j > 0) {
        if (less(s, s->buffer + (j - 1) * size, element(s, i - 1)))
            memcpy(element(s, --k), element(s, --i), size);
        else
            memcpy(element(s, --k), s->buffer + size * --j, size);
    }
    memcpy(element(s, a), s->buffer, j * size);
}

// merges the sorted runs [a, m) and [m, b) stably; recursion depth O(log(b - a))
static void merge(const sorter* s, size_t a, size_t m, size_t b) {
    if (a == m || m == b || !less(s, element(s, m), element(s, m - 1))) return; // already in order
    if ((m - a) * s->size <= SORT_BUFFER) {
        merge_left_buffered(s, a, m, b);
        return;
    }
    if ((b - m) * s->size <= SORT_BUFFER) {
        merge_right_buffered(s, a, m, b);
        return;
    }
    // SymMerge: split both runs so that one rotation puts every element of the left parts before
    // every element of the right parts, then merge the two halves
    size_t mid = a + (b - a) / 2, n = mid + m, start, r;
    if (m > mid) {
        start = n - b;
        r = mid;
    } else {
        start = a;
        r = m;
    }
    size_t p = n - 1;
    while (start < r) {
        size_t c = start + (r - start) / 2;
        if (!less(s, element(s, p - c), element(s, c)))
            start = c + 1;
        else
            r = c;
    }
    size_t end = n - start;
    if (start < m && m < end) rotate(s, start, m, end);
    if (a < start && start < mid) merge(s, a, start, mid);
    if (mid < end && end < b) merge(s, mid, end, b);
}

void osc_sort(void* base, size_t count, size_t size, int (*compare)(const void*, const void*)) {
    if (count < 2 || size == 0) return;
    _Alignas(16) unsigned char buffer[SORT_BUFFER];
    const sorter s = {base, size, compare, buffer};
    size_t a = 0;
    for (; a + SORT_BLOCK <= count; a += SORT_BLOCK) insertion_sort(&s, a, a + SORT_BLOCK);
    insertion_sort(&s, a, count);
    for (size_t block = SORT_BLOCK; block < count; block *= 2) {
        for (a = 0; a + 2 * block <= count; a += 2 * block) merge(&s, a, a + block, a + 2 * block);
        if (a + block < count) merge(&s, a, a + block, count);
    }
}
