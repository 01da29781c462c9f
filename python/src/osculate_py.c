// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// osculate_py.c: exported loops over the library's static inline operators (smooth.h, math.h) for
// the Python package, which loads this shared library with ctypes. Each function applies one
// inline operator of the headers to every element of caller-owned arrays; nothing here computes
// anything the headers do not. At the end, the reference counts that keep a model alive while
// another model borrows it (oscpy_ref), and the layout (sizes, field offsets) of the structs that
// the package mirrors.

#include "oscpy_api.h"

#include <osculate/osculate.h>

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/// The elementwise operators of oscpy_smooth_elementwise.
enum {
    OSCPY_SIGMOID = 0,    // x, temperature
    OSCPY_SOFTPLUS = 1,   // x, temperature
    OSCPY_SOFTCLIP = 2,   // x, lo = p0, hi = p1, temperature
    OSCPY_TRANSITION = 3, // d, d_max = p0, bandwidth = p1
    OSCPY_MOLLIFIED = 4   // phi, d_max = p0, bandwidth = p1
};

/// Applies operator `op` to x[count]: values[count], first and second derivatives d1, d2
/// (nullable). Returns 0, or 1 for an unknown operator.
OSCPY_API int oscpy_smooth_elementwise(int op, const double* x, size_t count, double p0, double p1, double temperature,
                                       double* values, double* d1, double* d2) {
    for (size_t i = 0; i < count; ++i) {
        double a = 0.0, b = 0.0, v;
        switch (op) {
            case OSCPY_SIGMOID: v = osc_sigmoid(x[i], temperature, &a, &b); break;
            case OSCPY_SOFTPLUS: v = osc_softplus(x[i], temperature, &a, &b); break;
            case OSCPY_SOFTCLIP: v = osc_softclip(x[i], p0, p1, temperature, &a, &b); break;
            case OSCPY_TRANSITION: v = osc_transition(x[i], p0, p1, &a, &b); break;
            case OSCPY_MOLLIFIED: v = osc_mollified_depth(x[i], p0, p1, &a, &b); break;
            default: return 1;
        }
        values[i] = v;
        if (d1) d1[i] = a;
        if (d2) d2[i] = b;
    }
    return 0;
}

/// Smooth maximum (minimum when `minimum`) of a[i], b[i]: values[count], gradients[count][2] and
/// Hessians[count][2][2] (both nullable).
OSCPY_API void oscpy_smooth_max(const double* a, const double* b, size_t count, double temperature, int minimum,
                                double* values, double* gradients, double* hessians) {
    for (size_t i = 0; i < count; ++i) {
        double g[2], h[2][2];
        values[i] =
            minimum ? osc_smooth_min(a[i], b[i], temperature, g, h) : osc_smooth_max(a[i], b[i], temperature, g, h);
        if (gradients) {
            gradients[2 * i] = g[0];
            gradients[2 * i + 1] = g[1];
        }
        if (hessians)
            for (int k = 0; k < 4; ++k) hessians[4 * i + k] = h[k / 2][k % 2];
    }
}

/// Log-sum-exp over each row of x[rows][count]: values[rows], weights[rows][count] (the softmax,
/// nullable) and Hessians[rows][count][count] (nullable).
OSCPY_API void oscpy_logsumexp(const double* x, size_t rows, int count, double temperature, double* values,
                               double* weights, double* hessians) {
    size_t n = (size_t)count;
    for (size_t r = 0; r < rows; ++r)
        values[r] = osc_logsumexp(x + r * n, count, temperature, weights ? weights + r * n : NULL,
                                  hessians ? hessians + r * n * n : NULL);
}

/// Softmax of each row of x[rows][count]: weights[rows][count], Jacobians [rows][count][count]
/// (nullable).
OSCPY_API void oscpy_softmax(const double* x, size_t rows, int count, double temperature, double* weights,
                             double* jacobians) {
    size_t n = (size_t)count;
    for (size_t r = 0; r < rows; ++r)
        osc_softmax(x + r * n, count, temperature, weights + r * n, jacobians ? jacobians + r * n * n : NULL, NULL);
}

/// For each of `count` poses: converts jacobian_twist[count][rows][6] (columns of one body's left
/// twist) into jacobian_pq[count][rows][7] (columns px, py, pz, qw, qx, qy, qz of the raw pose,
/// quaternions[count][4] used as q / |q|), by osc_twist_jacobian_to_pq. Returns `count`, or the
/// index of the first quaternion that cannot be normalised (osc_quat_is_normalizable: its
/// derivative does not exist), writing nothing then.
OSCPY_API size_t oscpy_twist_jacobian_to_pq(const double* jacobian_twist, size_t count, int rows,
                                            const double* quaternions, double* jacobian_pq) {
    for (size_t i = 0; i < count; ++i) {
        const double* q = quaternions + 4 * i;
        if (!osc_quat_is_normalizable((osc_quat){q[0], q[1], q[2], q[3]})) return i;
    }
    for (size_t i = 0; i < count; ++i) {
        const double* q = quaternions + 4 * i;
        osc_quat quat = {q[0], q[1], q[2], q[3]};
        osc_twist_jacobian_to_pq(jacobian_twist + i * (size_t)rows * 6, rows, quat, jacobian_pq + i * (size_t)rows * 7);
    }
    return count;
}

