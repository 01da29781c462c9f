// dcol_support.c: the support path of DCOL (docs/dcol.md §3.5). Every kind's support function is a
// piecewise-linear part plus a smooth one (a cone's: the larger of its apex and its base disc), so
// the exact optimum of Tracy et al. 2023 problem (9) comes from an active-set Newton method on the support
// functions; conic_offset_start then moves it to the first-order central point of the barrier,
// from which the interior-point solver only re-centres. The file runs from the bodies' support
// functions (support_body_of, body_value, the ties, a cone's curved crossing, a disc's kink) through
// what turns an optimum into an answer (the exact contact of §3.7, the central start) to the walk
// itself, whose phases are listed where it begins ("the walk").

#include "dcol_internal.h"

#include <string.h>

enum { SUPPORT_MAX_VERTICES = 2 * OSC_CONVEX_MAX_FACES };

// a piece's curvature in the plane below this share of its trace (or its determinant below this
// share of the trace squared) counts as none: N is linear along that direction (a disc's axis)
static const double FLAT_CURVATURE = 1e-10;

// One body's support function in normalised world units,
//     h(n) = max_j v_j . n + sqrt(n^T C n),
// the vertices of its piecewise-linear core (a point, a capsule's segment, a polygon's corners, a
// polytope's vertices) and the ball or ellipsoid it is swept by (C = 0 for a polytope). A cone has
// two pieces, h(n) = max(apex . n, centre . n + sqrt(n^T C n)) with its base disc's C: its apex is
// the `plain` vertex, without the smooth part. B's vertices are negated, so that its term is
// h_B(-n) (every ball is symmetric). `tied` lists the vertices that attain the maximum on the
// current piece, its representative first.
typedef struct support_body {
    double C[3][3];
    double L[3][3]; // an ellipsoid's factor C = L L^T (L = Q U^-1 / s)
    bool factored;  // an ellipsoid: C n and sqrt(n^T C n) from L (smooth_part)
    bool ball;
    bool isotropic;        // a ball's C = (R / s)^2 I (a sphere, a capsule, a polygon): C v = C_00 v
    bool disc;             // a cylinder or cone: C = (R / s)^2 (I - e e^T) has rank 2, kinked where n is along e
    int plain;             // the vertex without the smooth part (a cone's apex), or -1
    osc_vec3 axis;         // the cylinder's or cone's axis e
    double radius;         // R / s
    double inverse_radius; // s / R (a disc's)
    int count;
    osc_vec3 vertex[SUPPORT_MAX_VERTICES];
    // a polytope's face neighbours (convex_internal.h), NULL otherwise: its ratio tests scan those
    const uint64_t (*neighbours)[CONVEX_NEIGHBOUR_WORDS];
    double shape_size; // a polytope's largest |v_j|, its bounding radius / scale
    int tied[SUPPORT_MAX_VERTICES];
    int tied_count;
    bool is_tied[SUPPORT_MAX_VERTICES];
    // the smooth part at the current n: C n and sqrt(n^T C n)
    osc_vec3 cn;
    double root;
    // fixed on the plane (e1, e2): e_i . C e_j, and each vertex's coordinates v . e1, v . e2 (a
    // polytope's on demand: plane_coordinates)
    osc_vec3 e1, e2;
    double c11, c12, c22;
    double along1[SUPPORT_MAX_VERTICES], along2[SUPPORT_MAX_VERTICES];
} support_body;

static void set_ball(support_body* body, double radius, double scale) {
    double r2 = radius * radius / (scale * scale);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) body->C[i][j] = i == j ? r2 : 0.0;
    body->ball = true;
    body->isotropic = true;
}

// a disc of radius R across the axis e: C = (R / s)^2 (I - e e^T), the support (R / s) |n - (n . e) e|
static void set_disc(support_body* body, double radius, double scale) {
    set_ball(body, radius, scale);
    double r2 = body->C[0][0];
    body->disc = true;
    body->isotropic = false;
    body->radius = sqrt(r2);
    body->inverse_radius = 1.0 / body->radius;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            body->C[i][j] = r2 * ((i == j) - osc_vec3_get(body->axis, i) * osc_vec3_get(body->axis, j));
}

// whether vertex j carries the body's smooth part
static inline bool is_swept(const support_body* body, int j) { return body->ball && j != body->plain; }

// a vertex's coordinates on the plane (e1, e2)
typedef struct plane_vector {
    double u, v;
} plane_vector;

static inline plane_vector plane_coordinates(const support_body* body, int j) {
    if (body->neighbours) return (plane_vector){osc_dot(body->vertex[j], body->e1), osc_dot(body->vertex[j], body->e2)};
    return (plane_vector){body->along1[j], body->along2[j]};
}

// a polytope's vertices that can tie next: the union of the tied vertices' face neighbours (along a
// continuous change of n the support passes only to a vertex sharing a face with the tied ones)
static void tie_candidates(const support_body* body, uint64_t candidates[CONVEX_NEIGHBOUR_WORDS]) {
    for (int w = 0; w < CONVEX_NEIGHBOUR_WORDS; ++w) candidates[w] = 0;
    for (int i = 0; i < body->tied_count; ++i)
        for (int w = 0; w < CONVEX_NEIGHBOUR_WORDS; ++w) candidates[w] |= body->neighbours[body->tied[i]][w];
}

// a polytope's support vertex at n by a climb over face neighbours from vertex 0 (a linear
// function's local maximum on a convex polytope's vertex graph is its maximum); *value its value
static int climb_to_support(const support_body* body, osc_vec3 n, double* value) {
    int at = 0;
    double best = osc_dot(body->vertex[0], n);
    for (bool moved = true; moved;) {
        moved = false;
        for (int w = 0; w < CONVEX_NEIGHBOUR_WORDS; ++w)
            for (uint64_t word = body->neighbours[at][w]; word; word &= word - 1) {
                int j = 64 * w + osc_lowest_bit(word);
                double candidate = osc_dot(body->vertex[j], n);
                if (candidate > best) {
                    best = candidate;
                    at = j;
                    moved = true;
                }
            }
    }
    *value = best;
    return at;
}

static void support_body_of(const dcol_problem* dp, int which, support_body* out) {
    const dcol_body* body = &dp->body[which];
    const osc_convex* shape = body->shape;
    const osc_mat3 Q = body->rotation;
    double inverse_scale = 1.0 / dp->scale, sign = which == 0 ? 1.0 : -1.0;
    memset(out->C, 0, sizeof out->C);
    out->factored = false;
    out->ball = false;
    out->isotropic = false;
    out->disc = false;
    out->plain = -1;
    out->radius = 0.0;
    out->axis = osc_v3(Q.m[0][0], Q.m[1][0], Q.m[2][0]);
    out->count = 1;
    out->vertex[0] = osc_v3(0.0, 0.0, 0.0);
    out->neighbours = (const uint64_t(*)[CONVEX_NEIGHBOUR_WORDS])shape->face_neighbours;
    out->shape_size = shape->bounding_radius * inverse_scale;
    switch (shape->kind) {
        case OSC_CONVEX_SPHERE: set_ball(out, shape->radius, dp->scale); break;
        case OSC_CONVEX_CAPSULE:
        case OSC_CONVEX_CYLINDER: {
            // a segment along the axis, swept by a ball (capsule) or by a disc across it (cylinder)
            if (shape->kind == OSC_CONVEX_CYLINDER)
                set_disc(out, shape->radius, dp->scale);
            else
                set_ball(out, shape->radius, dp->scale);
            osc_vec3 half = osc_scale(out->axis, 0.5 * shape->length * inverse_scale * sign);
            out->count = 2;
            out->vertex[0] = half;
            out->vertex[1] = osc_neg(half);
            break;
        }
        case OSC_CONVEX_CONE: {
            // the apex at -3H/4 along the axis, and the base centre at H/4 swept by the base disc
            double height = shape->height * inverse_scale * sign;
            set_disc(out, shape->radius, dp->scale);
            out->plain = 0;
            out->count = 2;
            out->vertex[0] = osc_scale(out->axis, -0.75 * height);
            out->vertex[1] = osc_scale(out->axis, 0.25 * height);
            break;
        }
        case OSC_CONVEX_ELLIPSOID: {
            // C = Q P^-1 Q^T / scale^2 = L L^T, L = Q U^-1 / scale (P^-1 = U^-1 U^-T)
            const double(*V)[3] = shape->U_inverse;
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j)
                    out->L[i][j] = (Q.m[i][0] * V[0][j] + Q.m[i][1] * V[1][j] + Q.m[i][2] * V[2][j]) * inverse_scale;
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j <= i; ++j)
                    out->C[i][j] = out->C[j][i] =
                        out->L[i][0] * out->L[j][0] + out->L[i][1] * out->L[j][1] + out->L[i][2] * out->L[j][2];
            out->factored = true;
            out->ball = true;
            break;
        }
        default: // polygon (its corners, padded by a ball) and polytope (its vertices)
            if (shape->kind == OSC_CONVEX_POLYGON) set_ball(out, shape->radius, dp->scale);
            out->count = shape->vertex_count;
            for (int j = 0; j < shape->vertex_count; ++j) {
                const double* v = shape->vertices + 3 * j;
                out->vertex[j] = osc_scale(osc_mat3_apply(Q, osc_v3(v[0], v[1], v[2])), inverse_scale * sign);
            }
            break;
    }
}

// C v for a body's smooth part; a ball's as C_00 v, for a finite v the product's value (its other
// terms are exact zeros) at a third of its instructions (the walk forms it about a dozen times a
// query: docs/dcol.md §3.5, "Cost")
static inline osc_vec3 mat_apply(const support_body* body, osc_vec3 v) {
    const double(*C)[3] = body->C;
    if (body->isotropic) return osc_v3(C[0][0] * v.x, C[0][0] * v.y, C[0][0] * v.z);
    return osc_v3(C[0][0] * v.x + C[0][1] * v.y + C[0][2] * v.z, C[1][0] * v.x + C[1][1] * v.y + C[1][2] * v.z,
                  C[2][0] * v.x + C[2][1] * v.y + C[2][2] * v.z);
}

// C n in *cn and sqrt(n^T C n).
// - A disc's as |C n| / (R / s) (C = (R / s)^2 P, P the projection across its axis, so
//   n^T C n = |C n|^2 / (R / s)^2): near its kink, where |P n| is of the order of the tilt t,
//   n^T C n = (R / s)^2 (|n|^2 - (n . e)^2) loses 1e-16 / t^2 of itself to rounding (a relative
//   1e-4 at t = 1e-6, which put the rim's point that far outside the disc).
// - An ellipsoid's from its factor, w = L^T n, |w| and L w. From C's entries n^T C n loses 1e-16
//   times C's condition number of itself to cancellation where n is nearly across a needle's axis
//   (1e6 at aspect 1e3): N's rounding then exceeded the walk's decreases, which stalled it short
//   of the optimum (docs/dcol.md §3.5, "Thin shapes").
static inline double smooth_part(const support_body* body, osc_vec3 n, osc_vec3* cn) {
    if (!body->factored) {
        *cn = mat_apply(body, n);
        return body->disc ? osc_length(*cn) * body->inverse_radius : sqrt(osc_dot(n, *cn));
    }
    const double(*L)[3] = body->L;
    osc_vec3 w = osc_v3(L[0][0] * n.x + L[1][0] * n.y + L[2][0] * n.z, L[0][1] * n.x + L[1][1] * n.y + L[2][1] * n.z,
                        L[0][2] * n.x + L[1][2] * n.y + L[2][2] * n.z);
    *cn = osc_v3(L[0][0] * w.x + L[0][1] * w.y + L[0][2] * w.z, L[1][0] * w.x + L[1][1] * w.y + L[1][2] * w.z,
                 L[2][0] * w.x + L[2][1] * w.y + L[2][2] * w.z);
    return osc_length(w);
}

