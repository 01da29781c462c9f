// sdf_primitives.c: sphere, box, capsule, cylinder, cone, torus, half-space and ellipsoid.
//
// The exact distances are written as "distance to the closest feature": with u = x - c(x), c the
// closest point on a feature of the surface, phi = |u| (or its negative inside), grad = u / |u| and
// hess = (I - g g^T - sum_k e_k e_k^T) / |u| where e_k span the feature's tangent space (none for a
// vertex, the direction of an edge line, the plane of a face: then hess = 0). Derivations:
// docs/sdf.md §Derivatives. The torus and the ellipsoid use jets (jet.h).

#include "sdf_internal.h"

// ---------------------------------------------------------------------------------------------
// distance to a feature: value |u| - offset, gradient u/|u|, Hessian (I - g g^T - e e^T) / |u|
// where e is the feature's direction when `line` is set (a point feature otherwise)

static void feature_distance(osc_vec3 u, int line, osc_vec3 e, double offset, int order, jet* out) {
    double d = osc_length(u);
    *out = jet_const(d - offset, order);
    if (order < 1 || !(d > 0.0)) return;
    osc_vec3 g = osc_scale(u, 1.0 / d);
    out->g[0] = g.x;
    out->g[1] = g.y;
    out->g[2] = g.z;
    if (order < 2) return;
    double gv[3] = {g.x, g.y, g.z}, ev[3] = {e.x, e.y, e.z};
    for (int k = 0; k < 6; ++k) {
        int i = jet_hi[k], j = jet_hj[k];
        double m = (i == j ? 1.0 : 0.0) - gv[i] * gv[j] - (line ? ev[i] * ev[j] : 0.0);
        out->h[k] = m / d;
    }
}

// ---------------------------------------------------------------------------------------------
// sphere

void sdf_sphere_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    feature_distance(x, 0, osc_v3(0, 0, 0), leaf->p.sphere.radius, order, out);
}

osc_status osc_sdf_create_sphere(double radius, osc_sdf** out) {
    const char* function = "osc_sdf_create_sphere";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = sdf_check_length(function, "radius", radius);
    if (status) return status;
    sdf_leaf leaf = {.kind = SDF_LEAF_SPHERE};
    leaf.p.sphere.radius = radius;
    return sdf_create_leaf(function, &leaf, NULL, 0, NULL, osc_v3(-radius, -radius, -radius),
                           osc_v3(radius, radius, radius), SDF_LIPSCHITZ_EXACT, out);
}

// ---------------------------------------------------------------------------------------------
// box (rounded): the box of half-extents b - r inflated by r. Outside the inner box the closest
// feature is the set P of axes where q_i = |x_i| - b_i > 0 (face, edge or corner); inside it is
// the face of the largest q_i.

void sdf_box_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    double r = leaf->p.box.rounding;
    double b[3] = {leaf->p.box.half_extents.x - r, leaf->p.box.half_extents.y - r, leaf->p.box.half_extents.z - r};
    double xv[3] = {x.x, x.y, x.z};
    double q[3], s[3];
    int outside = 0, largest = 0;
    for (int i = 0; i < 3; ++i) {
        s[i] = xv[i] < 0.0 ? -1.0 : 1.0;
        q[i] = fabs(xv[i]) - b[i];
        if (q[i] > 0.0) ++outside;
        if (q[i] > q[largest]) largest = i;
    }
    if (outside == 0) {
        *out = jet_const(q[largest] - r, order);
        if (order >= 1) out->g[largest] = s[largest];
        return;
    }
    double u[3], sum = 0.0;
    for (int i = 0; i < 3; ++i) {
        u[i] = q[i] > 0.0 ? s[i] * q[i] : 0.0;
        sum += u[i] * u[i];
    }
    double d = sqrt(sum);
    *out = jet_const(d - r, order);
    if (order < 1) return;
    for (int i = 0; i < 3; ++i) out->g[i] = u[i] / d;
    if (order < 2) return;
    for (int k = 0; k < 6; ++k) {
        int i = jet_hi[k], j = jet_hj[k];
        double projector = (i == j && q[i] > 0.0) ? 1.0 : 0.0;
        out->h[k] = (projector - out->g[i] * out->g[j]) / d;
    }
}

