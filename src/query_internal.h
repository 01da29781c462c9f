// The contract every query family shares (docs/api.md): one pose check, the output buffers'
// capacity accounting, and the message a batch item reports. Never installed.

#ifndef OSC_QUERY_INTERNAL_H
#define OSC_QUERY_INTERNAL_H

#include "base_internal.h"
#include "osculate/math.h"

/// Checks the pose argument `name` of `function`: its translation finite and, when
/// `max_coordinate` is finite, no component larger than it in magnitude (`why` says what the
/// limit protects, for the message); its quaternion normalisable (osc_quat_is_normalizable).
/// Writes the pose with its quaternion normalised by osc_quat_normalize to *normalized
/// (nullable). OSC_OK, or OSC_ERR_INVALID_ARGUMENT with the message every family gives:
///   "function: name.p = (x, y, z) is not finite"
///   "function: name.p = (x, y, z) is beyond max_coordinate (why)"
///   "function: name.q = (w, x, y, z) cannot be normalised"
osc_status osc_check_pose(const char* function, const char* name, osc_pose pose, double max_coordinate,
                          const char* why, osc_pose* normalized);

/// Checks the buffer of a query's output: `capacity` >= 0 and `contacts` non-NULL when it is
/// positive. OSC_OK, or OSC_ERR_INVALID_ARGUMENT naming `function`.
osc_status osc_check_output(const char* function, const void* contacts, int32_t capacity);

/// Ends a query that produced `needed` contacts for a buffer of `capacity`: OSC_OK when they fit,
/// else OSC_ERR_CAPACITY with "function: N contacts found, capacity is C" (the first `capacity`
/// were written).
osc_status osc_finish_output(const char* function, int32_t needed, int32_t capacity);

/// Checks a batch's items array: non-NULL when `count` > 0. OSC_OK or OSC_ERR_INVALID_ARGUMENT.
osc_status osc_check_items(const char* function, const void* items, size_t count);

#endif // OSC_QUERY_INTERNAL_H