// h(n): the largest vertex term (over every vertex) and the smooth part, with C n and
// sqrt(n^T C n) in *cn and *root
OSC_FORCE_INLINE double body_value(const support_body* body, osc_vec3 n, osc_vec3* cn, double* root) {
    if (body->plain >= 0) {
        // a cone: the larger of the plain vertex's value and the swept one's
        *root = smooth_part(body, n, cn);
        double plain = osc_dot(body->vertex[body->plain], n);
        double swept = osc_dot(body->vertex[1 - body->plain], n) + *root;
        return plain > swept ? plain : swept;
    }
    double largest = osc_dot(body->vertex[0], n);
    for (int j = 1; j < body->count; ++j) {
        double value = osc_dot(body->vertex[j], n);
        largest = value > largest ? value : largest;
    }
    *cn = osc_v3(0.0, 0.0, 0.0);
    *root = 0.0;
    if (body->ball) {
        *root = smooth_part(body, n, cn);
        largest += *root;
    }
    return largest;
}

// one tie on the current piece: vertex `index` of body `body` ties with the representative;
// direction = the projection of (its vertex - the representative)
// (a cone's tie between its apex and its base is curved: kappa = +-1, the difference of the
// smooth parts' counts, and direction is the gradient of gap = h_tie - h_representative at n)
typedef struct support_tie {
    int body, index;
    plane_vector direction;
    int kappa;
    double gap;
} support_tie;

static void remove_tied(support_body* body, int position) {
    body->is_tied[body->tied[position]] = false;
    for (int i = position; i + 1 < body->tied_count; ++i) body->tied[i] = body->tied[i + 1];
    --body->tied_count;
}

// the ties of a body become `count` vertices (the first the representative)
static void set_tied(support_body* body, const int* vertices, int count) {
    for (int i = 0; i < body->tied_count; ++i) body->is_tied[body->tied[i]] = false;
    for (int i = 0; i < count; ++i) {
        body->tied[i] = vertices[i];
        body->is_tied[vertices[i]] = true;
    }
    body->tied_count = count;
}

// The face case: more than two ties, all in body f (a face of a polytope, the flat side of a
// polygon). The optimum needs the projected core point q to lie in the convex hull of the tied
// vertices' projections. Returns true when it does; otherwise keeps only the hull edge (two
// vertices) or hull vertex nearest to q as the ties, and returns false.
static bool face_contains(support_body* body, const plane_vector* points, plane_vector q, double size) {
    int count = body->tied_count;
    // the hull edges are the pairs with every other point on one side; q is inside when it is on
    // the inner side of each (none of the tied points of a face are interior)
    bool inside = true;
    double best = INFINITY;
    int best_i = 0, best_j = -1;
    for (int i = 0; i < count; ++i) {
        plane_vector pi = points[i];
        double dq = (q.u - pi.u) * (q.u - pi.u) + (q.v - pi.v) * (q.v - pi.v);
        if (dq < best) {
            best = dq;
            best_i = i;
            best_j = -1;
        }
        for (int j = i + 1; j < count; ++j) {
            plane_vector e = {points[j].u - pi.u, points[j].v - pi.v};
            double length2 = e.u * e.u + e.v * e.v;
            if (!(length2 > 1e-24 * size * size)) continue;
            double tolerance = 1e-12 * size * sqrt(length2); // on the side products below
            int above = 0, below = 0;
            for (int k = 0; k < count; ++k) {
                double side = e.u * (points[k].v - pi.v) - e.v * (points[k].u - pi.u);
                above += side > tolerance;
                below += side < -tolerance;
            }
            if (above > 0 && below > 0) continue; // not a hull edge
            double side_q = e.u * (q.v - pi.v) - e.v * (q.u - pi.u);
            bool outside = (above > 0 && side_q < -tolerance) || (below > 0 && side_q > tolerance);
            if (!outside) continue;
            inside = false;
            double along = (e.u * (q.u - pi.u) + e.v * (q.v - pi.v)) / length2;
            if (along > 0.0 && along < 1.0) {
                double distance = side_q * side_q / length2;
                if (distance < best) {
                    best = distance;
                    best_i = i;
                    best_j = j;
                }
            }
        }
    }
    if (inside) return true;
    int keep[2] = {body->tied[best_i], best_j >= 0 ? body->tied[best_j] : -1};
    set_tied(body, keep, best_j >= 0 ? 2 : 1);
    return false;
}

// the gap of a cone's other piece to its representative along the step m = n + r step,
//     g(r) = (v_o - v_r) . m + kappa sqrt(m^T C m) = a + b r + kappa sqrt(q0 + 2 q1 r + q2 r^2),
// with kappa = +-1 the difference of the pieces' smooth parts: g is convex (kappa = 1) or concave
// in r, and its zeros are roots of the quadratic (a + b r)^2 = q(r) (docs/dcol.md §3.5)
typedef struct piece_line {
    double a, b, q0, q1, q2;
    int kappa;
} piece_line;

// g(r) and g'(r) (*slope); NAN where m^T C m vanishes (the disc's kink)
static double line_gap(const piece_line* line, double r, double* slope) {
    double q = line->q0 + (2.0 * line->q1 + line->q2 * r) * r;
    if (!(q > 0.0)) {
        *slope = NAN;
        return NAN;
    }
    double root = sqrt(q);
    *slope = line->b + line->kappa * (line->q1 + line->q2 * r) / root;
    return line->a + line->b * r + line->kappa * root;
}

// the smallest r > 0 at which g crosses zero upwards (g' > 0), or NAN: the roots of
// (b^2 - q2) r^2 + 2 (a b - q1) r + a^2 - q0 = 0 (in the form that keeps precision), kept where
// they are zeros of g itself (not of a + b r - kappa sqrt(q)), each polished by a Newton step
static double upward_crossing(const piece_line* line) {
    double quadratic = line->b * line->b - line->q2, half_linear = line->a * line->b - line->q1,
           constant = line->a * line->a - line->q0;
    double roots[2];
    int count = 0;
    double discriminant = half_linear * half_linear - quadratic * constant;
    if (!(discriminant >= 0.0)) return NAN;
    double s = -(half_linear + copysign(sqrt(discriminant), half_linear));
    if (s != 0.0) roots[count++] = constant / s;
    if (quadratic != 0.0) roots[count++] = s / quadratic;
    double best = NAN;
    for (int i = 0; i < count; ++i) {
        double r = roots[i], slope;
        double gap = line_gap(line, r, &slope);
        // a root of the other branch has |g| = 2 |a + b r| = 2 sqrt(q), far from zero
        double size = fabs(line->a + line->b * r) + fabs(gap - line->a - line->b * r);
        if (!(fabs(gap) <= 1e-6 * size) || !(slope > 0.0)) continue;
        r -= gap / slope;
        if (r > 0.0 && !(r >= best)) best = r;
    }
    return best;
}

// A cone whose representative is one piece: whether the other piece overtakes it along the step
// n + r step, r in (0, reach] (any r > 0 when reach is infinite, as for a linear piece's step).
// Writes the crossing to *at: 0 when the gap rises at once from zero or above (on the tie, just
// released), else the first upward zero of g; false when g stays at or below zero up to reach.
static bool curved_crossing(const support_body* body, osc_vec3 n, osc_vec3 step, double reach, double* at) {
    int representative = body->tied[0], other = 1 - representative;
    osc_vec3 difference = osc_sub(body->vertex[other], body->vertex[representative]);
    osc_vec3 cn = mat_apply(body, n), cs = mat_apply(body, step);
    piece_line line = {osc_dot(difference, n), osc_dot(difference, step),
                       osc_dot(n, cn),         osc_dot(n, cs),
                       osc_dot(step, cs),      is_swept(body, other) - is_swept(body, representative)};
    double slope_high;
    if (isfinite(reach) && !(line_gap(&line, reach, &slope_high) > 0.0)) return false;
    double slope_zero;
    double gap_zero = line_gap(&line, 0.0, &slope_zero);
    if (!isfinite(gap_zero)) return false;
    double crossing = upward_crossing(&line);
    if (gap_zero >= 0.0 && (slope_zero >= 0.0 || !isfinite(crossing))) {
        // on the tie: rising at once, or (going down) never up again
        if (!(slope_zero >= 0.0)) return false;
        *at = 0.0;
        return true;
    }
    if (!isfinite(crossing) || crossing > reach) return false;
    *at = crossing;
    return true;
}

// x = r'_A + alpha y_A = r'_B - alpha y_B from the support points y (weighted: they agree at the
// optimum), alpha = 1 / N, and the slacks: the core points in the body frame, scaled by alpha (B's
// actual core point is minus its negated one); then the first-order central point
static void set_optimum(dcol_problem* dp, double sum, const osc_vec3 core[2], const osc_vec3 support[2]) {
    double alpha = 1.0 / sum;
    double* v = dp->state.x;
    memset(v, 0, sizeof dp->state.x);
    // x from both sides, each weighted by the other body's inner radius: a residual r of the
    // balance then leaves both gauges off by r / (alpha (rho_A + rho_B)), where the plain mean left
    // the thinner body's off by r / (2 alpha rho_thin) (a sphere of 1e-5 against a box of 100)
    double inner[2] = {dp->body[0].shape->inner_radius, dp->body[1].shape->inner_radius};
    double weight[2] = {inner[1] / (inner[0] + inner[1]), inner[0] / (inner[0] + inner[1])};
    osc_vec3 x = osc_v3(0.0, 0.0, 0.0);
    for (int k = 0; k < 2; ++k) {
        double sign = k == 0 ? 1.0 : -1.0;
        x = osc_add_scaled(x, osc_add_scaled(dp->body[k].origin, support[k], sign * alpha), weight[k]);
        const osc_convex* shape = dp->body[k].shape;
        if (shape->slack_count > 0) {
            osc_vec3 local = osc_mat3_apply_transpose(dp->body[k].rotation, osc_scale(core[k], sign * alpha));
            int column = dp->body[k].slack_column;
            v[column] = local.x;
            if (shape->slack_count > 1) v[column + 1] = local.y;
        }
    }
    v[0] = x.x;
    v[1] = x.y;
    v[2] = x.z;
    v[3] = alpha;
    memcpy(dp->optimum, v, sizeof dp->optimum);
    dp->has_optimum = true;
}

static bool finish_start(dcol_problem* dp, double sum, const osc_vec3 core[2], const osc_vec3 support[2],
                         double barrier, double active_gap) {
    set_optimum(dp, sum, core, support);
    if (!dp->rows_ready) dcol_assemble_rows(dp);
    return conic_offset_start(&dp->conic, barrier, active_gap, dp->state.x, dp->state.s, dp->state.z);
}

