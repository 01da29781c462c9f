// dcol.c: DCOL queries (Tracy et al. 2023 §III): problem (9) assembled from two shapes' body-frame conic
// rows, solved by conic.c, and differentiated by the implicit function theorem on its KKT system.
// docs/dcol.md derives every formula used here.

#include "dcol_internal.h"
#include "query_internal.h"

#include <string.h>

// re-centring steps allowed from the support path's start before the general start is tried
static const int SUPPORT_MAX_ITERATIONS = 8;

// the gap below which a row or cone of an exact optimum counts as active
static const double ACTIVE_GAP = 1e-9;

// the relative bias of the derivatives by the factor's regularisation above which they are
// refined to the unregularised normal system (docs/dcol.md §4.1)
static const double REFINE_BIAS = 1e-5;
// the weight D |m|^2 that makes a block stiff in the augmented system, and the estimated rounding
// of the normal's tangent (relative to its largest entry) above which it is taken there
// (docs/dcol.md §4.5)
static const double STIFF_WEIGHT = 1e4;
static const double NORMAL_ROUNDING = 1e-4;

// the share of a body's inner radius that a central point's offsets (the barrier times the pair's
// size) may reach before the result is flagged OSC_DCOL_SMOOTHED (docs/dcol.md §5)
static const double SMOOTHED_SHARE = 1e-6;

// the fewest pairs per thread for which a batch starts a team: a box and a capsule with alpha's
// gradient, median of 201 calls, took as long on 2 threads as on 1 at 4 and 8 pairs (1.04x),
// 0.89x at 16 and 0.6x from 32, and 1.2-1.5x at 1 and 2
static const size_t BATCH_PAIRS_PER_THREAD = 8;

osc_dcol_settings osc_dcol_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_dcol_settings){.tolerance = 1e-10, .max_iterations = 40, .regularization = 1e-16};
}

// ---------------------------------------------------------------------------------------------
// assembly (docs/dcol.md §2)
//
// The problem is posed in normalised world coordinates x' = (x - centre) / scale, centre the
// midpoint of the origins and scale the sum of the bounding radii, so the solver's constants
// (the unit shift of its starting point, its residual tolerances) mean the same for every size
// and place. Variables: x' (3), alpha, A's slacks / scale, B's slacks / scale. Rows: A's orthant,
// B's orthant, A's cone, B's cone. A shape's row gbar (length units, in its conic frame) becomes
//     G_x = Q gbar_y,  G_alpha = gbar_alpha / scale,  G_slack = gbar_slack,  h = G_x . r'
// with Q the world-from-conic-frame rotation: the pose's columns permuted (convex_internal.h).

static void add_rows(dcol_problem* dp, int which, int first, int from, int count) {
    const dcol_body* body = &dp->body[which];
    conic_problem* p = &dp->conic;
    int slacks = body->shape->slack_count, slack_column = body->slack_column;
    for (int k = 0; k < count; ++k) {
        const double* g = body->shape->rows[from + k];
        double* row = p->G[first + k];
        memset(row, 0, sizeof(double) * CONIC_MAX_VARIABLES);
        osc_vec3 gx = osc_mat3_apply(body->rotation, osc_v3(g[0], g[1], g[2]));
        row[0] = gx.x;
        row[1] = gx.y;
        row[2] = gx.z;
        row[3] = g[CONVEX_COLUMN_ALPHA] / dp->scale;
        for (int t = 0; t < slacks; ++t) row[slack_column + t] = g[CONVEX_COLUMN_SLACK + t];
        p->h[first + k] = osc_dot(gx, body->origin);
    }
}

// the problem's columns of a body's row mask (osc_convex's row_columns): its slacks moved to
// their columns
static unsigned problem_columns(const dcol_body* body, unsigned local) {
    unsigned slacks = local >> CONVEX_COLUMN_SLACK;
    return (local & ((1u << CONVEX_COLUMN_SLACK) - 1)) | slacks << body->slack_column;
}

static void assemble(dcol_problem* dp, const osc_convex* a, osc_pose pose_a, const osc_convex* b, osc_pose pose_b) {
    conic_problem* p = &dp->conic;
    dp->centre = osc_scale(osc_add(pose_a.p, pose_b.p), 0.5);
    dp->scale = a->bounding_radius + b->bounding_radius;
    const osc_convex* shapes[2] = {a, b};
    osc_pose poses[2] = {pose_a, pose_b};
    int column = 4;
    for (int which = 0; which < 2; ++which) {
        dcol_body* body = &dp->body[which];
        body->shape = shapes[which];
        body->rotation = convex_conic_rotation(shapes[which], osc_quat_to_mat3(poses[which].q));
        body->origin = osc_scale(osc_sub(poses[which].p, dp->centre), 1.0 / dp->scale);
        body->slack_column = column;
        column += shapes[which]->slack_count;
    }
    p->variables = column;
    p->objective = 3;
    dp->rows_ready = false;
}

void dcol_assemble_rows(dcol_problem* dp) {
    conic_problem* p = &dp->conic;
    const osc_convex* shapes[2] = {dp->body[0].shape, dp->body[1].shape};
    dp->rows_ready = true;
    int row = 0;
    for (int which = 0; which < 2; ++which) {
        const osc_convex* shape = shapes[which];
        dp->body[which].row_ranges[0][0] = row;
        add_rows(dp, which, row, 0, shape->orthant_rows);
        p->group_columns[which] = problem_columns(&dp->body[which], shape->row_columns[0]);
        row += shape->orthant_rows;
        dp->body[which].row_ranges[0][1] = row;
    }
    p->orthant_rows = row;
    p->orthant_groups = 2;
    p->orthant_group_end[0] = dp->body[0].row_ranges[0][1];
    p->orthant_group_end[1] = row;
    p->cone_count = 0;
    for (int which = 0; which < 2; ++which) {
        const osc_convex* shape = shapes[which];
        dp->body[which].row_ranges[1][0] = row;
        if (shape->cone_dim > 0) {
            add_rows(dp, which, row, shape->orthant_rows, shape->cone_dim);
            p->cone_columns[p->cone_count] = problem_columns(&dp->body[which], shape->row_columns[1]);
            p->cone_dim[p->cone_count++] = shape->cone_dim;
            row += shape->cone_dim;
        }
        dp->body[which].row_ranges[1][1] = row;
    }
    p->rows = row;
}

// ---------------------------------------------------------------------------------------------
// argument checks

