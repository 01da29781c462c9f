// sdf_cull.c: the voxel lists of a culled root union (docs/sdf.md, "Culled unions"). A smooth union
// -tau log sum exp(-phi_i / tau) gives a child whose value lies T temperatures above the smallest a
// weight below exp(-T); with T = SDF_CULL_TEMPERATURES (40: 4.2e-18) such children change the value,
// gradient and Hessian below rounding. Per voxel of a grid over the union's bounds, a Lipschitz
// argument bounds each child's value over the voxel from its value at the voxel's centre; a child is
// listed, with its lower bound, unless that bound exceeds the smallest upper bound by more than T
// temperatures. The lists are sorted by lower bound, so that a point stops at the first child whose
// bound lies T temperatures above the smallest value it has found (sdf.c).

#include "sdf_internal.h"

#include <string.h>

enum {
    CULL_MIN_CHILDREN = 3,       // below this the lists cost more than they save
    CULL_MAX_CELLS_PER_AXIS = 64 // along the longest side of the padded bounds
};
#define CULL_BUDGET 1048576.0 // leaf evaluations spent on the lists when the union is created
#define CULL_PADDING 0.5      // the grid covers the bounds grown by this fraction of their longest side

void sdf_cull_destroy(sdf_cull* cull) {
    if (!cull) return;
    osc_free(cull->child_first);
    osc_free(cull->child_op);
    osc_free(cull->first);
    osc_free(cull->entries);
    osc_free(cull->sq_lanes);
    osc_free(cull);
}

static size_t cull_cell_count(const sdf_cull* c) { return (size_t)c->cells[0] * c->cells[1] * c->cells[2]; }

sdf_cull* sdf_cull_copy(const sdf_cull* cull, bool* failed) {
    if (!cull) return NULL;
    size_t cells = cull_cell_count(cull), entries = (size_t)cull->first[cells];
    sdf_cull* c = osc_calloc(1, sizeof *c);
    if (c) {
        *c = *cull;
        c->child_first = osc_calloc((size_t)cull->child_count, sizeof *c->child_first);
        c->child_op = osc_calloc((size_t)cull->child_count, sizeof *c->child_op);
        c->first = osc_calloc(cells + 1, sizeof *c->first);
        c->entries = osc_calloc(entries > 0 ? entries : 1, sizeof *c->entries);
        c->sq_lanes = osc_calloc((size_t)cull->child_count, sizeof *c->sq_lanes);
    }
    if (!c || !c->child_first || !c->child_op || !c->first || !c->entries || !c->sq_lanes) {
        sdf_cull_destroy(c);
        *failed = true;
        return NULL;
    }
    memcpy(c->child_first, cull->child_first, (size_t)cull->child_count * sizeof *c->child_first);
    memcpy(c->child_op, cull->child_op, (size_t)cull->child_count * sizeof *c->child_op);
    memcpy(c->first, cull->first, (cells + 1) * sizeof *c->first);
    memcpy(c->entries, cull->entries, entries * sizeof *c->entries);
    memcpy(c->sq_lanes, cull->sq_lanes, (size_t)cull->child_count * sizeof *c->sq_lanes);
    return c;
}

// the cell size and counts: as fine as CULL_MAX_CELLS_PER_AXIS allows within CULL_BUDGET evaluations
static double cull_grid(const double region[3], int32_t leaf_count, int32_t cells[3]) {
    double longest = fmax(region[0], fmax(region[1], region[2]));
    double cell = longest / CULL_MAX_CELLS_PER_AXIS;
    for (;;) {
        double total = 1.0;
        for (int a = 0; a < 3; ++a) {
            cells[a] = (int32_t)fmax(1.0, ceil(region[a] / cell));
            total *= cells[a];
        }
        if (total * leaf_count <= CULL_BUDGET) return cell;
        cell *= 1.1;
    }
}

