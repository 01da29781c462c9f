// dcol_internal.h: the assembled DCOL problem shared by dcol.c (solve, pose derivatives, batch)
// and dcol_parameters.c (shape-parameter derivatives). Never installed.

#ifndef OSC_DCOL_INTERNAL_H
#define OSC_DCOL_INTERNAL_H

#include "conic.h"
#include "convex_internal.h"
#include "osculate/dcol.h"

// the cone solver's limits hold every DCOL problem
_Static_assert(OSC_DCOL_MAX_VARIABLES <= CONIC_MAX_VARIABLES && OSC_DCOL_MAX_ROWS <= CONIC_MAX_ROWS,
               "a DCOL problem exceeds the cone solver's limits (conic.h)");

/// The internal switches of a query (docs/dcol.md §3.5-§3.7, §4.5). The public functions take
/// dcol_default_options(); the tests pass others to dcol_proximity to compare the paths. A query
/// only reads them, from its own copy: no thread can see them change.
typedef struct dcol_options {
    /// whether the pairs that can take the support path do, and two spheres their closed form
    /// (§3.5, §3.6): true; false compares them with the general start (§3.3)
    bool support_path;
    /// whether a point contact of the support path may end at its exact optimum (§3.7) where the
    /// barrier is at most DCOL_CLOSED_FORM_MAX_BARRIER: true; false compares it with the support
    /// path's central point
    bool exact_path;
    /// the compliance of x, trace((H^-1)_xx) in normalised units, above which the pose tangents
    /// are solved on the augmented system (conic_stiff.c, §4.5): 1. They are also where the
    /// normal's tangent from the normal matrix is estimated too rounded, unless this is INFINITY:
    /// 0 takes that path everywhere, INFINITY never
    double stiff_compliance;
} dcol_options;

/// The options of the public functions.
static inline dcol_options dcol_default_options(void) {
    dcol_options options = {true, true, 1.0};
    return options;
}

/// What the solves of a query did, for the tests: counts that each solve adds to.
typedef struct dcol_trace {
    unsigned long general_starts; ///< the general starts of §3.3 run (from the walk's optimum or
                                  ///< the inner radii's point): fallbacks from the support path
    unsigned long exact_solves;   ///< solves ended at an exact contact (§3.7)
} dcol_trace;

/// One query's arguments once checked (dcol_check_query): the shapes, their poses with the
/// quaternions normalised, the settings (the defaults for NULL), the switches and the trace
/// (nullable).
typedef struct dcol_query {
    const osc_convex* a;
    const osc_convex* b;
    osc_pose pose_a, pose_b;
    osc_dcol_settings settings;
    dcol_options options;
    dcol_trace* trace;
} dcol_query;

// The problem is posed in normalised world coordinates x' = (x - centre) / scale (docs/dcol.md
// §2). Variables: x' (3), alpha, A's slacks / scale, B's slacks / scale. Rows: A's orthant, B's
// orthant, A's cone, B's cone.
typedef struct dcol_body {
    const osc_convex* shape;
    osc_mat3 rotation;    // world from the shape's conic frame (convex_conic_rotation)
    osc_vec3 origin;      // r' (normalised)
    int slack_column;     // first slack variable
    int row_ranges[2][2]; // [orthant, cone] x [first, end) rows in the problem
} dcol_body;

/// The exact optimum of a point contact from the support walk (docs/dcol.md §3.7), in normalised
/// units: alpha (S_A + S_B) = d = r'_B - r'_A with S_X body X's support point in direction n (B's
/// negated, as the walk keeps its vertices), n . d = 1. Its derivatives solve the walk's optimality
/// conditions linearised: the balance along the plane across n, with the curvature H_X of each
/// body's smooth part, and the ties (v_j - v_rep) . n = 0 of at most two vertex differences.
typedef struct dcol_exact_contact {
    osc_vec3 n;
    double alpha;
    osc_vec3 support[2];   // S_A, S_B (negated)
    bool curved[2];        // whether H_X is not zero
    osc_mat3 curvature[2]; // H_X = (C - g g^T) / h at n, g = C n / h; zero without a smooth part
    int tie_count;
    int tie_body[2];
    osc_vec3 tie[2]; // the tied differences v_j - v_rep
    // set by dcol_exact_prepare: a basis (t1, t2) of the plane across n and the inverse of the
    // linearised system [alpha Hbar, alpha Abar^T; Abar, 0] (2 + tie_count unknowns), in closed form
    osc_vec3 t1, t2;
    double inverse[4][4];
    osc_vec3 unit;         // n / |n| (the zero vector where |n| is 0 or not finite)
    double inverse_length; // 1 / |n|
} dcol_exact_contact;