// checks the ranges of the settings (osc_dcol_settings)
static osc_status check_settings(const char* function, const osc_dcol_settings* settings) {
    if (!(settings->tolerance >= 1e-12 && settings->tolerance <= 1e-1))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.tolerance is %g; it must lie in [1e-12, 0.1]", function,
                        settings->tolerance);
    if (settings->max_iterations < 1 || settings->max_iterations > 1000)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.max_iterations is %d; it must lie in [1, 1000]",
                        function, settings->max_iterations);
    if (!(settings->regularization >= 0.0 && settings->regularization <= 1e-3))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.regularization is %g; it must lie in [0, 1e-3]",
                        function, settings->regularization);
    return OSC_OK;
}

// checks the pair's proportions (dcol.h): each inner radius at least OSC_DCOL_MIN_SIZE_RATIO of the
// pair's size (the sum of the bounding radii), the origins at most OSC_DCOL_MAX_SEPARATION of it apart
static osc_status check_proportions(const char* function, const osc_convex* a, osc_pose pose_a, const osc_convex* b,
                                    osc_pose pose_b) {
    double size = a->bounding_radius + b->bounding_radius;
    const osc_convex* shapes[2] = {a, b};
    for (int which = 0; which < 2; ++which)
        if (!(shapes[which]->inner_radius >= OSC_DCOL_MIN_SIZE_RATIO * size))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: shape %s's inner radius %g is below %g of the pair's size %g (the "
                            "sum of the bounding radii)",
                            function, which ? "b" : "a", shapes[which]->inner_radius, OSC_DCOL_MIN_SIZE_RATIO, size);
    // the largest coordinate first (the square of a larger gap could overflow), then the squares
    osc_vec3 gap = osc_sub(pose_b.p, pose_a.p);
    double x = fabs(gap.x), y = fabs(gap.y), z = fabs(gap.z);
    double largest = x > y ? (x > z ? x : z) : (y > z ? y : z); // (NaN: not finite poses, checked)
    double bound = OSC_DCOL_MAX_SEPARATION * size;
    if (!(largest <= bound && osc_length_squared(gap) <= bound * bound)) {
        double separation = largest <= bound ? osc_length(gap) : largest;
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: pose_b.p is %g from pose_a.p, a separation of %g times the pair's size "
                        "%g (the sum of the bounding radii); at most %g",
                        function, separation, separation / size, size, OSC_DCOL_MAX_SEPARATION);
    }
    return OSC_OK;
}

