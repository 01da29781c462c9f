// base.c: version, status names, thread-local errors, the replaceable allocator, the batch
// runner, reading files.

#if defined(__unix__) || defined(__APPLE__)
#define _POSIX_C_SOURCE 200809L // fileno, fstat
#endif

#include "array_internal.h"
#include "base_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OSC_HAVE_OPENMP
#include <omp.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h>
#endif

#define OSC_STRINGIFY_IMPL(x) #x
#define OSC_STRINGIFY(x) OSC_STRINGIFY_IMPL(x)

int osc_version(void) { return OSC_VERSION_MAJOR * 10000 + OSC_VERSION_MINOR * 100 + OSC_VERSION_PATCH; }

const char* osc_version_string(void) {
    return OSC_STRINGIFY(OSC_VERSION_MAJOR) "." OSC_STRINGIFY(OSC_VERSION_MINOR) "." OSC_STRINGIFY(OSC_VERSION_PATCH);
}

const char* osc_status_string(osc_status status) {
    switch (status) {
        case OSC_OK: return "OSC_OK";
        case OSC_ERR_INVALID_ARGUMENT: return "OSC_ERR_INVALID_ARGUMENT";
        case OSC_ERR_PARSE: return "OSC_ERR_PARSE";
        case OSC_ERR_NO_MEMORY: return "OSC_ERR_NO_MEMORY";
        case OSC_ERR_NOT_CONVERGED: return "OSC_ERR_NOT_CONVERGED";
        case OSC_ERR_CAPACITY: return "OSC_ERR_CAPACITY";
        case OSC_ERR_IO: return "OSC_ERR_IO";
        case OSC_ERR_UNSUPPORTED: return "OSC_ERR_UNSUPPORTED";
    }
    return "OSC_ERR_UNKNOWN";
}

// ---------------------------------------------------------------------------------------------
// thread-local error message

static _Thread_local char error_message[512];

const char* osc_last_error(void) { return error_message; }

void osc_clear_error(void) { error_message[0] = '\0'; }

osc_status osc_fail(osc_status status, const char* format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(error_message, sizeof error_message, format, args);
    va_end(args);
    return status;
}

osc_status osc_fail_in(const char* function, osc_status status) {
    char previous[sizeof error_message];
    memcpy(previous, error_message, sizeof previous);
    snprintf(error_message, sizeof error_message, "%.100s: %.400s", function, previous);
    return status;
}

// ---------------------------------------------------------------------------------------------
// allocator

static void* default_allocate(size_t size, void* context) {
    (void)context;
    return malloc(size);
}

static void default_release(void* pointer, void* context) {
    (void)context;
    free(pointer);
}

static osc_allocator current_allocator = {default_allocate, default_release, NULL};

void osc_set_allocator(const osc_allocator* allocator) {
    if (allocator && allocator->allocate && allocator->release) {
        current_allocator = *allocator;
    } else {
        current_allocator = (osc_allocator){default_allocate, default_release, NULL};
    }
}

void* osc_alloc(size_t size) {
    void* pointer = current_allocator.allocate(size ? size : 1, current_allocator.context);
    if (!pointer) osc_fail(OSC_ERR_NO_MEMORY, "out of memory allocating %zu bytes", size);
    return pointer;
}

void* osc_calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        osc_fail(OSC_ERR_NO_MEMORY, "allocation of %zu x %zu bytes overflows", count, size);
        return NULL;
    }
    void* pointer = osc_alloc(count * size);
    if (pointer) memset(pointer, 0, count * size);
    return pointer;
}

void osc_free(void* pointer) {
    if (pointer) current_allocator.release(pointer, current_allocator.context);
}

int osc_batch_team(int requested, size_t count, size_t min_per_thread) {
#ifdef OSC_HAVE_OPENMP
    // decided without asking OpenMP where the answer is known: one thread asked for, or too few
    // items for two threads (none of these calls starts a thread)
    if (min_per_thread < 1) min_per_thread = 1;
    size_t affordable = count / min_per_thread;
    if (requested == 1 || affordable < 2) return 1;
    size_t team = (size_t)osc_thread_count(requested);
    if (affordable < team) team = affordable;
    // inside the caller's own parallel region, once it is as deep as nesting goes
    // (omp_get_max_active_levels(), 1 by default), OpenMP would give a team of one anyway
    if (team > 1 && omp_get_active_level() >= omp_get_max_active_levels()) team = 1;
    return team > 1 ? (int)team : 1;
#else
    (void)requested;
    (void)count;
    (void)min_per_thread;
    return 1;
#endif
}

