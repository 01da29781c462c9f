// test_math.c: math.h against hand-computed values, algebraic identities, an independent Rodrigues
// formula, and its derivative helpers against central finite differences along the twist
// convention of docs/architecture.md §2 (xi = (dp, dtheta) on the left, in world coordinates).
//
// Tolerances. Identities of O(1) quantities hold to a few ulps (measured: <= 6e-16), so they are
// checked at 1e-14 relative to the size of the compared values (1e-15 where one rounding step is
// all there is, 1e-13 for products of three random matrices). Finite differences use a step
// of 1e-6 (relative to the scale of the perturbed quantity): the central-difference truncation
// error is ~eps^2 = 1e-12 and the rounding error ~1e-16 / eps = 1e-10 relative, so 1e-7 relative
// to the Jacobian's scale leaves three orders of margin while still failing on any wrong sign,
// factor or column (those are errors of order 1).

#include "osculate/math.h"

#include "test_common.h"

static test_rng rng = {20240521};

// ---------------------------------------------------------------------------------------------
// helpers, written independently of math.h where they serve as oracles

static osc_vec3 random_vec(double scale) {
    return osc_v3(test_uniform(&rng, -scale, scale), test_uniform(&rng, -scale, scale),
                  test_uniform(&rng, -scale, scale));
}

static osc_mat3 random_mat(double scale) {
    osc_mat3 a;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] = test_uniform(&rng, -scale, scale);
    return a;
}

// uniform on the unit 3-sphere: rejection sampling in the 4-ball, then normalised by hand
static osc_quat random_unit_quat(void) {
    for (;;) {
        double c[4], n2 = 0.0;
        for (int i = 0; i < 4; ++i) {
            c[i] = test_uniform(&rng, -1.0, 1.0);
            n2 += c[i] * c[i];
        }
        if (n2 > 1.0 || n2 < 1e-2) continue;
        double s = 1.0 / sqrt(n2);
        osc_quat q = {c[0] * s, c[1] * s, c[2] * s, c[3] * s};
        return q;
    }
}

static osc_vec3 random_unit_vec(void) {
    osc_quat q = random_unit_quat(); // a random direction: the normalised vector part
    double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (n < 1e-3) return osc_v3(0.0, 0.0, 1.0);
    return osc_v3(q.x / n, q.y / n, q.z / n);
}

static osc_pose random_pose(void) { return osc_pose_make(random_vec(3.0), random_unit_quat()); }

static double vec_diff(osc_vec3 a, osc_vec3 b) { return fmax(fabs(a.x - b.x), fmax(fabs(a.y - b.y), fabs(a.z - b.z))); }

static double mat_diff(osc_mat3 a, osc_mat3 b) {
    double d = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) d = fmax(d, fabs(a.m[i][j] - b.m[i][j]));
    return d;
}

// max-abs distance between a and b up to the sign of b (q and -q are the same rotation)
static double quat_diff_up_to_sign(osc_quat a, osc_quat b) {
    double plus = fmax(fmax(fabs(a.w - b.w), fabs(a.x - b.x)), fmax(fabs(a.y - b.y), fabs(a.z - b.z)));
    double minus = fmax(fmax(fabs(a.w + b.w), fabs(a.x + b.x)), fmax(fabs(a.y + b.y), fabs(a.z + b.z)));
    return fmin(plus, minus);
}

// Rodrigues' formula R = I + sin(a) K + (1 - cos(a)) K^2 for the unit axis k, K = [k]x by hand
static osc_mat3 rodrigues(osc_vec3 theta) {
    double angle = sqrt(theta.x * theta.x + theta.y * theta.y + theta.z * theta.z);
    osc_mat3 r = {{{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}};
    if (angle == 0.0) return r;
    double kx = theta.x / angle, ky = theta.y / angle, kz = theta.z / angle;
    double k[3][3] = {{0.0, -kz, ky}, {kz, 0.0, -kx}, {-ky, kx, 0.0}};
    double s = sin(angle), c1 = 1.0 - cos(angle);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double k2 = k[i][0] * k[0][j] + k[i][1] * k[1][j] + k[i][2] * k[2][j];
            r.m[i][j] += s * k[i][j] + c1 * k2;
        }
    return r;
}

// ---------------------------------------------------------------------------------------------
// vectors and matrices

