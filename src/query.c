// The contract every query family shares (query_internal.h, docs/api.md).

#include "query_internal.h"

#include <math.h>

osc_status osc_check_pose(const char* function, const char* name, osc_pose pose, double max_coordinate, const char* why,
                          osc_pose* normalized) {
    osc_vec3 p = pose.p;
    if (!osc_vec3_is_finite(p))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s.p = (%g, %g, %g) is not finite", function, name, p.x, p.y,
                        p.z);
    if (fabs(p.x) > max_coordinate || fabs(p.y) > max_coordinate || fabs(p.z) > max_coordinate)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s.p = (%g, %g, %g) is beyond %g (%s)", function, name, p.x, p.y,
                        p.z, max_coordinate, why ? why : "the query's range");
    osc_quat q = pose.q;
    if (!osc_quat_is_normalizable(q))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s.q = (%g, %g, %g, %g) cannot be normalised", function, name,
                        q.w, q.x, q.y, q.z);
    if (normalized) *normalized = osc_pose_make(p, osc_quat_normalize(q));
    return OSC_OK;
}

osc_status osc_check_output(const char* function, const void* contacts, int32_t capacity) {
    if (capacity < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output->capacity is %d; it must be >= 0", function,
                        (int)capacity);
    if (capacity > 0 && !contacts)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output->contacts is NULL with capacity %d", function,
                        (int)capacity);
    return OSC_OK;
}

osc_status osc_finish_output(const char* function, int32_t needed, int32_t capacity) {
    if (needed <= capacity) return OSC_OK;
    return osc_fail(OSC_ERR_CAPACITY, "%s: %d contacts found, capacity is %d", function, (int)needed, (int)capacity);
}

// osc_batch_run's item: the family's slot
static osc_status query_batch_item(void* context, size_t i) {
    const osc_query_batch* batch = context;
    return batch->slot(batch, i);
}

osc_status osc_query_batch_run(const osc_query_batch* batch, size_t count, osc_status* statuses, int threads) {
    if (count > 0 && !batch->items)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: items is NULL with count %zu", batch->function, count);
    if (count > 0 && !batch->outputs)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL with count %zu", batch->function, batch->outputs_name,
                        count);
    return osc_batch_run(batch->function, "item", count, threads, batch->min_per_thread, query_batch_item, (void*)batch,
                         statuses);
}
