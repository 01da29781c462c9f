// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep_internal.h: the B-Rep model's internal layout (the copied description, edge and vertex
// classification, trimming data for the even-odd test, the BVH of thesis chapters 2-3) and the
// geometry kernel shared by the model and the query: canonical surfaces and curves evaluated with
// their first and second derivatives in any frame.

#ifndef OSC_BREP_INTERNAL_H
#define OSC_BREP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base_internal.h"
#include "osculate/brep.h"

static const double k_pi = 3.14159265358979323846264338327950;
static const double k_two_pi = 6.283185307179586476925286766559;

// ---- geometry kernel -------------------------------------------------------------------------

/// A B-spline or NURBS curve or surface as the model keeps it (src/brep_nurbs.c): homogeneous
/// control points (w x, w y, w z, w) in the body frame, knots, and a grid of seed points for
/// projections.
typedef struct osc_nurbs {
    int dim;                  ///< 1 curve, 2 surface
    int degree[2], count[2];  ///< curves: degree[1] = 0, count[1] = 1
    const double* knots[2];   ///< count[k] + degree[k] + 1 each
    const double* cw;         ///< [count[0]][count[1]][4]
    int rational;             ///< 0 when every weight is 1
    double lo[2], hi[2];      ///< the parameter range in each direction
    int closed[2];            ///< the first and last rows of points coincide: projections wrap around
    double extent;            ///< the largest distance of a control point from the first
    int seed_count[2];        ///< projection seeds: a grid over the parameter range
    const double* seed_param; ///< [seed_count[0] seed_count[1]][2]
    const osc_vec3* seed_point;
} osc_nurbs;

/// Doubles of storage osc_nurbs_init needs for entry `e`.
size_t osc_nurbs_storage(const osc_brep_nurbs* e);

/// An osc_nurbs for entry `e` of a description's arrays (`reals` must outlive it), its homogeneous
/// points and projection seeds in `storage` [osc_nurbs_storage(e)].
void osc_nurbs_init(osc_nurbs* n, const osc_brep_nurbs* e, const osc_vec3* control_points, const double* reals,
                    double* storage);

/// Point and derivatives of a B-spline at parameters t [dim] in its own (body) coordinates: d1
/// [dim], d2 (surfaces: uu, uv, vv; curves: tt), either may be NULL. Parameters outside the range
/// extend the end pieces' polynomials.
void osc_nurbs_eval(const osc_nurbs* n, const double* t, osc_vec3* p, osc_vec3* d1, osc_vec3* d2);

/// The parameters t [dim] of the point of `n` nearest x (body coordinates), within the parameter
/// range, by Newton's method from `hint` (NULL: from the nearest seeds). Returns 1, or 0 when the
/// surface is degenerate there (a pole: one of the two first derivatives vanishes).
int osc_nurbs_project(const osc_nurbs* n, osc_vec3 x, const double* hint, double* t);

/// osc_nurbs_project's result, adding the number of evaluations of the B-spline it made to
/// *evaluations (at most 4 (1 + 50 x 30) + 1 = 6005: Newton's method from the hint and from three
/// seeds, each one evaluation and at most 50 iterations of at most 30 damped tries, then one).
int osc_nurbs_project_counted(const osc_nurbs* n, osc_vec3 x, const double* hint, double* t, int* evaluations);

/// The unit natural normal S_u x S_v of a surface at (u, v); at a pole where S_u or S_v vanishes,
/// its limit from inside the parameter range.
osc_vec3 osc_nurbs_normal(const osc_nurbs* n, double u, double v);

/// The homogeneous Bezier control points [(degree[0] + 1) (degree[1] + 1)][4] (u-major) of the
/// piece of `n` over [a[0], b[0]] x [a[1], b[1]] (curves: [a[0], b[0]], [degree[0] + 1][4]), which
/// must lie in one knot span in each direction (blossoms, Ramshaw 1987).
void osc_nurbs_bezier(const osc_nurbs* n, const double* a, const double* b, double* out);

/// The control vectors [(3p) (3q)][3] (polynomial: [(2p) (2q)][3]) of a vector field parallel to
/// the natural normal S_u x S_v of the Bezier patch `cw` [(p + 1) (q + 1)][4] with a positive
/// factor (Crozet 2017, §3.3.3: the scaled normal surface); returns their count. `work` holds
/// osc_nurbs_normal_work(p, q) doubles.
int osc_nurbs_normal_net(const double* cw, int p, int q, int rational, double* work, double* out);

