// test_lmd_nurbs.c: local minimal distances between free-form faces (Crozet 2017 chapter 4 on the
// NURBS faces of §3.3.3) against dense sampling, and their gap gradients against central
// differences.
//
// The solids: bumpy trimmed sheets (one face each, no edges) on a non-rational B-spline surface of
// degree (3, 2) with 6 x 5 knot spans, trimmed by a circle with a square hole, and on a rational
// surface of degree (2, 3) with random weights in [0.6, 1.6] and 4 x 3 spans, trimmed by a hexagon;
// and canonical ones: a sphere and a whole torus. Pairs: NURBS-NURBS, NURBS-sphere, NURBS-torus and
// torus-NURBS, at random poses where the faces have several local minima.
//
// The oracle samples both faces on a 72 x 72 grid of their parameter boxes (samples inside the
// trims only) and finds the discrete local minima of the distance over pairs of samples: a pair no
// farther apart than any of its 80 neighbours in the 4D grid (samples outside the face left out).
// Each is refined by Gauss-Newton's method on |S_A(s) - S_B(t)|^2 / 2 with central-difference
// Jacobians of osc_brep_face_point (an independent solver; the distance is second-order in the
// footpoints' error). Then:
//   - every reported contact lies on a refined strict minimum (positive definite Hessian: discrete
//     minima can refine to saddles): footpoints within 1e-5 and distances within 1e-9 of the part
//     size (the floor's diagonal), and its footpoints are the surface points at its parameters; or,
//     where the minimum's basin is too shallow for the lattice to hold a discrete minimum, no pair
//     of points within 1e-5 to 1e-3 of the parameter boxes around its footpoints is nearer;
//   - every refined minimum that is an LMD by the module's rules (footpoints inside the trims and
//     away from them by more than two grid steps, 0 < d < d_max, the direction from A to B along A's
//     outward normal and -n along B's) is reported;
// and each contact's 12 gap gradient columns agree with central differences of the query (h = 1e-6).

#include "osculate/osculate.h"
#include "test_common.h"

#include <stdlib.h>

enum { GRID = 72, CAP = 256, MAX_MINIMA = 512 };

// ---- the solids --------------------------------------------------------------------------------

// A one-face model: surface `s`, face box and loops, no edges (the face of a sheet, or a closed
// canonical surface). NURBS data in `n`, `points`, `reals`.
static osc_brep* one_face(const osc_brep_surface* s, const osc_brep_face* f, const osc_brep_loop* loops, int loop_count,
                          const osc_brep_trim* trims, int trim_count, const osc_brep_nurbs* n, const osc_vec3* points,
                          int point_count, const double* reals, int real_count) {
    osc_brep_desc d;
    memset(&d, 0, sizeof d);
    d.surfaces = s;
    d.surface_count = 1;
    d.faces = f;
    d.face_count = 1;
    d.loops = loops;
    d.loop_count = loop_count;
    d.trims = trims;
    d.trim_count = trim_count;
    d.nurbs = n;
    d.nurbs_count = n ? 1 : 0;
    d.control_points = points;
    d.control_point_count = point_count;
    d.reals = reals;
    d.real_count = real_count;
    osc_brep* b = NULL;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_OK);
    return b;
}