// oracle: hand-computed values, the right-handed basis, Lagrange's identity, orthogonality
static void test_vector_identities(void) {
    osc_vec3 ex = osc_v3(1, 0, 0), ey = osc_v3(0, 1, 0), ez = osc_v3(0, 0, 1);
    CHECK(vec_diff(osc_cross(ex, ey), ez) == 0.0); // right-handed: x cross y = z
    CHECK(vec_diff(osc_cross(ey, ez), ex) == 0.0);
    CHECK(vec_diff(osc_cross(ez, ex), ey) == 0.0);
    CHECK(vec_diff(osc_cross(osc_v3(1, 2, 3), osc_v3(4, 5, 6)), osc_v3(-3, 6, -3)) == 0.0);
    CHECK(osc_dot(osc_v3(1, 2, 3), osc_v3(4, -5, 6)) == 12.0);
    CHECK(osc_length(osc_v3(2, 3, 6)) == 7.0);
    CHECK(osc_length_squared(osc_v3(2, 3, 6)) == 49.0);
    CHECK(vec_diff(osc_add(osc_v3(1, 2, 3), osc_v3(4, 5, 6)), osc_v3(5, 7, 9)) == 0.0);
    CHECK(vec_diff(osc_sub(osc_v3(1, 2, 3), osc_v3(4, 6, 8)), osc_v3(-3, -4, -5)) == 0.0);
    CHECK(vec_diff(osc_scale(osc_v3(1, -2, 3), 2.0), osc_v3(2, -4, 6)) == 0.0);
    CHECK(vec_diff(osc_neg(osc_v3(1, -2, 3)), osc_v3(-1, 2, -3)) == 0.0);
    CHECK(vec_diff(osc_add_scaled(osc_v3(1, 2, 3), osc_v3(1, 1, 2), 3.0), osc_v3(4, 5, 9)) == 0.0);
    CHECK(vec_diff(osc_mul_elem(osc_v3(1, 2, 3), osc_v3(4, 5, -6)), osc_v3(4, 10, -18)) == 0.0);
    CHECK(vec_diff(osc_lerp(osc_v3(0, 2, 4), osc_v3(4, 6, 0), 0.25), osc_v3(1, 3, 3)) == 0.0);
    CHECK(osc_vec3_get(osc_v3(7, 8, 9), 0) == 7.0 && osc_vec3_get(osc_v3(7, 8, 9), 1) == 8.0 &&
          osc_vec3_get(osc_v3(7, 8, 9), 2) == 9.0);

    double worst_orth = 0.0, worst_lagrange = 0.0, worst_unit = 0.0, worst_parallel = 0.0;
    for (int i = 0; i < 2000; ++i) {
        osc_vec3 a = random_vec(10.0), b = random_vec(10.0);
        osc_vec3 c = osc_cross(a, b);
        double la2 = osc_length_squared(a), lb2 = osc_length_squared(b);
        double scale = la2 * lb2; // the size of every term below
        worst_orth = fmax(worst_orth, fabs(osc_dot(c, a)) / (la2 * sqrt(lb2)));
        worst_orth = fmax(worst_orth, fabs(osc_dot(c, b)) / (lb2 * sqrt(la2)));
        double dot = osc_dot(a, b);
        worst_lagrange = fmax(worst_lagrange, fabs(osc_length_squared(c) + dot * dot - scale) / scale);
        osc_vec3 n = osc_normalize(a);
        worst_unit = fmax(worst_unit, fabs(osc_length(n) - 1.0));
        worst_parallel = fmax(worst_parallel, vec_diff(osc_scale(n, osc_length(a)), a) / sqrt(la2));
        CHECK(osc_dot(n, a) > 0.0);
    }
    CHECK_MSG(worst_orth < 1e-14, "cross product not orthogonal: %g", worst_orth);
    CHECK_MSG(worst_lagrange < 1e-14, "Lagrange identity error %g", worst_lagrange);
    CHECK_MSG(worst_unit < 1e-15, "normalised length error %g", worst_unit);
    CHECK_MSG(worst_parallel < 1e-14, "normalised direction error %g", worst_parallel);

    // zero and non-finite vectors normalise to exactly zero (documented)
    const double bad[4] = {0.0, NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 4; ++i) {
        osc_vec3 v = i == 0 ? osc_v3(0, 0, 0) : osc_v3(1.0, bad[i], 2.0);
        osc_vec3 n = osc_normalize(v);
        CHECK_MSG(n.x == 0.0 && n.y == 0.0 && n.z == 0.0, "normalize(bad %d) = (%g, %g, %g)", i, n.x, n.y, n.z);
        CHECK(osc_vec3_is_finite(v) == (i == 0));
    }
    // tiny but non-zero vectors are still normalised
    CHECK_NEAR(osc_length(osc_normalize(osc_v3(3e-150, 4e-150, 0))), 1.0, 1e-15);
}

