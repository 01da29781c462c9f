// brep_step_internal.h: the STEP importer's three parts. brep_step_parse.c reads the exchange
// structure of ISO 10303-21 (header and DATA sections, simple and complex entity instances, every
// parameter kind) into a flat table of parameter nodes, with typed access to the instances'
// parameters, points, directions and placements; brep_step_assembly.c finds the placed solids
// (representations, their units, the assembly structure of ISO 10303-43/44: relationships with
// transformations, mapped items, product definitions); brep_step.c walks each solid
// (MANIFOLD_SOLID_BREP, ISO 10303-42 topology and geometry) into an osc_brep_desc and places its
// instances into one model. Never installed.

#ifndef OSC_BREP_STEP_INTERNAL_H
#define OSC_BREP_STEP_INTERNAL_H

#include "base_internal.h"
#include "brep_internal.h"
#include "osculate/brep.h"

#include <stddef.h>

/// Kinds of parameters (ISO 10303-21 §12.2).
typedef enum step_kind {
    STEP_INTEGER,
    STEP_REAL,
    STEP_STRING, ///< raw text between the quotes, escapes not decoded
    STEP_BINARY,
    STEP_ENUM,    ///< the name between the dots
    STEP_REF,     ///< #id
    STEP_LIST,    ///< child: first element, count elements linked through `next`
    STEP_UNSET,   ///< $
    STEP_DERIVED, ///< *
    STEP_TYPED    ///< NAME(list): a typed parameter or one part of an instance; child: its LIST
} step_kind;

/// One parameter; nodes of a list are linked through `next` (-1 ends it).
typedef struct step_node {
    step_kind kind;
    int next, child, count;
    size_t text, length; ///< STRING, BINARY, ENUM, TYPED: the span of its text in the buffer
    double real;         ///< INTEGER and REAL
    long long id;        ///< REF
} step_node;

/// An entity instance: a chain of `part_count` TYPED nodes from `parts` (one for a simple instance,
/// several for a complex one, ISO 10303-21 §11.2.5).
typedef struct step_instance {
    long long id;
    int parts, part_count;
    int complex;
    int line;
} step_instance;

/// A parsed exchange structure (the instances of every DATA section).
typedef struct step_file {
    const char* text;
    size_t size;
    step_node* nodes;
    int node_count;
    size_t node_capacity;
    step_instance* instances;
    int instance_count;
    size_t instance_capacity;
    int* by_id; ///< instance indices sorted by id
} step_file;

/// Ids above this are a parse error.
#define STEP_MAX_ID 1000000000000000000LL
/// Parameter lists nest at most this deep.
#define STEP_MAX_DEPTH 48

/// Parses `text` [size]; OSC_ERR_PARSE naming the line, OSC_ERR_NO_MEMORY. Release with step_free
/// (also after a failure).
osc_status step_parse(const char* text, size_t size, step_file* file);

void step_free(step_file* file);

/// The instance with `id`, or -1.
int step_find(const step_file* file, long long id);

/// The TYPED node of `instance`'s part named `name` (case-insensitive), or -1.
int step_part(const step_file* file, int instance, const char* name);

/// 1 when the TYPED or ENUM `node` is named `name` (case-insensitive).
int step_named(const step_file* file, int node, const char* name);

/// The `index`-th element of the LIST `list` (or of a TYPED node's list), or -1.
int step_element(const step_file* file, int list, int index);

/// Element count of a LIST or of a TYPED node's list (-1 when neither).
int step_length(const step_file* file, int list);

// ---- typed access (brep_step_parse.c); failures are OSC_ERR_PARSE naming the instance --------

/// The entity's name for messages: its type, or the parts of a complex instance that are not
/// generic supertypes ("B_SPLINE_SURFACE_WITH_KNOTS+RATIONAL_B_SPLINE_SURFACE").
void step_entity_name(const step_file* file, int instance, char* buffer, size_t size);

/// OSC_ERR_PARSE "osc_brep_read_step: STEP line L: #id NAME: what".
osc_status step_bad(const step_file* file, int instance, const char* what);

/// The parameter list of `instance` if it is a simple instance of `type`, else -1.
int step_args(const step_file* file, int instance, const char* type);

/// Parameter `index` of the LIST or TYPED node `list`, or NULL.
const step_node* step_arg(const step_file* file, int list, int index);

/// The instance referenced by parameter `index` of `list` (of `instance`).
osc_status step_ref(const step_file* file, int instance, int list, int index, int* target);