/// The control vectors [2p][3] (polynomial: [p][3]) of a vector field parallel to the derivative
/// of the Bezier curve `cw` [p + 1][4] with a positive factor (the hodograph, Crozet 2017 §3.5);
/// returns their count. `work` holds 16 (p + 1) doubles.
int osc_nurbs_tangent_net(const double* cw, int p, int rational, double* work, double* out);

/// Doubles of work space for osc_nurbs_normal_net.
size_t osc_nurbs_normal_work(int p, int q);

/// Bounds of a set of vectors: the unit axis and the half angle of a cone of revolution holding
/// them (pi when they span no pointed cone; zero vectors are skipped).
double osc_vectors_cone(const double* v, int count, osc_vec3* axis);

/// Geometry kinds of a feature: a point, a curve (line, circle) or a canonical surface.
typedef enum osc_geo_kind {
    OSC_GEO_POINT,
    OSC_GEO_LINE,
    OSC_GEO_CIRCLE,
    OSC_GEO_PLANE,
    OSC_GEO_CYLINDER,
    OSC_GEO_CONE,
    OSC_GEO_SPHERE,
    OSC_GEO_TORUS,
    OSC_GEO_NURBS_CURVE,  ///< `nurbs`, its body coordinates mapped by the frame: o + X x + Y y + Z z
    OSC_GEO_NURBS_SURFACE ///< likewise
} osc_geo_kind;

/// A point, curve or surface in some frame (body or world): origin o, unit axes x, y, z; sizes R,
/// r, a as in brep.h. A line runs along z from o; a circle lies in the plane of x and y.
typedef struct osc_geo {
    osc_geo_kind kind;
    int dim; ///< parameters: 0 point, 1 curve, 2 surface
    osc_vec3 o, x, y, z;
    double R, r, a;
    double sense;           ///< surfaces: +1 or -1 (outward normal = sense x natural normal)
    int branch;             ///< tori: the sign of R + r cos v on the face (+1, -1), 0 for the branch nearer
                            ///< the point in osc_geo_project (r > R: a spindle torus has two)
    const osc_nurbs* nurbs; ///< NURBS kinds: the curve or surface (body coordinates)
} osc_geo;

/// Point and derivatives of `g` at parameters `t` [dim]: p, first derivatives d1[dim], second
/// derivatives d2 (surfaces: uu, uv, vv; curves: tt). d1, d2 may be NULL.
void osc_geo_eval(const osc_geo* g, const double* t, osc_vec3* p, osc_vec3* d1, osc_vec3* d2);

/// Outward unit normal of a surface geo at (u, v).
osc_vec3 osc_geo_normal(const osc_geo* g, double u, double v);

/// The geo of surface `s` (body frame); NURBS surfaces take `nurbs` (NULL for the other kinds).
osc_geo osc_geo_from_surface(const osc_brep_surface* s);

/// The geo of a NURBS surface or curve `n` (body frame) with the surface's `sense`.
osc_geo osc_geo_from_nurbs(const osc_nurbs* n, int sense);

/// The geo of edge `e` (body frame; not a NURBS edge: osc_geo_from_nurbs).
osc_geo osc_geo_from_edge(const osc_brep_edge* e);

/// `g` moved by `pose` (frames rotated and translated).
osc_geo osc_geo_transform(const osc_geo* g, osc_pose pose);

/// Closest-point parameters of a surface or curve geo to x (unwrapped angles in (-pi, pi]);
/// returns 0 at a degenerate point.
int osc_geo_project(const osc_geo* g, osc_vec3 x, double* t);

/// Wraps `value` into [lo, lo + 2 pi).
double osc_wrap_angle(double value, double lo);

/// Signed distance from the point x to the untrimmed surface geo `g` along its natural normal, with
/// its gradient (the unit normal at the foot x - sd grad) and Hessian [3][3] (docs/lmd.md, "Edge and
/// vertex against a surface"). Returns 0 where it is not smooth or the foot leaves the surface: on
/// the axis of a surface of revolution, a cone's foot beyond its apex, a sphere's or tube's centre.
int osc_geo_distance(const osc_geo* g, osc_vec3 x, double* sd, osc_vec3* grad, double hess[3][3]);

// ---- the model -------------------------------------------------------------------------------

/// Edge status (thesis §1.4.3, eq. 1.27).
typedef enum osc_edge_status {
    OSC_EDGE_CONVEX = 0,
    OSC_EDGE_CONCAVE = 1,
    OSC_EDGE_SMOOTH = 2 ///< G1 or a seam: carries no local minimal distance
} osc_edge_status;

