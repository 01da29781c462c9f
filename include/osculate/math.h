// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// math.h: vectors, 3x3 matrices, quaternions, poses and twists, all static inline value functions.
//
// CONVENTIONS (used by every module of the library)
// - Scalars are double. Units are the caller's.
// - osc_vec3 {x, y, z}. osc_mat3 is row-major: m[row][col]; osc_mat3_apply(A, v) = A v.
// - osc_quat is scalar-first (w, x, y, z) and represents the rotation R(q) with R v = q v q*.
// - osc_pose {p, q} is world-from-body: a body point b is at R(q) b + p in the world.
// - A twist xi = (dp, dtheta) (6 numbers, translation first) perturbs a pose on the left, in world
//   coordinates: p <- p + dp, R <- exp([dtheta]x) R. Derivatives "with respect to a pose" are
//   taken along this twist. A world point x = R b + p of a body therefore has
//   dx/dxi = [ I | -[x - p]x ] (3 x 6), see osc_pose_point_jacobian.
// - Jacobians are row-major arrays [n_out][n_in]. Pair queries use 12 columns: body A's twist,
//   then body B's twist.
// - [a]x is the skew matrix with [a]x b = a x b.
//
// NUMERIC ROBUSTNESS
// - osc_normalize of a zero or non-finite vector returns the zero vector.
// - osc_quat_normalize of a quaternion whose norm is zero or not finite returns the zero
//   quaternion; check with osc_quat_is_normalizable first when the input is untrusted.
// - osc_quat_to_twist_jacobian and osc_twist_jacobian_to_pq give NaN for such a quaternion (a
//   zero one gave zeros before, which read as "no dependence on the rotation").
// - osc_quat_exp uses a Taylor series below |theta| = 1e-4 and is accurate to double precision.

#ifndef OSCULATE_MATH_H
#define OSCULATE_MATH_H

#include "osculate/base.h"

#include <math.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A 3-vector.
typedef struct osc_vec3 {
    double x, y, z;
} osc_vec3;

/// A unit quaternion (w, x, y, z), scalar first.
typedef struct osc_quat {
    double w, x, y, z;
} osc_quat;

/// A row-major 3x3 matrix, m[row][col].
typedef struct osc_mat3 {
    double m[3][3];
} osc_mat3;

/// A rigid pose, world-from-body: position p and orientation q.
typedef struct osc_pose {
    osc_vec3 p;
    osc_quat q;
} osc_pose;

// ---------------------------------------------------------------------------------------------
// vectors

/// Returns the vector (x, y, z).
static inline osc_vec3 osc_v3(double x, double y, double z) {
    osc_vec3 v = {x, y, z};
    return v;
}

/// Returns a + b.
static inline osc_vec3 osc_add(osc_vec3 a, osc_vec3 b) { return osc_v3(a.x + b.x, a.y + b.y, a.z + b.z); }

/// Returns a - b.
static inline osc_vec3 osc_sub(osc_vec3 a, osc_vec3 b) { return osc_v3(a.x - b.x, a.y - b.y, a.z - b.z); }

/// Returns s a.
static inline osc_vec3 osc_scale(osc_vec3 a, double s) { return osc_v3(s * a.x, s * a.y, s * a.z); }

/// Returns -a.
static inline osc_vec3 osc_neg(osc_vec3 a) { return osc_v3(-a.x, -a.y, -a.z); }

