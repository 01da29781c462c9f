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

/// Geometry kinds of a feature: a point, a curve (line, circle) or a canonical surface.
typedef enum osc_geo_kind {
    OSC_GEO_POINT,
    OSC_GEO_LINE,
    OSC_GEO_CIRCLE,
    OSC_GEO_PLANE,
    OSC_GEO_CYLINDER,
    OSC_GEO_CONE,
    OSC_GEO_SPHERE,
    OSC_GEO_TORUS
} osc_geo_kind;

/// A point, curve or surface in some frame (body or world): origin o, unit axes x, y, z; sizes R,
/// r, a as in brep.h. A line runs along z from o; a circle lies in the plane of x and y.
typedef struct osc_geo {
    osc_geo_kind kind;
    int dim; ///< parameters: 0 point, 1 curve, 2 surface
    osc_vec3 o, x, y, z;
    double R, r, a;
    double sense; ///< surfaces: +1 or -1 (outward normal = sense x natural normal)
    int branch;   ///< tori: the sign of R + r cos v on the face (+1, -1), 0 for the branch nearer
                  ///< the point in osc_geo_project (r > R: a spindle torus has two)
} osc_geo;

/// Point and derivatives of `g` at parameters `t` [dim]: p, first derivatives d1[dim], second
/// derivatives d2 (surfaces: uu, uv, vv; curves: tt). d1, d2 may be NULL.
void osc_geo_eval(const osc_geo* g, const double* t, osc_vec3* p, osc_vec3* d1, osc_vec3* d2);

/// Outward unit normal of a surface geo at (u, v).
osc_vec3 osc_geo_normal(const osc_geo* g, double u, double v);

/// The geo of surface `s` (body frame).
osc_geo osc_geo_from_surface(const osc_brep_surface* s);

/// The geo of edge `e` (body frame).
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
};

/// osc_brep_create with the shells of the description (consecutive ranges of its faces, edges and
/// vertices that cover them; NULL: one shell holding everything), for importers.
osc_status osc_brep_create_shells(const osc_brep_desc* desc, const osc_brep_shell* shells, int shell_count,
                                  const osc_brep_settings* settings, osc_brep** out);

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

/// Outward normal of face `face` at body point p (projected onto its surface).
osc_vec3 osc_brep_face_normal_at(const osc_brep* brep, int face, osc_vec3 p);

#endif // OSC_BREP_INTERNAL_H
