// The layout of an osc_convex, shared by convex.c (creation, support, gauge), convex_hull.c and
// dcol*.c (the conic program). Never installed.

#ifndef OSC_CONVEX_INTERNAL_H
#define OSC_CONVEX_INTERNAL_H

#include "osculate/convex.h"

#include "base_internal.h"

enum {
    // columns of a body-frame conic row: the body point y (3), alpha, then the shape's slacks
    CONVEX_COLUMN_ALPHA = 3,
    CONVEX_COLUMN_SLACK = 4,
    CONVEX_COLUMNS = 6,
    CONVEX_MAX_SLACKS = 2, // capsule: gamma; polygon: the in-plane point (u, v)
    CONVEX_MAX_CONE_DIM = 4,
    // 64-bit words of a polytope vertex's neighbour mask: it has at most 2 OSC_CONVEX_MAX_FACES
    // vertices
    CONVEX_NEIGHBOUR_WORDS = (2 * OSC_CONVEX_MAX_FACES + 63) / 64
};

// One shape. Its constraints are Tracy et al. 2023 eqs. (10)-(28) written in its conic frame, where
// every one of them is homogeneous: with ybar = (y, alpha, slacks) and y = Q^T (x - r) the point in
// that frame (Q = convex_conic_rotation(shape, pose rotation)),
//     -G ybar in R+^orthant_rows x Q^cone_dim       (rows: the orthant rows first, then the cone)
// so in the world h = G_y Q^T r and G_x = G_y Q^T (docs/dcol.md §2).
//
// The conic frame is the body frame (convex.h) but for the capsule, cylinder and cone, whose rows
// are the paper's, written with their axis along x: the conic frame's x is the body's z (the
// cone's apex along conic -x, so for it conic x is body -z). conic_axes[k] = +-(1 + j) says that
// conic axis k is body axis j, negated for -; a permutation with signs of the body axes, so
// moving between the frames is exact in floating point.
struct osc_convex {
    osc_convex_kind kind;
    int face_count;   // polytope halfspaces or polygon edges
    int vertex_count; // polytope vertices or polygon corners (z = 0)
    int slack_count;
    int orthant_rows;
    int cone_dim;              // 0 (polytope), 3 (cylinder, cone) or 4
    signed char conic_axes[3]; // the conic frame's axes in the body frame (above)
    // a sphere's, capsule's or cylinder's radius, a polygon's padding, a cone's base radius
    double radius;
    // in the conic frame: the capsule's or cylinder's length along x (2 half_length), the cone's
    // height (2 half_length) and slope (radius / height, the tangent of its half angle)
    double length, height, slope;
    double bounding_radius;
    double inner_radius;            // of the largest origin-centred ball inside the shape
    double radii[3];                // ellipsoid semi-axes (body frame = conic frame)
    double U[3][3];                 // ellipsoid: diag(1 / radii), P = U^T U (Tracy et al. 2023 eq. (23))
    double U_inverse[3][3];         // U^-1 = diag(radii): P^-1 = U^-1 U^-T, the support function is |U^-T n|
                                    // (dcol_support.c)
    double (*rows)[CONVEX_COLUMNS]; // [orthant_rows + cone_dim]
    // the columns of the orthant rows ([0]) and of the cone's ([1]) that can be non-zero: bit c for
    // column c, the three of y together (a rotation mixes them)
    unsigned row_columns[2];
    double* normals;     // polytope A [face_count][3], polygon C [face_count][2]
    double* offsets;     // b or d [face_count]
    double* face_scales; // the length of each row as given (rows are stored unit)
    double* vertices;    // [vertex_count][3]
    // polytope: bit k of face_neighbours[j] (word k / 64) is set when vertex k shares a face with
    // vertex j (k != j); NULL for the other kinds. Along a continuous change of direction the
    // support vertex can only pass to one of these (the support walk's ratio test, dcol_support.c)
    uint64_t (*face_neighbours)[CONVEX_NEIGHBOUR_WORDS];
};

/// The body axis (0, 1, 2) of an entry of conic_axes.
static inline int convex_body_axis(int axis) { return (axis > 0 ? axis : -axis) - 1; }

/// The world-from-conic-frame rotation of a shape whose pose has the world-from-body rotation R:
/// R's columns permuted and negated as conic_axes says, exactly (signed zeros too).
static inline osc_mat3 convex_conic_rotation(const osc_convex* shape, osc_mat3 R) {
    osc_mat3 Q;
    for (int k = 0; k < 3; ++k) {
        int axis = shape->conic_axes[k], column = convex_body_axis(axis);
        for (int i = 0; i < 3; ++i) Q.m[i][k] = axis > 0 ? R.m[i][column] : -R.m[i][column];
    }
    return Q;
}

/// The vector v moved between the body frame and the conic frame (exact): to the body frame when
/// `to_body`, else to the conic frame.
static inline osc_vec3 convex_move_frame(const osc_convex* shape, osc_vec3 v, bool to_body) {
    double in[3] = {v.x, v.y, v.z}, out[3];
    for (int k = 0; k < 3; ++k) {
        int axis = shape->conic_axes[k], column = convex_body_axis(axis);
        if (to_body)
            out[column] = axis > 0 ? in[k] : -in[k];
        else
            out[k] = axis > 0 ? in[column] : -in[column];
    }
    return osc_v3(out[0], out[1], out[2]);
}

/// The conic-frame coordinates of the body vector v (exact).
static inline osc_vec3 convex_body_to_conic(const osc_convex* shape, osc_vec3 v) {
    return convex_move_frame(shape, v, false);
}

/// The body-frame coordinates of the conic-frame vector v (exact).
static inline osc_vec3 convex_conic_to_body(const osc_convex* shape, osc_vec3 v) {
    return convex_move_frame(shape, v, true);
}

/// The total number of conic rows of a shape.
static inline int convex_row_count(const osc_convex* shape) { return shape->orthant_rows + shape->cone_dim; }

/// Builds a polytope from unit-or-not normals and offsets already checked finite; `function`
/// names the public caller in messages. Shared by the (A, b), box and hull constructors.
osc_status convex_make_polytope(const char* function, const double* normals, const double* offsets, int count,
                                osc_convex** out);

/// Every vertex of a bounded { A y <= b } with unit rows: the intersections of three planes that
/// satisfy all rows to 1e-9 of the largest offset, duplicates merged. `vertices` [capacity][3];
/// a bounded polytope with `count` faces has at most 2 count - 4. Returns the count found.
int convex_polytope_vertices(const double* normals, const double* offsets, int count, double* vertices, int capacity);

#endif // OSC_CONVEX_INTERNAL_H
