// sdf_internal.h: the compiled form of an osc_sdf, shared by sdf.c (tree building, evaluation)
// and the primitive files (sdf_primitives.c, sdf_superquadric.c, sdf_xpsq.c). Never installed.
//
// A model is a postfix program over primitive leaves. Every leaf carries its world-from-leaf
// similarity transform (rotation, translation, uniform scale) baked in at build time, so the
// program has no transform nodes. Smooth CSG nodes are streaming log-sum-exp accumulators:
//   LEAF k            push the value of leaf k
//   BEGIN s, tau      turn the top value y into an accumulator of s * y
//   ACCUMULATE s, tau pop y and add s * y to the accumulator below it
//   END s, tau        turn the accumulator into the value s * LSE
//   OFFSET d          subtract d from the top value
// Union is END -1 over children with sign -1, intersection +1 / +1, subtraction +1 over (+a, -b).
// Children are emitted in decreasing order of their own stack need, so a tree of n leaves needs
// at most floor(log2 n) + 1 stack slots (its Strahler number): a fixed stack serves any tree.

#ifndef OSC_SDF_INTERNAL_H
#define OSC_SDF_INTERNAL_H

#include "base_internal.h"
#include "jet.h"
#include "osculate/sdf.h"

#include <stdint.h>

#define OSC_SDF_MAX_STACK 64

typedef enum sdf_leaf_kind {
    SDF_LEAF_SPHERE,
    SDF_LEAF_BOX,
    SDF_LEAF_CAPSULE,
    SDF_LEAF_CONE, // also the cylinder (equal radii)
    SDF_LEAF_TORUS,
    SDF_LEAF_HALFSPACE,
    SDF_LEAF_ELLIPSOID,
    SDF_LEAF_PSQ, // also the plain superquadric (no planes)
    SDF_LEAF_XPSQ,
    SDF_LEAF_MENGER,
    SDF_LEAF_EXTERNAL // a shared model evaluated through a table of functions (spline grids)
} sdf_leaf_kind;

// A leaf whose data lives outside the tree and is shared, not copied: copies retain it and
// destroying a model releases it. `eval` writes the jet of the leaf in its own frame.
typedef struct sdf_external_vtable {
    void (*eval)(const void* context, osc_vec3 x, int order, jet* out);
    void (*retain)(const void* context);
    void (*release)(const void* context);
} sdf_external_vtable;

typedef struct sdf_psq {
    osc_vec3 scale;
    osc_vec3 inverse_scale; // 1 / scale, componentwise
    double eps1, eps2;
    double temperature;
    int32_t plane_first, plane_count; // constant planes: planes[i].start
} sdf_psq;

typedef struct sdf_cone {
    double radius_bottom, radius_top, half_length;
    double side_normal[2]; // outward unit normal of the slanted side in the (q, z) half-plane
} sdf_cone;

typedef struct sdf_leaf {
    sdf_leaf_kind kind;
    int32_t has_transform; // 0 when the world-from-leaf transform is the identity
    osc_mat3 rotation;     // world-from-leaf rotation
    osc_vec3 translation;
    double scale;
    union {
        struct {
            double radius;
        } sphere;
        struct {
            osc_vec3 half_extents;
            double rounding;
        } box;
        struct {
            double radius, half_length;
        } capsule;
        sdf_cone cone;
        struct {
            double major_radius, minor_radius;
        } torus;
        struct {
            osc_vec3 normal;
            double offset;
        } halfspace;
        struct {
            osc_vec3 radii;
        } ellipsoid;
        struct {
            double half_size;
            int32_t levels;
        } menger;
        sdf_psq psq;
        struct {
            int32_t index;
        } xpsq; // into osc_sdf.xpsqs
        struct {
            const sdf_external_vtable* vtable;
            const void* context;
        } external;
    } p;
} sdf_leaf;