osc_status dcol_check_query(const char* function, const osc_convex* a, osc_pose pose_a, const osc_convex* b,
                            osc_pose pose_b, const osc_dcol_settings* settings, dcol_query* query) {
    if (!a || !b) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: shape %s is NULL", function, a ? "b" : "a");
    osc_status status = osc_check_pose(function, "pose_a", pose_a, INFINITY, NULL, &pose_a);
    if (status == OSC_OK) status = osc_check_pose(function, "pose_b", pose_b, INFINITY, NULL, &pose_b);
    if (status == OSC_OK) status = check_proportions(function, a, pose_a, b, pose_b);
    query->settings = settings ? *settings : osc_dcol_settings_default();
    if (status == OSC_OK) status = check_settings(function, &query->settings);
    if (status != OSC_OK) return status;
    query->a = a;
    query->b = b;
    query->pose_a = pose_a;
    query->pose_b = pose_b;
    query->options = dcol_default_options();
    query->trace = NULL;
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// the solve

// the primal start: the warm solution with alpha enlarged by 5 % (and further until the point is
// strictly inside), or the point that divides the origins in the ratio of the inner radii with an
// alpha at which both scaled shapes hold it (their inner balls reach it)
static void start_point(dcol_problem* dp, const osc_convex* a, const osc_convex* b, const osc_dcol_warm_start* warm) {
    conic_state* state = &dp->state;
    memset(state->x, 0, sizeof state->x);
    if (warm) {
        osc_vec3 x = osc_scale(osc_sub(osc_v3(warm->solution[0], warm->solution[1], warm->solution[2]), dp->centre),
                               1.0 / dp->scale);
        state->x[0] = x.x;
        state->x[1] = x.y;
        state->x[2] = x.z;
        state->x[3] = 1.05 * warm->solution[3] + 1e-6;
        for (int j = 4; j < dp->conic.variables; ++j) state->x[j] = warm->solution[j] / dp->scale;
        // every constraint loosens as alpha grows: grow it until the point is strictly inside
        for (int grow = 0; grow < 60 && !(conic_violation(&dp->conic, state->x) < 0.0); ++grow)
            state->x[3] = 1.5 * state->x[3] + 1e-3;
    } else {
        // the point where the inner balls (radii rho_A, rho_B) meet when scaled by
        // L / (rho_A + rho_B), and 1.5 times that scale (docs/dcol.md §3.3)
        double share = a->inner_radius / (a->inner_radius + b->inner_radius);
        osc_vec3 x = osc_add_scaled(dp->body[0].origin, osc_sub(dp->body[1].origin, dp->body[0].origin), share);
        state->x[0] = x.x;
        state->x[1] = x.y;
        state->x[2] = x.z;
        double separation = 2.0 * osc_length(dp->body[0].origin) * dp->scale;
        state->x[3] = 1.5 * separation / (a->inner_radius + b->inner_radius) + 0.1;
    }
}

// two strictly convex shapes (spheres, ellipsoids) touch at one point: never a flat contact
static bool is_smooth(const osc_convex* shape) {
    return shape->kind == OSC_CONVEX_SPHERE || shape->kind == OSC_CONVEX_ELLIPSOID;
}

// a warm start from the normalised variables v (x', alpha, slacks') in world units
static void write_warm_start(const dcol_problem* dp, const double* v, bool valid, osc_dcol_warm_start* out) {
    out->valid = valid;
    out->variables = dp->conic.variables;
    osc_vec3 x = osc_add_scaled(dp->centre, osc_v3(v[0], v[1], v[2]), dp->scale);
    out->solution[0] = x.x;
    out->solution[1] = x.y;
    out->solution[2] = x.z;
    out->solution[3] = v[3];
    for (int j = 4; j < dp->conic.variables; ++j) out->solution[j] = v[j] * dp->scale;
}

// flat contacts: x is pinned by active planes (stiffness ~ 1/mu), by curved active cones (~1) or
// by nothing (~mu); the trace of H^-1's x-block (from the solver's factor) is the largest
// compliance, found by forward substitutions alone. The factor's regularisation caps compliances at
// 1 / shift, so a compliance above min(1 / sqrt(mu), 1 / sqrt(shift)), the geometric middle of the
// two regimes, marks a free direction (docs/dcol.md §5)
static bool is_degenerate(const dcol_problem* dp, double barrier) {
    double trace = conic_factor_inverse_trace(&dp->conic, &dp->state, 3);
    double threshold = 1.0 / sqrt(fmax(barrier, dp->state.factor_shift));
    return !(trace <= threshold);
}

// A flat contact answered by the general start: its stopping rule, blind to the barrier's O(mu)
// forces along the contact's free directions (§3.4, the stalled dual residual), can leave x
// anywhere on the contact (a cylinder lying on a box's edge: 45 % of its length off the centre).
// The barrier problem's minimiser on the contact from that iterate (conic_centre_flat, the flat
// case of the support path's start) re-centred, kept where it converges.
static void recentre_flat(dcol_problem* dp, const osc_dcol_settings* settings, int limit) {
    conic_state moved = dp->state;
    if (!conic_centre_flat(&dp->conic, settings->tolerance, ACTIVE_GAP, moved.x, moved.s, moved.z)) return;
    if (conic_solve(&dp->conic, settings->tolerance, limit, settings->regularization, true, false, &moved) == OSC_OK)
        dp->state = moved;
}

osc_status dcol_solve(const char* function, const dcol_query* query, osc_dcol_warm_start* warm, bool allow_exact,
                      dcol_problem* dp) {
    const osc_dcol_settings settings = query->settings;
    const osc_convex *a = query->a, *b = query->b;
    dcol_trace* trace = query->trace;
    dp->options = query->options;
    assemble(dp, a, query->pose_a, b, query->pose_b);
    dp->exact = false;
    dp->exact_allowed = allow_exact && dp->options.exact_path && settings.tolerance <= DCOL_CLOSED_FORM_MAX_BARRIER;
    // an exact contact needs no rows: they are assembled once the conic path is taken
    if (!dp->exact_allowed) dcol_assemble_rows(dp);
    conic_state* state = &dp->state;
    bool use_warm = warm && warm->valid && warm->variables == dp->conic.variables;
    // the support path starts next to the answer, which no warm start beats (docs/dcol.md §3.5)
    osc_status status = OSC_ERR_NOT_CONVERGED;
    dp->has_optimum = false;
    int limit = settings.max_iterations < SUPPORT_MAX_ITERATIONS ? settings.max_iterations : SUPPORT_MAX_ITERATIONS;
    bool supported = dp->options.support_path && dcol_support_start(dp, settings.tolerance, ACTIVE_GAP);
    if (dp->exact) {
        // a point contact's exact optimum (docs/dcol.md §3.7): no conic state
        if (trace) ++trace->exact_solves;
        if (warm) write_warm_start(dp, dp->optimum, true, warm);
        return OSC_OK;
    }
    dp->exact_allowed = false; // the last resort's walk below must start the solver
    if (!dp->rows_ready) dcol_assemble_rows(dp);
    if (supported)
        status = conic_solve(&dp->conic, settings.tolerance, limit, settings.regularization, true, false, state);
    bool general = status != OSC_OK; // the support path's start did not answer
    if (status != OSC_OK && dp->has_optimum) {
        // the walk's exact optimum, whose first-order start failed (a thin shape's), starts the
        // general method instead of the inner radii's point (docs/dcol.md §3.3)
        osc_dcol_warm_start optimum;
        write_warm_start(dp, dp->optimum, true, &optimum);
        start_point(dp, a, b, &optimum);
        if (trace) ++trace->general_starts;
        status = conic_solve(&dp->conic, settings.tolerance, settings.max_iterations, settings.regularization, false,
                             true, state);
    }
    if (status != OSC_OK) {
        start_point(dp, a, b, use_warm ? warm : NULL);
        if (trace) ++trace->general_starts;
        status = conic_solve(&dp->conic, settings.tolerance, settings.max_iterations, settings.regularization, false,
                             true, state);
    }
    if (status != OSC_OK && use_warm) {
        // a warm start never costs an answer: fall back to the cold start
        start_point(dp, a, b, NULL);
        if (trace) ++trace->general_starts;
        status = conic_solve(&dp->conic, settings.tolerance, settings.max_iterations, settings.regularization, false,
                             true, state);
    }
    if (status != OSC_OK && supported && dcol_support_start(dp, settings.tolerance, ACTIVE_GAP)) {
        // the last resort: the support path's start once more, now returning to its best
        // acceptable iterate where its steps diverge or run out (two needles of aspect 1e5, whose
        // start has a dual residual of 7e-8 of its terms, and whose Newton steps, on a normal
        // matrix that spans 1e30, only lose that; docs/dcol.md §3.4)
        status = conic_solve(&dp->conic, settings.tolerance, limit, settings.regularization, true, true, state);
    }
    if (status == OSC_OK && general && is_degenerate(dp, settings.tolerance)) recentre_flat(dp, &settings, limit);
    if (warm) write_warm_start(dp, state->x, status == OSC_OK, warm);
    if (status != OSC_OK) return osc_fail_in(function, status);
    return OSC_OK;
}

// The support walk alone where it may end at an exact contact (§3.7), as dcol_solve's first
// stage: true with dp->exact set (the result and derivatives then come from dp->contact), false
// where the pair has no exact contact (dp then holds the walk's start, to be discarded). An exact
// contact is homogeneous in the offset of the origins, so a near-coincident pair (§3.8) takes it
// as posed and is scaled only where there is none.
static bool solve_exact(const dcol_query* query, osc_dcol_warm_start* warm, dcol_problem* dp) {
    if (!query->options.support_path || !query->options.exact_path ||
        query->settings.tolerance > DCOL_CLOSED_FORM_MAX_BARRIER)
        return false;
    dp->options = query->options;
    assemble(dp, query->a, query->pose_a, query->b, query->pose_b);
    dp->exact = false;
    dp->exact_allowed = true;
    dp->has_optimum = false;
    dcol_support_start(dp, query->settings.tolerance, ACTIVE_GAP);
    if (!dp->exact) return false;
    if (query->trace) ++query->trace->exact_solves;
    if (warm) write_warm_start(dp, dp->optimum, true, warm);
    return true;
}

// w_X = G_x^T z over body X's rows: the outward normal of scaled X at x, times its dual weight
static osc_vec3 body_dual_normal(const dcol_problem* dp, int which, const double* z) {
    osc_vec3 w = osc_v3(0.0, 0.0, 0.0);
    for (int range = 0; range < 2; ++range)
        for (int i = dp->body[which].row_ranges[range][0]; i < dp->body[which].row_ranges[range][1]; ++i)
            w = osc_add_scaled(w, osc_v3(dp->conic.G[i][0], dp->conic.G[i][1], dp->conic.G[i][2]), z[i]);
    return w;
}

// K_X = G^T W^-2 G_x restricted to body X's rows: column j of H's x-block from X alone [n][3]; with
// `stiff`, S_X, the same without the stiff blocks' rank-one parts (docs/dcol.md §4.5)
static void body_normal_block(const dcol_problem* dp, int which, const conic_stiff_system* stiff,
                              double block[CONIC_MAX_VARIABLES][3]) {
    double part[2][CONIC_MAX_VARIABLES][3];
    const dcol_body* body = &dp->body[which];
    for (int range = 0; range < 2; ++range) {
        int first = body->row_ranges[range][0], end = body->row_ranges[range][1];
        if (stiff)
            conic_stiff_moderate_block(&dp->conic, &dp->state, stiff, first, end, part[range]);
        else
            conic_normal_block(&dp->conic, &dp->state, first, end, part[range]);
    }
    for (int j = 0; j < dp->conic.variables; ++j)
        for (int k = 0; k < 3; ++k) block[j][k] = part[0][j][k] + part[1][j][k];
}

bool dcol_contact_points(osc_pose pose_a, osc_pose pose_b, double scale, osc_dcol_result* result) {
    double alpha = result->alpha;
    double separation = osc_length(osc_sub(pose_a.p, pose_b.p));
    if (!(separation > DCOL_COINCIDENT_SEPARATION * scale) || !(alpha > 0.0)) {
        result->flags |= OSC_DCOL_COINCIDENT;
        result->point_a = pose_a.p;
        result->point_b = pose_b.p;
        return false;
    }
    // eq. (29) and eq. (30), signed
    result->point_a = osc_add_scaled(pose_a.p, osc_sub(result->point, pose_a.p), 1.0 / alpha);
    result->point_b = osc_add_scaled(pose_b.p, osc_sub(result->point, pose_b.p), 1.0 / alpha);
    result->distance = (1.0 - 1.0 / alpha) * separation;
    return true;
}

// A point contact whose normal is not unique (two coplanar discs' rims side by side, a vertex on
// an edge): x is pinned, but the dual is not, and at the barrier the normal turns by O(1 / mu)
// per unit translation, where a smooth contact's turns by about its curvature (at most the pair's
// size over the smaller inner radius, normalised). With dw_A = N m for A's translation m,
// N = (K_A)_xx - K_A^T H^-1 K_A (§4.2; symmetric, positive semidefinite), the normal's turn is
// measured as alpha trace(P N P) / |w|, P = I - n n^T, where trace(P N P) = trace((K_A)_xx P) -
// sum_k (K_A P e_k)^T H^-1 (K_A P e_k) takes forward substitutions alone. Above the geometric
// middle of the two regimes, sqrt(size / inner / max(mu, shift)), the contact is flagged
// DEGENERATE with the flat ones (docs/dcol.md §5). A sphere or an ellipsoid in the pair, strictly
// convex, makes the normal unique.
static bool normal_is_free(const dcol_problem* dp, double barrier) {
    if (is_smooth(dp->body[0].shape) || is_smooth(dp->body[1].shape)) return false;
    double block[CONIC_MAX_VARIABLES][3], columns[3][CONIC_MAX_VARIABLES];
    int n = dp->conic.variables;
    body_normal_block(dp, 0, NULL, block);
    osc_vec3 w = body_dual_normal(dp, 0, dp->state.z);
    double length = osc_length(w);
    if (!(length > 0.0)) return false;
    double normal[3] = {w.x / length, w.y / length, w.z / length}, projector[3][3];
    for (int b = 0; b < 3; ++b)
        for (int k = 0; k < 3; ++k) projector[b][k] = (b == k) - normal[b] * normal[k];
    double turn = 0.0;
    for (int k = 0; k < 3; ++k) {
        for (int j = 0; j < n; ++j)
            columns[k][j] =
                block[j][0] * projector[0][k] + block[j][1] * projector[1][k] + block[j][2] * projector[2][k];
        turn += columns[k][k]; // trace((K_A)_xx P): the x rows of K_A P
    }
    turn -= conic_factor_inverse_form(&dp->conic, &dp->state, 3, columns);
    double inner = fmin(dp->body[0].shape->inner_radius, dp->body[1].shape->inner_radius) / dp->scale;
    double threshold = sqrt(1.0 / (inner * fmax(barrier, dp->state.factor_shift)));
    return !(dp->state.x[3] * turn / length <= threshold);
}

static void fill_result(const dcol_problem* dp, osc_pose pose_a, osc_pose pose_b, double barrier,
                        osc_dcol_result* result) {
    const double* x = dp->state.x;
    memset(result, 0, sizeof *result);
    result->alpha = x[3];
    result->point = osc_add_scaled(dp->centre, osc_v3(x[0], x[1], x[2]), dp->scale);
    result->iterations = dp->state.iterations;
    if (!dcol_contact_points(pose_a, pose_b, dp->scale, result)) return;
    result->normal = osc_normalize(body_dual_normal(dp, 0, dp->state.z));
    bool smooth = is_smooth(dp->body[0].shape) && is_smooth(dp->body[1].shape);
    if (!smooth && (is_degenerate(dp, barrier) || normal_is_free(dp, barrier))) result->flags |= OSC_DCOL_DEGENERATE;
    // the central point's offsets are about the barrier times the pair's size in world units
    double inner = fmin(dp->body[0].shape->inner_radius, dp->body[1].shape->inner_radius);
    if (barrier * dp->scale > SMOOTHED_SHARE * inner) result->flags |= OSC_DCOL_SMOOTHED;
}

// ---------------------------------------------------------------------------------------------
// derivatives (docs/dcol.md §4)

// Per twist column c: m = -(dp' + dtheta x arm) on the twisted body's rows and r_x = dtheta x w_X
// (zero for a translation), the right-hand side K_X m + E r_x of its tangent (docs/dcol.md §4.2)
static void twist_terms(const dcol_problem* dp, double m[3][12], double r_x[3][12]) {
    osc_vec3 x = osc_v3(dp->state.x[0], dp->state.x[1], dp->state.x[2]);
    for (int which = 0; which < 2; ++which) {
        osc_vec3 arm = osc_sub(x, dp->body[which].origin);
        osc_vec3 w = body_dual_normal(dp, which, dp->state.z);
        double a[3] = {arm.x, arm.y, arm.z}, v[3] = {w.x, w.y, w.z};
        for (int k = 0; k < 3; ++k) {
            // translation along e_k: m = -e_k, r_x = 0; rotation about e_k: m = -(e_k x arm),
            // r_x = e_k x w, with (e_k x u)_i = -u_{k+2} at i = k+1, u_{k+1} at i = k+2 (mod 3)
            int t = 6 * which + k, r = t + 3, i1 = (k + 1) % 3, i2 = (k + 2) % 3;
            for (int i = 0; i < 3; ++i) {
                m[i][t] = i == k ? -1.0 : 0.0;
                r_x[i][t] = 0.0;
            }
            m[k][r] = 0.0;
            m[i1][r] = a[i2];
            m[i2][r] = -a[i1];
            r_x[k][r] = 0.0;
            r_x[i1][r] = -v[i2];
            r_x[i2][r] = v[i1];
        }
    }
}

// From solved = (H^-1 K_A's columns, H^-1 E's): H^-1 K_B = E - H^-1 K_A in place of H^-1 E (K_A + K_B
// is H's x-columns: no solves, docs/dcol.md §4.2), and tangent = -H^-1 (K_X m + E r_x) per column
OSC_FORCE_INLINE void combine_tangents(const int n, double solved[6][CONIC_MAX_VARIABLES], double m[3][12],
                                       double r_x[3][12], double tangent[CONIC_MAX_VARIABLES][12]) {
    double x_directions[3][CONIC_MAX_VARIABLES];
    memcpy(x_directions, solved[3], sizeof x_directions);
    for (int k = 0; k < 3; ++k)
        for (int j = 0; j < n; ++j) solved[3 + k][j] = (j == k) - solved[k][j];
    for (int j = 0; j < n; ++j) {
        double z[2][3] = {{solved[0][j], solved[1][j], solved[2][j]}, {solved[3][j], solved[4][j], solved[5][j]}};
        double e_j[3] = {x_directions[0][j], x_directions[1][j], x_directions[2][j]};
        for (int c = 0; c < 12; ++c) {
            const double* zc = z[c / 6];
            tangent[j][c] = -(zc[0] * m[0][c] + zc[1] * m[1][c] + zc[2] * m[2][c]) -
                            (e_j[0] * r_x[0][c] + e_j[1] * r_x[1][c] + e_j[2] * r_x[2][c]);
        }
    }
}

// dual_normal[k][c] = (block^T dv + block_xx m)_k, with block K_A (or S_A, on the augmented
// system) and m only for A's own twists (docs/dcol.md §4.2)
OSC_FORCE_INLINE void dual_tangents(const int n, double block[CONIC_MAX_VARIABLES][3],
                                    double tangent[CONIC_MAX_VARIABLES][12], double m[3][12],
                                    double (*dual_normal)[12]) {
    for (int k = 0; k < 3; ++k) {
        double* dw = dual_normal[k];
        for (int c = 0; c < 12; ++c) dw[c] = 0.0;
        for (int j = 0; j < n; ++j)
            for (int c = 0; c < 12; ++c) dw[c] += block[j][k] * tangent[j][c];
        for (int c = 0; c < 6; ++c) dw[c] += block[0][k] * m[0][c] + block[1][k] * m[1][c] + block[2][k] * m[2][c];
    }
}

// The tangents of solution_tangents_n on the augmented system (conic_stiff.c, docs/dcol.md §4.5):
// the six solves with lambda, the stiff blocks' dual tangents, and A's stiff duals -m_a,x lambda_a
// added to the dual tangents of S_A. False (nothing written) where the augmented matrix cannot be
// factored.
OSC_NOINLINE bool stiff_tangents(const dcol_problem* dp, double tangent[CONIC_MAX_VARIABLES][12],
                                 double (*dual_normal)[12]) {
    conic_stiff_system system;
    if (!conic_stiff_factor(&dp->conic, &dp->state, STIFF_WEIGHT, &system)) return false;
    int n = dp->conic.variables;
    const dcol_body* body = &dp->body[0];
    double block_a[CONIC_MAX_VARIABLES][3];
    body_normal_block(dp, 0, &system, block_a);
    bool of_a[CONIC_MAX_STIFF];
    for (int a = 0; a < system.count; ++a) {
        int row = system.first_row[a];
        of_a[a] = (row >= body->row_ranges[0][0] && row < body->row_ranges[0][1]) ||
                  (row >= body->row_ranges[1][0] && row < body->row_ranges[1][1]);
    }
    double solved[6][CONIC_MAX_VARIABLES], lambda[6][CONIC_MAX_STIFF];
    for (int k = 0; k < 6; ++k) {
        double b[CONIC_MAX_VARIABLES] = {0}, r[CONIC_MAX_STIFF] = {0};
        if (k < 3) { // K_A's column k: S_A's, and A's stiff blocks through r
            for (int j = 0; j < n; ++j) b[j] = block_a[j][k];
            for (int a = 0; a < system.count; ++a) r[a] = of_a[a] ? system.normal[a][k] : 0.0;
        } else { // E's
            b[k - 3] = 1.0;
        }
        conic_stiff_solve(&system, b, r, solved[k], lambda[k]);
    }
    double m[3][12], r_x[3][12];
    twist_terms(dp, m, r_x);
    combine_tangents(n, solved, m, r_x, tangent);
    if (!dual_normal) return true;
    dual_tangents(n, block_a, tangent, m, dual_normal);
    // A's stiff blocks: G_a,x^T dz_a = m_a,x D_a (m_a . dv + m_a,x . m) = -m_a,x lambda_a of the
    // column's solve, lambda linear in the solves as the tangents are (B's K columns: -A's lambda)
    for (int a = 0; a < system.count; ++a) {
        if (!of_a[a]) continue;
        for (int c = 0; c < 12; ++c) {
            double sign = c < 6 ? 1.0 : -1.0, value = 0.0;
            for (int i = 0; i < 3; ++i) value += sign * lambda[i][a] * m[i][c] + lambda[3 + i][a] * r_x[i][c];
            for (int k = 0; k < 3; ++k) dual_normal[k][c] -= system.normal[a][k] * value;
        }
    }
    return true;
}

// The 12 solution tangents d(x', alpha, slacks') / d(xi') of the normalised problem, where
// xi' = (dp / scale, dtheta), side by side: tangent[j][c] for variable j and twist column c. And
// optionally A's part of the dual tangents, dual_normal[k][c] = (G_A,x^T dz_A)_k (the change of
// w_A before the rotation of its rows). With dz_A = W_A^-2 (G_A dv + r_z,A) and
// K_A = G_A^T W_A^-2 G_A,x this is K_A^T dv + (K_A)_xx m, the r_z term only for A's own twists
// (docs/dcol.md §4.2). A twist's right-hand side is K_X m + E r_x, so the tangents combine
// H^-1 K_A, H^-1 K_B and H^-1 E, and H^-1 K_B follows from the other two: six solves, not twelve
// (six more where they are refined, docs/dcol.md §4.1). Every loop over c runs over the 12 columns
// at once. Where x is compliant they come from the augmented system (stiff_tangents) instead; false
// where the dual tangents' estimated rounding asks for that system too (docs/dcol.md §4.5).
OSC_FORCE_INLINE bool solution_tangents_n(const int n, const dcol_problem* dp, double tangent[CONIC_MAX_VARIABLES][12],
                                          double (*dual_normal)[12]) {
    double block_a[CONIC_MAX_VARIABLES][3];
    double solved[6][CONIC_MAX_VARIABLES]; // H^-1 K_A's columns, then H^-1 K_B's
    body_normal_block(dp, 0, NULL, block_a);
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < 3; ++k) solved[k][j] = block_a[j][k];
    // H^-1 E, E = [I_3; 0] (a rotation's force on x), with them in one pass
    memset(solved[3], 0, sizeof(double) * 3 * CONIC_MAX_VARIABLES);
    for (int k = 0; k < 3; ++k) solved[3 + k][k] = 1.0;
    conic_factor_solve_many(&dp->conic, &dp->state, 6, solved);
    // where x is compliant (a near-flat contact, trace((H^-1)_xx) large) the sum H = S + M^T D M
    // has rounded S's share in the free direction away (docs/dcol.md §4.5)
    double compliance = solved[3][0] + solved[4][1] + solved[5][2];
    bool compliant = compliance > dp->options.stiff_compliance;
    if (compliant && stiff_tangents(dp, tangent, dual_normal)) return true;
    // The factor's shift biases both by about shift times the compliance of x: above REFINE_BIAS
    // they are refined to the normal system without the shift (docs/dcol.md §4.1).
    if (dp->state.factor_shift * compliance > REFINE_BIAS) conic_refine_solutions(&dp->conic, &dp->state, 6, solved);
    double m[3][12], r_x[3][12];
    twist_terms(dp, m, r_x);
    combine_tangents(n, solved, m, r_x, tangent);
    if (!dual_normal) return true;
    dual_tangents(n, block_a, tangent, m, dual_normal);
    if (compliant) return true; // the augmented matrix could not be factored
    // A's stiff duals enter dw as D_a (m_a . dv + ...), a weight up to 1e10 times a product that
    // cancels to its share: their rounding, about 1e-16 D |m|^2 |dv| (trace((K_A)_xx) for D |m|^2),
    // against the largest |dw| decides whether the augmented system must give them
    double dv = 0.0, dw = 0.0;
    for (int c = 0; c < 12; ++c) {
        for (int j = 0; j < n; ++j) dv = dv < fabs(tangent[j][c]) ? fabs(tangent[j][c]) : dv;
        for (int k = 0; k < 3; ++k) dw = dw < fabs(dual_normal[k][c]) ? fabs(dual_normal[k][c]) : dw;
    }
    double stiffest = block_a[0][0] + block_a[1][1] + block_a[2][2];
    return !(2.2e-16 * stiffest * dv > NORMAL_ROUNDING * dw && dp->options.stiff_compliance < INFINITY);
}

