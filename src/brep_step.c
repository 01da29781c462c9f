// brep_step.c: import of the solids of a STEP file (ISO 10303-21 text parsed by brep_step_parse.c,
// placed by brep_step_assembly.c; entities of ISO 10303-42 as used by AP203 and AP214): each
// distinct MANIFOLD_SOLID_BREP into an osc_brep_desc in its own coordinates, then every placed
// instance of it moved into one model with a shell per instance, then osc_brep_create.
//
// Walk: MANIFOLD_SOLID_BREP -> CLOSED_SHELL -> ADVANCED_FACE (face_geometry, same_sense) ->
// FACE_OUTER_BOUND / FACE_BOUND -> EDGE_LOOP (VERTEX_LOOP is skipped) -> ORIENTED_EDGE ->
// EDGE_CURVE (VERTEX_POINT, CARTESIAN_POINT; geometry LINE, CIRCLE, or through SURFACE_CURVE,
// SEAM_CURVE, TRIMMED_CURVE). Surfaces: PLANE, CYLINDRICAL_SURFACE, CONICAL_SURFACE,
// SPHERICAL_SURFACE, TOROIDAL_SURFACE on an AXIS2_PLACEMENT_3D.
//
// Trims: every edge of a loop is sampled in 3D and mapped to the face's (u, v) by a closed-form
// inverse; periodic parameters are unwrapped continuously along the loop, and the second pass of a
// seam edge over the same parameters is moved by one period. Lines on planes, circles in a plane
// face's plane (arcs), and iso-parametric edges of the other surfaces become exact pieces;
// anything else becomes a polyline refined until the surface image of each piece's midpoint lies
// within STEP_TRIM_TOLERANCE (relative to the edge's extent) of the edge. Curves other than lines
// and circles (B_SPLINE_CURVE_WITH_KNOTS, rational B-splines, ELLIPSE) are sampled this way when
// skip_unsupported is set and left out of the edge list.
//
// Placing: a rigid motion with a uniform scale (a unit conversion) moves the surfaces' and edges'
// frames and scales their sizes; a face's trims keep their parameters, but for the lengths among
// them (a plane's u and v, a cylinder's or cone's v, a line's t), which scale.

#include "array_internal.h"
#include "brep_internal.h"
#include "brep_step_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_PI 3.14159265358979323846
#define STEP_TWO_PI (2.0 * STEP_PI)
/// Polyline trims: largest distance between the surface image of a piece's midpoint and the edge,
/// relative to the extent of the edge.
#define STEP_TRIM_TOLERANCE 1e-5
/// Polyline trims: at most this many pieces per edge traversal.
#define STEP_MAX_SAMPLES 8192
/// Polyline trims on B-spline faces: the work of projecting a file's edge samples onto the faces
/// (evaluations of the surfaces, each weighted by (p + 1)(q + 1) + (p + 1)^2 + (q + 1)^2 for degrees
/// p, q) is bounded by this many units per byte of the file, and by STEP_MIN_WORK for small files.
/// Measured over 373 real files (docs/brep.md), the most a file used is 1.3e3 per byte and 1.7e8
/// in all, and one edge traversal 1.9e7; a fuzzed 16 KB file whose degree-14 edge lies off its
/// face needed 1.7e9 (4.3 s).
#define STEP_WORK_PER_BYTE 5e3
#define STEP_MIN_WORK 1e8
/// Largest B-spline degree and control point count read.
#define STEP_MAX_DEGREE 25
#define STEP_MAX_POLES (1 << 20)

typedef enum step_curve_kind {
    CURVE_LINE,
    CURVE_CIRCLE,
    CURVE_ELLIPSE,
    CURVE_BSPLINE,
    CURVE_PARABOLA,
    CURVE_HYPERBOLA
} step_curve_kind;

// a 3D edge curve (ISO 10303-42 §4.4): line o + t z; circle / ellipse o + a cos t x + b sin t y;
// parabola o + a (t^2 x + 2 t y) (a the focal distance); hyperbola o + a cosh t x + b sinh t y;
// B-spline with homogeneous poles [count][4] and knots [count + degree + 1]
typedef struct step_curve {
    step_curve_kind kind;
    osc_vec3 o, x, y, z;
    double a, b;
    int degree, count;
    double* poles;
    double* knots;
    int instance;
} step_curve;

typedef struct step_edge {
    int instance; // the EDGE_CURVE
    step_curve curve;
    int vertex[2]; // VERTEX_POINT instances at the start and end
    osc_vec3 point[2];
    double t[2];           // curve parameters at the start and the end, along the edge
    int closed, supported; // supported: a line or circle (goes into the edge list)
    int uses, face[2];     // imported faces through it
} step_edge;

// one traversal of an edge by the face being read: its first and last uv
typedef struct step_pass {
    int edge;
    double uv[4];
} step_pass;

typedef struct step_ctx {
    const step_file* file;
    int skip;
    osc_brep_import_report* report;
    double angle_unit, scale; // of the solid being read
    osc_brep_surface* surfaces;
    int surface_count;
    size_t surface_capacity;
    osc_brep_face* faces;
    int face_count;
    size_t face_capacity;
    osc_brep_loop* loops;
    int loop_count;
    size_t loop_capacity;
    osc_brep_trim* trims;
    int trim_count;
    size_t trim_capacity;
    step_edge* edges;
    int edge_count;
    size_t edge_capacity;
    int serial;   // the solid being read (1, 2, ...): marks below from earlier solids are stale
    int* edge_of; // [instance_count]: edge record of an EDGE_CURVE, when edge_serial is serial
    int* edge_serial;
    int* dropped_serial; // [instance_count]: serial when an EDGE_CURVE belongs to a dropped face
    int* vertex_of;      // [instance_count]: vertex of a VERTEX_POINT, when vertex_serial is serial
    int* vertex_serial;
    step_pass* passes; // the edge traversals of the face being read
    int pass_count;
    size_t pass_capacity;
    double* samples; // [sample_count][4]: t, u, v, degenerate
    int sample_count;
    size_t sample_capacity;
    unsigned char* piece_fine; // [sample_count - 1]: 1 when the piece from sample i was found within tolerance
    size_t piece_capacity;
    // the B-splines of the solid being read (its description's nurbs, control_points, reals)
    osc_brep_nurbs* nurbs;
    int nurbs_count;
    size_t nurbs_capacity;
    osc_vec3* cpoints;
    int cpoint_count;
    size_t cpoint_capacity;
    double* reals;
    int real_count;
    size_t real_capacity;
    // the B-spline surface of the face being read, for its trims
    osc_nurbs face_nurbs;
    double* face_storage;
    size_t face_storage_capacity;
    double hint[2]; // the last (u, v) found on it: projections continue from there
    int hint_valid;
    double face_eval_cost;     // the cost of one evaluation of it: (p + 1)(q + 1) + (p + 1)^2 + (q + 1)^2
    double work;               // the cost of the projections onto B-spline faces so far (STEP_WORK_PER_BYTE)
    double work_budget;        // its bound for this file
    int tracing_face;          // the ADVANCED_FACE whose loop is being traced
    size_t file_size;          // bytes of the file
    double uncertainty;        // the file's distance uncertainty (its model unit), 0 when it gives none
    osc_vec3 center;           // the centre of the solid's vertices
    int flip;                  // the faces being read belong to a void turned over (ORIENTED_CLOSED_SHELL .F.)
    osc_brep_skipped* skipped; // the faces of the solid being read that were left out (their boxes)
    int skipped_count;
    size_t skipped_capacity;
} step_ctx;

// ---- errors and growth ---------------------------------------------------------------------------

// The gaps a file may leave, in multiples of its uncertainty measure (UNCERTAINTY_MEASURE_WITH_UNIT):
// a vertex off its edge's curve, consecutive edges of a loop that do not quite meet. The largest in
// the sample files of docs/brep.md is 12.5 (FreeCAD's SMB_DO_214AA: a vertex 2.5e-3 mm off its
// line, uncertainty 2e-4 mm); OpenCASCADE's reader accepts any gap (it widens the vertex tolerance).
#define STEP_GAP_FACTOR 20.0

// records the first unsupported entity and fails with OSC_ERR_UNSUPPORTED naming it
static osc_status step_unsupported(step_ctx* ctx, int instance, const char* what) {
    char name[96];
    step_entity_name(ctx->file, instance, name, sizeof name);
    if (!ctx->report->first_unsupported[0])
        snprintf(ctx->report->first_unsupported, sizeof ctx->report->first_unsupported, "#%lld %.80s",
                 ctx->file->instances[instance].id, name);
    return osc_fail(OSC_ERR_UNSUPPORTED, "osc_brep_read_step: #%lld %s (STEP line %d): %s",
                    ctx->file->instances[instance].id, name, ctx->file->instances[instance].line, what);
}

// OSC_ERR_CAPACITY naming the edge being sampled when the projections have used up the file's
// budget (STEP_WORK_PER_BYTE), else OSC_OK
static osc_status step_check_work(step_ctx* ctx, const step_edge* e) {
    if (!(ctx->work > ctx->work_budget)) return OSC_OK;
    char name[96];
    int instance = e->instance;
    step_entity_name(ctx->file, instance, name, sizeof name);
    return osc_fail(OSC_ERR_CAPACITY,
                    "osc_brep_read_step: #%lld %s (STEP line %d): sampling the file's edges on their B-spline faces "
                    "needs more than %.3g units of work, the budget of a %zu-byte file (%.3g a byte, at least "
                    "%.3g); this edge's trim on face #%lld is the last reached (an edge far from its face, or "
                    "geometry too intricate)",
                    ctx->file->instances[instance].id, name, ctx->file->instances[instance].line, ctx->work_budget,
                    ctx->file_size, STEP_WORK_PER_BYTE, STEP_MIN_WORK, ctx->file->instances[ctx->tracing_face].id);
}

// makes room for `needed` elements in ctx->array (counts are ints: a model of more than INT_MAX / 2
// of anything is refused)
static osc_status step_too_large(void) { return osc_fail(OSC_ERR_CAPACITY, "osc_brep_read_step: model too large"); }

#define STEP_GROW(ctx, array, count, capacity, needed)                                                                 \
    ((needed) > INT_MAX / 2 ? step_too_large() : OSC_ARRAY_RESERVE((ctx)->array, (ctx)->capacity, (needed)))

// ---- surfaces (ISO 10303-42 §4.4.23 - §4.4.31) and their closed-form inverses ------------------

// ---- B-splines of the solid (its description's nurbs, control_points, reals) --------------------

// appends a B-spline from homogeneous points cw [count[0] count[1]][4] and its knots (v's NULL for a
// curve) to the solid's arrays; its index in *index
static osc_status step_add_nurbs(step_ctx* ctx, const int degree[2], const int count[2], const double* knots_u,
                                 const double* knots_v, const double* cw, int* index) {
    int points = count[0] * count[1];
    int knots = count[0] + degree[0] + 1 + (knots_v ? count[1] + degree[1] + 1 : 0);
    int rational = 0;
    for (int i = 0; i < points; ++i) rational |= cw[4 * i + 3] != 1.0;
    osc_status status;
    if ((status = STEP_GROW(ctx, nurbs, nurbs_count, nurbs_capacity, ctx->nurbs_count + 1)) != OSC_OK ||
        (status = STEP_GROW(ctx, cpoints, cpoint_count, cpoint_capacity, ctx->cpoint_count + points)) != OSC_OK ||
        (status = STEP_GROW(ctx, reals, real_count, real_capacity, ctx->real_count + knots + points)) != OSC_OK)
        return status;
    osc_brep_nurbs* n = &ctx->nurbs[ctx->nurbs_count];
    n->degree[0] = degree[0];
    n->degree[1] = knots_v ? degree[1] : 0;
    n->count[0] = count[0];
    n->count[1] = knots_v ? count[1] : 1;
    n->knot_begin = ctx->real_count;
    memcpy(ctx->reals + ctx->real_count, knots_u, (size_t)(count[0] + degree[0] + 1) * sizeof(double));
    ctx->real_count += count[0] + degree[0] + 1;
    if (knots_v) {
        memcpy(ctx->reals + ctx->real_count, knots_v, (size_t)(count[1] + degree[1] + 1) * sizeof(double));
        ctx->real_count += count[1] + degree[1] + 1;
    }
    n->point_begin = ctx->cpoint_count;
    n->weight_begin = rational ? ctx->real_count : -1;
    for (int i = 0; i < points; ++i) {
        double w = cw[4 * i + 3];
        ctx->cpoints[ctx->cpoint_count++] = osc_v3(cw[4 * i] / w, cw[4 * i + 1] / w, cw[4 * i + 2] / w);
        if (rational) ctx->reals[ctx->real_count++] = w;
    }
    *index = ctx->nurbs_count++;
    return OSC_OK;
}

// the osc_nurbs of entry `index` as the face being read's surface
static osc_status step_use_face_nurbs(step_ctx* ctx, int index) {
    const osc_brep_nurbs* e = &ctx->nurbs[index];
    size_t need = osc_nurbs_storage(e);
    if (need > INT_MAX / 2) return osc_fail(OSC_ERR_CAPACITY, "osc_brep_read_step: B-spline too large");
    osc_status status = STEP_GROW(ctx, face_storage, face_storage_capacity, face_storage_capacity, (int)need);
    if (status != OSC_OK) return status;
    osc_nurbs_init(&ctx->face_nurbs, e, ctx->cpoints, ctx->reals, ctx->face_storage);
    ctx->hint_valid = 0;
    double p = e->degree[0] + 1, q = e->degree[1] + 1;
    ctx->face_eval_cost = p * q + p * p + q * q;
    return OSC_OK;
}

// the knot vector [multiplicities summed] of a B-spline from its multiplicities and distinct knots
static osc_status step_knots(step_ctx* ctx, int instance, int mult_first, int knot_first, int degree, int expected,
                             double** knots) {
    const step_file* file = ctx->file;
    *knots = osc_calloc((size_t)expected + 1, sizeof(double));
    if (!*knots) return OSC_ERR_NO_MEMORY;
    int at = 0;
    for (int node = knot_first, mult = mult_first; node >= 0 && mult >= 0;
         node = file->nodes[node].next, mult = file->nodes[mult].next) {
        double m = file->nodes[mult].real;
        if (file->nodes[mult].kind != STEP_INTEGER || m < 1 || m > degree + 1 || at + (int)m > expected)
            return step_bad(file, instance, "bad knot multiplicity");
        if (file->nodes[node].kind != STEP_REAL && file->nodes[node].kind != STEP_INTEGER)
            return step_bad(file, instance, "bad knot");
        double value = file->nodes[node].real;
        if (at > 0 && value < (*knots)[at - 1]) return step_bad(file, instance, "knots decrease");
        for (int k = 0; k < (int)m; ++k) (*knots)[at++] = value;
    }
    if (at != expected) return step_bad(file, instance, "knot multiplicities do not add up to poles + degree + 1");
    if (!((*knots)[expected - degree - 1] > (*knots)[degree])) return step_bad(file, instance, "empty knot range");
    return OSC_OK;
}

// B_SPLINE_SURFACE_WITH_KNOTS, simple or complex with RATIONAL_B_SPLINE_SURFACE (ISO 10303-42
// §4.4.37): appended to the solid's B-splines
static osc_status step_bspline_surface(step_ctx* ctx, int instance, int* index) {
    const step_file* file = ctx->file;
    int base, knotted, offset = 0;
    if (!file->instances[instance].complex) {
        base = knotted = step_args(file, instance, "B_SPLINE_SURFACE_WITH_KNOTS");
        offset = 1;
    } else {
        base = step_part(file, instance, "B_SPLINE_SURFACE");
        knotted = step_part(file, instance, "B_SPLINE_SURFACE_WITH_KNOTS");
    }
    if (base < 0 || knotted < 0) return step_unsupported(ctx, instance, "unsupported B-spline surface form");
    int rational = step_part(file, instance, "RATIONAL_B_SPLINE_SURFACE");
    double degree_value[2];
    osc_status status;
    for (int k = 0; k < 2; ++k) {
        if ((status = step_real(file, instance, base, offset + k, &degree_value[k])) != OSC_OK) return status;
        if (!(degree_value[k] >= 1 && degree_value[k] <= STEP_MAX_DEGREE) || degree_value[k] != floor(degree_value[k]))
            return step_bad(file, instance, "B-spline degree out of [1, 25]");
    }
    int degree[2] = {(int)degree_value[0], (int)degree_value[1]};
    int rows_first = -1, rows = 0;
    if ((status = step_list_arg(file, instance, base, offset + 2, &rows_first, &rows)) != OSC_OK) return status;
    int knot_offset = file->instances[instance].complex ? 0 : 8;
    int mult_first[2], mult_count[2], knot_first[2], knot_count[2];
    for (int k = 0; k < 2; ++k)
        if ((status = step_list_arg(file, instance, knotted, knot_offset + k, &mult_first[k], &mult_count[k])) !=
                OSC_OK ||
            (status = step_list_arg(file, instance, knotted, knot_offset + 2 + k, &knot_first[k], &knot_count[k])) !=
                OSC_OK)
            return status;
    int columns = rows_first >= 0 ? step_length(file, rows_first) : -1;
    if (rows < degree[0] + 1 || columns < degree[1] + 1 || (long long)rows * columns > STEP_MAX_POLES ||
        mult_count[0] != knot_count[0] || mult_count[1] != knot_count[1])
        return step_bad(file, instance, "inconsistent B-spline surface sizes");
    double* cw = osc_calloc((size_t)rows * columns, 4 * sizeof(double));
    double *knots_u = NULL, *knots_v = NULL;
    status = cw ? OSC_OK : OSC_ERR_NO_MEMORY;
    int weight_row = -1;
    if (status == OSC_OK && rational >= 0) {
        int weight_rows = 0;
        status = step_list_arg(file, instance, rational, 0, &weight_row, &weight_rows);
        if (status == OSC_OK && weight_rows != rows)
            status = step_bad(file, instance, "weights do not match the poles");
    }
    int i = 0;
    for (int row = rows_first; status == OSC_OK && row >= 0; row = file->nodes[row].next, ++i) {
        if (file->nodes[row].kind != STEP_LIST || file->nodes[row].count != columns) {
            status = step_bad(file, instance, "the control points are not a rectangular grid");
            break;
        }
        int weight = -1;
        if (weight_row >= 0) {
            if (file->nodes[weight_row].kind != STEP_LIST || file->nodes[weight_row].count != columns) {
                status = step_bad(file, instance, "weights do not match the poles");
                break;
            }
            weight = file->nodes[weight_row].child;
            weight_row = file->nodes[weight_row].next;
        }
        int j = 0;
        for (int node = file->nodes[row].child; node >= 0 && status == OSC_OK; node = file->nodes[node].next, ++j) {
            int point;
            osc_vec3 x;
            if ((status = step_ref_node(file, instance, node, &point)) != OSC_OK ||
                (status = step_point(file, point, &x)) != OSC_OK)
                break;
            double w = 1.0;
            if (weight >= 0) {
                if (file->nodes[weight].kind != STEP_REAL && file->nodes[weight].kind != STEP_INTEGER) {
                    status = step_bad(file, instance, "bad weight");
                    break;
                }
                w = file->nodes[weight].real;
                weight = file->nodes[weight].next;
                if (!(w > 0.0)) {
                    status = step_bad(file, instance, "weights must be positive");
                    break;
                }
            }
            double* c = cw + 4 * ((size_t)i * columns + j);
            c[0] = w * x.x;
            c[1] = w * x.y;
            c[2] = w * x.z;
            c[3] = w;
        }
    }
    if (status == OSC_OK)
        status = step_knots(ctx, instance, mult_first[0], knot_first[0], degree[0], rows + degree[0] + 1, &knots_u);
    if (status == OSC_OK)
        status = step_knots(ctx, instance, mult_first[1], knot_first[1], degree[1], columns + degree[1] + 1, &knots_v);
    int count[2] = {rows, columns};
    if (status == OSC_OK) status = step_add_nurbs(ctx, degree, count, knots_u, knots_v, cw, index);
    osc_free(cw);
    osc_free(knots_u);
    osc_free(knots_v);
    return status;
}