osc_status osc_sdf_create_box(osc_vec3 half_extents, double rounding, osc_sdf** out) {
    const char* function = "osc_sdf_create_box";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = OSC_OK;
    if ((status = sdf_check_length(function, "half_extents.x", half_extents.x)) ||
        (status = sdf_check_length(function, "half_extents.y", half_extents.y)) ||
        (status = sdf_check_length(function, "half_extents.z", half_extents.z)) ||
        (status = sdf_check_size(function, "rounding", rounding)))
        return status;
    double smallest = fmin(half_extents.x, fmin(half_extents.y, half_extents.z));
    if (rounding > smallest)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: rounding must be <= the smallest half-extent %g (got %g)",
                        function, smallest, rounding);
    sdf_leaf leaf = {.kind = SDF_LEAF_BOX};
    leaf.p.box.half_extents = half_extents;
    leaf.p.box.rounding = rounding;
    return sdf_create_leaf(function, &leaf, NULL, 0, NULL, osc_neg(half_extents), half_extents, SDF_LIPSCHITZ_EXACT,
                           out);
}

// ---------------------------------------------------------------------------------------------
// capsule: distance to the segment z in [-h, h] on the z axis, minus the radius

void sdf_capsule_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    double h = leaf->p.capsule.half_length;
    double zc = x.z < -h ? -h : (x.z > h ? h : x.z);
    int on_line = x.z >= -h && x.z <= h;
    feature_distance(osc_v3(x.x, x.y, x.z - zc), on_line, osc_v3(0, 0, 1), leaf->p.capsule.radius, order, out);
}

osc_status osc_sdf_create_capsule(double radius, double half_length, osc_sdf** out) {
    const char* function = "osc_sdf_create_capsule";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = OSC_OK;
    if ((status = sdf_check_length(function, "radius", radius)) ||
        (status = sdf_check_size(function, "half_length", half_length)))
        return status;
    sdf_leaf leaf = {.kind = SDF_LEAF_CAPSULE};
    leaf.p.capsule.radius = radius;
    leaf.p.capsule.half_length = half_length;
    double zr = half_length + radius;
    return sdf_create_leaf(function, &leaf, NULL, 0, NULL, osc_v3(-radius, -radius, -zr), osc_v3(radius, radius, zr),
                           SDF_LIPSCHITZ_EXACT, out);
}

// ---------------------------------------------------------------------------------------------
// cone and cylinder: a solid of revolution whose meridian section (q = sqrt(x^2 + y^2), z) is the
// trapezoid with corners (0, -h), (r1, -h), (r2, h), (0, h). Its 2D signed distance psi(q, z) to
// the three boundary segments (bottom, side, top; the axis is not boundary) is lifted to 3D:
//   grad = psi_q e + psi_z z,   hess = psi_qq e e^T + psi_qz (e z^T + z e^T) + psi_zz z z^T
//                                      + (psi_q / q) (I_xy - e e^T),      e = (x, y, 0) / q.

typedef struct dist2 {
    double value;
    double g[2]; // psi_q, psi_z
    double h[3]; // psi_qq, psi_qz, psi_zz
} dist2;