// solution_tangents_n with the variable count a constant (4 to 8), so that its loops unroll, and
// stiff_tangents where its dual tangents are too rounded
static void solution_tangents(const dcol_problem* dp, double tangent[CONIC_MAX_VARIABLES][12],
                              double (*dual_normal)[12]) {
    bool done;
    switch (dp->conic.variables) {
        case 4: done = solution_tangents_n(4, dp, tangent, dual_normal); break;
        case 5: done = solution_tangents_n(5, dp, tangent, dual_normal); break;
        case 6: done = solution_tangents_n(6, dp, tangent, dual_normal); break;
        case 7: done = solution_tangents_n(7, dp, tangent, dual_normal); break;
        default: done = solution_tangents_n(8, dp, tangent, dual_normal); break;
    }
    // the first pass's tangents stand where the augmented matrix cannot be factored
    if (!done) stiff_tangents(dp, tangent, dual_normal);
}

void dcol_point_jacobians(osc_pose pose_a, osc_pose pose_b, const osc_dcol_result* result, const double dalpha[12],
                          const double* dx, const osc_dcol_jacobians* jac) {
    bool coincident = result->flags & OSC_DCOL_COINCIDENT;
    double alpha = result->alpha;
    osc_pose poses[2] = {pose_a, pose_b};
    double* point_jacobians[2] = {jac->point_a, jac->point_b};
    // eq. (29): dp_X = (1 - 1/alpha) dr_X + dx / alpha - (x - r_X) dalpha / alpha^2; dx / alpha and
    // dalpha / alpha^2 are the two bodies' shared terms, formed once
    double inverse = 1.0 / alpha, slope[12], scaled[36];
    if ((jac->point_a || jac->point_b) && !coincident) {
        for (int c = 0; c < 12; ++c) slope[c] = -dalpha[c] * (inverse * inverse);
        for (int i = 0; i < 36; ++i) scaled[i] = dx[i] * inverse;
    }
    for (int which = 0; which < 2; ++which) {
        double* out = point_jacobians[which];
        if (!out) continue;
        if (coincident) {
            memset(out, 0, sizeof(double) * 36);
            continue;
        }
        osc_vec3 arm = osc_sub(result->point, poses[which].p);
        for (int k = 0; k < 3; ++k) {
            double arm_k = osc_vec3_get(arm, k), *row = out + 12 * k;
            for (int c = 0; c < 12; ++c) row[c] = scaled[12 * k + c] + arm_k * slope[c];
            row[6 * which + k] += 1.0 - inverse;
        }
    }
    if (jac->distance) {
        // eq. (30): d = (1 - 1/alpha) L, L = |r_A - r_B|
        if (coincident) {
            memset(jac->distance, 0, sizeof(double) * 12);
        } else {
            osc_vec3 gap = osc_sub(pose_a.p, pose_b.p);
            double separation = osc_length(gap);
            osc_vec3 unit = osc_normalize(gap);
            double factor = separation / (alpha * alpha);
            for (int c = 0; c < 12; ++c) jac->distance[c] = factor * dalpha[c];
            for (int k = 0; k < 3; ++k) {
                double along = (1.0 - 1.0 / alpha) * osc_vec3_get(unit, k);
                jac->distance[k] += along;
                jac->distance[6 + k] -= along;
            }
        }
    }
}

