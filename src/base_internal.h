// Internal helpers shared by every module: error reporting, allocation, argument checks.
// Never installed.

#ifndef OSC_BASE_INTERNAL_H
#define OSC_BASE_INTERNAL_H

#include "osculate/base.h"

#include <math.h> // (glibc's defines __GLIBC__, which OSC_AVX_CLONES tests)
#include <stdbool.h>
#include <stdint.h>

// OSC_AVX_CLONES before a hot function's definition compiles it twice, for AVX and for any x86-64,
// and the loader picks one for the machine (an ifunc: GCC 6+ or clang 14+ on x86-64 Linux with
// glibc; elsewhere it expands to nothing). Loops over the 12 tangent columns then run four doubles
// wide. AVX has no fused multiply-add (FMA3 is a separate feature, never enabled here), so every
// product and sum is rounded as in the default build: the bits are the same. OSC_NO_TARGET_CLONES
// (CMake's OSC_TARGET_CLONES=OFF, implied by ThreadSanitizer builds) compiles one plain version.
#if !defined(OSC_NO_TARGET_CLONES) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) &&               \
    ((defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 6))
#define OSC_AVX_CLONES __attribute__((target_clones("avx", "default")))
#else
#define OSC_AVX_CLONES
#endif

#if defined(__GNUC__) || defined(__clang__)
#define OSC_PRINTF(fmt_index, arg_index) __attribute__((format(printf, fmt_index, arg_index)))
#define OSC_FORCE_INLINE static inline __attribute__((always_inline))
#define OSC_NOINLINE static __attribute__((noinline))
#else
#define OSC_PRINTF(fmt_index, arg_index)
#define OSC_FORCE_INLINE static inline
#define OSC_NOINLINE static
#endif

/// The index of the lowest set bit of a non-zero word.
static inline int osc_lowest_bit(uint64_t word) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(word);
#else
    int index = 0;
    while (!(word >> index & 1u)) ++index;
    return index;
#endif
}

/// Formats a message into the thread-local error buffer and returns `status`.
osc_status osc_fail(osc_status status, const char* format, ...) OSC_PRINTF(2, 3);

/// Prefixes the calling thread's current message with "function: " and returns `status`: public
/// functions use it to name themselves when a helper (an allocation) failed below them.
osc_status osc_fail_in(const char* function, osc_status status);

/// Allocates with the user's allocator; sets OSC_ERR_NO_MEMORY's message on failure.
void* osc_alloc(size_t size);

/// Allocates and zeroes `count * size` bytes, checking the multiplication for overflow.
void* osc_calloc(size_t count, size_t size);

/// Releases memory obtained from osc_alloc or osc_calloc (NULL is fine).
void osc_free(void* pointer);

/// Reads the whole file at `path` into a new block of osc_alloc (*data, one spare byte, released
/// with osc_free) of *size bytes. Only regular files are read: a device, pipe or directory is
/// refused (/dev/zero would never end). OSC_ERR_IO naming
/// `function` and the path when it cannot be opened or read, OSC_ERR_NO_MEMORY.
osc_status osc_read_file(const char* function, const char* path, unsigned char** data, size_t* size);

/// Checks the arguments every batch query shares, for the public function `function`: `threads`
/// >= 0; with count > 0, `points` [count][3] and the required output `output` (called
/// `output_name`) non-NULL, and `count` small enough to index [count][9] arrays. OSC_OK or
/// OSC_ERR_INVALID_ARGUMENT with the message set.
osc_status osc_check_batch(const char* function, const double* points, const void* output, const char* output_name,
                           size_t count, int threads);

/// The threads a parallel loop runs on: `requested` when positive, else
/// osc_default_thread_count(); never more than OSC_MAX_THREADS.
static inline int osc_thread_count(int requested) {
    int count = requested > 0 ? requested : osc_default_thread_count();
    return count < OSC_MAX_THREADS ? count : OSC_MAX_THREADS;
}

/// The team a batch of `count` items runs on: osc_thread_count(requested), but no more threads
/// than leave each at least `min_per_thread` items (so small batches run on the calling thread),
/// and 1 inside the caller's parallel region once it is as deep as OpenMP nests
/// (omp_get_max_active_levels()). Asks OpenMP nothing when `requested` is 1 or `count` is below
/// 2 * min_per_thread.
int osc_batch_team(int requested, size_t count, size_t min_per_thread);

/// One item of a batch: computes item `index` and returns its status (a failure leaves its
/// message in osc_last_error(), as every public function does).
typedef osc_status (*osc_batch_item)(void* context, size_t index);

/// The one batch runner: calls `item` for every index in [0, count) on osc_batch_team(threads,
/// count, min_per_thread) threads; a team of one loops on the calling thread without entering
/// OpenMP (nothing is allocated). Every item runs whatever the others return; `statuses`
/// (nullable, [count]) receives each item's status. Returns OSC_OK, or the status of the failing
/// item of lowest index with the message "function: item_name index: its message". Checks
/// `threads` >= 0 first (OSC_ERR_INVALID_ARGUMENT naming `function`).
osc_status osc_batch_run(const char* function, const char* item_name, size_t count, int threads, size_t min_per_thread,
                         osc_batch_item item, void* context, osc_status* statuses);

/// Sorts `count` elements of `size` bytes at `base` into the order of `compare` (as qsort's),
/// stably (equal elements keep their order), in place and without allocating (base_sort.c): it
/// uses 4 KB of the caller's stack. Queries use it instead of qsort, which allocates in glibc.
void osc_sort(void* base, size_t count, size_t size, int (*compare)(const void*, const void*));

static inline bool osc_is_finite3(double x, double y, double z) { return isfinite(x) && isfinite(y) && isfinite(z); }

#endif // OSC_BASE_INTERNAL_H