// distance from (q, z) to the segment a-b, with the 2D derivatives of the distance
static double segment_distance_2d(double q, double z, double ax, double az, double bx, double bz, dist2* out) {
    double dx = bx - ax, dz = bz - az;
    double len2 = dx * dx + dz * dz;
    double s = len2 > 0.0 ? ((q - ax) * dx + (z - az) * dz) / len2 : 0.0;
    int endpoint = !(s > 0.0 && s < 1.0);
    s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
    double ux = q - (ax + s * dx), uz = z - (az + s * dz);
    double d = sqrt(ux * ux + uz * uz);
    if (out) {
        out->value = d;
        out->g[0] = d > 0.0 ? ux / d : 0.0;
        out->g[1] = d > 0.0 ? uz / d : 0.0;
        // Hessian of the distance to a point: (I - n n^T) / d; to a line in 2D: 0
        double k = (endpoint && d > 0.0) ? 1.0 / d : 0.0;
        out->h[0] = k * (1.0 - out->g[0] * out->g[0]);
        out->h[1] = -k * out->g[0] * out->g[1];
        out->h[2] = k * (1.0 - out->g[1] * out->g[1]);
    }
    return d;
}

void sdf_cone_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    const sdf_cone* c = &leaf->p.cone;
    double h = c->half_length, r1 = c->radius_bottom, r2 = c->radius_top;
    double q = sqrt(x.x * x.x + x.y * x.y), z = x.z;
    // signed distances to the three supporting lines; inside the solid all are <= 0
    double line[3] = {-z - h, z - h, c->side_normal[0] * (q - r1) + c->side_normal[1] * (z + h)};
    dist2 psi;
    if (line[0] <= 0.0 && line[1] <= 0.0 && line[2] <= 0.0) {
        int k = line[1] > line[0] ? 1 : 0;
        if (line[2] > line[k]) k = 2;
        psi.value = line[k];
        psi.g[0] = k == 2 ? c->side_normal[0] : 0.0;
        psi.g[1] = k == 0 ? -1.0 : (k == 1 ? 1.0 : c->side_normal[1]);
        psi.h[0] = psi.h[1] = psi.h[2] = 0.0;
    } else {
        double bottom = segment_distance_2d(q, z, 0.0, -h, r1, -h, NULL);
        double side = segment_distance_2d(q, z, r1, -h, r2, h, NULL);
        double top = segment_distance_2d(q, z, 0.0, h, r2, h, NULL);
        if (bottom <= side && bottom <= top)
            segment_distance_2d(q, z, 0.0, -h, r1, -h, &psi);
        else if (side <= top)
            segment_distance_2d(q, z, r1, -h, r2, h, &psi);
        else
            segment_distance_2d(q, z, 0.0, h, r2, h, &psi);
    }
    *out = jet_const(psi.value, order);
    if (order < 1) return;
    // the radial unit vector e; on the axis any direction (psi_q vanishes there when smooth)
    double ex = 1.0, ey = 0.0;
    if (q > 0.0) {
        ex = x.x / q;
        ey = x.y / q;
    }
    out->g[0] = psi.g[0] * ex;
    out->g[1] = psi.g[0] * ey;
    out->g[2] = psi.g[1];
    if (order < 2) return;
    double e[3] = {ex, ey, 0.0};
    double curvature = q > 0.0 ? psi.g[0] / q : psi.h[0]; // on the axis: the limit psi_qq
    for (int k = 0; k < 6; ++k) {
        int i = jet_hi[k], j = jet_hj[k];
        double zi = i == 2 ? 1.0 : 0.0, zj = j == 2 ? 1.0 : 0.0;
        double pxy = (i == j && i < 2) ? 1.0 : 0.0;
        double eet = q > 0.0 ? e[i] * e[j] : 0.0;
        out->h[k] = (q > 0.0 ? psi.h[0] * e[i] * e[j] : 0.0) + psi.h[1] * (e[i] * zj + zi * e[j]) + psi.h[2] * zi * zj +
                    curvature * (pxy - eet);
    }
}