/// Applies a left twist xi[count][6] to poses[count][7] (p, q): out[count][7], by osc_pose_apply_twist
/// (the finite-difference step of the tests and examples).
OSCPY_API void oscpy_pose_apply_twist(const double* poses, const double* xi, size_t count, double* out) {
    for (size_t i = 0; i < count; ++i) {
        const double* p = poses + 7 * i;
        osc_pose pose = {{p[0], p[1], p[2]}, {p[3], p[4], p[5], p[6]}};
        osc_pose r = osc_pose_apply_twist(pose, xi + 6 * i);
        double* o = out + 7 * i;
        o[0] = r.p.x;
        o[1] = r.p.y;
        o[2] = r.p.z;
        o[3] = r.q.w;
        o[4] = r.q.x;
        o[5] = r.q.y;
        o[6] = r.q.z;
    }
}

/// Runs osc_ray_intersect on `count` rays (origins, directions [count][3]) one after the other,
/// writing hits[count] and, for each non-NULL array of `jacobians`, ray i's block at offset i times
/// that array's size (ray.h's shapes with `parameter_count` = 2 + the sag's coefficients).
/// statuses[count] (nullable) receives each ray's status; returns the first failing one.
OSCPY_API osc_status oscpy_ray_intersect_many(const osc_implicit* surface, const osc_implicit_transform* transform,
                                              size_t count, const double* origins, const double* directions,
                                              const osc_ray_settings* settings, osc_ray_hit* hits,
                                              const osc_ray_jacobians* jacobians, int parameter_count, int* statuses) {
    osc_status first = OSC_OK;
    size_t np = parameter_count > 0 ? (size_t)parameter_count : 0;
    for (size_t i = 0; i < count; ++i) {
        osc_ray_jacobians j = {0};
        if (jacobians) {
#define OSCPY_AT(field, size) j.field = jacobians->field ? jacobians->field + i * (size) : NULL
            OSCPY_AT(t_origin, 3);
            OSCPY_AT(t_direction, 3);
            OSCPY_AT(point_origin, 9);
            OSCPY_AT(point_direction, 9);
            OSCPY_AT(normal_origin, 9);
            OSCPY_AT(normal_direction, 9);
            OSCPY_AT(t_surface_pose, 6);
            OSCPY_AT(t_parameters, np);
            OSCPY_AT(point_surface_pose, 18);
            OSCPY_AT(normal_surface_pose, 18);
            OSCPY_AT(point_parameters, 3 * np);
            OSCPY_AT(normal_parameters, 3 * np);
            OSCPY_AT(t_anchor, 3);
            OSCPY_AT(t_scale, 1);
#undef OSCPY_AT
        }
        const double* o = origins + 3 * i;
        const double* d = directions + 3 * i;
        osc_ray ray = {osc_v3(o[0], o[1], o[2]), osc_v3(d[0], d[1], d[2])};
        osc_status s = osc_ray_intersect(surface, transform, ray, settings, &hits[i], jacobians ? &j : NULL);
        if (statuses) statuses[i] = (int)s;
        if (s != OSC_OK && first == OSC_OK) first = s;
    }
    return first;
}

/// A counted reference to a library object, shared by the Python model that made it and by every
/// model that borrows it (an SDF inside a body or an implicit surface, a grid inside a body, two
/// B-Reps remembered by an LMD cache). The object is destroyed when the last reference goes, and
/// only then are the references it holds on its own lenders released, so a lender outlives every
/// borrower whatever order Python releases them in. Counts are atomic: any thread may release.
typedef struct oscpy_ref {
    atomic_long count;
    void* object;
    void (*destroy)(void*);
    int lender_count;
    struct oscpy_ref* lenders[];
} oscpy_ref;

/// Wraps `object` (released with `destroy`) in a reference counted 1 that takes over one reference
/// on each of lenders[lender_count] (acquired by the caller). Returns NULL when out of memory; the
/// caller still owns everything then.
OSCPY_API oscpy_ref* oscpy_ref_create(void* object, void (*destroy)(void*), oscpy_ref* const* lenders,
                                      int lender_count) {
    if (lender_count < 0 || (lender_count > 0 && !lenders)) return NULL;
    oscpy_ref* ref = malloc(sizeof *ref + (size_t)lender_count * sizeof ref->lenders[0]);
    if (!ref) return NULL;
    atomic_init(&ref->count, 1);
    ref->object = object;
    ref->destroy = destroy;
    ref->lender_count = lender_count;
    for (int i = 0; i < lender_count; ++i) ref->lenders[i] = lenders[i];
    return ref;
}

/// Adds a reference (for a borrower).
OSCPY_API void oscpy_ref_acquire(oscpy_ref* ref) {
    if (ref) atomic_fetch_add(&ref->count, 1);
}

/// Drops a reference; the last one destroys the object, then drops its references on its lenders.
OSCPY_API void oscpy_ref_release(oscpy_ref* ref) {
    if (!ref || atomic_fetch_sub(&ref->count, 1) != 1) return;
    if (ref->destroy) ref->destroy(ref->object);
    for (int i = 0; i < ref->lender_count; ++i) oscpy_ref_release(ref->lenders[i]);
    free(ref);
}


/// One row of the layout table: sizeof(type) when `field` is NULL, else offsetof(type, field).
typedef struct oscpy_layout {
    const char* type;
    const char* field;
    size_t value;
} oscpy_layout;

