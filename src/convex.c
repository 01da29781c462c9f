// convex.c: the DCOL primitives (Tracy et al. 2023 §III-B): validation, the conic rows of
// eqs. (10)-(28), vertices, support points and gauges. The conic program itself is in dcol.c.

#include "convex_internal.h"

#include <string.h>

enum {
    GAUGE_BISECTIONS = 200 // polygon gauge: bisection steps, enough to reach double precision
};

// ---------------------------------------------------------------------------------------------
// allocation: one block holds the struct, its rows, normals, offsets and vertices

static osc_convex* convex_alloc(osc_convex_kind kind, int orthant_rows, int cone_dim, int face_count, int normal_width,
                                int vertex_count) {
    int row_count = orthant_rows + cone_dim;
    size_t neighbour_words = kind == OSC_CONVEX_POLYTOPE ? (size_t)vertex_count * CONVEX_NEIGHBOUR_WORDS : 0;
    size_t size = sizeof(osc_convex) +
                  sizeof(double) * ((size_t)row_count * CONVEX_COLUMNS + (size_t)face_count * (normal_width + 2) +
                                    (size_t)vertex_count * 3) +
                  sizeof(uint64_t) * neighbour_words;
    osc_convex* shape = osc_calloc(1, size);
    if (!shape) return NULL;
    double* cursor = (double*)(shape + 1);
    shape->kind = kind;
    // the conic frame is the body frame unless the constructor says otherwise
    for (int k = 0; k < 3; ++k) shape->conic_axes[k] = (signed char)(k + 1);
    shape->orthant_rows = orthant_rows;
    shape->cone_dim = cone_dim;
    shape->face_count = face_count;
    shape->vertex_count = vertex_count;
    shape->rows = (double(*)[CONVEX_COLUMNS])cursor;
    cursor += (size_t)row_count * CONVEX_COLUMNS;
    shape->normals = cursor;
    cursor += (size_t)face_count * normal_width;
    shape->offsets = cursor;
    cursor += face_count;
    shape->face_scales = cursor;
    cursor += face_count;
    shape->vertices = cursor;
    cursor += (size_t)vertex_count * 3;
    shape->face_neighbours = neighbour_words ? (uint64_t(*)[CONVEX_NEIGHBOUR_WORDS])cursor : NULL;
    return shape;
}

void osc_convex_destroy(osc_convex* shape) { osc_free(shape); }

static osc_status check_out(const char* function, osc_convex** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    return OSC_OK;
}

// whether a length lies in [OSC_CONVEX_MIN_LENGTH, OSC_CONVEX_MAX_LENGTH] (false for NaN)
static bool length_in_range(double value) { return value >= OSC_CONVEX_MIN_LENGTH && value <= OSC_CONVEX_MAX_LENGTH; }

// a size given by the caller: positive, finite and in range
static osc_status check_size(const char* function, const char* name, double value) {
    if (!(value > 0.0) || !isfinite(value))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s must be positive and finite (got %g)", function, name, value);
    if (!length_in_range(value))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is %g; a length must lie in [%g, %g]", function, name, value,
                        OSC_CONVEX_MIN_LENGTH, OSC_CONVEX_MAX_LENGTH);
    return OSC_OK;
}

// a length the shape derives from its parameters (a bounding radius, a semi-axis), in range
static osc_status check_derived_length(const char* function, const char* name, double value) {
    if (length_in_range(value)) return OSC_OK;
    return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the %s is %g; a length must lie in [%g, %g]", function, name, value,
                    OSC_CONVEX_MIN_LENGTH, OSC_CONVEX_MAX_LENGTH);
}

// hands a built shape out once its bounding and inner radii are in range (else releases it)
static osc_status finish(const char* function, osc_convex* shape, osc_convex** out) {
    osc_status status = check_derived_length(function, "bounding radius", shape->bounding_radius);
    if (status == OSC_OK) status = check_derived_length(function, "inner radius", shape->inner_radius);
    if (status != OSC_OK) {
        osc_convex_destroy(shape);
        return status;
    }
    *out = shape;
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// halfspace sets: normalisation, boundedness and vertex enumeration

// normalises `count` rows of width `width` (2 or 3) and their offsets into `normals`/`offsets`;
// fails naming the first zero, non-finite or non-positive row
static osc_status normalise_halfspaces(const char* function, const char* what, const double* normals_in,
                                       const double* offsets_in, int count, int width, double* normals, double* offsets,
                                       double* scales) {
    for (int i = 0; i < count; ++i) {
        const double* row = normals_in + (size_t)i * width;
        double length = 0.0;
        for (int k = 0; k < width; ++k) {
            if (!isfinite(row[k]))
                return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s normal %d is not finite", function, what, i);
            length = hypot(length, row[k]);
        }
        if (!(length > 0.0) || !isfinite(length))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s normal %d is zero", function, what, i);
        double offset = offsets_in[i] / length;
        if (!isfinite(offsets_in[i]) || !(offset > 0.0))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: %s offset %d is %g; the origin must be strictly inside (b > 0)", function, what, i,
                            offsets_in[i]);
        if (!length_in_range(offset))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: %s offset %d over its normal's length is %g; a length must lie in "
                            "[%g, %g]",
                            function, what, i, offset, OSC_CONVEX_MIN_LENGTH, OSC_CONVEX_MAX_LENGTH);
        for (int k = 0; k < width; ++k) normals[(size_t)i * width + k] = row[k] / length;
        offsets[i] = offset;
        scales[i] = length;
    }
    return OSC_OK;
}