// The bumpy floor: degree (3, 2), 11 x 10 points over [0, 3] x [0, 3], non-uniform knots (8 x 8
// spans), z within about 0.25 of 0.05 x; outward normal +z (S_u x S_v). Trimmed by the circle of radius 0.47 about (0.5, 0.5)
// with a square hole [0.44, 0.56]^2.
static osc_brep* make_floor(void) {
    enum { NU = 11, NV = 10 };
    static const double U[NU + 4] = {0, 0, 0, 0, 0.12, 0.25, 0.35, 0.5, 0.62, 0.7, 0.85, 1, 1, 1, 1};
    static const double V[NV + 3] = {0, 0, 0, 0.1, 0.2, 0.35, 0.45, 0.6, 0.7, 0.8, 1, 1, 1};
    double reals[NU + 4 + NV + 3];
    osc_vec3 points[NU * NV];
    memcpy(reals, U, sizeof U);
    memcpy(reals + NU + 4, V, sizeof V);
    for (int i = 0; i < NU; i++)
        for (int j = 0; j < NV; j++) {
            double x = 3.0 * i / (NU - 1), y = 3.0 * j / (NV - 1);
            points[i * NV + j] = osc_v3(x, y, 0.25 * sin(4.4 * x + 0.4) * cos(4.1 * y - 0.2) + 0.05 * x);
        }
    osc_brep_nurbs n = {{3, 2}, {NU, NV}, 0, 0, -1};
    osc_brep_surface s;
    memset(&s, 0, sizeof s);
    s.type = OSC_SURFACE_NURBS;
    s.sense = 1;
    osc_brep_trim trims[5];
    memset(trims, 0, sizeof trims);
    trims[0].kind = OSC_TRIM_ARC;
    trims[0].center[0] = trims[0].center[1] = 0.5;
    trims[0].radius = 0.47;
    trims[0].sweep = 2.0 * TEST_PI;
    const double square[5][2] = {{0.44, 0.44}, {0.56, 0.44}, {0.56, 0.56}, {0.44, 0.56}, {0.44, 0.44}};
    for (int k = 0; k < 4; k++) {
        trims[1 + k].kind = OSC_TRIM_LINE;
        memcpy(trims[1 + k].start, square[k], sizeof square[k]);
        memcpy(trims[1 + k].end, square[k + 1], sizeof square[k + 1]);
    }
    osc_brep_loop loops[2] = {{0, 1}, {1, 4}};
    osc_brep_face f = {0, 0, 2, 0, 1, 0, 1};
    return one_face(&s, &f, loops, 2, trims, 5, &n, points, NU * NV, reals, NU + 4 + NV + 3);
}

// The rational cap: degree (2, 3), 8 x 8 points over [-1.4, 1.4]^2 with bumps down by up to about 0.2,
// weights in [0.6, 1.6]; outward normal -z (sense -1). Trimmed by a hexagon about (0.5, 0.5).
static osc_brep* make_cap(void) {
    enum { NU = 8, NV = 8 };
    static const double U[NU + 3] = {0, 0, 0, 0.15, 0.3, 0.5, 0.65, 0.8, 1, 1, 1};
    static const double V[NV + 4] = {0, 0, 0, 0, 0.2, 0.45, 0.6, 0.8, 1, 1, 1, 1};
    double reals[NU + 3 + NV + 4 + NU * NV];
    osc_vec3 points[NU * NV];
    memcpy(reals, U, sizeof U);
    memcpy(reals + NU + 3, V, sizeof V);
    test_rng rng = {77};
    for (int i = 0; i < NU; i++)
        for (int j = 0; j < NV; j++) {
            double x = 2.8 * i / (NU - 1) - 1.4, y = 2.8 * j / (NV - 1) - 1.4;
            points[i * NV + j] = osc_v3(x, y, -0.2 * cos(3.3 * x + 0.3) * cos(3.0 * y) + 0.04 * y);
            reals[NU + 3 + NV + 4 + i * NV + j] = test_uniform(&rng, 0.6, 1.6);
        }
    osc_brep_nurbs n = {{2, 3}, {NU, NV}, 0, 0, NU + 3 + NV + 4};
    osc_brep_surface s;
    memset(&s, 0, sizeof s);
    s.type = OSC_SURFACE_NURBS;
    s.sense = -1;
    osc_brep_trim trims[6];
    memset(trims, 0, sizeof trims);
    for (int k = 0; k < 6; k++) {
        double a0 = TEST_PI / 3 * k + 0.2, a1 = TEST_PI / 3 * (k + 1) + 0.2;
        trims[k].kind = OSC_TRIM_LINE;
        trims[k].start[0] = 0.5 + 0.49 * cos(a0), trims[k].start[1] = 0.5 + 0.49 * sin(a0);
        trims[k].end[0] = 0.5 + 0.49 * cos(a1), trims[k].end[1] = 0.5 + 0.49 * sin(a1);
    }
    osc_brep_loop loop = {0, 6};
    osc_brep_face f = {0, 0, 1, 0, 1, 0, 1};
    return one_face(&s, &f, &loop, 1, trims, 6, &n, points, NU * NV, reals, NU + 3 + NV + 4 + NU * NV);
}