typedef struct dcol_problem {
    conic_problem conic;
    conic_state state;
    dcol_body body[2];
    osc_vec3 centre;
    double scale;
    // the support walk's exact optimum (x', alpha, slacks'), kept when the start from it fails
    bool has_optimum;
    double optimum[CONIC_MAX_VARIABLES];
    // the exact contact (§3.7): whether the solve may end at it, and whether it did
    bool exact_allowed, exact;
    bool rows_ready; // the conic rows are assembled (dcol_assemble_rows)
    dcol_exact_contact contact;
    dcol_options options; // the query's switches (dcol_solve copies them)
} dcol_problem;


/// An orthonormal basis (t1, t2) of the plane across the unit vector `unit` (the support walk's
/// plane across d, an exact contact's across n), right-handed with it (t1 x t2 = unit): the
/// branch-free basis of Duff et al. 2017 (one division, no square root), exact to rounding for
/// a unit vector.
static inline void dcol_plane_basis(osc_vec3 unit, osc_vec3* t1, osc_vec3* t2) {
    double sign = copysign(1.0, unit.z);
    double a = -1.0 / (sign + unit.z), b = unit.x * unit.y * a;
    *t1 = osc_v3(1.0 + sign * unit.x * unit.x * a, sign * b, -sign * unit.x);
    *t2 = osc_v3(b, sign + unit.y * unit.y * a, -unit.y);
}

/// The support path's start (dcol_support.c): the exact optimum of the assembled problem, moved
/// to the first-order central point of `barrier` (conic_offset_start with `active_gap`), written
/// to dp->state.x with its slack and dual (state.s, state.z). False when the pair or its contact
/// does not allow it (docs/dcol.md §3.5); dp->has_optimum tells whether the walk found the
/// optimum, then in dp->optimum, all the same.
/// Where dp->exact_allowed and the optimum is a point contact that dcol_exact_prepare accepts, it
/// fills dp->contact, sets dp->exact and returns true without a start.
bool dcol_support_start(dcol_problem* dp, double barrier, double active_gap);

/// Assembles the conic rows of a problem whose bodies are set (dcol.c): deferred until the conic
/// path is taken, since an exact contact needs none.
void dcol_assemble_rows(dcol_problem* dp);

/// Returns true after preparing an exact contact whose n, alpha, support, curvature (and curved flags) and ties are
/// set: its unit normal, plane basis and the inverse of its linearised optimality conditions, in closed form
/// (docs/dcol.md §4.6). False where they are singular to
/// working precision (a degenerate contact: parallel ties, no curvature along a tie), when the
/// conic path must answer instead.
bool dcol_exact_prepare(dcol_exact_contact* contact);

/// The result of an exact contact (dp->exact): alpha, x, the contact points, distance and normal.
void dcol_exact_result(const dcol_problem* dp, osc_pose pose_a, osc_pose pose_b, osc_dcol_result* result);

/// The non-NULL Jacobians of an exact contact, from its prepared inverse (docs/dcol.md §4.6).
void dcol_exact_jacobians(const dcol_problem* dp, osc_pose pose_a, osc_pose pose_b, const osc_dcol_result* result,
                          const osc_dcol_jacobians* jacobians);

/// Fills eq. (29)'s contact points, eq. (30)'s distance and the COINCIDENT flag of `result` from
/// its alpha and point (shared by the conic and exact paths). False when the pair is coincident.
bool dcol_contact_points(osc_pose pose_a, osc_pose pose_b, double scale, osc_dcol_result* result);

/// Writes the contact points' and the distance's Jacobians from alpha's and x's (dx: [3][12]; world
/// units, eqs. (29), (30)).
void dcol_point_jacobians(osc_pose pose_a, osc_pose pose_b, const osc_dcol_result* result, const double dalpha[12],
                          const double* dx, const osc_dcol_jacobians* jacobians);