static osc_status step_read_curve(step_ctx* ctx, int instance, step_curve* curve);
static osc_status step_clamp(step_curve* c, int extra);

// A rational quadratic arc of a conic o + cos t U + sin t V (an ellipse's conjugate semi-diameters)
// for t from t0 to t1 (at most a quarter turn a piece; Piegl and Tiller's circle, affinely mapped):
// cw [2 pieces + 1][4], knots [2 pieces + 4]; returns the pieces.
static int step_conic_arc(osc_vec3 o, osc_vec3 U, osc_vec3 V, double t0, double t1, double* cw, double* knots) {
    int pieces = (int)ceil(fabs(t1 - t0) / (0.5 * STEP_PI) - 1e-9);
    if (pieces < 1) pieces = 1;
    double step = (t1 - t0) / pieces, w = cos(0.5 * step);
    for (int i = 0; i <= 2 * pieces; ++i) {
        double t = t0 + 0.5 * step * i;
        double weight = i % 2 ? w : 1.0, radius = i % 2 ? 1.0 / w : 1.0;
        osc_vec3 x = osc_add(o, osc_add(osc_scale(U, radius * cos(t)), osc_scale(V, radius * sin(t))));
        cw[4 * i] = weight * x.x;
        cw[4 * i + 1] = weight * x.y;
        cw[4 * i + 2] = weight * x.z;
        cw[4 * i + 3] = weight;
    }
    knots[0] = knots[1] = knots[2] = 0.0;
    for (int i = 1; i < pieces; ++i) knots[2 * i + 1] = knots[2 * i + 2] = (double)i / pieces;
    knots[2 * pieces + 1] = knots[2 * pieces + 2] = knots[2 * pieces + 3] = 1.0;
    return pieces;
}

// A curve as homogeneous B-spline data over its parameters [t0, t1] (conics become rational
// quadratics; B-splines are copied): *cw [*count][4], *knots [*count + *degree + 1] (osc_free both).
// The B-spline's own parameter runs from knots[degree] to knots[count]: [0, 1] for the conics.
static osc_status step_curve_nurbs(const step_curve* c, double t0, double t1, int* degree, int* count, double** cw,
                                   double** knots) {
    *cw = NULL;
    *knots = NULL;
    if (c->kind == CURVE_BSPLINE) {
        *degree = c->degree;
        *count = c->count;
        *cw = osc_calloc((size_t)c->count, 4 * sizeof(double));
        *knots = osc_calloc((size_t)c->count + c->degree + 1, sizeof(double));
        if (!*cw || !*knots) return OSC_ERR_NO_MEMORY;
        memcpy(*cw, c->poles, (size_t)c->count * 4 * sizeof(double));
        memcpy(*knots, c->knots, ((size_t)c->count + c->degree + 1) * sizeof(double));
        return OSC_OK;
    }
    int pieces = c->kind == CURVE_HYPERBOLA ? (int)ceil(fabs(t1 - t0) - 1e-9) : 4;
    if (pieces < 1) pieces = 1;
    *cw = osc_calloc(2 * (size_t)pieces + 1, 4 * sizeof(double));
    *knots = osc_calloc(2 * (size_t)pieces + 4, sizeof(double));
    if (!*cw || !*knots) return OSC_ERR_NO_MEMORY;
    *degree = 2;
    if (c->kind == CURVE_LINE) {
        *degree = 1;
        *count = 2;
        osc_vec3 a = osc_add(c->o, osc_scale(c->z, t0)), b = osc_add(c->o, osc_scale(c->z, t1));
        double pts[8] = {a.x, a.y, a.z, 1.0, b.x, b.y, b.z, 1.0}, k[4] = {0, 0, 1, 1};
        memcpy(*cw, pts, sizeof pts);
        memcpy(*knots, k, sizeof k);
        return OSC_OK;
    }
    if (c->kind == CURVE_CIRCLE || c->kind == CURVE_ELLIPSE) {
        *count = 2 * step_conic_arc(c->o, osc_scale(c->x, c->a), osc_scale(c->y, c->b), t0, t1, *cw, *knots) + 1;
        return OSC_OK;
    }
    // parabola o + a (t^2 x + 2 t y): one polynomial quadratic; hyperbola o + a cosh t x + b sinh t y:
    // pieces of at most 1 in t, each a rational quadratic with middle weight cosh(h), h its half width
    int n = c->kind == CURVE_PARABOLA ? 1 : pieces;
    double step = (t1 - t0) / n;
    for (int i = 0; i < n; ++i) {
        double s0 = t0 + step * i, h = 0.5 * step, m = s0 + h;
        osc_vec3 p0, p1, p2;
        double w = 1.0;
        if (c->kind == CURVE_PARABOLA) {
            double s1 = s0 + step;
            p0 = osc_add(c->o, osc_scale(osc_add(osc_scale(c->x, s0 * s0), osc_scale(c->y, 2.0 * s0)), c->a));
            p2 = osc_add(c->o, osc_scale(osc_add(osc_scale(c->x, s1 * s1), osc_scale(c->y, 2.0 * s1)), c->a));
            // C(s0) + (step / 2) C'(s0), C' = a (2 t x + 2 y)
            p1 = osc_add(p0, osc_scale(osc_add(osc_scale(c->x, 2.0 * s0), osc_scale(c->y, 2.0)), c->a * h));
        } else {
            w = cosh(h);
            p0 = osc_add(c->o, osc_add(osc_scale(c->x, c->a * cosh(s0)), osc_scale(c->y, c->b * sinh(s0))));
            p2 = osc_add(c->o,
                         osc_add(osc_scale(c->x, c->a * cosh(s0 + step)), osc_scale(c->y, c->b * sinh(s0 + step))));
            p1 = osc_add(c->o,
                         osc_scale(osc_add(osc_scale(c->x, c->a * cosh(m)), osc_scale(c->y, c->b * sinh(m))), 1.0 / w));
        }
        double* q = *cw + 8 * i;
        double pts[12] = {p0.x, p0.y, p0.z, 1.0, w * p1.x, w * p1.y, w * p1.z, w, p2.x, p2.y, p2.z, 1.0};
        memcpy(q, pts, sizeof pts);
    }
    *count = 2 * n + 1;
    double* k = *knots;
    k[0] = k[1] = k[2] = 0.0;
    for (int i = 1; i < n; ++i) k[2 * i + 1] = k[2 * i + 2] = (double)i / n;
    k[2 * n + 1] = k[2 * n + 2] = k[2 * n + 3] = 1.0;
    return OSC_OK;
}

// SURFACE_OF_REVOLUTION (ISO 10303-42 §4.4.40): the swept curve's B-spline (v) turned about the
// axis (u, a full turn from the curve: the circle's rational quadratic through each control point,
// exact since a rotation is linear); SURFACE_OF_LINEAR_EXTRUSION (§4.4.39): the curve (u) moved
// along the extrusion vector (v, linear), over lengths covering the solid's vertices
static osc_status step_swept_surface(step_ctx* ctx, int instance, int revolution, int* index) {
    const step_file* file = ctx->file;
    int args = step_args(file, instance, revolution ? "SURFACE_OF_REVOLUTION" : "SURFACE_OF_LINEAR_EXTRUSION");
    int curve_instance, target;
    osc_status status = step_ref(file, instance, args, 1, &curve_instance);
    if (status != OSC_OK) return status;
    step_curve curve;
    if ((status = step_read_curve(ctx, curve_instance, &curve)) != OSC_OK) {
        osc_free(curve.poles);
        osc_free(curve.knots);
        return status;
    }
    // a B-spline in its periodic form (closed_curve .T., unclamped knots: a DecaWave module's outline
    // in KiCad's library) is clamped, so that its swept surface's first and last rows of poles
    // coincide and the surface is read as closed (exact; a clamped curve is left as it is)
    if (curve.kind == CURVE_BSPLINE && ((status = step_clamp(&curve, 0)) != OSC_OK || curve.count == 0)) {
        osc_free(curve.poles);
        osc_free(curve.knots);
        return status != OSC_OK ? status : step_bad(file, curve_instance, "a B-spline curve with invalid knots");
    }
    // the curve over a range that covers the face: B-splines whole, conics a full turn, lines and
    // parabolas and hyperbolas over the solid's extent about the point nearest its centre
    double t0 = -STEP_PI, t1 = STEP_PI;
    if (curve.kind == CURVE_LINE || curve.kind == CURVE_PARABOLA || curve.kind == CURVE_HYPERBOLA) {
        double t = 0.0;
        if (curve.kind == CURVE_LINE) t = osc_dot(osc_sub(ctx->center, curve.o), curve.z);
        double reach =
            curve.kind == CURVE_LINE ? 2.0 * ctx->scale : 2.0 * ctx->scale / fmax(curve.a, 1e-12 * ctx->scale) + 4.0;
        if (curve.kind == CURVE_HYPERBOLA) reach = fmin(reach, 20.0);
        t0 = t - reach;
        t1 = t + reach;
    }
    int degree, count;
    double *cw = NULL, *knots = NULL;
    status = step_curve_nurbs(&curve, t0, t1, &degree, &count, &cw, &knots);
    osc_free(curve.poles);
    osc_free(curve.knots);
    double* grid = NULL;
    if (status == OSC_OK && revolution) {
        int placement;
        osc_vec3 o, z;
        if ((status = step_ref(file, instance, args, 2, &placement)) == OSC_OK) {
            int axis_args = step_args(file, placement, "AXIS1_PLACEMENT");
            if (axis_args < 0) status = step_bad(file, placement, "an AXIS1_PLACEMENT was expected");
            if (status == OSC_OK) status = step_ref(file, placement, axis_args, 1, &target);
            if (status == OSC_OK) status = step_point(file, target, &o);
            z = osc_v3(0, 0, 1);
            const step_node* dir = status == OSC_OK ? step_arg(file, axis_args, 2) : NULL;
            if (dir && dir->kind == STEP_REF && (status = step_ref(file, placement, axis_args, 2, &target)) == OSC_OK)
                status = step_direction(file, target, &z);
        }
        grid = status == OSC_OK ? osc_calloc(9 * (size_t)count, 4 * sizeof(double)) : NULL;
        if (status == OSC_OK && !grid) status = OSC_ERR_NO_MEMORY;
        double circle_knots[12];
        for (int j = 0; status == OSC_OK && j < count; ++j) {
            double w = cw[4 * j + 3];
            osc_vec3 p = osc_v3(cw[4 * j] / w, cw[4 * j + 1] / w, cw[4 * j + 2] / w);
            osc_vec3 foot = osc_add(o, osc_scale(z, osc_dot(osc_sub(p, o), z)));
            osc_vec3 r = osc_sub(p, foot), q = osc_cross(z, r);
            double row[9 * 4];
            step_conic_arc(foot, r, q, 0.0, STEP_TWO_PI, row, circle_knots);
            for (int i = 0; i < 9; ++i)
                for (int m = 0; m < 4; ++m) grid[4 * ((size_t)i * count + j) + m] = row[4 * i + m] * w;
        }
        int degrees[2] = {2, degree}, counts[2] = {9, count};
        if (status == OSC_OK) status = step_add_nurbs(ctx, degrees, counts, circle_knots, knots, grid, index);
    } else if (status == OSC_OK) {
        int vector;
        osc_vec3 d;
        double magnitude = 1.0;
        if ((status = step_ref(file, instance, args, 2, &vector)) == OSC_OK) {
            int vargs = step_args(file, vector, "VECTOR");
            if (vargs < 0) status = step_bad(file, vector, "a VECTOR was expected");
            if (status == OSC_OK) status = step_ref(file, vector, vargs, 1, &target);
            if (status == OSC_OK) status = step_direction(file, target, &d);
            if (status == OSC_OK) status = step_real(file, vector, vargs, 2, &magnitude);
            if (status == OSC_OK && !(fabs(magnitude) > 0.0)) status = step_bad(file, vector, "a zero vector");
        }
        // v from -L to L times the unit direction, L the solid's extent plus the curve's distance to it
        double reach = 2.0 * ctx->scale;
        for (int j = 0; status == OSC_OK && j < count; ++j) {
            double w = cw[4 * j + 3];
            osc_vec3 p = osc_v3(cw[4 * j] / w, cw[4 * j + 1] / w, cw[4 * j + 2] / w);
            reach = fmax(reach, 2.0 * (ctx->scale + osc_length(osc_sub(p, ctx->center))));
        }
        grid = status == OSC_OK ? osc_calloc(2 * (size_t)count, 4 * sizeof(double)) : NULL;
        if (status == OSC_OK && !grid) status = OSC_ERR_NO_MEMORY;
        for (int j = 0; status == OSC_OK && j < count; ++j)
            for (int k = 0; k < 2; ++k) {
                double w = cw[4 * j + 3], shift = k ? reach : -reach;
                double* c = grid + 4 * ((size_t)j * 2 + k);
                c[0] = cw[4 * j] + w * shift * d.x;
                c[1] = cw[4 * j + 1] + w * shift * d.y;
                c[2] = cw[4 * j + 2] + w * shift * d.z;
                c[3] = w;
            }
        double line_knots[4] = {0, 0, 1, 1};
        int degrees[2] = {degree, 1}, counts[2] = {count, 2};
        if (status == OSC_OK) status = step_add_nurbs(ctx, degrees, counts, knots, line_knots, grid, index);
    }
    osc_free(grid);
    osc_free(cw);
    osc_free(knots);
    return status;
}

// A horn torus (r = R, as osc_brep_create compares them: KiCad's vertical axial resistors round
// their bodies' ends on one), which the model refuses, becomes the same surface as a rational
// B-spline: the tube circle in the plane of the reference direction, o + R x + r (cos v x + sin v z)
// for v in [-pi, pi] (both ends at the cusp o), each of its poles turned about the axis by the
// rational quadratic circle, u from the reference direction (exact, as for SURFACE_OF_REVOLUTION;
// u and v turn as the torus's, so S_u x S_v is its normal and same_sense keeps its meaning).
static osc_status step_horn_torus(step_ctx* ctx, osc_brep_surface* surface) {
    if (surface->type != OSC_SURFACE_TORUS || fabs(surface->radius2 - surface->radius) > 1e-9 * surface->radius)
        return OSC_OK;
    osc_vec3 o = surface->origin, x = surface->ref, z = surface->axis;
    double tube[9 * 4], tube_knots[12], around[9 * 4], around_knots[12], grid[81 * 4];
    step_conic_arc(osc_add(o, osc_scale(x, surface->radius)), osc_scale(x, surface->radius2),
                   osc_scale(z, surface->radius2), -STEP_PI, STEP_PI, tube, tube_knots);
    for (int j = 0; j < 9; ++j) {
        double w = tube[4 * j + 3];
        osc_vec3 p = osc_v3(tube[4 * j] / w, tube[4 * j + 1] / w, tube[4 * j + 2] / w);
        osc_vec3 foot = osc_add(o, osc_scale(z, osc_dot(osc_sub(p, o), z)));
        osc_vec3 r = osc_sub(p, foot);
        step_conic_arc(foot, r, osc_cross(z, r), 0.0, STEP_TWO_PI, around, around_knots);
        for (int i = 0; i < 9; ++i)
            for (int m = 0; m < 4; ++m) grid[4 * (i * 9 + j) + m] = around[4 * i + m] * w;
    }
    memset(surface, 0, sizeof *surface);
    surface->type = OSC_SURFACE_NURBS;
    surface->axis = osc_v3(0, 0, 1);
    surface->ref = osc_v3(1, 0, 0);
    int degrees[2] = {2, 2}, counts[2] = {9, 9};
    osc_status status = step_add_nurbs(ctx, degrees, counts, around_knots, tube_knots, grid, &surface->nurbs);
    return status == OSC_OK ? step_use_face_nurbs(ctx, surface->nurbs) : status;
}