// a whole torus about z (R 0.7, r 0.18): one face, no edges
static osc_brep* make_torus(void) {
    osc_brep_surface s;
    memset(&s, 0, sizeof s);
    s.type = OSC_SURFACE_TORUS;
    s.axis = osc_v3(0, 0, 1);
    s.ref = osc_v3(1, 0, 0);
    s.radius = 0.7;
    s.radius2 = 0.18;
    s.sense = 1;
    osc_brep_face f = {0, 0, 0, -TEST_PI, TEST_PI, -TEST_PI, TEST_PI};
    return one_face(&s, &f, NULL, 0, NULL, 0, NULL, NULL, 0, NULL, 0);
}

// ---- the oracle ----------------------------------------------------------------------------------

// a face sampled on a GRID x GRID lattice of its parameter box (periodic directions wrap)
typedef struct sampled_face {
    const osc_brep* brep;
    osc_pose pose;
    double lo[2], hi[2];
    bool periodic[2];
    osc_vec3 x[GRID * GRID]; // world points
    bool inside[GRID * GRID];
} sampled_face;

static void sample_face(sampled_face* f, const osc_brep* brep, osc_pose pose) {
    const osc_brep_desc* d = osc_brep_description(brep);
    const osc_brep_face* face = &d->faces[0];
    const osc_brep_surface* s = &d->surfaces[face->surface];
    f->brep = brep;
    f->pose = pose;
    f->lo[0] = face->umin, f->hi[0] = face->umax, f->lo[1] = face->vmin, f->hi[1] = face->vmax;
    f->periodic[0] = s->type == OSC_SURFACE_SPHERE || s->type == OSC_SURFACE_TORUS;
    f->periodic[1] = s->type == OSC_SURFACE_TORUS;
    for (int i = 0; i < GRID; i++)
        for (int j = 0; j < GRID; j++) {
            double uv[2];
            for (int k = 0; k < 2; k++) {
                int idx = k ? j : i;
                // periodic: GRID cells around; otherwise the ends included
                double t = f->periodic[k] ? (double)idx / GRID : (double)idx / (GRID - 1);
                uv[k] = f->lo[k] + t * (f->hi[k] - f->lo[k]);
            }
            f->x[i * GRID + j] = osc_pose_apply(pose, osc_brep_face_point(brep, 0, uv[0], uv[1], NULL));
            f->inside[i * GRID + j] = osc_brep_face_contains(brep, 0, uv[0], uv[1]) != 0;
        }
}

static void grid_uv(const sampled_face* f, int i, int j, double uv[2]) {
    uv[0] = f->lo[0] + (f->periodic[0] ? (double)i / GRID : (double)i / (GRID - 1)) * (f->hi[0] - f->lo[0]);
    uv[1] = f->lo[1] + (f->periodic[1] ? (double)j / GRID : (double)j / (GRID - 1)) * (f->hi[1] - f->lo[1]);
}

// the sample index of (i + di, j + dj), or -1 outside the grid or the face
static int neighbour(const sampled_face* f, int i, int j, int di, int dj) {
    i += di, j += dj;
    if (f->periodic[0]) i = (i + GRID) % GRID;
    if (f->periodic[1]) j = (j + GRID) % GRID;
    if (i < 0 || j < 0 || i >= GRID || j >= GRID) return -1;
    return f->inside[i * GRID + j] ? i * GRID + j : -1;
}

// 1 when every sample within `steps` grid steps of (i, j) is in the face (the minimum is clear of
// the trims and the box's ends)
static bool clear_of_trims(const sampled_face* f, int i, int j, int steps) {
    for (int di = -steps; di <= steps; di++)
        for (int dj = -steps; dj <= steps; dj++)
            if (neighbour(f, i, j, di, dj) < 0) return false;
    return true;
}

typedef struct oracle_minimum {
    double s[2], t[2]; // refined parameters on A and B
    osc_vec3 xa, xb;   // world footpoints
    double d;
    bool strict; // a critical point with a positive definite Hessian (discrete minima can be saddles)
    bool lmd;    // an LMD by the module's rules, clear of the trims: must be reported
    bool matched;
} oracle_minimum;

static osc_vec3 world_point(const sampled_face* f, const double* uv, osc_vec3* normal) {
    osc_vec3 n;
    osc_vec3 x = osc_pose_apply(f->pose, osc_brep_face_point(f->brep, 0, uv[0], uv[1], &n));
    if (normal) *normal = osc_quat_rotate(f->pose.q, n);
    return x;
}