/// Returns a + s b.
static inline osc_vec3 osc_add_scaled(osc_vec3 a, osc_vec3 b, double s) {
    return osc_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

/// Returns the component-wise product of a and b.
static inline osc_vec3 osc_mul_elem(osc_vec3 a, osc_vec3 b) { return osc_v3(a.x * b.x, a.y * b.y, a.z * b.z); }

/// Returns the dot product a . b.
static inline double osc_dot(osc_vec3 a, osc_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/// Returns the cross product a x b.
static inline osc_vec3 osc_cross(osc_vec3 a, osc_vec3 b) {
    return osc_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

/// Returns |a|^2.
static inline double osc_length_squared(osc_vec3 a) { return osc_dot(a, a); }

/// Returns |a|.
static inline double osc_length(osc_vec3 a) { return sqrt(osc_dot(a, a)); }

/// Returns a / |a|, or the zero vector when |a| is zero or not finite.
static inline osc_vec3 osc_normalize(osc_vec3 a) {
    double length = osc_length(a);
    if (!(length > 0.0) || !isfinite(length)) return osc_v3(0.0, 0.0, 0.0);
    return osc_scale(a, 1.0 / length);
}

/// Returns (1 - s) a + s b.
static inline osc_vec3 osc_lerp(osc_vec3 a, osc_vec3 b, double s) {
    return osc_v3(a.x + s * (b.x - a.x), a.y + s * (b.y - a.y), a.z + s * (b.z - a.z));
}

/// Returns component i (0, 1, 2) of v.
static inline double osc_vec3_get(osc_vec3 v, int i) { return i == 0 ? v.x : (i == 1 ? v.y : v.z); }

/// Returns true when all three components are finite.
static inline bool osc_vec3_is_finite(osc_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

// ---------------------------------------------------------------------------------------------
// 3x3 matrices

/// Returns the identity matrix.
static inline osc_mat3 osc_mat3_identity(void) {
    osc_mat3 a = {{{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}};
    return a;
}

/// Returns the zero matrix.
static inline osc_mat3 osc_mat3_zero(void) {
    osc_mat3 a = {{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}};
    return a;
}

/// Returns the matrix whose columns are c0, c1, c2.
static inline osc_mat3 osc_mat3_from_columns(osc_vec3 c0, osc_vec3 c1, osc_vec3 c2) {
    osc_mat3 a = {{{c0.x, c1.x, c2.x}, {c0.y, c1.y, c2.y}, {c0.z, c1.z, c2.z}}};
    return a;
}

/// Returns column j of a.
static inline osc_vec3 osc_mat3_column(osc_mat3 a, int j) { return osc_v3(a.m[0][j], a.m[1][j], a.m[2][j]); }

/// Returns A v.
static inline osc_vec3 osc_mat3_apply(osc_mat3 a, osc_vec3 v) {
    return osc_v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                  a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                  a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}

/// Returns A^T v.
static inline osc_vec3 osc_mat3_apply_transpose(osc_mat3 a, osc_vec3 v) {
    return osc_v3(a.m[0][0] * v.x + a.m[1][0] * v.y + a.m[2][0] * v.z,
                  a.m[0][1] * v.x + a.m[1][1] * v.y + a.m[2][1] * v.z,
                  a.m[0][2] * v.x + a.m[1][2] * v.y + a.m[2][2] * v.z);
}

/// Returns A B.
static inline osc_mat3 osc_mat3_mul(osc_mat3 a, osc_mat3 b) {
    osc_mat3 c;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) c.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return c;
}

/// Returns A^T.
static inline osc_mat3 osc_mat3_transpose(osc_mat3 a) {
    osc_mat3 t;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) t.m[i][j] = a.m[j][i];
    return t;
}

/// Returns A + B.
static inline osc_mat3 osc_mat3_add(osc_mat3 a, osc_mat3 b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] += b.m[i][j];
    return a;
}

/// Returns s A.
static inline osc_mat3 osc_mat3_scale(osc_mat3 a, double s) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] *= s;
    return a;
}

/// Returns the outer product a b^T.
static inline osc_mat3 osc_outer(osc_vec3 a, osc_vec3 b) {
    osc_mat3 c = {
        {{a.x * b.x, a.x * b.y, a.x * b.z}, {a.y * b.x, a.y * b.y, a.y * b.z}, {a.z * b.x, a.z * b.y, a.z * b.z}}};
    return c;
}