// reads the face geometry; OSC_ERR_UNSUPPORTED for anything but the five canonical surfaces
static osc_status step_surface(step_ctx* ctx, int instance, osc_brep_surface* surface) {
    static const struct {
        const char* name;
        osc_surface_type type;
        int sizes;
    } kinds[] = {{"PLANE", OSC_SURFACE_PLANE, 0},
                 {"CYLINDRICAL_SURFACE", OSC_SURFACE_CYLINDER, 1},
                 {"CONICAL_SURFACE", OSC_SURFACE_CONE, 2},
                 {"SPHERICAL_SURFACE", OSC_SURFACE_SPHERE, 1},
                 {"TOROIDAL_SURFACE", OSC_SURFACE_TORUS, 2}};
    int args = -1;
    size_t kind = 0;
    memset(surface, 0, sizeof *surface);
    const step_file* file = ctx->file;
    int bspline = step_args(file, instance, "B_SPLINE_SURFACE_WITH_KNOTS") >= 0 ||
                  (file->instances[instance].complex && step_part(file, instance, "B_SPLINE_SURFACE_WITH_KNOTS") >= 0);
    int revolution = step_args(file, instance, "SURFACE_OF_REVOLUTION") >= 0;
    int extrusion = step_args(file, instance, "SURFACE_OF_LINEAR_EXTRUSION") >= 0;
    if (bspline || revolution || extrusion) {
        surface->type = OSC_SURFACE_NURBS;
        surface->axis = osc_v3(0, 0, 1);
        surface->ref = osc_v3(1, 0, 0);
        osc_status status = bspline ? step_bspline_surface(ctx, instance, &surface->nurbs)
                                    : step_swept_surface(ctx, instance, revolution, &surface->nurbs);
        return status == OSC_OK ? step_use_face_nurbs(ctx, surface->nurbs) : status;
    }
    int offset_args = step_args(file, instance, "OFFSET_SURFACE");
    if (offset_args >= 0) { // an offset of a canonical surface is one of the same kind
        int basis;
        double distance;
        osc_status status = step_ref(file, instance, offset_args, 1, &basis);
        if (status == OSC_OK) status = step_real(file, instance, offset_args, 2, &distance);
        if (status == OSC_OK && step_args(file, basis, "OFFSET_SURFACE") >= 0)
            return step_unsupported(ctx, instance, "an offset of an offset surface");
        if (status == OSC_OK) status = step_surface(ctx, basis, surface);
        if (status != OSC_OK) return status;
        switch (surface->type) {
            case OSC_SURFACE_PLANE: surface->origin = osc_add_scaled(surface->origin, surface->axis, distance); break;
            case OSC_SURFACE_CYLINDER:
            case OSC_SURFACE_SPHERE: surface->radius += distance; break;
            case OSC_SURFACE_TORUS: surface->radius2 += distance; break;
            case OSC_SURFACE_CONE: // the generatrix moves along cos a e - sin a z
                surface->radius += distance * cos(surface->angle);
                surface->origin = osc_add_scaled(surface->origin, surface->axis, -distance * sin(surface->angle));
                break;
            default: return step_unsupported(ctx, instance, "an offset of a B-spline surface");
        }
        if (!(surface->radius >= 0.0) || (surface->type == OSC_SURFACE_TORUS && !(surface->radius2 > 0.0)))
            return step_unsupported(ctx, instance, "an offset surface that degenerates");
        return step_horn_torus(ctx, surface);
    }
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && args < 0; ++k)
        if ((args = step_args(ctx->file, instance, kinds[k].name)) >= 0) kind = k;
    if (args < 0)
        return step_unsupported(ctx, instance,
                                "the face's surface is not a plane, cylinder, cone, sphere, torus, B-spline surface, "
                                "surface of revolution or extrusion, or an offset of a canonical surface");
    surface->type = kinds[kind].type;
    int placement;
    osc_vec3 y;
    osc_status status = step_ref(ctx->file, instance, args, 1, &placement);
    if (status == OSC_OK)
        status = step_placement(ctx->file, placement, &surface->origin, &surface->ref, &y, &surface->axis);
    if (status != OSC_OK) return status;
    double size[2] = {0.0, 0.0};
    for (int k = 0; k < kinds[kind].sizes; ++k)
        if ((status = step_real(ctx->file, instance, args, 2 + k, &size[k])) != OSC_OK) return status;
    if (surface->type == OSC_SURFACE_CONE) {
        surface->radius = size[0];
        surface->angle = size[1] * ctx->angle_unit;
        if (!(surface->radius >= 0.0) || !(surface->angle > 0.0 && surface->angle < 0.5 * STEP_PI))
            return step_bad(ctx->file, instance, "a cone needs radius >= 0 and a semi-angle in (0, pi/2)");
    } else {
        surface->radius = size[0];
        surface->radius2 = size[1];
        if (kinds[kind].sizes >= 1 && !(surface->radius > 0.0))
            return step_bad(ctx->file, instance, "radius must be positive");
        if (kinds[kind].sizes == 2 && !(surface->radius2 > 0.0))
            return step_bad(ctx->file, instance, "minor radius must be positive");
    }
    return step_horn_torus(ctx, surface);
}

static osc_vec3 step_surface_eval(const step_ctx* ctx, const osc_brep_surface* s, double u, double v) {
    if (s->type == OSC_SURFACE_NURBS) {
        double t[2] = {u, v};
        osc_vec3 p;
        osc_nurbs_eval(&ctx->face_nurbs, t, &p, NULL, NULL);
        return p;
    }
    osc_vec3 y = osc_cross(s->axis, s->ref);
    osc_vec3 e = osc_add(osc_scale(s->ref, cos(u)), osc_scale(y, sin(u)));
    switch (s->type) {
        case OSC_SURFACE_PLANE: return osc_add(s->origin, osc_add(osc_scale(s->ref, u), osc_scale(y, v)));
        case OSC_SURFACE_CYLINDER: return osc_add(s->origin, osc_add(osc_scale(e, s->radius), osc_scale(s->axis, v)));
        case OSC_SURFACE_CONE:
            return osc_add(s->origin,
                           osc_add(osc_scale(e, s->radius + v * sin(s->angle)), osc_scale(s->axis, v * cos(s->angle))));
        case OSC_SURFACE_SPHERE:
            return osc_add(s->origin,
                           osc_add(osc_scale(e, s->radius * cos(v)), osc_scale(s->axis, s->radius * sin(v))));
        case OSC_SURFACE_TORUS:
            return osc_add(s->origin, osc_add(osc_scale(e, s->radius + s->radius2 * cos(v)),
                                              osc_scale(s->axis, s->radius2 * sin(v))));
        case OSC_SURFACE_NURBS: break; // above
    }
    return s->origin;
}

// (u, v) of a point on the surface (brep.h parametrisations, u in (-pi, pi]); returns 0 where u is
// undefined (on the axis of a surface of revolution). On a torus with r >= R (the screw's head),
// the branch whose tube circle passes closer to the point is taken.
static int step_surface_uv(step_ctx* ctx, const osc_brep_surface* s, osc_vec3 x, double uv[2]) {
    if (s->type == OSC_SURFACE_NURBS) { // Newton's method from the last point found, else from seeds
        int evaluations = 0;
        int regular =
            osc_nurbs_project_counted(&ctx->face_nurbs, x, ctx->hint_valid ? ctx->hint : NULL, uv, &evaluations);
        ctx->work += evaluations * ctx->face_eval_cost;
        ctx->hint[0] = uv[0];
        ctx->hint[1] = uv[1];
        ctx->hint_valid = 1;
        return regular;
    }
    osc_vec3 d = osc_sub(x, s->origin);
    osc_vec3 y = osc_cross(s->axis, s->ref);
    double px = osc_dot(d, s->ref), py = osc_dot(d, y), h = osc_dot(d, s->axis);
    if (s->type == OSC_SURFACE_PLANE) {
        uv[0] = px;
        uv[1] = py;
        return 1;
    }
    double rho = hypot(px, py);
    // (at a cone's apex the local size vanishes: the solid's extent bounds it from below)
    double size = fmax(s->radius + s->radius2 + fabs(h) + rho, ctx->scale);
    int regular = rho > 1e-12 * size;
    uv[0] = regular ? atan2(py, px) : 0.0;
    switch (s->type) {
        case OSC_SURFACE_CYLINDER: uv[1] = h; break;
        case OSC_SURFACE_CONE: {
            double sa = sin(s->angle), ca = cos(s->angle);
            if (regular && fabs((-rho - s->radius) * ca - h * sa) < fabs((rho - s->radius) * ca - h * sa)) {
                uv[0] = atan2(-py, -px); // beyond the apex: R + v sin a < 0
                uv[1] = (-rho - s->radius) * sa + h * ca;
            } else {
                uv[1] = (rho - s->radius) * sa + h * ca;
            }
            break;
        }
        case OSC_SURFACE_SPHERE: uv[1] = atan2(h, rho); break;
        case OSC_SURFACE_TORUS: {
            double near = fabs(hypot(rho - s->radius, h) - s->radius2);
            double far = fabs(hypot(rho + s->radius, h) - s->radius2);
            if (far < near && regular) { // the point is on the tube circle at u + pi
                uv[0] = atan2(-py, -px);
                uv[1] = atan2(h, -rho - s->radius);
            } else {
                uv[1] = atan2(h, rho - s->radius);
            }
            break;
        }
        default: break;
    }
    return regular;
}

// 1 when x is on the branch of the surface where the radius factor (R + v sin a on a cone, R + r
// cos v on a torus) is negative: there the normal of ISO 10303-42 (S_u x S_v) is opposite to the
// natural normal of brep.h
static int step_negative_branch(step_ctx* ctx, const osc_brep_surface* s, osc_vec3 x) {
    double uv[2];
    if (s->type != OSC_SURFACE_CONE && s->type != OSC_SURFACE_TORUS) return 0;
    step_surface_uv(ctx, s, x, uv);
    double factor =
        s->type == OSC_SURFACE_CONE ? s->radius + uv[1] * sin(s->angle) : s->radius + s->radius2 * cos(uv[1]);
    return factor < 0.0;
}

// the period of parameter k (0: u, 1: v) of the surface, 0 when it is not periodic: 2 pi for the
// angles of surfaces of revolution, the parameter range of a closed B-spline surface
static double step_period(const step_ctx* ctx, const osc_brep_surface* s, int k) {
    if (s->type == OSC_SURFACE_NURBS)
        return ctx->face_nurbs.closed[k] ? ctx->face_nurbs.hi[k] - ctx->face_nurbs.lo[k] : 0.0;
    if (k == 0) return s->type != OSC_SURFACE_PLANE ? STEP_TWO_PI : 0.0;
    return s->type == OSC_SURFACE_TORUS ? STEP_TWO_PI : 0.0;
}

// ---- curves (ISO 10303-42 §4.4.10 - §4.4.20) ---------------------------------------------------

static osc_vec3 step_curve_eval(const step_curve* c, double t) {
    switch (c->kind) {
        case CURVE_LINE: return osc_add(c->o, osc_scale(c->z, t));
        case CURVE_CIRCLE:
        case CURVE_ELLIPSE:
            return osc_add(c->o, osc_add(osc_scale(c->x, c->a * cos(t)), osc_scale(c->y, c->b * sin(t))));
        case CURVE_PARABOLA:
            return osc_add(c->o, osc_scale(osc_add(osc_scale(c->x, t * t), osc_scale(c->y, 2.0 * t)), c->a));
        case CURVE_HYPERBOLA:
            return osc_add(c->o, osc_add(osc_scale(c->x, c->a * cosh(t)), osc_scale(c->y, c->b * sinh(t))));
        case CURVE_BSPLINE: break;
    }
    // de Boor on homogeneous poles
    int p = c->degree, n = c->count;
    const double* U = c->knots;
    if (t < U[p]) t = U[p];
    if (t > U[n]) t = U[n];
    int k = p;
    while (k < n - 1 && !(t < U[k + 1])) ++k;
    while (k > p && !(U[k] < U[k + 1])) --k;
    double d[STEP_MAX_DEGREE + 1][4];
    for (int j = 0; j <= p; ++j) memcpy(d[j], c->poles + 4 * (j + k - p), sizeof d[j]);
    for (int r = 1; r <= p; ++r)
        for (int j = p; j >= r; --j) {
            double lo = U[j + k - p], hi = U[j + 1 + k - r];
            double alpha = hi > lo ? (t - lo) / (hi - lo) : 0.0;
            for (int m = 0; m < 4; ++m) d[j][m] = (1.0 - alpha) * d[j - 1][m] + alpha * d[j][m];
        }
    double w = d[p][3];
    if (!(fabs(w) > 1e-300)) w = 1e-300;
    return osc_v3(d[p][0] / w, d[p][1] / w, d[p][2] / w);
}

static double step_curve_lo(const step_curve* c) { return c->kind == CURVE_BSPLINE ? c->knots[c->degree] : -STEP_PI; }

static double step_curve_hi(const step_curve* c) { return c->kind == CURVE_BSPLINE ? c->knots[c->count] : STEP_PI; }

// the parameter of the curve point nearest `x` (exact for conics, sampled then refined for B-splines)
static double step_curve_param(const step_curve* c, osc_vec3 x) {
    osc_vec3 d = osc_sub(x, c->o);
    if (c->kind == CURVE_LINE) return osc_dot(d, c->z);
    if (c->kind == CURVE_PARABOLA) return osc_dot(d, c->y) / (2.0 * c->a);
    if (c->kind == CURVE_HYPERBOLA) return asinh(osc_dot(d, c->y) / c->b);
    if (c->kind != CURVE_BSPLINE) return atan2(osc_dot(d, c->y) / c->b, osc_dot(d, c->x) / c->a);
    double lo = step_curve_lo(c), hi = step_curve_hi(c);
    int samples = c->count * 16 < 4096 ? c->count * 16 : 4096;
    double best = lo, best_distance = INFINITY;
    for (int i = 0; i <= samples; ++i) {
        double t = lo + (hi - lo) * i / samples;
        double distance = osc_length_squared(osc_sub(step_curve_eval(c, t), x));
        if (distance < best_distance) {
            best_distance = distance;
            best = t;
        }
    }
    double a = best - (hi - lo) / samples, b = best + (hi - lo) / samples;
    if (a < lo) a = lo;
    if (b > hi) b = hi;
    for (int it = 0; it < 80; ++it) { // golden section
        double m1 = a + 0.381966011250105 * (b - a), m2 = a + 0.618033988749895 * (b - a);
        if (osc_length_squared(osc_sub(step_curve_eval(c, m1), x)) <
            osc_length_squared(osc_sub(step_curve_eval(c, m2), x)))
            b = m2;
        else
            a = m1;
    }
    return 0.5 * (a + b);
}

// B_SPLINE_CURVE_WITH_KNOTS, simple or complex with RATIONAL_B_SPLINE_CURVE (ISO 10303-42 §4.4.13)
static osc_status step_bspline(step_ctx* ctx, int instance, step_curve* curve) {
    const step_file* file = ctx->file;
    int base, knotted, offset = 0;
    if (!file->instances[instance].complex) {
        base = knotted = step_args(ctx->file, instance, "B_SPLINE_CURVE_WITH_KNOTS");
        offset = 1; // the simple form starts with the name
    } else {
        base = step_part(file, instance, "B_SPLINE_CURVE");
        knotted = step_part(file, instance, "B_SPLINE_CURVE_WITH_KNOTS");
    }
    if (base < 0 || knotted < 0) return step_unsupported(ctx, instance, "unsupported B-spline form");
    int rational = step_part(file, instance, "RATIONAL_B_SPLINE_CURVE");
    double degree_value;
    osc_status status = step_real(ctx->file, instance, base, offset, &degree_value);
    if (status != OSC_OK) return status;
    if (!(degree_value >= 1 && degree_value <= STEP_MAX_DEGREE) || degree_value != floor(degree_value))
        return step_bad(ctx->file, instance, "B-spline degree out of [1, 25]");
    int degree = (int)degree_value, pole_first = -1, pole_count = 0, mult_first = -1, mult_count = 0, knot_first = -1,
        knot_count = 0;
    int knot_offset = file->instances[instance].complex ? 0 : 6;
    if ((status = step_list_arg(ctx->file, instance, base, offset + 1, &pole_first, &pole_count)) != OSC_OK ||
        (status = step_list_arg(ctx->file, instance, knotted, knot_offset, &mult_first, &mult_count)) != OSC_OK ||
        (status = step_list_arg(ctx->file, instance, knotted, knot_offset + 1, &knot_first, &knot_count)) != OSC_OK)
        return status;
    if (pole_count < degree + 1 || pole_count > STEP_MAX_POLES || mult_count != knot_count || knot_count < 2)
        return step_bad(ctx->file, instance, "inconsistent B-spline sizes");
    long long total = 0;
    for (int node = mult_first; node >= 0; node = file->nodes[node].next) {
        double m = file->nodes[node].real;
        if (file->nodes[node].kind != STEP_INTEGER || m < 1 || m > degree + 1)
            return step_bad(ctx->file, instance, "bad knot multiplicity");
        total += (long long)m;
    }
    if (total != (long long)pole_count + degree + 1)
        return step_bad(ctx->file, instance, "knot multiplicities do not add up to poles + degree + 1");
    int weight_first = -1, weight_count = 0;
    if (rational >= 0 &&
        (status = step_list_arg(ctx->file, instance, rational, 0, &weight_first, &weight_count)) != OSC_OK)
        return status;
    if (rational >= 0 && weight_count != pole_count)
        return step_bad(ctx->file, instance, "weights do not match the poles");
    curve->kind = CURVE_BSPLINE;
    curve->degree = degree;
    curve->count = pole_count;
    curve->poles = osc_calloc((size_t)pole_count, 4 * sizeof(double));
    curve->knots = osc_calloc((size_t)total, sizeof(double));
    if (!curve->poles || !curve->knots) return OSC_ERR_NO_MEMORY;
    int node = pole_first, weight = weight_first;
    for (int i = 0; i < pole_count; ++i, node = file->nodes[node].next) {
        int point;
        osc_vec3 x;
        if ((status = step_ref_node(ctx->file, instance, node, &point)) != OSC_OK ||
            (status = step_point(ctx->file, point, &x)) != OSC_OK)
            return status;
        double w = 1.0;
        if (weight >= 0) {
            if (file->nodes[weight].kind != STEP_REAL && file->nodes[weight].kind != STEP_INTEGER)
                return step_bad(ctx->file, instance, "bad weight");
            w = file->nodes[weight].real;
            weight = file->nodes[weight].next;
            if (!(w > 0.0)) return step_bad(ctx->file, instance, "weights must be positive");
        }
        double* pole = curve->poles + 4 * i;
        pole[0] = w * x.x;
        pole[1] = w * x.y;
        pole[2] = w * x.z;
        pole[3] = w;
    }
    int at = 0, mult = mult_first;
    for (node = knot_first; node >= 0; node = file->nodes[node].next, mult = file->nodes[mult].next) {
        if (file->nodes[node].kind != STEP_REAL && file->nodes[node].kind != STEP_INTEGER)
            return step_bad(ctx->file, instance, "bad knot");
        double value = file->nodes[node].real;
        if (at > 0 && value < curve->knots[at - 1]) return step_bad(ctx->file, instance, "knots decrease");
        for (int m = 0; m < (int)file->nodes[mult].real; ++m) curve->knots[at++] = value;
    }
    if (!(curve->knots[pole_count] > curve->knots[degree])) return step_bad(ctx->file, instance, "empty knot range");
    return OSC_OK;
}

// Inserts knot u into curve c once (Boehm 1980; Piegl and Tiller 1997, A5.1), on homogeneous poles;
// `poles` has room for one more pole and `knots` for one more knot.
static void step_insert_knot(step_curve* c, double u) {
    int p = c->degree, n = c->count, k = p, s = 0;
    double* U = c->knots;
    while (k < n - 1 && !(u < U[k + 1])) ++k;
    for (int i = k; i >= 0 && U[i] == u; --i) ++s;
    double* P = c->poles;
    for (int i = n; i > k - s; --i) memcpy(P + 4 * i, P + 4 * (i - 1), 4 * sizeof(double)); // shift up
    for (int i = k - s; i >= k - p + 1; --i) {
        double a = (u - U[i]) / (U[i + p] - U[i]);
        for (int m = 0; m < 4; ++m) P[4 * i + m] = a * P[4 * i + m] + (1.0 - a) * P[4 * (i - 1) + m];
    }
    for (int i = n + p + 1; i > k + 1; --i) U[i] = U[i - 1];
    U[k + 1] = u;
    c->count = n + 1;
}