static void clamp_uv(const sampled_face* f, double* uv) {
    for (int k = 0; k < 2; k++)
        if (!f->periodic[k]) uv[k] = fmin(fmax(uv[k], f->lo[k]), f->hi[k]);
}

// the point of a face at uv and its first and second derivatives by central differences (h 1e-6 of
// the box for the first, 1e-4 for the second)
static void face_jet(const sampled_face* f, const double* uv, osc_vec3* x, osc_vec3 d1[2], osc_vec3 d2[3]) {
    *x = world_point(f, uv, NULL);
    for (int k = 0; k < 2; k++) {
        double h = 1e-6 * (f->hi[k] - f->lo[k]), H = 1e-4 * (f->hi[k] - f->lo[k]), q[2] = {uv[0], uv[1]};
        q[k] = uv[k] + h;
        osc_vec3 p = world_point(f, q, NULL);
        q[k] = uv[k] - h;
        osc_vec3 m = world_point(f, q, NULL);
        d1[k] = osc_scale(osc_sub(p, m), 0.5 / h);
        q[k] = uv[k] + H;
        p = world_point(f, q, NULL);
        q[k] = uv[k] - H;
        m = world_point(f, q, NULL);
        d2[2 * k] = osc_scale(osc_add(osc_sub(p, osc_scale(*x, 2.0)), m), 1.0 / (H * H));
    }
    double Hu = 1e-4 * (f->hi[0] - f->lo[0]), Hv = 1e-4 * (f->hi[1] - f->lo[1]);
    osc_vec3 c[4];
    for (int k = 0; k < 4; k++) {
        double q[2] = {uv[0] + (k & 1 ? -Hu : Hu), uv[1] + (k & 2 ? -Hv : Hv)};
        c[k] = world_point(f, q, NULL);
    }
    d2[1] = osc_scale(osc_add(osc_sub(osc_sub(c[0], c[1]), c[2]), c[3]), 0.25 / (Hu * Hv));
}

// Newton's method with Levenberg-Marquardt damping on f = |S_A(s) - S_B(t)|^2 / 2, the surfaces'
// derivatives by central differences (the Hessian needs the second ones: J^T J alone is singular
// along a common tangential motion); returns the distance
static double refine(const sampled_face* a, const sampled_face* b, double* s, double* t, bool* strict) {
    double p[4] = {s[0], s[1], t[0], t[1]}, mu = 0.0;
    *strict = false;
    for (int it = 0; it < 200; it++) {
        osc_vec3 xa, xb, da[2], db[2], dda[3], ddb[3];
        face_jet(a, p, &xa, da, dda);
        face_jet(b, p + 2, &xb, db, ddb);
        osc_vec3 r = osc_sub(xb, xa);
        double f = 0.5 * osc_dot(r, r);
        osc_vec3 cols[4] = {osc_scale(da[0], -1.0), osc_scale(da[1], -1.0), db[0], db[1]};
        double g[4], H[4][4], g2 = 0.0, jn = 0.0;
        for (int i = 0; i < 4; i++) {
            g[i] = osc_dot(cols[i], r);
            g2 += g[i] * g[i];
            jn += osc_dot(cols[i], cols[i]);
            for (int j = 0; j < 4; j++) H[i][j] = osc_dot(cols[i], cols[j]);
        }
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                H[i][j] -= osc_dot(r, dda[i + j]);
                H[2 + i][2 + j] += osc_dot(r, ddb[i + j]);
            }
        // a strict minimum where H is positive definite (Cholesky, pivots above 1e-9 of J's norm)
        double L[4][4];
        *strict = true;
        for (int j = 0; j < 4 && *strict; j++)
            for (int i = j; i < 4 && *strict; i++) {
                double v = H[i][j];
                for (int k = 0; k < j; k++) v -= L[i][k] * L[j][k];
                if (i == j) {
                    *strict = v > 1e-9 * jn;
                    L[j][j] = sqrt(fmax(v, 0.0));
                } else {
                    L[i][j] = v / L[j][j];
                }
            }
        if (g2 <= 1e-24 * jn * 2.0 * f) break; // the direction is normal to both faces to 1e-12
        bool moved = false;
        for (int tries = 0; tries < 40 && !moved; tries++) {
            // (H + mu I) dp = -g by Gaussian elimination with partial pivoting
            double A[4][5], dp[4];
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 4; j++) A[i][j] = H[i][j] + (i == j ? mu : 0.0);
                A[i][4] = -g[i];
            }
            for (int c = 0; c < 4; c++) {
                int piv = c;
                for (int i = c + 1; i < 4; i++)
                    if (fabs(A[i][c]) > fabs(A[piv][c])) piv = i;
                for (int j = 0; j < 5; j++) {
                    double tmp = A[c][j];
                    A[c][j] = A[piv][j];
                    A[piv][j] = tmp;
                }
                for (int i = c + 1; i < 4; i++) {
                    double m = A[i][c] / A[c][c];
                    for (int j = c; j < 5; j++) A[i][j] -= m * A[c][j];
                }
            }
            double descent = 0.0;
            for (int i = 3; i >= 0; i--) {
                dp[i] = A[i][4];
                for (int j = i + 1; j < 4; j++) dp[i] -= A[i][j] * dp[j];
                dp[i] /= A[i][i];
                descent += dp[i] * g[i];
            }
            double q[4];
            for (int k = 0; k < 4; k++) q[k] = p[k] + dp[k];
            clamp_uv(a, q);
            clamp_uv(b, q + 2);
            osc_vec3 rq = osc_sub(world_point(b, q + 2, NULL), world_point(a, q, NULL));
            if (descent < 0.0 && isfinite(descent) && 0.5 * osc_dot(rq, rq) <= f) {
                memcpy(p, q, sizeof q);
                moved = true;
                mu *= 0.25;
            } else {
                mu = mu > 0.0 ? 4.0 * mu : 1e-6 * jn;
            }
        }
        if (!moved) break;
    }
    s[0] = p[0], s[1] = p[1], t[0] = p[2], t[1] = p[3];
    return osc_length(osc_sub(world_point(b, t, NULL), world_point(a, s, NULL)));
}