// oracle: component sums written out, det(AB) = det A det B, u.(A v) = (A^T u).v, skew = cross
static void test_mat3_ops(void) {
    osc_mat3 id = osc_mat3_identity(), zero = osc_mat3_zero();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            CHECK(id.m[i][j] == (i == j ? 1.0 : 0.0));
            CHECK(zero.m[i][j] == 0.0);
        }
    osc_mat3 known = {{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}}};
    CHECK(osc_mat3_determinant(known) == -3.0);
    CHECK(osc_mat3_determinant(id) == 1.0);
    osc_mat3 swap_xy = {{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}};
    CHECK(osc_mat3_determinant(swap_xy) == -1.0);
    CHECK(vec_diff(osc_mat3_apply(known, osc_v3(1, -1, 2)), osc_v3(5, 11, 19)) == 0.0);
    CHECK(vec_diff(osc_mat3_apply_transpose(known, osc_v3(1, -1, 2)), osc_v3(11, 13, 17)) == 0.0);

    double worst = 0.0;
    for (int t = 0; t < 500; ++t) {
        osc_mat3 a = random_mat(2.0), b = random_mat(2.0);
        osc_vec3 u = random_vec(2.0), v = random_vec(2.0), w = random_vec(2.0);
        // (A B) v = A (B v) and the product entries as written-out sums
        osc_mat3 ab = osc_mat3_mul(a, b);
        worst = fmax(worst, vec_diff(osc_mat3_apply(ab, v), osc_mat3_apply(a, osc_mat3_apply(b, v))));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double sum = 0.0;
                for (int k = 0; k < 3; ++k) sum += a.m[i][k] * b.m[k][j];
                worst = fmax(worst, fabs(ab.m[i][j] - sum));
            }
        // transpose swaps entries; (AB)^T = B^T A^T; A^T v = apply_transpose
        osc_mat3 at = osc_mat3_transpose(a);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) CHECK(at.m[i][j] == a.m[j][i]);
        worst = fmax(worst, mat_diff(osc_mat3_transpose(ab), osc_mat3_mul(osc_mat3_transpose(b), at)));
        worst = fmax(worst, fabs(osc_dot(u, osc_mat3_apply(a, v)) - osc_dot(osc_mat3_apply_transpose(a, u), v)));
        // determinant: multiplicative, and the triple product for columns
        double da = osc_mat3_determinant(a), db = osc_mat3_determinant(b);
        worst = fmax(worst, fabs(osc_mat3_determinant(ab) - da * db) / 64.0);
        osc_mat3 cols = osc_mat3_from_columns(u, v, w);
        worst = fmax(worst, fabs(osc_mat3_determinant(cols) - osc_dot(u, osc_cross(v, w))));
        worst = fmax(worst, vec_diff(osc_mat3_column(cols, 0), u) + vec_diff(osc_mat3_column(cols, 2), w));
        worst = fmax(worst, vec_diff(osc_mat3_apply(cols, osc_v3(0, 1, 0)), v));
        // skew(a) b = a x b, skew is antisymmetric
        osc_mat3 s = osc_skew(u);
        worst = fmax(worst, vec_diff(osc_mat3_apply(s, v), osc_cross(u, v)));
        worst = fmax(worst, mat_diff(osc_mat3_transpose(s), osc_mat3_scale(s, -1.0)));
        // outer(u, v) w = u (v . w), entries u_i v_j
        osc_mat3 o = osc_outer(u, v);
        worst = fmax(worst, vec_diff(osc_mat3_apply(o, w), osc_scale(u, osc_dot(v, w))));
        CHECK(o.m[2][0] == u.z * v.x && o.m[0][1] == u.x * v.y);
        // add and scale
        osc_mat3 sum = osc_mat3_add(a, osc_mat3_scale(b, 3.0));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) worst = fmax(worst, fabs(sum.m[i][j] - (a.m[i][j] + 3.0 * b.m[i][j])));
    }
    CHECK_MSG(worst < 1e-13, "mat3 identity error %g", worst);
}

// ---------------------------------------------------------------------------------------------
// quaternions