// Makes c clamped (its end knots of multiplicity p + 1) without changing it on [U_p, U_n]: each
// end knot inserted until its multiplicity is p, then the poles and knots outside dropped. Its new
// arrays have room for `extra` more poles and knots.
static osc_status step_clamp(step_curve* c, int extra) {
    int p = c->degree, n = c->count;
    double lo = c->knots[p], hi = c->knots[n];
    double* poles = osc_calloc((size_t)n + 2 * (size_t)p + (size_t)extra, 4 * sizeof(double));
    double* knots = osc_calloc((size_t)n + 3 * (size_t)p + 1 + (size_t)extra, sizeof(double));
    if (!poles || !knots) {
        osc_free(poles);
        osc_free(knots);
        return OSC_ERR_NO_MEMORY;
    }
    memcpy(poles, c->poles, (size_t)n * 4 * sizeof(double));
    memcpy(knots, c->knots, ((size_t)n + (size_t)p + 1) * sizeof(double));
    osc_free(c->poles);
    osc_free(c->knots);
    c->poles = poles;
    c->knots = knots;
    for (int end = 0; end < 2; ++end) {
        double u = end ? hi : lo;
        for (;;) {
            int s = 0;
            for (int i = 0; i < c->count + p + 1; ++i) s += c->knots[i] == u;
            if (s >= p) break;
            step_insert_knot(c, u);
        }
    }
    // C(lo) is the pole p below the last knot lo, C(hi) the pole just below the first knot hi
    int total = c->count + p + 1, last_lo = total - 1, first_hi = 0;
    while (last_lo > 0 && c->knots[last_lo] > lo) --last_lo;
    while (first_hi < total - 1 && c->knots[first_hi] < hi) ++first_hi;
    int first = last_lo - p, count = first_hi - first;
    if (first < 0 || count < p + 1) { // cannot happen on a valid knot vector
        c->count = 0;
        return OSC_OK;
    }
    memmove(c->poles, c->poles + 4 * first, (size_t)count * 4 * sizeof(double));
    memmove(c->knots, c->knots + first, ((size_t)count + (size_t)p + 1) * sizeof(double));
    c->count = count;
    c->knots[0] = lo;
    c->knots[count + p] = hi;
    return OSC_OK;
}

// A closed B-spline curve (clamped, its first and last poles the same point) followed by a second
// turn of itself, so that an edge crossing its seam runs over one parameter interval: the poles
// P0..Pn-1, P1..Pn-1 (the second turn's homogeneous poles scaled so that its first is the first
// turn's last: a NURBS curve does not change when all its weights are scaled), the knots of the
// first turn with its end knot repeated p times (a C0 joint) and those of the second turn moved by
// the period. An unclamped curve (the periodic form, closed_curve .T.) is clamped first. Leaves
// the curve with its count set to 0 when its ends are further apart than the file's uncertainty
// (the caller reports it); fails only on memory.
static osc_status step_unroll_closed(step_ctx* ctx, step_curve* c) {
    osc_status status = step_clamp(c, 0);
    if (status != OSC_OK) return status;
    int p = c->degree, n = c->count;
    if (n == 0) return OSC_OK;
    const double* U = c->knots;
    const double *first = c->poles, *last = c->poles + 4 * (n - 1);
    osc_vec3 a = osc_scale(osc_v3(first[0], first[1], first[2]), 1.0 / first[3]);
    osc_vec3 b = osc_scale(osc_v3(last[0], last[1], last[2]), 1.0 / last[3]);
    if (osc_length(osc_sub(a, b)) > fmax(1e-9 * ctx->scale, ctx->uncertainty) || 2 * (size_t)n > STEP_MAX_POLES) {
        c->count = 0;
        return OSC_OK;
    }
    double period = U[n] - U[p], scale = last[3] / first[3];
    int count = 2 * n - 1;
    double* poles = osc_calloc((size_t)count, 4 * sizeof(double));
    double* knots = osc_calloc((size_t)count + (size_t)p + 1, sizeof(double));
    if (!poles || !knots) {
        osc_free(poles);
        osc_free(knots);
        return OSC_ERR_NO_MEMORY;
    }
    memcpy(poles, c->poles, (size_t)n * 4 * sizeof(double));
    for (int i = 1; i < n; ++i)
        for (int m = 0; m < 4; ++m) poles[4 * (n - 1 + i) + m] = scale * c->poles[4 * i + m];
    int at = 0;
    for (int k = 0; k < n; ++k) knots[at++] = U[k]; // the first turn up to its end knot, once
    for (int k = 0; k < p; ++k) knots[at++] = U[n]; // the joint: multiplicity p
    for (int k = p + 1; k <= n + p; ++k) knots[at++] = U[k] + period;
    osc_free(c->poles);
    osc_free(c->knots);
    c->poles = poles;
    c->knots = knots;
    c->count = count;
    return OSC_OK;
}

// the 3D curve of an edge: LINE, CIRCLE, ELLIPSE, B-spline, through at most three wrappers
// (SURFACE_CURVE, SEAM_CURVE: curve_3d; TRIMMED_CURVE: basis_curve, its trims ignored since the
// edge's vertices bound it)
static osc_status step_read_curve(step_ctx* ctx, int instance, step_curve* curve) {
    osc_status status;
    for (int depth = 0; depth < 3; ++depth) {
        int args = step_args(ctx->file, instance, "SURFACE_CURVE");
        if (args < 0) args = step_args(ctx->file, instance, "SEAM_CURVE");
        if (args < 0) args = step_args(ctx->file, instance, "TRIMMED_CURVE");
        if (args < 0) break;
        if ((status = step_ref(ctx->file, instance, args, 1, &instance)) != OSC_OK) return status;
    }
    memset(curve, 0, sizeof *curve);
    curve->instance = instance;
    int args, target;
    osc_vec3 y;
    if ((args = step_args(ctx->file, instance, "LINE")) >= 0) {
        curve->kind = CURVE_LINE;
        if ((status = step_ref(ctx->file, instance, args, 1, &target)) != OSC_OK ||
            (status = step_point(ctx->file, target, &curve->o)) != OSC_OK ||
            (status = step_ref(ctx->file, instance, args, 2, &target)) != OSC_OK)
            return status;
        int vector = step_args(ctx->file, target, "VECTOR");
        if (vector < 0) return step_bad(ctx->file, target, "a VECTOR was expected");
        if ((status = step_ref(ctx->file, target, vector, 1, &target)) != OSC_OK) return status;
        return step_direction(ctx->file, target, &curve->z);
    }
    // the conics: a placement, then one size (circle, parabola's focal distance) or two
    static const struct {
        const char* entity;
        int kind, sizes;
        const char* bad_size;
    } conics[] = {{"CIRCLE", CURVE_CIRCLE, 1, "radius must be positive"},
                  {"ELLIPSE", CURVE_ELLIPSE, 2, "radius must be positive"},
                  {"PARABOLA", CURVE_PARABOLA, 1, "a conic's sizes must be positive"},
                  {"HYPERBOLA", CURVE_HYPERBOLA, 2, "a conic's sizes must be positive"}};
    for (size_t k = 0; k < sizeof conics / sizeof conics[0]; ++k) {
        if ((args = step_args(ctx->file, instance, conics[k].entity)) < 0) continue;
        curve->kind = conics[k].kind;
        if ((status = step_ref(ctx->file, instance, args, 1, &target)) != OSC_OK ||
            (status = step_placement(ctx->file, target, &curve->o, &curve->x, &y, &curve->z)) != OSC_OK ||
            (status = step_real(ctx->file, instance, args, 2, &curve->a)) != OSC_OK)
            return status;
        curve->y = y;
        curve->b = curve->a;
        if (conics[k].sizes == 2 && (status = step_real(ctx->file, instance, args, 3, &curve->b)) != OSC_OK)
            return status;
        if (!(curve->a > 0.0) || !(curve->b > 0.0)) return step_bad(ctx->file, instance, conics[k].bad_size);
        return OSC_OK;
    }
    if (step_args(ctx->file, instance, "B_SPLINE_CURVE_WITH_KNOTS") >= 0 ||
        (ctx->file->instances[instance].complex && step_part(ctx->file, instance, "B_SPLINE_CURVE_WITH_KNOTS") >= 0))
        return step_bspline(ctx, instance, curve);
    return step_unsupported(ctx, instance, "edge curve that cannot be sampled");
}

static double step_mod_two_pi(double angle) {
    double r = fmod(angle, STEP_TWO_PI);
    return r < 0.0 ? r + STEP_TWO_PI : r;
}

// ---- edges ------------------------------------------------------------------------------------

static osc_status step_vertex(const step_ctx* ctx, int instance, osc_vec3* point) {
    int args = step_args(ctx->file, instance, "VERTEX_POINT"), target;
    if (args < 0) return step_bad(ctx->file, instance, "a VERTEX_POINT was expected");
    osc_status status = step_ref(ctx->file, instance, args, 1, &target);
    return status == OSC_OK ? step_point(ctx->file, target, point) : status;
}

// the record of EDGE_CURVE `instance`, read on first use
static osc_status step_edge_get(step_ctx* ctx, int instance, int* index) {
    if (ctx->edge_serial[instance] == ctx->serial) {
        *index = ctx->edge_of[instance];
        return OSC_OK;
    }
    int args = step_args(ctx->file, instance, "EDGE_CURVE"), geometry = -1, same_sense = 0;
    if (args < 0) return step_unsupported(ctx, instance, "an ORIENTED_EDGE's element is not an EDGE_CURVE");
    osc_status status = STEP_GROW(ctx, edges, edge_count, edge_capacity, ctx->edge_count + 1);
    if (status != OSC_OK) return status;
    step_edge* e = &ctx->edges[ctx->edge_count];
    memset(e, 0, sizeof *e);
    e->instance = instance;
    if ((status = step_ref(ctx->file, instance, args, 1, &e->vertex[0])) != OSC_OK ||
        (status = step_ref(ctx->file, instance, args, 2, &e->vertex[1])) != OSC_OK ||
        (status = step_vertex(ctx, e->vertex[0], &e->point[0])) != OSC_OK ||
        (status = step_vertex(ctx, e->vertex[1], &e->point[1])) != OSC_OK ||
        (status = step_ref(ctx->file, instance, args, 3, &geometry)) != OSC_OK ||
        (status = step_bool(ctx->file, instance, args, 4, &same_sense)) != OSC_OK)
        return status;
    ++ctx->edge_count; // owns the curve's arrays from here on
    if ((status = step_read_curve(ctx, geometry, &e->curve)) != OSC_OK) return status;
    const step_curve* c = &e->curve;
    double tolerance = 1e-9 * ctx->scale;
    e->closed = e->vertex[0] == e->vertex[1] || osc_length(osc_sub(e->point[0], e->point[1])) <= tolerance;
    e->supported = 1; // lines and circles as such, other curves as B-splines
    double sense = same_sense ? 1.0 : -1.0;
    e->t[0] = step_curve_param(c, e->point[0]);
    e->t[1] = step_curve_param(c, e->point[1]);
    if (c->kind == CURVE_LINE) {
        if (!(fabs(e->t[1] - e->t[0]) > tolerance)) return step_bad(ctx->file, instance, "a line edge of zero length");
    } else if (c->kind == CURVE_PARABOLA || c->kind == CURVE_HYPERBOLA) {
        if (!(fabs(e->t[1] - e->t[0]) > 1e-12)) return step_bad(ctx->file, instance, "a conic edge of zero length");
    } else if (c->kind == CURVE_BSPLINE) {
        if (e->closed && fabs(e->t[1] - e->t[0]) < 1e-9 * (step_curve_hi(c) - step_curve_lo(c))) {
            e->t[0] = sense > 0 ? step_curve_lo(c) : step_curve_hi(c);
            e->t[1] = sense > 0 ? step_curve_hi(c) : step_curve_lo(c);
        } else if ((e->t[1] - e->t[0]) * sense < 0.0) {
            double period = step_curve_hi(c) - step_curve_lo(c);
            if ((status = step_unroll_closed(ctx, &e->curve)) != OSC_OK) return status;
            if (!e->curve.knots || e->curve.count == 0)
                return step_unsupported(ctx, instance,
                                        "an edge crossing the seam of an unclamped closed B-spline curve");
            e->t[sense > 0 ? 1 : 0] += period; // across the seam into the curve's second turn
        }
    } else { // a conic: from the start in the curve's sense (same_sense) to the end
        double sweep = step_mod_two_pi(sense * (e->t[1] - e->t[0]));
        if (e->closed && (sweep < 1e-9 || sweep > STEP_TWO_PI - 1e-9)) sweep = STEP_TWO_PI;
        if (!(sweep > 1e-12)) return step_bad(ctx->file, instance, "an arc edge of zero length");
        e->t[1] = e->t[0] + sense * sweep;
    }
    for (int k = 0; k < 2; ++k) // the vertices must lie on the curve (a file that lies fails here)
        if (osc_length(osc_sub(step_curve_eval(c, e->t[k]), e->point[k])) >
            fmax(1e-4 * ctx->scale, STEP_GAP_FACTOR * ctx->uncertainty))
            return step_bad(ctx->file, instance, "a vertex is not on the edge's curve");
    ctx->edge_of[instance] = ctx->edge_count - 1;
    ctx->edge_serial[instance] = ctx->serial;
    *index = ctx->edge_count - 1;
    return OSC_OK;
}

// ---- trims ------------------------------------------------------------------------------------

static osc_status step_emit(step_ctx* ctx, const osc_brep_trim* trim) {
    osc_status status = STEP_GROW(ctx, trims, trim_count, trim_capacity, ctx->trim_count + 1);
    if (status != OSC_OK) return status;
    ctx->trims[ctx->trim_count++] = *trim;
    return OSC_OK;
}

static osc_status step_emit_line(step_ctx* ctx, const double a[2], const double b[2]) {
    osc_brep_trim trim;
    memset(&trim, 0, sizeof trim);
    trim.kind = OSC_TRIM_LINE;
    trim.start[0] = a[0];
    trim.start[1] = a[1];
    trim.end[0] = b[0];
    trim.end[1] = b[1];
    return step_emit(ctx, &trim);
}

static osc_status step_add_sample(step_ctx* ctx, double t, const double uv[2], int regular) {
    osc_status status = STEP_GROW(ctx, samples, sample_count, sample_capacity, 4 * (ctx->sample_count + 1));
    if (status != OSC_OK) return status;
    double* s = ctx->samples + 4 * ctx->sample_count++;
    s[0] = t;
    s[1] = uv[0];
    s[2] = uv[1];
    s[3] = regular;
    return OSC_OK;
}

static double step_unwrap(double value, double reference, double period) {
    return period > 0.0 ? value + period * floor((reference - value) / period + 0.5) : value;
}

// unwraps the periodic coordinates of the samples continuously from `reference` and gives the
// samples where u is undefined the u of their nearest defined neighbour
static void step_unwrap_samples(step_ctx* ctx, const osc_brep_surface* s, const double reference[2]) {
    double* x = ctx->samples;
    int n = ctx->sample_count, first = -1;
    double previous[2] = {reference[0], reference[1]};
    for (int i = 0; i < n; ++i) {
        double* p = x + 4 * i;
        previous[1] = p[2] = step_unwrap(p[2], previous[1], step_period(ctx, s, 1));
        if (!p[3]) continue;
        p[1] = step_unwrap(p[1], previous[0], step_period(ctx, s, 0));
        previous[0] = p[1];
        if (first < 0) first = i;
    }
    double u = first >= 0 ? x[4 * first + 1] : reference[0];
    for (int i = 0; i < n; ++i) {
        if (x[4 * i + 3])
            u = x[4 * i + 1];
        else
            x[4 * i + 1] = u;
    }
}

// the distance between the surface images of the midpoint of samples i, i + 1 and of the curve's
// midpoint (projected on the surface first: approximate intersection curves leave it a little)
static double step_midpoint_error(step_ctx* ctx, const osc_brep_surface* s, const step_curve* c, int i) {
    const double* a = ctx->samples + 4 * i;
    const double* b = a + 4;
    osc_vec3 on_surface = step_surface_eval(ctx, s, 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2]));
    double uv[2];
    ctx->hint[0] = a[1];
    ctx->hint[1] = a[2];
    step_surface_uv(ctx, s, step_curve_eval(c, 0.5 * (a[0] + b[0])), uv);
    return osc_length(osc_sub(on_surface, step_surface_eval(ctx, s, uv[0], uv[1])));
}

// samples the traversal of edge `e` from parameter ta (at point pa) to tb (pb) onto surface `s`,
// refining until the polyline is within tolerance; leaves the samples in ctx->samples
static osc_status step_sample_edge(step_ctx* ctx, const osc_brep_surface* s, const step_edge* e, double ta, double tb,
                                   osc_vec3 pa, osc_vec3 pb, const double reference[2], int refine) {
    const step_curve* c = &e->curve;
    int segments = 16;
    if (c->kind == CURVE_CIRCLE || c->kind == CURVE_ELLIPSE) segments = 8 + (int)ceil(fabs(tb - ta) / (STEP_PI / 16));
    if (c->kind == CURVE_BSPLINE) segments = 4 * (c->count - c->degree) + 16;
    if (segments > 1024) segments = 1024;
    ctx->sample_count = 0;
    osc_status status;
    for (int i = 0; i <= segments; ++i) {
        double t = ta + (tb - ta) * i / segments;
        osc_vec3 x = i == 0 ? pa : i == segments ? pb : step_curve_eval(c, t);
        double uv[2];
        int regular = step_surface_uv(ctx, s, x, uv);
        if ((status = step_add_sample(ctx, t, uv, regular)) != OSC_OK || (status = step_check_work(ctx, e)) != OSC_OK)
            return status;
    }
    step_unwrap_samples(ctx, s, reference);
    if (!refine) return OSC_OK;
    osc_vec3 lo = pa, hi = pa;
    for (int i = 0; i <= segments; ++i) {
        osc_vec3 x = step_curve_eval(c, ctx->samples[4 * i]);
        lo = osc_v3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
        hi = osc_v3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
    }
    double tolerance = STEP_TRIM_TOLERANCE * fmax(osc_length(osc_sub(hi, lo)), 1e-12 * ctx->scale);
    // a piece found within tolerance is not measured again: its error depends only on its two
    // samples (each measurement starts its projection from the piece's first sample)
    if ((status = STEP_GROW(ctx, piece_fine, sample_count, piece_capacity, (size_t)ctx->sample_count)) != OSC_OK)
        return status;
    memset(ctx->piece_fine, 0, (size_t)ctx->sample_count);
    for (int pass = 0; pass < 16; ++pass) { // split every piece whose midpoint is off
        int n = ctx->sample_count, added = 0;
        for (int i = n - 2; i >= 0; --i) {
            if (ctx->sample_count + 1 > STEP_MAX_SAMPLES) break;
            if (ctx->piece_fine[i]) continue;
            double error = step_midpoint_error(ctx, s, c, i);
            if ((status = step_check_work(ctx, e)) != OSC_OK) return status;
            if (error <= tolerance) {
                ctx->piece_fine[i] = 1;
                continue;
            }
            if ((status = STEP_GROW(ctx, samples, sample_count, sample_capacity, 4 * (ctx->sample_count + 1))) !=
                    OSC_OK ||
                (status = STEP_GROW(ctx, piece_fine, sample_count, piece_capacity, (size_t)ctx->sample_count)) !=
                    OSC_OK)
                return status;
            double* a = ctx->samples + 4 * i;
            memmove(a + 8, a + 4, (size_t)(ctx->sample_count - i - 1) * 4 * sizeof(double));
            memmove(ctx->piece_fine + i + 1, ctx->piece_fine + i, (size_t)(ctx->sample_count - i - 1));
            ctx->piece_fine[i] = ctx->piece_fine[i + 1] = 0;
            ++ctx->sample_count;
            double t = 0.5 * (a[0] + a[8]), uv[2];
            ctx->hint[0] = a[1];
            ctx->hint[1] = a[2];
            int regular = step_surface_uv(ctx, s, step_curve_eval(c, t), uv);
            uv[0] = regular ? step_unwrap(uv[0], a[1], step_period(ctx, s, 0)) : a[1];
            uv[1] = step_unwrap(uv[1], a[2], step_period(ctx, s, 1));
            a[4] = t;
            a[5] = uv[0];
            a[6] = uv[1];
            a[7] = 1;
            ++added;
        }
        if (!added) break;
    }
    return OSC_OK;
}