// a disc's support at least this share of |n| R / s from its kink for an exact contact: nearer,
// its curvature (~ 1 / |P n|) is left to the conic path's smoothing
static const double EXACT_KINK_CLEARANCE = 1e-6;
// the balance alpha (S_A + S_B) = d that an exact contact must meet, relative to |d| (x is the
// mean of its two sides): where the walk ends short of it (the rounding floor of a needle's
// curvature, whose eigenvalues span 1e8 and more at aspect 1e4, left 1e-5 of alpha in the gauges),
// its start and the re-centring steps of the conic path answer. 1e-12 and a bound against the
// thinner body's inner radius both let needles through whose x then failed the gauges or whose
// differences crossed from one path to the other (docs/dcol.md §3.7). A pair of stout bodies (each
// inner radius at least EXACT_STOUT of the pair's scale, the sum of the bounding radii: x's error
// is then a small share of either body) is held to EXACT_STOUT_BALANCE instead: their walk ends
// within 1e-12 but for a few in 1e4, and 1e-13 sent 1 % of them to the conic path at random, which
// made their answers switch paths between neighbouring poses
static const double EXACT_BALANCE = 1e-13;
static const double EXACT_STOUT = 0.05;
static const double EXACT_STOUT_BALANCE = 1e-11;
// every vertex that is not tied at least this share of |n| times the body's size below the
// support for an exact contact: nearer, the contact is close to flat (a face resting on a face, a
// capsule lying on one), which the conic path smooths and flags (docs/dcol.md §5)
static const double EXACT_TIE_CLEARANCE = 1e-4;

// a vertex's gap below the support: clear, or in the tied face (|gap| <= in_face)
static inline bool clear_of(double gap, double clearance, double in_face) {
    return gap > clearance || fabs(gap) <= in_face;
}

// whether every vertex of the body that is not tied, of the representative's piece (a cone's
// other piece too), lies clear of the support at n (EXACT_TIE_CLEARANCE of the body's own size:
// against the pair's, every vertex of a body 1e-4 its partner's size was near and its point
// contacts took the conic path, whose smoothing is the pair's)
static bool ties_clear(const support_body* body, osc_vec3 n) {
    int representative = body->tied[0];
    double top = osc_dot(body->vertex[representative], n), size = body->shape_size;
    double clearance = EXACT_TIE_CLEARANCE * osc_length(n) * size;
    // a face (three tied vertices or more fix n): its other vertices, in its plane to rounding,
    // are part of it and move with it
    double in_face = body->tied_count > 2 ? 1e-12 * osc_length(n) * size : -1.0;
    if (body->plain >= 0) {
        if (body->tied_count > 1) return true; // both pieces tied: nothing else to meet
        // a cone with its representative's piece alone: the other piece's value
        int other = 1 - representative;
        double gap = top - osc_dot(body->vertex[other], n) +
                     (is_swept(body, representative) - is_swept(body, other)) * body->root;
        return gap > clearance;
    }
    if (body->neighbours) {
        // a polytope: only a face neighbour of a tied vertex can tie first
        uint64_t candidates[CONVEX_NEIGHBOUR_WORDS];
        tie_candidates(body, candidates);
        for (int w = 0; w < CONVEX_NEIGHBOUR_WORDS; ++w)
            for (uint64_t word = candidates[w]; word; word &= word - 1) {
                int j = 64 * w + osc_lowest_bit(word);
                if (!body->is_tied[j] && !clear_of(top - osc_dot(body->vertex[j], n), clearance, in_face)) return false;
            }
        return true;
    }
    for (int j = 0; j < body->count; ++j)
        if (!body->is_tied[j] && !clear_of(top - osc_dot(body->vertex[j], n), clearance, in_face)) return false;
    return true;
}

// whether alpha (S_A + S_B) = d holds to EXACT_BALANCE (EXACT_STOUT_BALANCE); then starts the exact contact with n, alpha
// and the support points, no curvature and no ties
static bool exact_begin(dcol_problem* dp, osc_vec3 n, double sum, const osc_vec3 support[2]) {
    dcol_exact_contact* contact = &dp->contact;
    osc_vec3 d = osc_sub(dp->body[1].origin, dp->body[0].origin);
    osc_vec3 balance = osc_sub(osc_scale(osc_add(support[0], support[1]), 1.0 / sum), d);
    bool stout = fmin(dp->body[0].shape->inner_radius, dp->body[1].shape->inner_radius) >= EXACT_STOUT * dp->scale;
    double allowed = stout ? EXACT_STOUT_BALANCE : EXACT_BALANCE;
    if (!(osc_length_squared(balance) <= allowed * allowed * osc_length_squared(d))) return false;
    contact->n = n;
    contact->alpha = 1.0 / sum;
    contact->tie_count = 0;
    memset(contact->curvature, 0, sizeof contact->curvature);
    contact->curved[0] = contact->curved[1] = false;
    for (int k = 0; k < 2; ++k) contact->support[k] = support[k];
    return true;
}

// share times the curvature of the body's smooth part at n, H = (C - g g^T) / h with g = C n / h,
// into *out; false for a disc too near its kink (EXACT_KINK_CLEARANCE)
static bool smooth_curvature(const support_body* body, osc_vec3 n, osc_vec3 cn, double root, double share,
                             osc_mat3* out) {
    if (!(root > (body->disc ? EXACT_KINK_CLEARANCE * osc_length(n) * body->radius : 0.0))) return false;
    double inverse = 1.0 / root;
    osc_vec3 g = osc_scale(cn, inverse);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out->m[i][j] = share * (body->C[i][j] - osc_vec3_get(g, i) * osc_vec3_get(g, j)) * inverse;
    return true;
}

static void add_tie(dcol_exact_contact* contact, int body, osc_vec3 tie) {
    contact->tie_body[contact->tie_count] = body;
    contact->tie[contact->tie_count++] = tie;
}

// The walk's optimum as an exact contact (dcol_internal.h; docs/dcol.md §3.7) where it is a point
// contact: a disc clear of its kink, at most two tied differences (of a face's more than two, the
// pair that spans it best: the face's vertices move with it rigidly; a cone's apex tied with its
// base is one, between its two pieces' support points, with the base's curvature weighted by its
// share), every other vertex clear of the support, and linearised conditions that
// dcol_exact_prepare can invert. `weight`: the ties' weights, body by body.
static bool exact_contact(dcol_problem* dp, const support_body bodies[2], osc_vec3 n, double sum,
                          const double weight[2], const osc_vec3 support[2]) {
    if (!exact_begin(dp, n, sum, support)) return false;
    dcol_exact_contact* contact = &dp->contact;
    for (int k = 0, tie_index = 0; k < 2; tie_index += bodies[k].tied_count - 1, ++k) {
        const support_body* body = &bodies[k];
        if (!ties_clear(body, n)) return false;
        int representative = body->tied[0];
        if (body->plain >= 0 && body->tied_count > 1) {
            // a cone's generator: S = piece_r + w (piece_j - piece_r), dS/dn its base's curvature
            // times the base's share
            int other = body->tied[1];
            double w = weight[tie_index], share = is_swept(body, representative) ? 1.0 - w : w;
            if (!smooth_curvature(body, n, body->cn, body->root, share, &contact->curvature[k])) return false;
            contact->curved[k] = true;
            osc_vec3 g = osc_scale(body->cn, 1.0 / body->root);
            double kappa = is_swept(body, other) - is_swept(body, representative);
            add_tie(contact, k, osc_add_scaled(osc_sub(body->vertex[other], body->vertex[representative]), g, kappa));
            continue;
        }
        if (is_swept(body, representative)) {
            if (!smooth_curvature(body, n, body->cn, body->root, 1.0, &contact->curvature[k])) return false;
            contact->curved[k] = true;
        }
        osc_vec3 origin = body->vertex[representative];
        int first = 1, second = body->tied_count > 2 ? 2 : -1;
        if (body->tied_count > 3) {
            // a face: the two differences of largest cross product
            double best = -1.0;
            for (int i = 1; i < body->tied_count; ++i)
                for (int j = i + 1; j < body->tied_count; ++j) {
                    double area = osc_length_squared(osc_cross(osc_sub(body->vertex[body->tied[i]], origin),
                                                               osc_sub(body->vertex[body->tied[j]], origin)));
                    if (area > best) {
                        best = area;
                        first = i;
                        second = j;
                    }
                }
        }
        for (int i = 1; i < body->tied_count && i <= 2; ++i) {
            if (contact->tie_count == 2) return false;
            add_tie(contact, k, osc_sub(body->vertex[body->tied[i == 1 ? first : second]], origin));
        }
    }
    return dcol_exact_prepare(contact);
}

// a disc's subgradients at its kink in plane coordinates: R (e_1 . u, e_2 . u) = M (a, b) for
// u = a f_1 + b f_2 across the axis
typedef struct disc_map {
    osc_vec3 f1, f2;
    double m11, m12, m21, m22;
} disc_map;

static disc_map disc_plane_map(const support_body* disc, osc_vec3 e1, osc_vec3 e2) {
    disc_map map;
    map.f1 = osc_normalize(osc_cross(disc->axis, fabs(disc->axis.x) < 0.57 ? osc_v3(1, 0, 0) : osc_v3(0, 1, 0)));
    map.f2 = osc_cross(disc->axis, map.f1);
    map.m11 = disc->radius * osc_dot(e1, map.f1);
    map.m12 = disc->radius * osc_dot(e1, map.f2);
    map.m21 = disc->radius * osc_dot(e2, map.f1);
    map.m22 = disc->radius * osc_dot(e2, map.f2);
    return map;
}

// what an exact contact at a disc's kink needs (exact_kink_contact): n, the rim's share |u| of the
// contact point, the other body's clearance and smooth part, and the directions
// across the axis
typedef struct kink_info {
    osc_vec3 n;
    double reach;
    double other_gap;
    osc_vec3 other_cn;
    double other_root;
    osc_vec3 f1, f2;
} kink_info;

// A cylinder's disc is not differentiable at n_e = e / (e . d), where its end faces the other body
// (docs/dcol.md §3.5). n_e is the optimum when the rest of N's gradient there, g, is balanced by a
// subgradient of the disc, R u with u across the axis and |u| <= 1: R (e_1 . u, e_2 . u) = -g. Then
// fills the sum N, the core and support points. False when it is not, when n_e is off the plane
// (the axis across d) or when a support there is not unique.