// the refined local minima of the sampled distance between a's and b's faces below `d_limit`;
// returns their count
static int oracle_minima(const sampled_face* a, const sampled_face* b, double d_limit, double alpha,
                         oracle_minimum* out) {
    int count = 0;
    static double dist[GRID * GRID];
    for (int ia = 0; ia < GRID * GRID; ia++) {
        if (!a->inside[ia]) continue;
        for (int ib = 0; ib < GRID * GRID; ib++)
            dist[ib] = b->inside[ib] ? osc_length(osc_sub(b->x[ib], a->x[ia])) : INFINITY;
        int i = ia / GRID, j = ia % GRID;
        for (int ib = 0; ib < GRID * GRID; ib++) {
            double d0 = dist[ib];
            if (!(d0 <= d_limit)) continue;
            int k = ib / GRID, l = ib % GRID;
            bool minimum = true;
            // first over B's neighbours (the cheap test), then over all 80
            for (int dk = -1; dk <= 1 && minimum; dk++)
                for (int dl = -1; dl <= 1 && minimum; dl++) {
                    int nb = neighbour(b, k, l, dk, dl);
                    if (nb >= 0 && nb != ib && dist[nb] < d0) minimum = false;
                }
            for (int di = -1; di <= 1 && minimum; di++)
                for (int dj = -1; dj <= 1 && minimum; dj++) {
                    int na = neighbour(a, i, j, di, dj);
                    if (na < 0 || na == ia) continue;
                    for (int dk = -1; dk <= 1 && minimum; dk++)
                        for (int dl = -1; dl <= 1 && minimum; dl++) {
                            int nb = neighbour(b, k, l, dk, dl);
                            if (nb >= 0 && osc_length(osc_sub(b->x[nb], a->x[na])) < d0) minimum = false;
                        }
                }
            if (!minimum) continue;
            oracle_minimum m;
            memset(&m, 0, sizeof m);
            grid_uv(a, i, j, m.s);
            grid_uv(b, k, l, m.t);
            bool strict;
            m.d = refine(a, b, m.s, m.t, &strict);
            osc_vec3 na, nb;
            m.xa = world_point(a, m.s, &na);
            m.xb = world_point(b, m.t, &nb);
            // duplicates: discrete minima that refine to the same pair
            m.strict = strict;
            bool seen = false;
            for (int q = 0; q < count && !seen; q++)
                seen = osc_length(osc_sub(out[q].xa, m.xa)) < 1e-7 && osc_length(osc_sub(out[q].xb, m.xb)) < 1e-7;
            if (seen) continue;
            osc_vec3 n = osc_scale(osc_sub(m.xb, m.xa), 1.0 / m.d);
            bool in_faces = osc_brep_face_contains(a->brep, 0, m.s[0], m.s[1]) &&
                            osc_brep_face_contains(b->brep, 0, m.t[0], m.t[1]);
            bool polar = osc_dot(n, na) >= cos(alpha) && osc_dot(n, nb) <= -cos(alpha);
            m.lmd = strict && in_faces && polar && m.d > 0 && m.d < 0.98 * d_limit && clear_of_trims(a, i, j, 2) &&
                    clear_of_trims(b, k, l, 2);
            if (count < MAX_MINIMA) out[count++] = m;
        }
    }
    return count;
}