/// A trimming piece monotone in v, for the even-odd test (an arc is split at its extreme points).
typedef struct osc_trim_piece {
    double v0, v1;         ///< v at the two ends
    double u0, u1;         ///< line: u at the two ends
    double cu, cv, radius; ///< arc: circle; u = cu + branch * sqrt(radius^2 - (v - cv)^2)
    double branch;         ///< 0 for a line, +1 or -1 for an arc piece
    double umax;           ///< the largest u of the piece (crossings left of it are skipped fast)
} osc_trim_piece;

/// Per-face data.
typedef struct osc_face_data {
    osc_geo geo; ///< body frame
    int piece_begin, piece_count;
    bool periodic_u, periodic_v;
    int convexity; ///< +1 convex, -1 concave, 0 plane (thesis Fig. 1.26)
    int grid[2];   ///< the BVH's pieces along u and v (brep_bvh.c), for contact keys
} osc_face_data;

/// Per-edge data.
typedef struct osc_edge_data {
    osc_geo geo; ///< body frame
    osc_edge_status status;
    double side[2]; ///< sign s_i with m_i = s_i (n_i x tangent) pointing into face i
    int grid;       ///< the BVH's pieces along the edge, for contact keys
} osc_edge_data;

/// Per-vertex data: outgoing unit tangents of its convex edges (body frame).
typedef struct osc_vertex_data {
    int tangent_begin, tangent_count;
    int normal_begin, normal_count; ///< outward normals of the incident faces
    bool active;                    ///< a vertex of at least one convex edge
} osc_vertex_data;

/// A BVH leaf: one quasi-flat piece of a face or edge, or a vertex.
typedef struct osc_brep_leaf {
    int kind; ///< osc_feature_kind (lmd.h): 0 face, 1 edge, 2 vertex
    int feature;
    double lo[2], hi[2]; ///< the piece's parameter rectangle (edges: t in lo[0]..hi[0])
    int gen_count;
    osc_vec3 gen[8]; ///< polyhedral normal cone generators (unit)
    uint32_t type_mask, compat_mask;
    int node; ///< its node in `nodes` (OBB)
} osc_brep_leaf;

/// A BVH node (thesis Listing 2.4). Leaves have left = -1 and `leaf` >= 0.
typedef struct osc_brep_node {
    osc_vec3 center;           ///< OBB centre
    osc_vec3 axis[3];          ///< OBB axes
    osc_vec3 half;             ///< OBB half extents
    double radius;             ///< |half|: the OBB's bounding sphere about its centre
    osc_vec3 cone_axis;        ///< normal cone of revolution
    double cone_angle;         ///< its half apex angle (>= pi: no bound)
    double cone_cos, cone_sin; ///< of cone_angle
    uint32_t type_mask, compat_mask;
    int left, right, parent;
    int leaf;
} osc_brep_node;

/// A face an importer left out (STEP with skip_unsupported): the bounding box of its vertices in the
/// model's frame and the shell it belonged to.
typedef struct osc_brep_skipped {
    osc_vec3 lo, hi;
    int shell;
} osc_brep_skipped;

struct osc_brep {
    osc_brep_desc desc; ///< points into the arrays below
    osc_brep_surface* surfaces;
    osc_brep_face* faces;
    osc_brep_loop* loops;
    osc_brep_trim* trims;
    osc_brep_edge* edges;
    osc_vec3* vertices;
    osc_face_data* face_data;
    osc_edge_data* edge_data;
    osc_vertex_data* vertex_data;
    osc_vec3* vertex_vectors; ///< tangents and normals of vertex_data
    osc_trim_piece* pieces;
    int piece_count;
    osc_brep_leaf* leaves;
    int leaf_count;
    osc_brep_node* nodes; ///< nodes[0] is the root
    int node_count;
    osc_vec3 lo, hi;
    double scale; ///< body-frame bounding box diagonal
    osc_brep_settings settings;
    osc_brep_shell* shells; ///< [shell_count], at least one
    int shell_count;
    osc_brep_nurbs* nurbs_desc; ///< copies of the description's B-spline arrays
    osc_vec3* control_points;
    double* reals;
    osc_nurbs* nurbs;          ///< [desc.nurbs_count], pointing into `nurbs_data`
    double* nurbs_data;        ///< homogeneous control points and projection seeds
    osc_brep_skipped* skipped; ///< [skipped_count] faces the importer left out
    int skipped_count;
    // supermaximal features (Crozet 2017 §2.3, brep_supermax.c)
    int* face_group;  ///< [face_count] the lowest face on the same surface with the same orientation
    int* face_next;   ///< [face_count] the next face of its group (circular, in index order)
    int* edge_group;  ///< [edge_count] the lowest convex edge on the same curve between the same groups
    int* edge_next;   ///< [edge_count] the next edge of its group
    int* inner_begin; ///< [face_count + 1] CSR by group: the edges between two faces of the group
    int* inner_edges;
    bool* inner_vertex; ///< [vertex_count] a vertex inside a supermaximal edge (two of its edges meet
                        ///< there, and nothing else but inner and seam edges): no feature
    int supermaximal_face_count, supermaximal_edge_count;
    bool supermaximal; ///< the query searches an edge or vertex leaf against a face group once
};