// 1 when coordinate `k` of the samples is constant and the other one monotone: the traversal is a
// straight line in (u, v)
static int step_samples_iso(const step_ctx* ctx, int k, double tolerance) {
    const double* x = ctx->samples;
    int n = ctx->sample_count, other = 3 - k;
    double direction = x[4 * (n - 1) + other] - x[other];
    for (int i = 1; i < n; ++i) {
        if (fabs(x[4 * i + k] - x[k]) > tolerance) return 0;
        if ((x[4 * i + other] - x[4 * (i - 1) + other]) * direction < -tolerance) return 0;
    }
    return 1;
}

static osc_status step_record_pass(step_ctx* ctx, int edge, const double first[2], const double last[2]) {
    osc_status status = STEP_GROW(ctx, passes, pass_count, pass_capacity, ctx->pass_count + 1);
    if (status != OSC_OK) return status;
    step_pass* pass = &ctx->passes[ctx->pass_count++];
    pass->edge = edge;
    pass->uv[0] = first[0];
    pass->uv[1] = first[1];
    pass->uv[2] = last[0];
    pass->uv[3] = last[1];
    return OSC_OK;
}

// per-loop state: the last uv reached, and where the loop started
typedef struct step_loop_state {
    double last[2], first[2];
    int started;
    double reference[2];
    int seam_shifts;         // second passes of seam edges moved by a period in this loop
    int seam_coordinate;     // of the last one: the coordinate moved (0 u, 1 v),
    double seam_shift;       // by how much,
    int seam_trim, seam_end; // its first trim and its pass,
    int seam_join;           // 1 when a join ends at its first trim
} step_loop_state;

// joins `from` to `to` with a straight piece when they differ: allowed where both map to the same
// point of a surface's degenerate line (a pole, a cone's apex) or within rounding
static osc_status step_join(step_ctx* ctx, const osc_brep_surface* s, int face, const double from[2],
                            const double to[2]) {
    double du = fabs(from[0] - to[0]), dv = fabs(from[1] - to[1]);
    if (du <= 1e-9 * (1.0 + fabs(from[0])) && dv <= 1e-9 * (1.0 + fabs(from[1]))) return OSC_OK;
    osc_vec3 a = step_surface_eval(ctx, s, from[0], from[1]), b = step_surface_eval(ctx, s, to[0], to[1]);
    double uv[2];
    ctx->hint[0] = from[0];
    ctx->hint[1] = from[1];
    int regular = step_surface_uv(ctx, s, a, uv);
    double gap = fmax(1e-6 * ctx->scale, STEP_GAP_FACTOR * ctx->uncertainty);
    if (osc_length(osc_sub(a, b)) > gap)
        return step_bad(ctx->file, face, "a loop's edges do not meet in the face's parameters");
    if (regular && s->type != OSC_SURFACE_NURBS && s->type != OSC_SURFACE_PLANE) {
        // a vertex written within the file's gaps of a pole or an apex (USB_Micro-B_Molex_47346-0001
        // of KiCad's library: a sphere's pole 5e-9 mm off its axis) is on the degenerate line
        osc_vec3 d = osc_sub(a, s->origin);
        regular = osc_length(osc_sub(d, osc_scale(s->axis, osc_dot(d, s->axis)))) > gap;
    }
    double big_u = s->type == OSC_SURFACE_NURBS ? 0.25 * (ctx->face_nurbs.hi[0] - ctx->face_nurbs.lo[0]) : 1.0;
    double big_v = s->type == OSC_SURFACE_NURBS ? 0.25 * (ctx->face_nurbs.hi[1] - ctx->face_nurbs.lo[1]) : 1.0;
    if (regular && (du > big_u || dv > big_v))
        return step_unsupported(ctx, face, "a loop wraps around its surface without a seam edge");
    return step_emit_line(ctx, from, to);
}

// the trims of one traversal of edge `index` (forward: from its start vertex to its end)
static osc_status step_trace(step_ctx* ctx, const osc_brep_surface* s, int face, int index, int forward,
                             step_loop_state* state) {
    const step_edge* e = &ctx->edges[index];
    const step_curve* c = &e->curve;
    double ta = e->t[forward ? 0 : 1], tb = e->t[forward ? 1 : 0];
    osc_vec3 pa = e->point[forward ? 0 : 1], pb = e->point[forward ? 1 : 0];
    const double* reference = state->started ? state->last : state->reference;
    osc_status status;
    ctx->tracing_face = face;
    ctx->hint[0] = state->last[0]; // projections continue from the loop's last point
    ctx->hint[1] = state->last[1];
    ctx->hint_valid = state->started;
    double a[2], b[2];
    if (s->type == OSC_SURFACE_PLANE && c->kind == CURVE_LINE) { // exact
        step_surface_uv(ctx, s, pa, a);
        step_surface_uv(ctx, s, pb, b);
        ctx->sample_count = 0;
        if ((status = step_add_sample(ctx, ta, a, 1)) != OSC_OK || (status = step_add_sample(ctx, tb, b, 1)) != OSC_OK)
            return status;
    } else if (s->type == OSC_SURFACE_PLANE && c->kind == CURVE_CIRCLE && fabs(osc_dot(c->z, s->axis)) > 1.0 - 1e-12 &&
               fabs(osc_dot(osc_sub(c->o, s->origin), s->axis)) <= 1e-9 * ctx->scale) {
        // a circle in the plane: an exact arc, turning with the sign of its axis on the normal
        double center[2];
        step_surface_uv(ctx, s, c->o, center);
        step_surface_uv(ctx, s, pa, a);
        step_surface_uv(ctx, s, pb, b);
        osc_brep_trim trim;
        memset(&trim, 0, sizeof trim);
        trim.kind = OSC_TRIM_ARC;
        trim.center[0] = center[0];
        trim.center[1] = center[1];
        trim.radius = c->a;
        trim.angle0 = atan2(a[1] - center[1], a[0] - center[0]);
        trim.sweep = (osc_dot(c->z, s->axis) > 0.0 ? 1.0 : -1.0) * (tb - ta);
        trim.start[0] = a[0];
        trim.start[1] = a[1];
        trim.end[0] = b[0];
        trim.end[1] = b[1];
        if ((status = step_record_pass(ctx, index, a, b)) != OSC_OK) return status;
        if (state->started && (status = step_join(ctx, s, face, state->last, a)) != OSC_OK) return status;
        if (!state->started) {
            state->first[0] = a[0];
            state->first[1] = a[1];
            state->started = 1;
        }
        state->last[0] = b[0];
        state->last[1] = b[1];
        return step_emit(ctx, &trim);
    } else {
        if ((status = step_sample_edge(ctx, s, e, ta, tb, pa, pb, reference, 0)) != OSC_OK) return status;
        double tolerance = 1e-9 * (1.0 + ctx->scale);
        if (!step_samples_iso(ctx, 1, 1e-9) &&
            !step_samples_iso(ctx, 2,
                              s->type == OSC_SURFACE_CYLINDER || s->type == OSC_SURFACE_CONE ? tolerance : 1e-9)) {
            if ((status = step_sample_edge(ctx, s, e, ta, tb, pa, pb, reference, 1)) != OSC_OK) return status;
        } else { // iso-parametric: keep the two ends
            memcpy(ctx->samples + 4, ctx->samples + 4 * (ctx->sample_count - 1), 4 * sizeof(double));
            ctx->sample_count = 2;
        }
    }
    // the second pass of a seam over the same parameters moves by one period (the face lies
    // between its two copies)
    double* x = ctx->samples;
    int n = ctx->sample_count;
    for (int k = 0; k < ctx->pass_count; ++k) {
        if (ctx->passes[k].edge != index) continue;
        const double* seen = ctx->passes[k].uv;
        double d1 = fabs(x[1] - seen[2]) + fabs(x[2] - seen[3]);
        double d2 = fabs(x[4 * (n - 1) + 1] - seen[0]) + fabs(x[4 * (n - 1) + 2] - seen[1]);
        if (d1 > 1e-6 || d2 > 1e-6) continue;
        int coordinate = step_period(ctx, s, 0) > 0.0 && fabs(x[1] - x[4 * (n - 1) + 1]) < 1e-9   ? 1
                         : step_period(ctx, s, 1) > 0.0 && fabs(x[2] - x[4 * (n - 1) + 2]) < 1e-9 ? 2
                                                                                                  : 0;
        if (!coordinate) return step_bad(ctx->file, face, "an edge is used twice along the same parameters");
        for (int i = 0; i < n; ++i) x[4 * i + coordinate] += step_period(ctx, s, coordinate - 1);
        ++state->seam_shifts;
        state->seam_coordinate = coordinate - 1;
        state->seam_shift = step_period(ctx, s, coordinate - 1);
        state->seam_end = ctx->pass_count;
        state->seam_trim = -1;
    }
    if ((status = step_record_pass(ctx, index, x + 1, x + 4 * (n - 1) + 1)) != OSC_OK) return status;
    int before_join = ctx->trim_count;
    if (state->started && (status = step_join(ctx, s, face, state->last, x + 1)) != OSC_OK) return status;
    if (state->seam_shifts && state->seam_trim < 0) {
        state->seam_trim = ctx->trim_count;
        state->seam_join = ctx->trim_count > before_join;
    }
    if (!state->started) {
        state->first[0] = x[1];
        state->first[1] = x[2];
        state->started = 1;
    }
    for (int i = 0; i + 1 < n; ++i)
        if ((status = step_emit_line(ctx, x + 4 * i + 1, x + 4 * (i + 1) + 1)) != OSC_OK) return status;
    state->last[0] = x[4 * (n - 1) + 1];
    state->last[1] = x[4 * (n - 1) + 2];
    return OSC_OK;
}

// ---- faces ------------------------------------------------------------------------------------

static void step_note_unsupported(step_ctx* ctx, int instance) {
    if (ctx->report->first_unsupported[0]) return;
    char name[96];
    step_entity_name(ctx->file, instance, name, sizeof name);
    snprintf(ctx->report->first_unsupported, sizeof ctx->report->first_unsupported, "#%lld %.80s",
             ctx->file->instances[instance].id, name);
}

// the bound list's loop instances, or -1 for a bound that is not a FACE_BOUND
static int step_bound_loop(const step_ctx* ctx, int bound) {
    int args = step_args(ctx->file, bound, "FACE_OUTER_BOUND");
    if (args < 0) args = step_args(ctx->file, bound, "FACE_BOUND");
    const step_node* node = step_arg(ctx->file, args, 1);
    return node && node->kind == STEP_REF ? step_find(ctx->file, node->id) : -1;
}

// marks the EDGE_CURVEs of a dropped face (the faces on their other side lose these edges), and
// the box of its boundary into lo, hi (empty when it has none)
static void step_mark_dropped(step_ctx* ctx, int first_bound, osc_vec3* lo, osc_vec3* hi) {
    const step_file* file = ctx->file;
    *lo = osc_v3(INFINITY, INFINITY, INFINITY);
    *hi = osc_scale(*lo, -1.0);
    for (int node = first_bound; node >= 0; node = file->nodes[node].next) {
        if (file->nodes[node].kind != STEP_REF) continue;
        int loop = step_bound_loop(ctx, step_find(file, file->nodes[node].id));
        const step_node* edges = step_arg(ctx->file, step_args(ctx->file, loop, "EDGE_LOOP"), 1);
        for (int item = edges && edges->kind == STEP_LIST ? edges->child : -1; item >= 0;
             item = file->nodes[item].next) {
            if (file->nodes[item].kind != STEP_REF) continue;
            const step_node* element =
                step_arg(ctx->file, step_args(ctx->file, step_find(file, file->nodes[item].id), "ORIENTED_EDGE"), 3);
            int edge = element && element->kind == STEP_REF ? step_find(file, element->id) : -1;
            if (edge >= 0) ctx->dropped_serial[edge] = ctx->serial;
            // the box of the face's boundary: its edges' vertices, circles and ellipses whole,
            // B-spline control polygons (a curve the reader cannot evaluate adds its vertices)
            int args = step_args(file, edge, "EDGE_CURVE");
            const step_node* geometry = step_arg(file, args, 3);
            step_curve c;
            memset(&c, 0, sizeof c);
            int curve = geometry && geometry->kind == STEP_REF ? step_find(file, geometry->id) : -1;
            if (curve >= 0 && step_read_curve(ctx, curve, &c) == OSC_OK) { // the curve's box
                if (c.kind == CURVE_CIRCLE || c.kind == CURVE_ELLIPSE) {
                    osc_vec3 r = osc_v3(c.a * fabs(c.x.x) + c.b * fabs(c.y.x), c.a * fabs(c.x.y) + c.b * fabs(c.y.y),
                                        c.a * fabs(c.x.z) + c.b * fabs(c.y.z));
                    osc_vec3 l = osc_sub(c.o, r), h = osc_add(c.o, r);
                    *lo = osc_v3(fmin(lo->x, l.x), fmin(lo->y, l.y), fmin(lo->z, l.z));
                    *hi = osc_v3(fmax(hi->x, h.x), fmax(hi->y, h.y), fmax(hi->z, h.z));
                }
                for (int i = 0; c.kind == CURVE_BSPLINE && i < c.count; ++i) { // its control polygon
                    const double* q = c.poles + 4 * i;
                    osc_vec3 x = osc_scale(osc_v3(q[0], q[1], q[2]), 1.0 / q[3]);
                    *lo = osc_v3(fmin(lo->x, x.x), fmin(lo->y, x.y), fmin(lo->z, x.z));
                    *hi = osc_v3(fmax(hi->x, x.x), fmax(hi->y, x.y), fmax(hi->z, x.z));
                }
            }
            osc_free(c.poles);
            osc_free(c.knots);
            for (int k = 1; k <= 2 && args >= 0; ++k) { // and its vertices
                const step_node* vertex = step_arg(file, args, k);
                int v = vertex && vertex->kind == STEP_REF ? step_find(file, vertex->id) : -1;
                osc_vec3 x;
                if (v < 0 || step_args(file, v, "VERTEX_POINT") < 0 || step_vertex(ctx, v, &x) != OSC_OK) continue;
                *lo = osc_v3(fmin(lo->x, x.x), fmin(lo->y, x.y), fmin(lo->z, x.z));
                *hi = osc_v3(fmax(hi->x, x.x), fmax(hi->y, x.y), fmax(hi->z, x.z));
            }
        }
    }
}

// The second pass of a seam edge is moved by +1 period, which puts the face on the right of the
// seam's first pass. When the face lies on its left, the loop's other edges, unwrapped continuously
// from that second pass, come back to the first point 2 periods off (FreeCAD's hemispherical LED
// domes of KiCad's library: a meridian seam from the equator to the pole, up and down, then the
// equator): the second pass and all that follows it move by -2 periods instead, and the join into
// it moves its end only.
static void step_seam_side(step_ctx* ctx, int begin, step_loop_state* state) {
    int k = state->seam_coordinate;
    double shift = state->seam_shift, d = state->last[k] - state->first[k];
    if (state->seam_trim < begin || fabs(d - 2.0 * shift) > 0.25 * fabs(shift)) return;
    for (int i = state->seam_trim; i < ctx->trim_count; ++i) {
        osc_brep_trim* t = &ctx->trims[i];
        t->start[k] -= 2.0 * shift;
        t->end[k] -= 2.0 * shift;
        if (t->kind == OSC_TRIM_ARC) t->center[k] -= 2.0 * shift;
    }
    if (state->seam_join) ctx->trims[state->seam_trim - 1].end[k] -= 2.0 * shift;
    step_pass* pass = &ctx->passes[state->seam_end];
    pass->uv[k] -= 2.0 * shift;
    pass->uv[2 + k] -= 2.0 * shift;
    state->last[k] -= 2.0 * shift;
}

// the parameter box of trims [begin, end) in coordinate k
static void step_trims_range(const step_ctx* ctx, int begin, int end, int k, double range[2]) {
    range[0] = INFINITY;
    range[1] = -INFINITY;
    for (int i = begin; i < end; ++i) {
        const osc_brep_trim* t = &ctx->trims[i];
        double lo = t->kind == OSC_TRIM_ARC ? t->center[k] - t->radius : fmin(t->start[k], t->end[k]);
        double hi = t->kind == OSC_TRIM_ARC ? t->center[k] + t->radius : fmax(t->start[k], t->end[k]);
        range[0] = fmin(range[0], lo);
        range[1] = fmax(range[1], hi);
    }
}

// A later loop of a face starts next to the first, which may put it a period away from where the
// earlier loops lie (a hole near the seam of a face that goes all the way round: KiCad's disc
// varistors, a lead's hole in a surface of revolution): it moves by the whole periods that bring
// its parameters into the earlier loops' range, when some do.
static void step_inner_loop_period(step_ctx* ctx, const osc_brep_surface* s, int face_trims, int begin) {
    if (begin == face_trims) return;
    for (int k = 0; k < 2; ++k) {
        double period = step_period(ctx, s, k), earlier[2], loop[2];
        if (!(period > 0.0)) continue;
        step_trims_range(ctx, face_trims, begin, k, earlier);
        step_trims_range(ctx, begin, ctx->trim_count, k, loop);
        double tolerance = 1e-9 * period;
        if (loop[0] >= earlier[0] - tolerance && loop[1] <= earlier[1] + tolerance) continue;
        double shift = period * ceil((earlier[0] - tolerance - loop[0]) / period);
        if (shift == 0.0 || loop[1] + shift > earlier[1] + tolerance) continue;
        for (int i = begin; i < ctx->trim_count; ++i) {
            osc_brep_trim* t = &ctx->trims[i];
            t->start[k] += shift;
            t->end[k] += shift;
            if (t->kind == OSC_TRIM_ARC) t->center[k] += shift;
        }
    }
}

