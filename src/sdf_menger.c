// sdf_menger.c: the Menger sponge, a fractal SDF for Al-Ameri 2025 §5.2's benchmark scene.
//
// In units of the half size h (p = x / h), the sponge of L levels is the cube |p|_inf <= 1 minus,
// at each level m = 0..L-1, the crosses of the 3^(m+1) lattice (I. Quilez, "Menger fractal"):
//     d = box(p, 1);  s = 1
//     for m < L:  a = mod(p s, 2) - 1;  s = 3 s;  r = |1 - 3 |a||   (component-wise)
//                 c = (min(max(r_x, r_y), max(r_y, r_z), max(r_z, r_x)) - 1) / s;  d = max(d, c)
//     phi(x) = h d
// Every piece is linear with a unit gradient (c's is a signed axis, -sign(1 - 3|a_k|) sign(a_k)
// e_k on the selected axis k), so phi is 1-Lipschitz and its Hessian is zero except where the
// cube's own distance is the rounded one outside an edge or corner. phi is a bound on the
// distance, exact only outside the cube.

#include "sdf_internal.h"

void sdf_menger_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    double h = leaf->p.menger.half_size;
    double p[3] = {x.x / h, x.y / h, x.z / h};
    sdf_leaf cube = {.kind = SDF_LEAF_BOX};
    cube.p.box.half_extents = osc_v3(1.0, 1.0, 1.0);
    jet d;
    sdf_box_eval(&cube, osc_v3(p[0], p[1], p[2]), order, &d);
    double s = 1.0;
    for (int level = 0; level < leaf->p.menger.levels; ++level) {
        double a[3], r[3];
        for (int i = 0; i < 3; ++i) {
            double t = p[i] * s;
            a[i] = t - 2.0 * floor(0.5 * t) - 1.0; // GLSL mod(t, 2) - 1
            r[i] = fabs(1.0 - 3.0 * fabs(a[i]));
        }
        s *= 3.0;
        // the three pair maxima and the axis each comes from; then their minimum
        int axis[3] = {r[0] >= r[1] ? 0 : 1, r[1] >= r[2] ? 1 : 2, r[2] >= r[0] ? 2 : 0};
        int best = axis[0];
        for (int k = 1; k < 3; ++k)
            if (r[axis[k]] < r[best]) best = axis[k];
        double c = (r[best] - 1.0) / s;
        if (c > d.v) {
            d = jet_const(c, order);
            if (order >= 1) {
                double sign_inner = 1.0 - 3.0 * fabs(a[best]) >= 0.0 ? 1.0 : -1.0;
                double sign_a = a[best] >= 0.0 ? 1.0 : -1.0;
                d.g[best] = -sign_inner * sign_a;
            }
        }
    }
    // phi(x) = h d(x / h): the gradient is unchanged, the Hessian divided by h
    *out = d;
    out->v = h * d.v;
    if (order >= 2)
        for (int k = 0; k < 6; ++k) out->h[k] = d.h[k] / h;
}

osc_status osc_sdf_create_menger(double half_size, int levels, osc_sdf** out) {
    const char* function = "osc_sdf_create_menger";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = sdf_check_length(function, "half_size", half_size);
    if (status) return status;
    if (levels < 0 || levels > 8)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: levels is %d; it must lie in 0..8", function, levels);
    sdf_leaf leaf = {.kind = SDF_LEAF_MENGER};
    leaf.p.menger.half_size = half_size;
    leaf.p.menger.levels = levels;
    return sdf_create_leaf(function, &leaf, NULL, 0, NULL, osc_v3(-half_size, -half_size, -half_size),
                           osc_v3(half_size, half_size, half_size), SDF_LIPSCHITZ_EXACT, out);
}