// true when { y : A y <= 0 } (A: unit rows of width 3) holds the direction d
static bool is_recession_direction(const double* normals, int count, const double d[3]) {
    for (int k = 0; k < count; ++k) {
        const double* a = normals + 3 * k;
        if (a[0] * d[0] + a[1] * d[1] + a[2] * d[2] > 1e-12) return false;
    }
    return true;
}

// a polyhedron { A y <= b } with unit rows is bounded iff its recession cone { A d <= 0 } is {0};
// the cone is pointed once A has rank 3, and a pointed non-zero cone in R^3 has an extreme ray
// along A_i x A_j for two of its rows, so testing both signs of every such cross product decides
static bool polytope_is_bounded(const double* normals, int count) {
    bool rank3 = false;
    for (int i = 0; i < count; ++i) {
        for (int j = i + 1; j < count; ++j) {
            osc_vec3 a = osc_v3(normals[3 * i], normals[3 * i + 1], normals[3 * i + 2]);
            osc_vec3 b = osc_v3(normals[3 * j], normals[3 * j + 1], normals[3 * j + 2]);
            osc_vec3 d = osc_cross(a, b);
            double length = osc_length(d);
            if (length < 1e-9) continue;
            d = osc_scale(d, 1.0 / length);
            for (int k = 0; k < count && !rank3; ++k)
                if (fabs(normals[3 * k] * d.x + normals[3 * k + 1] * d.y + normals[3 * k + 2] * d.z) > 1e-9)
                    rank3 = true;
            double plus[3] = {d.x, d.y, d.z}, minus[3] = {-d.x, -d.y, -d.z};
            if (is_recession_direction(normals, count, plus) || is_recession_direction(normals, count, minus))
                return false;
        }
    }
    return rank3;
}

// the 2D version: rows of width 2; a pointed cone in R^2 has its extreme rays along the rows'
// perpendiculars
static bool polygon_is_bounded(const double* normals, int count) {
    bool rank2 = false;
    for (int i = 0; i < count; ++i) {
        double d[2] = {-normals[2 * i + 1], normals[2 * i]};
        for (int sign = -1; sign <= 1; sign += 2) {
            bool recedes = true;
            for (int k = 0; k < count; ++k) {
                double dot = sign * (normals[2 * k] * d[0] + normals[2 * k + 1] * d[1]);
                if (fabs(dot) > 1e-9) rank2 = true;
                if (dot > 1e-12) recedes = false;
            }
            if (recedes) return false;
        }
    }
    return rank2;
}

// appends y to `vertices` unless an equal point (to 1e-9 of the shape's size) is there already
static int add_vertex(double* vertices, int count, const double y[3], double size) {
    for (int k = 0; k < count; ++k) {
        const double* v = vertices + 3 * k;
        if (fabs(v[0] - y[0]) + fabs(v[1] - y[1]) + fabs(v[2] - y[2]) <= 1e-9 * size) return count;
    }
    memcpy(vertices + 3 * count, y, 3 * sizeof(double));
    return count + 1;
}