// oracle: hand-computed rotations (pins the handedness), R(q) v = rotate, R orthonormal with
// det +1, inverse and composition, q and -q give the same rotation
static void test_quat_rotation(void) {
    double h = sqrt(0.5);
    osc_quat z90 = {h, 0.0, 0.0, h}, x90 = {h, h, 0.0, 0.0};
    CHECK(vec_diff(osc_quat_rotate(z90, osc_v3(1, 0, 0)), osc_v3(0, 1, 0)) < 1e-15);
    CHECK(vec_diff(osc_quat_rotate(x90, osc_v3(0, 1, 0)), osc_v3(0, 0, 1)) < 1e-15);
    // Hamilton product: i j = k, and a b applies b first
    osc_quat i = {0, 1, 0, 0}, j = {0, 0, 1, 0};
    osc_quat k = osc_quat_mul(i, j);
    CHECK(k.w == 0.0 && k.x == 0.0 && k.y == 0.0 && k.z == 1.0);
    // (z90 x90) v: x90 takes y to z, which z90 keeps; the other order would give -x
    CHECK(vec_diff(osc_quat_rotate(osc_quat_mul(z90, x90), osc_v3(0, 1, 0)), osc_v3(0, 0, 1)) < 1e-15);
    osc_quat id = osc_quat_identity();
    CHECK(id.w == 1.0 && id.x == 0.0 && id.y == 0.0 && id.z == 0.0);
    osc_quat c = osc_quat_conj(osc_quat_mul(i, z90));
    osc_quat c_ref = osc_quat_mul(osc_quat_conj(z90), osc_quat_conj(i));
    CHECK(fabs(c.w - c_ref.w) + fabs(c.x - c_ref.x) + fabs(c.y - c_ref.y) + fabs(c.z - c_ref.z) < 1e-15);

    double worst = 0.0, worst_orth = 0.0;
    for (int t = 0; t < 2000; ++t) {
        osc_quat q = random_unit_quat(), r = random_unit_quat();
        osc_vec3 v = random_vec(5.0);
        osc_mat3 m = osc_quat_to_mat3(q);
        worst = fmax(worst, vec_diff(osc_quat_rotate(q, v), osc_mat3_apply(m, v)) / 5.0);
        worst = fmax(worst, mat_diff(m, osc_quat_to_mat3((osc_quat){-q.w, -q.x, -q.y, -q.z})));
        worst_orth = fmax(worst_orth, mat_diff(osc_mat3_mul(osc_mat3_transpose(m), m), osc_mat3_identity()));
        worst_orth = fmax(worst_orth, fabs(osc_mat3_determinant(m) - 1.0));
        worst = fmax(worst, vec_diff(osc_quat_inv_rotate(q, osc_quat_rotate(q, v)), v) / 5.0);
        worst = fmax(worst, vec_diff(osc_quat_inv_rotate(q, v), osc_mat3_apply_transpose(m, v)) / 5.0);
        worst = fmax(worst, fabs(osc_length(osc_quat_rotate(q, v)) - osc_length(v)) / 5.0);
        osc_vec3 composed = osc_quat_rotate(osc_quat_mul(q, r), v);
        worst = fmax(worst, vec_diff(composed, osc_quat_rotate(q, osc_quat_rotate(r, v))) / 5.0);
        worst = fmax(worst, fabs(osc_quat_norm(osc_quat_mul(q, r)) - 1.0));
    }
    CHECK_MSG(worst < 1e-14, "rotation identity error %g", worst);
    CHECK_MSG(worst_orth < 1e-14, "rotation matrix not orthonormal: %g", worst_orth);
}

// oracle: from_mat3(to_mat3(q)) = +-q, on random rotations and on rotations that reach every
// branch of Shepperd's method (trace > 0, and each diagonal entry being the largest)
static void test_quat_from_mat3(void) {
    double worst = 0.0;
    for (int t = 0; t < 2000; ++t) {
        osc_quat q = random_unit_quat();
        worst = fmax(worst, quat_diff_up_to_sign(osc_quat_from_mat3(osc_quat_to_mat3(q)), q));
    }
    const osc_vec3 axes[4] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.6, -0.48, 0.64}};
    const double angles[7] = {0.0, 1e-8, 2.0943951023931957, 2.5, 3.1, 3.14159265, 3.141592653589793};
    for (int a = 0; a < 4; ++a)
        for (int k = 0; k < 7; ++k) {
            double half = 0.5 * angles[k];
            osc_quat q = {cos(half), sin(half) * axes[a].x, sin(half) * axes[a].y, sin(half) * axes[a].z};
            osc_quat back = osc_quat_from_mat3(osc_quat_to_mat3(q));
            worst = fmax(worst, quat_diff_up_to_sign(back, q));
            CHECK(fabs(osc_quat_norm(back) - 1.0) < 1e-15);
        }
    CHECK_MSG(worst < 1e-14, "from_mat3 round trip error %g", worst);
}