static bool disc_kink_optimum(support_body bodies[2], int k, osc_vec3 d, osc_vec3 e1, osc_vec3 e2, double size,
                              double* sum, osc_vec3 core[2], osc_vec3 support[2], kink_info* info) {
    const support_body* disc = &bodies[k];
    double ed = osc_dot(disc->axis, d);
    if (!(fabs(ed) > 1e-9 * osc_length(d))) return false;
    osc_vec3 n = osc_scale(disc->axis, 1.0 / ed);
    double g1 = 0.0, g2 = 0.0;
    *sum = 0.0;
    for (int b = 0; b < 2; ++b) {
        const support_body* body = &bodies[b];
        int best = 0;
        double first = -INFINITY, second = -INFINITY;
        // the other body's cone ranks its pieces with its swept part
        double swept_root = 0.0;
        osc_vec3 swept_cn;
        if (b != k && body->plain >= 0) swept_root = smooth_part(body, n, &swept_cn);
        for (int j = 0; j < body->count; ++j) {
            double value = osc_dot(body->vertex[j], n) + (j != body->plain ? swept_root : 0.0);
            if (value > first) {
                second = first;
                first = value;
                best = j;
            } else if (value > second) {
                second = value;
            }
        }
        if (!(second < first - 1e-12 * size * osc_length(n))) return false; // tied: not a point
        if (b == k && best == body->plain) return false;                    // a cone's apex, not its base, is there
        if (b != k) {
            info->other_gap = first - second;
            info->other_root = 0.0;
        }
        core[b] = support[b] = body->vertex[best];
        *sum += osc_dot(body->vertex[best], n);
        plane_vector along = plane_coordinates(body, best);
        g1 += along.u;
        g2 += along.v;
        if (b != k && is_swept(body, best)) {
            osc_vec3 cn;
            double root = smooth_part(body, n, &cn);
            if (!(root > 1e-12 * osc_length(n) * size)) return false;
            support[b] = osc_add_scaled(support[b], cn, 1.0 / root);
            info->other_cn = cn;
            info->other_root = root;
            *sum += root;
            g1 += osc_dot(cn, e1) / root;
            g2 += osc_dot(cn, e2) / root;
        }
    }
    disc_map map = disc_plane_map(disc, e1, e2);
    double det = map.m11 * map.m22 - map.m12 * map.m21;
    if (!(fabs(det) > 1e-12 * disc->radius * disc->radius)) return false;
    double a = -(map.m22 * g1 - map.m12 * g2) / det, b = -(map.m11 * g2 - map.m21 * g1) / det;
    if (!(a * a + b * b <= 1.0)) return false;
    support[k] = osc_add_scaled(support[k], osc_add(osc_scale(map.f1, a), osc_scale(map.f2, b)), disc->radius);
    info->n = n;
    info->reach = sqrt(a * a + b * b);
    info->f1 = map.f1;
    info->f2 = map.f2;
    return true;
}

// An optimum at a disc's kink as an exact contact (docs/dcol.md §3.7): the end face against the
// other body's single support point, clear of the rim and of the other's next vertex. n is the
// axis's and turns with it: the face's two directions across the axis are its ties (the contact
// point's place on the face their weights), and the face has no curvature.
static bool exact_kink_contact(dcol_problem* dp, const support_body bodies[2], int k, const kink_info* info, double sum,
                               const osc_vec3 support[2]) {
    const support_body *disc = &bodies[k], *other = &bodies[1 - k];
    if (!(info->reach < 1.0 - EXACT_TIE_CLEARANCE) ||
        !(info->other_gap > EXACT_TIE_CLEARANCE * osc_length(info->n) * other->shape_size) ||
        !exact_begin(dp, info->n, sum, support))
        return false;
    dcol_exact_contact* contact = &dp->contact;
    if (info->other_root > 0.0) {
        if (!smooth_curvature(other, info->n, info->other_cn, info->other_root, 1.0, &contact->curvature[1 - k]))
            return false;
        contact->curved[1 - k] = true;
    }
    add_tie(contact, k, osc_scale(info->f1, disc->radius));
    add_tie(contact, k, osc_scale(info->f2, disc->radius));
    return dcol_exact_prepare(contact);
}

// the start from an optimum at a disc's kink, or that optimum as an exact contact
static bool finish_kink(dcol_problem* dp, const support_body bodies[2], int k, const kink_info* info, double sum,
                        const osc_vec3 core[2], const osc_vec3 support[2], double barrier, double active_gap) {
    if (dp->exact_allowed && exact_kink_contact(dp, bodies, k, info, sum, support)) {
        set_optimum(dp, sum, core, support);
        dp->exact = true;
        return true;
    }
    return finish_start(dp, sum, core, support, barrier, active_gap);
}

// A disc's axis within DISC_FACE_COSINE of a polytope face's normal (about 1.4e-5 rad) stands on
// that face: disc_face_optimum
static const double DISC_FACE_COSINE = 1.0 - 1e-10;

// A cylinder standing on its end, or a cone on its base, on a polytope's face, within 1.4e-5 rad of
// flat: the disc's kink n_e is within that of the optimum, where the walk's Newton steps lose the
// rim's direction (|P n| is of the order of the tilt) and, flat, the kink test meets a face. The
// optimum is then the face's normal n_f itself (on the plane), where the polytope's support is the
// whole face and the disc's the lowest point of its rim (its centre when flat to 1e-9): that point
// must lie over the face, which the polytope's rows test (y_p = d N - y_disc, the consistency of
// finish_start, inside every face). Fills the sum N, the core and support points (docs/dcol.md
// §3.5, "Flat contacts"). False when no face of body 1 - k is that parallel to k's axis, facing
// it, or the point is not over the face.
static bool disc_face_optimum(const dcol_problem* dp, const support_body bodies[2], int k, osc_vec3 d, double* sum,
                              osc_vec3 core[2], osc_vec3 support[2]) {
    int p = 1 - k;
    const support_body *disc = &bodies[k], *polytope = &bodies[p];
    const osc_convex* shape = dp->body[p].shape;
    if (!polytope->neighbours) return false;
    double sign = p == 0 ? 1.0 : -1.0; // B's support is taken at -n: its faces' normals negated
    osc_mat3 Q = dp->body[p].rotation;
    // the faces' normals against the axis in the polytope's frame (one rotation, not one a face)
    osc_vec3 local_axis = osc_mat3_apply_transpose(Q, disc->axis);
    int face = -1;
    osc_vec3 normal = osc_v3(0.0, 0.0, 0.0);
    for (int i = 0; i < shape->face_count && face < 0; ++i) {
        const double* a = shape->normals + 3 * i;
        if (!(fabs(a[0] * local_axis.x + a[1] * local_axis.y + a[2] * local_axis.z) >= DISC_FACE_COSINE)) continue;
        osc_vec3 f = osc_scale(osc_mat3_apply(Q, osc_v3(a[0], a[1], a[2])), sign);
        if (osc_dot(f, d) > 0.0) {
            face = i;
            normal = f;
        }
    }
    if (face < 0) return false;
    osc_vec3 n = osc_scale(normal, 1.0 / osc_dot(normal, d));
    // the disc's support at n: its base (not a cone's apex), swept to its rim's lowest point
    int best = 0;
    for (int j = 1; j < disc->count; ++j)
        if (osc_dot(disc->vertex[j], n) > osc_dot(disc->vertex[best], n)) best = j;
    osc_vec3 cn;
    double root = smooth_part(disc, n, &cn);
    if (disc->plain >= 0) {
        best = 1 - disc->plain;
        if (!(osc_dot(disc->vertex[best], n) + root > osc_dot(disc->vertex[disc->plain], n))) return false;
    }
    core[k] = support[k] = disc->vertex[best];
    if (root > 1e-9 * osc_length(n) * disc->radius) {
        // the rim's point R u, u = C n / |C n| made orthogonal to the axis again: C n's rounding
        // along it, 1e-16 |n| against |C n| ~ t |n|, would lift the point off the end's plane
        osc_vec3 u = osc_normalize(cn);
        u = osc_normalize(osc_add_scaled(u, disc->axis, -osc_dot(u, disc->axis)));
        support[k] = osc_add_scaled(support[k], u, disc->radius);
    }
    double polytope_value = -INFINITY;
    for (int j = 0; j < polytope->count; ++j) polytope_value = fmax(polytope_value, osc_dot(polytope->vertex[j], n));
    // (the disc's value taken at its point: near the kink n . C n / root differs from root by
    // 1e-16 / t^2 of it, which would lift the polytope's point off its face)
    *sum = polytope_value + osc_dot(support[k], n);
    // the polytope's point, over the face when inside every face's halfspace (tested in the
    // polytope's frame, B's negated as its faces' normals are)
    osc_vec3 y = osc_sub(osc_scale(d, *sum), support[k]);
    osc_vec3 local_y = osc_scale(osc_mat3_apply_transpose(Q, y), sign);
    for (int i = 0; i < shape->face_count; ++i) {
        const double* a = shape->normals + 3 * i;
        if (!(a[0] * local_y.x + a[1] * local_y.y + a[2] * local_y.z <= shape->offsets[i] / dp->scale * (1.0 + 1e-9)))
            return false;
    }
    core[p] = support[p] = y;
    return true;
}

// At a disc's kink, away from the optimum, N's subgradients are g + M u, |u| <= 1, with g the
// gradient of the rest (in plane coordinates) and M the disc's map. Writes the steepest descent
// direction w = -(g + M u*), minus the subgradient of least norm (docs/dcol.md §3.5): u* on the
// circle, u(lambda) = -(M^T M + lambda I)^-1 M^T g with |u| = 1, from Newton's method on the secular
// equation 1 / |u(lambda)| = 1 (concave and rising in lambda: from lambda = 0 it converges
// monotonically). False when 0 is a subgradient (the kink is the optimum) or M is singular.
static bool kink_descent(const support_body* disc, osc_vec3 e1, osc_vec3 e2, double g1, double g2, double* w1,
                         double* w2) {
    disc_map map = disc_plane_map(disc, e1, e2);
    double det = map.m11 * map.m22 - map.m12 * map.m21;
    if (!(fabs(det) > 1e-12 * disc->radius * disc->radius)) return false;
    double a11 = map.m11 * map.m11 + map.m21 * map.m21, a12 = map.m11 * map.m12 + map.m21 * map.m22,
           a22 = map.m12 * map.m12 + map.m22 * map.m22;
    double b1 = map.m11 * g1 + map.m21 * g2, b2 = map.m12 * g1 + map.m22 * g2;
    double lambda = 0.0, u1 = 0.0, u2 = 0.0;
    for (int iteration = 0; iteration < 50; ++iteration) {
        double d11 = a11 + lambda, d22 = a22 + lambda, inverse_det = 1.0 / (d11 * d22 - a12 * a12);
        u1 = -(d22 * b1 - a12 * b2) * inverse_det;
        u2 = -(d11 * b2 - a12 * b1) * inverse_det;
        double norm = sqrt(u1 * u1 + u2 * u2);
        if (iteration == 0 && !(norm > 1.0)) return false; // |M^-1 g| <= 1: 0 is a subgradient
        double excess = 1.0 / norm - 1.0;
        if (fabs(excess) <= 1e-13) break;
        // d(1 / |u|) / d lambda = u^T (A + lambda I)^-1 u / |u|^3
        double v1 = (d22 * u1 - a12 * u2) * inverse_det, v2 = (d11 * u2 - a12 * u1) * inverse_det;
        double slope = (u1 * v1 + u2 * v2) / (norm * norm * norm);
        if (!(slope > 0.0)) break;
        lambda -= excess / slope;
    }
    *w1 = -(g1 + map.m11 * u1 + map.m12 * u2);
    *w2 = -(g2 + map.m21 * u1 + map.m22 * u2);
    return isfinite(*w1) && isfinite(*w2);
}