/// Records the faces an importer left out (copied; `count` 0 clears them). OSC_ERR_NO_MEMORY.
osc_status osc_brep_set_skipped(osc_brep* brep, const osc_brep_skipped* skipped, int count);

/// osc_brep_create with the shells of the description (consecutive ranges of its faces, edges and
/// vertices that cover them; NULL: one shell holding everything), for importers.
osc_status osc_brep_create_shells(const osc_brep_desc* desc, const osc_brep_shell* shells, int shell_count,
                                  const osc_brep_settings* settings, osc_brep** out);

/// Checks the description's B-spline arrays (brep_nurbs.c): OSC_ERR_INVALID_ARGUMENT naming the
/// first bad entry.
osc_status osc_brep_check_nurbs(const osc_brep_desc* desc);

/// Builds the model's osc_nurbs from its copied description (brep_nurbs.c).
osc_status osc_brep_build_nurbs(osc_brep* brep);

/// The geo of face `face` or edge `edge` of the model (body frame).
osc_geo osc_brep_face_geo(const osc_brep* brep, int face);
osc_geo osc_brep_edge_geo(const osc_brep* brep, int edge);

/// Builds the leaves and the BVH (brep_bvh.c).
osc_status osc_brep_build_bvh(osc_brep* brep);

/// Even-odd containment in a face's trimmed domain of already wrapped parameters.
int osc_brep_face_contains_wrapped(const osc_brep* brep, int face, double u, double v);

/// Wraps (u, v) into face `face`'s parameter box for its periodic parameters.
void osc_brep_face_wrap(const osc_brep* brep, int face, double* u, double* v);

/// In-face unit direction m_i of edge `edge` at body point p with unit tangent `tangent`, for its
/// side i (0 or 1): the direction perpendicular to the edge in face i's tangent plane, into the face.
osc_vec3 osc_brep_edge_side(const osc_brep* brep, int edge, int side, osc_vec3 p, osc_vec3 tangent,
                            osc_vec3* face_normal);

/// Groups the model's faces and edges into supermaximal features (brep_supermax.c).
/// OSC_ERR_NO_MEMORY.
osc_status osc_brep_build_supermaximal(osc_brep* brep);

/// Turns the supermaximal features off (`on` false: every face and edge its own group, inner
/// vertices features again, every leaf pair searched on its own; the BVH is rebuilt), for tests
/// that compare the two. OSC_ERR_NO_MEMORY.
osc_status osc_brep_set_supermaximal(osc_brep* brep, bool on);

/// Returns the face of `face`'s supermaximal group that holds the body point p on their surface,
/// or -1: the lower face of an inner edge within `tol` of p (a seam between two pieces counts
/// once), else the first member whose trimmed domain holds it. `param` [2]: on entry p's
/// parameters on `face`, on return on the face returned (wrapped).
int osc_brep_group_face(const osc_brep* brep, int face, osc_vec3 p, double tol, double* param);

/// Returns the edge of `edge`'s supermaximal group that holds the body point p on their curve, or
/// -1: the lowest member ending at an inner vertex within `tol` of p (at its end parameter), else
/// the first member whose open parameter range holds p; `param` [1] as for osc_brep_group_face.
int osc_brep_group_edge(const osc_brep* brep, int edge, osc_vec3 p, double tol, double* param);

/// Outward normal of face `face` at body point p (projected onto its surface).
osc_vec3 osc_brep_face_normal_at(const osc_brep* brep, int face, osc_vec3 p);

#endif // OSC_BREP_INTERNAL_H