// oracle: exp(theta) = (cos(|theta|/2), sin(|theta|/2) theta/|theta|) and Rodrigues, both computed
// here without a Taylor series; exp(log(q)) = +-q; log inverts exp for |theta| <= pi
static void test_quat_exp_log(void) {
    // small angles on both sides of the 1e-4 Taylor switch, and angles near and beyond pi
    const double angles[] = {0.0,
                             1e-300,
                             1e-13,
                             1e-9,
                             1e-5,
                             9.99e-5,
                             1e-4 * (1 - 1e-12),
                             1e-4,
                             1e-4 * (1 + 1e-12),
                             1.001e-4,
                             1e-3,
                             0.5,
                             2.0,
                             3.14159265,
                             3.141592653589793 - 1e-9,
                             3.141592653589793,
                             3.2,
                             6.0};
    const int count = (int)(sizeof angles / sizeof angles[0]);
    double worst_exp = 0.0, worst_rot = 0.0, worst_log = 0.0, worst_round = 0.0;
    for (int t = 0; t < 200; ++t) {
        osc_vec3 axis = random_unit_vec();
        osc_vec3 v = random_vec(2.0);
        for (int a = 0; a < count; ++a) {
            double angle = angles[a];
            osc_vec3 theta = osc_scale(axis, angle);
            osc_quat q = osc_quat_exp(theta);
            // below angle 1 the vector part is checked relative to its size, so a wrong Taylor
            // coefficient shows (it is off by ~angle^2 relative); elsewhere absolutely
            double s = sin(0.5 * angle);
            double err_w = fabs(q.w - cos(0.5 * angle));
            double err_v = vec_diff(osc_v3(q.x, q.y, q.z), osc_scale(axis, s));
            worst_exp = fmax(worst_exp, fmax(err_w, angle < 1.0 && s > 0.0 ? err_v / s : err_v));
            worst_rot = fmax(worst_rot, vec_diff(osc_quat_rotate(q, v), osc_mat3_apply(rodrigues(theta), v)));
            osc_vec3 back = osc_quat_log(q);
            worst_round = fmax(worst_round, quat_diff_up_to_sign(osc_quat_exp(back), q));
            CHECK(osc_length(back) <= 3.141592653589793 + 1e-15);
            // log inverts exp up to 2 pi: the equivalent rotation vector of length <= pi; at pi
            // itself theta and -theta are the same rotation and either is correct
            double wrapped = angle <= 3.141592653589793 ? angle : angle - 2.0 * 3.141592653589793;
            double err = vec_diff(back, osc_scale(axis, wrapped));
            if (fabs(wrapped) > 3.141592653589793 - 1e-12) err = fmin(err, vec_diff(back, osc_scale(axis, -wrapped)));
            worst_log = fmax(worst_log, angle < 1.0 ? err / fmax(angle, 1e-300) : err);
        }
    }
    CHECK_MSG(worst_exp < 1e-15, "exp error %g", worst_exp);
    CHECK_MSG(worst_rot < 1e-14, "exp rotation vs Rodrigues error %g", worst_rot);
    CHECK_MSG(worst_log < 1e-14, "log(exp(theta)) error %g", worst_log);
    CHECK_MSG(worst_round < 1e-15, "exp(log(q)) error %g", worst_round);

    // continuity across the Taylor switch: sin(a/2)/a has slope -a/24 ~ 4e-6 there
    osc_quat below = osc_quat_exp(osc_v3(nextafter(1e-4, 0.0), 0, 0));
    osc_quat above = osc_quat_exp(osc_v3(1e-4, 0, 0));
    CHECK(fabs(below.x / nextafter(1e-4, 0.0) - above.x / 1e-4) < 4e-16);

    // random unit quaternions: exp(log(q)) = +-q
    for (int t = 0; t < 2000; ++t) {
        osc_quat q = random_unit_quat();
        worst_round = fmax(worst_round, quat_diff_up_to_sign(osc_quat_exp(osc_quat_log(q)), q));
    }
    CHECK_MSG(worst_round < 1e-15, "exp(log(q)) error %g", worst_round);

    // exact identities and axis-angle (axis normalised by the function)
    osc_quat e0 = osc_quat_exp(osc_v3(0, 0, 0));
    CHECK(e0.w == 1.0 && e0.x == 0.0 && e0.y == 0.0 && e0.z == 0.0);
    osc_vec3 l0 = osc_quat_log(osc_quat_identity());
    CHECK(l0.x == 0.0 && l0.y == 0.0 && l0.z == 0.0);
    osc_quat aa = osc_quat_from_axis_angle(osc_v3(0, 0, 3), 0.5 * 3.141592653589793);
    CHECK(vec_diff(osc_quat_rotate(aa, osc_v3(1, 0, 0)), osc_v3(0, 1, 0)) < 1e-15);
}