#define OSCPY_SIZE(type)                                                                                               \
    { #type, NULL, sizeof(type) }
#define OSCPY_FIELD(type, field)                                                                                       \
    { #type, #field, offsetof(type, field) }

/// The layout of every struct of the public headers that python/osculate/_ffi.py mirrors with
/// ctypes: its size, then the offset of each field in declaration order. A field named here that a
/// header no longer has fails to compile; the package checks the sizes when it loads and
/// python/tests/test_layout.py checks every size and offset against the ctypes mirrors.
static const oscpy_layout oscpy_layouts[] = {
    OSCPY_SIZE(osc_vec3),
    OSCPY_FIELD(osc_vec3, x),
    OSCPY_FIELD(osc_vec3, y),
    OSCPY_FIELD(osc_vec3, z),
    OSCPY_SIZE(osc_quat),
    OSCPY_FIELD(osc_quat, w),
    OSCPY_FIELD(osc_quat, x),
    OSCPY_FIELD(osc_quat, y),
    OSCPY_FIELD(osc_quat, z),
    OSCPY_SIZE(osc_mat3),
    OSCPY_FIELD(osc_mat3, m),
    OSCPY_SIZE(osc_pose),
    OSCPY_FIELD(osc_pose, p),
    OSCPY_FIELD(osc_pose, q),
    OSCPY_SIZE(osc_plane),
    OSCPY_FIELD(osc_plane, normal),
    OSCPY_FIELD(osc_plane, offset),
    OSCPY_SIZE(osc_profile),
    OSCPY_FIELD(osc_profile, start),
    OSCPY_FIELD(osc_profile, control),
    OSCPY_FIELD(osc_profile, end),
    OSCPY_SIZE(osc_plane_profile),
    OSCPY_FIELD(osc_plane_profile, start),
    OSCPY_FIELD(osc_plane_profile, control),
    OSCPY_FIELD(osc_plane_profile, end),
    OSCPY_SIZE(osc_xpsq_desc),
    OSCPY_FIELD(osc_xpsq_desc, control_points),
    OSCPY_FIELD(osc_xpsq_desc, frame),
    OSCPY_FIELD(osc_xpsq_desc, binormal),
    OSCPY_FIELD(osc_xpsq_desc, rotation_start),
    OSCPY_FIELD(osc_xpsq_desc, rotation_end),
    OSCPY_FIELD(osc_xpsq_desc, scale),
    OSCPY_FIELD(osc_xpsq_desc, exponent),
    OSCPY_FIELD(osc_xpsq_desc, planes),
    OSCPY_FIELD(osc_xpsq_desc, plane_count),
    OSCPY_FIELD(osc_xpsq_desc, plane_temperature),
    OSCPY_FIELD(osc_xpsq_desc, discriminant_temperature),
    OSCPY_FIELD(osc_xpsq_desc, root_temperature),
    OSCPY_FIELD(osc_xpsq_desc, blend_temperature),
    OSCPY_SIZE(osc_mesh_topology),
    OSCPY_FIELD(osc_mesh_topology, vertex_count),
    OSCPY_FIELD(osc_mesh_topology, triangle_count),
    OSCPY_FIELD(osc_mesh_topology, edge_count),
    OSCPY_FIELD(osc_mesh_topology, boundary_edges),
    OSCPY_FIELD(osc_mesh_topology, non_manifold_edges),
    OSCPY_FIELD(osc_mesh_topology, inconsistent_edges),
    OSCPY_FIELD(osc_mesh_topology, isolated_vertices),
    OSCPY_FIELD(osc_mesh_topology, degenerate_triangles),
    OSCPY_FIELD(osc_mesh_topology, components),
    OSCPY_FIELD(osc_mesh_topology, closed),
    OSCPY_FIELD(osc_mesh_topology, euler_characteristic),
    OSCPY_SIZE(osc_mesh_orientation),
    OSCPY_FIELD(osc_mesh_orientation, patches),
    OSCPY_FIELD(osc_mesh_orientation, closed_patches),
    OSCPY_FIELD(osc_mesh_orientation, boundary_edges),
    OSCPY_FIELD(osc_mesh_orientation, non_manifold_edges),
    OSCPY_FIELD(osc_mesh_orientation, inconsistent_edges),
    OSCPY_FIELD(osc_mesh_orientation, non_orientable_patches),
    OSCPY_FIELD(osc_mesh_orientation, flat_patches),
    OSCPY_FIELD(osc_mesh_orientation, inverted_patches),
    OSCPY_FIELD(osc_mesh_orientation, triangles_flipped),
    OSCPY_FIELD(osc_mesh_orientation, sign_reliable),
    OSCPY_FIELD(osc_mesh_orientation, volume),
    OSCPY_SIZE(osc_mesh_load_settings),
    OSCPY_FIELD(osc_mesh_load_settings, format),
    OSCPY_FIELD(osc_mesh_load_settings, weld_tolerance),
    OSCPY_FIELD(osc_mesh_load_settings, degenerate),
    OSCPY_FIELD(osc_mesh_load_settings, keep_unreferenced),
    OSCPY_FIELD(osc_mesh_load_settings, max_coordinate),
    OSCPY_FIELD(osc_mesh_load_settings, orient),
    OSCPY_SIZE(osc_mesh_load_report),
    OSCPY_FIELD(osc_mesh_load_report, format),
    OSCPY_FIELD(osc_mesh_load_report, binary),
    OSCPY_FIELD(osc_mesh_load_report, vertices_read),
    OSCPY_FIELD(osc_mesh_load_report, faces_read),
    OSCPY_FIELD(osc_mesh_load_report, vertices_welded),
    OSCPY_FIELD(osc_mesh_load_report, vertices_unreferenced),
    OSCPY_FIELD(osc_mesh_load_report, faces_dropped),
    OSCPY_FIELD(osc_mesh_load_report, polygons_triangulated),
    OSCPY_FIELD(osc_mesh_load_report, orientation),
    OSCPY_SIZE(osc_mesh_closest),
    OSCPY_FIELD(osc_mesh_closest, point),
    OSCPY_FIELD(osc_mesh_closest, distance),
    OSCPY_FIELD(osc_mesh_closest, triangle),
    OSCPY_FIELD(osc_mesh_closest, feature),
    OSCPY_FIELD(osc_mesh_closest, feature_index),
    OSCPY_FIELD(osc_mesh_closest, barycentric),
    OSCPY_SIZE(osc_mesh_simplify_settings),
    OSCPY_FIELD(osc_mesh_simplify_settings, target_triangles),
    OSCPY_FIELD(osc_mesh_simplify_settings, max_error),
    OSCPY_FIELD(osc_mesh_simplify_settings, min_angle),
    OSCPY_FIELD(osc_mesh_simplify_settings, weld_tolerance),
    OSCPY_SIZE(osc_grid_settings),
    OSCPY_FIELD(osc_grid_settings, resolution),
    OSCPY_FIELD(osc_grid_settings, padding),
    OSCPY_FIELD(osc_grid_settings, normal_epsilon),
    OSCPY_FIELD(osc_grid_settings, threads),
    OSCPY_SIZE(osc_collision_mesh_settings),
    OSCPY_FIELD(osc_collision_mesh_settings, resolution),
    OSCPY_FIELD(osc_collision_mesh_settings, target_triangles),
    OSCPY_FIELD(osc_collision_mesh_settings, max_error),
    OSCPY_FIELD(osc_collision_mesh_settings, project_iterations),
    OSCPY_FIELD(osc_collision_mesh_settings, threads),
    OSCPY_SIZE(osc_isosurface_settings),
    OSCPY_FIELD(osc_isosurface_settings, lo),
    OSCPY_FIELD(osc_isosurface_settings, hi),
    OSCPY_FIELD(osc_isosurface_settings, padding),
    OSCPY_FIELD(osc_isosurface_settings, resolution),
    OSCPY_FIELD(osc_isosurface_settings, iso_value),
    OSCPY_FIELD(osc_isosurface_settings, threads),
    OSCPY_SIZE(osc_body_desc),
    OSCPY_FIELD(osc_body_desc, mesh),
    OSCPY_FIELD(osc_body_desc, grid),
    OSCPY_FIELD(osc_body_desc, sdf),
    OSCPY_FIELD(osc_body_desc, groups),
    OSCPY_FIELD(osc_body_desc, vertex_groups),
    OSCPY_FIELD(osc_body_desc, edge_groups),
    OSCPY_FIELD(osc_body_desc, group_count),
    OSCPY_FIELD(osc_body_desc, curve),
    OSCPY_FIELD(osc_body_desc, broad_phase_resolution),
    OSCPY_FIELD(osc_body_desc, broad_phase_padding),
    OSCPY_FIELD(osc_body_desc, surface_tolerance),
    OSCPY_SIZE(osc_manifold_settings),
    OSCPY_FIELD(osc_manifold_settings, d_max),
    OSCPY_FIELD(osc_manifold_settings, bandwidth),
    OSCPY_FIELD(osc_manifold_settings, trace_temperature),
    OSCPY_FIELD(osc_manifold_settings, clip_temperature),
    OSCPY_FIELD(osc_manifold_settings, blend_temperature),
    OSCPY_FIELD(osc_manifold_settings, iterations),
    OSCPY_FIELD(osc_manifold_settings, blend),
    OSCPY_FIELD(osc_manifold_settings, broad_phase),
    OSCPY_FIELD(osc_manifold_settings, edges),
    OSCPY_FIELD(osc_manifold_settings, blend_saturated),
    OSCPY_SIZE(osc_manifold_contact),
    OSCPY_FIELD(osc_manifold_contact, point),
    OSCPY_FIELD(osc_manifold_contact, distance),
    OSCPY_FIELD(osc_manifold_contact, normal),
    OSCPY_FIELD(osc_manifold_contact, weight),
    OSCPY_FIELD(osc_manifold_contact, jacobian_a),
    OSCPY_FIELD(osc_manifold_contact, jacobian_b),
    OSCPY_FIELD(osc_manifold_contact, feature),
    OSCPY_FIELD(osc_manifold_contact, kind),
    OSCPY_FIELD(osc_manifold_contact, body),
    OSCPY_FIELD(osc_manifold_contact, group),
    OSCPY_SIZE(osc_manifold_output),
    OSCPY_FIELD(osc_manifold_output, contacts),
    OSCPY_FIELD(osc_manifold_output, capacity),
    OSCPY_FIELD(osc_manifold_output, count),
    OSCPY_FIELD(osc_manifold_output, needed),
    OSCPY_FIELD(osc_manifold_output, point_jacobians),
    OSCPY_FIELD(osc_manifold_output, distance_jacobians),
    OSCPY_FIELD(osc_manifold_output, normal_jacobians),
    OSCPY_FIELD(osc_manifold_output, weight_jacobians),
    OSCPY_SIZE(osc_manifold_batch_item),
    OSCPY_FIELD(osc_manifold_batch_item, a),
    OSCPY_FIELD(osc_manifold_batch_item, pose_a),
    OSCPY_FIELD(osc_manifold_batch_item, b),
    OSCPY_FIELD(osc_manifold_batch_item, pose_b),
    OSCPY_SIZE(osc_dcol_settings),
    OSCPY_FIELD(osc_dcol_settings, tolerance),
    OSCPY_FIELD(osc_dcol_settings, max_iterations),
    OSCPY_FIELD(osc_dcol_settings, regularization),
    OSCPY_SIZE(osc_dcol_warm_start),
    OSCPY_FIELD(osc_dcol_warm_start, valid),
    OSCPY_FIELD(osc_dcol_warm_start, variables),
    OSCPY_FIELD(osc_dcol_warm_start, solution),
    OSCPY_SIZE(osc_dcol_result),
    OSCPY_FIELD(osc_dcol_result, alpha),
    OSCPY_FIELD(osc_dcol_result, point),
    OSCPY_FIELD(osc_dcol_result, point_a),
    OSCPY_FIELD(osc_dcol_result, point_b),
    OSCPY_FIELD(osc_dcol_result, distance),
    OSCPY_FIELD(osc_dcol_result, normal),
    OSCPY_FIELD(osc_dcol_result, iterations),
    OSCPY_FIELD(osc_dcol_result, flags),
    OSCPY_SIZE(osc_dcol_jacobians),
    OSCPY_FIELD(osc_dcol_jacobians, alpha),
    OSCPY_FIELD(osc_dcol_jacobians, point),
    OSCPY_FIELD(osc_dcol_jacobians, point_a),
    OSCPY_FIELD(osc_dcol_jacobians, point_b),
    OSCPY_FIELD(osc_dcol_jacobians, distance),
    OSCPY_FIELD(osc_dcol_jacobians, normal),
    OSCPY_SIZE(osc_dcol_batch_item),
    OSCPY_FIELD(osc_dcol_batch_item, a),
    OSCPY_FIELD(osc_dcol_batch_item, pose_a),
    OSCPY_FIELD(osc_dcol_batch_item, b),
    OSCPY_FIELD(osc_dcol_batch_item, pose_b),
    OSCPY_FIELD(osc_dcol_batch_item, warm),
    OSCPY_SIZE(osc_sdf_shape),
    OSCPY_FIELD(osc_sdf_shape, sdf),
    OSCPY_FIELD(osc_sdf_shape, function),
    OSCPY_FIELD(osc_sdf_shape, context),
    OSCPY_FIELD(osc_sdf_shape, lo),
    OSCPY_FIELD(osc_sdf_shape, hi),
    OSCPY_FIELD(osc_sdf_shape, lipschitz),
    OSCPY_SIZE(osc_sdf_pair_settings),
    OSCPY_FIELD(osc_sdf_pair_settings, resolution),
    OSCPY_FIELD(osc_sdf_pair_settings, epsilon),
    OSCPY_FIELD(osc_sdf_pair_settings, step),
    OSCPY_FIELD(osc_sdf_pair_settings, max_iterations),
    OSCPY_FIELD(osc_sdf_pair_settings, first_only),
    OSCPY_FIELD(osc_sdf_pair_settings, merge_distance),
    OSCPY_FIELD(osc_sdf_pair_settings, temperature),
    OSCPY_SIZE(osc_sdf_pair_contact),
    OSCPY_FIELD(osc_sdf_pair_contact, point),
    OSCPY_FIELD(osc_sdf_pair_contact, distance),
    OSCPY_FIELD(osc_sdf_pair_contact, normal),
    OSCPY_FIELD(osc_sdf_pair_contact, iterations),
    OSCPY_FIELD(osc_sdf_pair_contact, smooth),
    OSCPY_SIZE(osc_sdf_pair_output),
    OSCPY_FIELD(osc_sdf_pair_output, contacts),
    OSCPY_FIELD(osc_sdf_pair_output, capacity),
    OSCPY_FIELD(osc_sdf_pair_output, count),
    OSCPY_FIELD(osc_sdf_pair_output, needed),
    OSCPY_FIELD(osc_sdf_pair_output, point_jacobians),
    OSCPY_FIELD(osc_sdf_pair_output, distance_jacobians),
    OSCPY_FIELD(osc_sdf_pair_output, boxes_overlap),
    OSCPY_FIELD(osc_sdf_pair_output, spheres),
    OSCPY_FIELD(osc_sdf_pair_output, survivors),
    OSCPY_SIZE(osc_sdf_pair_batch_item),
    OSCPY_FIELD(osc_sdf_pair_batch_item, a),
    OSCPY_FIELD(osc_sdf_pair_batch_item, pose_a),
    OSCPY_FIELD(osc_sdf_pair_batch_item, b),
    OSCPY_FIELD(osc_sdf_pair_batch_item, pose_b),
    OSCPY_SIZE(osc_sdf_scene_body),
    OSCPY_FIELD(osc_sdf_scene_body, shape),
    OSCPY_FIELD(osc_sdf_scene_body, pose),
    OSCPY_SIZE(osc_sdf_scene_pair),
    OSCPY_FIELD(osc_sdf_scene_pair, a),
    OSCPY_FIELD(osc_sdf_scene_pair, b),
    OSCPY_FIELD(osc_sdf_scene_pair, first_contact),
    OSCPY_FIELD(osc_sdf_scene_pair, contact_count),
    OSCPY_FIELD(osc_sdf_scene_pair, status),
    OSCPY_SIZE(osc_sdf_scene_output),
    OSCPY_FIELD(osc_sdf_scene_output, pairs),
    OSCPY_FIELD(osc_sdf_scene_output, capacity),
    OSCPY_FIELD(osc_sdf_scene_output, count),
    OSCPY_FIELD(osc_sdf_scene_output, needed),
    OSCPY_FIELD(osc_sdf_scene_output, contacts),
    OSCPY_FIELD(osc_sdf_scene_output, contacts_per_pair),
    OSCPY_SIZE(osc_sag),
    OSCPY_FIELD(osc_sag, curvature),
    OSCPY_FIELD(osc_sag, conic),
    OSCPY_FIELD(osc_sag, coefficient_count),
    OSCPY_FIELD(osc_sag, coefficients),
    OSCPY_FIELD(osc_sag, diameter),
    OSCPY_SIZE(osc_implicit_transform),
    OSCPY_FIELD(osc_implicit_transform, anchor),
    OSCPY_FIELD(osc_implicit_transform, scale),
    OSCPY_FIELD(osc_implicit_transform, rotation),
    OSCPY_FIELD(osc_implicit_transform, translation),
    OSCPY_SIZE(osc_ray_phase),
    OSCPY_FIELD(osc_ray_phase, algorithm),
    OSCPY_FIELD(osc_ray_phase, iterations),
    OSCPY_FIELD(osc_ray_phase, damping),
    OSCPY_FIELD(osc_ray_phase, max_step),
    OSCPY_SIZE(osc_ray_settings),
    OSCPY_FIELD(osc_ray_settings, init),
    OSCPY_FIELD(osc_ray_settings, beams),
    OSCPY_FIELD(osc_ray_settings, coarse),
    OSCPY_FIELD(osc_ray_settings, fine),
    OSCPY_FIELD(osc_ray_settings, final_step),
    OSCPY_FIELD(osc_ray_settings, tolerance),
    OSCPY_FIELD(osc_ray_settings, analytic_conics),
    OSCPY_SIZE(osc_ray),
    OSCPY_FIELD(osc_ray, origin),
    OSCPY_FIELD(osc_ray, direction),
    OSCPY_SIZE(osc_ray_hit),
    OSCPY_FIELD(osc_ray_hit, t),
    OSCPY_FIELD(osc_ray_hit, point),
    OSCPY_FIELD(osc_ray_hit, normal),
    OSCPY_FIELD(osc_ray_hit, hit),
    OSCPY_FIELD(osc_ray_hit, grazing),
    OSCPY_FIELD(osc_ray_hit, iterations),
    OSCPY_SIZE(osc_ray_jacobians),
    OSCPY_FIELD(osc_ray_jacobians, t_origin),
    OSCPY_FIELD(osc_ray_jacobians, t_direction),
    OSCPY_FIELD(osc_ray_jacobians, point_origin),
    OSCPY_FIELD(osc_ray_jacobians, point_direction),
    OSCPY_FIELD(osc_ray_jacobians, normal_origin),
    OSCPY_FIELD(osc_ray_jacobians, normal_direction),
    OSCPY_FIELD(osc_ray_jacobians, t_surface_pose),
    OSCPY_FIELD(osc_ray_jacobians, t_parameters),
    OSCPY_FIELD(osc_ray_jacobians, point_surface_pose),
    OSCPY_FIELD(osc_ray_jacobians, normal_surface_pose),
    OSCPY_FIELD(osc_ray_jacobians, point_parameters),
    OSCPY_FIELD(osc_ray_jacobians, normal_parameters),
    OSCPY_FIELD(osc_ray_jacobians, t_anchor),
    OSCPY_FIELD(osc_ray_jacobians, t_scale),
    OSCPY_SIZE(osc_brep_settings),
    OSCPY_FIELD(osc_brep_settings, alpha_max),
    OSCPY_FIELD(osc_brep_settings, plane_cell),
    OSCPY_FIELD(osc_brep_settings, max_leaf_count),
    OSCPY_SIZE(osc_brep_info),
    OSCPY_FIELD(osc_brep_info, face_count),
    OSCPY_FIELD(osc_brep_info, edge_count),
    OSCPY_FIELD(osc_brep_info, vertex_count),
    OSCPY_FIELD(osc_brep_info, convex_edge_count),
    OSCPY_FIELD(osc_brep_info, concave_edge_count),
    OSCPY_FIELD(osc_brep_info, smooth_edge_count),
    OSCPY_FIELD(osc_brep_info, leaf_count),
    OSCPY_FIELD(osc_brep_info, node_count),
    OSCPY_FIELD(osc_brep_info, lo),
    OSCPY_FIELD(osc_brep_info, hi),
    OSCPY_SIZE(osc_brep_surface),
    OSCPY_FIELD(osc_brep_surface, type),
    OSCPY_FIELD(osc_brep_surface, origin),
    OSCPY_FIELD(osc_brep_surface, axis),
    OSCPY_FIELD(osc_brep_surface, ref),
    OSCPY_FIELD(osc_brep_surface, radius),
    OSCPY_FIELD(osc_brep_surface, radius2),
    OSCPY_FIELD(osc_brep_surface, angle),
    OSCPY_FIELD(osc_brep_surface, sense),
    OSCPY_FIELD(osc_brep_surface, nurbs),
    OSCPY_SIZE(osc_brep_trim),
    OSCPY_FIELD(osc_brep_trim, kind),
    OSCPY_FIELD(osc_brep_trim, start),
    OSCPY_FIELD(osc_brep_trim, end),
    OSCPY_FIELD(osc_brep_trim, center),
    OSCPY_FIELD(osc_brep_trim, radius),
    OSCPY_FIELD(osc_brep_trim, angle0),
    OSCPY_FIELD(osc_brep_trim, sweep),
    OSCPY_SIZE(osc_brep_loop),
    OSCPY_FIELD(osc_brep_loop, trim_begin),
    OSCPY_FIELD(osc_brep_loop, trim_count),
    OSCPY_SIZE(osc_brep_face),
    OSCPY_FIELD(osc_brep_face, surface),
    OSCPY_FIELD(osc_brep_face, loop_begin),
    OSCPY_FIELD(osc_brep_face, loop_count),
    OSCPY_FIELD(osc_brep_face, umin),
    OSCPY_FIELD(osc_brep_face, umax),
    OSCPY_FIELD(osc_brep_face, vmin),
    OSCPY_FIELD(osc_brep_face, vmax),
    OSCPY_SIZE(osc_brep_edge),
    OSCPY_FIELD(osc_brep_edge, type),
    OSCPY_FIELD(osc_brep_edge, origin),
    OSCPY_FIELD(osc_brep_edge, axis),
    OSCPY_FIELD(osc_brep_edge, ref),
    OSCPY_FIELD(osc_brep_edge, radius),
    OSCPY_FIELD(osc_brep_edge, t0),
    OSCPY_FIELD(osc_brep_edge, t1),
    OSCPY_FIELD(osc_brep_edge, face),
    OSCPY_FIELD(osc_brep_edge, vertex),
    OSCPY_FIELD(osc_brep_edge, nurbs),
    OSCPY_SIZE(osc_brep_nurbs),
    OSCPY_FIELD(osc_brep_nurbs, degree),
    OSCPY_FIELD(osc_brep_nurbs, count),
    OSCPY_FIELD(osc_brep_nurbs, knot_begin),
    OSCPY_FIELD(osc_brep_nurbs, point_begin),
    OSCPY_FIELD(osc_brep_nurbs, weight_begin),
    OSCPY_SIZE(osc_brep_desc),
    OSCPY_FIELD(osc_brep_desc, surfaces),
    OSCPY_FIELD(osc_brep_desc, surface_count),
    OSCPY_FIELD(osc_brep_desc, faces),
    OSCPY_FIELD(osc_brep_desc, face_count),
    OSCPY_FIELD(osc_brep_desc, loops),
    OSCPY_FIELD(osc_brep_desc, loop_count),
    OSCPY_FIELD(osc_brep_desc, trims),
    OSCPY_FIELD(osc_brep_desc, trim_count),
    OSCPY_FIELD(osc_brep_desc, edges),
    OSCPY_FIELD(osc_brep_desc, edge_count),
    OSCPY_FIELD(osc_brep_desc, vertices),
    OSCPY_FIELD(osc_brep_desc, vertex_count),
    OSCPY_FIELD(osc_brep_desc, nurbs),
    OSCPY_FIELD(osc_brep_desc, nurbs_count),
    OSCPY_FIELD(osc_brep_desc, control_points),
    OSCPY_FIELD(osc_brep_desc, control_point_count),
    OSCPY_FIELD(osc_brep_desc, reals),
    OSCPY_FIELD(osc_brep_desc, real_count),
    OSCPY_SIZE(osc_brep_shell),
    OSCPY_FIELD(osc_brep_shell, face_begin),
    OSCPY_FIELD(osc_brep_shell, face_count),
    OSCPY_FIELD(osc_brep_shell, edge_begin),
    OSCPY_FIELD(osc_brep_shell, edge_count),
    OSCPY_FIELD(osc_brep_shell, vertex_begin),
    OSCPY_FIELD(osc_brep_shell, vertex_count),
    OSCPY_FIELD(osc_brep_shell, placement),
    OSCPY_FIELD(osc_brep_shell, scale),
    OSCPY_FIELD(osc_brep_shell, solid_id),
    OSCPY_FIELD(osc_brep_shell, depth),
    OSCPY_FIELD(osc_brep_shell, name),
    OSCPY_SIZE(osc_brep_import_report),
    OSCPY_FIELD(osc_brep_import_report, solids),
    OSCPY_FIELD(osc_brep_import_report, faces_read),
    OSCPY_FIELD(osc_brep_import_report, faces_imported),
    OSCPY_FIELD(osc_brep_import_report, faces_unsupported),
    OSCPY_FIELD(osc_brep_import_report, edges_imported),
    OSCPY_FIELD(osc_brep_import_report, edges_unsupported),
    OSCPY_FIELD(osc_brep_import_report, first_unsupported),
    OSCPY_FIELD(osc_brep_import_report, length_unit),
    OSCPY_FIELD(osc_brep_import_report, instances),
    OSCPY_FIELD(osc_brep_import_report, instances_imported),
    OSCPY_FIELD(osc_brep_import_report, instances_skipped),
    OSCPY_FIELD(osc_brep_import_report, first_skipped),
    OSCPY_SIZE(osc_lmd_settings),
    OSCPY_FIELD(osc_lmd_settings, d_max),
    OSCPY_FIELD(osc_lmd_settings, eps_a),
    OSCPY_FIELD(osc_lmd_settings, eps_b),
    OSCPY_FIELD(osc_lmd_settings, alpha),
    OSCPY_FIELD(osc_lmd_settings, conformal_samples),
    OSCPY_FIELD(osc_lmd_settings, culling),
    OSCPY_SIZE(osc_lmd_contact),
    OSCPY_FIELD(osc_lmd_contact, point_a),
    OSCPY_FIELD(osc_lmd_contact, point_b),
    OSCPY_FIELD(osc_lmd_contact, distance),
    OSCPY_FIELD(osc_lmd_contact, normal),
    OSCPY_FIELD(osc_lmd_contact, param_a),
    OSCPY_FIELD(osc_lmd_contact, param_b),
    OSCPY_FIELD(osc_lmd_contact, kind_a),
    OSCPY_FIELD(osc_lmd_contact, kind_b),
    OSCPY_FIELD(osc_lmd_contact, feature_a),
    OSCPY_FIELD(osc_lmd_contact, feature_b),
    OSCPY_FIELD(osc_lmd_contact, key),
    OSCPY_FIELD(osc_lmd_contact, flags),
    OSCPY_SIZE(osc_lmd_output),
    OSCPY_FIELD(osc_lmd_output, contacts),
    OSCPY_FIELD(osc_lmd_output, capacity),
    OSCPY_FIELD(osc_lmd_output, count),
    OSCPY_FIELD(osc_lmd_output, needed),
    OSCPY_FIELD(osc_lmd_output, distance_jacobians),
    OSCPY_FIELD(osc_lmd_output, skipped_faces),
    OSCPY_SIZE(osc_lmd_batch_item),
    OSCPY_FIELD(osc_lmd_batch_item, a),
    OSCPY_FIELD(osc_lmd_batch_item, pose_a),
    OSCPY_FIELD(osc_lmd_batch_item, b),
    OSCPY_FIELD(osc_lmd_batch_item, pose_b),
    OSCPY_FIELD(osc_lmd_batch_item, cache),
    OSCPY_SIZE(osc_lmd_stats),
    OSCPY_FIELD(osc_lmd_stats, front_size),
    OSCPY_FIELD(osc_lmd_stats, culling_tests),
    OSCPY_FIELD(osc_lmd_stats, leaf_pairs),
    OSCPY_FIELD(osc_lmd_stats, newton_iterations),
    OSCPY_FIELD(osc_lmd_stats, warm_starts),
    OSCPY_FIELD(osc_lmd_stats, searches),
    OSCPY_SIZE(osc_force_contact),
    OSCPY_FIELD(osc_force_contact, point),
    OSCPY_FIELD(osc_force_contact, normal),
    OSCPY_FIELD(osc_force_contact, distance),
    OSCPY_FIELD(osc_force_contact, weight),
    OSCPY_FIELD(osc_force_contact, point_jacobian),
    OSCPY_FIELD(osc_force_contact, normal_jacobian),
    OSCPY_FIELD(osc_force_contact, distance_jacobian),
    OSCPY_FIELD(osc_force_contact, weight_jacobian),
    OSCPY_SIZE(osc_body_velocity),
    OSCPY_FIELD(osc_body_velocity, linear),
    OSCPY_FIELD(osc_body_velocity, angular),
    OSCPY_SIZE(osc_force_settings),
    OSCPY_FIELD(osc_force_settings, stiffness),
    OSCPY_FIELD(osc_force_settings, exponent),
    OSCPY_FIELD(osc_force_settings, damping),
    OSCPY_FIELD(osc_force_settings, friction),
    OSCPY_FIELD(osc_force_settings, friction_velocity),
    OSCPY_FIELD(osc_force_settings, depth_temperature),
    OSCPY_FIELD(osc_force_settings, damping_temperature),
    OSCPY_SIZE(osc_force_contact_result),
    OSCPY_FIELD(osc_force_contact_result, normal_force),
    OSCPY_FIELD(osc_force_contact_result, penetration_rate),
    OSCPY_FIELD(osc_force_contact_result, slip_velocity),
    OSCPY_FIELD(osc_force_contact_result, force),
    OSCPY_SIZE(osc_force_output),
    OSCPY_FIELD(osc_force_output, contacts),
    OSCPY_FIELD(osc_force_output, wrench_a),
    OSCPY_FIELD(osc_force_output, wrench_b),
    OSCPY_FIELD(osc_force_output, pose_jacobian),
    OSCPY_FIELD(osc_force_output, velocity_jacobian),
};

/// Returns sizeof of the library struct `name` ("osc_lmd_settings"), 0 for a name not in the table:
/// the package compares its ctypes mirrors with them when it loads, so that a struct changed in a
/// header but not in _ffi.py is an ImportError instead of memory written past a Python buffer.
OSCPY_API size_t oscpy_struct_size(const char* name) {
    for (size_t i = 0; name && i < sizeof oscpy_layouts / sizeof oscpy_layouts[0]; ++i)
        if (!oscpy_layouts[i].field && !strcmp(oscpy_layouts[i].type, name)) return oscpy_layouts[i].value;
    return 0;
}

/// Returns the number of rows of the layout table; for i below it, sets *type, *field (NULL for the
/// struct's size row) and *value (the size or the field's offset) to row i's.
OSCPY_API size_t oscpy_layout_row(size_t i, const char** type, const char** field, size_t* value) {
    size_t n = sizeof oscpy_layouts / sizeof oscpy_layouts[0];
    if (i < n) {
        *type = oscpy_layouts[i].type;
        *field = oscpy_layouts[i].field;
        *value = oscpy_layouts[i].value;
    }
    return n;
}
