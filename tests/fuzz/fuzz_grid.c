// fuzz_grid.c: libFuzzer target of the spline-grid loader (osc_grid_load_memory, docs/grid.md
// "File format"); built and run by tests/fuzz_mesh.sh with the mesh importers' targets. Each input is
// loaded twice: as it is, where the checksum turns away almost every mutation, and with its last 8
// bytes replaced by the FNV-1a hash of the rest, so that mutations reach the checks behind the
// checksum (header values, sizes, non-finite coefficients, negative bound radii). Beyond the
// sanitizers it aborts when an outcome breaks the contract: a failure that is not OSC_ERR_PARSE (or
// OSC_ERR_NO_MEMORY), that leaves *out set or whose message lacks the byte offset; a loaded grid is
// evaluated (value, gradient, normal field, lower bound) inside and outside its region.

#include "osculate/grid.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_REQUIRE(condition)                                                                                        \
    do {                                                                                                               \
        if (!(condition)) abort();                                                                                     \
    } while (0)

static void fuzz_grid_load(const uint8_t* data, size_t size) {
    static char sentinel;
    osc_grid* grid = (osc_grid*)&sentinel; // must be overwritten with NULL on failure
    osc_status status = osc_grid_load_memory(data, size, &grid);
    if (status != OSC_OK) {
        FUZZ_REQUIRE(status == OSC_ERR_PARSE || status == OSC_ERR_NO_MEMORY);
        FUZZ_REQUIRE(grid == NULL);
        FUZZ_REQUIRE(status != OSC_ERR_PARSE || strstr(osc_last_error(), "byte") != NULL ||
                     strstr(osc_last_error(), "bytes") != NULL);
        return;
    }
    FUZZ_REQUIRE(grid != NULL);
    osc_vec3 lo, hi;
    osc_grid_bounds(grid, &lo, &hi);
    for (int k = 0; k < 7; ++k) {
        double s = -0.5 + 0.333 * k; // inside and beyond both ends
        osc_vec3 p = osc_v3(lo.x + s * (hi.x - lo.x), lo.y + s * (hi.y - lo.y), lo.z + s * (hi.z - lo.z));
        osc_vec3 gradient;
        osc_mat3 hessian, jacobian;
        (void)osc_grid_eval(grid, p, &gradient, &hessian);
        (void)osc_grid_eval_normal(grid, p, &jacobian);
        (void)osc_grid_lower_bound(grid, p, NULL, NULL);
    }
    osc_grid_destroy(grid);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz_grid_load(data, size);
    if (size < 8) return 0;
    uint8_t* fixed = malloc(size);
    FUZZ_REQUIRE(fixed != NULL);
    memcpy(fixed, data, size);
    uint64_t hash = 14695981039346656037ull; // FNV-1a 64, as the writer computes it
    for (size_t i = 0; i + 8 < size; ++i) hash = (hash ^ fixed[i]) * 1099511628211ull;
    memcpy(fixed + size - 8, &hash, 8);
    fuzz_grid_load(fixed, size);
    free(fixed);
    return 0;
}