// oracle: the documented non-normalisable cases give false and the zero quaternion; finite
// non-zero norms over 200 decades normalise to unit length along the same direction
static void test_quat_normalization(void) {
    osc_quat known = {1, 2, 2, 4};
    CHECK(osc_quat_norm(known) == 5.0);
    const osc_quat bad[6] = {{0, 0, 0, 0},         {NAN, 0, 0, 1},       {1, INFINITY, 0, 0},
                             {0, 0, -INFINITY, 0}, {0.5, 0.5, 0.5, NAN}, {0, -0.0, 0, 0}};
    for (int i = 0; i < 6; ++i) {
        CHECK_MSG(!osc_quat_is_normalizable(bad[i]), "bad quaternion %d reported normalizable", i);
        osc_quat n = osc_quat_normalize(bad[i]);
        CHECK_MSG(n.w == 0.0 && n.x == 0.0 && n.y == 0.0 && n.z == 0.0, "bad %d normalised to (%g %g %g %g)", i, n.w,
                  n.x, n.y, n.z);
        CHECK(!osc_pose_is_valid(osc_pose_make(osc_v3(0, 0, 0), bad[i])));
    }
    CHECK(!osc_pose_is_valid(osc_pose_make(osc_v3(0, NAN, 0), osc_quat_identity())));
    CHECK(!osc_pose_is_valid(osc_pose_make(osc_v3(INFINITY, 0, 0), osc_quat_identity())));
    CHECK(osc_pose_is_valid(random_pose()));

    double worst = 0.0;
    for (int t = 0; t < 1000; ++t) {
        osc_quat u = random_unit_quat();
        double scale = pow(10.0, test_uniform(&rng, -100.0, 100.0));
        osc_quat q = {u.w * scale, u.x * scale, u.y * scale, u.z * scale};
        CHECK(osc_quat_is_normalizable(q));
        osc_quat n = osc_quat_normalize(q);
        worst = fmax(worst, fabs(osc_quat_norm(n) - 1.0));
        worst = fmax(worst, quat_diff_up_to_sign(n, u));
        CHECK(n.w * u.w + n.x * u.x + n.y * u.y + n.z * u.z > 0.0); // same sign, not -u
    }
    CHECK_MSG(worst < 1e-15, "normalisation error %g", worst);
}

// ---------------------------------------------------------------------------------------------
// poses and twists

// oracle: x = R(q) b + p with the matrix; inverse and composition identities
static void test_pose_ops(void) {
    osc_pose id = osc_pose_identity();
    CHECK(vec_diff(osc_pose_apply(id, osc_v3(1, 2, 3)), osc_v3(1, 2, 3)) == 0.0);
    double worst = 0.0;
    for (int t = 0; t < 2000; ++t) {
        osc_pose a = random_pose(), b = random_pose();
        osc_vec3 x = random_vec(3.0);
        osc_vec3 ax = osc_pose_apply(a, x);
        worst = fmax(worst, vec_diff(ax, osc_add(osc_mat3_apply(osc_quat_to_mat3(a.q), x), a.p)));
        worst = fmax(worst, vec_diff(osc_pose_apply_inverse(a, ax), x));
        worst =
            fmax(worst, vec_diff(osc_pose_apply(osc_pose_compose(a, b), x), osc_pose_apply(a, osc_pose_apply(b, x))));
        osc_pose ia = osc_pose_inverse(a);
        worst = fmax(worst, vec_diff(osc_pose_apply(ia, x), osc_pose_apply_inverse(a, x)));
        osc_pose left = osc_pose_compose(ia, a), right = osc_pose_compose(a, ia);
        worst = fmax(worst, vec_diff(left.p, osc_v3(0, 0, 0)) + vec_diff(right.p, osc_v3(0, 0, 0)));
        worst = fmax(worst, quat_diff_up_to_sign(left.q, osc_quat_identity()));
        worst = fmax(worst, quat_diff_up_to_sign(right.q, osc_quat_identity()));
    }
    CHECK_MSG(worst / 10.0 < 1e-14, "pose identity error %g (points up to ~10)", worst);
}

// oracle: docs/architecture.md §2, p <- p + dp and R <- exp([dtheta]x) R with Rodrigues' matrix
static void test_twist_convention(void) {
    double worst = 0.0;
    for (int t = 0; t < 1000; ++t) {
        osc_pose pose = random_pose();
        double xi[6];
        for (int i = 0; i < 6; ++i) xi[i] = test_uniform(&rng, -1.5, 1.5);
        osc_pose moved = osc_pose_apply_twist(pose, xi);
        CHECK(moved.p.x == pose.p.x + xi[0] && moved.p.y == pose.p.y + xi[1] && moved.p.z == pose.p.z + xi[2]);
        osc_mat3 expected = osc_mat3_mul(rodrigues(osc_v3(xi[3], xi[4], xi[5])), osc_quat_to_mat3(pose.q));
        worst = fmax(worst, mat_diff(osc_quat_to_mat3(moved.q), expected));
        worst = fmax(worst, fabs(osc_quat_norm(moved.q) - 1.0));
        // a body point moves as x' = exp([dtheta]x) (x - p) + p + dp: the rotation is about the
        // body origin, in world axes
        osc_vec3 b = random_vec(2.0);
        osc_vec3 rb = osc_mat3_apply(rodrigues(osc_v3(xi[3], xi[4], xi[5])), osc_quat_rotate(pose.q, b));
        worst =
            fmax(worst, vec_diff(osc_pose_apply(moved, b), osc_add(rb, osc_add(pose.p, osc_v3(xi[0], xi[1], xi[2])))));
    }
    CHECK_MSG(worst / 10.0 < 1e-14, "twist convention error %g (points up to ~10)", worst);
}