int convex_polytope_vertices(const double* normals, const double* offsets, int count, double* vertices, int capacity) {
    double size = 0.0;
    for (int i = 0; i < count; ++i) size = fmax(size, offsets[i]);
    int found = 0;
    for (int i = 0; i < count; ++i)
        for (int j = i + 1; j < count; ++j)
            for (int k = j + 1; k < count; ++k) {
                osc_mat3 a = {{{normals[3 * i], normals[3 * i + 1], normals[3 * i + 2]},
                               {normals[3 * j], normals[3 * j + 1], normals[3 * j + 2]},
                               {normals[3 * k], normals[3 * k + 1], normals[3 * k + 2]}}};
                double det = osc_mat3_determinant(a);
                if (fabs(det) < 1e-10) continue;
                // Cramer's rule on a y = (b_i, b_j, b_k)
                osc_vec3 c0 = osc_mat3_column(a, 0), c1 = osc_mat3_column(a, 1), c2 = osc_mat3_column(a, 2),
                         rhs = osc_v3(offsets[i], offsets[j], offsets[k]);
                double y[3] = {osc_dot(rhs, osc_cross(c1, c2)) / det, osc_dot(c0, osc_cross(rhs, c2)) / det,
                               osc_dot(c0, osc_cross(c1, rhs)) / det};
                bool inside = true;
                for (int f = 0; f < count && inside; ++f)
                    inside = normals[3 * f] * y[0] + normals[3 * f + 1] * y[1] + normals[3 * f + 2] * y[2] <=
                             offsets[f] + 1e-9 * size;
                if (inside && found < capacity) found = add_vertex(vertices, found, y, size);
            }
    return found;
}

// each vertex's face neighbours (dcol_support.c): the vertices on a face through it, the face of
// unit row i holding the vertices within the enumeration's 1e-9 of the size of its plane (a vertex
// near a face counted on it only widens the set)
static void polytope_face_neighbours(osc_convex* shape) {
    double size = 0.0;
    for (int i = 0; i < shape->face_count; ++i) size = fmax(size, shape->offsets[i]);
    int vertex_count = shape->vertex_count;
    memset(shape->face_neighbours, 0, sizeof(uint64_t) * CONVEX_NEIGHBOUR_WORDS * (size_t)vertex_count);
    for (int i = 0; i < shape->face_count; ++i) {
        const double* a = shape->normals + 3 * i;
        uint64_t on_face[CONVEX_NEIGHBOUR_WORDS] = {0};
        for (int j = 0; j < vertex_count; ++j) {
            const double* v = shape->vertices + 3 * j;
            if (fabs(a[0] * v[0] + a[1] * v[1] + a[2] * v[2] - shape->offsets[i]) <= 1e-9 * size)
                on_face[j / 64] |= (uint64_t)1 << (j % 64);
        }
        for (int j = 0; j < vertex_count; ++j)
            if (on_face[j / 64] >> (j % 64) & 1u)
                for (int w = 0; w < CONVEX_NEIGHBOUR_WORDS; ++w) shape->face_neighbours[j][w] |= on_face[w];
    }
    for (int j = 0; j < vertex_count; ++j) shape->face_neighbours[j][j / 64] &= ~((uint64_t)1 << (j % 64));
}

// the corners of a bounded polygon { C u <= d } (unit rows), in counter-clockwise order
static int polygon_vertices(const double* normals, const double* offsets, int count, double* vertices, int capacity) {
    double size = 0.0;
    for (int i = 0; i < count; ++i) size = fmax(size, offsets[i]);
    int found = 0;
    for (int i = 0; i < count; ++i)
        for (int j = i + 1; j < count; ++j) {
            const double *a = normals + 2 * i, *b = normals + 2 * j;
            double det = a[0] * b[1] - a[1] * b[0];
            if (fabs(det) < 1e-10) continue;
            double y[3] = {(offsets[i] * b[1] - a[1] * offsets[j]) / det, (a[0] * offsets[j] - offsets[i] * b[0]) / det,
                           0.0};
            bool inside = true;
            for (int f = 0; f < count && inside; ++f)
                inside = normals[2 * f] * y[0] + normals[2 * f + 1] * y[1] <= offsets[f] + 1e-9 * size;
            if (inside && found < capacity) found = add_vertex(vertices, found, y, size);
        }
    // insertion sort by angle about the origin (strictly inside)
    for (int i = 1; i < found; ++i) {
        double v[3];
        memcpy(v, vertices + 3 * i, sizeof v);
        double angle = atan2(v[1], v[0]);
        int k = i;
        while (k > 0 && atan2(vertices[3 * (k - 1) + 1], vertices[3 * (k - 1)]) > angle) {
            memcpy(vertices + 3 * k, vertices + 3 * (k - 1), sizeof v);
            --k;
        }
        memcpy(vertices + 3 * k, v, sizeof v);
    }
    return found;
}

