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
osc_status osc_check_pose(const char* function, const char* name, osc_pose pose, double max_coordinate, const char* why,
                          osc_pose* normalized);

/// Checks the buffer of a query's output: `capacity` >= 0 and `contacts` non-NULL when it is
/// positive. OSC_OK, or OSC_ERR_INVALID_ARGUMENT naming `function`.
osc_status osc_check_output(const char* function, const void* contacts, int32_t capacity);

/// Ends a query that produced `needed` contacts for a buffer of `capacity`: OSC_OK when they fit,
/// else OSC_ERR_CAPACITY with "function: N contacts found, capacity is C" (the first `capacity`
/// were written).
osc_status osc_finish_output(const char* function, int32_t needed, int32_t capacity);

typedef struct osc_query_batch osc_query_batch;

/// Slot i of a family's batch: its single call on items[i], writing outputs[i] (the arrays of
/// `batch`, cast to the family's types). Returns the single call's status.
typedef osc_status (*osc_query_slot)(const osc_query_batch* batch, size_t i);

/// A batch of a family's single calls (docs/api.md, Batches).
struct osc_query_batch {
    const char* function;     ///< the batch call's name, which its messages start with
    const char* outputs_name; ///< the name of its output array argument, for the message
    const void* items;        ///< [count] the family's batch items
    void* outputs;            ///< [count] the family's outputs (results)
    const void* settings;     ///< nullable: the defaults
    const void* extra;        ///< nullable: a further per-slot array of the family (DCOL's Jacobians)
    osc_query_slot slot;
    size_t min_per_thread; ///< the fewest items a thread of the team gets (osc_batch_team)
};

/// Runs batch->slot for every i < count by osc_batch_run ("function: item i: <message>" for the
/// lowest failing item), after refusing NULL items or outputs with count > 0 before any item runs.
osc_status osc_query_batch_run(const osc_query_batch* batch, size_t count, osc_status* statuses, int threads);

#endif // OSC_QUERY_INTERNAL_H