static osc_status create_cone(const char* function, double r1, double r2, double h, osc_sdf** out) {
    sdf_leaf leaf = {.kind = SDF_LEAF_CONE};
    leaf.p.cone.radius_bottom = r1;
    leaf.p.cone.radius_top = r2;
    leaf.p.cone.half_length = h;
    double len = sqrt(4.0 * h * h + (r2 - r1) * (r2 - r1));
    leaf.p.cone.side_normal[0] = 2.0 * h / len;
    leaf.p.cone.side_normal[1] = (r1 - r2) / len;
    double r = fmax(r1, r2);
    return sdf_create_leaf(function, &leaf, NULL, 0, NULL, osc_v3(-r, -r, -h), osc_v3(r, r, h), SDF_LIPSCHITZ_EXACT,
                           out);
}

osc_status osc_sdf_create_cylinder(double radius, double half_length, osc_sdf** out) {
    const char* function = "osc_sdf_create_cylinder";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = OSC_OK;
    if ((status = sdf_check_length(function, "radius", radius)) ||
        (status = sdf_check_length(function, "half_length", half_length)))
        return status;
    return create_cone(function, radius, radius, half_length, out);
}

osc_status osc_sdf_create_cone(double radius_bottom, double radius_top, double half_length, osc_sdf** out) {
    const char* function = "osc_sdf_create_cone";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = OSC_OK;
    if ((status = sdf_check_size(function, "radius_bottom", radius_bottom)) ||
        (status = sdf_check_size(function, "radius_top", radius_top)) ||
        (status = sdf_check_length(function, "half_length", half_length)))
        return status;
    if (!(radius_bottom > 0.0 || radius_top > 0.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: radius_bottom and radius_top cannot both be 0", function);
    return create_cone(function, radius_bottom, radius_top, half_length, out);
}

// ---------------------------------------------------------------------------------------------
// torus: | (sqrt(x^2 + y^2) - R, z) | - r

OSC_FORCE_INLINE void torus_eval_order(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    jet px = jet_var(x.x, 0, order), py = jet_var(x.y, 1, order), pz = jet_var(x.z, 2, order);
    jet q = jet_sqrt(jet_add(jet_sqr(px, order), jet_sqr(py, order), order), order);
    jet w = jet_add_scalar(q, -leaf->p.torus.major_radius);
    jet d = jet_sqrt(jet_add(jet_sqr(w, order), jet_sqr(pz, order), order), order);
    *out = jet_add_scalar(d, -leaf->p.torus.minor_radius);
}

void sdf_torus_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    if (order == 0)
        torus_eval_order(leaf, x, 0, out);
    else if (order == 1)
        torus_eval_order(leaf, x, 1, out);
    else
        torus_eval_order(leaf, x, 2, out);
}

osc_status osc_sdf_create_torus(double major_radius, double minor_radius, osc_sdf** out) {
    const char* function = "osc_sdf_create_torus";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = OSC_OK;
    if ((status = sdf_check_length(function, "major_radius", major_radius)) ||
        (status = sdf_check_length(function, "minor_radius", minor_radius)))
        return status;
    if (!(minor_radius < major_radius))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: minor_radius must be < major_radius %g (got %g)", function,
                        major_radius, minor_radius);
    sdf_leaf leaf = {.kind = SDF_LEAF_TORUS};
    leaf.p.torus.major_radius = major_radius;
    leaf.p.torus.minor_radius = minor_radius;
    double r = major_radius + minor_radius;
    return sdf_create_leaf(function, &leaf, NULL, 0, NULL, osc_v3(-r, -r, -minor_radius), osc_v3(r, r, minor_radius),
                           SDF_LIPSCHITZ_EXACT, out);
}

// ---------------------------------------------------------------------------------------------
// half-space: n . x + offset

void sdf_halfspace_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    osc_vec3 n = leaf->p.halfspace.normal;
    *out = jet_const(osc_dot(n, x) + leaf->p.halfspace.offset, order);
    if (order >= 1) {
        out->g[0] = n.x;
        out->g[1] = n.y;
        out->g[2] = n.z;
    }
}

