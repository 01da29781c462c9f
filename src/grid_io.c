// grid_io.c: saving and loading spline SDFs (docs/grid.md, "File format").
//
//   offset  size  field
//   0       8     magic "OSCGRID\0"
//   8       4     version (1), uint32
//   12      4     byte-order mark 0x01020304, uint32 (files are read on machines of the same order)
//   16      12    cells n_x, n_y, n_z, int32, each in [1, 1024]
//   28      4     fields per coefficient (4), uint32
//   32      8     cell size h > 0, double
//   40      24    origin, 3 doubles
//   64      8     normal epsilon, double
//   72      8     Lipschitz bound, double
//   80      8     boundary minimum, double
//   88      8     Lipschitz bound over the cells that reach phi > 0, double
//   96      ...   coefficients (n_x + 3)(n_y + 3)(n_z + 3) x 4 doubles, then the voxel values and
//                 the voxel radii, n_x n_y n_z doubles each
//   end-8   8     FNV-1a 64-bit hash of every preceding byte, uint64

#include "grid_internal.h"

#include <stdio.h>
#include <stdint.h>
#include <string.h>

#define GRID_MAGIC "OSCGRID"
#define GRID_VERSION 1u
#define GRID_BYTE_ORDER 0x01020304u
#define GRID_HEADER_SIZE 96u

static uint64_t fnv1a(const unsigned char* data, size_t size) {
    uint64_t hash = 14695981039346656037ull;
    for (size_t i = 0; i < size; ++i) {
        hash ^= data[i];
        hash *= 1099511628211ull;
    }
    return hash;
}

// bytes of the whole file for these cells, or 0 when it would overflow
static size_t grid_file_size(const int cells[3]) {
    size_t coefficients = (size_t)(cells[0] + 3) * (size_t)(cells[1] + 3) * (size_t)(cells[2] + 3);
    size_t voxels = (size_t)cells[0] * (size_t)cells[1] * (size_t)cells[2];
    if (coefficients > (SIZE_MAX - GRID_HEADER_SIZE - 8) / (8 * OSC_GRID_FIELDS + 16)) return 0;
    return GRID_HEADER_SIZE + coefficients * OSC_GRID_FIELDS * sizeof(double) + 2 * voxels * sizeof(double) + 8;
}

static void put(unsigned char** cursor, const void* value, size_t size) {
    memcpy(*cursor, value, size);
    *cursor += size;
}

osc_status osc_grid_save(const osc_grid* grid, const char* path) {
    const char* function = "osc_grid_save";
    if (!grid || !path) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", function, grid ? "path" : "grid");
    size_t size = grid_file_size(grid->cells);
    unsigned char* buffer = osc_alloc(size);
    if (!buffer) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    unsigned char* cursor = buffer;
    uint32_t version = GRID_VERSION, order = GRID_BYTE_ORDER, fields = OSC_GRID_FIELDS;
    int32_t cells[3] = {grid->cells[0], grid->cells[1], grid->cells[2]};
    double origin[3] = {grid->origin.x, grid->origin.y, grid->origin.z};
    put(&cursor, GRID_MAGIC, 8); // includes the terminating zero
    put(&cursor, &version, 4);
    put(&cursor, &order, 4);
    put(&cursor, cells, 12);
    put(&cursor, &fields, 4);
    put(&cursor, &grid->cell, 8);
    put(&cursor, origin, 24);
    put(&cursor, &grid->normal_epsilon, 8);
    put(&cursor, &grid->lipschitz, 8);
    put(&cursor, &grid->boundary_min, 8);
    put(&cursor, &grid->lipschitz_outside, 8);
    put(&cursor, grid->coefficients, grid_coefficient_count(grid) * OSC_GRID_FIELDS * sizeof(double));
    put(&cursor, grid->voxel_value, grid_cell_count(grid) * sizeof(double));
    put(&cursor, grid->voxel_radius, grid_cell_count(grid) * sizeof(double));
    uint64_t hash = fnv1a(buffer, (size_t)(cursor - buffer));
    put(&cursor, &hash, 8);
    FILE* file = fopen(path, "wb");
    osc_status status = OSC_OK;
    if (!file) {
        status = osc_fail(OSC_ERR_IO, "%s: cannot open '%s' for writing", function, path);
    } else {
        size_t written = fwrite(buffer, 1, size, file);
        if (fclose(file) != 0 || written != size)
            status = osc_fail(OSC_ERR_IO, "%s: cannot write '%s'", function, path);
    }
    osc_free(buffer);
    return status;
}