static double max_vertex_norm(const osc_convex* shape) {
    double radius = 0.0;
    for (int i = 0; i < shape->vertex_count; ++i) {
        const double* v = shape->vertices + 3 * i;
        radius = fmax(radius, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    }
    return radius;
}

// ---------------------------------------------------------------------------------------------
// constructors; each writes the conic-frame rows of its Tracy et al. 2023 equations (docs/dcol.md §2)

static void set_row(osc_convex* shape, int row, double y0, double y1, double y2, double alpha, double slack0,
                    double slack1) {
    double values[CONVEX_COLUMNS] = {y0, y1, y2, alpha, slack0, slack1};
    memcpy(shape->rows[row], values, sizeof values);
    unsigned used = y0 != 0.0 || y1 != 0.0 || y2 != 0.0 ? 7u : 0u;
    for (int c = CONVEX_COLUMN_ALPHA; c < CONVEX_COLUMNS; ++c) used |= (unsigned)(values[c] != 0.0) << c;
    shape->row_columns[row < shape->orthant_rows ? 0 : 1] |= used;
}

osc_status convex_make_polytope(const char* function, const double* normals, const double* offsets, int count,
                                osc_convex** out) {
    if (count < 4 || count > OSC_CONVEX_MAX_FACES)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count is %d; a polytope needs 4..%d halfspaces", function, count,
                        OSC_CONVEX_MAX_FACES);
    if (!normals || !offsets)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", function, normals ? "offsets" : "normals");
    double unit_normals[OSC_CONVEX_MAX_FACES * 3], unit_offsets[OSC_CONVEX_MAX_FACES];
    double scales[OSC_CONVEX_MAX_FACES];
    osc_status status =
        normalise_halfspaces(function, "halfspace", normals, offsets, count, 3, unit_normals, unit_offsets, scales);
    if (status != OSC_OK) return status;
    if (!polytope_is_bounded(unit_normals, count))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the %d halfspaces do not bound a polytope", function, count);
    // a bounded polytope with m faces has at most 2m - 4 vertices
    int capacity = 2 * count;
    double vertices[2 * OSC_CONVEX_MAX_FACES * 3];
    int vertex_count = convex_polytope_vertices(unit_normals, unit_offsets, count, vertices, capacity);
    if (vertex_count < 4)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the halfspaces bound a flat polytope", function);
    osc_convex* shape = convex_alloc(OSC_CONVEX_POLYTOPE, count, 0, count, 3, vertex_count);
    if (!shape) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    memcpy(shape->normals, unit_normals, sizeof(double) * 3 * count);
    memcpy(shape->offsets, unit_offsets, sizeof(double) * count);
    memcpy(shape->face_scales, scales, sizeof(double) * count);
    memcpy(shape->vertices, vertices, sizeof(double) * 3 * vertex_count);
    polytope_face_neighbours(shape);
    // eq. (10): A y <= alpha b
    for (int i = 0; i < count; ++i)
        set_row(shape, i, unit_normals[3 * i], unit_normals[3 * i + 1], unit_normals[3 * i + 2], -unit_offsets[i], 0.0,
                0.0);
    shape->bounding_radius = max_vertex_norm(shape);
    shape->inner_radius = INFINITY;
    for (int i = 0; i < count; ++i) shape->inner_radius = fmin(shape->inner_radius, unit_offsets[i]);
    return finish(function, shape, out);
}

osc_status osc_convex_create_polytope(const double* normals, const double* offsets, int count, osc_convex** out) {
    osc_status status = check_out(__func__, out);
    if (status != OSC_OK) return status;
    return convex_make_polytope(__func__, normals, offsets, count, out);
}

osc_status osc_convex_create_box(osc_vec3 half_extents, osc_convex** out) {
    osc_status status = check_out(__func__, out);
    const char* names[3] = {"half_extents.x", "half_extents.y", "half_extents.z"};
    for (int axis = 0; axis < 3 && status == OSC_OK; ++axis)
        status = check_size(__func__, names[axis], osc_vec3_get(half_extents, axis));
    if (status != OSC_OK) return status;
    double normals[18] = {0}, offsets[6];
    for (int axis = 0; axis < 3; ++axis) {
        normals[3 * (2 * axis) + axis] = 1.0;
        normals[3 * (2 * axis + 1) + axis] = -1.0;
        offsets[2 * axis] = offsets[2 * axis + 1] = osc_vec3_get(half_extents, axis);
    }
    return convex_make_polytope(__func__, normals, offsets, 6, out);
}

// the capsule's and cylinder's conic frame: x along the body's z (then y, z along the body's x, y)
static void set_axis_along_z(osc_convex* shape) {
    shape->conic_axes[0] = 3;
    shape->conic_axes[1] = 1;
    shape->conic_axes[2] = 2;
}

