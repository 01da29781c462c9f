// brep_step_internal.h: the STEP importer's two halves. brep_step_parse.c reads the exchange
// structure of ISO 10303-21 (header and DATA sections, simple and complex entity instances, every
// parameter kind) into a flat table of parameter nodes; brep_step.c walks the first
// MANIFOLD_SOLID_BREP of that table into an osc_brep_desc (ISO 10303-42 topology and geometry).
// Never installed.

#ifndef OSC_BREP_STEP_INTERNAL_H
#define OSC_BREP_STEP_INTERNAL_H

#include "base_internal.h"
#include "osculate/brep.h"

#include <stddef.h>

/// Kinds of parameters (ISO 10303-21 §12.2).
typedef enum step_kind {
    STEP_INTEGER,
    STEP_REAL,
    STEP_STRING,  ///< raw text between the quotes, escapes not decoded
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
    int node_count, node_capacity;
    step_instance* instances;
    int instance_count, instance_capacity;
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

/// The conversion of brep_step.c without building the model: fills `desc` with arrays owned by
/// the caller (release with step_desc_free). Exposed for the tests.
osc_status step_convert(const char* text, size_t size, int skip_unsupported, osc_brep_desc* desc,
                        osc_brep_import_report* report);

void step_desc_free(osc_brep_desc* desc);

#endif // OSC_BREP_STEP_INTERNAL_H
