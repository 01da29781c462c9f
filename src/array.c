// array.c: growth of the library's arrays (array_internal.h).

#include "array_internal.h"

#include <stdint.h>
#include <string.h>

osc_status osc_array_grow(void* array, size_t* capacity, size_t needed, size_t size) {
    if (needed <= *capacity) return OSC_OK;
    if (needed > SIZE_MAX / size)
        return osc_fail(OSC_ERR_NO_MEMORY, "out of memory: %zu elements of %zu bytes do not fit in a size_t", needed,
                        size);
    size_t grown = *capacity <= SIZE_MAX / size / 2 ? 2 * *capacity : needed;
    if (grown < needed) grown = needed;
    if (grown < OSC_ARRAY_MIN_CAPACITY && OSC_ARRAY_MIN_CAPACITY <= SIZE_MAX / size) grown = OSC_ARRAY_MIN_CAPACITY;
    void* block = osc_calloc(grown, size);
    if (!block) return OSC_ERR_NO_MEMORY;
    // the pointer is copied as bytes: `array` points at a T*, which is read and written as such
    void* old;
    memcpy(&old, array, sizeof old);
    if (old && *capacity) memcpy(block, old, *capacity * size);
    osc_free(old);
    memcpy(array, &block, sizeof block);
    *capacity = grown;
    return OSC_OK;
}
