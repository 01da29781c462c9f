// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep_builders.c: programmatic canonical solids (box, solids of revolution from a profile, a
// block with a revolved blind hole) so that tests and benchmarks need no CAD files.

#include <math.h>
#include <string.h>

#include "brep_internal.h"
#include "osculate/math.h"

enum { MAX_PROFILE = 256 };

// A description under construction, in fixed arrays sized for the builders' solids.
typedef struct desc_builder {
    osc_brep_surface surfaces[MAX_PROFILE + 8];
    osc_brep_face faces[MAX_PROFILE + 8];
    osc_brep_loop loops[2 * MAX_PROFILE + 8]; // at most two circles per disc, one box outline
    osc_brep_trim trims[2 * MAX_PROFILE + 16];
    osc_brep_edge edges[MAX_PROFILE + 16];
    osc_vec3 vertices[16];
    int ns, nf, nl, nt, ne, nv;
} desc_builder;

static osc_brep_desc builder_desc(const desc_builder* b) {
    osc_brep_desc d;
    memset(&d, 0, sizeof d);
    d.surfaces = b->surfaces;
    d.surface_count = b->ns;
    d.faces = b->faces;
    d.face_count = b->nf;
    d.loops = b->loops;
    d.loop_count = b->nl;
    d.trims = b->trims;
    d.trim_count = b->nt;
    d.edges = b->edges;
    d.edge_count = b->ne;
    d.vertices = b->vertices;
    d.vertex_count = b->nv;
    return d;
}

static int add_face(desc_builder* b, osc_brep_surface s, double umin, double umax, double vmin, double vmax) {
    b->surfaces[b->ns] = s;
    osc_brep_face f;
    memset(&f, 0, sizeof f);
    f.surface = b->ns++;
    f.loop_begin = b->nl;
    f.loop_count = 0;
    f.umin = umin;
    f.umax = umax;
    f.vmin = vmin;
    f.vmax = vmax;
    b->faces[b->nf] = f;
    return b->nf++;
}

// Appends a full-circle loop of radius r around the parameter origin to the last face.
static void add_circle_loop(desc_builder* b, int face, double r) {
    osc_brep_trim t;
    memset(&t, 0, sizeof t);
    t.kind = OSC_TRIM_ARC;
    t.radius = r;
    t.angle0 = 0.0;
    t.sweep = k_two_pi;
    b->trims[b->nt] = t;
    b->loops[b->nl].trim_begin = b->nt++;
    b->loops[b->nl].trim_count = 1;
    b->nl++;
    b->faces[face].loop_count++;
}

static void add_circle_edge(desc_builder* b, double z, double r, int face0, int face1) {
    osc_brep_edge e;
    memset(&e, 0, sizeof e);
    e.type = OSC_CURVE_CIRCLE;
    e.origin = osc_v3(0, 0, z);
    e.axis = osc_v3(0, 0, 1);
    e.ref = osc_v3(1, 0, 0);
    e.radius = r;
    e.t0 = 0.0;
    e.t1 = k_two_pi;
    e.face[0] = face0;
    e.face[1] = face1;
    e.vertex[0] = e.vertex[1] = -1;
    b->edges[b->ne++] = e;
}

static osc_brep_surface plane_surface(double z, double up) {
    osc_brep_surface s;
    memset(&s, 0, sizeof s);
    s.type = OSC_SURFACE_PLANE;
    s.origin = osc_v3(0, 0, z);
    s.axis = osc_v3(0, 0, up);
    s.ref = osc_v3(1, 0, 0);
    s.sense = 1;
    return s;
}