// the loops of a face, appended to ctx->loops and ctx->trims
static osc_status step_face_loops(step_ctx* ctx, int face, const osc_brep_surface* s, int first_bound) {
    const step_file* file = ctx->file;
    int face_trims = ctx->trim_count;
    osc_status status;
    for (int node = first_bound; node >= 0; node = file->nodes[node].next) {
        int bound = -1, loop = -1, first = -1, count = 0;
        if ((status = step_ref_node(ctx->file, face, node, &bound)) != OSC_OK) return status;
        if (step_args(ctx->file, bound, "FACE_OUTER_BOUND") < 0 && step_args(ctx->file, bound, "FACE_BOUND") < 0)
            return step_bad(ctx->file, bound, "a FACE_BOUND was expected");
        loop = step_bound_loop(ctx, bound);
        if (loop < 0) return step_bad(ctx->file, bound, "its loop is not a defined reference");
        if (step_args(ctx->file, loop, "VERTEX_LOOP") >= 0) continue; // a pole or apex: nothing to trim
        int args = step_args(ctx->file, loop, "EDGE_LOOP");
        if (args < 0) return step_unsupported(ctx, loop, "a face bound that is not an EDGE_LOOP");
        if ((status = step_list_arg(ctx->file, loop, args, 1, &first, &count)) != OSC_OK) return status;
        if (count == 0) return step_bad(ctx->file, loop, "an empty loop");
        step_loop_state state;
        memset(&state, 0, sizeof state);
        if (ctx->trim_count > face_trims) { // later loops start next to the earlier ones
            const osc_brep_trim* t = &ctx->trims[face_trims];
            state.reference[0] = t->start[0];
            state.reference[1] = t->start[1];
        }
        int begin = ctx->trim_count;
        for (int item = first; item >= 0; item = file->nodes[item].next) {
            int oriented = -1, curve = -1, forward = 0, index = -1;
            if ((status = step_ref_node(ctx->file, loop, item, &oriented)) != OSC_OK) return status;
            int oargs = step_args(ctx->file, oriented, "ORIENTED_EDGE");
            if (oargs < 0) return step_bad(ctx->file, oriented, "an ORIENTED_EDGE was expected");
            if ((status = step_ref(ctx->file, oriented, oargs, 3, &curve)) != OSC_OK ||
                (status = step_bool(ctx->file, oriented, oargs, 4, &forward)) != OSC_OK ||
                (status = step_edge_get(ctx, curve, &index)) != OSC_OK)
                return status;
            if (!ctx->edges[index].supported) {
                if (!ctx->skip)
                    return step_unsupported(ctx, ctx->edges[index].curve.instance,
                                            "an edge curve that is not a line or a circle");
                step_note_unsupported(ctx, ctx->edges[index].curve.instance);
            }
            if ((status = step_trace(ctx, s, face, index, forward, &state)) != OSC_OK) return status;
        }
        if (state.seam_shifts == 1) step_seam_side(ctx, begin, &state);
        if ((status = step_join(ctx, s, face, state.last, state.first)) != OSC_OK) return status;
        step_inner_loop_period(ctx, s, face_trims, begin);
        if ((status = STEP_GROW(ctx, loops, loop_count, loop_capacity, ctx->loop_count + 1)) != OSC_OK) return status;
        ctx->loops[ctx->loop_count].trim_begin = begin;
        ctx->loops[ctx->loop_count].trim_count = ctx->trim_count - begin;
        ++ctx->loop_count;
    }
    return OSC_OK;
}

// A closed, clamped B-spline curve (its first and last poles the same point) on [lo, hi] with its
// seam moved to a in (lo, hi): the same curve on [a, a + hi - lo]. Knot a is inserted until its
// multiplicity is p, which splits the curve at C(a) = P[j-1] (j the first knot a) into a piece A on
// [lo, a] and B on [a, hi]; the result is B followed by A moved by the period, its homogeneous poles
// scaled so that its first is B's last (a NURBS curve does not change when all its weights are
// scaled), joined C0 at hi. `c`'s arrays have room for p more poles and knots.
static void step_rotate_curve(step_curve* c, double a, double* poles, double* knots) {
    int p = c->degree;
    double lo = c->knots[0], hi = c->knots[c->count + p], period = hi - lo;
    for (;;) {
        int s = 0;
        for (int i = 0; i < c->count + p + 1; ++i) s += c->knots[i] == a;
        if (s >= p) break;
        step_insert_knot(c, a);
    }
    int m = c->count, j = 0;
    const double* U = c->knots;
    while (U[j] < a) ++j;
    const double* P = c->poles;
    double scale = P[4 * (m - 1) + 3] / P[3];
    memcpy(poles, P + 4 * (j - 1), (size_t)(m - j + 1) * 4 * sizeof(double));
    for (int i = 1; i < j; ++i)
        for (int q = 0; q < 4; ++q) poles[4 * (m - j + i) + q] = scale * P[4 * i + q];
    int at = 0;
    for (int i = 0; i <= p; ++i) knots[at++] = a;
    for (int i = j + p; i < m; ++i) knots[at++] = U[i];
    for (int i = 0; i < p; ++i) knots[at++] = hi;
    for (int i = p + 1; i < j; ++i) knots[at++] = U[i] + period;
    for (int i = 0; i <= p; ++i) knots[at++] = a + period;
}

// Replaces the face's closed B-spline surface by the same surface with its seam in direction k
// moved to parameter a (step_rotate_curve on every row of poles along k, after clamping them
// when the surface is written in its periodic form), so that a face crossing the seam lies in one
// parameter range. OSC_ERR_UNSUPPORTED (without a message) when a row does not close.
static osc_status step_rotate_surface(step_ctx* ctx, osc_brep_surface* s, int k, double a) {
    const osc_brep_nurbs e = ctx->nurbs[s->nurbs];
    int p = e.degree[k], n = e.count[k], rows = e.count[1 - k];
    const double* knots_in = ctx->reals + e.knot_begin + (k ? e.count[0] + e.degree[0] + 1 : 0);
    size_t most = (size_t)n + 3 * (size_t)p + 2; // poles after clamping and inserting a
    double* row = osc_calloc(most, 4 * sizeof(double));
    double* row_knots = osc_calloc(most + (size_t)p + 1, sizeof(double));
    double* cw = osc_calloc(most * (size_t)rows, 4 * sizeof(double));
    double* knots = osc_calloc(most + (size_t)p + 1, sizeof(double));
    osc_status status = row && row_knots && cw && knots ? OSC_OK : OSC_ERR_NO_MEMORY;
    int count = 0;
    for (int r = 0; r < rows && status == OSC_OK; ++r) {
        step_curve c;
        memset(&c, 0, sizeof c);
        c.kind = CURVE_BSPLINE;
        c.degree = p;
        c.count = n;
        c.poles = osc_calloc((size_t)n, 4 * sizeof(double));
        c.knots = osc_calloc((size_t)n + (size_t)p + 1, sizeof(double));
        if (!c.poles || !c.knots) status = OSC_ERR_NO_MEMORY;
        for (int i = 0; i < n && status == OSC_OK; ++i) {
            int index = k ? r * e.count[1] + i : i * e.count[1] + r;
            double w = e.weight_begin >= 0 ? ctx->reals[e.weight_begin + index] : 1.0;
            osc_vec3 x = ctx->cpoints[e.point_begin + index];
            c.poles[4 * i] = w * x.x;
            c.poles[4 * i + 1] = w * x.y;
            c.poles[4 * i + 2] = w * x.z;
            c.poles[4 * i + 3] = w;
        }
        if (status == OSC_OK) memcpy(c.knots, knots_in, ((size_t)n + (size_t)p + 1) * sizeof(double));
        if (status == OSC_OK) status = step_clamp(&c, p); // room for p more poles
        const double *first = c.poles, *last = c.poles + 4 * (c.count - 1);
        if (status == OSC_OK && (c.count == 0 ||
                                 osc_length(osc_sub(osc_scale(osc_v3(first[0], first[1], first[2]), 1.0 / first[3]),
                                                    osc_scale(osc_v3(last[0], last[1], last[2]), 1.0 / last[3]))) >
                                     fmax(1e-9 * ctx->scale, ctx->uncertainty) ||
                                 !(a > c.knots[0] && a < c.knots[c.count + p])))
            status = OSC_ERR_UNSUPPORTED;
        if (status == OSC_OK) {
            step_rotate_curve(&c, a, row, row_knots);
            if (r == 0) {
                count = c.count;
                memcpy(knots, row_knots, ((size_t)count + (size_t)p + 1) * sizeof(double));
            }
            if (c.count != count) status = OSC_ERR_UNSUPPORTED; // cannot happen: the rows share their knots
            for (int i = 0; i < count && status == OSC_OK; ++i) {
                int index = k ? r * count + i : i * rows + r;
                memcpy(cw + 4 * index, row + 4 * i, 4 * sizeof(double));
            }
        }
        osc_free(c.poles);
        osc_free(c.knots);
    }
    if (status == OSC_OK) {
        int degree[2] = {e.degree[0], e.degree[1]}, counts[2] = {e.count[0], e.count[1]};
        counts[k] = count;
        const double* other = ctx->reals + e.knot_begin + (k ? 0 : e.count[0] + e.degree[0] + 1);
        size_t other_size = (size_t)e.count[1 - k] + (size_t)e.degree[1 - k] + 1;
        double* copy = osc_calloc(other_size, sizeof(double)); // the arrays may move as they grow
        if (!copy) status = OSC_ERR_NO_MEMORY;
        if (copy) memcpy(copy, other, other_size * sizeof(double));
        if (status == OSC_OK)
            status = step_add_nurbs(ctx, degree, counts, k ? copy : knots, k ? knots : copy, cw, &s->nurbs);
        osc_free(copy);
        if (status == OSC_OK) status = step_use_face_nurbs(ctx, s->nurbs);
    }
    osc_free(row);
    osc_free(row_knots);
    osc_free(cw);
    osc_free(knots);
    return status;
}