osc_status osc_convex_create_capsule(double radius, double half_length, osc_convex** out) {
    osc_status status = check_out(__func__, out);
    if (status == OSC_OK) status = check_size(__func__, "radius", radius);
    if (status == OSC_OK) status = check_size(__func__, "half_length", half_length);
    if (status != OSC_OK) return status;
    osc_convex* shape = convex_alloc(OSC_CONVEX_CAPSULE, 2, 4, 0, 0, 0);
    if (!shape) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    set_axis_along_z(shape);
    shape->radius = radius;
    shape->length = 2.0 * half_length;
    shape->slack_count = 1;
    // eq. (13): -alpha L/2 <= gamma <= alpha L/2
    set_row(shape, 0, 0, 0, 0, -half_length, 1.0, 0.0);
    set_row(shape, 1, 0, 0, 0, -half_length, -1.0, 0.0);
    // eq. (12): (alpha R, y - gamma e_x) in Q4
    set_row(shape, 2, 0, 0, 0, -radius, 0.0, 0.0);
    set_row(shape, 3, -1, 0, 0, 0, 1.0, 0.0);
    set_row(shape, 4, 0, -1, 0, 0, 0.0, 0.0);
    set_row(shape, 5, 0, 0, -1, 0, 0.0, 0.0);
    shape->bounding_radius = half_length + radius;
    shape->inner_radius = radius;
    return finish(__func__, shape, out);
}

osc_status osc_convex_create_cylinder(double radius, double half_length, osc_convex** out) {
    osc_status status = check_out(__func__, out);
    if (status == OSC_OK) status = check_size(__func__, "radius", radius);
    if (status == OSC_OK) status = check_size(__func__, "half_length", half_length);
    if (status != OSC_OK) return status;
    osc_convex* shape = convex_alloc(OSC_CONVEX_CYLINDER, 2, 3, 0, 0, 0);
    if (!shape) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    set_axis_along_z(shape);
    shape->radius = radius;
    shape->length = 2.0 * half_length;
    // eqs. (16)-(17): |y_x| <= alpha L / 2
    set_row(shape, 0, 1, 0, 0, -half_length, 0, 0);
    set_row(shape, 1, -1, 0, 0, -half_length, 0, 0);
    // eq. (12) with gamma = y_x, which eq. (13) always admits once (16)-(17) hold: (alpha R, y_y,
    // y_z) in Q3; the same set as the paper's with one variable fewer
    set_row(shape, 2, 0, 0, 0, -radius, 0, 0);
    set_row(shape, 3, 0, -1, 0, 0, 0, 0);
    set_row(shape, 4, 0, 0, -1, 0, 0, 0);
    shape->bounding_radius = hypot(half_length, radius);
    shape->inner_radius = fmin(radius, half_length);
    return finish(__func__, shape, out);
}

osc_status osc_convex_create_cone(double radius, double half_length, osc_convex** out) {
    osc_status status = check_out(__func__, out);
    if (status == OSC_OK) status = check_size(__func__, "radius", radius);
    if (status == OSC_OK) status = check_size(__func__, "half_length", half_length);
    if (status != OSC_OK) return status;
    osc_convex* shape = convex_alloc(OSC_CONVEX_CONE, 1, 3, 0, 0, 0);
    if (!shape) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    // the paper's cone, apex at -3H/4 and base at H/4 along conic x, is the body's apex at +3H/4
    // and base at -H/4 along z: conic x is body -z (then y, z are body x, -y, a rotation)
    shape->conic_axes[0] = -3;
    shape->conic_axes[1] = 1;
    shape->conic_axes[2] = -2;
    double height = 2.0 * half_length, slope = radius / height;
    shape->radius = radius;
    shape->height = height;
    shape->slope = slope;
    // eq. (20): y_x <= alpha H / 4
    set_row(shape, 0, 1, 0, 0, -0.25 * height, 0, 0);
    // eq. (19): (tan(beta) (y_x + 3 alpha H / 4), y_y, y_z) in Q3, tan(beta) = R / H
    set_row(shape, 1, -slope, 0, 0, -0.75 * radius, 0, 0);
    set_row(shape, 2, 0, -1, 0, 0, 0, 0);
    set_row(shape, 3, 0, 0, -1, 0, 0, 0);
    shape->bounding_radius = fmax(0.75 * height, hypot(0.25 * height, radius));
    // the base H/4 below the origin; the side 3H/4 sin(beta) = 3H/4 R / sqrt(H^2 + R^2) from it
    shape->inner_radius = fmin(0.25 * height, 0.75 * height * (radius / hypot(height, radius)));
    return finish(__func__, shape, out);
}

