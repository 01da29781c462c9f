// array_internal.h: the library's one growable array. A buffer that grows (a parser's nodes, a
// builder's vertices, a cache's front) is a pointer, a count and a size_t capacity of its owner's;
// OSC_ARRAY_RESERVE makes room in it through the library's allocator (osc_alloc: there is no
// realloc to call). Growth at least doubles the capacity, so n appends cost O(n) copies, and a
// reservation that fits allocates nothing: a cache warmed by one query serves the next without
// touching the allocator (LMD's contract, tests/test_no_alloc.c). Never installed.

#ifndef OSC_ARRAY_INTERNAL_H
#define OSC_ARRAY_INTERNAL_H

#include "base_internal.h"

#include <stddef.h>

/// The smallest capacity an array grows to.
#define OSC_ARRAY_MIN_CAPACITY 16

/// Returns OSC_OK after growing the array whose pointer is at `array` (a T** passed as void*:
/// the pointer is read and written whole, never through a T** lvalue of another type) from
/// *capacity elements of `size` bytes to the largest of `needed`, twice *capacity and
/// OSC_ARRAY_MIN_CAPACITY elements, keeping all *capacity old elements (live or not) and zeroing
/// the new ones. OSC_ERR_NO_MEMORY, the array and *capacity unchanged, when the memory cannot be
/// had or `needed` elements do not fit a size_t of bytes; the message ("out of memory ...") is
/// osc_alloc's or says which size overflowed, for the public function to prefix with its name
/// (osc_fail_in) as it does for any allocation below it. Nothing is allocated when `needed` <=
/// *capacity. Called through OSC_ARRAY_RESERVE, or directly where an element is a group of the
/// pointer's type (a vertex of three doubles: `size` 3 * sizeof(double), the capacity in vertices).
osc_status osc_array_grow(void* array, size_t* capacity, size_t needed, size_t size);

/// Returns OSC_OK once the array `array` (an lvalue of type T*) with capacity `capacity` (an lvalue
/// of type size_t) holds at least `needed` elements of T, without a call when it already does;
/// otherwise osc_array_grow's growth and errors.
#define OSC_ARRAY_RESERVE(array, capacity, needed)                                                                     \
    ((size_t)(needed) <= (capacity) ? OSC_OK : osc_array_grow(&(array), &(capacity), (size_t)(needed), sizeof *(array)))

#endif // OSC_ARRAY_INTERNAL_H