// the face's parameter box from its trims; periodic parameters are shifted so that the box starts
// in [-pi, pi) and must span at most one period
static osc_status step_face_box(step_ctx* ctx, int face, osc_brep_surface* s, int trim_begin, osc_brep_face* f) {
    if (trim_begin == ctx->trim_count && s->type == OSC_SURFACE_NURBS) { // no loop: the whole B-spline
        f->umin = ctx->face_nurbs.lo[0];
        f->umax = ctx->face_nurbs.hi[0];
        f->vmin = ctx->face_nurbs.lo[1];
        f->vmax = ctx->face_nurbs.hi[1];
        return OSC_OK;
    }
    if (trim_begin == ctx->trim_count) { // no loop: the whole surface, closed ones only
        if (s->type != OSC_SURFACE_SPHERE && s->type != OSC_SURFACE_TORUS)
            return step_unsupported(ctx, face, "a face without edge loops on an unbounded surface");
        f->umin = -STEP_PI;
        f->umax = STEP_PI;
        f->vmin = s->type == OSC_SURFACE_SPHERE ? -0.5 * STEP_PI : -STEP_PI;
        f->vmax = -f->vmin;
        return OSC_OK;
    }
    double box[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (int i = trim_begin; i < ctx->trim_count; ++i) {
        const osc_brep_trim* t = &ctx->trims[i];
        for (int k = 0; k < 2; ++k) {
            double lo = t->kind == OSC_TRIM_ARC ? t->center[k] - t->radius : fmin(t->start[k], t->end[k]);
            double hi = t->kind == OSC_TRIM_ARC ? t->center[k] + t->radius : fmax(t->start[k], t->end[k]);
            box[2 * k] = fmin(box[2 * k], lo);
            box[2 * k + 1] = fmax(box[2 * k + 1], hi);
        }
    }
    for (int k = 0; k < 2; ++k) {
        double period = step_period(ctx, s, k);
        if (!(period > 0.0)) continue;
        double span = box[2 * k + 1] - box[2 * k];
        // a seam found a little off (a file's imprecision) may widen the loops beyond one period by
        // as much as the gaps the file may leave, relative to the solid's extent, or for the angle
        // around a circle of fixed radius (v on a torus, u on a cylinder), to that circle's length
        // (KiCad's bent leads: a torus of tube radius 0.45 mm whose seam lies 4.5e-6 mm off it)
        double slack = fmax(1e-7 / STEP_TWO_PI, STEP_GAP_FACTOR * ctx->uncertainty / ctx->scale);
        double circle = s->type == OSC_SURFACE_TORUS && k == 1      ? s->radius2
                        : s->type == OSC_SURFACE_CYLINDER && k == 0 ? s->radius
                                                                    : 0.0;
        if (circle > 0.0) slack = fmax(slack, STEP_GAP_FACTOR * ctx->uncertainty / (STEP_TWO_PI * circle));
        if (span > period * (1.0 + slack))
            return step_unsupported(
                ctx, face, k ? "the loops span more than one period in v" : "the loops span more than one period in u");
        // angles: the box starts in [-pi, pi); closed B-splines: in their parameter range
        double start = s->type == OSC_SURFACE_NURBS ? ctx->face_nurbs.lo[k] : -STEP_PI;
        int nurbs = s->type == OSC_SURFACE_NURBS;
        double shift = period * floor((box[2 * k] - start) / period + (nurbs ? fmax(1e-7, slack) : 0.0));
        box[2 * k] -= shift;
        box[2 * k + 1] = fmin(box[2 * k + 1] - shift, box[2 * k] + period);
        if (nurbs && box[2 * k] < ctx->face_nurbs.lo[k]) { // within the slack: onto the surface's range
            box[2 * k] = ctx->face_nurbs.lo[k];
            box[2 * k + 1] = fmin(box[2 * k + 1], box[2 * k] + period);
        }
        if (nurbs && box[2 * k + 1] > ctx->face_nurbs.hi[k] + fmax(1e-7, slack) * period) {
            // the face crosses the surface's seam: the same surface with its seam where the box starts
            osc_status status = step_rotate_surface(ctx, s, k, box[2 * k]);
            if (status == OSC_ERR_UNSUPPORTED)
                return step_unsupported(ctx, face, "the face crosses the seam of its closed B-spline surface");
            if (status != OSC_OK) return status;
        }
        if (nurbs) box[2 * k + 1] = fmin(box[2 * k + 1], ctx->face_nurbs.hi[k]);
        for (int i = trim_begin; i < ctx->trim_count; ++i) { // shift, and clamp rounding overshoots
            osc_brep_trim* t = &ctx->trims[i];
            t->start[k] = fmin(fmax(t->start[k] - shift, box[2 * k]), box[2 * k + 1]);
            t->end[k] = fmin(fmax(t->end[k] - shift, box[2 * k]), box[2 * k + 1]);
        }
    }
    f->umin = box[0];
    f->umax = box[1];
    f->vmin = box[2];
    f->vmax = box[3];
    return OSC_OK;
}

// a vertex of the face (of its first edge), to tell on which branch of its surface it lies
static int step_face_point(const step_ctx* ctx, int first_bound, osc_vec3* x) {
    const step_file* file = ctx->file;
    for (int node = first_bound; node >= 0; node = file->nodes[node].next) {
        if (file->nodes[node].kind != STEP_REF) continue;
        int loop = step_bound_loop(ctx, step_find(file, file->nodes[node].id));
        const step_node* edges = step_arg(ctx->file, step_args(ctx->file, loop, "EDGE_LOOP"), 1);
        int item = edges && edges->kind == STEP_LIST ? edges->child : -1;
        if (item < 0 || file->nodes[item].kind != STEP_REF) continue;
        const step_node* element =
            step_arg(ctx->file, step_args(ctx->file, step_find(file, file->nodes[item].id), "ORIENTED_EDGE"), 3);
        int edge = element && element->kind == STEP_REF ? step_find(file, element->id) : -1;
        const step_node* start = step_arg(ctx->file, step_args(ctx->file, edge, "EDGE_CURVE"), 1);
        int vertex = start && start->kind == STEP_REF ? step_find(file, start->id) : -1;
        if (vertex >= 0 && step_args(ctx->file, vertex, "VERTEX_POINT") >= 0 && step_vertex(ctx, vertex, x) == OSC_OK)
            return 1;
    }
    return 0;
}

static osc_status step_face(step_ctx* ctx, int instance) {
    int args = step_args(ctx->file, instance, "ADVANCED_FACE");
    if (args < 0) args = step_args(ctx->file, instance, "FACE_SURFACE");
    if (args < 0) return step_bad(ctx->file, instance, "a shell's face is not an ADVANCED_FACE");
    ++ctx->report->faces_read;
    int geometry = -1, same_sense = 0, first = -1, count = 0;
    osc_status status;
    if ((status = step_list_arg(ctx->file, instance, args, 1, &first, &count)) != OSC_OK ||
        (status = step_ref(ctx->file, instance, args, 2, &geometry)) != OSC_OK ||
        (status = step_bool(ctx->file, instance, args, 3, &same_sense)) != OSC_OK)
        return status;
    int trims = ctx->trim_count, loops = ctx->loop_count;
    ctx->pass_count = 0;
    osc_brep_surface surface;
    osc_brep_face face;
    memset(&face, 0, sizeof face);
    status = step_surface(ctx, geometry, &surface);
    int negative = 0;
    if (status == OSC_OK) {
        osc_vec3 x;
        if (step_face_point(ctx, first, &x)) negative = step_negative_branch(ctx, &surface, x);
        if (negative && surface.type == OSC_SURFACE_CONE) { // the same nappe as a cone whose apex is behind it
            double back = 2.0 * surface.radius / tan(surface.angle);
            surface.origin = osc_sub(surface.origin, osc_scale(surface.axis, back));
            surface.axis = osc_neg(surface.axis);
        }
        status = step_face_loops(ctx, instance, &surface, first);
    }
    if (status == OSC_OK) status = step_face_box(ctx, instance, &surface, trims, &face);
    if (status == OSC_ERR_UNSUPPORTED && ctx->skip) { // drop the face, count it
        ctx->trim_count = trims;
        ctx->loop_count = loops;
        ++ctx->report->faces_unsupported;
        osc_brep_skipped box = {{0, 0, 0}, {0, 0, 0}, 0};
        step_mark_dropped(ctx, first, &box.lo, &box.hi);
        if (!(box.lo.x <= box.hi.x)) { // no vertex (a closed surface without loops): the solid's box
            osc_vec3 half = osc_v3(0.5 * ctx->scale, 0.5 * ctx->scale, 0.5 * ctx->scale);
            box.lo = osc_sub(ctx->center, half);
            box.hi = osc_add(ctx->center, half);
        }
        osc_clear_error();
        if ((status = STEP_GROW(ctx, skipped, skipped_count, skipped_capacity, ctx->skipped_count + 1)) != OSC_OK)
            return status;
        ctx->skipped[ctx->skipped_count++] = box;
        return OSC_OK;
    }
    if (status != OSC_OK) return status;
    // ADVANCED_FACE.same_sense (ISO 10303-42 §5.4.25): the face normal is the surface normal; on a
    // closed shell the face normals point out of the solid
    surface.sense =
        (same_sense ? 1 : -1) * (negative && surface.type == OSC_SURFACE_TORUS ? -1 : 1) * (ctx->flip ? -1 : 1);
    if ((status = STEP_GROW(ctx, surfaces, surface_count, surface_capacity, ctx->surface_count + 1)) != OSC_OK ||
        (status = STEP_GROW(ctx, faces, face_count, face_capacity, ctx->face_count + 1)) != OSC_OK)
        return status;
    face.surface = ctx->surface_count;
    face.loop_begin = loops;
    face.loop_count = ctx->loop_count - loops;
    ctx->surfaces[ctx->surface_count++] = surface;
    for (int k = 0; k < ctx->pass_count; ++k) {
        step_edge* e = &ctx->edges[ctx->passes[k].edge];
        if (e->uses < 2) e->face[e->uses] = ctx->face_count;
        e->uses += e->uses < INT_MAX;
    }
    ctx->faces[ctx->face_count++] = face;
    ++ctx->report->faces_imported;
    return OSC_OK;
}

// ---- one solid, in its own coordinates --------------------------------------------------------

// the edge and vertex lists from the edges the imported faces use
// the faces and end vertices of `out`, edge `e` read from its end `low` (the model's vertices are
// numbered as they are first met; a closed edge has none)
static void step_edge_ends(step_ctx* ctx, const step_edge* e, int low, osc_brep_edge* out, osc_vec3* vertices,
                           int* vertex_count) {
    out->face[0] = e->face[0];
    out->face[1] = e->face[1];
    for (int k = 0; k < 2; ++k) {
        int vertex = e->vertex[k == 0 ? low : 1 - low];
        if (e->closed) {
            out->vertex[k] = -1;
            continue;
        }
        if (ctx->vertex_serial[vertex] != ctx->serial) {
            ctx->vertex_serial[vertex] = ctx->serial;
            ctx->vertex_of[vertex] = *vertex_count;
            vertices[(*vertex_count)++] = e->point[k == 0 ? low : 1 - low];
        }
        out->vertex[k] = ctx->vertex_of[vertex];
    }
}

// the curve of edge `e` as a B-spline of the model (the curve itself, or its conic arc) into `out`;
// *low is the end it runs from
static osc_status step_nurbs_edge(step_ctx* ctx, const step_edge* e, osc_brep_edge* out, int* low) {
    const step_curve* c = &e->curve;
    int degree, count, index = -1;
    double *cw = NULL, *knots = NULL;
    int conic = c->kind != CURVE_BSPLINE;
    osc_status status = step_curve_nurbs(c, e->t[0], e->t[1], &degree, &count, &cw, &knots);
    int degrees[2] = {degree, 0}, counts[2] = {count, 1};
    if (status == OSC_OK) status = step_add_nurbs(ctx, degrees, counts, knots, NULL, cw, &index);
    osc_free(cw);
    osc_free(knots);
    if (status != OSC_OK) return status;
    memset(out, 0, sizeof *out);
    out->type = OSC_CURVE_NURBS;
    out->nurbs = index;
    out->axis = osc_v3(0, 0, 1);
    *low = conic || e->t[0] < e->t[1] ? 0 : 1; // conic arcs run from the start vertex
    out->t0 = conic ? 0.0 : e->t[*low];
    out->t1 = conic ? 1.0 : e->t[1 - *low];
    return OSC_OK;
}

// the line or circle of edge `e` into `out`; *low is the end it runs from
static void step_canonical_edge(const step_edge* e, osc_brep_edge* out, int* low) {
    const step_curve* c = &e->curve;
    out->type = c->kind == CURVE_LINE ? OSC_CURVE_LINE : OSC_CURVE_CIRCLE;
    out->origin = c->o;
    out->axis = c->z;
    out->ref = c->kind == CURVE_LINE ? osc_v3(0, 0, 0) : c->x;
    out->radius = c->kind == CURVE_LINE ? 0.0 : c->a;
    *low = e->t[0] < e->t[1] ? 0 : 1;
    out->t0 = e->t[*low];
    out->t1 = e->t[1 - *low];
    if (c->kind == CURVE_CIRCLE) {
        double shift = STEP_TWO_PI * floor((out->t0 + STEP_PI) / STEP_TWO_PI);
        out->t0 -= shift;
        out->t1 -= shift;
    }
}

// hands the solid's arrays over to `desc` (with the edges and vertices made by step_finish)
static void step_hand_over(step_ctx* ctx, osc_brep_desc* desc) {
    desc->surfaces = ctx->surfaces;
    desc->surface_count = ctx->surface_count;
    desc->faces = ctx->faces;
    desc->face_count = ctx->face_count;
    desc->loops = ctx->loops;
    desc->loop_count = ctx->loop_count;
    desc->trims = ctx->trims;
    desc->trim_count = ctx->trim_count;
    desc->nurbs = ctx->nurbs;
    desc->nurbs_count = ctx->nurbs_count;
    desc->control_points = ctx->cpoints;
    desc->control_point_count = ctx->cpoint_count;
    desc->reals = ctx->reals;
    desc->real_count = ctx->real_count;
    ctx->nurbs = NULL;
    ctx->cpoints = NULL;
    ctx->reals = NULL;
    ctx->nurbs_count = ctx->cpoint_count = ctx->real_count = 0;
    ctx->nurbs_capacity = ctx->cpoint_capacity = ctx->real_capacity = 0;
    ctx->surfaces = NULL;
    ctx->faces = NULL;
    ctx->loops = NULL;
    ctx->trims = NULL;
    ctx->surface_count = ctx->face_count = ctx->loop_count = ctx->trim_count = 0;
    ctx->surface_capacity = ctx->face_capacity = ctx->loop_capacity = ctx->trim_capacity = 0;
}

static osc_status step_finish(step_ctx* ctx, osc_brep_desc* desc) {
    osc_brep_edge* edges = osc_calloc((size_t)ctx->edge_count + 1, sizeof *edges);
    osc_vec3* vertices = osc_calloc(2 * (size_t)ctx->edge_count + 1, sizeof *vertices);
    osc_status status = edges && vertices ? OSC_OK : OSC_ERR_NO_MEMORY;
    int edge_count = 0, vertex_count = 0;
    for (int i = 0; status == OSC_OK && i < ctx->edge_count; ++i) {
        const step_edge* e = &ctx->edges[i];
        if (e->uses == 0) continue;
        if (!e->supported || (e->uses == 1 && ctx->dropped_serial[e->instance] == ctx->serial)) {
            ++ctx->report->edges_unsupported;
            continue;
        }
        if (e->uses != 2) {
            status = step_bad(ctx->file, e->instance,
                              e->uses > 2 ? "an edge of a closed shell must bound two faces; this one bounds more "
                                            "(a non-manifold solid)"
                                          : "an edge of a closed shell must bound two faces; this one bounds one");
            break;
        }
        osc_brep_edge* out = &edges[edge_count++];
        int low = 0;
        if (e->curve.kind != CURVE_LINE && e->curve.kind != CURVE_CIRCLE) // a B-spline: the curve, or the conic arc
            status = step_nurbs_edge(ctx, e, out, &low);
        else
            step_canonical_edge(e, out, &low);
        if (status == OSC_OK) step_edge_ends(ctx, e, low, out, vertices, &vertex_count);
    }
    if (status != OSC_OK) {
        osc_free(edges);
        osc_free(vertices);
        return status;
    }
    ctx->report->edges_imported = edge_count;
    step_hand_over(ctx, desc);
    desc->edges = edges;
    desc->edge_count = edge_count;
    desc->vertices = vertices;
    desc->vertex_count = vertex_count;
    return OSC_OK;
}

// the extent of a solid's vertices (faces of its shell -> bounds -> loops -> edges -> vertices),
// for its tolerances; 1 when it has none
static double step_solid_extent(const step_ctx* ctx, int first_face, osc_vec3* center) {
    const step_file* file = ctx->file;
    osc_vec3 lo = osc_v3(INFINITY, INFINITY, INFINITY), hi = osc_scale(lo, -1.0);
    for (int f = first_face; f >= 0; f = file->nodes[f].next) {
        int face = file->nodes[f].kind == STEP_REF ? step_find(file, file->nodes[f].id) : -1;
        int args = step_args(file, face, "ADVANCED_FACE");
        if (args < 0) args = step_args(file, face, "FACE_SURFACE");
        const step_node* bounds = step_arg(file, args, 1);
        for (int b = bounds && bounds->kind == STEP_LIST ? bounds->child : -1; b >= 0; b = file->nodes[b].next) {
            int loop = file->nodes[b].kind == STEP_REF ? step_bound_loop(ctx, step_find(file, file->nodes[b].id)) : -1;
            const step_node* edges = step_arg(file, step_args(file, loop, "EDGE_LOOP"), 1);
            for (int item = edges && edges->kind == STEP_LIST ? edges->child : -1; item >= 0;
                 item = file->nodes[item].next) {
                if (file->nodes[item].kind != STEP_REF) continue;
                const step_node* element =
                    step_arg(file, step_args(file, step_find(file, file->nodes[item].id), "ORIENTED_EDGE"), 3);
                int edge = element && element->kind == STEP_REF
                               ? step_args(file, step_find(file, element->id), "EDGE_CURVE")
                               : -1;
                for (int k = 1; k <= 2 && edge >= 0; ++k) {
                    const step_node* vertex = step_arg(file, edge, k);
                    osc_vec3 x;
                    int v = vertex && vertex->kind == STEP_REF ? step_find(file, vertex->id) : -1;
                    if (v < 0 || step_args(file, v, "VERTEX_POINT") < 0 || step_vertex(ctx, v, &x) != OSC_OK) continue;
                    lo = osc_v3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
                    hi = osc_v3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
                }
            }
        }
    }
    double extent = osc_length(osc_sub(hi, lo));
    *center = extent >= 0.0 && isfinite(extent) ? osc_scale(osc_add(lo, hi), 0.5) : osc_v3(0, 0, 0);
    return extent > 0.0 && isfinite(extent) ? extent : 1.0;
}

// the faces of a void of BREP_WITH_VOIDS: ORIENTED_CLOSED_SHELL(name, *, CLOSED_SHELL, orientation);
// `flip` is set when its faces are turned over (orientation .F., as a void's shell is written)
static osc_status step_void_shell(const step_ctx* ctx, int oriented, int* shell, int* flip) {
    const step_file* file = ctx->file;
    int args = step_args(file, oriented, "ORIENTED_CLOSED_SHELL"), same = 1;
    if (args < 0) {
        if (step_args(file, oriented, "CLOSED_SHELL") < 0)
            return step_bad(file, oriented, "a void is not an ORIENTED_CLOSED_SHELL");
        *shell = oriented;
        *flip = 0;
        return OSC_OK;
    }
    osc_status status = step_ref(file, oriented, args, 2, shell);
    if (status == OSC_OK) status = step_bool(file, oriented, args, 3, &same);
    *flip = !same;
    return status;
}

// the faces of CLOSED_SHELL `shell` (turned over when `flip`), after a check that names an
// unsupported surface before any unsupported edge
static osc_status step_read_shell(step_ctx* ctx, int shell, int flip) {
    const step_file* file = ctx->file;
    int first = -1, count = 0;
    int args = step_args(file, shell, "CLOSED_SHELL");
    if (args < 0) return step_bad(file, shell, "a CLOSED_SHELL was expected");
    osc_status status = step_list_arg(file, shell, args, 1, &first, &count);
    if (status != OSC_OK) return status;
    // unsupported surfaces first, so that they are named before any unsupported edge
    static const char* surfaces[] = {"PLANE",
                                     "CYLINDRICAL_SURFACE",
                                     "CONICAL_SURFACE",
                                     "SPHERICAL_SURFACE",
                                     "TOROIDAL_SURFACE",
                                     "B_SPLINE_SURFACE_WITH_KNOTS",
                                     "SURFACE_OF_REVOLUTION",
                                     "SURFACE_OF_LINEAR_EXTRUSION",
                                     "OFFSET_SURFACE"};
    for (int node = first; node >= 0; node = file->nodes[node].next) {
        const step_node* geometry = NULL;
        if (file->nodes[node].kind == STEP_REF)
            geometry = step_arg(file, step_args(file, step_find(file, file->nodes[node].id), "ADVANCED_FACE"), 2);
        int surface = geometry && geometry->kind == STEP_REF ? step_find(file, geometry->id) : -1;
        int known = 0;
        for (size_t k = 0; k < sizeof surfaces / sizeof surfaces[0]; ++k)
            known |= step_args(file, surface, surfaces[k]) >= 0;
        if (surface >= 0 && file->instances[surface].complex)
            known |= step_part(file, surface, "B_SPLINE_SURFACE_WITH_KNOTS") >= 0;
        if (surface < 0 || known) continue;
        if (!ctx->skip)
            return step_unsupported(
                ctx, surface,
                "the face's surface is not a plane, cylinder, cone, sphere, torus, B-spline surface, "
                "surface of revolution or extrusion, or an offset of a canonical surface");
        step_note_unsupported(ctx, surface);
        break;
    }
    ctx->flip = flip;
    for (int node = first; node >= 0 && status == OSC_OK; node = file->nodes[node].next) {
        int face;
        if ((status = step_ref_node(file, shell, node, &face)) == OSC_OK) status = step_face(ctx, face);
    }
    ctx->flip = 0;
    return status;
}

// MANIFOLD_SOLID_BREP(name, CLOSED_SHELL) or BREP_WITH_VOIDS(name, CLOSED_SHELL, (voids)) into
// `desc`, in the solid's coordinates; a void's faces join the solid's, turned over as its
// orientation says, so that every face normal points out of the material
static osc_status step_read_solid(step_ctx* ctx, int solid, osc_brep_desc* desc) {
    const step_file* file = ctx->file;
    int voided = step_args(file, solid, "BREP_WITH_VOIDS");
    ++ctx->serial;
    ctx->surface_count = ctx->face_count = ctx->loop_count = ctx->trim_count = 0;
    ctx->nurbs_count = ctx->cpoint_count = ctx->real_count = ctx->skipped_count = 0;
    for (int i = 0; i < ctx->edge_count; ++i) {
        osc_free(ctx->edges[i].curve.poles);
        osc_free(ctx->edges[i].curve.knots);
    }
    ctx->edge_count = 0;
    int shell, first = -1, count = 0;
    osc_status status =
        step_ref(file, solid, voided >= 0 ? voided : step_args(file, solid, "MANIFOLD_SOLID_BREP"), 1, &shell);
    if (status != OSC_OK) return status;
    int args = step_args(file, shell, "CLOSED_SHELL");
    if (args < 0) return step_bad(file, shell, "a CLOSED_SHELL was expected");
    if ((status = step_list_arg(file, shell, args, 1, &first, &count)) != OSC_OK) return status;
    ctx->scale = step_solid_extent(ctx, first, &ctx->center);
    if ((status = step_read_shell(ctx, shell, 0)) != OSC_OK) return status;
    if (voided >= 0) {
        int void_first = -1, void_count = 0;
        if ((status = step_list_arg(file, solid, voided, 2, &void_first, &void_count)) != OSC_OK) return status;
        for (int node = void_first; node >= 0; node = file->nodes[node].next) {
            int oriented, void_shell, flip = 0;
            if ((status = step_ref_node(file, solid, node, &oriented)) != OSC_OK ||
                (status = step_void_shell(ctx, oriented, &void_shell, &flip)) != OSC_OK ||
                (status = step_read_shell(ctx, void_shell, flip)) != OSC_OK)
                return status;
        }
    }
    if (ctx->face_count == 0)
        return ctx->report->faces_unsupported ? step_unsupported(ctx, solid, "every face of the solid is unsupported")
                                              : step_bad(file, shell, "a shell without faces");
    return step_finish(ctx, desc);
}

// ---- placing the solids into one model --------------------------------------------------------

// a distinct solid read once, then placed once per instance
typedef struct step_solid_model {
    osc_status status;             // OSC_OK, or OSC_ERR_UNSUPPORTED when skipped
    char why[96];                  // skipped: "#id NAME: what"
    osc_brep_desc desc;            // in the solid's coordinates
    osc_brep_import_report counts; // its faces and edges
    osc_brep_skipped* skipped;     // its faces left out, in the solid's coordinates
    int skipped_count;
} step_solid_model;

// the model: the placed solids' descriptions appended, and a shell per placed solid
typedef struct step_model {
    osc_brep_surface* surfaces;
    int surface_count;
    size_t surface_capacity;
    osc_brep_face* faces;
    int face_count;
    size_t face_capacity;
    osc_brep_loop* loops;
    int loop_count;
    size_t loop_capacity;
    osc_brep_trim* trims;
    int trim_count;
    size_t trim_capacity;
    osc_brep_edge* edges;
    int edge_count;
    size_t edge_capacity;
    osc_vec3* vertices;
    int vertex_count;
    size_t vertex_capacity;
    osc_brep_shell* shells;
    int shell_count;
    size_t shell_capacity;
    osc_brep_nurbs* nurbs;
    int nurbs_count;
    size_t nurbs_capacity;
    osc_vec3* control_points;
    int control_point_count;
    size_t control_point_capacity;
    double* reals;
    int real_count;
    size_t real_capacity;
    osc_brep_skipped* skipped; // faces left out, placed, with their shells
    int skipped_count;
    size_t skipped_capacity;
} step_model;

static void step_add_counts(osc_brep_import_report* report, const osc_brep_import_report* counts) {
    report->faces_read += counts->faces_read;
    report->faces_imported += counts->faces_imported;
    report->faces_unsupported += counts->faces_unsupported;
    report->edges_imported += counts->edges_imported;
    report->edges_unsupported += counts->edges_unsupported;
    if (!report->first_unsupported[0])
        memcpy(report->first_unsupported, counts->first_unsupported, sizeof report->first_unsupported);
}

// the solid of `placed`, read on first use with its representation's angle unit; a failure that is
// not a skipped solid ends the import
static osc_status step_solid_for(step_ctx* ctx, const step_placed* placed, step_solid_model* models, int* model_count,
                                 int* model_of, step_solid_model** model) {
    if (model_of[placed->solid] >= 0) {
        *model = &models[model_of[placed->solid]];
        return OSC_OK;
    }
    model_of[placed->solid] = *model_count;
    step_solid_model* m = *model = &models[(*model_count)++];
    double length, angle;
    step_representation_units(ctx->file, placed->representation, &length, &angle);
    if (!(angle > 0.0)) angle = step_first_angle_unit(ctx->file);
    ctx->angle_unit = angle > 0.0 ? angle : 1.0;
    osc_brep_import_report* report = ctx->report;
    ctx->report = &m->counts;
    m->status = step_read_solid(ctx, placed->solid, &m->desc);
    ctx->report = report;
    if (m->status == OSC_OK && ctx->skipped_count) {
        m->skipped = osc_calloc((size_t)ctx->skipped_count, sizeof *m->skipped);
        if (!m->skipped) return m->status = OSC_ERR_NO_MEMORY;
        memcpy(m->skipped, ctx->skipped, (size_t)ctx->skipped_count * sizeof *m->skipped);
        m->skipped_count = ctx->skipped_count;
    }
    if (m->status == OSC_ERR_UNSUPPORTED && ctx->skip) {
        const char* message = osc_last_error();
        const char* prefix = "osc_brep_read_step: ";
        if (strncmp(message, prefix, strlen(prefix)) == 0) message += strlen(prefix);
        snprintf(m->why, sizeof m->why, "%.95s", message);
        return OSC_OK;
    }
    if (m->status != OSC_OK) step_add_counts(ctx->report, &m->counts);
    return m->status;
}

static osc_vec3 step_apply(const step_transform* t, osc_vec3 x) {
    return osc_add(osc_scale(osc_mat3_apply(t->rotation, x), t->scale), t->translation);
}

// a face's trims moved with its surface: lengths in the parameters scale (both of a plane's, v of
// a cylinder's or cone's), angles do not
static void step_scale_trims(osc_brep_trim* trims, int count, osc_surface_type type, double scale) {
    double factor[2] = {type == OSC_SURFACE_PLANE ? scale : 1.0,
                        type == OSC_SURFACE_SPHERE || type == OSC_SURFACE_TORUS || type == OSC_SURFACE_NURBS ? 1.0
                                                                                                             : scale};
    for (int i = 0; i < count; ++i) {
        osc_brep_trim* t = &trims[i];
        for (int k = 0; k < 2; ++k) {
            t->start[k] *= factor[k];
            t->end[k] *= factor[k];
            t->center[k] *= factor[k];
        }
        t->radius *= factor[0]; // arcs lie on planes only
    }
}

#define STEP_MODEL_GROW(model, array, count, capacity, more)                                                           \
    STEP_GROW(model, array, count, capacity, (model)->count + (more))

// appends `local` moved by `t` to the model
static osc_status step_append(step_model* model, const osc_brep_desc* local, const step_transform* t) {
    osc_status status;
    if ((status = STEP_MODEL_GROW(model, surfaces, surface_count, surface_capacity, local->surface_count)) != OSC_OK ||
        (status = STEP_MODEL_GROW(model, faces, face_count, face_capacity, local->face_count)) != OSC_OK ||
        (status = STEP_MODEL_GROW(model, loops, loop_count, loop_capacity, local->loop_count)) != OSC_OK ||
        (status = STEP_MODEL_GROW(model, trims, trim_count, trim_capacity, local->trim_count)) != OSC_OK ||
        (status = STEP_MODEL_GROW(model, edges, edge_count, edge_capacity, local->edge_count)) != OSC_OK ||
        (status = STEP_MODEL_GROW(model, vertices, vertex_count, vertex_capacity, local->vertex_count)) != OSC_OK ||
        (status = STEP_MODEL_GROW(model, nurbs, nurbs_count, nurbs_capacity, local->nurbs_count)) != OSC_OK ||
        (status = STEP_MODEL_GROW(model, control_points, control_point_count, control_point_capacity,
                                  local->control_point_count)) != OSC_OK ||
        (status = STEP_MODEL_GROW(model, reals, real_count, real_capacity, local->real_count)) != OSC_OK)
        return status;
    double s = t->scale;
    // B-splines: control points moved, knots and weights kept (their parameters do not change)
    for (int i = 0; i < local->nurbs_count; ++i) {
        osc_brep_nurbs* out = &model->nurbs[model->nurbs_count + i];
        *out = local->nurbs[i];
        out->knot_begin += model->real_count;
        out->point_begin += model->control_point_count;
        if (out->weight_begin >= 0) out->weight_begin += model->real_count;
    }
    for (int i = 0; i < local->control_point_count; ++i)
        model->control_points[model->control_point_count + i] = step_apply(t, local->control_points[i]);
    if (local->real_count)
        memcpy(model->reals + model->real_count, local->reals, (size_t)local->real_count * sizeof(double));
    for (int i = 0; i < local->surface_count; ++i) {
        osc_brep_surface* out = &model->surfaces[model->surface_count + i];
        *out = local->surfaces[i];
        out->origin = step_apply(t, out->origin);
        out->axis = osc_mat3_apply(t->rotation, out->axis);
        out->ref = osc_mat3_apply(t->rotation, out->ref);
        out->radius *= s;
        out->radius2 *= s;
        if (out->type == OSC_SURFACE_NURBS) out->nurbs += model->nurbs_count;
    }
    memcpy(model->trims + model->trim_count, local->trims, (size_t)local->trim_count * sizeof *local->trims);
    for (int i = 0; i < local->loop_count; ++i) {
        model->loops[model->loop_count + i] = local->loops[i];
        model->loops[model->loop_count + i].trim_begin += model->trim_count;
    }
    for (int i = 0; i < local->face_count; ++i) {
        osc_brep_face* out = &model->faces[model->face_count + i];
        *out = local->faces[i];
        osc_surface_type type = local->surfaces[out->surface].type;
        for (int l = out->loop_begin; l < out->loop_begin + out->loop_count; ++l)
            step_scale_trims(model->trims + model->trim_count + local->loops[l].trim_begin, local->loops[l].trim_count,
                             type, s);
        if (type == OSC_SURFACE_PLANE) {
            out->umin *= s;
            out->umax *= s;
        }
        if (type != OSC_SURFACE_SPHERE && type != OSC_SURFACE_TORUS && type != OSC_SURFACE_NURBS) {
            out->vmin *= s;
            out->vmax *= s;
        }
        out->surface += model->surface_count;
        out->loop_begin += model->loop_count;
    }
    for (int i = 0; i < local->edge_count; ++i) {
        osc_brep_edge* out = &model->edges[model->edge_count + i];
        *out = local->edges[i];
        out->origin = step_apply(t, out->origin);
        out->axis = osc_mat3_apply(t->rotation, out->axis);
        out->ref = osc_mat3_apply(t->rotation, out->ref);
        out->radius *= s;
        if (out->type == OSC_CURVE_LINE) { // arc length
            out->t0 *= s;
            out->t1 *= s;
        }
        if (out->type == OSC_CURVE_NURBS) out->nurbs += model->nurbs_count;
        for (int k = 0; k < 2; ++k) {
            out->face[k] += model->face_count;
            if (out->vertex[k] >= 0) out->vertex[k] += model->vertex_count;
        }
    }
    for (int i = 0; i < local->vertex_count; ++i)
        model->vertices[model->vertex_count + i] = step_apply(t, local->vertices[i]);
    model->surface_count += local->surface_count;
    model->face_count += local->face_count;
    model->loop_count += local->loop_count;
    model->trim_count += local->trim_count;
    model->edge_count += local->edge_count;
    model->vertex_count += local->vertex_count;
    model->nurbs_count += local->nurbs_count;
    model->control_point_count += local->control_point_count;
    model->real_count += local->real_count;
    return OSC_OK;
}

// the shell record of a placed solid appended last
static osc_status step_add_shell(step_ctx* ctx, step_model* model, const step_placed* placed,
                                 const osc_brep_desc* local) {
    osc_status status = STEP_MODEL_GROW(model, shells, shell_count, shell_capacity, 1);
    if (status != OSC_OK) return status;
    osc_brep_shell* shell = &model->shells[model->shell_count++];
    memset(shell, 0, sizeof *shell);
    shell->face_begin = model->face_count - local->face_count;
    shell->face_count = local->face_count;
    shell->edge_begin = model->edge_count - local->edge_count;
    shell->edge_count = local->edge_count;
    shell->vertex_begin = model->vertex_count - local->vertex_count;
    shell->vertex_count = local->vertex_count;
    shell->placement = osc_pose_make(placed->transform.translation, osc_quat_from_mat3(placed->transform.rotation));
    shell->scale = placed->transform.scale;
    shell->solid_id = ctx->file->instances[placed->solid].id;
    shell->depth = placed->depth;
    if (placed->product >= 0)
        step_string(ctx->file, step_args(ctx->file, placed->product, "PRODUCT"), 1, shell->name, sizeof shell->name);
    if (!shell->name[0])
        step_string(ctx->file, step_args(ctx->file, placed->solid, "MANIFOLD_SOLID_BREP"), 0, shell->name,
                    sizeof shell->name);
    return OSC_OK;
}

// counts a placed solid left out (skip_unsupported), or fails naming it
static osc_status step_skip_instance(step_ctx* ctx, const char* why) {
    if (!ctx->skip) return osc_fail(OSC_ERR_UNSUPPORTED, "osc_brep_read_step: %s", why);
    ++ctx->report->instances_skipped;
    if (!ctx->report->first_skipped[0])
        snprintf(ctx->report->first_skipped, sizeof ctx->report->first_skipped, "%.95s", why);
    return OSC_OK;
}

// every placed solid into `model`
static osc_status step_place_solids(step_ctx* ctx, const step_placed* placed, int count, step_model* model) {
    const step_file* file = ctx->file;
    step_solid_model* models = osc_calloc((size_t)count + 1, sizeof *models);
    int* model_of = osc_calloc(((size_t)file->instance_count + 1), sizeof(int));
    osc_status status = models && model_of ? OSC_OK : OSC_ERR_NO_MEMORY;
    int model_count = 0;
    for (int i = 0; status == OSC_OK && i < file->instance_count; ++i) model_of[i] = -1;
    for (int i = 0; status == OSC_OK && i < count; ++i) {
        const step_placed* p = &placed[i];
        step_solid_model* m;
        if ((status = step_solid_for(ctx, p, models, &model_count, model_of, &m)) != OSC_OK) break;
        if (m->status != OSC_OK) {
            status = step_skip_instance(ctx, m->why);
            continue;
        }
        if (p->mirrored) {
            char why[160], name[64];
            step_entity_name(file, p->via, name, sizeof name);
            snprintf(why, sizeof why, "#%lld %.40s: %s", file->instances[p->via].id, name,
                     p->mirrored == 1 ? "a mirroring placement is not supported" : "an unsupported placement");
            status = step_skip_instance(ctx, why);
            continue;
        }
        step_add_counts(ctx->report, &m->counts);
        if ((status = step_append(model, &m->desc, &p->transform)) == OSC_OK)
            status = step_add_shell(ctx, model, p, &m->desc);
        if (status == OSC_OK && m->skipped_count)
            status = STEP_MODEL_GROW(model, skipped, skipped_count, skipped_capacity, m->skipped_count);
        for (int k = 0; status == OSC_OK && k < m->skipped_count; ++k) { // the boxes of their placed corners
            osc_brep_skipped* out = &model->skipped[model->skipped_count++];
            out->lo = osc_v3(INFINITY, INFINITY, INFINITY);
            out->hi = osc_scale(out->lo, -1.0);
            out->shell = model->shell_count - 1;
            for (int corner = 0; corner < 8; ++corner) {
                const osc_brep_skipped* b = &m->skipped[k];
                osc_vec3 x =
                    step_apply(&p->transform, osc_v3(corner & 1 ? b->hi.x : b->lo.x, corner & 2 ? b->hi.y : b->lo.y,
                                                     corner & 4 ? b->hi.z : b->lo.z));
                out->lo = osc_v3(fmin(out->lo.x, x.x), fmin(out->lo.y, x.y), fmin(out->lo.z, x.z));
                out->hi = osc_v3(fmax(out->hi.x, x.x), fmax(out->hi.y, x.y), fmax(out->hi.z, x.z));
            }
        }
        ctx->report->instances_imported += status == OSC_OK;
    }
    for (int i = 0; i < model_count; ++i) {
        step_desc_free(&models[i].desc);
        osc_free(models[i].skipped);
    }
    osc_free(models);
    osc_free(model_of);
    return status;
}

void step_desc_free(osc_brep_desc* desc) {
    if (!desc) return;
    osc_free((void*)desc->surfaces);
    osc_free((void*)desc->faces);
    osc_free((void*)desc->loops);
    osc_free((void*)desc->trims);
    osc_free((void*)desc->edges);
    osc_free((void*)desc->vertices);
    osc_free((void*)desc->nurbs);
    osc_free((void*)desc->control_points);
    osc_free((void*)desc->reals);
    memset(desc, 0, sizeof *desc);
}

static void step_ctx_free(step_ctx* ctx) {
    for (int i = 0; i < ctx->edge_count; ++i) {
        osc_free(ctx->edges[i].curve.poles);
        osc_free(ctx->edges[i].curve.knots);
    }
    osc_free(ctx->edges);
    osc_free(ctx->edge_of);
    osc_free(ctx->edge_serial);
    osc_free(ctx->dropped_serial);
    osc_free(ctx->vertex_of);
    osc_free(ctx->vertex_serial);
    osc_free(ctx->passes);
    osc_free(ctx->skipped);
    osc_free(ctx->samples);
    osc_free(ctx->piece_fine);
    osc_free(ctx->surfaces);
    osc_free(ctx->faces);
    osc_free(ctx->loops);
    osc_free(ctx->trims);
    osc_free(ctx->nurbs);
    osc_free(ctx->cpoints);
    osc_free(ctx->reals);
    osc_free(ctx->face_storage);
}

static osc_status step_ctx_init(step_ctx* ctx, const step_file* file, size_t size, int skip,
                                osc_brep_import_report* report) {
    memset(ctx, 0, sizeof *ctx);
    ctx->file = file;
    ctx->file_size = size;
    ctx->work_budget = fmax(STEP_MIN_WORK, STEP_WORK_PER_BYTE * (double)size);
    ctx->skip = skip != 0;
    ctx->report = report;
    ctx->scale = 1.0;
    size_t count = (size_t)file->instance_count + 1;
    ctx->edge_of = osc_calloc(count, sizeof(int));
    ctx->edge_serial = osc_calloc(count, sizeof(int));
    ctx->dropped_serial = osc_calloc(count, sizeof(int));
    ctx->vertex_of = osc_calloc(count, sizeof(int));
    ctx->vertex_serial = osc_calloc(count, sizeof(int));
    // the file's distance uncertainty (UNCERTAINTY_MEASURE_WITH_UNIT of a length): the largest
    for (int i = 0; i < file->instance_count; ++i) {
        int args = step_args(file, i, "UNCERTAINTY_MEASURE_WITH_UNIT");
        double value;
        if (args >= 0 && step_real(file, i, args, 0, &value) == OSC_OK && value > 0.0 && isfinite(value))
            ctx->uncertainty = fmax(ctx->uncertainty, value);
    }
    osc_clear_error();
    return ctx->edge_of && ctx->edge_serial && ctx->dropped_serial && ctx->vertex_of && ctx->vertex_serial
               ? OSC_OK
               : OSC_ERR_NO_MEMORY;
}

osc_status step_convert(const char* text, size_t size, int skip_unsupported, osc_brep_desc* desc,
                        osc_brep_import_report* report, osc_brep_shell** shells, int* shell_count,
                        osc_brep_skipped** skipped, int* skipped_count) {
    memset(desc, 0, sizeof *desc);
    memset(report, 0, sizeof *report);
    if (shells) *shells = NULL;
    if (shell_count) *shell_count = 0;
    if (skipped) *skipped = NULL;
    if (skipped_count) *skipped_count = 0;
    step_file file;
    step_ctx ctx;
    step_model model;
    memset(&model, 0, sizeof model);
    step_placed* placed = NULL;
    int count = 0;
    osc_status status = step_parse(text, size, &file);
    if (status == OSC_OK)
        status = step_ctx_init(&ctx, &file, size, skip_unsupported, report);
    else
        memset(&ctx, 0, sizeof ctx);
    if (status == OSC_OK) status = step_find_solids(&file, &placed, &count, &report->length_unit);
    for (int i = 0; status == OSC_OK && i < file.instance_count; ++i)
        report->solids +=
            step_args(&file, i, "MANIFOLD_SOLID_BREP") >= 0 || step_args(&file, i, "BREP_WITH_VOIDS") >= 0;
    report->instances = count;
    if (status == OSC_OK && count == 0)
        status = osc_fail(OSC_ERR_UNSUPPORTED, "osc_brep_read_step: no MANIFOLD_SOLID_BREP in the file");
    if (status == OSC_OK) status = step_place_solids(&ctx, placed, count, &model);
    if (status == OSC_OK && model.face_count == 0)
        status = osc_fail(OSC_ERR_UNSUPPORTED, "osc_brep_read_step: no solid could be imported (first left out: %s)",
                          report->first_skipped);
    osc_free(placed);
    step_ctx_free(&ctx);
    step_free(&file);
    desc->surfaces = model.surfaces;
    desc->surface_count = model.surface_count;
    desc->faces = model.faces;
    desc->face_count = model.face_count;
    desc->loops = model.loops;
    desc->loop_count = model.loop_count;
    desc->trims = model.trims;
    desc->trim_count = model.trim_count;
    desc->edges = model.edges;
    desc->edge_count = model.edge_count;
    desc->vertices = model.vertices;
    desc->vertex_count = model.vertex_count;
    desc->nurbs = model.nurbs;
    desc->nurbs_count = model.nurbs_count;
    desc->control_points = model.control_points;
    desc->control_point_count = model.control_point_count;
    desc->reals = model.reals;
    desc->real_count = model.real_count;
    if (status != OSC_OK || !shells) osc_free(model.shells);
    if (status != OSC_OK || !skipped) osc_free(model.skipped);
    if (status == OSC_OK && skipped) {
        *skipped = model.skipped;
        *skipped_count = model.skipped_count;
    }
    if (status != OSC_OK) {
        step_desc_free(desc);
        return status;
    }
    if (shells) {
        *shells = model.shells;
        *shell_count = model.shell_count;
    }
    return OSC_OK;
}

// ---- public -----------------------------------------------------------------------------------

osc_status osc_brep_read_step(const char* text, size_t size, int skip_unsupported, const osc_brep_settings* settings,
                              osc_brep** out, osc_brep_import_report* report) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_read_step: out is NULL");
    *out = NULL;
    if (!text && size)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_read_step: text is NULL with size %zu", size);
    osc_brep_import_report local;
    if (!report) report = &local;
    osc_brep_desc desc;
    osc_brep_shell* shells = NULL;
    int shell_count = 0;
    osc_brep_skipped* skipped = NULL;
    int skipped_count = 0;
    osc_status status = step_convert(text ? text : "", size, skip_unsupported, &desc, report, &shells, &shell_count,
                                     &skipped, &skipped_count);
    if (status == OSC_OK) {
        status = osc_brep_create_shells(&desc, shells, shell_count, settings, out);
        if (status == OSC_OK && (status = osc_brep_set_skipped(*out, skipped, skipped_count)) != OSC_OK) {
            osc_brep_destroy(*out);
            *out = NULL;
        }
        if (status != OSC_OK) status = osc_fail_in("osc_brep_read_step", status);
    }
    step_desc_free(&desc);
    osc_free(shells);
    osc_free(skipped);
    return status;
}

osc_status osc_brep_load_step(const char* path, int skip_unsupported, const osc_brep_settings* settings, osc_brep** out,
                              osc_brep_import_report* report) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_load_step: out is NULL");
    *out = NULL;
    if (report) memset(report, 0, sizeof *report);
    if (!path) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_load_step: path is NULL");
    unsigned char* data = NULL;
    size_t size = 0;
    osc_status status = osc_read_file("osc_brep_load_step", path, &data, &size);
    if (status != OSC_OK) return status;
    status = osc_brep_read_step((const char*)data, size, skip_unsupported, settings, out, report);
    osc_free(data);
    return status;
}