osc_status osc_convex_create_ellipsoid(osc_vec3 radii, osc_convex** out) {
    osc_status status = check_out(__func__, out);
    const char* names[3] = {"radii.x", "radii.y", "radii.z"};
    for (int axis = 0; axis < 3 && status == OSC_OK; ++axis)
        status = check_size(__func__, names[axis], osc_vec3_get(radii, axis));
    if (status != OSC_OK) return status;
    osc_convex* shape = convex_alloc(OSC_CONVEX_ELLIPSOID, 0, 4, 0, 0, 0);
    if (!shape) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    double largest = 0.0, smallest = INFINITY;
    for (int i = 0; i < 3; ++i) {
        double r = osc_vec3_get(radii, i);
        shape->radii[i] = r;
        shape->U[i][i] = 1.0 / r;
        shape->U_inverse[i][i] = r;
        largest = fmax(largest, r);
        smallest = fmin(smallest, r);
    }
    shape->bounding_radius = largest;
    shape->inner_radius = smallest;
    // eq. (23): (alpha, U y) in Q4 with U = diag(1 / radii), multiplied by the largest semi-axis
    // rho so that every shape's rows measure lengths (the cone is unchanged by a positive factor)
    set_row(shape, 0, 0, 0, 0, -largest, 0, 0);
    for (int i = 0; i < 3; ++i) {
        double row[3] = {0.0, 0.0, 0.0};
        row[i] = -largest * shape->U[i][i];
        set_row(shape, 1 + i, row[0], row[1], row[2], 0, 0, 0);
    }
    return finish(__func__, shape, out);
}

osc_status osc_convex_create_sphere(double radius, osc_convex** out) {
    osc_status status = check_out(__func__, out);
    if (status == OSC_OK) status = check_size(__func__, "radius", radius);
    if (status != OSC_OK) return status;
    osc_convex* shape = convex_alloc(OSC_CONVEX_SPHERE, 0, 4, 0, 0, 0);
    if (!shape) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    shape->radius = radius;
    // eq. (23) with U = I / R, multiplied by R: (alpha R, y) in Q4
    set_row(shape, 0, 0, 0, 0, -radius, 0, 0);
    set_row(shape, 1, -1, 0, 0, 0, 0, 0);
    set_row(shape, 2, 0, -1, 0, 0, 0, 0);
    set_row(shape, 3, 0, 0, -1, 0, 0, 0);
    shape->bounding_radius = radius;
    shape->inner_radius = radius;
    return finish(__func__, shape, out);
}

osc_status osc_convex_create_polygon(const double* edge_normals, const double* edge_offsets, int count, double radius,
                                     osc_convex** out) {
    osc_status status = check_out(__func__, out);
    if (status == OSC_OK) status = check_size(__func__, "radius", radius);
    if (status != OSC_OK) return status;
    if (count < 3 || count > OSC_CONVEX_MAX_FACES)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count is %d; a polygon needs 3..%d edges", __func__, count,
                        OSC_CONVEX_MAX_FACES);
    if (!edge_normals || !edge_offsets)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", __func__,
                        edge_normals ? "edge_offsets" : "edge_normals");
    double unit_normals[OSC_CONVEX_MAX_FACES * 2], unit_offsets[OSC_CONVEX_MAX_FACES];
    double scales[OSC_CONVEX_MAX_FACES];
    status = normalise_halfspaces(__func__, "edge", edge_normals, edge_offsets, count, 2, unit_normals, unit_offsets,
                                  scales);
    if (status != OSC_OK) return status;
    if (!polygon_is_bounded(unit_normals, count))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the %d edges do not bound a polygon", __func__, count);
    double vertices[OSC_CONVEX_MAX_FACES * 3];
    int vertex_count = polygon_vertices(unit_normals, unit_offsets, count, vertices, OSC_CONVEX_MAX_FACES);
    if (vertex_count < 3)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the edges bound a degenerate polygon", __func__);
    osc_convex* shape = convex_alloc(OSC_CONVEX_POLYGON, count, 4, count, 2, vertex_count);
    if (!shape) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    memcpy(shape->normals, unit_normals, sizeof(double) * 2 * count);
    memcpy(shape->offsets, unit_offsets, sizeof(double) * count);
    memcpy(shape->face_scales, scales, sizeof(double) * count);
    memcpy(shape->vertices, vertices, sizeof(double) * 3 * vertex_count);
    shape->radius = radius;
    shape->slack_count = 2;
    // eq. (26): C (u, v) <= alpha d
    for (int i = 0; i < count; ++i)
        set_row(shape, i, 0, 0, 0, -unit_offsets[i], unit_normals[2 * i], unit_normals[2 * i + 1]);
    // eq. (25): (alpha R, y - (u, v, 0)) in Q4
    set_row(shape, count, 0, 0, 0, -radius, 0, 0);
    set_row(shape, count + 1, -1, 0, 0, 0, 1, 0);
    set_row(shape, count + 2, 0, -1, 0, 0, 0, 1);
    set_row(shape, count + 3, 0, 0, -1, 0, 0, 0);
    shape->bounding_radius = max_vertex_norm(shape) + radius;
    shape->inner_radius = radius;
    return finish(__func__, shape, out);
}

