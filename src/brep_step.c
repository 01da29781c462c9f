// brep_step.c: import of the first MANIFOLD_SOLID_BREP of a STEP file (ISO 10303-21 text parsed by
// brep_step_parse.c; entities of ISO 10303-42 as used by AP203 and AP214) into an osc_brep_desc,
// then osc_brep_create.
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
/// Largest B-spline degree and control point count read.
#define STEP_MAX_DEGREE 25
#define STEP_MAX_POLES (1 << 20)

typedef enum step_curve_kind { CURVE_LINE, CURVE_CIRCLE, CURVE_ELLIPSE, CURVE_BSPLINE } step_curve_kind;

// a 3D edge curve (ISO 10303-42 §4.4): line o + t z; circle / ellipse o + a cos t x + b sin t y;
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
    int instance;           // the EDGE_CURVE
    step_curve curve;
    int vertex[2];          // VERTEX_POINT instances at the start and end
    osc_vec3 point[2];
    double t[2];            // curve parameters at the start and the end, along the edge
    int closed, supported;  // supported: a line or circle (goes into the edge list)
    int uses, face[2];      // imported faces through it
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
    double angle_unit, length_unit, scale;
    osc_brep_surface* surfaces;
    int surface_count, surface_capacity;
    osc_brep_face* faces;
    int face_count, face_capacity;
    osc_brep_loop* loops;
    int loop_count, loop_capacity;
    osc_brep_trim* trims;
    int trim_count, trim_capacity;
    step_edge* edges;
    int edge_count, edge_capacity;
    int* edge_of;          // [instance_count]: edge record or -1
    unsigned char* dropped; // [instance_count]: EDGE_CURVEs of faces that were dropped
    step_pass* passes;     // the edge traversals of the face being read
    int pass_count, pass_capacity;
    double* samples;       // [sample_count][4]: t, u, v, degenerate
    int sample_count, sample_capacity;
} step_ctx;

// ---- errors and access ------------------------------------------------------------------------

// the entity's name: its type, or the parts of a complex instance that are not generic supertypes
static void step_entity_name(const step_ctx* ctx, int instance, char* buffer, size_t size) {
    const step_file* file = ctx->file;
    const step_instance* in = &file->instances[instance];
    size_t used = 0;
    buffer[0] = '\0';
    int part = in->parts;
    static const char* generic[] = {"BOUNDED_CURVE", "BOUNDED_SURFACE", "B_SPLINE_CURVE", "B_SPLINE_SURFACE",
                                    "CURVE", "SURFACE", "GEOMETRIC_REPRESENTATION_ITEM", "REPRESENTATION_ITEM"};
    for (int k = 0; k < in->part_count && part >= 0; ++k, part = file->nodes[part].next) {
        int skip = 0;
        for (size_t g = 0; g < sizeof generic / sizeof generic[0] && in->complex; ++g)
            skip |= step_named(file, part, generic[g]);
        if (skip) continue;
        const step_node* node = &file->nodes[part];
        int length = (int)(node->length < 60 ? node->length : 60);
        int written = snprintf(buffer + used, size - used, "%s%.*s", used ? "+" : "", length, file->text + node->text);
        if (written < 0 || (size_t)written >= size - used) break;
        used += (size_t)written;
    }
    if (!buffer[0] && in->part_count > 0) {
        const step_node* node = &file->nodes[in->parts];
        snprintf(buffer, size, "%.*s", (int)(node->length < 60 ? node->length : 60), file->text + node->text);
    }
}

static osc_status step_bad(const step_ctx* ctx, int instance, const char* what) {
    char name[96];
    step_entity_name(ctx, instance, name, sizeof name);
    return osc_fail(OSC_ERR_PARSE, "osc_brep_read_step: STEP line %d: #%lld %s: %s",
                    ctx->file->instances[instance].line, ctx->file->instances[instance].id, name, what);
}

// records the first unsupported entity and fails with OSC_ERR_UNSUPPORTED naming it
static osc_status step_unsupported(step_ctx* ctx, int instance, const char* what) {
    char name[96];
    step_entity_name(ctx, instance, name, sizeof name);
    if (!ctx->report->first_unsupported[0])
        snprintf(ctx->report->first_unsupported, sizeof ctx->report->first_unsupported, "#%lld %.80s",
                 ctx->file->instances[instance].id, name);
    return osc_fail(OSC_ERR_UNSUPPORTED, "osc_brep_read_step: #%lld %s (STEP line %d): %s",
                    ctx->file->instances[instance].id, name, ctx->file->instances[instance].line, what);
}

// the parameter list of `instance` if it is a simple instance of `type`, else -1
static int step_args(const step_ctx* ctx, int instance, const char* type) {
    if (instance < 0 || ctx->file->instances[instance].complex) return -1;
    return step_part(ctx->file, instance, type);
}

static const step_node* step_arg(const step_ctx* ctx, int list, int index) {
    int node = step_element(ctx->file, list, index);
    return node < 0 ? NULL : &ctx->file->nodes[node];
}

// the instance referenced by parameter `index` of `list` (of `instance`)
static osc_status step_ref(const step_ctx* ctx, int instance, int list, int index, int* target) {
    const step_node* node = step_arg(ctx, list, index);
    char what[96];
    if (!node || node->kind != STEP_REF) {
        snprintf(what, sizeof what, "parameter %d is not a reference", index + 1);
        return step_bad(ctx, instance, what);
    }
    *target = step_find(ctx->file, node->id);
    if (*target < 0) {
        snprintf(what, sizeof what, "parameter %d refers to #%lld, which is not defined", index + 1, node->id);
        return step_bad(ctx, instance, what);
    }
    return OSC_OK;
}

static osc_status step_real(const step_ctx* ctx, int instance, int list, int index, double* value) {
    const step_node* node = step_arg(ctx, list, index);
    if (node && node->kind == STEP_TYPED) node = step_arg(ctx, (int)(node - ctx->file->nodes), 0);
    if (!node || (node->kind != STEP_REAL && node->kind != STEP_INTEGER)) {
        char what[64];
        snprintf(what, sizeof what, "parameter %d is not a number", index + 1);
        return step_bad(ctx, instance, what);
    }
    *value = node->real;
    return OSC_OK;
}

static osc_status step_bool(const step_ctx* ctx, int instance, int list, int index, int* value) {
    int node = step_element(ctx->file, list, index);
    if (step_named(ctx->file, node, "T")) *value = 1;
    else if (step_named(ctx->file, node, "F")) *value = 0;
    else {
        char what[64];
        snprintf(what, sizeof what, "parameter %d is not .T. or .F.", index + 1);
        return step_bad(ctx, instance, what);
    }
    return OSC_OK;
}

// a list parameter: its first element node and count
static osc_status step_list_arg(const step_ctx* ctx, int instance, int list, int index, int* first, int* count) {
    int node = step_element(ctx->file, list, index);
    if (node < 0 || ctx->file->nodes[node].kind != STEP_LIST) {
        char what[64];
        snprintf(what, sizeof what, "parameter %d is not a list", index + 1);
        return step_bad(ctx, instance, what);
    }
    *first = ctx->file->nodes[node].child;
    *count = ctx->file->nodes[node].count;
    return OSC_OK;
}