/// Returns the skew matrix [a]x with [a]x b = a x b.
static inline osc_mat3 osc_skew(osc_vec3 a) {
    osc_mat3 c = {{{0.0, -a.z, a.y}, {a.z, 0.0, -a.x}, {-a.y, a.x, 0.0}}};
    return c;
}

/// Returns det(A).
static inline double osc_mat3_determinant(osc_mat3 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}

// ---------------------------------------------------------------------------------------------
// quaternions

/// Returns the identity rotation (1, 0, 0, 0).
static inline osc_quat osc_quat_identity(void) {
    osc_quat q = {1.0, 0.0, 0.0, 0.0};
    return q;
}

/// Returns the Hamilton product a b (rotation b first, then a).
static inline osc_quat osc_quat_mul(osc_quat a, osc_quat b) {
    osc_quat c = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                  a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return c;
}

/// Returns the conjugate (w, -x, -y, -z), the inverse of a unit quaternion.
static inline osc_quat osc_quat_conj(osc_quat q) {
    osc_quat c = {q.w, -q.x, -q.y, -q.z};
    return c;
}

/// Returns |q|.
static inline double osc_quat_norm(osc_quat q) { return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); }

/// Returns true when q has a finite, non-zero norm and can be normalised.
static inline bool osc_quat_is_normalizable(osc_quat q) {
    double n = osc_quat_norm(q);
    return isfinite(n) && n > 1e-150;
}

/// Returns q / |q|, or the zero quaternion when q cannot be normalised.
static inline osc_quat osc_quat_normalize(osc_quat q) {
    if (!osc_quat_is_normalizable(q)) {
        osc_quat zero = {0.0, 0.0, 0.0, 0.0};
        return zero;
    }
    double s = 1.0 / osc_quat_norm(q);
    osc_quat r = {q.w * s, q.x * s, q.y * s, q.z * s};
    return r;
}

/// Returns R(q) v for a unit quaternion q.
static inline osc_vec3 osc_quat_rotate(osc_quat q, osc_vec3 v) {
    // v' = v + 2 w (u x v) + 2 u x (u x v), u = vector part
    osc_vec3 u = {q.x, q.y, q.z};
    osc_vec3 t = osc_scale(osc_cross(u, v), 2.0);
    return osc_add(osc_add(v, osc_scale(t, q.w)), osc_cross(u, t));
}

/// Returns R(q)^T v for a unit quaternion q.
static inline osc_vec3 osc_quat_inv_rotate(osc_quat q, osc_vec3 v) { return osc_quat_rotate(osc_quat_conj(q), v); }

/// Returns the rotation matrix R(q) of a unit quaternion.
static inline osc_mat3 osc_quat_to_mat3(osc_quat q) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    osc_mat3 r = {{{1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)},
                   {2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)},
                   {2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)}}};
    return r;
}

/// Returns the unit quaternion of a rotation matrix (Shepperd's method; R must be orthonormal).
static inline osc_quat osc_quat_from_mat3(osc_mat3 r) {
    double trace = r.m[0][0] + r.m[1][1] + r.m[2][2];
    osc_quat q;
    if (trace > 0.0) {
        double s = 2.0 * sqrt(1.0 + trace);
        q.w = 0.25 * s;
        q.x = (r.m[2][1] - r.m[1][2]) / s;
        q.y = (r.m[0][2] - r.m[2][0]) / s;
        q.z = (r.m[1][0] - r.m[0][1]) / s;
    } else if (r.m[0][0] > r.m[1][1] && r.m[0][0] > r.m[2][2]) {
        double s = 2.0 * sqrt(1.0 + r.m[0][0] - r.m[1][1] - r.m[2][2]);
        q.w = (r.m[2][1] - r.m[1][2]) / s;
        q.x = 0.25 * s;
        q.y = (r.m[0][1] + r.m[1][0]) / s;
        q.z = (r.m[0][2] + r.m[2][0]) / s;
    } else if (r.m[1][1] > r.m[2][2]) {
        double s = 2.0 * sqrt(1.0 + r.m[1][1] - r.m[0][0] - r.m[2][2]);
        q.w = (r.m[0][2] - r.m[2][0]) / s;
        q.x = (r.m[0][1] + r.m[1][0]) / s;
        q.y = 0.25 * s;
        q.z = (r.m[1][2] + r.m[2][1]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + r.m[2][2] - r.m[0][0] - r.m[1][1]);
        q.w = (r.m[1][0] - r.m[0][1]) / s;
        q.x = (r.m[0][2] + r.m[2][0]) / s;
        q.y = (r.m[1][2] + r.m[2][1]) / s;
        q.z = 0.25 * s;
    }
    return osc_quat_normalize(q);
}