// ---- the comparison ------------------------------------------------------------------------------

static osc_lmd_contact g_contacts[CAP], g_other[CAP];
static double g_jacobians[CAP][12], g_other_jacobians[CAP][12];

static int query(const osc_brep* a, osc_pose pa, const osc_brep* b, osc_pose pb, const osc_lmd_settings* s,
                 osc_lmd_contact* out, double (*jac)[12]) {
    osc_lmd_output o = {.contacts = out, .capacity = CAP, .distance_jacobians = &jac[0][0]};
    CHECK_STATUS(osc_lmd_query(a, pa, b, pb, s, NULL, &o, 1), OSC_OK);
    return o.count;
}

typedef struct tally {
    int poses, contacts, minima, required, missed, spurious, probed, several, columns;
    double worst_distance, worst_point, worst_on_surface, worst_gradient;
} tally;

// central differences of contact k's gap over the 12 twist columns (h = 1e-6), the contact found
// again by its features and nearest footpoint
static void check_gradient(const osc_brep* a, osc_pose pa, const osc_brep* b, osc_pose pb, const osc_lmd_settings* s,
                           int k, tally* t) {
    const osc_lmd_contact* c = &g_contacts[k];
    for (int col = 0; col < 12; col++) {
        double h = 1e-6, val[2];
        bool ok = true;
        for (int sgn = 0; sgn < 2 && ok; sgn++) {
            double xi[6] = {0};
            xi[col % 6] = sgn ? -h : h;
            osc_pose qa = col < 6 ? osc_pose_apply_twist(pa, xi) : pa;
            osc_pose qb = col < 6 ? pb : osc_pose_apply_twist(pb, xi);
            int m = query(a, qa, b, qb, s, g_other, g_other_jacobians);
            int best = -1;
            double bd = INFINITY;
            for (int j = 0; j < m; j++) {
                if (g_other[j].feature_a != c->feature_a || g_other[j].feature_b != c->feature_b ||
                    g_other[j].kind_a != c->kind_a || g_other[j].kind_b != c->kind_b)
                    continue;
                double dd = osc_length(osc_sub(g_other[j].point_a, c->point_a));
                if (dd < bd) bd = dd, best = j;
            }
            ok = best >= 0 && bd < 1e-3;
            if (ok) val[sgn] = g_other[best].distance;
        }
        CHECK_MSG(ok, "contact %d lost under a twist of column %d", k, col);
        if (!ok) continue;
        double fd = (val[0] - val[1]) / (2.0 * h);
        t->worst_gradient = fmax(t->worst_gradient, fabs(fd - g_jacobians[k][col]));
        t->columns++;
    }
}

// 1 when contact c is a local minimum by probing: its footpoints inside their faces, and no pair of
// points within 1e-5, 1e-4 and 1e-3 of the parameter boxes (300 random directions in the four
// parameters each) nearer than its distance less 1e-12 of the part size
static bool probed_minimum(const sampled_face* a, const sampled_face* b, const osc_lmd_contact* c, double size) {
    double p0[4] = {c->param_a[0], c->param_a[1], c->param_b[0], c->param_b[1]};
    if (!osc_brep_face_contains(a->brep, 0, p0[0], p0[1]) || !osc_brep_face_contains(b->brep, 0, p0[2], p0[3]))
        return false;
    test_rng rng = {5};
    for (double eps = 1e-5; eps <= 1.5e-3; eps *= 10)
        for (int k = 0; k < 300; k++) {
            double dir[4], norm = 0.0, p[4];
            for (int m = 0; m < 4; m++) dir[m] = test_uniform(&rng, -1, 1), norm += dir[m] * dir[m];
            for (int m = 0; m < 4; m++) {
                const sampled_face* f = m < 2 ? a : b;
                p[m] = p0[m] + eps * (f->hi[m & 1] - f->lo[m & 1]) * dir[m] / sqrt(norm);
            }
            if (!osc_brep_face_contains(a->brep, 0, p[0], p[1]) || !osc_brep_face_contains(b->brep, 0, p[2], p[3]))
                continue;
            double d = osc_length(osc_sub(world_point(b, p + 2, NULL), world_point(a, p, NULL)));
            if (d < c->distance - 1e-12 * size) return false;
        }
    return true;
}