// ---------------------------------------------------------------------------------------------
// accessors

// a getter's NULL shape: the message names the getter; the caller returns its sentinel
static bool null_shape(const char* function, const osc_convex* shape) {
    if (shape) return false;
    osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: shape is NULL", function);
    return true;
}

osc_convex_kind osc_convex_get_kind(const osc_convex* shape) {
    return null_shape(__func__, shape) ? OSC_CONVEX_INVALID : shape->kind;
}

const char* osc_convex_kind_name(osc_convex_kind kind) {
    static const char* const names[OSC_CONVEX_KIND_COUNT] = {"polytope",  "capsule", "cylinder", "cone",
                                                             "ellipsoid", "sphere",  "polygon"};
    return (int)kind >= 0 && (int)kind < OSC_CONVEX_KIND_COUNT ? names[kind] : "unknown";
}

double osc_convex_bounding_radius(const osc_convex* shape) {
    return null_shape(__func__, shape) ? NAN : shape->bounding_radius;
}

int osc_convex_face_count(const osc_convex* shape) { return null_shape(__func__, shape) ? 0 : shape->face_count; }

int osc_convex_vertex_count(const osc_convex* shape) { return null_shape(__func__, shape) ? 0 : shape->vertex_count; }

int osc_convex_vertices(const osc_convex* shape, double* vertices, int capacity) {
    if (null_shape(__func__, shape)) return 0;
    int count = shape->vertex_count < capacity ? shape->vertex_count : capacity;
    if (vertices && count > 0) memcpy(vertices, shape->vertices, sizeof(double) * 3 * count);
    return shape->vertex_count;
}

// ---------------------------------------------------------------------------------------------
// support points

static osc_vec3 vertex_support(const osc_convex* shape, osc_vec3 d) {
    int best = 0;
    double best_dot = -INFINITY;
    for (int i = 0; i < shape->vertex_count; ++i) {
        const double* v = shape->vertices + 3 * i;
        double dot = v[0] * d.x + v[1] * d.y + v[2] * d.z;
        if (dot > best_dot) {
            best_dot = dot;
            best = i;
        }
    }
    const double* v = shape->vertices + 3 * best;
    return osc_v3(v[0], v[1], v[2]);
}

// the support point in the conic frame along the conic-frame direction d (non-zero)
static osc_vec3 conic_support(const osc_convex* shape, osc_vec3 d) {
    osc_vec3 unit = osc_normalize(d);
    osc_vec3 radial = osc_normalize(osc_v3(0.0, d.y, d.z));
    switch (shape->kind) {
        case OSC_CONVEX_POLYTOPE: return vertex_support(shape, d);
        case OSC_CONVEX_CAPSULE:
            return osc_add_scaled(osc_v3(d.x >= 0.0 ? 0.5 * shape->length : -0.5 * shape->length, 0, 0), unit,
                                  shape->radius);
        case OSC_CONVEX_CYLINDER:
            return osc_add_scaled(osc_v3(d.x >= 0.0 ? 0.5 * shape->length : -0.5 * shape->length, 0, 0), radial,
                                  shape->radius);
        case OSC_CONVEX_CONE: {
            osc_vec3 apex = osc_v3(-0.75 * shape->height, 0.0, 0.0);
            osc_vec3 rim = osc_add_scaled(osc_v3(0.25 * shape->height, 0.0, 0.0), radial, shape->radius);
            return osc_dot(apex, d) > osc_dot(rim, d) ? apex : rim;
        }
        case OSC_CONVEX_ELLIPSOID: {
            // argmax d . y subject to |U y| <= 1 is U^-1 w / |w| with w = U^-T d; U = diag(1 / radii)
            const double* r = shape->radii;
            osc_vec3 w = osc_v3(r[0] * d.x, r[1] * d.y, r[2] * d.z);
            return osc_scale(osc_v3(r[0] * w.x, r[1] * w.y, r[2] * w.z), 1.0 / osc_length(w));
        }
        case OSC_CONVEX_SPHERE: return osc_scale(unit, shape->radius);
        case OSC_CONVEX_POLYGON: return osc_add_scaled(vertex_support(shape, d), unit, shape->radius);
        case OSC_CONVEX_INVALID: break;
    }
    return osc_v3(0.0, 0.0, 0.0);
}