// the precomputed data of one XPSQ (sdf_xpsq.c)
typedef struct sdf_xpsq {
    osc_vec3 p1, a, b;       // p(t) = p1 + 2 t a + t^2 b, a = p2 - p1, b = p1 - 2 p2 + p3
    int32_t straight;        // b == 0: the projection is linear in t
    double cubic_a, cubic_b; // t^3 and t^2 coefficients of the stationarity cubic: b.b, 3 a.b
    double two_a_dot_a;      // 2 a.a (part of the t coefficient)
    double validity_scale;   // f' at which a root counts fully as a minimum (docs/xpsq.md)
    osc_xpsq_frame frame;
    osc_vec3 binormal;       // FRENET
    osc_mat3 rotation_start; // INTERPOLATED: R(0)
    osc_vec3 axis;           // INTERPOLATED: R(t) = R(0) Rot(axis, t angle)
    double angle;
    double scale[3][3];    // [axis][control]
    double exponent[2][3]; // [eps1, eps2][control]
    double plane_temperature, discriminant_temperature, root_temperature, blend_temperature;
    int32_t plane_first, plane_count;
} sdf_xpsq;

typedef enum sdf_op { SDF_OP_LEAF, SDF_OP_BEGIN, SDF_OP_ACCUMULATE, SDF_OP_END, SDF_OP_OFFSET } sdf_op;

typedef struct sdf_instr {
    int32_t op;
    int32_t sign;  // child sign (BEGIN, ACCUMULATE) or outer sign (END)
    int32_t index; // leaf index (LEAF)
    double value;  // temperature (BEGIN, ACCUMULATE, END) or distance (OFFSET)
} sdf_instr;

// One child listed in a voxel of a culled union: a lower bound of its value over the voxel (in the
// grid's frame, rounded down; -inf where none is known) and its index in program order.
typedef struct sdf_cull_entry {
    float lower;
    int32_t child;
} sdf_cull_entry;

// The constants of an SQ (scales a, exponents eps1, eps2) that its radial distance uses
// (sdf_superquadric.h).
typedef struct sq_constants {
    double inverse_a[3]; // 1 / a
    double p, q, k, c;   // 2 / eps2, 2 / eps1, eps2 / eps1, -eps1 / 2
    double centre;       // the value at the centre, -min(a)
} sq_constants;

// A culled union's child that is one plain SQ leaf (a PSQ without planes), as the lanes of
// sdf_lanes.c read it; is_sq 0 for every other child.
typedef struct sdf_sq_lane {
    double rotation[3][3]; // world-from-leaf (the identity without a transform)
    double scale, inverse_scale;
    sq_constants shape;
    double inner; // (2^k + 1)^c: G(t) >= inner over the unit cube's surface, so phi <= |x| (1 - inner / m)
    int32_t is_sq;
} sdf_sq_lane;

// superquadrics evaluated together, one per SIMD lane (sdf_lanes.c)
#define SDF_LANES 8

// The voxel lists of a culled root union (sdf_cull.c, docs/sdf.md "Culled unions"): per voxel of a
// grid over the union's bounds, the children whose value can come within SDF_CULL_TEMPERATURES
// temperatures of the smallest child value somewhere in the voxel, by increasing lower bound; at a
// point, a child whose lower bound lies that far above the smallest value found so far adds below
// rounding, and so do all after it.
typedef struct sdf_cull {
    int32_t child_count;
    int32_t* child_first; // [child_count] first instruction of child k's code (program order)
    int32_t* child_op;    // [child_count] its BEGIN or ACCUMULATE instruction, just after its code
    int32_t end;          // the union's END instruction (OFFSETs may follow)
    int32_t has_transform;
    osc_mat3 rotation; // model-from-grid similarity, composed by transforms like a leaf's
    osc_vec3 translation;
    double scale;
    osc_vec3 origin; // the grid's lower corner, in its own frame
    double inverse_cell;
    int32_t cells[3];
    int32_t* first;          // [cells + 1] offsets into entries
    sdf_cull_entry* entries; // by increasing lower bound within a voxel
    sdf_sq_lane* sq_lanes;   // [child_count] the children's SQ constants (sdf_cull_pack_lanes)
} sdf_cull;

// skipped children lie at least this many temperatures above the smallest child value
#define SDF_CULL_TEMPERATURES 40.0