static void take(const unsigned char** cursor, void* value, size_t size) {
    memcpy(value, *cursor, size);
    *cursor += size;
}

// parses a grid file held in memory; `where` begins every message (the function, and the file)
static osc_status parse_grid(const char* where, const unsigned char* bytes, size_t size, osc_grid** out) {
    if (size < GRID_HEADER_SIZE + 8)
        return osc_fail(OSC_ERR_PARSE, "%s: %zu bytes is shorter than the %u-byte header and checksum", where, size,
                        GRID_HEADER_SIZE + 8);
    if (memcmp(bytes, GRID_MAGIC, 8) != 0)
        return osc_fail(OSC_ERR_PARSE, "%s: byte 0: not an osculate grid file (bad magic)", where);
    const unsigned char* cursor = bytes + 8;
    uint32_t version, order, fields;
    int32_t cells[3];
    double cell, origin[3], normal_epsilon, lipschitz, boundary_min, lipschitz_outside;
    take(&cursor, &version, 4);
    take(&cursor, &order, 4);
    take(&cursor, cells, 12);
    take(&cursor, &fields, 4);
    take(&cursor, &cell, 8);
    take(&cursor, origin, 24);
    take(&cursor, &normal_epsilon, 8);
    take(&cursor, &lipschitz, 8);
    take(&cursor, &boundary_min, 8);
    take(&cursor, &lipschitz_outside, 8);
    if (version != GRID_VERSION)
        return osc_fail(OSC_ERR_PARSE, "%s: byte 8: version %u is not supported (expected %u)", where, version,
                        GRID_VERSION);
    if (order != GRID_BYTE_ORDER)
        return osc_fail(OSC_ERR_PARSE, "%s: byte 12: written on a machine of another byte order", where);
    for (int a = 0; a < 3; ++a)
        if (cells[a] < 1 || cells[a] > OSC_GRID_MAX_CELLS)
            return osc_fail(OSC_ERR_PARSE, "%s: byte %d: cell count %d out of [1, %d]", where, 16 + 4 * a,
                            (int)cells[a], OSC_GRID_MAX_CELLS);
    if (fields != OSC_GRID_FIELDS)
        return osc_fail(OSC_ERR_PARSE, "%s: byte 28: %u fields per coefficient (expected %d)", where, fields,
                        OSC_GRID_FIELDS);
    if (!(cell > 0.0) || !isfinite(cell) || !isfinite(origin[0]) || !isfinite(origin[1]) || !isfinite(origin[2]) ||
        !isfinite(lipschitz) || !(lipschitz >= 0.0) || isnan(boundary_min) || !(lipschitz_outside >= 0.0) ||
        !(lipschitz_outside <= lipschitz))
        return osc_fail(OSC_ERR_PARSE, "%s: byte 32: cell size, origin or bounds are not valid numbers", where);
    for (int a = 0; a < 3; ++a) // the region, like every grid's, within OSC_MESH_MAX_COORDINATE
        if (!(fabs(origin[a]) <= OSC_MESH_MAX_COORDINATE && cell <= OSC_MESH_MAX_COORDINATE &&
              fabs(origin[a] + cells[a] * cell) <= OSC_MESH_MAX_COORDINATE))
            return osc_fail(OSC_ERR_PARSE,
                            "%s: byte 32: the region (origin %g, %d cells of %g along axis %d) "
                            "exceeds OSC_MESH_MAX_COORDINATE (%g)",
                            where, origin[a], (int)cells[a], cell, a, OSC_MESH_MAX_COORDINATE);
    int int_cells[3] = {cells[0], cells[1], cells[2]};
    size_t expected = grid_file_size(int_cells);
    if (size != expected)
        return osc_fail(OSC_ERR_PARSE, "%s: the file has %zu bytes, its header implies %zu (%s)", where, size, expected,
                        size < expected ? "truncated" : "trailing data");
    uint64_t stored;
    memcpy(&stored, bytes + size - 8, 8);
    if (fnv1a(bytes, size - 8) != stored)
        return osc_fail(OSC_ERR_PARSE, "%s: byte %zu: checksum mismatch (the file is corrupted)", where, size - 8);
    osc_grid* grid = grid_allocate(int_cells, cell, osc_v3(origin[0], origin[1], origin[2]));
    if (!grid) return OSC_ERR_NO_MEMORY;
    grid->normal_epsilon = normal_epsilon;
    grid->lipschitz = lipschitz;
    grid->boundary_min = boundary_min;
    grid->lipschitz_outside = lipschitz_outside;
    take(&cursor, grid->coefficients, grid_coefficient_count(grid) * OSC_GRID_FIELDS * sizeof(double));
    take(&cursor, grid->voxel_value, grid_cell_count(grid) * sizeof(double));
    take(&cursor, grid->voxel_radius, grid_cell_count(grid) * sizeof(double));
    // what no writer produces and evaluation or the broad phase must not see: non-finite
    // coefficients or voxel values, negative or non-finite bound radii
    size_t coefficients = grid_coefficient_count(grid) * OSC_GRID_FIELDS, voxels = grid_cell_count(grid);
    size_t offset = GRID_HEADER_SIZE, bad = SIZE_MAX;
    for (size_t i = 0; i < coefficients && bad == SIZE_MAX; ++i)
        if (!isfinite(grid->coefficients[i])) bad = offset + 8 * i;
    offset += 8 * coefficients;
    for (size_t i = 0; i < voxels && bad == SIZE_MAX; ++i)
        if (!isfinite(grid->voxel_value[i])) bad = offset + 8 * i;
    offset += 8 * voxels;
    for (size_t i = 0; i < voxels && bad == SIZE_MAX; ++i)
        if (!(grid->voxel_radius[i] >= 0.0) || !isfinite(grid->voxel_radius[i])) bad = offset + 8 * i;
    if (bad != SIZE_MAX) {
        grid_free(grid);
        return osc_fail(OSC_ERR_PARSE,
                        "%s: byte %zu: a coefficient or voxel value that is not finite, or a "
                        "negative bound radius",
                        where, bad);
    }
    grid_copy_distance(grid);
    *out = grid;
    return OSC_OK;
}

osc_status osc_grid_load_memory(const void* data, size_t size, osc_grid** out) {
    const char* function = "osc_grid_load_memory";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!data && size) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: data is NULL with size %zu", function, size);
    osc_status status = parse_grid(function, data, size, out);
    return status == OSC_ERR_NO_MEMORY ? osc_fail_in(function, status) : status;
}

osc_status osc_grid_load(const char* path, osc_grid** out) {
    const char* function = "osc_grid_load";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!path) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: path is NULL", function);
    unsigned char* data = NULL;
    size_t size = 0;
    osc_status status = osc_read_file(function, path, &data, &size);
    if (status) return status;
    char where[256];
    snprintf(where, sizeof where, "%s: '%.200s'", function, path);
    status = parse_grid(where, data, size, out);
    osc_free(data);
    return status == OSC_ERR_NO_MEMORY ? osc_fail_in(function, status) : status;
}