osc_status osc_batch_run(const char* function, const char* item_name, size_t count, int threads, size_t min_per_thread,
                         osc_batch_item item, void* context, osc_status* statuses) {
    if (threads < 0) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: threads must be >= 0 (got %d)", function, threads);
    size_t first_failure = count;
    osc_status first_status = OSC_OK;
    char first_message[sizeof error_message] = "";
    int team = osc_batch_team(threads, count, min_per_thread);
    if (team <= 1) {
        for (size_t i = 0; i < count; ++i) {
            osc_status status = item(context, i);
            if (statuses) statuses[i] = status;
            if (status != OSC_OK && i < first_failure) {
                first_failure = i;
                first_status = status;
                memcpy(first_message, error_message, sizeof first_message);
            }
        }
    } else {
#ifdef OSC_HAVE_OPENMP
        // chunks of about a sixteenth of a thread's share: balance without much scheduling
        long long n = (long long)count, chunk = n / (16ll * team);
        if (chunk < 1) chunk = 1;
#pragma omp parallel for schedule(dynamic, chunk) num_threads(team)
        for (long long i = 0; i < n; ++i) {
            osc_status status = item(context, (size_t)i);
            if (statuses) statuses[i] = status;
            if (status != OSC_OK) {
#pragma omp critical(osc_batch_failure)
                if ((size_t)i < first_failure) {
                    first_failure = (size_t)i;
                    first_status = status;
                    memcpy(first_message, error_message, sizeof first_message);
                }
            }
        }
#endif
    }
    if (first_status == OSC_OK) return OSC_OK;
    return osc_fail(first_status, "%s: %s %zu: %.400s", function, item_name, first_failure, first_message);
}

osc_status osc_check_batch(const char* function, const double* points, const void* output, const char* output_name,
                           size_t count, int threads) {
    if (threads < 0) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: threads must be >= 0 (got %d)", function, threads);
    if (count == 0) return OSC_OK;
    if (!points || !output)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL with count %zu", function,
                        points ? output_name : "points", count);
    if (count > (size_t)INT64_MAX / 9)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count %zu is too large", function, count);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// files

osc_status osc_read_file(const char* function, const char* path, unsigned char** data, size_t* size) {
    *data = NULL;
    *size = 0;
    FILE* file = fopen(path, "rb");
    if (!file) return osc_fail(OSC_ERR_IO, "%s: cannot open '%s': %s", function, path, strerror(errno));
#if defined(__unix__) || defined(__APPLE__)
    // a device, pipe or directory may never end (/dev/zero) or not be a file at all: refused
    struct stat info;
    if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
        fclose(file);
        return osc_fail(OSC_ERR_IO, "%s: '%s' is not a regular file (a device, pipe or directory)", function, path);
    }
#endif
    size_t capacity = 65536;
    if (fseek(file, 0, SEEK_END) == 0) {
        long end = ftell(file);
        if (end >= 0 && (unsigned long)end < (1ul << 30)) capacity = (size_t)end + 1;
    }
    rewind(file);
    unsigned char* buffer = osc_alloc(capacity);
    osc_status status = buffer ? OSC_OK : osc_fail_in(function, OSC_ERR_NO_MEMORY);
    size_t used = 0;
    while (!status) {
        if (used == capacity && OSC_ARRAY_RESERVE(buffer, capacity, used + 1) != OSC_OK) {
            status = osc_fail_in(function, OSC_ERR_NO_MEMORY);
            break;
        }
        size_t got = fread(buffer + used, 1, capacity - used, file);
        used += got;
        if (got == 0) {
            if (ferror(file))
                status = osc_fail(OSC_ERR_IO, "%s: cannot read '%s': %s", function, path, strerror(errno));
            break;
        }
    }
    fclose(file);
    if (status) {
        osc_free(buffer);
        return status;
    }
    *data = buffer;
    *size = used;
    return OSC_OK;
}

int osc_default_thread_count(void) {
#ifdef OSC_HAVE_OPENMP
    int count = omp_get_max_threads();
    return count < OSC_MAX_THREADS ? count : OSC_MAX_THREADS;
#else
    return 1;
#endif
}