// Writes the Jacobians from the tangents, each row's 12 columns at once. A normalised tangent
// becomes a world derivative by the factor of its column: a value measured in length^power (1:
// points, 0: alpha, normals) is scale^power times its normalised value, and a translation column
// is d/dp = d/dp' / scale.
static void fill_jacobians(const dcol_problem* dp, osc_pose pose_a, osc_pose pose_b, const osc_dcol_result* result,
                           const osc_dcol_jacobians* jac) {
    double tangent[CONIC_MAX_VARIABLES][12];
    double dual_normal[3][12];
    bool coincident = result->flags & OSC_DCOL_COINCIDENT;
    bool need_duals = jac->normal && !coincident;
    solution_tangents(dp, tangent, need_duals ? dual_normal : NULL);
    double factor_alpha[12], factor_point[12]; // the column factors for powers 0 and 1
    for (int c = 0; c < 12; ++c) {
        bool translation = c % 6 < 3;
        factor_alpha[c] = translation ? 1.0 / dp->scale : 1.0;
        factor_point[c] = translation ? dp->scale / dp->scale : dp->scale;
    }
    double dalpha[12], dx[3][12];
    for (int c = 0; c < 12; ++c) dalpha[c] = tangent[3][c] * factor_alpha[c];
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 12; ++c) dx[k][c] = factor_point[c] * tangent[k][c];
    if (jac->alpha) memcpy(jac->alpha, dalpha, sizeof dalpha);
    if (jac->point) memcpy(jac->point, dx, sizeof dx);
    dcol_point_jacobians(pose_a, pose_b, result, dalpha, &dx[0][0], jac);
    if (jac->normal) {
        // n = w / |w|, w = G_A,x^T z_A: dw = dtheta_A x w + G_A,x^T dz_A, dn = (I - n n^T) dw / |w|
        osc_vec3 w = body_dual_normal(dp, 0, dp->state.z);
        double length = osc_length(w);
        if (coincident || !(length > 0.0)) {
            memset(jac->normal, 0, sizeof(double) * 36);
        } else {
            osc_vec3 n = osc_scale(w, 1.0 / length);
            for (int k = 0; k < 3; ++k) { // A's rotation turns w: column 3 + a gets (e_a x w)_k
                osc_vec3 turned = osc_cross(osc_v3(k == 0, k == 1, k == 2), w);
                for (int a = 0; a < 3; ++a) dual_normal[a][3 + k] += osc_vec3_get(turned, a);
            }
            double along[12];
            for (int c = 0; c < 12; ++c)
                along[c] = n.x * dual_normal[0][c] + n.y * dual_normal[1][c] + n.z * dual_normal[2][c];
            for (int k = 0; k < 3; ++k) {
                double n_k = osc_vec3_get(n, k), *row = jac->normal + 12 * k;
                for (int c = 0; c < 12; ++c) row[c] = (dual_normal[k][c] - n_k * along[c]) * (factor_alpha[c] / length);
            }
        }
    }
}