// the instance a list element refers to
static osc_status step_ref_node(const step_ctx* ctx, int instance, int node, int* target) {
    if (node < 0 || ctx->file->nodes[node].kind != STEP_REF)
        return step_bad(ctx, instance, "a list element is not a reference");
    *target = step_find(ctx->file, ctx->file->nodes[node].id);
    if (*target < 0) {
        char what[96];
        snprintf(what, sizeof what, "refers to #%lld, which is not defined", ctx->file->nodes[node].id);
        return step_bad(ctx, instance, what);
    }
    return OSC_OK;
}

static osc_status step_grow(void** data, int* capacity, int needed, size_t size) {
    if (needed <= *capacity) return OSC_OK;
    if (needed > INT_MAX / 2) return osc_fail(OSC_ERR_CAPACITY, "osc_brep_read_step: model too large");
    int grown = *capacity ? *capacity : 16;
    while (grown < needed) grown *= 2;
    void* block = osc_alloc((size_t)grown * size);
    if (!block) return OSC_ERR_NO_MEMORY;
    if (*capacity) memcpy(block, *data, (size_t)*capacity * size);
    osc_free(*data);
    *data = block;
    *capacity = grown;
    return OSC_OK;
}

#define STEP_GROW(ctx, array, count, capacity, needed)                                             \
    step_grow((void**)&(ctx)->array, &(ctx)->capacity, (needed), sizeof *(ctx)->array)

// ---- points, directions, placements (ISO 10303-42 §4.4.4 - §4.4.8) ----------------------------

static osc_status step_point(const step_ctx* ctx, int instance, osc_vec3* point) {
    int args = step_args(ctx, instance, "CARTESIAN_POINT"), first = -1, count = 0;
    if (args < 0) return step_bad(ctx, instance, "a CARTESIAN_POINT was expected");
    osc_status status = step_list_arg(ctx, instance, args, 1, &first, &count);
    if (status != OSC_OK) return status;
    if (count != 3) return step_bad(ctx, instance, "a point with 3 coordinates was expected");
    double c[3];
    for (int k = 0; k < 3; ++k, first = ctx->file->nodes[first].next) {
        const step_node* node = &ctx->file->nodes[first];
        if (node->kind != STEP_REAL && node->kind != STEP_INTEGER) return step_bad(ctx, instance, "bad coordinate");
        c[k] = node->real;
    }
    *point = osc_v3(c[0], c[1], c[2]);
    return OSC_OK;
}

static osc_status step_direction(const step_ctx* ctx, int instance, osc_vec3* direction) {
    int args = step_args(ctx, instance, "DIRECTION"), first = -1, count = 0;
    if (args < 0) return step_bad(ctx, instance, "a DIRECTION was expected");
    osc_status status = step_list_arg(ctx, instance, args, 1, &first, &count);
    if (status != OSC_OK) return status;
    if (count != 3) return step_bad(ctx, instance, "a direction with 3 ratios was expected");
    double c[3];
    for (int k = 0; k < 3; ++k, first = ctx->file->nodes[first].next) {
        const step_node* node = &ctx->file->nodes[first];
        if (node->kind != STEP_REAL && node->kind != STEP_INTEGER) return step_bad(ctx, instance, "bad ratio");
        c[k] = node->real;
    }
    osc_vec3 d = osc_v3(c[0], c[1], c[2]);
    double length = osc_length(d);
    if (!(length > 1e-300) || !isfinite(length)) return step_bad(ctx, instance, "zero direction");
    *direction = osc_scale(d, 1.0 / length);
    return OSC_OK;
}

// AXIS2_PLACEMENT_3D(name, location, axis, ref_direction): frame o, x, y, z (§4.4.8: axis
// defaults to +z, ref_direction to +x projected, or +y when +x is the axis)
static osc_status step_placement(const step_ctx* ctx, int instance, osc_vec3* o, osc_vec3* x, osc_vec3* y,
                                 osc_vec3* z) {
    int args = step_args(ctx, instance, "AXIS2_PLACEMENT_3D"), target;
    if (args < 0) return step_bad(ctx, instance, "an AXIS2_PLACEMENT_3D was expected");
    osc_status status = step_ref(ctx, instance, args, 1, &target);
    if (status == OSC_OK) status = step_point(ctx, target, o);
    if (status != OSC_OK) return status;
    *z = osc_v3(0, 0, 1);
    osc_vec3 r = osc_v3(1, 0, 0);
    const step_node* axis = step_arg(ctx, args, 2);
    const step_node* ref = step_arg(ctx, args, 3);
    if (!axis || !ref) return step_bad(ctx, instance, "4 parameters expected");
    if (axis->kind != STEP_UNSET) {
        if ((status = step_ref(ctx, instance, args, 2, &target)) != OSC_OK) return status;
        if ((status = step_direction(ctx, target, z)) != OSC_OK) return status;
    }
    if (ref->kind != STEP_UNSET) {
        if ((status = step_ref(ctx, instance, args, 3, &target)) != OSC_OK) return status;
        if ((status = step_direction(ctx, target, &r)) != OSC_OK) return status;
    } else if (fabs(z->x) > 1.0 - 1e-12) {
        r = osc_v3(0, 1, 0);
    }
    osc_vec3 p = osc_sub(r, osc_scale(*z, osc_dot(r, *z)));
    double length = osc_length(p);
    if (!(length > 1e-9)) return step_bad(ctx, instance, "ref_direction is parallel to the axis");
    *x = osc_scale(p, 1.0 / length);
    *y = osc_cross(*z, *x);
    return OSC_OK;
}

// ---- units (ISO 10303-41 §4.2: SI_UNIT, CONVERSION_BASED_UNIT) --------------------------------

static double step_si_prefix(const step_file* file, int node) {
    static const struct { const char* name; double factor; } prefixes[] = {
        {"EXA", 1e18}, {"PETA", 1e15}, {"TERA", 1e12}, {"GIGA", 1e9}, {"MEGA", 1e6}, {"KILO", 1e3},
        {"HECTO", 1e2}, {"DECA", 1e1}, {"DECI", 1e-1}, {"CENTI", 1e-2}, {"MILLI", 1e-3}, {"MICRO", 1e-6},
        {"NANO", 1e-9}, {"PICO", 1e-12}, {"FEMTO", 1e-15}, {"ATTO", 1e-18}};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; ++k)
        if (step_named(file, node, prefixes[k].name)) return prefixes[k].factor;
    return 1.0;
}