// The face of one profile segment (r0, z0) -> (r1, z1) of a solid of revolution whose outward
// normal in the (r, z) half-plane is `flip` (dz, -dr) / L; returns the face index.
static int add_segment_face(desc_builder* b, double r0, double z0, double r1, double z1, double flip) {
    double dr = r1 - r0, dz = z1 - z0, len = sqrt(dr * dr + dz * dz);
    double out_r = flip * dz / len, out_z = -flip * dr / len;
    osc_brep_surface s;
    memset(&s, 0, sizeof s);
    s.ref = osc_v3(1, 0, 0);
    if (dz == 0.0) { // disc or annulus
        s = plane_surface(z0, out_z > 0.0 ? 1.0 : -1.0);
        double rmax = fmax(r0, r1), rmin = fmin(r0, r1);
        int f = add_face(b, s, -rmax, rmax, -rmax, rmax);
        add_circle_loop(b, f, rmax);
        if (rmin > 0.0) add_circle_loop(b, f, rmin);
        return f;
    }
    if (dr == 0.0) { // cylinder
        s.type = OSC_SURFACE_CYLINDER;
        s.origin = osc_v3(0, 0, 0);
        s.axis = osc_v3(0, 0, 1);
        s.radius = r0;
        s.sense = out_r > 0.0 ? 1 : -1;
        return add_face(b, s, 0.0, k_two_pi, fmin(z0, z1), fmax(z0, z1));
    }
    // cone through (r0, z0) with rho increasing along v
    double axis_sign = dr * dz > 0.0 ? 1.0 : -1.0;
    s.type = OSC_SURFACE_CONE;
    s.origin = osc_v3(0, 0, z0);
    s.axis = osc_v3(0, 0, axis_sign);
    s.radius = r0;
    s.angle = atan(fabs(dr) / fabs(dz));
    // natural normal in (r, z): (cos a, -sin a axis_sign)
    double nat = cos(s.angle) * out_r - sin(s.angle) * axis_sign * out_z;
    s.sense = nat > 0.0 ? 1 : -1;
    double vmin = dr > 0.0 ? 0.0 : -len, vmax = dr > 0.0 ? len : 0.0;
    return add_face(b, s, 0.0, k_two_pi, vmin, vmax);
}

// A builder's size `name`: within [OSC_BREP_MIN_SIZE, OSC_BREP_MAX_LENGTH].
static osc_status check_size(const char* fn, const char* name, double value) {
    if (!(value >= OSC_BREP_MIN_SIZE && value <= OSC_BREP_MAX_LENGTH))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s %g is outside [%g, %g]", fn, name, value, OSC_BREP_MIN_SIZE,
                        OSC_BREP_MAX_LENGTH);
    return OSC_OK;
}

// Checks a profile and closes it onto the axis: writes (r, z) points starting and ending at r = 0
// with the solid on the left (counter-clockwise in the (r, z) plane). Returns the point count or
// -1 with the error set.
static int normalise_profile(const char* fn, const double* profile, int count, double* out) {
    if (!profile) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: profile is NULL", fn);
        return -1;
    }
    if (count < 2 || count > MAX_PROFILE - 4) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count %d is outside [2, %d]", fn, count, MAX_PROFILE - 4);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        double r = profile[2 * i], z = profile[2 * i + 1];
        if (!(r >= 0.0 && r <= OSC_BREP_MAX_LENGTH) || !(fabs(z) <= OSC_BREP_MAX_LENGTH)) {
            osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: profile point %d (%g, %g) needs 0 <= r <= %g and |z| <= %g", fn, i,
                     r, z, OSC_BREP_MAX_LENGTH, OSC_BREP_MAX_LENGTH);
            return -1;
        }
        if (i > 0 && r == profile[2 * i - 2] && z == profile[2 * i - 1]) {
            osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: profile points %d and %d coincide", fn, i - 1, i);
            return -1;
        }
        if (r == 0.0 && i > 0 && i < count - 1) {
            osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: profile point %d touches the axis", fn, i);
            return -1;
        }
    }
    int n = 0;
    if (profile[0] > 0.0) {
        out[2 * n] = 0.0;
        out[2 * n + 1] = profile[1];
        n++;
    }
    for (int i = 0; i < count; i++) {
        out[2 * n] = profile[2 * i];
        out[2 * n + 1] = profile[2 * i + 1];
        n++;
    }
    if (profile[2 * count - 2] > 0.0) {
        out[2 * n] = 0.0;
        out[2 * n + 1] = profile[2 * count - 1];
        n++;
    }
    // the segments meeting the axis must be discs (no cone apex: it would be a singular point)
    if (out[3] != out[1] || out[2 * n - 1] != out[2 * n - 3]) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT,
                 "%s: the profile must reach the axis through a disc (z constant): a cone apex is "
                 "not supported",
                 fn);
        return -1;
    }
    double area = 0.0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        area += out[2 * i] * out[2 * j + 1] - out[2 * j] * out[2 * i + 1];
    }
    if (area == 0.0) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the profile encloses no area", fn);
        return -1;
    }
    if (area < 0.0)
        for (int i = 0; i < n / 2; i++)
            for (int k = 0; k < 2; k++) {
                double t = out[2 * i + k];
                out[2 * i + k] = out[2 * (n - 1 - i) + k];
                out[2 * (n - 1 - i) + k] = t;
            }
    return n;
}