// central difference of x(xi) = apply(apply_twist(pose, xi), b) along e_j, step eps
static osc_vec3 fd_twist_column(osc_pose pose, osc_vec3 b, int j, double eps) {
    double xi[6] = {0, 0, 0, 0, 0, 0};
    xi[j] = eps;
    osc_vec3 plus = osc_pose_apply(osc_pose_apply_twist(pose, xi), b);
    xi[j] = -eps;
    osc_vec3 minus = osc_pose_apply(osc_pose_apply_twist(pose, xi), b);
    return osc_scale(osc_sub(plus, minus), 0.5 / eps);
}

// oracle: central finite differences along each of the 6 twist directions
static void test_point_jacobian(void) {
    const double eps = 1e-6;
    double worst = 0.0;
    for (int t = 0; t < 500; ++t) {
        osc_pose pose = random_pose();
        osc_vec3 b = random_vec(2.0);
        double jac[3][6];
        osc_vec3 x = osc_pose_point_jacobian(pose, b, jac);
        CHECK(vec_diff(x, osc_pose_apply(pose, b)) < 1e-15 * 8.0);
        CHECK(vec_diff(osc_pose_point_jacobian(pose, b, NULL), x) == 0.0);
        double scale = 1.0 + osc_length(b); // the largest entry of the Jacobian is about max(1, |b|)
        for (int j = 0; j < 6; ++j) {
            osc_vec3 fd = fd_twist_column(pose, b, j, eps);
            osc_vec3 col = osc_v3(jac[0][j], jac[1][j], jac[2][j]);
            worst = fmax(worst, vec_diff(col, fd) / scale);
        }
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) CHECK(jac[i][j] == (i == j ? 1.0 : 0.0));
    }
    CHECK_MSG(worst < 1e-7, "point Jacobian vs finite differences: %g", worst);
}

// oracle: central finite differences of R v along dtheta
static void test_rotate_with_jacobian(void) {
    const double eps = 1e-6;
    double worst = 0.0;
    for (int t = 0; t < 500; ++t) {
        osc_quat q = random_unit_quat();
        osc_vec3 v = random_vec(3.0);
        double jac[3][3];
        osc_vec3 rv = osc_rotate_with_jacobian(q, v, jac);
        CHECK(vec_diff(rv, osc_quat_rotate(q, v)) == 0.0);
        CHECK(vec_diff(osc_rotate_with_jacobian(q, v, NULL), rv) == 0.0);
        osc_pose pose = osc_pose_make(osc_v3(0, 0, 0), q);
        for (int j = 0; j < 3; ++j) {
            osc_vec3 fd = fd_twist_column(pose, v, 3 + j, eps);
            worst = fmax(worst, vec_diff(osc_v3(jac[0][j], jac[1][j], jac[2][j]), fd) / (1.0 + osc_length(v)));
        }
    }
    CHECK_MSG(worst < 1e-7, "rotation Jacobian vs finite differences: %g", worst);
}

// world rotation increment from unit qa to unit qb: log(qb conj(qa))
static osc_vec3 rotation_increment(osc_quat qa, osc_quat qb) {
    return osc_quat_log(osc_quat_mul(qb, osc_quat_conj(qa)));
}

// oracle: perturb the raw quaternion by +-eps e_j, normalise, and take the world rotation
// increment log(q'_hat conj(q_hat)) / (2 eps) as a central difference; |q| = 0.3, 1 and 5
static void test_quat_to_twist_jacobian(void) {
    const double norms[3] = {0.3, 1.0, 5.0};
    double worst = 0.0, worst_null = 0.0;
    for (int t = 0; t < 300; ++t) {
        osc_quat u = random_unit_quat();
        for (int k = 0; k < 3; ++k) {
            double n = norms[k];
            double raw[4] = {u.w * n, u.x * n, u.y * n, u.z * n};
            osc_quat q = {raw[0], raw[1], raw[2], raw[3]};
            osc_quat q_hat = osc_quat_normalize(q);
            double g[3][4];
            osc_quat_to_twist_jacobian(q, g);
            double eps = 1e-6 * n;
            double scale = 2.0 / n; // |G| entries are at most 2 / |q|
            for (int j = 0; j < 4; ++j) {
                double plus[4], minus[4];
                for (int c = 0; c < 4; ++c) plus[c] = minus[c] = raw[c];
                plus[j] += eps;
                minus[j] -= eps;
                osc_quat qp = osc_quat_normalize((osc_quat){plus[0], plus[1], plus[2], plus[3]});
                osc_quat qm = osc_quat_normalize((osc_quat){minus[0], minus[1], minus[2], minus[3]});
                osc_vec3 fd =
                    osc_scale(osc_sub(rotation_increment(q_hat, qp), rotation_increment(q_hat, qm)), 0.5 / eps);
                worst = fmax(worst, vec_diff(osc_v3(g[0][j], g[1][j], g[2][j]), fd) / scale);
            }
            // scaling q does not rotate: G q = 0
            for (int i = 0; i < 3; ++i)
                worst_null =
                    fmax(worst_null, fabs(g[i][0] * raw[0] + g[i][1] * raw[1] + g[i][2] * raw[2] + g[i][3] * raw[3]));
        }
    }
    CHECK_MSG(worst < 1e-7, "quaternion-to-twist Jacobian vs finite differences: %g", worst);
    CHECK_MSG(worst_null < 1e-14, "G q != 0: %g", worst_null);
    // a quaternion that cannot be normalised has no rotation to differentiate: NaN, not the zeros
    // that read as "no dependence" (a zero, infinite, NaN or overflowing quaternion)
    const osc_quat bad[] = {
        {0, 0, 0, 0}, {INFINITY, 0, 0, 0}, {NAN, 0.5, 0.5, 0.5}, {1e200, 0, 0, 0}, {1e-160, 0, 0, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        double g[3][4];
        osc_quat_to_twist_jacobian(bad[i], g);
        int finite = 0;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c) finite += isfinite(g[r][c]);
        CHECK_MSG(finite == 0, "quaternion %zu: %d finite entries", i, finite);
        double twist[6] = {1, 2, 3, 4, 5, 6}, pq[7];
        osc_twist_jacobian_to_pq(twist, 1, bad[i], pq);
        CHECK_MSG(pq[0] == 1 && pq[1] == 2 && pq[2] == 3 && isnan(pq[3]) && isnan(pq[6]),
                  "quaternion %zu: pq row (%g, %g, %g, %g, ..., %g)", i, pq[0], pq[1], pq[2], pq[3], pq[6]);
    }
}