// the size of a unit instance in radians or metres, 0 when unknown; `depth` bounds the chain of
// conversion-based units
static double step_unit_factor(const step_ctx* ctx, int unit, int depth) {
    const step_file* file = ctx->file;
    if (unit < 0 || depth > 4) return 0.0;
    int si = step_part(file, unit, "SI_UNIT");
    if (si >= 0) { // complex form SI_UNIT(prefix, name); simple form SI_UNIT(*, prefix, name)
        int n = step_length(file, si);
        if (n < 2) return 0.0;
        int prefix = step_element(file, si, n - 2), name = step_element(file, si, n - 1);
        if (step_named(file, name, "RADIAN") || step_named(file, name, "METRE"))
            return step_si_prefix(file, prefix);
        return 0.0;
    }
    int conversion = step_part(file, unit, "CONVERSION_BASED_UNIT");
    if (conversion < 0) return 0.0;
    double named = 0.0;
    const step_node* name = step_arg(ctx, conversion, 0);
    if (name && name->kind == STEP_STRING) {
        static const struct { const char* name; double factor; } known[] = {
            {"DEGREE", STEP_PI / 180.0}, {"DEGREES", STEP_PI / 180.0}, {"INCH", 0.0254}, {"FOOT", 0.3048}};
        for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k) {
            size_t n = strlen(known[k].name);
            if (name->length == n) {
                int same = 1;
                for (size_t i = 0; i < n; ++i) {
                    char c = file->text[name->text + i];
                    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
                    same &= c == known[k].name[i];
                }
                if (same) named = known[k].factor;
            }
        }
    }
    // the conversion factor: a MEASURE_WITH_UNIT (value_component, unit_component)
    const step_node* factor = step_arg(ctx, conversion, 1);
    if (factor && factor->kind == STEP_REF) {
        int measure = step_find(file, factor->id);
        int args = -1;
        int part = measure >= 0 ? file->instances[measure].parts : -1;
        for (int k = 0; measure >= 0 && k < file->instances[measure].part_count && part >= 0;
             ++k, part = file->nodes[part].next) {
            const step_node* node = &file->nodes[part];
            if (node->length >= 17 &&
                step_named(file, part, "PLANE_ANGLE_MEASURE_WITH_UNIT") + step_named(file, part, "MEASURE_WITH_UNIT") +
                        step_named(file, part, "LENGTH_MEASURE_WITH_UNIT") > 0)
                args = part;
        }
        const step_node* value = args >= 0 ? step_arg(ctx, args, 0) : NULL;
        if (value && value->kind == STEP_TYPED) value = step_arg(ctx, (int)(value - file->nodes), 0);
        const step_node* base = args >= 0 ? step_arg(ctx, args, 1) : NULL;
        if (value && (value->kind == STEP_REAL || value->kind == STEP_INTEGER) && base && base->kind == STEP_REF) {
            double base_factor = step_unit_factor(ctx, step_find(file, base->id), depth + 1);
            double result = value->real * base_factor;
            if (result > 0.0 && isfinite(result)) return result;
        }
    }
    return named;
}

// the angle and length units of the representation holding `solid` (or the file's first)
static void step_units(step_ctx* ctx, int solid) {
    const step_file* file = ctx->file;
    ctx->angle_unit = 1.0;
    ctx->length_unit = 0.0;
    int context = -1;
    long long solid_id = file->instances[solid].id;
    for (int i = 0; i < file->instance_count && context < 0; ++i) {
        const step_instance* in = &file->instances[i];
        if (in->complex || in->part_count != 1) continue;
        const step_node* type = &file->nodes[in->parts];
        if (type->length < 14 || (!step_named(file, in->parts, "ADVANCED_BREP_SHAPE_REPRESENTATION") &&
                                      !step_named(file, in->parts, "SHAPE_REPRESENTATION") &&
                                      !step_named(file, in->parts, "MANIFOLD_SURFACE_SHAPE_REPRESENTATION")))
            continue;
        const step_node* items = step_arg(ctx, in->parts, 1);
        const step_node* ctx_ref = step_arg(ctx, in->parts, 2);
        if (!items || items->kind != STEP_LIST || !ctx_ref || ctx_ref->kind != STEP_REF) continue;
        for (int node = items->child; node >= 0; node = file->nodes[node].next)
            if (file->nodes[node].kind == STEP_REF && file->nodes[node].id == solid_id)
                context = step_find(file, ctx_ref->id);
    }
    int assigned = step_part(file, context, "GLOBAL_UNIT_ASSIGNED_CONTEXT");
    const step_node* units = assigned >= 0 ? step_arg(ctx, assigned, 0) : NULL;
    int found_angle = 0;
    for (int node = units && units->kind == STEP_LIST ? units->child : -1; node >= 0; node = file->nodes[node].next) {
        if (file->nodes[node].kind != STEP_REF) continue;
        int unit = step_find(file, file->nodes[node].id);
        double factor = step_unit_factor(ctx, unit, 0);
        if (factor <= 0.0) continue;
        if (step_part(file, unit, "PLANE_ANGLE_UNIT") >= 0) {
            ctx->angle_unit = factor;
            found_angle = 1;
        }
        if (step_part(file, unit, "LENGTH_UNIT") >= 0) ctx->length_unit = factor;
    }
    for (int i = 0; i < file->instance_count && !found_angle; ++i) { // no context: the file's first
        if (step_part(file, i, "PLANE_ANGLE_UNIT") < 0) continue;
        double factor = step_unit_factor(ctx, i, 0);
        if (factor > 0.0) {
            ctx->angle_unit = factor;
            found_angle = 1;
        }
    }
}

// ---- surfaces (ISO 10303-42 §4.4.23 - §4.4.31) and their closed-form inverses ------------------

// reads the face geometry; OSC_ERR_UNSUPPORTED for anything but the five canonical surfaces
static osc_status step_surface(step_ctx* ctx, int instance, osc_brep_surface* surface) {
    static const struct { const char* name; osc_surface_type type; int sizes; } kinds[] = {
        {"PLANE", OSC_SURFACE_PLANE, 0}, {"CYLINDRICAL_SURFACE", OSC_SURFACE_CYLINDER, 1},
        {"CONICAL_SURFACE", OSC_SURFACE_CONE, 2}, {"SPHERICAL_SURFACE", OSC_SURFACE_SPHERE, 1},
        {"TOROIDAL_SURFACE", OSC_SURFACE_TORUS, 2}};
    int args = -1;
    size_t kind = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && args < 0; ++k)
        if ((args = step_args(ctx, instance, kinds[k].name)) >= 0) kind = k;
    if (args < 0) return step_unsupported(ctx, instance, "the face's surface is not a plane, cylinder, cone, sphere or torus");
    memset(surface, 0, sizeof *surface);
    surface->type = kinds[kind].type;
    int placement;
    osc_vec3 y;
    osc_status status = step_ref(ctx, instance, args, 1, &placement);
    if (status == OSC_OK) status = step_placement(ctx, placement, &surface->origin, &surface->ref, &y, &surface->axis);
    if (status != OSC_OK) return status;
    double size[2] = {0.0, 0.0};
    for (int k = 0; k < kinds[kind].sizes; ++k)
        if ((status = step_real(ctx, instance, args, 2 + k, &size[k])) != OSC_OK) return status;
    if (surface->type == OSC_SURFACE_CONE) {
        surface->radius = size[0];
        surface->angle = size[1] * ctx->angle_unit;
        if (!(surface->radius >= 0.0) || !(surface->angle > 0.0 && surface->angle < 0.5 * STEP_PI))
            return step_bad(ctx, instance, "a cone needs radius >= 0 and a semi-angle in (0, pi/2)");
    } else {
        surface->radius = size[0];
        surface->radius2 = size[1];
        if (kinds[kind].sizes >= 1 && !(surface->radius > 0.0)) return step_bad(ctx, instance, "radius must be positive");
        if (kinds[kind].sizes == 2 && !(surface->radius2 > 0.0))
            return step_bad(ctx, instance, "minor radius must be positive");
    }
    return OSC_OK;
}

static osc_vec3 step_surface_eval(const osc_brep_surface* s, double u, double v) {
    osc_vec3 y = osc_cross(s->axis, s->ref);
    osc_vec3 e = osc_add(osc_scale(s->ref, cos(u)), osc_scale(y, sin(u)));
    switch (s->type) {
    case OSC_SURFACE_PLANE: return osc_add(s->origin, osc_add(osc_scale(s->ref, u), osc_scale(y, v)));
    case OSC_SURFACE_CYLINDER: return osc_add(s->origin, osc_add(osc_scale(e, s->radius), osc_scale(s->axis, v)));
    case OSC_SURFACE_CONE:
        return osc_add(s->origin, osc_add(osc_scale(e, s->radius + v * sin(s->angle)), osc_scale(s->axis, v * cos(s->angle))));
    case OSC_SURFACE_SPHERE:
        return osc_add(s->origin, osc_add(osc_scale(e, s->radius * cos(v)), osc_scale(s->axis, s->radius * sin(v))));
    case OSC_SURFACE_TORUS:
        return osc_add(s->origin,
                       osc_add(osc_scale(e, s->radius + s->radius2 * cos(v)), osc_scale(s->axis, s->radius2 * sin(v))));
    }
    return s->origin;
}