// Appends the faces and circular edges of a normalised profile; flip = +1 for a solid of
// revolution, -1 for a cavity. Segment `skip` (or -1) gets no face: `skip_face` stands for it.
static void append_revolved(desc_builder* b, const double* pts, int n, double flip, int skip, int skip_face) {
    int face_of[MAX_PROFILE];
    for (int i = 0; i + 1 < n; i++)
        face_of[i] = i == skip ? skip_face
                               : add_segment_face(b, pts[2 * i], pts[2 * i + 1], pts[2 * i + 2], pts[2 * i + 3], flip);
    for (int i = 1; i + 1 < n; i++)
        if (pts[2 * i] > 0.0) add_circle_edge(b, pts[2 * i + 1], pts[2 * i], face_of[i - 1], face_of[i]);
}

osc_status osc_brep_create_revolved(const double* profile, int count, const osc_brep_settings* settings,
                                    osc_brep** out) {
    double pts[2 * MAX_PROFILE];
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_create_revolved: out is NULL");
    *out = NULL;
    int n = normalise_profile("osc_brep_create_revolved", profile, count, pts);
    if (n < 0) return OSC_ERR_INVALID_ARGUMENT;
    desc_builder* db = osc_calloc(1, sizeof(desc_builder)); // large: on the heap
    if (!db) return osc_fail_in("osc_brep_create_revolved", OSC_ERR_NO_MEMORY);
    append_revolved(db, pts, n, 1.0, -1, -1);
    osc_brep_desc d = builder_desc(db);
    osc_status st = osc_brep_create(&d, settings, out);
    osc_free(db);
    return st;
}

osc_status osc_brep_create_cylinder(double radius, double half_length, const osc_brep_settings* settings,
                                    osc_brep** out) {
    const char* fn = "osc_brep_create_cylinder";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    osc_status st = check_size(fn, "radius", radius);
    if (st == OSC_OK) st = check_size(fn, "half_length", half_length);
    if (st != OSC_OK) return st;
    double p[8] = {0, -half_length, radius, -half_length, radius, half_length, 0, half_length};
    return osc_brep_create_revolved(p, 4, settings, out);
}

osc_status osc_brep_create_cone(double r_bottom, double r_top, double half_length, const osc_brep_settings* settings,
                                osc_brep** out) {
    const char* fn = "osc_brep_create_cone";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    // both radii positive: a cone apex is not supported by the builder, truncate it
    osc_status st = check_size(fn, "r_bottom", r_bottom);
    if (st == OSC_OK) st = check_size(fn, "r_top", r_top);
    if (st == OSC_OK) st = check_size(fn, "half_length", half_length);
    if (st != OSC_OK) return st;
    double p[8] = {0, -half_length, r_bottom, -half_length, r_top, half_length, 0, half_length};
    return osc_brep_create_revolved(p, 4, settings, out);
}

osc_status osc_brep_create_sphere(double radius, const osc_brep_settings* settings, osc_brep** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_create_sphere: out is NULL");
    *out = NULL;
    osc_status st = check_size("osc_brep_create_sphere", "radius", radius);
    if (st != OSC_OK) return st;
    osc_brep_surface s;
    memset(&s, 0, sizeof s);
    s.type = OSC_SURFACE_SPHERE;
    s.axis = osc_v3(0, 0, 1);
    s.ref = osc_v3(1, 0, 0);
    s.radius = radius;
    s.sense = 1;
    osc_brep_face f = {0, 0, 0, 0.0, k_two_pi, -0.5 * k_pi, 0.5 * k_pi};
    osc_brep_desc d;
    memset(&d, 0, sizeof d);
    d.surfaces = &s;
    d.surface_count = 1;
    d.faces = &f;
    d.face_count = 1;
    return osc_brep_create(&d, settings, out);
}

// The box's planes and lines into `b`; returns the index of its top face (+z).
static int append_box(desc_builder* b, osc_vec3 half) {
    double h[3] = {half.x, half.y, half.z};
    int first_vertex = b->nv;
    for (int i = 0; i < 8; i++)
        b->vertices[b->nv++] = osc_v3((i & 1) ? h[0] : -h[0], (i & 2) ? h[1] : -h[1], (i & 4) ? h[2] : -h[2]);
    int face_index[3][2];
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 2; s++) {
            double sign = s ? 1.0 : -1.0;
            osc_vec3 e[3] = {osc_v3(1, 0, 0), osc_v3(0, 1, 0), osc_v3(0, 0, 1)};
            osc_brep_surface sf;
            memset(&sf, 0, sizeof sf);
            sf.type = OSC_SURFACE_PLANE;
            sf.origin = osc_scale(e[k], sign * h[k]);
            sf.axis = osc_scale(e[k], sign);
            sf.ref = e[(k + 1) % 3];
            sf.sense = 1;
            int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            face_index[k][s] = add_face(b, sf, -h[k1], h[k1], -h[k2], h[k2]);
        }
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        for (int c = 0; c < 4; c++) {
            int s1 = c & 1, s2 = (c >> 1) & 1;
            int v0 = 0, v1 = 0;
            v0 |= s1 << k1;
            v0 |= s2 << k2;
            v1 = v0 | (1 << k);
            osc_brep_edge e;
            memset(&e, 0, sizeof e);
            e.type = OSC_CURVE_LINE;
            e.origin = b->vertices[first_vertex + v0];
            e.axis = osc_normalize(osc_sub(b->vertices[first_vertex + v1], b->vertices[first_vertex + v0]));
            e.t0 = 0.0;
            e.t1 = 2.0 * h[k];
            e.face[0] = face_index[k1][s1];
            e.face[1] = face_index[k2][s2];
            e.vertex[0] = first_vertex + v0;
            e.vertex[1] = first_vertex + v1;
            b->edges[b->ne++] = e;
        }
    }
    return face_index[2][1];
}