// one pose: the module's contacts against the oracle's minima
static void compare_pose(const char* what, int pose, const osc_brep* a, osc_pose pa, const osc_brep* b, osc_pose pb,
                         const osc_lmd_settings* s, double size, bool gradients, tally* t) {
    static sampled_face fa, fb;
    static oracle_minimum minima[MAX_MINIMA];
    sample_face(&fa, a, pa);
    sample_face(&fb, b, pb);
    int nm = oracle_minima(&fa, &fb, s->d_max, s->alpha, minima);
    int n = query(a, pa, b, pb, s, g_contacts, g_jacobians);
    t->poses++;
    t->contacts += n;
    int required = 0;
    for (int q = 0; q < nm; q++) required += minima[q].lmd;
    t->minima += nm;
    t->required += required;
    t->several += required >= 3;
    for (int k = 0; k < n; k++) {
        const osc_lmd_contact* c = &g_contacts[k];
        // footpoints on the surfaces at their parameters
        osc_vec3 xa = osc_pose_apply(pa, osc_brep_face_point(a, c->feature_a, c->param_a[0], c->param_a[1], NULL));
        osc_vec3 xb = osc_pose_apply(pb, osc_brep_face_point(b, c->feature_b, c->param_b[0], c->param_b[1], NULL));
        t->worst_on_surface =
            fmax(t->worst_on_surface, fmax(osc_length(osc_sub(xa, c->point_a)), osc_length(osc_sub(xb, c->point_b))));
        int best = -1;
        double bd = INFINITY;
        for (int q = 0; q < nm; q++) {
            if (!minima[q].strict) continue;
            double dd =
                fmax(osc_length(osc_sub(minima[q].xa, c->point_a)), osc_length(osc_sub(minima[q].xb, c->point_b)));
            if (dd < bd) bd = dd, best = q;
        }
        if (best < 0 || bd > 1e-5 * size || fabs(minima[best].d - c->distance) > 1e-9 * size) {
            // a minimum in a basin too shallow for the lattice: probed instead
            if (probed_minimum(&fa, &fb, c, size)) {
                t->probed++;
                continue;
            }
            t->spurious++;
            printf("  %s pose %d: contact %d at %.12g (params %.6g %.6g / %.6g %.6g) matches no sampled minimum "
                   "(nearest %g away, d %.12g)\n",
                   what, pose, k, c->distance, c->param_a[0], c->param_a[1], c->param_b[0], c->param_b[1], bd,
                   best >= 0 ? minima[best].d : NAN);
            continue;
        }
        minima[best].matched = true;
        t->worst_point = fmax(t->worst_point, bd);
        t->worst_distance = fmax(t->worst_distance, fabs(minima[best].d - c->distance));
        if (gradients) check_gradient(a, pa, b, pb, s, k, t);
    }
    for (int q = 0; q < nm; q++)
        if (minima[q].lmd && !minima[q].matched) {
            t->missed++;
            printf("  %s pose %d: sampled minimum %.12g at (%.6g %.6g / %.6g %.6g) not reported\n", what, pose,
                   minima[q].d, minima[q].s[0], minima[q].s[1], minima[q].t[0], minima[q].t[1]);
        }
}