/// Checks the arguments of a query (`function` names the caller in messages; `settings` NULL
/// means the defaults) and writes them to `query` with the quaternions normalised, the default
/// options and no trace. OSC_OK or OSC_ERR_INVALID_ARGUMENT.
osc_status dcol_check_query(const char* function, const osc_convex* a, osc_pose pose_a, const osc_convex* b,
                            osc_pose pose_b, const osc_dcol_settings* settings, dcol_query* query);

/// osc_dcol_proximity with the switches `options` and the counts added to `trace` (nullable):
/// the entry point of the tests that compare the paths.
osc_status dcol_proximity(const dcol_options* options, dcol_trace* trace, const osc_convex* a, osc_pose pose_a,
                          const osc_convex* b, osc_pose pose_b, const osc_dcol_settings* settings,
                          osc_dcol_result* result, const osc_dcol_jacobians* jacobians, osc_dcol_warm_start* warm);

/// The separation of the origins, relative to the pair's size (the sum of the bounding radii), at
/// or below which a pair is coincident (OSC_DCOL_COINCIDENT: no contact points or normal).
#define DCOL_COINCIDENT_SEPARATION 1e-12

/// The factor k by which a query's separation is scaled (dcol_rescale.c, docs/dcol.md §3.8): s over
/// the separation, s = sqrt(the pair's size times the sum of the inner radii) / 10, where the
/// origins are nearer than s (and not coincident) and the barrier is at most
/// DCOL_CLOSED_FORM_MAX_BARRIER, else 1 (no scaling).
double dcol_rescale_factor(const dcol_query* query);

/// The query with A at the origin and B at k (r_B - r_A), the same shapes, orientations and settings.
void dcol_rescale_query(const dcol_query* query, double k, dcol_query* scaled);

/// A warm start (world units) into the scaled pair (`inward`) or back from it.
void dcol_rescale_warm_start(const dcol_query* query, double k, bool inward, const osc_dcol_warm_start* in,
                             osc_dcol_warm_start* out);

/// The result of the scaled pair, in place, made the query's: alpha / k, x = r_A + x^ / k, the
/// contact points moved with their origins, eq. (30)'s distance.
void dcol_rescale_result(const dcol_query* query, double k, osc_dcol_result* result);

/// The Jacobians the scaled pair's solve must give for `wanted` (each non-NULL array of `wanted`,
/// and alpha's for the distance), in `rows`.
osc_dcol_jacobians dcol_rescale_jacobian_request(const osc_dcol_jacobians* wanted, double rows[6][36]);

/// The query's Jacobians `out` (its non-NULL arrays) from the scaled pair's `in`
/// (dcol_rescale_jacobian_request) and its result `scaled` (before dcol_rescale_result).
void dcol_rescale_jacobians(const dcol_query* query, double k, const osc_dcol_result* scaled,
                            const osc_dcol_jacobians* in, const osc_dcol_jacobians* out);

/// The largest barrier at which two spheres take their closed form: the central point of a larger
/// one is offset from the exact optimum by more than the solver's residual tolerance (docs/dcol.md
/// §3.6).
#define DCOL_CLOSED_FORM_MAX_BARRIER 1e-9

/// Two spheres in closed form (dcol_spheres.c): fills `result`, the non-NULL `jacobians` and
/// `warm` and returns true when both shapes are spheres, the barrier is at most
/// DCOL_CLOSED_FORM_MAX_BARRIER and the query's options take the support path; otherwise returns
/// false and touches nothing.
bool dcol_sphere_pair(const dcol_query* query, osc_dcol_result* result, const osc_dcol_jacobians* jacobians,
                      osc_dcol_warm_start* warm);

/// Assembles the problem of a checked query into `dp` and solves it with its settings and options
/// (from `warm` when valid, which is then overwritten with this solve's solution).
/// With `allow_exact` a point contact may end at its exact optimum (dp->exact; docs/dcol.md §3.7)
/// where the barrier allows it; the conic state is then not set.
/// OSC_OK, or the solver's status (OSC_ERR_NOT_CONVERGED with `dp` holding the last iterate, the
/// message naming `function`).
osc_status dcol_solve(const char* function, const dcol_query* query, osc_dcol_warm_start* warm, bool allow_exact,
                      dcol_problem* dp);

#endif // OSC_DCOL_INTERNAL_H