struct osc_sdf {
    int32_t leaf_count, instr_count, plane_count, xpsq_count;
    sdf_leaf* leaves;
    sdf_instr* program;
    osc_plane_profile* planes;
    sdf_xpsq* xpsqs;
    int32_t stack_need;
    osc_vec3 lo, hi;            // bounds of {phi <= 0}
    double lipschitz;           // bound (or estimate) on |grad phi| where phi > 0
    int32_t lipschitz_is_bound; // 0 when `lipschitz` is only an estimate (docs/sdf.md)
    sdf_cull* cull;             // NULL unless the root is a union with a voxel list (sdf_cull.c)
};

// how a leaf's Lipschitz value is known
typedef enum sdf_lipschitz_kind {
    SDF_LIPSCHITZ_EXACT,   // an exact distance: 1
    SDF_LIPSCHITZ_SAMPLED, // a distance-like function whose sampled maximum is a bound
    SDF_LIPSCHITZ_ESTIMATE // a sampled maximum that thin steep regions can exceed
} sdf_lipschitz_kind;

// Evaluates a leaf in its own frame (point already transformed) into a jet w.r.t. that frame.
void sdf_sphere_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_box_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_capsule_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_cone_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_torus_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_halfspace_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_ellipsoid_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_menger_eval(const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_psq_eval(const osc_sdf* sdf, const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);
void sdf_xpsq_eval(const osc_sdf* sdf, const sdf_leaf* leaf, osc_vec3 x, int order, jet* out);

// Creates a model of one leaf with the given local bounds for the public constructor `function`;
// `planes` and `xpsq` are copied when non-NULL. Unless the leaf is an exact distance, its Lipschitz
// value is sampled (sdf.c).
osc_status sdf_create_leaf(const char* function, const sdf_leaf* leaf, const osc_plane_profile* planes,
                           int32_t plane_count, const sdf_xpsq* xpsq, osc_vec3 lo, osc_vec3 hi,
                           sdf_lipschitz_kind lipschitz, osc_sdf** out);

// Creates a model of one external leaf for `function`, retaining `context`; `lipschitz` bounds its
// gradient where it is positive (is_bound 0: only an estimate).
osc_status sdf_create_external(const char* function, const sdf_external_vtable* vtable, const void* context,
                               osc_vec3 lo, osc_vec3 hi, double lipschitz, int is_bound, osc_sdf** out);

// Evaluates a whole model at a world point (order 0, 1 or 2).
void sdf_eval_jet(const osc_sdf* sdf, osc_vec3 x, int order, jet* out);

// The value at a world point of the instructions [first, last) of the program, a complete
// sub-tree (a union's child).
double sdf_eval_range(const osc_sdf* sdf, int32_t first, int32_t last, osc_vec3 x);

// Gives a root union of `count` children (sdf->program's last instruction its END) its voxel lists
// when they pay off: at least 3 children, each with a Lipschitz bound, and finite bounds. The
// child emitted k-th has its code at [child_first[k], child_op[k]) and the bound lipschitz[k] (0:
// none). Returns OSC_OK, with no lists where they do not apply, or OSC_ERR_NO_MEMORY.
osc_status sdf_cull_build(osc_sdf* sdf, int32_t count, const int32_t* child_first, const int32_t* child_op,
                          const double* lipschitz);

// Fills the culled union's sq_lanes from its leaves (again after a transform moves them).
void sdf_cull_pack_lanes(osc_sdf* sdf);

// The SQs sq[0 .. count) (count <= SDF_LANES) at the point whose image in each SQ leaf's axes
// (sdf_leaf_rotated, R^T (x - t)) is rotated[.][i], in the world frame: values, gradients (order >=
// 1) and packed Hessians (order 2), the same function as the scalar leaf's. Lanes from count on
// are unset.
void sdf_sq_lanes_eval(const sdf_sq_lane* const sq[SDF_LANES], int count, double rotated[3][SDF_LANES],
                       int order, double value[SDF_LANES], double gradient[3][SDF_LANES],
                       double hessian[6][SDF_LANES]);

// The widest lane kernel this process uses: 0 portable, 1 AVX2 with FMA, 2 AVX-512F with FMA, -1 none
// (every SQ by the scalar leaf, with libm's pow); the processor's (none without AVX2 and FMA, where the
// portable lanes cost more than the scalar leaves), capped by the environment variable OSC_SDF_LANES
// ("portable", "avx2" or "off"), read once.
int sdf_lanes_level(void);

// Sets the lane kernel (-1 to 2, capped by the processor's), for the tests of every path; returns
// the level set.
int sdf_lanes_set_level(int level);

// A copy of a model's voxel lists (NULL for none, or on failure: *failed set), released by
// sdf_cull_destroy.
sdf_cull* sdf_cull_copy(const sdf_cull* cull, bool* failed);
void sdf_cull_destroy(sdf_cull* cull);

// The children listed for the voxel holding world point x: their count, or -1 outside the grid.
OSC_FORCE_INLINE int32_t sdf_cull_lookup(const sdf_cull* c, osc_vec3 x, const sdf_cull_entry** entries) {
    if (c->has_transform)
        x = osc_scale(osc_mat3_apply_transpose(c->rotation, osc_sub(x, c->translation)), 1.0 / c->scale);
    double u = (x.x - c->origin.x) * c->inverse_cell, v = (x.y - c->origin.y) * c->inverse_cell,
           w = (x.z - c->origin.z) * c->inverse_cell;
    if (!(u >= 0.0 && v >= 0.0 && w >= 0.0 && u < c->cells[0] && v < c->cells[1] && w < c->cells[2])) return -1;
    int32_t i = (int32_t)u, j = (int32_t)v, k = (int32_t)w;
    if (i >= c->cells[0]) i = c->cells[0] - 1; // rounding at the upper faces
    if (j >= c->cells[1]) j = c->cells[1] - 1;
    if (k >= c->cells[2]) k = c->cells[2] - 1;
    size_t cell = ((size_t)k * (size_t)c->cells[1] + (size_t)j) * (size_t)c->cells[0] + (size_t)i;
    *entries = c->entries + c->first[cell];
    return c->first[cell + 1] - c->first[cell];
}

// Validation helpers (sdf.h's ranges), shared with the implicit surfaces and rays: OSC_OK, or
// OSC_ERR_INVALID_ARGUMENT with the message "<function>: <name> is <value>; it must be <range>".
// A length in [OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX]:
osc_status sdf_check_length(const char* function, const char* name, double value);
// A size that may be 0: in [0, OSC_SDF_LENGTH_MAX]:
osc_status sdf_check_size(const char* function, const char* name, double value);
// A temperature: 0 or in [OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX]:
osc_status sdf_check_temperature(const char* function, const char* name, double value);
// A coordinate or signed offset: finite, at most OSC_SDF_LENGTH_MAX in magnitude:
osc_status sdf_check_coordinate(const char* function, const char* name, double value);
// A point or translation: each coordinate as above:
osc_status sdf_check_point(const char* function, const char* name, osc_vec3 value);
static inline bool sdf_point_in_range(osc_vec3 value) { // the same test, without a message
    return fabs(value.x) <= OSC_SDF_LENGTH_MAX && fabs(value.y) <= OSC_SDF_LENGTH_MAX &&
           fabs(value.z) <= OSC_SDF_LENGTH_MAX;
}
// An SQ exponent in [OSC_SQ_EXPONENT_MIN, OSC_SQ_EXPONENT_MAX]:
osc_status sdf_check_exponent(const char* function, const char* name, double value);
// The finite components of a box within +-OSC_SDF_LENGTH_MAX (infinite ones: unbounded, and an
// empty box are accepted); `what` names the box in the message:
osc_status sdf_check_bounds(const char* function, const char* what, osc_vec3 lo, osc_vec3 hi);

// A plane: a non-zero finite normal, within OSC_SDF_LENGTH_MAX of the origin; writes |normal| to
// *length. `name` prefixes ".normal" and ".offset" in the message ("": none).
osc_status sdf_check_plane(const char* function, const char* name, osc_plane plane, double* length);

// |v| without overflow or underflow of the squares (0 for a zero vector, NaN or inf as v's).
double sdf_vector_length(osc_vec3 v);

#endif // OSC_SDF_INTERNAL_H