// the vertex that attains a body's support at n (a cone: its apex or its base, by root; a
// polytope: by the climb)
static int best_vertex(const support_body* body, osc_vec3 n, double root) {
    if (body->plain >= 0) {
        int swept = 1 - body->plain;
        return osc_dot(body->vertex[body->plain], n) > osc_dot(body->vertex[swept], n) + root ? body->plain : swept;
    }
    double ignored_value;
    if (body->neighbours) return climb_to_support(body, n, &ignored_value);
    int best = 0;
    double best_value = osc_dot(body->vertex[0], n);
    for (int j = 1; j < body->count; ++j) {
        double value = osc_dot(body->vertex[j], n);
        if (value > best_value) {
            best = j;
            best_value = value;
        }
    }
    return best;
}

// A Newton step across a disc's kink (its projection P n = n - (n . e) e turns around, as
// happens when the walk closes in on the kink from alternate sides, its curvature ~ 1 / root
// steering each step and the halvings): the kink itself, n_e = e / (e . d), when N is lower there.
// Moves n there with its values and singleton ties and returns the disc's body; -1 otherwise.
static int jump_to_kink(support_body bodies[2], osc_vec3 d, osc_vec3 trial, osc_vec3* n, double* sum) {
    for (int k = 0; k < 2; ++k) {
        const support_body* body = &bodies[k];
        if (!body->disc || body->tied_count != 1 || !is_swept(body, body->tied[0])) continue;
        osc_vec3 e = body->axis;
        osc_vec3 from = osc_add_scaled(*n, e, -osc_dot(*n, e));
        osc_vec3 to = osc_add_scaled(trial, e, -osc_dot(trial, e));
        double ed = osc_dot(e, d);
        if (!(osc_dot(from, to) < 0.0) || !(fabs(ed) > 1e-9 * osc_length(d))) continue;
        osc_vec3 kink = osc_scale(e, 1.0 / ed);
        // C e = 0: the disc's smooth part vanishes there (n^T C n is rounding, of either sign)
        osc_vec3 cn[2];
        double root[2];
        cn[k] = osc_v3(0.0, 0.0, 0.0);
        root[k] = 0.0;
        int best = best_vertex(body, kink, 0.0);
        if (best != body->tied[0]) continue;
        double kink_sum =
            osc_dot(body->vertex[best], kink) + body_value(&bodies[1 - k], kink, &cn[1 - k], &root[1 - k]);
        if (!(kink_sum < *sum)) continue;
        *n = kink;
        *sum = kink_sum;
        for (int b = 0; b < 2; ++b) {
            bodies[b].cn = cn[b];
            bodies[b].root = root[b];
            int representative = best_vertex(&bodies[b], kink, root[b]);
            set_tied(&bodies[b], &representative, 1);
        }
        return k;
    }
    return -1;
}

// A linear step along a disc's flat direction (P step parallel to P n, P the projection across its
// axis) reaches the disc's kink at s = -(P n . P step) / |P step|^2 when that is ahead; a trial
// point beyond it lets jump_to_kink move there (a flat cylinder, whose n starts next to its kink,
// against a needle, whose curvature is below FLAT_CURVATURE of the flat one's, had no tie ahead
// and failed). Returns the disc's body, or -1 when no kink is ahead or N is not lower there.
static int flat_step_to_kink(support_body bodies[2], osc_vec3 d, osc_vec3 step, osc_vec3* n, double* sum) {
    for (int k = 0; k < 2; ++k) {
        const support_body* body = &bodies[k];
        if (!body->disc) continue;
        osc_vec3 e = body->axis;
        osc_vec3 across = osc_add_scaled(*n, e, -osc_dot(*n, e));
        osc_vec3 step_across = osc_add_scaled(step, e, -osc_dot(step, e));
        double rate = osc_dot(step_across, step_across);
        if (!(rate > 0.0)) continue;
        double reach = -osc_dot(across, step_across) / rate;
        if (!(reach > 0.0) || !isfinite(reach)) continue;
        int jumped = jump_to_kink(bodies, d, osc_add_scaled(*n, step, 2.0 * reach), n, sum);
        if (jumped >= 0) return jumped;
    }
    return -1;
}

// the step of the ratio test: t in plane coordinates, the representative's rate along it and its
// value at n
typedef struct ratio_line {
    double t1, t2, rate_representative, value_representative;
    osc_vec3 n;
} ratio_line;

// where vertex j starts to tie with the representative along the step (at once if it is above it);
// lowers *reach to that and returns true when it comes first
static inline bool ratio_test(const support_body* body, int j, const ratio_line* line, double* reach) {
    plane_vector along = plane_coordinates(body, j);
    double rate = along.u * line->t1 + along.v * line->t2 - line->rate_representative;
    if (!(rate > 0.0)) return false;
    double gap = osc_dot(body->vertex[j], line->n) - line->value_representative;
    // a vertex that is surely beyond the reach (-gap > reach rate beyond the division's rounding)
    // is passed over without the division
    if (-gap > *reach * rate * (1.0 + 1e-12)) return false;
    double at = gap < 0.0 ? -gap / rate : 0.0;
    if (!(at < *reach)) return false;
    *reach = at;
    return true;
}

// h(n) at a trial point of the step, which the ratio test keeps on the current piece: a polytope's
// largest vertex term is then its tied vertices' (equal up to rounding), which spares the scan
OSC_FORCE_INLINE double piece_value(const support_body* body, osc_vec3 n, osc_vec3* cn, double* root) {
    if (!body->neighbours) return body_value(body, n, cn, root);
    double largest = osc_dot(body->vertex[body->tied[0]], n);
    for (int i = 1; i < body->tied_count; ++i) {
        double value = osc_dot(body->vertex[body->tied[i]], n);
        largest = value > largest ? value : largest;
    }
    *cn = osc_v3(0.0, 0.0, 0.0);
    *root = 0.0;
    return largest;
}

// Whether a piece's step leaves a cone's curved tie (gap = h_tie - h_piece, gradient a, below
// zero on the piece's side): by the sign of the least-squares weight (`estimate_leaves`) where the
// piece is flat, and where it is curved by its Newton step -H^-1 g, which leaves when
// a^T H^-1 g > 0 whatever that sign: a step that entered the tie again would catch it at once, and
// the walk would release and catch it for ever (docs/dcol.md §3.5)
static bool leaves_tie(bool estimate_leaves, plane_vector a, double g1, double g2, double h11, double h12, double h22) {
    double det = h11 * h22 - h12 * h12, trace = h11 + h22;
    if (!(det > FLAT_CURVATURE * trace * trace)) return estimate_leaves;
    return a.u * (h22 * g1 - h12 * g2) + a.v * (h11 * g2 - h12 * g1) > 0.0; // a^T adj(H) g
}

// ---------------------------------------------------------------------------------------------
// the walk (docs/dcol.md §3.5, "The active-set Newton method")
//
// alpha is the largest n . d / (h_A(n) + h_B(-n)) over directions n, d = r'_B - r'_A: on the
// plane n . d = 1, alpha = 1 / min N, N = h_A(n) + h_B(-n) convex. The walk works in plane
// coordinates t (n = n_0 + t_1 e_1 + t_2 e_2). Its phases, each a function below:
//   walk_begin      the start n_0 and each body's first support vertex
//   disc_first      a disc's kink tested before the walk (it may be the optimum, or a disc's end
//                   face may rest on the other body)
//   piece_at        on a piece (the tied vertices of each body fixed) N is smooth: its gradient and
//                   Hessian on the plane (the representatives' linear terms plus the balls), and
//                   the ties (each a line in t, a cone's apex-base tie a curve)
//   choose_step     Newton's step, along the one line of the ties, none with two; at a disc's
//                   kink the steepest descent; on a cone's curved tie the KKT step; along a flat
//                   direction a linear step; a tie whose step leaves it is released first
//   step_reach      the ratio test: the first vertex that starts to tie stops the step there
//   take_step       halving while N does not decrease, or a jump to a disc's kink
//   piece_optimal   at a piece's minimiser the ties' subgradient weights must be non-negative with
//                   at most 1 per body (a tie that breaks that is released), or a face's core point
//                   must lie in the face
//   support_points  x = r'_A + alpha y_A = r'_B - alpha y_B with y the support points (core point
//                   plus the ball's C n / sqrt(n^T C n))
// and then the exact contact (§3.7) or conic_offset_start's first-order central point. Without a
// ball (two polytopes) N is piecewise linear and the same walk takes steepest-descent steps to the
// next tie (a simplex method on the normal fans), as it does along a disc's flat direction.

// The walk's state
typedef struct support_walk {
    support_body bodies[2];
    osc_vec3 d;              // r'_B - r'_A
    double dd;               // |d|^2
    osc_vec3 e1, e2;         // an orthonormal basis of the plane orthogonal to d
    osc_vec3 n;              // the current direction, on the plane n . d = 1
    double sum;              // N(n)
    double size;             // the largest |v_j| of the bodies' vertices (a polytope's shape size)
    bool curved;             // a body has a ball
    int at_kink;             // the body at whose disc's kink n lies (jump_to_kink), or -1
    bool stalled;            // the last Newton step was halved to no decrease (at rounding)
    double weight[2];        // the ties' subgradient weights (at most two)
    int face_body;           // the body whose face the other's vertex faces, or -1
    plane_vector face_point; // that face's core point's projection q
} support_walk;

// The piece at n: N's gradient and Hessian on the plane, the smooth parts', and the ties
typedef struct piece_model {
    double g1, g2;        // grad N (the representatives' terms and the balls)
    double s1, s2;        // the balls' share of it
    double h11, h12, h22; // hess N
} piece_model;

typedef struct walk_piece {
    piece_model model;
    double smooth_gradient[2][2], smooth_hessian[2][3]; // each body's smooth part
    support_tie ties[SUPPORT_MAX_VERTICES];
    int tie_count;
    bool curved_tie;   // a cone's apex tied with its base
    bool parallel;     // every tie along one line (true with one tie)
    bool piece_curved; // N curves on the piece (not two apexes, a cone's and a polytope's vertex)
} walk_piece;

// A step t in plane coordinates; `newton` when it has a length of its own (else it runs to the
// next tie)
typedef struct walk_step {
    double t1, t2;
    bool newton;
} walk_step;

// What a phase of the walk decided
typedef enum walk_outcome {
    WALK_FAILED, // the pair goes to the general start (§3.3)
    WALK_ON,     // go on with the step (or, after piece_optimal, the optimum is found)
    WALK_AGAIN,  // the ties changed: the piece again
    WALK_AT_KINK // the steepest descent at a disc's kink vanishes: the kink may be the optimum
} walk_outcome;