/// Returns exp(theta): the unit quaternion rotating by |theta| about theta / |theta|.
static inline osc_quat osc_quat_exp(osc_vec3 theta) {
    double angle = osc_length(theta);
    double half = 0.5 * angle;
    // sin(half) / angle, with its Taylor series near zero
    double k = angle < 1e-4 ? 0.5 - angle * angle / 48.0 : sin(half) / angle;
    osc_quat q = {cos(half), k * theta.x, k * theta.y, k * theta.z};
    return q;
}

/// Returns the rotation vector theta with exp(theta) = q (|theta| <= pi), for a unit q.
static inline osc_vec3 osc_quat_log(osc_quat q) {
    if (q.w < 0.0) q = (osc_quat){-q.w, -q.x, -q.y, -q.z};
    double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    double angle = 2.0 * atan2(s, q.w);
    double k = s < 1e-12 ? 2.0 / (q.w > 0.0 ? q.w : 1.0) : angle / s;
    return osc_v3(k * q.x, k * q.y, k * q.z);
}

/// Returns the unit quaternion rotating by `angle` (radians) about `axis` (normalised here).
static inline osc_quat osc_quat_from_axis_angle(osc_vec3 axis, double angle) {
    return osc_quat_exp(osc_scale(osc_normalize(axis), angle));
}

// ---------------------------------------------------------------------------------------------
// poses and twists

/// Returns the identity pose.
static inline osc_pose osc_pose_identity(void) {
    osc_pose pose = {{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}};
    return pose;
}

/// Returns the pose with position p and orientation q.
static inline osc_pose osc_pose_make(osc_vec3 p, osc_quat q) {
    osc_pose pose = {p, q};
    return pose;
}

/// Returns the world point R b + p of body point b.
static inline osc_vec3 osc_pose_apply(osc_pose pose, osc_vec3 b) { return osc_add(osc_quat_rotate(pose.q, b), pose.p); }

/// Returns the body point R^T (x - p) of world point x.
static inline osc_vec3 osc_pose_apply_inverse(osc_pose pose, osc_vec3 x) {
    return osc_quat_inv_rotate(pose.q, osc_sub(x, pose.p));
}

/// Returns the composition a * b (apply b, then a): world-from-c when a is world-from-b and b is
/// b-from-c.
static inline osc_pose osc_pose_compose(osc_pose a, osc_pose b) {
    osc_pose c = {osc_pose_apply(a, b.p), osc_quat_mul(a.q, b.q)};
    return c;
}

/// Returns the inverse pose (body-from-world).
static inline osc_pose osc_pose_inverse(osc_pose a) {
    osc_quat qi = osc_quat_conj(a.q);
    osc_pose b = {osc_neg(osc_quat_rotate(qi, a.p)), qi};
    return b;
}

/// Returns the pose perturbed by the twist xi = (dp, dtheta) on the left:
/// p + dp, exp(dtheta) q. The quaternion is re-normalised.
static inline osc_pose osc_pose_apply_twist(osc_pose pose, const double xi[6]) {
    osc_pose out;
    out.p = osc_v3(pose.p.x + xi[0], pose.p.y + xi[1], pose.p.z + xi[2]);
    out.q = osc_quat_normalize(osc_quat_mul(osc_quat_exp(osc_v3(xi[3], xi[4], xi[5])), pose.q));
    return out;
}