osc_vec3 osc_convex_support(const osc_convex* shape, osc_pose pose, osc_vec3 direction) {
    if (null_shape(__func__, shape)) return osc_v3(NAN, NAN, NAN);
    // NaN in, NaN out: a non-finite pose or direction has no support point
    if (!osc_vec3_is_finite(pose.p) || !osc_vec3_is_finite(direction) ||
        !(isfinite(pose.q.w) && isfinite(pose.q.x) && isfinite(pose.q.y) && isfinite(pose.q.z)))
        return osc_v3(NAN, NAN, NAN);
    osc_vec3 d = osc_quat_inv_rotate(pose.q, direction);
    if (!(osc_length_squared(d) > 0.0) || !osc_vec3_is_finite(d)) return pose.p;
    osc_vec3 conic = conic_support(shape, convex_body_to_conic(shape, d));
    return osc_pose_apply(pose, convex_conic_to_body(shape, conic));
}

// ---------------------------------------------------------------------------------------------
// gauges (the least scaling that contains a body point)

// least alpha with (y - (u, v, 0)) within alpha R of a point (u, v) of alpha times the polygon:
// feasibility is monotone in alpha, so bisection on [0, upper]
static double polygon_gauge(const osc_convex* shape, osc_vec3 y) {
    double radial = osc_length(y);
    if (radial == 0.0) return 0.0;
    double upper = radial / shape->radius, lower = 0.0;
    for (int step = 0; step < GAUGE_BISECTIONS && upper - lower > 1e-16 * upper; ++step) {
        double alpha = 0.5 * (lower + upper);
        // squared distance from (y_x, y_y) to the polygon scaled by alpha (corners in order)
        double px = y.x, py = y.y, best = INFINITY;
        bool inside = true;
        for (int i = 0; i < shape->face_count; ++i)
            if (shape->normals[2 * i] * px + shape->normals[2 * i + 1] * py > alpha * shape->offsets[i]) inside = false;
        if (inside) best = 0.0;
        for (int i = 0; i < shape->vertex_count && !inside; ++i) {
            const double* a = shape->vertices + 3 * i;
            const double* b = shape->vertices + 3 * ((i + 1) % shape->vertex_count);
            double ax = alpha * a[0], ay = alpha * a[1], ex = alpha * (b[0] - a[0]), ey = alpha * (b[1] - a[1]);
            double length2 = ex * ex + ey * ey;
            double t = length2 > 0.0 ? ((px - ax) * ex + (py - ay) * ey) / length2 : 0.0;
            t = fmin(1.0, fmax(0.0, t));
            double dx = px - ax - t * ex, dy = py - ay - t * ey;
            best = fmin(best, dx * dx + dy * dy);
        }
        if (best + y.z * y.z <= alpha * alpha * shape->radius * shape->radius)
            upper = alpha;
        else
            lower = alpha;
    }
    return upper;
}

// the gauge of the conic-frame point y
static double conic_gauge(const osc_convex* shape, osc_vec3 y) {
    double radial = hypot(y.y, y.z);
    switch (shape->kind) {
        case OSC_CONVEX_POLYTOPE: {
            double gauge = 0.0;
            for (int i = 0; i < shape->face_count; ++i) {
                const double* a = shape->normals + 3 * i;
                gauge = fmax(gauge, (a[0] * y.x + a[1] * y.y + a[2] * y.z) / shape->offsets[i]);
            }
            return gauge;
        }
        case OSC_CONVEX_CAPSULE: {
            double along = fabs(y.x), R = shape->radius, L = shape->length;
            if (radial * L >= 2.0 * along * R) return radial / R; // the side decides
            // an end cap: (along - alpha L/2)^2 + radial^2 = alpha^2 R^2, the root in [0, 2 along/L]
            double c = along * along + radial * radial;
            return 2.0 * c / (along * L + sqrt(4.0 * R * R * c - L * L * radial * radial));
        }
        case OSC_CONVEX_CYLINDER: return fmax(2.0 * fabs(y.x) / shape->length, radial / shape->radius);
        case OSC_CONVEX_CONE: {
            double H = shape->height;
            return fmax(0.0, fmax(4.0 * y.x / H, 4.0 * (radial / shape->slope - y.x) / (3.0 * H)));
        }
        case OSC_CONVEX_ELLIPSOID: {
            const double* r = shape->radii;
            return osc_length(osc_v3(y.x / r[0], y.y / r[1], y.z / r[2]));
        }
        case OSC_CONVEX_SPHERE: return osc_length(y) / shape->radius;
        case OSC_CONVEX_POLYGON: return polygon_gauge(shape, y);
        case OSC_CONVEX_INVALID: break;
    }
    return NAN;
}

double osc_convex_gauge(const osc_convex* shape, osc_vec3 y) {
    if (null_shape(__func__, shape)) return NAN;
    if (!osc_vec3_is_finite(y)) return NAN; // (fmax would drop a NaN term)
    return conic_gauge(shape, convex_body_to_conic(shape, y));
}