// The start n_0 = C^-1 d / (d . C^-1 d), C = C_A + C_B (by the adjugate; the optimum of two
// ellipsoids whose matrices are multiples of each other), or d / |d|^2 without a ball or when C is
// singular; each body's support vertex there, its smooth part and plane coordinates, and the
// bodies' size. False when the origins (nearly) coincide.
static bool walk_begin(const dcol_problem* dp, support_walk* walk) {
    walk->d = osc_sub(dp->body[1].origin, dp->body[0].origin);
    osc_vec3 d = walk->d;
    double dd = walk->dd = osc_dot(d, d);
    if (!(dd > 1e-24)) return false;
    support_body* bodies = walk->bodies;
    support_body_of(dp, 0, &bodies[0]);
    support_body_of(dp, 1, &bodies[1]);
    walk->curved = bodies[0].ball || bodies[1].ball;
    osc_vec3 e1, e2;
    dcol_plane_basis(osc_scale(d, 1.0 / sqrt(dd)), &e1, &e2);
    walk->e1 = e1;
    walk->e2 = e2;
    double C[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C[i][j] = bodies[0].C[i][j] + bodies[1].C[i][j];
    osc_vec3 c0 = osc_v3(C[0][0], C[1][0], C[2][0]), c1 = osc_v3(C[0][1], C[1][1], C[2][1]),
             c2 = osc_v3(C[0][2], C[1][2], C[2][2]);
    osc_vec3 n = osc_v3(osc_dot(osc_cross(c1, c2), d), osc_dot(osc_cross(c2, c0), d), osc_dot(osc_cross(c0, c1), d));
    double nd = osc_dot(n, d), trace = C[0][0] + C[1][1] + C[2][2];
    bool invertible = osc_dot(c0, osc_cross(c1, c2)) > 1e-9 * trace * trace * trace;
    n = invertible && nd > 0.0 && isfinite(nd) ? osc_scale(n, 1.0 / nd) : osc_scale(d, 1.0 / dd);
    double sum = 0.0, size = 0.0;
    for (int k = 0; k < 2; ++k) {
        support_body* body = &bodies[k];
        body->e1 = e1;
        body->e2 = e2;
        body->tied_count = 0;
        if (body->neighbours) {
            // a polytope (no smooth part): its support vertex by the climb, its size from the shape
            for (int j = 0; j < body->count; ++j) body->is_tied[j] = false;
            double value;
            int best = climb_to_support(body, n, &value);
            sum += value;
            body->cn = osc_v3(0.0, 0.0, 0.0);
            body->root = body->c11 = body->c12 = body->c22 = 0.0;
            size = fmax(size, body->shape_size);
            set_tied(body, &best, 1);
            continue;
        }
        sum += body_value(body, n, &body->cn, &body->root);
        osc_vec3 ce1 = mat_apply(body, e1), ce2 = mat_apply(body, e2);
        body->c11 = osc_dot(e1, ce1);
        body->c12 = osc_dot(e1, ce2);
        body->c22 = osc_dot(e2, ce2);
        int best = 0;
        double best_value = osc_dot(body->vertex[0], n), size2 = 0.0;
        for (int j = 0; j < body->count; ++j) {
            osc_vec3 v = body->vertex[j];
            double value = osc_dot(v, n), length2 = osc_dot(v, v);
            if (value > best_value) {
                best = j;
                best_value = value;
            }
            size2 = length2 > size2 ? length2 : size2;
            body->along1[j] = osc_dot(v, e1);
            body->along2[j] = osc_dot(v, e2);
            body->is_tied[j] = false;
        }
        size = fmax(size, sqrt(size2));                                // the largest |v_j|: one square root
        if (body->plain >= 0) best = best_vertex(body, n, body->root); // a cone's piece
        set_tied(body, &best, 1);
    }
    walk->n = n;
    walk->sum = sum;
    walk->size = fmax(size, 1e-300);
    walk->at_kink = -1;
    walk->stalled = false;
    walk->weight[0] = walk->weight[1] = 0.0;
    walk->face_body = -1;
    walk->face_point = (plane_vector){0.0, 0.0};
    return true;
}

// Before the walk, each disc's kink: the optimum there (finish_kink), or a disc's end face resting
// on the other body (disc_face_optimum, finish_start). True when one of them decided the pair,
// its answer in *started.
static bool disc_first(dcol_problem* dp, support_walk* walk, double barrier, double active_gap, bool* started) {
    for (int k = 0; k < 2; ++k) {
        double kink_sum;
        osc_vec3 core[2], support[2];
        kink_info info;
        if (walk->bodies[k].disc && disc_kink_optimum(walk->bodies, k, walk->d, walk->e1, walk->e2, walk->size,
                                                      &kink_sum, core, support, &info)) {
            *started = finish_kink(dp, walk->bodies, k, &info, kink_sum, core, support, barrier, active_gap);
            return true;
        }
        if (walk->bodies[k].disc && disc_face_optimum(dp, walk->bodies, k, walk->d, &kink_sum, core, support)) {
            *started = finish_start(dp, kink_sum, core, support, barrier, active_gap);
            return true;
        }
    }
    return false;
}

// The piece at the walk's n: N's gradient and Hessian on the plane and the ties. A cone's
// representative is made the larger of its two pieces (the step's model is that piece, the
// other's gap to it kept at or below zero). False where a disc's smooth part vanishes (its kink,
// which was not the optimum).
static bool piece_at(support_walk* walk, walk_piece* piece) {
    osc_vec3 n = walk->n, e1 = walk->e1, e2 = walk->e2;
    // (summed in locals: the compiler cannot keep a struct's doubles in registers while it writes
    // doubles of the bodies)
    double g1 = 0.0, g2 = 0.0, s1 = 0.0, s2 = 0.0, h11 = 0.0, h12 = 0.0, h22 = 0.0;
    double(*smooth_gradient)[2] = piece->smooth_gradient;
    double(*smooth_hessian)[3] = piece->smooth_hessian;
    memset(piece->smooth_gradient, 0, sizeof piece->smooth_gradient);
    memset(piece->smooth_hessian, 0, sizeof piece->smooth_hessian);
    int tie_count = 0;
    bool curved_tie = false;
    for (int k = 0; k < 2; ++k) {
        support_body* body = &walk->bodies[k];
        if (body->plain >= 0 && body->tied_count == 2) {
            int other = body->tied[1], first = body->tied[0];
            double gap = osc_dot(osc_sub(body->vertex[other], body->vertex[first]), n) +
                         (is_swept(body, other) - is_swept(body, first)) * body->root;
            if (gap > 0.0) {
                body->tied[0] = other;
                body->tied[1] = first;
            }
        }
        int representative = body->tied[0];
        if (k != walk->at_kink && (is_swept(body, representative) || (body->plain >= 0 && body->tied_count > 1))) {
            // grad = C n / root; hess = (C - (C n)(C n)^T / root^2) / root
            // root > 1e-12 |n| R / s, squared (no square root of |n|^2)
            double least = 1e-12 * body->radius;
            if (!(body->root > 0.0 && body->root * body->root > least * least * osc_dot(n, n))) return false;
            double inverse = 1.0 / body->root;
            double p1 = osc_dot(body->cn, e1) * inverse, p2 = osc_dot(body->cn, e2) * inverse;
            double* q = smooth_hessian[k];
            smooth_gradient[k][0] = p1;
            smooth_gradient[k][1] = p2;
            q[0] = (body->c11 - p1 * p1) * inverse;
            q[1] = (body->c12 - p1 * p2) * inverse;
            q[2] = (body->c22 - p2 * p2) * inverse;
            if (is_swept(body, representative)) {
                s1 += p1;
                s2 += p2;
                h11 += q[0];
                h12 += q[1];
                h22 += q[2];
            }
        }
        plane_vector along_representative = plane_coordinates(body, representative);
        g1 += along_representative.u;
        g2 += along_representative.v;
        for (int i = 1; i < body->tied_count; ++i) {
            support_tie* tie = &piece->ties[tie_count++];
            int j = body->tied[i];
            tie->body = k;
            tie->index = i;
            plane_vector along = plane_coordinates(body, j);
            tie->direction.u = along.u - along_representative.u;
            tie->direction.v = along.v - along_representative.v;
            tie->kappa = is_swept(body, j) - is_swept(body, representative);
            tie->gap = 0.0;
            if (tie->kappa != 0) {
                curved_tie = true;
                tie->direction.u += tie->kappa * smooth_gradient[k][0];
                tie->direction.v += tie->kappa * smooth_gradient[k][1];
                tie->gap = osc_dot(osc_sub(body->vertex[j], body->vertex[representative]), n) + tie->kappa * body->root;
            }
        }
    }
    piece->model = (piece_model){g1 + s1, g2 + s2, s1, s2, h11, h12, h22};
    piece->tie_count = tie_count;
    piece->curved_tie = curved_tie;
    bool parallel = tie_count > 0;
    for (int i = 1; i < tie_count && parallel; ++i) {
        plane_vector a = piece->ties[0].direction, b = piece->ties[i].direction;
        parallel = fabs(a.u * b.v - a.v * b.u) <= 1e-9 * (fabs(a.u * b.v) + fabs(a.v * b.u)) + 1e-300;
    }
    piece->parallel = parallel;
    // a piece of two cones' apexes (or a cone's apex and a polytope's vertex) is linear
    piece->piece_curved = walk->curved && (h11 > 0.0 || h22 > 0.0);
    return true;
}

// At a disc's kink: the steepest descent direction w, a Newton step along it on the rest's
// curvature (the disc is linear along rays from its kink), or a linear step to the next tie where
// the rest is flat along w; WALK_AT_KINK when there is none (the kink may be the optimum)
static walk_outcome kink_step(const support_walk* walk, const walk_piece* piece, walk_step* step) {
    double w1, w2;
    if (!kink_descent(&walk->bodies[walk->at_kink], walk->e1, walk->e2, piece->model.g1, piece->model.g2, &w1, &w2))
        return WALK_AT_KINK;
    double h11 = piece->model.h11, h12 = piece->model.h12, h22 = piece->model.h22;
    double curvature = h11 * w1 * w1 + 2.0 * h12 * w1 * w2 + h22 * w2 * w2;
    step->newton = curvature > FLAT_CURVATURE * (h11 + h22) * (w1 * w1 + w2 * w2);
    double length = step->newton ? (w1 * w1 + w2 * w2) / curvature : 1.0;
    step->t1 = length * w1;
    step->t2 = length * w2;
    return WALK_ON;
}

// A cone's apex tied with its base, alone (docs/dcol.md §3.5, "A cone's curved tie"): the tie's
// weight estimated from the gradients releases it to one of its pieces where that piece's own
// step leaves it; otherwise a Newton step on the KKT conditions of the piece with gap = 0
static walk_outcome curved_tie_step(support_walk* walk, const walk_piece* piece, walk_step* step) {
    const support_tie* tie = &piece->ties[0];
    double g1 = piece->model.g1, g2 = piece->model.g2, h11 = piece->model.h11, h12 = piece->model.h12,
           h22 = piece->model.h22;
    plane_vector a = tie->direction;
    double aa = a.u * a.u + a.v * a.v;
    if (!(aa > 0.0)) return WALK_FAILED;
    // the tie's weight (its multiplier) estimated from the gradients; the Lagrangian's Hessian adds
    // the weighted curvature of the tie
    double weight_estimate = -(g1 * a.u + g2 * a.v) / aa;
    support_body* body = &walk->bodies[tie->body];
    // the piece's own minimum lies off the tie: release it
    const double* q = piece->smooth_hessian[tie->body];
    if (leaves_tie(weight_estimate < 0.0, a, g1, g2, h11, h12, h22)) {
        remove_tied(body, tie->index);
        return WALK_AGAIN;
    }
    // beyond the tie: the other piece alone, with gradient g + a, Hessian H + kappa q and the gap's
    // sign reversed, on the same terms
    plane_vector reversed = {-a.u, -a.v};
    if (leaves_tie(weight_estimate > 1.0, reversed, g1 + a.u, g2 + a.v, h11 + tie->kappa * q[0],
                   h12 + tie->kappa * q[1], h22 + tie->kappa * q[2])) {
        body->is_tied[body->tied[0]] = false;
        body->tied[0] = body->tied[1];
        body->tied_count = 1;
        return WALK_AGAIN;
    }
    weight_estimate = fmin(fmax(weight_estimate, 0.0), 1.0);
    double kw = tie->kappa * weight_estimate;
    double l11 = h11 + kw * q[0], l12 = h12 + kw * q[1], l22 = h22 + kw * q[2];
    // t = t0 + along u: t0 restores the tie to first order, u runs along it
    double t01 = -tie->gap * a.u / aa, t02 = -tie->gap * a.v / aa;
    double length = sqrt(aa), u1 = -a.v / length, u2 = a.u / length;
    double curvature = l11 * u1 * u1 + 2.0 * l12 * u1 * u2 + l22 * u2 * u2;
    if (!(curvature > 0.0)) return WALK_FAILED;
    double slope = g1 * u1 + g2 * u2 + (l11 * t01 + l12 * t02) * u1 + (l12 * t01 + l22 * t02) * u2;
    double along = -slope / curvature;
    step->t1 = t01 + along * u1;
    step->t2 = t02 + along * u2;
    return WALK_ON;
}

// A cone's curved tie with more ties: with a second, straight one the Newton step onto both,
// after releasing a tie whose weight is negative (its piece's gap opens going down); with three
// (the generator nearly along a face of the other body: a line contact is near) the optimum keeps
// two of them, so the first whose other two balance the gradient with non-negative weights is
// released
static walk_outcome curved_ties_step(support_walk* walk, const walk_piece* piece, walk_step* step) {
    const support_tie* ties = piece->ties;
    double g1 = piece->model.g1, g2 = piece->model.g2;
    if (piece->tie_count == 2 && !piece->parallel) {
        plane_vector a = ties[0].direction, b = ties[1].direction;
        double det = a.u * b.v - a.v * b.u;
        double w0 = -(g1 * b.v - g2 * b.u) / det, w1 = -(a.u * g2 - a.v * g1) / det;
        if (w0 < 0.0 || w1 < 0.0) {
            const support_tie* tie = &ties[w0 < w1 ? 0 : 1];
            remove_tied(&walk->bodies[tie->body], tie->index);
            return WALK_AGAIN;
        }
        step->t1 = (-ties[0].gap * b.v + ties[1].gap * a.v) / det;
        step->t2 = (-ties[1].gap * a.u + ties[0].gap * b.u) / det;
        return WALK_ON;
    }
    if (piece->tie_count != 3) return WALK_FAILED;
    int release = -1;
    for (int skip = 0; skip < 3 && release < 0; ++skip) {
        plane_vector a = ties[skip == 0 ? 1 : 0].direction, b = ties[skip == 2 ? 1 : 2].direction;
        double det = a.u * b.v - a.v * b.u;
        if (!(fabs(det) > 1e-9 * (fabs(a.u * b.v) + fabs(a.v * b.u)))) continue;
        double w0 = -(g1 * b.v - g2 * b.u) / det, w1 = -(a.u * g2 - a.v * g1) / det;
        if (w0 >= 0.0 && w1 >= 0.0) release = skip;
    }
    if (release < 0) return WALK_FAILED;
    remove_tied(&walk->bodies[ties[release].body], ties[release].index);
    return WALK_AGAIN;
}

// A curved piece without ties: Newton's step, or where a disc curves N in one direction f' only
// and is linear along the other, f (a disc against a vertex; docs/dcol.md §3.5, "Flat
// directions"), a step along f to the next tie unless N is level along it, then a Newton step
// along f'
static void free_step(const walk_piece* piece, walk_step* step) {
    double g1 = piece->model.g1, g2 = piece->model.g2, h11 = piece->model.h11, h12 = piece->model.h12,
           h22 = piece->model.h22;
    double det = h11 * h22 - h12 * h12, piece_trace = h11 + h22;
    if (det > FLAT_CURVATURE * piece_trace * piece_trace) {
        step->t1 = -(h22 * g1 - h12 * g2) / det;
        step->t2 = -(h11 * g2 - h12 * g1) / det;
        return;
    }
    double f1 = h11 >= h22 ? -h12 : h22, f2 = h11 >= h22 ? h11 : -h12;
    double length = sqrt(f1 * f1 + f2 * f2);
    f1 /= length;
    f2 /= length;
    double slope = g1 * f1 + g2 * f2;
    if (fabs(slope) > 1e-9 * sqrt(g1 * g1 + g2 * g2)) {
        step->t1 = -slope * f1;
        step->t2 = -slope * f2;
        step->newton = false;
    } else {
        double curvature = h11 * f2 * f2 - 2.0 * h12 * f1 * f2 + h22 * f1 * f1;
        double along = (g1 * f2 - g2 * f1) / curvature;
        step->t1 = along * f2;
        step->t2 = -along * f1;
    }
}

// The step along the one line of the ties: Newton's on the piece's curvature along it, or a linear
// step to the next tie along a disc's flat direction; WALK_FAILED for two parallel ties (capsules
// side by side: the contact is a segment)
static walk_outcome tie_line_step(const walk_piece* piece, walk_step* step) {
    if (piece->tie_count > 1) return WALK_FAILED;
    double h11 = piece->model.h11, h12 = piece->model.h12, h22 = piece->model.h22;
    plane_vector a = piece->ties[0].direction;
    double length = sqrt(a.u * a.u + a.v * a.v);
    double u1 = -a.v / length, u2 = a.u / length;
    double curvature = h11 * u1 * u1 + 2.0 * h12 * u1 * u2 + h22 * u2 * u2;
    if (piece->piece_curved && !(curvature > FLAT_CURVATURE * (h11 + h22))) step->newton = false;
    double along = -(piece->model.g1 * u1 + piece->model.g2 * u2) / (step->newton ? curvature : 1.0);
    step->t1 = along * u1;
    step->t2 = along * u2;
    return WALK_ON;
}

// The piece's step: free, along the one line of the ties, or none (two independent straight ties)
static walk_outcome choose_step(support_walk* walk, const walk_piece* piece, walk_step* step) {
    step->t1 = step->t2 = 0.0;
    step->newton = piece->piece_curved || piece->curved_tie;
    if (walk->at_kink >= 0) return kink_step(walk, piece, step);
    if (piece->curved_tie)
        return piece->tie_count == 1 ? curved_tie_step(walk, piece, step) : curved_ties_step(walk, piece, step);
    if (piece->tie_count == 0 && piece->piece_curved) {
        free_step(piece, step);
    } else if (piece->tie_count == 0) {
        step->t1 = -piece->model.g1;
        step->t2 = -piece->model.g2;
    } else if (piece->parallel) {
        return tie_line_step(piece, step);
    }
    return WALK_ON;
}

// Whether the piece is done: quadratic convergence on a piece means that once the step is at 1e-8
// of |n| the error is at 1e-16, and a linear piece is done when its gradient vanishes (to
// rounding). With ties the step must be at 1e-12: the ties' weights come from the gradients
// before the last step and place the support points between the tied vertices. A Newton step with
// ties that N rejected at full length and halved to nothing is at rounding (a thin ellipsoid's
// gradient, from a C whose eigenvalues span 1e4 or more, stalled such steps at 1e-10 of |n|, and
// the walk ran out of iterations). Never at a kink, which the walk only leaves.
static bool piece_done(const support_walk* walk, const walk_piece* piece, const walk_step* step) {
    double newton_limit = piece->tie_count > 0 && !walk->stalled ? 1e-24 : 1e-16;
    double t2 = step->t1 * step->t1 + step->t2 * step->t2;
    return walk->at_kink < 0 && (step->newton ? t2 * walk->dd <= newton_limit : t2 <= 1e-24 * walk->size * walk->size);
}

// The ratio test: the first vertex that starts to tie along the step stops it there (a linear
// piece's step has no length of its own: *reach starts at infinity), and a cone's other piece
// where its curved gap crosses zero. Writes the reach along the step and the vertex hit (-1: none).
static void step_reach(const support_walk* walk, const walk_step* step, bool done, double* reach, int* hit_body,
                       int* hit_vertex) {
    *reach = step->newton ? 1.0 : done ? 0.0 : INFINITY;
    *hit_body = *hit_vertex = -1;
    if (done) return;
    double t1 = step->t1, t2 = step->t2;
    for (int k = 0; k < 2; ++k) {
        const support_body* body = &walk->bodies[k];
        int representative = body->tied[0];
        plane_vector along_representative = plane_coordinates(body, representative);
        double rate_representative = along_representative.u * t1 + along_representative.v * t2;
        double value_representative = osc_dot(body->vertex[representative], walk->n);
        ratio_line line = {t1, t2, rate_representative, value_representative, walk->n};
        if (body->neighbours) {
            // a polytope: only a face neighbour of a tied vertex can tie first (the faces through
            // the tied ones bound the normal cone the step leaves)
            uint64_t candidates[CONVEX_NEIGHBOUR_WORDS];
            tie_candidates(body, candidates);
            for (int w = 0; w < CONVEX_NEIGHBOUR_WORDS; ++w)
                for (uint64_t word = candidates[w]; word; word &= word - 1) {
                    int j = 64 * w + osc_lowest_bit(word);
                    if (!body->is_tied[j] && ratio_test(body, j, &line, reach)) {
                        *hit_body = k;
                        *hit_vertex = j;
                    }
                }
        } else {
            // the vertices of the representative's piece (a cone's other piece: curved_crossing)
            bool swept = is_swept(body, representative);
            for (int j = 0; j < body->count; ++j) {
                if (body->is_tied[j] || is_swept(body, j) != swept) continue;
                if (ratio_test(body, j, &line, reach)) {
                    *hit_body = k;
                    *hit_vertex = j;
                }
            }
        }
    }
    for (int k = 0; k < 2; ++k) {
        const support_body* body = &walk->bodies[k];
        if (body->plain < 0 || body->tied_count > 1) continue;
        double crossing;
        if (curved_crossing(body, walk->n, osc_add(osc_scale(walk->e1, t1), osc_scale(walk->e2, t2)), *reach,
                            &crossing)) {
            *reach = crossing;
            *hit_body = k;
            *hit_vertex = 1 - body->tied[0];
        }
    }
}

// Moves n along the step to `reach`, halving while N does not decrease (the plane reaches where N
// grows linearly, and undamped Newton on a norm diverges there); a step that fails at its full
// length may instead jump to a disc's kink (jump_to_kink), whose body it returns through *jumped
// (else -1). A halving forgets the vertex hit. False after 40 halvings.
static bool take_step(support_walk* walk, const walk_step* step, double reach, bool done, int* hit_body, int* jumped) {
    support_body* bodies = walk->bodies;
    *jumped = -1;
    const osc_vec3 n = walk->n, e1 = walk->e1, e2 = walk->e2;
    const double sum = walk->sum, t1 = step->t1, t2 = step->t2;
    for (int halving = 0;; ++halving) {
        osc_vec3 trial = osc_add(n, osc_add(osc_scale(e1, reach * t1), osc_scale(e2, reach * t2)));
        osc_vec3 cn[2];
        double root[2];
        double trial_sum =
            piece_value(&bodies[0], trial, &cn[0], &root[0]) + piece_value(&bodies[1], trial, &cn[1], &root[1]);
        if (trial_sum <= sum * (1.0 + 1e-14) || done) {
            walk->stalled = step->newton && halving > 0 && *hit_body < 0 && !(trial_sum < sum);
            walk->n = trial;
            walk->sum = trial_sum;
            for (int k = 0; k < 2; ++k) {
                bodies[k].cn = cn[k];
                bodies[k].root = root[k];
            }
            return true;
        }
        if (halving == 0) {
            *jumped = jump_to_kink(bodies, walk->d, trial, &walk->n, &walk->sum);
            if (*jumped >= 0) return true;
        }
        if (halving == 40) return false;
        reach *= 0.5;
        *hit_body = -1;
    }
}

// The ties' subgradient weights at a piece's minimiser (one or two independent ties), from
// g + sum w a = 0. A negative weight: that vertex leaves; a body's weights above 1: its
// representative leaves, the tie with the largest weight takes its place (WALK_AGAIN). WALK_ON
// at the optimum, the weights in walk->weight.
static walk_outcome tie_weights(support_walk* walk, const walk_piece* piece) {
    const support_tie* ties = piece->ties;
    double* weight = walk->weight;
    int tie_count = piece->tie_count;
    if (tie_count == 1) {
        plane_vector a = ties[0].direction;
        weight[0] = -(piece->model.g1 * a.u + piece->model.g2 * a.v) / (a.u * a.u + a.v * a.v);
    } else {
        plane_vector a = ties[0].direction, b = ties[1].direction;
        double det = a.u * b.v - a.v * b.u;
        weight[0] = -(piece->model.g1 * b.v - piece->model.g2 * b.u) / det;
        weight[1] = -(a.u * piece->model.g2 - a.v * piece->model.g1) / det;
    }
    int worst = -1;
    for (int i = 0; i < tie_count; ++i)
        if (weight[i] < 0.0 && (worst < 0 || weight[i] < weight[worst])) worst = i;
    if (worst >= 0) {
        remove_tied(&walk->bodies[ties[worst].body], ties[worst].index);
        return WALK_AGAIN;
    }
    for (int k = 0; k < 2; ++k) {
        double total = 0.0;
        int largest = -1;
        for (int i = 0; i < tie_count; ++i)
            if (ties[i].body == k) {
                total += weight[i];
                if (largest < 0 || weight[i] > weight[largest]) largest = i;
            }
        if (total > 1.0) {
            // the heaviest tie takes the representative's place, which leaves
            support_body* body = &walk->bodies[k];
            body->is_tied[body->tied[0]] = false;
            body->tied[0] = body->tied[ties[largest].index];
            for (int i = ties[largest].index; i + 1 < body->tied_count; ++i) body->tied[i] = body->tied[i + 1];
            --body->tied_count;
            return WALK_AGAIN;
        }
    }
    return WALK_ON;
}

// More than two ties, all in one body: a face facing the other body's single vertex. Its core
// point must project to q = -(the smooth gradient + the other's vertex) inside the tied vertices'
// hull (face_contains shrinks the ties to the nearest hull edge or vertex otherwise: WALK_AGAIN).
// WALK_FAILED when the ties lie in both bodies (the contact is not a point).
static walk_outcome face_optimal(support_walk* walk, const walk_piece* piece) {
    int k = piece->ties[0].body;
    for (int i = 1; i < piece->tie_count; ++i)
        if (piece->ties[i].body != k) return WALK_FAILED;
    support_body* body = &walk->bodies[k];
    const support_body* other = &walk->bodies[1 - k];
    osc_vec3 other_point = other->vertex[other->tied[0]];
    plane_vector q = {-(piece->model.s1 + osc_dot(other_point, walk->e1)),
                      -(piece->model.s2 + osc_dot(other_point, walk->e2))};
    plane_vector points[SUPPORT_MAX_VERTICES];
    for (int i = 0; i < body->tied_count; ++i) points[i] = plane_coordinates(body, body->tied[i]);
    if (!face_contains(body, points, q, walk->size)) return WALK_AGAIN;
    walk->face_body = k;
    walk->face_point = q;
    return WALK_ON;
}

// Whether a piece's minimiser is the optimum: without ties it is; with one or two independent
// ones their weights decide (tie_weights); with more, a face's core point (face_optimal)
static walk_outcome piece_optimal(support_walk* walk, const walk_piece* piece) {
    walk->face_body = -1;
    if (piece->tie_count == 0) return WALK_ON;
    if (piece->tie_count <= 2 && !(piece->tie_count == 2 && piece->parallel)) return tie_weights(walk, piece);
    return face_optimal(walk, piece);
}

// One iteration of the walk: the piece, its step, the ratio test, the line search, and the
// optimality test once the piece is done. WALK_ON when the optimum is found, WALK_AGAIN to go on,
// WALK_AT_KINK at a disc's kink with no descent, WALK_FAILED.
OSC_FORCE_INLINE walk_outcome walk_iteration(support_walk* walk) {
    walk_piece piece;
    if (!piece_at(walk, &piece)) return WALK_FAILED;
    walk_step step;
    walk_outcome chosen = choose_step(walk, &piece, &step);
    if (chosen != WALK_ON) return chosen;
    bool done = piece_done(walk, &piece, &step);
    double reach;
    int hit_body, hit_vertex;
    step_reach(walk, &step, done, &reach, &hit_body, &hit_vertex);
    if (!step.newton && !done && hit_body < 0) {
        // no tie ahead of a linear step: along a disc's flat direction it runs into that disc's
        // kink where it heads there; otherwise N is unbounded below (degenerate)
        int kinked = flat_step_to_kink(walk->bodies, walk->d,
                                       osc_add(osc_scale(walk->e1, step.t1), osc_scale(walk->e2, step.t2)), &walk->n,
                                       &walk->sum);
        if (kinked < 0) return WALK_FAILED;
        walk->at_kink = kinked;
        return WALK_AGAIN;
    }
    int jumped;
    if (!take_step(walk, &step, reach, done, &hit_body, &jumped)) return WALK_FAILED;
    walk->at_kink = jumped; // a step from the kink leaves it
    if (jumped >= 0) return WALK_AGAIN;
    if (hit_body >= 0) {
        support_body* body = &walk->bodies[hit_body];
        body->is_tied[hit_vertex] = true;
        body->tied[body->tied_count++] = hit_vertex;
        return WALK_AGAIN;
    }
    if (!done) return WALK_AGAIN;
    return piece_optimal(walk, &piece);
}

// The core points at the optimum (the representative plus the weighted ties, or the face's point
// with the projection q and the representative's height along n; a cone's pieces' support points
// weighted) and the support points (adding the balls). False where a cone's disc part vanishes.
static bool support_points(const support_walk* walk, osc_vec3 core[2], osc_vec3 support[2]) {
    osc_vec3 n = walk->n, e1 = walk->e1, e2 = walk->e2;
    const double* weight = walk->weight;
    for (int k = 0, tie = 0; k < 2; ++k) {
        const support_body* body = &walk->bodies[k];
        if (body->plain >= 0) {
            // a cone: each piece's support point (the base centre's with its disc's), weighted
            bool uses_disc = is_swept(body, body->tied[0]) || body->tied_count > 1;
            if (uses_disc && !(body->root > 1e-12 * osc_length(n) * body->radius)) return false;
            osc_vec3 piece[2];
            for (int j = 0; j < 2; ++j)
                piece[j] = is_swept(body, j) && uses_disc ? osc_add_scaled(body->vertex[j], body->cn, 1.0 / body->root)
                                                          : body->vertex[j];
            osc_vec3 point = piece[body->tied[0]];
            for (int i = 1; i < body->tied_count; ++i, ++tie)
                point = osc_add_scaled(point, osc_sub(piece[body->tied[i]], piece[body->tied[0]]), weight[tie]);
            core[k] = support[k] = point;
            continue;
        }
        osc_vec3 representative = body->vertex[body->tied[0]];
        core[k] = representative;
        if (walk->face_body == k) {
            // rows e1, e2, n: solve for the point by Cramer's rule
            osc_vec3 rhs = osc_v3(walk->face_point.u, walk->face_point.v, osc_dot(representative, n));
            osc_mat3 m = {{{e1.x, e1.y, e1.z}, {e2.x, e2.y, e2.z}, {n.x, n.y, n.z}}};
            osc_vec3 m0 = osc_mat3_column(m, 0), m1 = osc_mat3_column(m, 1), m2 = osc_mat3_column(m, 2);
            double det = osc_mat3_determinant(m);
            core[k] = osc_v3(osc_dot(rhs, osc_cross(m1, m2)) / det, osc_dot(m0, osc_cross(rhs, m2)) / det,
                             osc_dot(m0, osc_cross(m1, rhs)) / det);
        } else if (walk->face_body < 0) {
            // the ties were listed body by body, as the weights are
            for (int i = 1; i < body->tied_count; ++i, ++tie)
                core[k] = osc_add_scaled(core[k], osc_sub(body->vertex[body->tied[i]], representative), weight[tie]);
        }
        support[k] = core[k];
        if (body->ball) support[k] = osc_add_scaled(support[k], body->cn, 1.0 / body->root);
    }
    return true;
}

// The optimum found at a disc's kink during the walk (no descent from it): the start from there,
// or false when the kink is not the optimum after all
static bool finish_at_kink(dcol_problem* dp, support_walk* walk, double barrier, double active_gap) {
    double kink_sum;
    osc_vec3 core[2], support[2];
    kink_info info;
    int k = walk->at_kink;
    if (!disc_kink_optimum(walk->bodies, k, walk->d, walk->e1, walk->e2, walk->size, &kink_sum, core, support, &info))
        return false;
    return finish_kink(dp, walk->bodies, k, &info, kink_sum, core, support, barrier, active_gap);
}

// The support path (docs/dcol.md §3.5): the walk's phases above, then the exact contact (§3.7)
// where the options allow and it qualifies, else the first-order central point. False (for the
// general start) when the origins (nearly) coincide, the contact is not a point (ties in both
// bodies beyond two, parallel ties) or the walk does not converge in 60 steps.
bool dcol_support_start(dcol_problem* dp, double barrier, double active_gap) {
    dp->has_optimum = false;
    support_walk walk;
    if (!walk_begin(dp, &walk)) return false;
    bool started;
    if (disc_first(dp, &walk, barrier, active_gap, &started)) return started;
    walk_outcome outcome = WALK_AGAIN;
    for (int iteration = 0; iteration < 60 && outcome == WALK_AGAIN; ++iteration) outcome = walk_iteration(&walk);
    if (outcome == WALK_AT_KINK) return finish_at_kink(dp, &walk, barrier, active_gap);
    if (outcome != WALK_ON) return false;
    osc_vec3 core[2], support[2];
    if (!support_points(&walk, core, support)) return false;
    if (dp->exact_allowed && walk.dd > 1e-20 &&
        exact_contact(dp, walk.bodies, walk.n, walk.sum, walk.weight, support)) {
        set_optimum(dp, walk.sum, core, support);
        dp->exact = true;
        return true;
    }
    return finish_start(dp, walk.sum, core, support, barrier, active_gap);
}