static void report(const char* what, const tally* t) {
    printf("  %s: %d poses, %d contacts, %d sampled minima (%d LMDs clear of the trims, %d poses with 3 or more); "
           "%d missed, %d spurious, %d in basins too shallow for the lattice (probed); distances within %.2g, "
           "footpoints within %.2g (on their surfaces to %.2g); "
           "gradients: %d columns within %.2g\n",
           what, t->poses, t->contacts, t->minima, t->required, t->several, t->missed, t->spurious, t->probed,
           t->worst_distance, t->worst_point, t->worst_on_surface, t->columns, t->worst_gradient);
    CHECK_MSG(t->missed == 0, "%s: %d sampled minima not reported", what, t->missed);
    CHECK_MSG(t->spurious == 0, "%s: %d contacts match no sampled minimum", what, t->spurious);
    CHECK_MSG(t->required >= t->poses, "%s: too few minima (%d over %d poses) to test anything", what, t->required,
              t->poses);
    CHECK_MSG(t->several > 0, "%s: no pose with several minima", what);
    CHECK_MSG(t->worst_on_surface < 1e-12, "%s: a footpoint %g off its surface", what, t->worst_on_surface);
    CHECK_MSG(t->columns > 0 && t->worst_gradient < 1e-7, "%s: gradient error %g over %d columns", what,
              t->worst_gradient, t->columns);
}

static osc_pose tilted(test_rng* rng, osc_vec3 centre, double spread, double tilt) {
    osc_vec3 axis = osc_normalize(osc_v3(test_uniform(rng, -1, 1), test_uniform(rng, -1, 1), 0));
    osc_quat q = osc_quat_mul(osc_quat_from_axis_angle(axis, test_uniform(rng, -tilt, tilt)),
                              osc_quat_from_axis_angle(osc_v3(0, 0, 1), test_uniform(rng, -3.1, 3.1)));
    return osc_pose_make(osc_add(centre, osc_v3(test_uniform(rng, -spread, spread), test_uniform(rng, -spread, spread),
                                                test_uniform(rng, -0.1, 0.1))),
                         q);
}

// Poses where the sampled distance stays above `gap` (the faces do not cross)
static bool apart(const osc_brep* a, osc_pose pa, const osc_brep* b, osc_pose pb, double gap) {
    static sampled_face fa, fb;
    sample_face(&fa, a, pa);
    sample_face(&fb, b, pb);
    for (int i = 0; i < GRID * GRID; i += 3)
        for (int k = 0; k < GRID * GRID; k += 3)
            if (osc_length(osc_sub(fa.x[i], fb.x[k])) < gap) return false;
    return true;
}

static void run_pairs(const char* what, const osc_brep* a, const osc_brep* b, osc_vec3 centre, double spread,
                      double tilt, bool b_moves, int poses, uint64_t seed) {
    test_rng rng = {seed};
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.6;
    s.conformal_samples = 0;
    double size = 3.0 * sqrt(2.0);
    tally t;
    memset(&t, 0, sizeof t);
    for (int k = 0, tries = 0; k < poses && tries < 20 * poses; tries++) {
        osc_pose moved = tilted(&rng, centre, spread, tilt);
        osc_pose pa = b_moves ? osc_pose_identity() : moved, pb = b_moves ? moved : osc_pose_identity();
        if (!apart(a, pa, b, pb, 0.03)) continue;
        compare_pose(what, k, a, pa, b, pb, &s, size, k < 3, &t);
        k++;
    }
    report(what, &t);
}

static void test_nurbs_nurbs(void) {
    osc_brep *floor = make_floor(), *cap = make_cap();
    if (floor && cap) run_pairs("NURBS-NURBS", floor, cap, osc_v3(1.5, 1.5, 0.5), 0.35, 0.15, true, 12, 11);
    osc_brep_destroy(floor);
    osc_brep_destroy(cap);
}

static void test_nurbs_canonical(void) {
    osc_brep *floor = make_floor(), *torus = make_torus(), *sphere = NULL;
    CHECK_STATUS(osc_brep_create_sphere(1.5, NULL, &sphere), OSC_OK);
    if (floor && torus && sphere) {
        run_pairs("NURBS-sphere", floor, sphere, osc_v3(1.5, 1.5, 1.95), 0.5, 0.0, true, 10, 21);
        run_pairs("NURBS-torus", floor, torus, osc_v3(1.5, 1.5, 0.45), 0.4, 0.2, true, 10, 31);
        run_pairs("torus-NURBS", torus, floor, osc_v3(1.5, 1.5, 0.45), 0.4, 0.2, false, 6, 41);
    }
    osc_brep_destroy(floor);
    osc_brep_destroy(torus);
    osc_brep_destroy(sphere);
}

int main(void) {
    RUN(test_nurbs_nurbs);
    RUN(test_nurbs_canonical);
    return test_finish();
}