// the query once checked, solved as it is posed
static osc_status proximity_as_posed(const char* function, const dcol_query* query, osc_dcol_result* result,
                                     const osc_dcol_jacobians* jacobians, osc_dcol_warm_start* warm) {
    osc_pose pose_a = query->pose_a, pose_b = query->pose_b;
    dcol_problem dp;
    osc_status status = dcol_solve(function, query, warm, true, &dp);
    if (status != OSC_OK && status != OSC_ERR_NOT_CONVERGED) return status;
    if (dp.exact) {
        dcol_exact_result(&dp, pose_a, pose_b, result);
        if (jacobians) dcol_exact_jacobians(&dp, pose_a, pose_b, result, jacobians);
        return OSC_OK;
    }
    fill_result(&dp, pose_a, pose_b, query->settings.tolerance, result);
    if (status != OSC_OK) return status;
    if (jacobians) fill_jacobians(&dp, pose_a, pose_b, result, jacobians);
    return OSC_OK;
}

// the query once checked, as osc_dcol_proximity answers it: two spheres in closed form, origins
// nearer than the pair's size at a separation scaled up (dcol_rescale.c), the rest as posed
static osc_status proximity(const char* function, const dcol_query* query, osc_dcol_result* result,
                            const osc_dcol_jacobians* jacobians, osc_dcol_warm_start* warm) {
    if (dcol_sphere_pair(query, result, jacobians, warm)) return OSC_OK;
    double k = dcol_rescale_factor(query);
    if (k == 1.0) return proximity_as_posed(function, query, result, jacobians, warm);
    dcol_problem dp;
    if (solve_exact(query, warm, &dp)) {
        dcol_exact_result(&dp, query->pose_a, query->pose_b, result);
        if (jacobians) dcol_exact_jacobians(&dp, query->pose_a, query->pose_b, result, jacobians);
        return OSC_OK;
    }
    dcol_query scaled;
    dcol_rescale_query(query, k, &scaled);
    osc_dcol_warm_start scaled_warm;
    if (warm) dcol_rescale_warm_start(query, k, true, warm, &scaled_warm);
    double rows[6][36];
    osc_dcol_jacobians request = {NULL, NULL, NULL, NULL, NULL, NULL};
    if (jacobians) request = dcol_rescale_jacobian_request(jacobians, rows);
    osc_status status =
        proximity_as_posed(function, &scaled, result, jacobians ? &request : NULL, warm ? &scaled_warm : NULL);
    if (warm) dcol_rescale_warm_start(query, k, false, &scaled_warm, warm);
    if (status != OSC_OK && status != OSC_ERR_NOT_CONVERGED) return status;
    osc_dcol_result scaled_result = *result;
    dcol_rescale_result(query, k, result);
    if (status == OSC_OK && jacobians) dcol_rescale_jacobians(query, k, &scaled_result, &request, jacobians);
    return status;
}

