// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// base.h: version, status codes, the thread-local error message and the replaceable allocator.
// Every other header includes this one.

#ifndef OSCULATE_BASE_H
#define OSCULATE_BASE_H

#include <stddef.h>

#if defined(_WIN32) && defined(OSC_BUILDING_SHARED)
#define OSC_API __declspec(dllexport)
#elif defined(_WIN32) && defined(OSC_USING_SHARED)
#define OSC_API __declspec(dllimport)
#elif defined(__GNUC__) || defined(__clang__)
#define OSC_API __attribute__((visibility("default")))
#else
#define OSC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define OSC_VERSION_MAJOR 0
#define OSC_VERSION_MINOR 1
#define OSC_VERSION_PATCH 0

/// Status returned by every function that can fail. OSC_OK is zero; every failure is non-zero
/// and leaves a message naming the problem in osc_last_error().
typedef enum osc_status {
    OSC_OK = 0,
    OSC_ERR_INVALID_ARGUMENT = 1, ///< the caller passed a value outside the documented domain
    OSC_ERR_PARSE = 2,            ///< a file or buffer is malformed (the message gives the offset)
    OSC_ERR_NO_MEMORY = 3,        ///< the allocator returned NULL
    OSC_ERR_NOT_CONVERGED = 4,    ///< an iterative solver stopped before its tolerance
    OSC_ERR_CAPACITY = 5,         ///< an output buffer is too small (the message gives the size needed)
    OSC_ERR_IO = 6,               ///< a file could not be opened, read or written
    OSC_ERR_UNSUPPORTED = 7       ///< a feature was disabled at build time or is not implemented for this input
} osc_status;

/// Returns the library version as major * 10000 + minor * 100 + patch.
OSC_API int osc_version(void);

/// Returns the library version as a static string "major.minor.patch".
OSC_API const char* osc_version_string(void);

/// Returns a static, human-readable name for a status code ("OSC_ERR_PARSE", ...).
OSC_API const char* osc_status_string(osc_status status);

/// Returns the message of the last failure on the calling thread ("" when none). The text names
/// the function, the argument and the offending value. It stays valid until the next failing call
/// on the same thread.
OSC_API const char* osc_last_error(void);

/// Clears the calling thread's error message.
OSC_API void osc_clear_error(void);

/// A replacement for malloc/free used by every model constructor. `allocate` returns memory
/// aligned for any type or NULL; `release` accepts what `allocate` returned (or NULL).
typedef struct osc_allocator {
    void* (*allocate)(size_t size, void* context);
    void (*release)(void* pointer, void* context);
    void* context;
} osc_allocator;

/// Replaces the allocator used by model creation; NULL restores malloc/free. Queries never
/// allocate. Call it before creating models: a model must be destroyed with the allocator that
/// created it, and changing the allocator while another thread creates models is a data race.
OSC_API void osc_set_allocator(const osc_allocator* allocator);

/// The most threads any function of the library runs on. Every `threads` argument or setting
/// follows one rule: negative is refused (OSC_ERR_INVALID_ARGUMENT), 0 asks for
/// osc_default_thread_count(), and a larger request is clamped to OSC_MAX_THREADS. A batch never
/// runs on more threads than it has work for: a batch too small to pay for a team runs on the
/// calling thread alone, without entering OpenMP.
#define OSC_MAX_THREADS 256

/// Returns the number of threads batch functions use when asked for 0 (the OpenMP default,
/// clamped to OSC_MAX_THREADS), or 1 when the library was built without OpenMP.
OSC_API int osc_default_thread_count(void);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_BASE_H