/// A number (or a typed number such as LENGTH_MEASURE(2.)) at parameter `index` of `list`.
osc_status step_real(const step_file* file, int instance, int list, int index, double* value);

/// .T. or .F. at parameter `index` of `list`.
osc_status step_bool(const step_file* file, int instance, int list, int index, int* value);

/// The first element node and count of the list at parameter `index` of `list`.
osc_status step_list_arg(const step_file* file, int instance, int list, int index, int* first, int* count);

/// The instance a list element refers to.
osc_status step_ref_node(const step_file* file, int instance, int node, int* target);

/// The decoded text ('' as ') of the STRING node at parameter `index` of `list` into `buffer`
/// (truncated), "" when it is not a string.
void step_string(const step_file* file, int list, int index, char* buffer, size_t size);

/// CARTESIAN_POINT with 3 coordinates.
osc_status step_point(const step_file* file, int instance, osc_vec3* point);

/// DIRECTION, normalised.
osc_status step_direction(const step_file* file, int instance, osc_vec3* direction);

/// AXIS2_PLACEMENT_3D: origin o and right-handed unit axes x, y, z (ISO 10303-42 §4.4.8: axis
/// defaults to +z, ref_direction to +x projected, or +y when +x is the axis).
osc_status step_placement(const step_file* file, int instance, osc_vec3* o, osc_vec3* x, osc_vec3* y, osc_vec3* z);

// ---- placed solids (brep_step_assembly.c) ---------------------------------------------------------

/// A similarity x -> scale rotation x + translation: a rigid placement with a unit conversion.
typedef struct step_transform {
    osc_mat3 rotation;
    osc_vec3 translation;
    double scale;
} step_transform;

/// One placed solid: a MANIFOLD_SOLID_BREP (or BREP_WITH_VOIDS) instance reached from a top
/// representation through `depth` placements, or a solid in no representation (placed as it is).
typedef struct step_placed {
    int solid;                ///< the solid's instance
    int representation;       ///< the representation listing it, or -1
    step_transform transform; ///< from the solid's coordinates (its representation's unit) to the model's
    int depth;
    int product;  ///< the PRODUCT whose shape holds it, or -1
    int mirrored; ///< 0, or why it cannot be placed: 1 a placement above it reflects
                  ///< (a left-handed CARTESIAN_TRANSFORMATION_OPERATOR_3D), 2 a placement
                  ///< above it is of a kind not read
    int via;      ///< the instance of that placement (the relationship or MAPPED_ITEM), or -1
} step_placed;

/// Most placed solids a file may hold (OSC_ERR_CAPACITY beyond).
#define STEP_MAX_INSTANCES 100000

/// The placed solids of `file` in the order of its assembly structure (top representations in
/// file order, their components depth first), into `*placed` [*count] (osc_free it); `*length_unit`
/// receives the model's unit (metres per unit; the first top representation's, 0 when unknown).
/// OSC_ERR_PARSE for a malformed or cyclic structure, OSC_ERR_CAPACITY, OSC_ERR_NO_MEMORY.
osc_status step_find_solids(const step_file* file, step_placed** placed, int* count, double* length_unit);

/// The length (metres per unit, 0 when unknown) and plane angle (radians per unit, 0 when unknown)
/// units of the context of `representation` (-1: of the file's first context with units).
void step_representation_units(const step_file* file, int representation, double* length, double* angle);

/// The angle unit of the file's first PLANE_ANGLE_UNIT (radians per unit), 0 when none.
double step_first_angle_unit(const step_file* file);

// ---- the conversion (brep_step.c) -----------------------------------------------------------------

/// The conversion of brep_step.c without building the model: fills `desc` with arrays owned by
/// the caller (release with step_desc_free) and, when `shells` is non-NULL, `*shells` [*shell_count]
/// with one shell per placed solid (osc_free it), and when `skipped` is non-NULL, `*skipped`
/// [*skipped_count] with the faces left out (skip_unsupported), placed (osc_free it). Exposed for
/// the tests.
osc_status step_convert(const char* text, size_t size, int skip_unsupported, osc_brep_desc* desc,
                        osc_brep_import_report* report, osc_brep_shell** shells, int* shell_count,
                        osc_brep_skipped** skipped, int* skipped_count);

void step_desc_free(osc_brep_desc* desc);

#endif // OSC_BREP_STEP_INTERNAL_H