osc_status dcol_proximity(const dcol_options* options, dcol_trace* trace, const osc_convex* a, osc_pose pose_a,
                          const osc_convex* b, osc_pose pose_b, const osc_dcol_settings* settings,
                          osc_dcol_result* result, const osc_dcol_jacobians* jacobians, osc_dcol_warm_start* warm) {
    const char* function = "osc_dcol_proximity";
    if (!result) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: result is NULL", function);
    dcol_query query;
    osc_status status = dcol_check_query(function, a, pose_a, b, pose_b, settings, &query);
    if (status != OSC_OK) return status;
    query.options = *options;
    query.trace = trace;
    return proximity(function, &query, result, jacobians, warm);
}

osc_status osc_dcol_proximity(const osc_convex* a, osc_pose pose_a, const osc_convex* b, osc_pose pose_b,
                              const osc_dcol_settings* settings, osc_dcol_result* result,
                              const osc_dcol_jacobians* jacobians, osc_dcol_warm_start* warm) {
    dcol_options defaults = dcol_default_options();
    return dcol_proximity(&defaults, NULL, a, pose_a, b, pose_b, settings, result, jacobians, warm);
}

// alpha and its gradient for a checked query solved as it is posed (docs/dcol.md §4.3, §4.6)
static osc_status alpha_gradient_as_posed(const char* function, const dcol_query* query, double* alpha,
                                          double gradient[12]) {
    osc_pose pose_a = query->pose_a, pose_b = query->pose_b;
    osc_dcol_jacobians alpha_only = {.alpha = gradient};
    dcol_problem dp;
    osc_status status = dcol_solve(function, query, NULL, true, &dp);
    if (status != OSC_OK) return status;
    if (dp.exact) {
        osc_dcol_result exact_result;
        dcol_exact_result(&dp, pose_a, pose_b, &exact_result);
        dcol_exact_jacobians(&dp, pose_a, pose_b, &exact_result, &alpha_only);
        *alpha = exact_result.alpha;
        return OSC_OK;
    }
    *alpha = dp.state.x[3];
    // adjoint: u = H^-1 e_alpha; dalpha/dxi_k = -u . rhs_k, rhs_k = r_x,k + K_X m_k, so with
    // q = K_X^T u: translation -> q, rotation -> arm x q - w x u_x (docs/dcol.md §4.3)
    double u[CONIC_MAX_VARIABLES] = {0};
    u[3] = 1.0;
    conic_factor_solve(&dp.conic, &dp.state, u);
    conic_refine_solutions(&dp.conic, &dp.state, 1, &u);
    osc_vec3 x = osc_v3(dp.state.x[0], dp.state.x[1], dp.state.x[2]);
    osc_vec3 u_x = osc_v3(u[0], u[1], u[2]);
    for (int which = 0; which < 2; ++which) {
        double block[CONIC_MAX_VARIABLES][3];
        body_normal_block(&dp, which, NULL, block);
        osc_vec3 q = osc_v3(0, 0, 0);
        for (int j = 0; j < dp.conic.variables; ++j)
            q = osc_add(q, osc_scale(osc_v3(block[j][0], block[j][1], block[j][2]), u[j]));
        osc_vec3 arm = osc_sub(x, dp.body[which].origin);
        osc_vec3 w = body_dual_normal(&dp, which, dp.state.z);
        osc_vec3 rotation = osc_sub(osc_cross(arm, q), osc_cross(w, u_x));
        double* g = gradient + 6 * which;
        g[0] = q.x / dp.scale;
        g[1] = q.y / dp.scale;
        g[2] = q.z / dp.scale;
        g[3] = rotation.x;
        g[4] = rotation.y;
        g[5] = rotation.z;
    }
    return OSC_OK;
}