static osc_status check_half(const char* fn, osc_vec3 half) {
    osc_status st = check_size(fn, "half.x", half.x);
    if (st == OSC_OK) st = check_size(fn, "half.y", half.y);
    if (st == OSC_OK) st = check_size(fn, "half.z", half.z);
    return st;
}

osc_status osc_brep_create_box(osc_vec3 half, const osc_brep_settings* settings, osc_brep** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_create_box: out is NULL");
    *out = NULL;
    osc_status st = check_half("osc_brep_create_box", half);
    if (st != OSC_OK) return st;
    desc_builder* b = osc_calloc(1, sizeof(desc_builder));
    if (!b) return osc_fail_in("osc_brep_create_box", OSC_ERR_NO_MEMORY);
    append_box(b, half);
    osc_brep_desc d = builder_desc(b);
    st = osc_brep_create(&d, settings, out);
    osc_free(b);
    return st;
}

osc_status osc_brep_create_block_with_hole(osc_vec3 half, const double* profile, int count,
                                           const osc_brep_settings* settings, osc_brep** out) {
    const char* fn = "osc_brep_create_block_with_hole";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    osc_status st = check_half(fn, half);
    if (st != OSC_OK) return st;
    if (!profile) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: profile is NULL", fn);
    if (count < 2) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count %d: the hole needs >= 2 points", fn, count);
    if (!(profile[0] > 0.0) || profile[1] != half.z)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the hole's profile must start on the top face (r > 0, z = %g)",
                        fn, half.z);
    for (int i = 0; i < count; i++)
        if (!(profile[2 * i] < fmin(half.x, half.y)) || !(profile[2 * i + 1] > -half.z) || profile[2 * i + 1] > half.z)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: hole profile point %d (%g, %g) leaves the block", fn, i,
                            profile[2 * i], profile[2 * i + 1]);
    double pts[2 * MAX_PROFILE];
    int n = normalise_profile(fn, profile, count, pts);
    if (n < 0) return OSC_ERR_INVALID_ARGUMENT;
    desc_builder* b = osc_calloc(1, sizeof(desc_builder));
    if (!b) return osc_fail_in(fn, OSC_ERR_NO_MEMORY);
    int top = append_box(b, half);
    // the top face gets the hole's rim as an inner loop
    double r0 = profile[0];
    b->faces[top].loop_begin = b->nl;
    {
        // outer loop: the face's rectangle (the +z face has u along x and v along y)
        osc_brep_trim t[4];
        memset(t, 0, sizeof t);
        double hu = half.x, hv = half.y;
        double c[5][2] = {{-hu, -hv}, {hu, -hv}, {hu, hv}, {-hu, hv}, {-hu, -hv}};
        for (int i = 0; i < 4; i++) {
            t[i].kind = OSC_TRIM_LINE;
            t[i].start[0] = c[i][0];
            t[i].start[1] = c[i][1];
            t[i].end[0] = c[i + 1][0];
            t[i].end[1] = c[i + 1][1];
            b->trims[b->nt + i] = t[i];
        }
        b->loops[b->nl].trim_begin = b->nt;
        b->loops[b->nl].trim_count = 4;
        b->nt += 4;
        b->nl++;
        b->faces[top].loop_count = 1;
        add_circle_loop(b, top, r0);
    }
    // the cavity as a solid of revolution with its normals flipped; its disc at the top (the
    // opening) is not a face: the block's top face stands for it in the rim edge
    int skip = -1;
    for (int i = 0; i + 1 < n; i++)
        if (pts[2 * i + 1] == half.z && pts[2 * i + 3] == half.z) skip = i;
    append_revolved(b, pts, n, -1.0, skip, top);
    osc_brep_desc d = builder_desc(b);
    st = osc_brep_create(&d, settings, out);
    osc_free(b);
    return st;
}