/// Returns true when p is finite and q can be normalised.
static inline bool osc_pose_is_valid(osc_pose pose) {
    return osc_vec3_is_finite(pose.p) && osc_quat_is_normalizable(pose.q);
}

// ---------------------------------------------------------------------------------------------
// derivative helpers (twist convention above)

/// Returns R v and writes d(R v)/d(dtheta) = -[R v]x (3 x 3, row-major) to `jacobian` (nullable):
/// the derivative of a rotated body vector along the rotational part of a twist.
static inline osc_vec3 osc_rotate_with_jacobian(osc_quat q, osc_vec3 v, double jacobian[3][3]) {
    osc_vec3 rv = osc_quat_rotate(q, v);
    if (jacobian) {
        osc_mat3 s = osc_skew(rv);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) jacobian[i][j] = -s.m[i][j];
    }
    return rv;
}

/// Returns the world point x = R b + p of body point b and writes dx/dxi = [I | -[x - p]x]
/// (3 x 6, row-major) to `jacobian` (nullable).
static inline osc_vec3 osc_pose_point_jacobian(osc_pose pose, osc_vec3 b, double jacobian[3][6]) {
    osc_vec3 rb = osc_quat_rotate(pose.q, b);
    if (jacobian) {
        osc_mat3 s = osc_skew(rb);
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                jacobian[i][j] = i == j ? 1.0 : 0.0;
                jacobian[i][3 + j] = -s.m[i][j];
            }
        }
    }
    return osc_add(rb, pose.p);
}

/// Returns the 3 x 4 matrix G (row-major) with dtheta = G dq: the world-frame rotation increment
/// caused by a change dq of a raw (not necessarily unit) quaternion q that is used as q / |q|.
/// G = (2 / |q|^2) [ -v | w I + [v]x ], v the vector part, columns ordered (w, x, y, z). NaN
/// when q cannot be normalised (osc_quat_is_normalizable): it has no rotation to differentiate.
static inline void osc_quat_to_twist_jacobian(osc_quat q, double g[3][4]) {
    double n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
    double k = osc_quat_is_normalizable(q) ? 2.0 / n2 : NAN;
    g[0][0] = -k * q.x;
    g[0][1] = k * q.w;
    g[0][2] = -k * q.z;
    g[0][3] = k * q.y;
    g[1][0] = -k * q.y;
    g[1][1] = k * q.z;
    g[1][2] = k * q.w;
    g[1][3] = -k * q.x;
    g[2][0] = -k * q.z;
    g[2][1] = -k * q.y;
    g[2][2] = k * q.x;
    g[2][3] = k * q.w;
}

/// Converts a Jacobian with respect to a twist, `jacobian_twist` [rows][6], into the Jacobian with
/// respect to the raw pose parameters (p, q), `jacobian_pq` [rows][7] with columns
/// (px, py, pz, qw, qx, qy, qz), for a pose whose quaternion q is used as q / |q| (the q columns
/// are NaN when q cannot be normalised).
static inline void osc_twist_jacobian_to_pq(const double* jacobian_twist, int rows, osc_quat q, double* jacobian_pq) {
    double g[3][4];
    osc_quat_to_twist_jacobian(q, g);
    for (int r = 0; r < rows; ++r) {
        const double* jt = jacobian_twist + 6 * r;
        double* jp = jacobian_pq + 7 * r;
        jp[0] = jt[0];
        jp[1] = jt[1];
        jp[2] = jt[2];
        for (int c = 0; c < 4; ++c) jp[3 + c] = jt[3] * g[0][c] + jt[4] * g[1][c] + jt[5] * g[2][c];
    }
}

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_MATH_H