// (u, v) of a point on the surface (brep.h parametrisations, u in (-pi, pi]); returns 0 where u is
// undefined (on the axis of a surface of revolution). On a torus with r >= R (the screw's head),
// the branch whose tube circle passes closer to the point is taken.
static int step_surface_uv(const osc_brep_surface* s, osc_vec3 x, double uv[2]) {
    osc_vec3 d = osc_sub(x, s->origin);
    osc_vec3 y = osc_cross(s->axis, s->ref);
    double px = osc_dot(d, s->ref), py = osc_dot(d, y), h = osc_dot(d, s->axis);
    if (s->type == OSC_SURFACE_PLANE) {
        uv[0] = px;
        uv[1] = py;
        return 1;
    }
    double rho = hypot(px, py);
    double size = s->radius + s->radius2 + fabs(h) + rho;
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
static int step_negative_branch(const osc_brep_surface* s, osc_vec3 x) {
    double uv[2];
    if (s->type != OSC_SURFACE_CONE && s->type != OSC_SURFACE_TORUS) return 0;
    step_surface_uv(s, x, uv);
    double factor = s->type == OSC_SURFACE_CONE ? s->radius + uv[1] * sin(s->angle) : s->radius + s->radius2 * cos(uv[1]);
    return factor < 0.0;
}

static int step_u_periodic(const osc_brep_surface* s) {
    return s->type != OSC_SURFACE_PLANE;
}

static int step_v_periodic(const osc_brep_surface* s) {
    return s->type == OSC_SURFACE_TORUS;
}

// ---- curves (ISO 10303-42 §4.4.10 - §4.4.20) ---------------------------------------------------

static osc_vec3 step_curve_eval(const step_curve* c, double t) {
    switch (c->kind) {
    case CURVE_LINE: return osc_add(c->o, osc_scale(c->z, t));
    case CURVE_CIRCLE:
    case CURVE_ELLIPSE: return osc_add(c->o, osc_add(osc_scale(c->x, c->a * cos(t)), osc_scale(c->y, c->b * sin(t))));
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

static double step_curve_lo(const step_curve* c) {
    return c->kind == CURVE_BSPLINE ? c->knots[c->degree] : -STEP_PI;
}

static double step_curve_hi(const step_curve* c) {
    return c->kind == CURVE_BSPLINE ? c->knots[c->count] : STEP_PI;
}

// the parameter of the curve point nearest `x` (exact for conics, sampled then refined for B-splines)
static double step_curve_param(const step_curve* c, osc_vec3 x) {
    osc_vec3 d = osc_sub(x, c->o);
    if (c->kind == CURVE_LINE) return osc_dot(d, c->z);
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
        if (osc_length_squared(osc_sub(step_curve_eval(c, m1), x)) < osc_length_squared(osc_sub(step_curve_eval(c, m2), x)))
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
        base = knotted = step_args(ctx, instance, "B_SPLINE_CURVE_WITH_KNOTS");
        offset = 1; // the simple form starts with the name
    } else {
        base = step_part(file, instance, "B_SPLINE_CURVE");
        knotted = step_part(file, instance, "B_SPLINE_CURVE_WITH_KNOTS");
    }
    if (base < 0 || knotted < 0) return step_unsupported(ctx, instance, "unsupported B-spline form");
    int rational = step_part(file, instance, "RATIONAL_B_SPLINE_CURVE");
    double degree_value;
    osc_status status = step_real(ctx, instance, base, offset, &degree_value);
    if (status != OSC_OK) return status;
    if (!(degree_value >= 1 && degree_value <= STEP_MAX_DEGREE) || degree_value != floor(degree_value))
        return step_bad(ctx, instance, "B-spline degree out of [1, 25]");
    int degree = (int)degree_value, pole_first = -1, pole_count = 0, mult_first = -1, mult_count = 0, knot_first = -1, knot_count = 0;
    int knot_offset = file->instances[instance].complex ? 0 : 6;
    if ((status = step_list_arg(ctx, instance, base, offset + 1, &pole_first, &pole_count)) != OSC_OK ||
        (status = step_list_arg(ctx, instance, knotted, knot_offset, &mult_first, &mult_count)) != OSC_OK ||
        (status = step_list_arg(ctx, instance, knotted, knot_offset + 1, &knot_first, &knot_count)) != OSC_OK)
        return status;
    if (pole_count < degree + 1 || pole_count > STEP_MAX_POLES || mult_count != knot_count || knot_count < 2)
        return step_bad(ctx, instance, "inconsistent B-spline sizes");
    long long total = 0;
    for (int node = mult_first; node >= 0; node = file->nodes[node].next) {
        double m = file->nodes[node].real;
        if (file->nodes[node].kind != STEP_INTEGER || m < 1 || m > degree + 1)
            return step_bad(ctx, instance, "bad knot multiplicity");
        total += (long long)m;
    }
    if (total != (long long)pole_count + degree + 1)
        return step_bad(ctx, instance, "knot multiplicities do not add up to poles + degree + 1");
    int weight_first = -1, weight_count = 0;
    if (rational >= 0 && (status = step_list_arg(ctx, instance, rational, 0, &weight_first, &weight_count)) != OSC_OK)
        return status;
    if (rational >= 0 && weight_count != pole_count) return step_bad(ctx, instance, "weights do not match the poles");
    curve->kind = CURVE_BSPLINE;
    curve->degree = degree;
    curve->count = pole_count;
    curve->poles = osc_alloc((size_t)pole_count * 4 * sizeof(double));
    curve->knots = osc_alloc((size_t)total * sizeof(double));
    if (!curve->poles || !curve->knots) return OSC_ERR_NO_MEMORY;
    int node = pole_first, weight = weight_first;
    for (int i = 0; i < pole_count; ++i, node = file->nodes[node].next) {
        int point;
        osc_vec3 x;
        if ((status = step_ref_node(ctx, instance, node, &point)) != OSC_OK ||
            (status = step_point(ctx, point, &x)) != OSC_OK)
            return status;
        double w = 1.0;
        if (weight >= 0) {
            if (file->nodes[weight].kind != STEP_REAL && file->nodes[weight].kind != STEP_INTEGER)
                return step_bad(ctx, instance, "bad weight");
            w = file->nodes[weight].real;
            weight = file->nodes[weight].next;
            if (!(w > 0.0)) return step_bad(ctx, instance, "weights must be positive");
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
            return step_bad(ctx, instance, "bad knot");
        double value = file->nodes[node].real;
        if (at > 0 && value < curve->knots[at - 1]) return step_bad(ctx, instance, "knots decrease");
        for (int m = 0; m < (int)file->nodes[mult].real; ++m) curve->knots[at++] = value;
    }
    if (!(curve->knots[pole_count] > curve->knots[degree])) return step_bad(ctx, instance, "empty knot range");
    return OSC_OK;
}

// the 3D curve of an edge: LINE, CIRCLE, ELLIPSE, B-spline, through at most three wrappers
// (SURFACE_CURVE, SEAM_CURVE: curve_3d; TRIMMED_CURVE: basis_curve, its trims ignored since the
// edge's vertices bound it)
static osc_status step_read_curve(step_ctx* ctx, int instance, step_curve* curve) {
    osc_status status;
    for (int depth = 0; depth < 3; ++depth) {
        int args = step_args(ctx, instance, "SURFACE_CURVE");
        if (args < 0) args = step_args(ctx, instance, "SEAM_CURVE");
        if (args < 0) args = step_args(ctx, instance, "TRIMMED_CURVE");
        if (args < 0) break;
        if ((status = step_ref(ctx, instance, args, 1, &instance)) != OSC_OK) return status;
    }
    memset(curve, 0, sizeof *curve);
    curve->instance = instance;
    int args, target;
    osc_vec3 y;
    if ((args = step_args(ctx, instance, "LINE")) >= 0) {
        curve->kind = CURVE_LINE;
        if ((status = step_ref(ctx, instance, args, 1, &target)) != OSC_OK ||
            (status = step_point(ctx, target, &curve->o)) != OSC_OK ||
            (status = step_ref(ctx, instance, args, 2, &target)) != OSC_OK)
            return status;
        int vector = step_args(ctx, target, "VECTOR");
        if (vector < 0) return step_bad(ctx, target, "a VECTOR was expected");
        if ((status = step_ref(ctx, target, vector, 1, &target)) != OSC_OK) return status;
        return step_direction(ctx, target, &curve->z);
    }
    int circle = (args = step_args(ctx, instance, "CIRCLE")) >= 0;
    if (circle || (args = step_args(ctx, instance, "ELLIPSE")) >= 0) {
        curve->kind = circle ? CURVE_CIRCLE : CURVE_ELLIPSE;
        if ((status = step_ref(ctx, instance, args, 1, &target)) != OSC_OK ||
            (status = step_placement(ctx, target, &curve->o, &curve->x, &y, &curve->z)) != OSC_OK ||
            (status = step_real(ctx, instance, args, 2, &curve->a)) != OSC_OK)
            return status;
        curve->y = y;
        curve->b = curve->a;
        if (!circle && (status = step_real(ctx, instance, args, 3, &curve->b)) != OSC_OK) return status;
        if (!(curve->a > 0.0) || !(curve->b > 0.0)) return step_bad(ctx, instance, "radius must be positive");
        return OSC_OK;
    }
    if (step_args(ctx, instance, "B_SPLINE_CURVE_WITH_KNOTS") >= 0 ||
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
    int args = step_args(ctx, instance, "VERTEX_POINT"), target;
    if (args < 0) return step_bad(ctx, instance, "a VERTEX_POINT was expected");
    osc_status status = step_ref(ctx, instance, args, 1, &target);
    return status == OSC_OK ? step_point(ctx, target, point) : status;
}

// the record of EDGE_CURVE `instance`, read on first use
static osc_status step_edge_get(step_ctx* ctx, int instance, int* index) {
    if (ctx->edge_of[instance] >= 0) {
        *index = ctx->edge_of[instance];
        return OSC_OK;
    }
    int args = step_args(ctx, instance, "EDGE_CURVE"), geometry = -1, same_sense = 0;
    if (args < 0) return step_unsupported(ctx, instance, "an ORIENTED_EDGE's element is not an EDGE_CURVE");
    osc_status status = STEP_GROW(ctx, edges, edge_count, edge_capacity, ctx->edge_count + 1);
    if (status != OSC_OK) return status;
    step_edge* e = &ctx->edges[ctx->edge_count];
    memset(e, 0, sizeof *e);
    e->instance = instance;
    if ((status = step_ref(ctx, instance, args, 1, &e->vertex[0])) != OSC_OK ||
        (status = step_ref(ctx, instance, args, 2, &e->vertex[1])) != OSC_OK ||
        (status = step_vertex(ctx, e->vertex[0], &e->point[0])) != OSC_OK ||
        (status = step_vertex(ctx, e->vertex[1], &e->point[1])) != OSC_OK ||
        (status = step_ref(ctx, instance, args, 3, &geometry)) != OSC_OK ||
        (status = step_bool(ctx, instance, args, 4, &same_sense)) != OSC_OK)
        return status;
    ++ctx->edge_count; // owns the curve's arrays from here on
    if ((status = step_read_curve(ctx, geometry, &e->curve)) != OSC_OK) return status;
    const step_curve* c = &e->curve;
    double tolerance = 1e-9 * ctx->scale;
    e->closed = e->vertex[0] == e->vertex[1] || osc_length(osc_sub(e->point[0], e->point[1])) <= tolerance;
    e->supported = c->kind == CURVE_LINE || c->kind == CURVE_CIRCLE;
    double sense = same_sense ? 1.0 : -1.0;
    e->t[0] = step_curve_param(c, e->point[0]);
    e->t[1] = step_curve_param(c, e->point[1]);
    if (c->kind == CURVE_LINE) {
        if (!(fabs(e->t[1] - e->t[0]) > tolerance)) return step_bad(ctx, instance, "a line edge of zero length");
    } else if (c->kind == CURVE_BSPLINE) {
        if (e->closed && fabs(e->t[1] - e->t[0]) < 1e-9 * (step_curve_hi(c) - step_curve_lo(c))) {
            e->t[0] = sense > 0 ? step_curve_lo(c) : step_curve_hi(c);
            e->t[1] = sense > 0 ? step_curve_hi(c) : step_curve_lo(c);
        }
    } else { // a conic: from the start in the curve's sense (same_sense) to the end
        double sweep = step_mod_two_pi(sense * (e->t[1] - e->t[0]));
        if (e->closed && (sweep < 1e-9 || sweep > STEP_TWO_PI - 1e-9)) sweep = STEP_TWO_PI;
        if (!(sweep > 1e-12)) return step_bad(ctx, instance, "an arc edge of zero length");
        e->t[1] = e->t[0] + sense * sweep;
    }
    for (int k = 0; k < 2; ++k) // the vertices must lie on the curve (a file that lies fails here)
        if (osc_length(osc_sub(step_curve_eval(c, e->t[k]), e->point[k])) > 1e-4 * ctx->scale)
            return step_bad(ctx, instance, "a vertex is not on the edge's curve");
    ctx->edge_of[instance] = ctx->edge_count - 1;
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

static double step_unwrap(double value, double reference) {
    return value + STEP_TWO_PI * floor((reference - value) / STEP_TWO_PI + 0.5);
}

// unwraps the periodic coordinates of the samples continuously from `reference` and gives the
// samples where u is undefined the u of their nearest defined neighbour
static void step_unwrap_samples(step_ctx* ctx, const osc_brep_surface* s, const double reference[2]) {
    double* x = ctx->samples;
    int n = ctx->sample_count, first = -1;
    double previous[2] = {reference[0], reference[1]};
    for (int i = 0; i < n; ++i) {
        double* p = x + 4 * i;
        if (step_v_periodic(s)) previous[1] = p[2] = step_unwrap(p[2], previous[1]);
        if (!p[3]) continue;
        if (step_u_periodic(s)) p[1] = step_unwrap(p[1], previous[0]);
        previous[0] = p[1];
        if (first < 0) first = i;
    }
    double u = first >= 0 ? x[4 * first + 1] : reference[0];
    for (int i = 0; i < n; ++i) {
        if (x[4 * i + 3]) u = x[4 * i + 1];
        else x[4 * i + 1] = u;
    }
}

// the distance between the surface images of the midpoint of samples i, i + 1 and of the curve's
// midpoint (projected on the surface first: approximate intersection curves leave it a little)
static double step_midpoint_error(const step_ctx* ctx, const osc_brep_surface* s, const step_curve* c, int i) {
    const double* a = ctx->samples + 4 * i;
    const double* b = a + 4;
    osc_vec3 on_surface = step_surface_eval(s, 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2]));
    double uv[2];
    step_surface_uv(s, step_curve_eval(c, 0.5 * (a[0] + b[0])), uv);
    return osc_length(osc_sub(on_surface, step_surface_eval(s, uv[0], uv[1])));
}

// samples the traversal of edge `e` from parameter ta (at point pa) to tb (pb) onto surface `s`,
// refining until the polyline is within tolerance; leaves the samples in ctx->samples
static osc_status step_sample_edge(step_ctx* ctx, const osc_brep_surface* s, const step_edge* e, double ta,
                                   double tb, osc_vec3 pa, osc_vec3 pb, const double reference[2], int refine) {
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
        int regular = step_surface_uv(s, x, uv);
        if ((status = step_add_sample(ctx, t, uv, regular)) != OSC_OK) return status;
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
    for (int pass = 0; pass < 16; ++pass) { // split every piece whose midpoint is off
        int n = ctx->sample_count, added = 0;
        for (int i = n - 2; i >= 0; --i) {
            if (ctx->sample_count + 1 > STEP_MAX_SAMPLES) break;
            if (step_midpoint_error(ctx, s, c, i) <= tolerance) continue;
            if ((status = STEP_GROW(ctx, samples, sample_count, sample_capacity, 4 * (ctx->sample_count + 1))) != OSC_OK)
                return status;
            double* a = ctx->samples + 4 * i;
            memmove(a + 8, a + 4, (size_t)(ctx->sample_count - i - 1) * 4 * sizeof(double));
            ++ctx->sample_count;
            double t = 0.5 * (a[0] + a[8]), uv[2];
            int regular = step_surface_uv(s, step_curve_eval(c, t), uv);
            if (step_u_periodic(s)) uv[0] = regular ? step_unwrap(uv[0], a[1]) : a[1];
            if (step_v_periodic(s)) uv[1] = step_unwrap(uv[1], a[2]);
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
} step_loop_state;

// joins `from` to `to` with a straight piece when they differ: allowed where both map to the same
// point of a surface's degenerate line (a pole, a cone's apex) or within rounding
static osc_status step_join(step_ctx* ctx, const osc_brep_surface* s, int face, const double from[2],
                            const double to[2]) {
    double du = fabs(from[0] - to[0]), dv = fabs(from[1] - to[1]);
    if (du <= 1e-9 * (1.0 + fabs(from[0])) && dv <= 1e-9 * (1.0 + fabs(from[1]))) return OSC_OK;
    osc_vec3 a = step_surface_eval(s, from[0], from[1]), b = step_surface_eval(s, to[0], to[1]);
    double uv[2];
    int regular = step_surface_uv(s, a, uv);
    if (osc_length(osc_sub(a, b)) > 1e-6 * ctx->scale)
        return step_bad(ctx, face, "a loop's edges do not meet in the face's parameters");
    if (regular && (du > 1.0 || dv > 1.0))
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
    double a[2], b[2];
    if (s->type == OSC_SURFACE_PLANE && c->kind == CURVE_LINE) { // exact
        step_surface_uv(s, pa, a);
        step_surface_uv(s, pb, b);
        ctx->sample_count = 0;
        if ((status = step_add_sample(ctx, ta, a, 1)) != OSC_OK || (status = step_add_sample(ctx, tb, b, 1)) != OSC_OK)
            return status;
    } else if (s->type == OSC_SURFACE_PLANE && c->kind == CURVE_CIRCLE && fabs(osc_dot(c->z, s->axis)) > 1.0 - 1e-12 &&
               fabs(osc_dot(osc_sub(c->o, s->origin), s->axis)) <= 1e-9 * ctx->scale) {
        // a circle in the plane: an exact arc, turning with the sign of its axis on the normal
        double center[2];
        step_surface_uv(s, c->o, center);
        step_surface_uv(s, pa, a);
        step_surface_uv(s, pb, b);
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
        if (!step_samples_iso(ctx, 1, 1e-9) && !step_samples_iso(ctx, 2, s->type == OSC_SURFACE_CYLINDER ||
                                                                            s->type == OSC_SURFACE_CONE
                                                                        ? tolerance
                                                                        : 1e-9)) {
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
        int coordinate = step_u_periodic(s) && fabs(x[1] - x[4 * (n - 1) + 1]) < 1e-9 ? 1
                         : step_v_periodic(s) && fabs(x[2] - x[4 * (n - 1) + 2]) < 1e-9 ? 2
                                                                                        : 0;
        if (!coordinate) return step_bad(ctx, face, "an edge is used twice along the same parameters");
        for (int i = 0; i < n; ++i) x[4 * i + coordinate] += STEP_TWO_PI;
    }
    if ((status = step_record_pass(ctx, index, x + 1, x + 4 * (n - 1) + 1)) != OSC_OK) return status;
    if (state->started && (status = step_join(ctx, s, face, state->last, x + 1)) != OSC_OK) return status;
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
    step_entity_name(ctx, instance, name, sizeof name);
    snprintf(ctx->report->first_unsupported, sizeof ctx->report->first_unsupported, "#%lld %.80s",
             ctx->file->instances[instance].id, name);
}

// the bound list's loop instances, or -1 for a bound that is not a FACE_BOUND
static int step_bound_loop(const step_ctx* ctx, int bound) {
    int args = step_args(ctx, bound, "FACE_OUTER_BOUND");
    if (args < 0) args = step_args(ctx, bound, "FACE_BOUND");
    const step_node* node = step_arg(ctx, args, 1);
    return node && node->kind == STEP_REF ? step_find(ctx->file, node->id) : -1;
}

// marks the EDGE_CURVEs of a dropped face: the faces on their other side lose these edges
static void step_mark_dropped(step_ctx* ctx, int first_bound) {
    const step_file* file = ctx->file;
    for (int node = first_bound; node >= 0; node = file->nodes[node].next) {
        if (file->nodes[node].kind != STEP_REF) continue;
        int loop = step_bound_loop(ctx, step_find(file, file->nodes[node].id));
        const step_node* edges = step_arg(ctx, step_args(ctx, loop, "EDGE_LOOP"), 1);
        for (int item = edges && edges->kind == STEP_LIST ? edges->child : -1; item >= 0; item = file->nodes[item].next) {
            if (file->nodes[item].kind != STEP_REF) continue;
            const step_node* element = step_arg(ctx, step_args(ctx, step_find(file, file->nodes[item].id), "ORIENTED_EDGE"), 3);
            int edge = element && element->kind == STEP_REF ? step_find(file, element->id) : -1;
            if (edge >= 0) ctx->dropped[edge] = 1;
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
        if ((status = step_ref_node(ctx, face, node, &bound)) != OSC_OK) return status;
        if (step_args(ctx, bound, "FACE_OUTER_BOUND") < 0 && step_args(ctx, bound, "FACE_BOUND") < 0)
            return step_bad(ctx, bound, "a FACE_BOUND was expected");
        loop = step_bound_loop(ctx, bound);
        if (loop < 0) return step_bad(ctx, bound, "its loop is not a defined reference");
        if (step_args(ctx, loop, "VERTEX_LOOP") >= 0) continue; // a pole or apex: nothing to trim
        int args = step_args(ctx, loop, "EDGE_LOOP");
        if (args < 0) return step_unsupported(ctx, loop, "a face bound that is not an EDGE_LOOP");
        if ((status = step_list_arg(ctx, loop, args, 1, &first, &count)) != OSC_OK) return status;
        if (count == 0) return step_bad(ctx, loop, "an empty loop");
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
            if ((status = step_ref_node(ctx, loop, item, &oriented)) != OSC_OK) return status;
            int oargs = step_args(ctx, oriented, "ORIENTED_EDGE");
            if (oargs < 0) return step_bad(ctx, oriented, "an ORIENTED_EDGE was expected");
            if ((status = step_ref(ctx, oriented, oargs, 3, &curve)) != OSC_OK ||
                (status = step_bool(ctx, oriented, oargs, 4, &forward)) != OSC_OK ||
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
        if ((status = step_join(ctx, s, face, state.last, state.first)) != OSC_OK) return status;
        if ((status = STEP_GROW(ctx, loops, loop_count, loop_capacity, ctx->loop_count + 1)) != OSC_OK) return status;
        ctx->loops[ctx->loop_count].trim_begin = begin;
        ctx->loops[ctx->loop_count].trim_count = ctx->trim_count - begin;
        ++ctx->loop_count;
    }
    return OSC_OK;
}

// the face's parameter box from its trims; periodic parameters are shifted so that the box starts
// in [-pi, pi) and must span at most one period
static osc_status step_face_box(step_ctx* ctx, int face, const osc_brep_surface* s, int trim_begin, osc_brep_face* f) {
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
        if (!(k == 0 ? step_u_periodic(s) : step_v_periodic(s))) continue;
        double span = box[2 * k + 1] - box[2 * k];
        if (span > STEP_TWO_PI + 1e-7)
            return step_unsupported(ctx, face, k ? "the loops span more than one period in v"
                                                  : "the loops span more than one period in u");
        double shift = STEP_TWO_PI * floor((box[2 * k] + STEP_PI) / STEP_TWO_PI);
        box[2 * k] -= shift;
        box[2 * k + 1] = fmin(box[2 * k + 1] - shift, box[2 * k] + STEP_TWO_PI);
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
        const step_node* edges = step_arg(ctx, step_args(ctx, loop, "EDGE_LOOP"), 1);
        int item = edges && edges->kind == STEP_LIST ? edges->child : -1;
        if (item < 0 || file->nodes[item].kind != STEP_REF) continue;
        const step_node* element = step_arg(ctx, step_args(ctx, step_find(file, file->nodes[item].id), "ORIENTED_EDGE"), 3);
        int edge = element && element->kind == STEP_REF ? step_find(file, element->id) : -1;
        const step_node* start = step_arg(ctx, step_args(ctx, edge, "EDGE_CURVE"), 1);
        int vertex = start && start->kind == STEP_REF ? step_find(file, start->id) : -1;
        if (vertex >= 0 && step_args(ctx, vertex, "VERTEX_POINT") >= 0 && step_vertex(ctx, vertex, x) == OSC_OK) return 1;
    }
    return 0;
}

static osc_status step_face(step_ctx* ctx, int instance) {
    int args = step_args(ctx, instance, "ADVANCED_FACE");
    if (args < 0) args = step_args(ctx, instance, "FACE_SURFACE");
    if (args < 0) return step_bad(ctx, instance, "a shell's face is not an ADVANCED_FACE");
    ++ctx->report->faces_read;
    int geometry = -1, same_sense = 0, first = -1, count = 0;
    osc_status status;
    if ((status = step_list_arg(ctx, instance, args, 1, &first, &count)) != OSC_OK ||
        (status = step_ref(ctx, instance, args, 2, &geometry)) != OSC_OK ||
        (status = step_bool(ctx, instance, args, 3, &same_sense)) != OSC_OK)
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
        if (step_face_point(ctx, first, &x)) negative = step_negative_branch(&surface, x);
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
        step_mark_dropped(ctx, first);
        return OSC_OK;
    }
    if (status != OSC_OK) return status;
    // ADVANCED_FACE.same_sense (ISO 10303-42 §5.4.25): the face normal is the surface normal; on a
    // closed shell the face normals point out of the solid
    surface.sense = (same_sense ? 1 : -1) * (negative && surface.type == OSC_SURFACE_TORUS ? -1 : 1);
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

// ---- the solid --------------------------------------------------------------------------------

// the edge and vertex lists from the edges the imported faces use
static osc_status step_finish(step_ctx* ctx, osc_brep_desc* desc) {
    osc_brep_edge* edges = osc_calloc((size_t)ctx->edge_count + 1, sizeof *edges);
    osc_vec3* vertices = osc_calloc(2 * (size_t)ctx->edge_count + 1, sizeof *vertices);
    int* vertex_of = osc_alloc(((size_t)ctx->file->instance_count + 1) * sizeof(int));
    osc_status status = OSC_OK;
    if (!edges || !vertices || !vertex_of) status = OSC_ERR_NO_MEMORY;
    for (int i = 0; status == OSC_OK && i < ctx->file->instance_count; ++i) vertex_of[i] = -1;
    int edge_count = 0, vertex_count = 0;
    for (int i = 0; status == OSC_OK && i < ctx->edge_count; ++i) {
        const step_edge* e = &ctx->edges[i];
        if (e->uses == 0) continue;
        if (!e->supported || (e->uses == 1 && ctx->dropped[e->instance])) {
            ++ctx->report->edges_unsupported;
            continue;
        }
        if (e->uses != 2) {
            status = step_bad(ctx, e->instance, "an edge of a closed shell must bound two faces");
            break;
        }
        osc_brep_edge* out = &edges[edge_count++];
        const step_curve* c = &e->curve;
        out->type = c->kind == CURVE_LINE ? OSC_CURVE_LINE : OSC_CURVE_CIRCLE;
        out->origin = c->o;
        out->axis = c->z;
        out->ref = c->kind == CURVE_LINE ? osc_v3(0, 0, 0) : c->x;
        out->radius = c->kind == CURVE_LINE ? 0.0 : c->a;
        int low = e->t[0] < e->t[1] ? 0 : 1;
        out->t0 = e->t[low];
        out->t1 = e->t[1 - low];
        if (c->kind == CURVE_CIRCLE) {
            double shift = STEP_TWO_PI * floor((out->t0 + STEP_PI) / STEP_TWO_PI);
            out->t0 -= shift;
            out->t1 -= shift;
        }
        out->face[0] = e->face[0];
        out->face[1] = e->face[1];
        for (int k = 0; k < 2; ++k) {
            int vertex = e->vertex[k == 0 ? low : 1 - low];
            if (e->closed) {
                out->vertex[k] = -1;
                continue;
            }
            if (vertex_of[vertex] < 0) {
                vertex_of[vertex] = vertex_count;
                vertices[vertex_count++] = e->point[k == 0 ? low : 1 - low];
            }
            out->vertex[k] = vertex_of[vertex];
        }
    }
    osc_free(vertex_of);
    if (status != OSC_OK) {
        osc_free(edges);
        osc_free(vertices);
        return status;
    }
    ctx->report->edges_imported = edge_count;
    desc->surfaces = ctx->surfaces;
    desc->surface_count = ctx->surface_count;
    desc->faces = ctx->faces;
    desc->face_count = ctx->face_count;
    desc->loops = ctx->loops;
    desc->loop_count = ctx->loop_count;
    desc->trims = ctx->trims;
    desc->trim_count = ctx->trim_count;
    desc->edges = edges;
    desc->edge_count = edge_count;
    desc->vertices = vertices;
    desc->vertex_count = vertex_count;
    ctx->surfaces = NULL;
    ctx->faces = NULL;
    ctx->loops = NULL;
    ctx->trims = NULL;
    return OSC_OK;
}

// the extent of the model (all VERTEX_POINTs) for the tolerances
static double step_scale(const step_ctx* ctx) {
    osc_vec3 lo = osc_v3(INFINITY, INFINITY, INFINITY), hi = osc_scale(lo, -1.0);
    for (int i = 0; i < ctx->file->instance_count; ++i) {
        osc_vec3 x;
        if (step_args(ctx, i, "VERTEX_POINT") < 0) continue;
        const step_node* node = step_arg(ctx, step_args(ctx, i, "VERTEX_POINT"), 1);
        int point = node && node->kind == STEP_REF ? step_find(ctx->file, node->id) : -1;
        if (point < 0 || step_args(ctx, point, "CARTESIAN_POINT") < 0 || step_point(ctx, point, &x) != OSC_OK) continue;
        lo = osc_v3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
        hi = osc_v3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
    }
    double extent = osc_length(osc_sub(hi, lo));
    return extent > 0.0 && isfinite(extent) ? extent : 1.0;
}

static osc_status step_solid(step_ctx* ctx, osc_brep_desc* desc) {
    const step_file* file = ctx->file;
    int solid = -1;
    for (int i = 0; i < file->instance_count; ++i) {
        if (step_args(ctx, i, "MANIFOLD_SOLID_BREP") < 0 && step_args(ctx, i, "BREP_WITH_VOIDS") < 0) continue;
        ++ctx->report->solids;
        if (solid < 0) solid = i;
    }
    if (solid < 0) return osc_fail(OSC_ERR_UNSUPPORTED, "osc_brep_read_step: no MANIFOLD_SOLID_BREP in the file");
    if (step_args(ctx, solid, "BREP_WITH_VOIDS") >= 0)
        return step_unsupported(ctx, solid, "solids with voids are not supported");
    step_units(ctx, solid);
    ctx->report->length_unit = ctx->length_unit;
    ctx->scale = step_scale(ctx);
    int shell, first = -1, count = 0;
    osc_status status = step_ref(ctx, solid, step_args(ctx, solid, "MANIFOLD_SOLID_BREP"), 1, &shell);
    if (status != OSC_OK) return status;
    int args = step_args(ctx, shell, "CLOSED_SHELL");
    if (args < 0) return step_bad(ctx, shell, "a CLOSED_SHELL was expected");
    if ((status = step_list_arg(ctx, shell, args, 1, &first, &count)) != OSC_OK) return status;
    // unsupported surfaces first, so that they are named before any unsupported edge
    static const char* surfaces[] = {"PLANE", "CYLINDRICAL_SURFACE", "CONICAL_SURFACE", "SPHERICAL_SURFACE",
                                     "TOROIDAL_SURFACE"};
    for (int node = first; node >= 0; node = file->nodes[node].next) {
        const step_node* geometry = NULL;
        if (file->nodes[node].kind == STEP_REF)
            geometry = step_arg(ctx, step_args(ctx, step_find(file, file->nodes[node].id), "ADVANCED_FACE"), 2);
        int surface = geometry && geometry->kind == STEP_REF ? step_find(file, geometry->id) : -1;
        int known = 0;
        for (size_t k = 0; k < sizeof surfaces / sizeof surfaces[0]; ++k) known |= step_args(ctx, surface, surfaces[k]) >= 0;
        if (surface < 0 || known) continue;
        if (!ctx->skip) return step_unsupported(ctx, surface, "the face's surface is not a plane, cylinder, cone, sphere or torus");
        step_note_unsupported(ctx, surface);
        break;
    }
    for (int node = first; node >= 0; node = file->nodes[node].next) {
        int face;
        if ((status = step_ref_node(ctx, shell, node, &face)) != OSC_OK) return status;
        if ((status = step_face(ctx, face)) != OSC_OK) return status;
    }
    if (ctx->face_count == 0)
        return ctx->report->faces_unsupported ? osc_fail(OSC_ERR_UNSUPPORTED, "osc_brep_read_step: every face "
                                                                              "of the solid is unsupported (first: %s)",
                                                         ctx->report->first_unsupported)
                                              : step_bad(ctx, shell, "a shell without faces");
    return step_finish(ctx, desc);
}

void step_desc_free(osc_brep_desc* desc) {
    if (!desc) return;
    osc_free((void*)desc->surfaces);
    osc_free((void*)desc->faces);
    osc_free((void*)desc->loops);
    osc_free((void*)desc->trims);
    osc_free((void*)desc->edges);
    osc_free((void*)desc->vertices);
    memset(desc, 0, sizeof *desc);
}

osc_status step_convert(const char* text, size_t size, int skip_unsupported, osc_brep_desc* desc,
                        osc_brep_import_report* report) {
    memset(desc, 0, sizeof *desc);
    memset(report, 0, sizeof *report);
    step_file file;
    osc_status status = step_parse(text, size, &file);
    step_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.file = &file;
    ctx.skip = skip_unsupported != 0;
    ctx.report = report;
    ctx.scale = 1.0;
    if (status == OSC_OK) {
        ctx.edge_of = osc_alloc(((size_t)file.instance_count + 1) * sizeof(int));
        ctx.dropped = osc_calloc((size_t)file.instance_count + 1, 1);
        if (!ctx.edge_of || !ctx.dropped) status = OSC_ERR_NO_MEMORY;
    }
    if (status == OSC_OK) {
        for (int i = 0; i < file.instance_count; ++i) ctx.edge_of[i] = -1;
        status = step_solid(&ctx, desc);
    }
    for (int i = 0; i < ctx.edge_count; ++i) {
        osc_free(ctx.edges[i].curve.poles);
        osc_free(ctx.edges[i].curve.knots);
    }
    osc_free(ctx.edges);
    osc_free(ctx.edge_of);
    osc_free(ctx.dropped);
    osc_free(ctx.passes);
    osc_free(ctx.samples);
    osc_free(ctx.surfaces);
    osc_free(ctx.faces);
    osc_free(ctx.loops);
    osc_free(ctx.trims);
    step_free(&file);
    if (status != OSC_OK) step_desc_free(desc);
    return status;
}

// ---- public -----------------------------------------------------------------------------------

osc_status osc_brep_read_step(const char* text, size_t size, int skip_unsupported,
                              const osc_brep_settings* settings, osc_brep** out,
                              osc_brep_import_report* report) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_read_step: out is NULL");
    *out = NULL;
    if (!text && size) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_read_step: text is NULL");
    osc_brep_import_report local;
    if (!report) report = &local;
    osc_brep_desc desc;
    osc_status status = step_convert(text ? text : "", size, skip_unsupported, &desc, report);
    if (status == OSC_OK) {
        status = osc_brep_create(&desc, settings, out);
        if (status != OSC_OK) status = osc_fail_in("osc_brep_read_step", status);
    }
    step_desc_free(&desc);
    return status;
}

osc_status osc_brep_load_step(const char* path, int skip_unsupported, const osc_brep_settings* settings,
                              osc_brep** out, osc_brep_import_report* report) {
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
