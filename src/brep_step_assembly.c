// brep_step_assembly.c: where the solids of a STEP file stand. A solid is an item of a shape
// representation (ISO 10303-43); representations are placed in others by
// REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION (an ITEM_DEFINED_TRANSFORMATION between two
// placements, or a CARTESIAN_TRANSFORMATION_OPERATOR_3D), as AP203/AP214 assemblies write them under
// a CONTEXT_DEPENDENT_SHAPE_REPRESENTATION of a NEXT_ASSEMBLY_USAGE_OCCURRENCE, or by MAPPED_ITEMs of
// a REPRESENTATION_MAP. Representations related without a transformation (SHAPE_REPRESENTATION_
// RELATIONSHIP) or describing the same PRODUCT_DEFINITION share one coordinate space: a group. The
// groups and their placements form a directed graph that must be acyclic; every path from a top
// group (one that is placed nowhere) to a group holding a solid is one placed solid, its transform
// the composition of the placements along the path with the conversions between the
// representations' length units (each representation's context has its own).
//
// A placement item_1 -> item_2 (or origin -> target) moves the first placement onto the second:
// x -> F2(k F1^-1(x)), with F the frames' maps to their representations' coordinates and k the
// ratio of the two length units (ISO 10303-43 §4.4.4; OpenCASCADE composes F1^-1 F2 instead, which
// agrees when one of the two is the identity, as in every file its writer makes). The relationship's
// rep_1 is the component, unless the NEXT_ASSEMBLY_USAGE_OCCURRENCE of its context-dependent shape
// representation says rep_2 is (then the inverse is taken).

#include "array_internal.h"
#include "brep_step_internal.h"

#include <limits.h>
#include <string.h>

// ---- units (ISO 10303-41 §4.2: SI_UNIT, CONVERSION_BASED_UNIT) --------------------------------

static double step_si_prefix(const step_file* file, int node) {
    static const struct {
        const char* name;
        double factor;
    } prefixes[] = {{"EXA", 1e18},  {"PETA", 1e15},  {"TERA", 1e12},   {"GIGA", 1e9},
                    {"MEGA", 1e6},  {"KILO", 1e3},   {"HECTO", 1e2},   {"DECA", 1e1},
                    {"DECI", 1e-1}, {"CENTI", 1e-2}, {"MILLI", 1e-3},  {"MICRO", 1e-6},
                    {"NANO", 1e-9}, {"PICO", 1e-12}, {"FEMTO", 1e-15}, {"ATTO", 1e-18}};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; ++k)
        if (step_named(file, node, prefixes[k].name)) return prefixes[k].factor;
    return 1.0;
}

// 1 when the STRING node `node` reads `name` (case-insensitive)
static int step_string_is(const step_file* file, const step_node* node, const char* name) {
    size_t n = strlen(name);
    if (!node || node->kind != STEP_STRING || node->length != n) return 0;
    for (size_t i = 0; i < n; ++i) {
        char c = file->text[node->text + i];
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (c != name[i]) return 0;
    }
    return 1;
}

