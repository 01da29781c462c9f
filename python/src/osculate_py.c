// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// osculate_py.c: exported loops over the library's static inline operators (smooth.h, math.h) for
// the Python package, which loads this shared library with ctypes. Each function applies one
// inline operator of the headers to every element of caller-owned arrays; nothing here computes
// anything the headers do not. At the end, the reference counts that keep a model alive while
// another model borrows it (oscpy_ref), and the sizes of the structs that the package mirrors.

#include <osculate/osculate.h>

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define OSCPY_API __attribute__((visibility("default")))

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
        osc_status s = osc_ray_intersect(surface, transform, osc_v3(o[0], o[1], o[2]), osc_v3(d[0], d[1], d[2]),
                                         settings, &hits[i], jacobians ? &j : NULL);
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

#define OSCPY_STRUCT(type)                                                                                             \
    { #type, sizeof(type) }

/// The structs of the public headers that python/osculate/_ffi.py mirrors with ctypes.
static const struct {
    const char* name;
    size_t size;
} oscpy_structs[] = {
    OSCPY_STRUCT(osc_vec3),
    OSCPY_STRUCT(osc_quat),
    OSCPY_STRUCT(osc_mat3),
    OSCPY_STRUCT(osc_pose),
    OSCPY_STRUCT(osc_plane),
    OSCPY_STRUCT(osc_profile),
    OSCPY_STRUCT(osc_plane_profile),
    OSCPY_STRUCT(osc_xpsq_desc),
    OSCPY_STRUCT(osc_mesh_topology),
    OSCPY_STRUCT(osc_mesh_orientation),
    OSCPY_STRUCT(osc_mesh_load_settings),
    OSCPY_STRUCT(osc_mesh_load_report),
    OSCPY_STRUCT(osc_mesh_closest),
    OSCPY_STRUCT(osc_mesh_simplify_settings),
    OSCPY_STRUCT(osc_grid_settings),
    OSCPY_STRUCT(osc_collision_mesh_settings),
    OSCPY_STRUCT(osc_isosurface_settings),
    OSCPY_STRUCT(osc_body_desc),
    OSCPY_STRUCT(osc_manifold_settings),
    OSCPY_STRUCT(osc_contact),
    OSCPY_STRUCT(osc_manifold_output),
    OSCPY_STRUCT(osc_dcol_settings),
    OSCPY_STRUCT(osc_dcol_warm_start),
    OSCPY_STRUCT(osc_dcol_result),
    OSCPY_STRUCT(osc_dcol_jacobians),
    OSCPY_STRUCT(osc_sdf_shape),
    OSCPY_STRUCT(osc_sdf_pair_settings),
    OSCPY_STRUCT(osc_sdf_contact),
    OSCPY_STRUCT(osc_sdf_pair_output),
    OSCPY_STRUCT(osc_sdf_scene_pair),
    OSCPY_STRUCT(osc_sag),
    OSCPY_STRUCT(osc_implicit_transform),
    OSCPY_STRUCT(osc_ray_phase),
    OSCPY_STRUCT(osc_ray_settings),
    OSCPY_STRUCT(osc_ray_hit),
    OSCPY_STRUCT(osc_ray_jacobians),
    OSCPY_STRUCT(osc_brep_settings),
    OSCPY_STRUCT(osc_brep_info),
    OSCPY_STRUCT(osc_brep_surface),
    OSCPY_STRUCT(osc_brep_trim),
    OSCPY_STRUCT(osc_brep_loop),
    OSCPY_STRUCT(osc_brep_face),
    OSCPY_STRUCT(osc_brep_edge),
    OSCPY_STRUCT(osc_brep_desc),
    OSCPY_STRUCT(osc_brep_shell),
    OSCPY_STRUCT(osc_brep_import_report),
    OSCPY_STRUCT(osc_lmd_settings),
    OSCPY_STRUCT(osc_lmd_contact),
    OSCPY_STRUCT(osc_lmd_stats),
};

/// Returns sizeof of the library struct `name` ("osc_lmd_settings"), 0 for a name not in the table:
/// the package compares its ctypes mirrors with them when it loads, so that a struct changed in a
/// header but not in _ffi.py is an ImportError instead of memory written past a Python buffer.
OSCPY_API size_t oscpy_struct_size(const char* name) {
    for (size_t i = 0; name && i < sizeof oscpy_structs / sizeof oscpy_structs[0]; ++i)
        if (!strcmp(oscpy_structs[i].name, name)) return oscpy_structs[i].size;
    return 0;
}