// oracle: central finite differences with respect to the raw (px, py, pz, qw, qx, qy, qz) of an
// unnormalised pose, for the stacked world points of two body points (rows = 6 checks the stride)
static void test_twist_jacobian_to_pq(void) {
    const double norms[2] = {0.3, 5.0};
    double worst = 0.0;
    for (int t = 0; t < 300; ++t) {
        osc_pose unit = random_pose();
        osc_vec3 body[2] = {random_vec(2.0), random_vec(2.0)};
        for (int k = 0; k < 2; ++k) {
            double n = norms[k];
            double raw[7] = {unit.p.x, unit.p.y, unit.p.z, unit.q.w * n, unit.q.x * n, unit.q.y * n, unit.q.z * n};
            osc_quat q = {raw[3], raw[4], raw[5], raw[6]};
            double jac_twist[6][6], jac_pq[6][7];
            for (int r = 0; r < 2; ++r) {
                double point_jac[3][6];
                osc_pose_point_jacobian(unit, body[r], point_jac);
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 6; ++j) jac_twist[3 * r + i][j] = point_jac[i][j];
            }
            osc_twist_jacobian_to_pq(&jac_twist[0][0], 6, q, &jac_pq[0][0]);
            for (int j = 0; j < 7; ++j) {
                double eps = j < 3 ? 1e-6 : 1e-6 * n;
                double y[2][6];
                for (int side = 0; side < 2; ++side) {
                    double v[7];
                    for (int c = 0; c < 7; ++c) v[c] = raw[c];
                    v[j] += side == 0 ? eps : -eps;
                    osc_pose moved =
                        osc_pose_make(osc_v3(v[0], v[1], v[2]), osc_quat_normalize((osc_quat){v[3], v[4], v[5], v[6]}));
                    for (int r = 0; r < 2; ++r) {
                        osc_vec3 x = osc_pose_apply(moved, body[r]);
                        y[side][3 * r] = x.x;
                        y[side][3 * r + 1] = x.y;
                        y[side][3 * r + 2] = x.z;
                    }
                }
                // entries are at most about (1 + |b|) for p and 2 |b| / |q| for q
                double scale = j < 3 ? 1.0 : 2.0 * (1.0 + osc_length(body[0]) + osc_length(body[1])) / n;
                for (int i = 0; i < 6; ++i) {
                    double fd = (y[0][i] - y[1][i]) / (2.0 * eps);
                    worst = fmax(worst, fabs(jac_pq[i][j] - fd) / scale);
                }
            }
        }
    }
    CHECK_MSG(worst < 1e-7, "pose (p, q) Jacobian vs finite differences: %g", worst);
}

int main(void) {
    RUN(test_vector_identities);
    RUN(test_mat3_ops);
    RUN(test_quat_rotation);
    RUN(test_quat_from_mat3);
    RUN(test_quat_exp_log);
    RUN(test_quat_normalization);
    RUN(test_pose_ops);
    RUN(test_twist_convention);
    RUN(test_point_jacobian);
    RUN(test_rotate_with_jacobian);
    RUN(test_quat_to_twist_jacobian);
    RUN(test_twist_jacobian_to_pq);
    return test_finish();
}