osc_status osc_sdf_create_halfspace(osc_vec3 normal, double offset, osc_sdf** out) {
    const char* function = "osc_sdf_create_halfspace";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    double length;
    osc_status status = sdf_check_plane(function, "", (osc_plane){normal, offset}, &length);
    if (status) return status;
    sdf_leaf leaf = {.kind = SDF_LEAF_HALFSPACE};
    leaf.p.halfspace.normal = osc_scale(normal, 1.0 / length);
    leaf.p.halfspace.offset = offset / length;
    // unbounded, except along an axis-aligned normal: n_i x_i <= -offset
    osc_vec3 n = leaf.p.halfspace.normal;
    double lo[3] = {-INFINITY, -INFINITY, -INFINITY}, hi[3] = {INFINITY, INFINITY, INFINITY};
    double nv[3] = {n.x, n.y, n.z};
    for (int i = 0; i < 3; ++i) {
        if (nv[i] == 1.0) hi[i] = -leaf.p.halfspace.offset;
        if (nv[i] == -1.0) lo[i] = leaf.p.halfspace.offset;
    }
    return sdf_create_leaf(function, &leaf, NULL, 0, NULL, osc_v3(lo[0], lo[1], lo[2]), osc_v3(hi[0], hi[1], hi[2]),
                           SDF_LIPSCHITZ_EXACT, out);
}

// ---------------------------------------------------------------------------------------------
// ellipsoid: k0 (k0 - 1) / k1, k0 = |x / r|, k1 = |x / r^2|. Exact zero set; at the surface
// |grad| = 1 and the gradient is the true normal. Undefined at the centre: -min(r) there.

OSC_FORCE_INLINE void ellipsoid_eval_order(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    osc_vec3 r = leaf->p.ellipsoid.radii;
    if (x.x == 0.0 && x.y == 0.0 && x.z == 0.0) {
        *out = jet_const(-fmin(r.x, fmin(r.y, r.z)), order);
        return;
    }
    jet p[3] = {jet_var(x.x, 0, order), jet_var(x.y, 1, order), jet_var(x.z, 2, order)};
    double rv[3] = {r.x, r.y, r.z};
    jet k0s = jet_const(0.0, order), k1s = jet_const(0.0, order);
    for (int i = 0; i < 3; ++i) {
        k0s = jet_add(k0s, jet_sqr(jet_scale(p[i], 1.0 / rv[i], order), order), order);
        k1s = jet_add(k1s, jet_sqr(jet_scale(p[i], 1.0 / (rv[i] * rv[i]), order), order), order);
    }
    jet k0 = jet_sqrt(k0s, order), k1 = jet_sqrt(k1s, order);
    *out = jet_div(jet_mul(k0, jet_add_scalar(k0, -1.0), order), k1, order);
}

void sdf_ellipsoid_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    if (order == 0)
        ellipsoid_eval_order(leaf, x, 0, out);
    else if (order == 1)
        ellipsoid_eval_order(leaf, x, 1, out);
    else
        ellipsoid_eval_order(leaf, x, 2, out);
}

osc_status osc_sdf_create_ellipsoid(osc_vec3 radii, osc_sdf** out) {
    const char* function = "osc_sdf_create_ellipsoid";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = OSC_OK;
    if ((status = sdf_check_length(function, "radii.x", radii.x)) ||
        (status = sdf_check_length(function, "radii.y", radii.y)) ||
        (status = sdf_check_length(function, "radii.z", radii.z)))
        return status;
    sdf_leaf leaf = {.kind = SDF_LEAF_ELLIPSOID};
    leaf.p.ellipsoid.radii = radii;
    int sphere = radii.x == radii.y && radii.y == radii.z;
    return sdf_create_leaf(function, &leaf, NULL, 0, NULL, osc_neg(radii), radii,
                           sphere ? SDF_LIPSCHITZ_EXACT : SDF_LIPSCHITZ_SAMPLED, out);
}