osc_status sdf_cull_build(osc_sdf* sdf, int32_t count, const int32_t* child_first, const int32_t* child_op,
                          const double* lipschitz) {
    if (count < CULL_MIN_CHILDREN) return OSC_OK;
    for (int32_t k = 0; k < count; ++k)
        if (!(lipschitz[k] > 0.0) || !isfinite(lipschitz[k])) return OSC_OK;
    osc_vec3 lo = sdf->lo, hi = sdf->hi;
    if (!osc_vec3_is_finite(lo) || !osc_vec3_is_finite(hi)) return OSC_OK;
    double size[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
    double longest = fmax(size[0], fmax(size[1], size[2]));
    if (!(longest > 0.0) || !(size[0] >= 0.0 && size[1] >= 0.0 && size[2] >= 0.0)) return OSC_OK;
    double padding = CULL_PADDING * longest, region[3];
    for (int a = 0; a < 3; ++a) region[a] = size[a] + 2.0 * padding;
    int32_t cells[3];
    double cell = cull_grid(region, sdf->leaf_count, cells);
    if (fmax(cells[0], fmax(cells[1], cells[2])) < 4) return OSC_OK; // too coarse to skip anything
    size_t total = (size_t)cells[0] * cells[1] * cells[2];

    const char* function = "osc_sdf_create_union";
    sdf_cull* c = osc_calloc(1, sizeof *c);
    double* values = osc_calloc((size_t)count, sizeof *values);
    sdf_cull_entry* entries = osc_calloc(total * (size_t)count, sizeof *entries); // at most CULL_BUDGET
    if (c) {
        c->child_first = osc_calloc((size_t)count, sizeof *c->child_first);
        c->child_op = osc_calloc((size_t)count, sizeof *c->child_op);
        c->first = osc_calloc(total + 1, sizeof *c->first);
        c->sq_lanes = osc_calloc((size_t)count, sizeof *c->sq_lanes);
    }
    if (!c || !values || !entries || !c->child_first || !c->child_op || !c->first || !c->sq_lanes) {
        sdf_cull_destroy(c);
        osc_free(values);
        osc_free(entries);
        return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    c->child_count = count;
    memcpy(c->child_first, child_first, (size_t)count * sizeof *child_first);
    memcpy(c->child_op, child_op, (size_t)count * sizeof *child_op);
    c->end = sdf->instr_count - 1;
    c->has_transform = 0;
    c->rotation = osc_mat3_identity();
    c->translation = osc_v3(0.0, 0.0, 0.0);
    c->scale = 1.0;
    c->origin = osc_v3(lo.x - padding, lo.y - padding, lo.z - padding);
    c->inverse_cell = 1.0 / cell;
    for (int a = 0; a < 3; ++a) c->cells[a] = cells[a];

    // every point of a voxel lies within h of its centre (the margin covers the rounding of the centre)
    double h = 0.5 * sqrt(3.0) * cell * (1.0 + 1e-9);
    double reach = SDF_CULL_TEMPERATURES * sdf->program[c->end].value;
    int32_t used = 0;
    for (int32_t k3 = 0; k3 < cells[2]; ++k3)
        for (int32_t j = 0; j < cells[1]; ++j)
            for (int32_t i = 0; i < cells[0]; ++i) {
                size_t at = ((size_t)k3 * cells[1] + j) * cells[0] + i;
                osc_vec3 centre = osc_v3(c->origin.x + (i + 0.5) * cell, c->origin.y + (j + 0.5) * cell,
                                         c->origin.z + (k3 + 0.5) * cell);
                // upper bound of the smallest child over the voxel: max(phi(c), 0) + L h
                double upper = INFINITY;
                for (int32_t k = 0; k < count; ++k) {
                    values[k] = sdf_eval_range(sdf, child_first[k], child_op[k], centre);
                    if (!isnan(values[k])) upper = fmin(upper, fmax(values[k], 0.0) + lipschitz[k] * h);
                }
                // lower bound phi(c) - L h, valid where it is positive (else none: -inf), rounded down
                double limit = upper + reach + 1e-9 * h;
                c->first[at] = used;
                for (int32_t k = 0; k < count; ++k) {
                    double lower = values[k] - lipschitz[k] * h;
                    if (!(lower > 0.0)) lower = -INFINITY;
                    if (lower > limit) continue;
                    float rounded = (float)lower;
                    if ((double)rounded > lower) rounded = nextafterf(rounded, -INFINITY);
                    // insert by increasing bound, after equal ones (program order among them)
                    int32_t at_entry = used++;
                    while (at_entry > c->first[at] && entries[at_entry - 1].lower > rounded) {
                        entries[at_entry] = entries[at_entry - 1];
                        --at_entry;
                    }
                    entries[at_entry] = (sdf_cull_entry){rounded, k};
                }
            }
    c->first[total] = used;
    c->entries = osc_calloc(used > 0 ? (size_t)used : 1, sizeof *c->entries);
    if (!c->entries) {
        sdf_cull_destroy(c);
        osc_free(values);
        osc_free(entries);
        return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    memcpy(c->entries, entries, (size_t)used * sizeof *entries);
    osc_free(values);
    osc_free(entries);
    sdf->cull = c;
    sdf_cull_pack_lanes(sdf);
    return OSC_OK;
}