osc_status osc_dcol_alpha_gradient(const osc_convex* a, osc_pose pose_a, const osc_convex* b, osc_pose pose_b,
                                   const osc_dcol_settings* settings, double* alpha, double gradient[12]) {
    if (!alpha || !gradient)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", __func__, alpha ? "gradient" : "alpha");
    dcol_query query;
    osc_status status = dcol_check_query(__func__, a, pose_a, b, pose_b, settings, &query);
    if (status != OSC_OK) return status;
    osc_dcol_result closed_result;
    osc_dcol_jacobians alpha_only = {.alpha = gradient};
    if (dcol_sphere_pair(&query, &closed_result, &alpha_only, NULL)) {
        *alpha = closed_result.alpha;
        return OSC_OK;
    }
    double k = dcol_rescale_factor(&query);
    if (k == 1.0) return alpha_gradient_as_posed(__func__, &query, alpha, gradient);
    dcol_problem dp;
    if (solve_exact(&query, NULL, &dp)) {
        dcol_exact_result(&dp, query.pose_a, query.pose_b, &closed_result);
        dcol_exact_jacobians(&dp, query.pose_a, query.pose_b, &closed_result, &alpha_only);
        *alpha = closed_result.alpha;
        return OSC_OK;
    }
    dcol_query scaled;
    dcol_rescale_query(&query, k, &scaled);
    double scaled_gradient[12];
    osc_dcol_result scaled_result;
    status = alpha_gradient_as_posed(__func__, &scaled, &scaled_result.alpha, scaled_gradient);
    if (status != OSC_OK) return status;
    osc_dcol_jacobians scaled_alpha = {.alpha = scaled_gradient};
    dcol_rescale_jacobians(&query, k, &scaled_result, &scaled_alpha, &alpha_only);
    *alpha = scaled_result.alpha / k;
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// batch

// slot i of a batch: the single call into results[i], with jacobians[i] (the batch's extra array)
static osc_status batch_slot(const osc_query_batch* batch, size_t i) {
    const osc_dcol_batch_item* item = (const osc_dcol_batch_item*)batch->items + i;
    const osc_dcol_jacobians* jacobians = batch->extra;
    return osc_dcol_proximity(item->a, item->pose_a, item->b, item->pose_b, batch->settings,
                              (osc_dcol_result*)batch->outputs + i, jacobians ? &jacobians[i] : NULL, item->warm);
}

osc_status osc_dcol_proximity_batch(const osc_dcol_batch_item* items, size_t count, const osc_dcol_settings* settings,
                                    osc_dcol_result* results, const osc_dcol_jacobians* jacobians, osc_status* statuses,
                                    int threads) {
    const osc_query_batch batch = {
        "osc_dcol_proximity_batch", "results", items, results, settings, jacobians, batch_slot, BATCH_PAIRS_PER_THREAD};
    return osc_query_batch_run(&batch, count, statuses, threads);
}