// the size of a unit instance in radians or metres, 0 when unknown; `depth` bounds the chain of
// conversion-based units
static double step_unit_factor(const step_file* file, int unit, int depth) {
    if (unit < 0 || depth > 4) return 0.0;
    int si = step_part(file, unit, "SI_UNIT");
    if (si >= 0) { // complex form SI_UNIT(prefix, name); simple form SI_UNIT(*, prefix, name)
        int n = step_length(file, si);
        if (n < 2) return 0.0;
        int prefix = step_element(file, si, n - 2), name = step_element(file, si, n - 1);
        if (step_named(file, name, "RADIAN") || step_named(file, name, "METRE")) return step_si_prefix(file, prefix);
        return 0.0;
    }
    int conversion = step_part(file, unit, "CONVERSION_BASED_UNIT");
    if (conversion < 0) return 0.0;
    double named = 0.0;
    static const struct {
        const char* name;
        double factor;
    } known[] = {{"DEGREE", 3.14159265358979323846 / 180.0},
                 {"DEGREES", 3.14159265358979323846 / 180.0},
                 {"INCH", 0.0254},
                 {"FOOT", 0.3048}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
        if (step_string_is(file, step_arg(file, conversion, 0), known[k].name)) named = known[k].factor;
    // the conversion factor: a MEASURE_WITH_UNIT (value_component, unit_component)
    const step_node* factor = step_arg(file, conversion, 1);
    if (factor && factor->kind == STEP_REF) {
        int measure = step_find(file, factor->id), args = -1;
        static const char* measures[] = {"PLANE_ANGLE_MEASURE_WITH_UNIT", "MEASURE_WITH_UNIT",
                                         "LENGTH_MEASURE_WITH_UNIT"};
        for (size_t k = 0; k < sizeof measures / sizeof measures[0] && args < 0; ++k)
            args = step_part(file, measure, measures[k]);
        const step_node* value = args >= 0 ? step_arg(file, args, 0) : NULL;
        if (value && value->kind == STEP_TYPED) value = step_arg(file, (int)(value - file->nodes), 0);
        const step_node* base = args >= 0 ? step_arg(file, args, 1) : NULL;
        if (value && (value->kind == STEP_REAL || value->kind == STEP_INTEGER) && base && base->kind == STEP_REF) {
            double result = value->real * step_unit_factor(file, step_find(file, base->id), depth + 1);
            if (result > 0.0 && isfinite(result)) return result;
        }
    }
    return named;
}

// the list node of a shape representation's parameters (name, items, context), or -1: a simple
// instance whose type ends in SHAPE_REPRESENTATION, or a complex one with a SHAPE_REPRESENTATION
// part and a REPRESENTATION part holding the parameters
static int step_shape_representation(const step_file* file, int instance) {
    const step_instance* in = &file->instances[instance];
    int args = -1, shape = 0, part = in->parts;
    for (int k = 0; k < in->part_count && part >= 0; ++k, part = file->nodes[part].next) {
        const step_node* node = &file->nodes[part];
        static const char suffix[] = "SHAPE_REPRESENTATION";
        size_t n = sizeof suffix - 1;
        if (node->length >= n) {
            int same = 1;
            for (size_t i = 0; i < n && same; ++i) {
                char c = file->text[node->text + node->length - n + i];
                same = (c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c) == suffix[i];
            }
            shape |= same && (node->length == n || file->text[node->text + node->length - n - 1] == '_');
        }
        const step_node* items = step_arg(file, part, 1);
        const step_node* context = step_arg(file, part, 2);
        if (step_length(file, part) == 3 && items && items->kind == STEP_LIST && context && context->kind == STEP_REF)
            args = part;
    }
    return shape ? args : -1;
}

// the first instance with a GLOBAL_UNIT_ASSIGNED_CONTEXT part, or -1
static int step_first_context(const step_file* file) {
    for (int i = 0; i < file->instance_count; ++i)
        if (step_part(file, i, "GLOBAL_UNIT_ASSIGNED_CONTEXT") >= 0) return i;
    return -1;
}

void step_representation_units(const step_file* file, int representation, double* length, double* angle) {
    *length = *angle = 0.0;
    int args = representation >= 0 ? step_shape_representation(file, representation) : -1;
    const step_node* reference = step_arg(file, args, 2);
    int context = representation < 0                         ? step_first_context(file)
                  : reference && reference->kind == STEP_REF ? step_find(file, reference->id)
                                                             : -1;
    const step_node* units = step_arg(file, step_part(file, context, "GLOBAL_UNIT_ASSIGNED_CONTEXT"), 0);
    for (int node = units && units->kind == STEP_LIST ? units->child : -1; node >= 0; node = file->nodes[node].next) {
        if (file->nodes[node].kind != STEP_REF) continue;
        int unit = step_find(file, file->nodes[node].id);
        double factor = step_unit_factor(file, unit, 0);
        if (factor <= 0.0) continue;
        if (step_part(file, unit, "PLANE_ANGLE_UNIT") >= 0) *angle = factor;
        if (step_part(file, unit, "LENGTH_UNIT") >= 0) *length = factor;
    }
}

double step_first_angle_unit(const step_file* file) {
    for (int i = 0; i < file->instance_count; ++i) {
        if (step_part(file, i, "PLANE_ANGLE_UNIT") < 0) continue;
        double factor = step_unit_factor(file, i, 0);
        if (factor > 0.0) return factor;
    }
    return 0.0;
}

// ---- transforms --------------------------------------------------------------------------------

static step_transform step_identity(void) {
    step_transform t = {osc_mat3_identity(), osc_v3(0, 0, 0), 1.0};
    return t;
}

static step_transform step_scaling(double scale) {
    step_transform t = step_identity();
    t.scale = scale;
    return t;
}

// a then b: x -> a(b(x))
static step_transform step_compose(step_transform a, step_transform b) {
    step_transform t;
    t.rotation = osc_mat3_mul(a.rotation, b.rotation);
    t.scale = a.scale * b.scale;
    t.translation = osc_add(osc_scale(osc_mat3_apply(a.rotation, b.translation), a.scale), a.translation);
    return t;
}

static step_transform step_inverse(step_transform a) {
    step_transform t;
    t.rotation = osc_mat3_transpose(a.rotation); // orthogonal
    t.scale = 1.0 / a.scale;
    t.translation = osc_scale(osc_mat3_apply(t.rotation, a.translation), -t.scale);
    return t;
}

// the map from an AXIS2_PLACEMENT_3D's own coordinates to its representation's
static osc_status step_frame(const step_file* file, int placement, step_transform* frame) {
    osc_vec3 o, x, y, z;
    osc_status status = step_placement(file, placement, &o, &x, &y, &z);
    if (status != OSC_OK) return status;
    frame->rotation = osc_mat3_from_columns(x, y, z);
    frame->translation = o;
    frame->scale = 1.0;
    return OSC_OK;
}

// ISO 10303-42 §4.5 (base_axis, first_proj_axis, second_proj_axis): the axes of a
// CARTESIAN_TRANSFORMATION_OPERATOR_3D (name, name, description, axis1, axis2, local_origin, scale,
// axis3); a left-handed result is a reflection
static osc_status step_operator(const step_file* file, int instance, step_transform* out) {
    int args = step_args(file, instance, "CARTESIAN_TRANSFORMATION_OPERATOR_3D"), target;
    if (args < 0 || step_length(file, args) != 8) return step_bad(file, instance, "8 parameters expected");
    osc_vec3 axis[3] = {osc_v3(1, 0, 0), osc_v3(0, 1, 0), osc_v3(0, 0, 1)};
    const int index[3] = {3, 4, 7};
    int given[3] = {0, 0, 0};
    osc_status status;
    for (int k = 0; k < 3; ++k) {
        const step_node* node = step_arg(file, args, index[k]);
        if (!node || node->kind == STEP_UNSET) continue;
        if ((status = step_ref(file, instance, args, index[k], &target)) != OSC_OK ||
            (status = step_direction(file, target, &axis[k])) != OSC_OK)
            return status;
        given[k] = 1;
    }
    osc_vec3 z = axis[2];
    osc_vec3 v = given[0] ? axis[0] : (fabs(z.x) > 1.0 - 1e-12 ? osc_v3(0, 1, 0) : osc_v3(1, 0, 0));
    osc_vec3 x = osc_sub(v, osc_scale(z, osc_dot(v, z)));
    if (!(osc_length(x) > 1e-9)) return step_bad(file, instance, "axis1 is parallel to axis3");
    x = osc_normalize(x);
    v = given[1] ? axis[1] : osc_cross(z, x);
    osc_vec3 y = osc_sub(osc_sub(v, osc_scale(z, osc_dot(v, z))), osc_scale(x, osc_dot(v, x)));
    if (!(osc_length(y) > 1e-9)) return step_bad(file, instance, "axis2 lies in the plane of axis1 and axis3");
    y = osc_normalize(y);
    double scale = 1.0;
    const step_node* scale_node = step_arg(file, args, 6);
    if (scale_node && scale_node->kind != STEP_UNSET && (status = step_real(file, instance, args, 6, &scale)) != OSC_OK)
        return status;
    if (!(scale > 0.0) || !isfinite(scale)) return step_bad(file, instance, "the scale must be positive");
    osc_vec3 origin;
    if ((status = step_ref(file, instance, args, 5, &target)) != OSC_OK ||
        (status = step_point(file, target, &origin)) != OSC_OK)
        return status;
    out->rotation = osc_mat3_from_columns(x, y, z);
    out->translation = origin;
    out->scale = scale;
    return OSC_OK;
}

// ---- the graph of representations -------------------------------------------------------------

typedef enum step_link_kind { LINK_RELATIONSHIP, LINK_MAPPED } step_link_kind;

// one placement of a representation (`child`) in another (`parent`), both representation indices
typedef struct step_link {
    step_link_kind kind;
    int source; // the relationship or the MAPPED_ITEM
    int child, parent;
    int reversed;             // relationship: rep_2 is the component
    int done;                 // transform computed
    int problem;              // the transform cannot be applied: 1 a reflection, 2 an unsupported kind
    step_transform transform; // child coordinates -> parent coordinates
} step_link;

typedef struct step_rep {
    int instance, args;
    double length; // metres per unit, 0 when unknown
    int parent;    // union-find
    int group;     // compact group index
} step_rep;

typedef struct step_graph {
    const step_file* file;
    step_rep* reps;
    int rep_count;
    int* rep_of; // [instance_count]: representation index or -1
    step_link* links;
    int link_count;
    int* link_of; // [instance_count]: link index of a relationship or -1
    int group_count;
    int* group_product;   // [group]: PRODUCT instance or -1
    int* out_begin;       // [group + 1]: CSR of the links leaving a group (parent -> child)
    int* out_links;       // [link_count]
    int* solid_begin;     // [group + 1]: CSR of the solids of a group
    int* solid_items;     // [2 * solid entries]: solid instance, representation index
    int* rep_begin;       // [group + 1]: CSR of the representations of a group, in file order
    int* rep_members;     // [rep_count]
    long long* instances; // [group]: placed solids below a group, saturated
    int* pd_rep;          // [instance_count]: the first representation of a PRODUCT_DEFINITION, or -1
    int model_rep;        // the representation whose coordinates the model keeps, or -1
} step_graph;

static int step_group_root(step_graph* g, int rep) {
    while (g->reps[rep].parent != rep) {
        g->reps[rep].parent = g->reps[g->reps[rep].parent].parent;
        rep = g->reps[rep].parent;
    }
    return rep;
}

static void step_unite(step_graph* g, int a, int b) {
    a = step_group_root(g, a);
    b = step_group_root(g, b);
    if (a != b) g->reps[a > b ? a : b].parent = a < b ? a : b; // the earlier representation leads
}

static int step_rep_at(const step_graph* g, const step_node* node) {
    if (!node || node->kind != STEP_REF) return -1;
    int instance = step_find(g->file, node->id);
    return instance >= 0 ? g->rep_of[instance] : -1;
}

// length unit ratio: coordinates of representation a times this are b's
static double step_unit_ratio(const step_graph* g, int a, int b) {
    double ua = g->reps[a].length, ub = g->reps[b].length;
    return ua > 0.0 && ub > 0.0 ? ua / ub : 1.0;
}

// the target of parameter `index` of a PRODUCT_DEFINITION_SHAPE-like list: its instance or -1
static int step_ref_at(const step_file* file, int list, int index) {
    const step_node* node = step_arg(file, list, index);
    return node && node->kind == STEP_REF ? step_find(file, node->id) : -1;
}

// parameters of the first part of an instance (simple instances and subtypes that keep the
// supertype's leading parameters)
static int step_first_part(const step_file* file, int instance) {
    return instance >= 0 ? file->instances[instance].parts : -1;
}

static osc_status step_add_link(step_graph* g, size_t* capacity, step_link_kind kind, int source, int child,
                                int parent) {
    if (g->link_count >= INT_MAX / 2) return osc_fail(OSC_ERR_CAPACITY, "osc_brep_read_step: too many placements");
    osc_status status = OSC_ARRAY_RESERVE(g->links, *capacity, (size_t)g->link_count + 1);
    if (status != OSC_OK) return status;
    step_link* link = &g->links[g->link_count];
    memset(link, 0, sizeof *link);
    link->kind = kind;
    link->source = source;
    link->child = child;
    link->parent = parent;
    g->link_of[source] = g->link_count++;
    return OSC_OK;
}

static int step_is_product_definition(const step_file* file, int instance) {
    return step_part(file, instance, "PRODUCT_DEFINITION") >= 0 ||
           step_part(file, instance, "PRODUCT_DEFINITION_WITH_ASSOCIATED_DOCUMENTS") >= 0;
}

// the representations, their units, and the groups of representations related without a
// transformation or describing one product definition
static osc_status step_find_representations(step_graph* g) {
    const step_file* file = g->file;
    for (int i = 0; i < file->instance_count; ++i) {
        int args = step_shape_representation(file, i);
        if (args < 0) continue;
        step_rep* rep = &g->reps[g->rep_count];
        rep->instance = i;
        rep->args = args;
        double angle;
        step_representation_units(file, i, &rep->length, &angle);
        rep->parent = g->rep_count;
        g->rep_of[i] = g->rep_count++;
    }
    for (int i = 0; i < file->instance_count; ++i) {
        int relationship = step_part(file, i, "REPRESENTATION_RELATIONSHIP");
        if (relationship < 0) relationship = step_args(file, i, "SHAPE_REPRESENTATION_RELATIONSHIP");
        if (relationship < 0 || step_part(file, i, "REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION") >= 0) continue;
        int a = step_rep_at(g, step_arg(file, relationship, 2)), b = step_rep_at(g, step_arg(file, relationship, 3));
        if (a >= 0 && b >= 0) step_unite(g, a, b);
    }
    for (int i = 0; i < file->instance_count; ++i) { // SHAPE_DEFINITION_REPRESENTATION(definition, rep)
        int args = step_args(file, i, "SHAPE_DEFINITION_REPRESENTATION");
        int rep = step_rep_at(g, step_arg(file, args, 1));
        int definition = step_ref_at(file, step_first_part(file, step_ref_at(file, args, 0)), 2);
        if (rep < 0 || !step_is_product_definition(file, definition)) continue;
        if (g->pd_rep[definition] < 0)
            g->pd_rep[definition] = rep;
        else
            step_unite(g, g->pd_rep[definition], rep);
    }
    return OSC_OK;
}

// the placements: relationships with a transformation and mapped items
static osc_status step_find_links(step_graph* g) {
    const step_file* file = g->file;
    size_t capacity = 0;
    osc_status status = OSC_OK;
    for (int i = 0; i < file->instance_count && status == OSC_OK; ++i) {
        int relationship = step_part(file, i, "REPRESENTATION_RELATIONSHIP");
        if (relationship >= 0 && step_part(file, i, "REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION") >= 0) {
            int a = step_rep_at(g, step_arg(file, relationship, 2)),
                b = step_rep_at(g, step_arg(file, relationship, 3));
            if (a < 0 || b < 0) continue; // not between shape representations
            status = step_add_link(g, &capacity, LINK_RELATIONSHIP, i, a, b);
            continue;
        }
        int mapped = step_args(file, i, "MAPPED_ITEM");
        if (mapped < 0) continue;
        int map = step_args(file, step_ref_at(file, mapped, 1), "REPRESENTATION_MAP");
        int child = step_rep_at(g, step_arg(file, map, 1));
        if (child >= 0) status = step_add_link(g, &capacity, LINK_MAPPED, i, child, -1); // parent: its holder
    }
    if (status != OSC_OK) return status;
    // a mapped item's parent: the shape representation listing it
    for (int r = 0; r < g->rep_count; ++r) {
        const step_node* items = step_arg(file, g->reps[r].args, 1);
        for (int node = items->child; node >= 0; node = file->nodes[node].next) {
            int item = file->nodes[node].kind == STEP_REF ? step_find(file, file->nodes[node].id) : -1;
            int link = item >= 0 ? g->link_of[item] : -1;
            if (link >= 0 && g->links[link].kind == LINK_MAPPED && g->links[link].parent < 0) g->links[link].parent = r;
        }
    }
    // CONTEXT_DEPENDENT_SHAPE_REPRESENTATION(relationship, PRODUCT_DEFINITION_SHAPE of a usage):
    // the usage's related product definition (parameter 5) is the component
    for (int i = 0; i < file->instance_count; ++i) {
        int args = step_args(file, i, "CONTEXT_DEPENDENT_SHAPE_REPRESENTATION");
        int relationship = step_ref_at(file, args, 0);
        int link = relationship >= 0 ? g->link_of[relationship] : -1;
        int usage = step_ref_at(file, step_first_part(file, step_ref_at(file, args, 1)), 2);
        int component = step_ref_at(file, step_first_part(file, usage), 4);
        int rep = component >= 0 ? g->pd_rep[component] : -1;
        if (link < 0 || rep < 0) continue;
        step_link* l = &g->links[link];
        int group = step_group_root(g, rep);
        if (step_group_root(g, l->child) != group && step_group_root(g, l->parent) == group) {
            int swap = l->child;
            l->child = l->parent;
            l->parent = swap;
            l->reversed = 1;
        }
    }
    return OSC_OK;
}

// 1 when the list of shape representation `rep` holds `item`
static int step_lists(const step_graph* g, int rep, int item) {
    const step_file* file = g->file;
    const step_node* items = step_arg(file, g->reps[rep].args, 1);
    long long id = file->instances[item].id;
    for (int node = items->child; node >= 0; node = file->nodes[node].next)
        if (file->nodes[node].kind == STEP_REF && file->nodes[node].id == id) return 1;
    return 0;
}

// child coordinates -> parent coordinates of a relationship: ITEM_DEFINED_TRANSFORMATION(name,
// description, item_1 in rep_1, item_2 in rep_2) or a CARTESIAN_TRANSFORMATION_OPERATOR_3D
static osc_status step_relationship_transform(step_graph* g, step_link* link) {
    const step_file* file = g->file;
    int rep_1 = link->reversed ? link->parent : link->child, rep_2 = link->reversed ? link->child : link->parent;
    int with = step_part(file, link->source, "REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION"), operator_;
    osc_status status = step_ref(file, link->source, with, 0, &operator_);
    if (status != OSC_OK) return status;
    step_transform forward; // rep_1 -> rep_2
    int item = step_args(file, operator_, "ITEM_DEFINED_TRANSFORMATION"), first, second;
    if (item >= 0) {
        if ((status = step_ref(file, operator_, item, 2, &first)) != OSC_OK ||
            (status = step_ref(file, operator_, item, 3, &second)) != OSC_OK)
            return status;
        if (step_args(file, first, "AXIS2_PLACEMENT_3D") < 0 || step_args(file, second, "AXIS2_PLACEMENT_3D") < 0) {
            link->problem = 2;
            return OSC_OK;
        }
        if (!(step_lists(g, rep_1, first) && step_lists(g, rep_2, second)) && step_lists(g, rep_2, first) &&
            step_lists(g, rep_1, second)) { // written the other way round
            int swap = first;
            first = second;
            second = swap;
        }
        step_transform f1, f2;
        if ((status = step_frame(file, first, &f1)) != OSC_OK || (status = step_frame(file, second, &f2)) != OSC_OK)
            return status;
        forward = step_compose(f2, step_compose(step_scaling(step_unit_ratio(g, rep_1, rep_2)), step_inverse(f1)));
    } else if (step_args(file, operator_, "CARTESIAN_TRANSFORMATION_OPERATOR_3D") >= 0) {
        step_transform op;
        if ((status = step_operator(file, operator_, &op)) != OSC_OK) return status;
        forward = step_compose(op, step_scaling(step_unit_ratio(g, rep_1, rep_2)));
    } else {
        link->problem = 2;
        return OSC_OK;
    }
    link->transform = link->reversed ? step_inverse(forward) : forward;
    return OSC_OK;
}

// MAPPED_ITEM(name, REPRESENTATION_MAP(origin, representation), target): the origin in the mapped
// representation moves onto the target (a placement, or an operator applied after the origin)
static osc_status step_mapped_transform(step_graph* g, step_link* link) {
    const step_file* file = g->file;
    int args = step_args(file, link->source, "MAPPED_ITEM"), map, origin, target;
    osc_status status;
    if ((status = step_ref(file, link->source, args, 1, &map)) != OSC_OK ||
        (status = step_ref(file, map, step_args(file, map, "REPRESENTATION_MAP"), 0, &origin)) != OSC_OK ||
        (status = step_ref(file, link->source, args, 2, &target)) != OSC_OK)
        return status;
    if (step_args(file, origin, "AXIS2_PLACEMENT_3D") < 0) {
        link->problem = 2;
        return OSC_OK;
    }
    step_transform from, to;
    if ((status = step_frame(file, origin, &from)) != OSC_OK) return status;
    if (step_args(file, target, "AXIS2_PLACEMENT_3D") >= 0)
        status = step_frame(file, target, &to);
    else if (step_args(file, target, "CARTESIAN_TRANSFORMATION_OPERATOR_3D") >= 0)
        status = step_operator(file, target, &to);
    else {
        link->problem = 2;
        return OSC_OK;
    }
    if (status != OSC_OK) return status;
    link->transform =
        step_compose(to, step_compose(step_scaling(step_unit_ratio(g, link->child, link->parent)), step_inverse(from)));
    return OSC_OK;
}

static osc_status step_link_transform(step_graph* g, step_link* link) {
    if (link->done) return OSC_OK;
    osc_status status =
        link->kind == LINK_RELATIONSHIP ? step_relationship_transform(g, link) : step_mapped_transform(g, link);
    if (status != OSC_OK) return status;
    if (!link->problem && osc_mat3_determinant(link->transform.rotation) < 0.0) link->problem = 1;
    link->done = 1;
    return OSC_OK;
}

// ---- groups, their solids and links ------------------------------------------------------------

static int step_is_solid(const step_file* file, int instance) {
    return step_part(file, instance, "MANIFOLD_SOLID_BREP") >= 0 || step_part(file, instance, "BREP_WITH_VOIDS") >= 0;
}

// CSR lists of size count: `begin` [groups + 1] from the counts in begin[k + 1], filled through
// begin[k]++, then shifted back
static void step_csr_counts_to_starts(int* begin, int groups) {
    for (int k = 0; k < groups; ++k) begin[k + 1] += begin[k];
}

static void step_csr_restore(int* begin, int groups) {
    for (int k = groups; k > 0; --k) begin[k] = begin[k - 1];
    begin[0] = 0;
}

// compact group indices in the order of their first representation, the representations of each,
// their products
static osc_status step_index_groups(step_graph* g) {
    const step_file* file = g->file;
    for (int r = 0; r < g->rep_count; ++r) g->reps[r].group = -1;
    for (int r = 0; r < g->rep_count; ++r) {
        int root = step_group_root(g, r);
        if (g->reps[root].group < 0) g->reps[root].group = g->group_count++;
        g->reps[r].group = g->reps[root].group;
    }
    size_t groups = (size_t)g->group_count + 1;
    g->group_product = osc_calloc(groups, sizeof(int));
    g->rep_begin = osc_calloc(groups + 1, sizeof(int));
    g->rep_members = osc_calloc((size_t)g->rep_count + 1, sizeof(int));
    g->solid_begin = osc_calloc(groups + 1, sizeof(int));
    g->out_begin = osc_calloc(groups + 1, sizeof(int));
    g->out_links = osc_calloc((size_t)g->link_count + 1, sizeof(int));
    g->instances = osc_calloc(groups, sizeof(long long));
    if (!g->group_product || !g->rep_begin || !g->rep_members || !g->solid_begin || !g->out_begin || !g->out_links ||
        !g->instances)
        return OSC_ERR_NO_MEMORY;
    for (int r = 0; r < g->rep_count; ++r) ++g->rep_begin[g->reps[r].group + 1];
    step_csr_counts_to_starts(g->rep_begin, g->group_count);
    for (int r = 0; r < g->rep_count; ++r) g->rep_members[g->rep_begin[g->reps[r].group]++] = r;
    step_csr_restore(g->rep_begin, g->group_count);
    for (int k = 0; k < g->group_count; ++k) g->group_product[k] = -1;
    for (int i = 0; i < file->instance_count; ++i) { // PRODUCT_DEFINITION -> FORMATION -> PRODUCT
        if (g->pd_rep[i] < 0) continue;
        int group = g->reps[g->pd_rep[i]].group;
        int product = step_ref_at(file, step_first_part(file, step_ref_at(file, step_first_part(file, i), 2)), 2);
        if (g->group_product[group] < 0 && step_part(file, product, "PRODUCT") >= 0) g->group_product[group] = product;
    }
    // links leaving each group (its components), in file order
    for (int l = 0; l < g->link_count; ++l)
        if (g->links[l].parent >= 0) ++g->out_begin[g->reps[g->links[l].parent].group + 1];
    step_csr_counts_to_starts(g->out_begin, g->group_count);
    for (int l = 0; l < g->link_count; ++l)
        if (g->links[l].parent >= 0) g->out_links[g->out_begin[g->reps[g->links[l].parent].group]++] = l;
    step_csr_restore(g->out_begin, g->group_count);
    return OSC_OK;
}

// the solids each group's representations list (once per group, in file order); `listed` marks
// every listed solid
static osc_status step_list_solids(step_graph* g, unsigned char* listed) {
    const step_file* file = g->file;
    int* stamp = osc_calloc(((size_t)file->instance_count + 1), sizeof(int));
    if (!stamp) return OSC_ERR_NO_MEMORY;
    for (int pass = 0; pass < 2; ++pass) { // count, then fill
        for (int i = 0; i < file->instance_count; ++i) stamp[i] = -1;
        for (int k = 0; k < g->group_count; ++k)
            for (int m = g->rep_begin[k]; m < g->rep_begin[k + 1]; ++m) {
                int r = g->rep_members[m];
                const step_node* items = step_arg(file, g->reps[r].args, 1);
                for (int node = items->child; node >= 0; node = file->nodes[node].next) {
                    int item = file->nodes[node].kind == STEP_REF ? step_find(file, file->nodes[node].id) : -1;
                    if (item < 0 || stamp[item] == k || !step_is_solid(file, item)) continue;
                    stamp[item] = k;
                    listed[item] = 1;
                    if (pass == 0) {
                        ++g->solid_begin[k + 1];
                        continue;
                    }
                    int at = g->solid_begin[k]++;
                    g->solid_items[2 * at] = item;
                    g->solid_items[2 * at + 1] = r;
                }
            }
        if (pass == 0) {
            step_csr_counts_to_starts(g->solid_begin, g->group_count);
            g->solid_items = osc_calloc(2 * (size_t)g->solid_begin[g->group_count] + 2, sizeof(int));
            if (!g->solid_items) {
                osc_free(stamp);
                return OSC_ERR_NO_MEMORY;
            }
        }
    }
    step_csr_restore(g->solid_begin, g->group_count);
    osc_free(stamp);
    return OSC_OK;
}

// Kahn's order of the groups (components after their assemblies); counts the placed solids below
// each group, saturated above STEP_MAX_INSTANCES; a cycle is a parse error naming one of its links
static osc_status step_count_instances(step_graph* g, int* indegree) {
    int* order = osc_calloc(((size_t)g->group_count + 1), sizeof(int));
    if (!order) return OSC_ERR_NO_MEMORY;
    int head = 0, tail = 0;
    for (int k = 0; k < g->group_count; ++k)
        if (indegree[k] == 0) order[tail++] = k;
    while (head < tail) {
        int k = order[head++];
        for (int e = g->out_begin[k]; e < g->out_begin[k + 1]; ++e)
            if (--indegree[g->reps[g->links[g->out_links[e]].child].group] == 0)
                order[tail++] = g->reps[g->links[g->out_links[e]].child].group;
    }
    if (tail < g->group_count) { // every group left has a placement from another group left:
        // following those back from any of them must return, and the link that closes it is on
        // the cycle
        int* back = osc_calloc(((size_t)g->group_count + 1), sizeof(int));
        int* seen = osc_calloc((size_t)g->group_count + 1, sizeof(int));
        int link = -1;
        if (back && seen) {
            for (int l = 0; l < g->link_count; ++l) {
                const step_link* candidate = &g->links[l];
                if (candidate->parent >= 0 && indegree[g->reps[candidate->child].group] > 0 &&
                    indegree[g->reps[candidate->parent].group] > 0)
                    back[g->reps[candidate->child].group] = l;
            }
            int k = -1;
            for (int j = 0; j < g->group_count && k < 0; ++j)
                if (indegree[j] > 0) k = j;
            while (!seen[k]) {
                seen[k] = 1;
                link = back[k];
                k = g->reps[g->links[link].parent].group;
            }
        }
        osc_free(back);
        osc_free(seen);
        osc_free(order);
        if (link < 0) return OSC_ERR_NO_MEMORY;
        return step_bad(g->file, g->links[link].source, "the assembly structure has a cycle through this placement");
    }
    for (int at = tail - 1; at >= 0; --at) {
        int k = order[at];
        long long total = g->solid_begin[k + 1] - g->solid_begin[k];
        for (int e = g->out_begin[k]; e < g->out_begin[k + 1]; ++e)
            total += g->instances[g->reps[g->links[g->out_links[e]].child].group];
        g->instances[k] = total > STEP_MAX_INSTANCES ? STEP_MAX_INSTANCES + 1 : total;
    }
    osc_free(order);
    return OSC_OK;
}

// ---- the placed solids -------------------------------------------------------------------------

typedef struct step_frame_state {
    int group, entry;         // the group and the representation it was entered through
    step_transform transform; // entry representation -> model
    int depth, next;          // next: the next link to follow, from out_begin[group]
    int problem, via;         // a reflection or unsupported placement above, and its instance
} step_frame_state;

typedef struct step_output {
    step_placed* placed;
    int count;
} step_output;

static void step_emit_group(const step_graph* g, const step_frame_state* f, step_output* out) {
    for (int s = g->solid_begin[f->group]; s < g->solid_begin[f->group + 1]; ++s) {
        step_placed* p = &out->placed[out->count++];
        p->solid = g->solid_items[2 * s];
        p->representation = g->reps[g->solid_items[2 * s + 1]].instance;
        p->transform =
            step_compose(f->transform, step_scaling(step_unit_ratio(g, g->solid_items[2 * s + 1], f->entry)));
        p->depth = f->depth;
        p->product = g->group_product[f->group];
        p->mirrored = f->problem;
        p->via = f->via;
    }
}

// depth first from the top group `root`: its solids, then each component's
static osc_status step_walk(step_graph* g, int root, step_frame_state* stack, step_output* out) {
    int top = 0;
    stack[0].group = root;
    stack[0].entry = g->rep_members[g->rep_begin[root]];
    if (g->model_rep < 0) g->model_rep = stack[0].entry;
    stack[0].transform = step_scaling(step_unit_ratio(g, stack[0].entry, g->model_rep));
    stack[0].depth = 0;
    stack[0].next = g->out_begin[root];
    stack[0].problem = 0;
    stack[0].via = -1;
    step_emit_group(g, &stack[0], out);
    while (top >= 0) {
        step_frame_state* f = &stack[top];
        if (f->next == g->out_begin[f->group + 1]) {
            --top;
            continue;
        }
        step_link* link = &g->links[g->out_links[f->next++]];
        int child = g->reps[link->child].group;
        if (g->instances[child] == 0) continue;
        osc_status status = step_link_transform(g, link);
        if (status != OSC_OK) return status;
        step_frame_state* c = &stack[++top]; // top <= group count: the graph is acyclic
        c->group = child;
        c->entry = link->child;
        c->transform = step_compose(
            f->transform, step_compose(step_scaling(step_unit_ratio(g, link->parent, f->entry)), link->transform));
        c->depth = f->depth + 1;
        c->next = g->out_begin[child];
        c->problem = f->problem ? f->problem : link->problem;
        c->via = f->problem ? f->via : (link->problem ? link->source : -1);
        step_emit_group(g, c, out);
    }
    return OSC_OK;
}

static void step_graph_free(step_graph* g) {
    osc_free(g->reps);
    osc_free(g->rep_of);
    osc_free(g->links);
    osc_free(g->link_of);
    osc_free(g->group_product);
    osc_free(g->out_begin);
    osc_free(g->out_links);
    osc_free(g->solid_begin);
    osc_free(g->solid_items);
    osc_free(g->instances);
    osc_free(g->pd_rep);
    osc_free(g->rep_begin);
    osc_free(g->rep_members);
}

// the placed solids once the graph is built: top groups in file order, then the solids no
// representation lists, each where it is
static osc_status step_place(step_graph* g, const unsigned char* listed, step_output* out) {
    const step_file* file = g->file;
    int* indegree = osc_calloc((size_t)g->group_count + 1, sizeof(int));
    if (!indegree) return OSC_ERR_NO_MEMORY;
    for (int l = 0; l < g->link_count; ++l)
        if (g->links[l].parent >= 0) ++indegree[g->reps[g->links[l].child].group];
    int* top = osc_calloc(((size_t)g->group_count + 1), sizeof(int));
    if (!top) {
        osc_free(indegree);
        return OSC_ERR_NO_MEMORY;
    }
    for (int k = 0; k < g->group_count; ++k) top[k] = indegree[k] == 0;
    osc_status status = step_count_instances(g, indegree);
    osc_free(indegree);
    long long total = 0;
    for (int i = 0; i < file->instance_count; ++i) total += step_is_solid(file, i) && !listed[i];
    for (int k = 0; k < g->group_count; ++k) total += top[k] ? g->instances[k] : 0;
    if (status == OSC_OK && total > STEP_MAX_INSTANCES)
        status =
            osc_fail(OSC_ERR_CAPACITY, "osc_brep_read_step: the file places more than %d solids", STEP_MAX_INSTANCES);
    step_frame_state* stack = NULL;
    if (status == OSC_OK) {
        out->placed = osc_calloc((size_t)total + 1, sizeof *out->placed);
        stack = osc_calloc((size_t)g->group_count + 1, sizeof *stack);
        if (!out->placed || !stack) status = OSC_ERR_NO_MEMORY;
    }
    for (int k = 0; k < g->group_count && status == OSC_OK; ++k)
        if (top[k] && g->instances[k] > 0) status = step_walk(g, k, stack, out);
    for (int i = 0; i < file->instance_count && status == OSC_OK; ++i) {
        if (!step_is_solid(file, i) || listed[i]) continue;
        step_placed* p = &out->placed[out->count++];
        p->solid = i;
        p->representation = -1;
        p->transform = step_identity();
        p->product = p->via = -1;
    }
    osc_free(stack);
    osc_free(top);
    return status;
}

osc_status step_find_solids(const step_file* file, step_placed** placed, int* count, double* length_unit) {
    *placed = NULL;
    *count = 0;
    *length_unit = 0.0;
    step_graph g;
    memset(&g, 0, sizeof g);
    g.file = file;
    size_t instances = (size_t)file->instance_count + 1;
    g.reps = osc_calloc(instances, sizeof *g.reps);
    g.rep_of = osc_calloc(instances, sizeof(int));
    g.link_of = osc_calloc(instances, sizeof(int));
    g.pd_rep = osc_calloc(instances, sizeof(int));
    unsigned char* listed = osc_calloc(instances, 1);
    osc_status status = g.reps && g.rep_of && g.link_of && g.pd_rep && listed ? OSC_OK : OSC_ERR_NO_MEMORY;
    for (int i = 0; status == OSC_OK && i < file->instance_count; ++i) g.rep_of[i] = g.link_of[i] = g.pd_rep[i] = -1;
    if (status == OSC_OK) status = step_find_representations(&g);
    if (status == OSC_OK) status = step_find_links(&g);
    if (status == OSC_OK) status = step_index_groups(&g);
    if (status == OSC_OK) status = step_list_solids(&g, listed);
    step_output out = {NULL, 0};
    g.model_rep = -1;
    if (status == OSC_OK) status = step_place(&g, listed, &out);
    if (status == OSC_OK && g.model_rep >= 0) *length_unit = g.reps[g.model_rep].length;
    if (status == OSC_OK && g.model_rep < 0) { // only solids no representation lists: the file's first context
        double angle;
        step_representation_units(file, -1, length_unit, &angle);
    }
    step_graph_free(&g);
    osc_free(listed);
    if (status != OSC_OK) {
        osc_free(out.placed);
        return status;
    }
    *placed = out.placed;
    *count = out.count;
    return OSC_OK;
}
