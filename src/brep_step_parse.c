// brep_step_parse.c: a reader of the ISO 10303-21 exchange structure ("STEP physical file"):
// the header section is checked and skipped, the entity instances of every DATA section are
// parsed into a flat node table (brep_step_internal.h). The cursor never reads past the buffer,
// nesting is bounded (STEP_MAX_DEPTH), and every failure names its line. Then typed access to the
// instances' parameters, points, directions and placements, whose failures name the instance.

#include "array_internal.h"
#include "brep_step_internal.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct step_cursor {
    const char* data;
    size_t size, position;
    int line;
    step_file* file;
} step_cursor;

static osc_status step_error(const step_cursor* cursor, const char* what) {
    return osc_fail(OSC_ERR_PARSE, "osc_brep_read_step: STEP line %d: %s", cursor->line, what);
}

static int step_peek(const step_cursor* cursor) {
    return cursor->position < cursor->size ? (unsigned char)cursor->data[cursor->position] : -1;
}

static void step_advance(step_cursor* cursor) {
    if (cursor->position < cursor->size) {
        if (cursor->data[cursor->position] == '\n') cursor->line += cursor->line < INT_MAX;
        ++cursor->position;
    }
}

// white space and comments (§5.6: /* ... */ between tokens)
static osc_status step_skip(step_cursor* cursor) {
    for (;;) {
        int c = step_peek(cursor);
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
            step_advance(cursor);
        } else if (c == '/' && cursor->position + 1 < cursor->size && cursor->data[cursor->position + 1] == '*') {
            int start = cursor->line;
            step_advance(cursor);
            step_advance(cursor);
            for (;;) {
                if (cursor->position + 1 >= cursor->size) {
                    cursor->line = start;
                    return step_error(cursor, "unterminated comment");
                }
                if (cursor->data[cursor->position] == '*' && cursor->data[cursor->position + 1] == '/') {
                    step_advance(cursor);
                    step_advance(cursor);
                    break;
                }
                step_advance(cursor);
            }
        } else {
            return OSC_OK;
        }
    }
}

static int step_is_alpha(int c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }

static int step_is_digit(int c) { return c >= '0' && c <= '9'; }

// a keyword (§5.4: standard keywords and user-defined ones starting with '!'); hyphens are let in
// for ISO-10303-21 and END-ISO-10303-21
static int step_keyword(step_cursor* cursor, size_t* start, size_t* length) {
    int c = step_peek(cursor);
    if (!step_is_alpha(c) && c != '!') return 0;
    *start = cursor->position;
    step_advance(cursor);
    for (c = step_peek(cursor); step_is_alpha(c) || step_is_digit(c) || c == '-'; c = step_peek(cursor))
        step_advance(cursor);
    *length = cursor->position - *start;
    return 1;
}

static int step_span_equals(const char* text, size_t length, const char* name) {
    size_t n = strlen(name);
    if (n != length) return 0;
    for (size_t i = 0; i < n; ++i) {
        char a = text[i], b = name[i];
        if (a >= 'a' && a <= 'z') a = (char)(a - 'a' + 'A');
        if (a != b) return 0;
    }
    return 1;
}

static osc_status step_expect(step_cursor* cursor, char c, const char* what) {
    osc_status status = step_skip(cursor);
    if (status != OSC_OK) return status;
    if (step_peek(cursor) != (unsigned char)c) return step_error(cursor, what);
    step_advance(cursor);
    return OSC_OK;
}

static osc_status step_new_node(step_cursor* cursor, step_kind kind, int* index) {
    step_file* file = cursor->file;
    if (file->node_count >= INT_MAX / 2) return step_error(cursor, "too many parameters");
    osc_status status = OSC_ARRAY_RESERVE(file->nodes, file->node_capacity, (size_t)file->node_count + 1);
    if (status != OSC_OK) return status;
    *index = file->node_count++;
    step_node* node = &file->nodes[*index];
    memset(node, 0, sizeof *node);
    node->kind = kind;
    node->next = node->child = -1;
    return OSC_OK;
}

// "#123": the id after '#'
static osc_status step_id(step_cursor* cursor, long long* id) {
    step_advance(cursor); // '#'
    if (!step_is_digit(step_peek(cursor))) return step_error(cursor, "'#' not followed by digits");
    long long value = 0;
    while (step_is_digit(step_peek(cursor))) {
        int digit = step_peek(cursor) - '0';
        if (value > (STEP_MAX_ID - digit) / 10) return step_error(cursor, "entity id too large");
        value = 10 * value + digit;
        step_advance(cursor);
    }
    *id = value;
    return OSC_OK;
}

static osc_status step_list(step_cursor* cursor, int depth, int* index);

// one parameter (§12.2) into a new node
static osc_status step_parameter(step_cursor* cursor, int depth, int* index) {
    osc_status status = step_skip(cursor);
    if (status != OSC_OK) return status;
    int c = step_peek(cursor);
    size_t start = cursor->position;
    if (c == '$' || c == '*') {
        step_advance(cursor);
        return step_new_node(cursor, c == '$' ? STEP_UNSET : STEP_DERIVED, index);
    }
    if (c == '#') {
        long long id;
        if ((status = step_id(cursor, &id)) != OSC_OK) return status;
        if ((status = step_new_node(cursor, STEP_REF, index)) != OSC_OK) return status;
        cursor->file->nodes[*index].id = id;
        return OSC_OK;
    }
    if (c == '\'') { // a string; '' is a quote, line breaks are allowed and ignored (§6.3.3)
        int line = cursor->line;
        step_advance(cursor);
        for (;;) {
            int d = step_peek(cursor);
            if (d < 0) {
                cursor->line = line;
                return step_error(cursor, "unterminated string");
            }
            step_advance(cursor);
            if (d == '\'') {
                if (step_peek(cursor) == '\'') {
                    step_advance(cursor);
                    continue;
                }
                break;
            }
        }
        if ((status = step_new_node(cursor, STEP_STRING, index)) != OSC_OK) return status;
        cursor->file->nodes[*index].text = start + 1;
        cursor->file->nodes[*index].length = cursor->position - start - 2;
        return OSC_OK;
    }
    if (c == '"') { // binary: hexadecimal digits (§6.3.6)
        step_advance(cursor);
        while (step_peek(cursor) >= 0 && step_peek(cursor) != '"') {
            int d = step_peek(cursor);
            if (!step_is_digit(d) && !(d >= 'A' && d <= 'F')) return step_error(cursor, "bad binary digit");
            step_advance(cursor);
        }
        if (step_peek(cursor) != '"') return step_error(cursor, "unterminated binary");
        step_advance(cursor);
        if ((status = step_new_node(cursor, STEP_BINARY, index)) != OSC_OK) return status;
        cursor->file->nodes[*index].text = start + 1;
        cursor->file->nodes[*index].length = cursor->position - start - 2;
        return OSC_OK;
    }
    if (c == '.') { // an enumeration (§6.3.7): .NAME.
        step_advance(cursor);
        while (step_is_alpha(step_peek(cursor)) || step_is_digit(step_peek(cursor))) step_advance(cursor);
        if (step_peek(cursor) != '.' || cursor->position == start + 1) return step_error(cursor, "bad enumeration");
        step_advance(cursor);
        if ((status = step_new_node(cursor, STEP_ENUM, index)) != OSC_OK) return status;
        cursor->file->nodes[*index].text = start + 1;
        cursor->file->nodes[*index].length = cursor->position - start - 2;
        return OSC_OK;
    }
    if (step_is_digit(c) || c == '+' || c == '-') { // integer or real (§6.3.1, §6.3.2)
        char digits[72];
        size_t length = 0;
        int real = 0;
        for (int d = step_peek(cursor); step_is_digit(d) || d == '+' || d == '-' || d == '.' || d == 'E' || d == 'e';
             d = step_peek(cursor)) {
            if (length + 1 >= sizeof digits) return step_error(cursor, "number too long");
            real |= d == '.' || d == 'E' || d == 'e';
            digits[length++] = (char)d;
            step_advance(cursor);
        }
        digits[length] = '\0';
        char* end = NULL;
        double value = strtod(digits, &end);
        if (end != digits + length || !isfinite(value)) return step_error(cursor, "bad number");
        if ((status = step_new_node(cursor, real ? STEP_REAL : STEP_INTEGER, index)) != OSC_OK) return status;
        cursor->file->nodes[*index].real = value;
        return OSC_OK;
    }
    if (c == '(') return step_list(cursor, depth + 1, index);
    size_t name, name_length;
    if (step_keyword(cursor, &name, &name_length)) { // a typed parameter: NAME(...)
        int list = -1;
        if ((status = step_skip(cursor)) != OSC_OK) return status;
        if (step_peek(cursor) != '(') return step_error(cursor, "'(' expected after a type name");
        if ((status = step_list(cursor, depth + 1, &list)) != OSC_OK) return status;
        if ((status = step_new_node(cursor, STEP_TYPED, index)) != OSC_OK) return status;
        step_node* node = &cursor->file->nodes[*index];
        node->text = name;
        node->length = name_length;
        node->child = list;
        return OSC_OK;
    }
    return step_error(cursor, c < 0 ? "unexpected end of file in a parameter list" : "unexpected character");
}

// "( p, p, ... )" into a LIST node
static osc_status step_list(step_cursor* cursor, int depth, int* index) {
    if (depth > STEP_MAX_DEPTH) return step_error(cursor, "parameter lists nested too deeply");
    osc_status status = step_expect(cursor, '(', "'(' expected");
    if (status != OSC_OK) return status;
    int list = -1;
    if ((status = step_new_node(cursor, STEP_LIST, &list)) != OSC_OK) return status;
    if ((status = step_skip(cursor)) != OSC_OK) return status;
    int last = -1;
    if (step_peek(cursor) != ')') {
        for (;;) {
            int element = -1;
            if ((status = step_parameter(cursor, depth, &element)) != OSC_OK) return status;
            step_node* nodes = cursor->file->nodes;
            if (last < 0)
                nodes[list].child = element;
            else
                nodes[last].next = element;
            last = element;
            if (nodes[list].count == INT_MAX) return step_error(cursor, "list too long");
            ++nodes[list].count;
            if ((status = step_skip(cursor)) != OSC_OK) return status;
            int c = step_peek(cursor);
            if (c == ',') {
                step_advance(cursor);
                continue;
            }
            if (c == ')') break;
            return step_error(cursor, c < 0 ? "unexpected end of file in a parameter list" : "',' or ')' expected");
        }
    }
    step_advance(cursor); // ')'
    *index = list;
    return OSC_OK;
}

// KEYWORD(params) into a TYPED node
static osc_status step_record(step_cursor* cursor, int* index) {
    osc_status status = step_skip(cursor);
    if (status != OSC_OK) return status;
    size_t name, length;
    if (!step_keyword(cursor, &name, &length)) return step_error(cursor, "entity name expected");
    int list = -1;
    if ((status = step_list(cursor, 1, &list)) != OSC_OK) return status;
    if ((status = step_new_node(cursor, STEP_TYPED, index)) != OSC_OK) return status;
    step_node* node = &cursor->file->nodes[*index];
    node->text = name;
    node->length = length;
    node->child = list;
    return OSC_OK;
}

// "#id = NAME(...);" or "#id = ( A(...) B(...) );" (§11.2.4, §11.2.5)
static osc_status step_instance_parse(step_cursor* cursor) {
    step_file* file = cursor->file;
    int line = cursor->line;
    long long id;
    osc_status status = step_id(cursor, &id);
    if (status != OSC_OK) return status;
    if ((status = step_expect(cursor, '=', "'=' expected after the entity id")) != OSC_OK) return status;
    if ((status = step_skip(cursor)) != OSC_OK) return status;
    int first = -1, count = 0, complex = 0;
    if (step_peek(cursor) == '(') {
        complex = 1;
        step_advance(cursor);
        int last = -1;
        for (;;) {
            if ((status = step_skip(cursor)) != OSC_OK) return status;
            if (step_peek(cursor) == ')') break;
            int part = -1;
            if ((status = step_record(cursor, &part)) != OSC_OK) return status;
            if (last < 0)
                first = part;
            else
                file->nodes[last].next = part;
            last = part;
            if (++count > 4096) return step_error(cursor, "complex entity with too many parts");
        }
        step_advance(cursor);
        if (count == 0) return step_error(cursor, "empty complex entity");
    } else {
        if ((status = step_record(cursor, &first)) != OSC_OK) return status;
        count = 1;
    }
    if ((status = step_expect(cursor, ';', "';' expected after an entity instance")) != OSC_OK) return status;
    if (file->instance_count >= INT_MAX / 2) return step_error(cursor, "too many instances");
    if ((status = OSC_ARRAY_RESERVE(file->instances, file->instance_capacity, (size_t)file->instance_count + 1)) !=
        OSC_OK)
        return status;
    step_instance* instance = &file->instances[file->instance_count++];
    instance->id = id;
    instance->parts = first;
    instance->part_count = count;
    instance->complex = complex;
    instance->line = line;
    return OSC_OK;
}

// expects KEYWORD ';' with the keyword `name`
static osc_status step_statement(step_cursor* cursor, const char* name, const char* what) {
    osc_status status = step_skip(cursor);
    if (status != OSC_OK) return status;
    size_t start, length;
    if (!step_keyword(cursor, &start, &length) || !step_span_equals(cursor->data + start, length, name))
        return step_error(cursor, what);
    return step_expect(cursor, ';', what);
}

static int step_compare_ids(const void* a, const void* b) {
    const long long* x = a;
    const long long* y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static osc_status step_index(step_cursor* cursor) {
    step_file* file = cursor->file;
    int n = file->instance_count;
    long long* pairs = osc_calloc((size_t)n + 1, 2 * sizeof(long long));
    file->by_id = osc_calloc((size_t)n + 1, sizeof(int));
    if (!pairs || !file->by_id) {
        osc_free(pairs);
        return OSC_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i) {
        pairs[2 * i] = file->instances[i].id;
        pairs[2 * i + 1] = i;
    }
    qsort(pairs, (size_t)n, 2 * sizeof(long long), step_compare_ids);
    osc_status status = OSC_OK;
    for (int i = 0; i < n; ++i) {
        file->by_id[i] = (int)pairs[2 * i + 1];
        if (i > 0 && pairs[2 * i] == pairs[2 * i - 2] && status == OSC_OK) {
            int later = (int)(pairs[2 * i + 1] > pairs[2 * i - 1] ? pairs[2 * i + 1] : pairs[2 * i - 1]);
            cursor->line = file->instances[later].line;
            status = osc_fail(OSC_ERR_PARSE, "osc_brep_read_step: STEP line %d: #%lld defined twice", cursor->line,
                              pairs[2 * i]);
        }
    }
    osc_free(pairs);
    return status;
}

osc_status step_parse(const char* text, size_t size, step_file* file) {
    memset(file, 0, sizeof *file);
    file->text = text;
    file->size = size;
    step_cursor cursor = {text, size, 0, 1, file};
    osc_status status = step_statement(&cursor, "ISO-10303-21", "not a STEP file: 'ISO-10303-21;' expected");
    if (status != OSC_OK) return status;
    if ((status = step_statement(&cursor, "HEADER", "'HEADER;' expected")) != OSC_OK) return status;
    int mark = file->node_count;
    for (;;) { // header entities (§8), read and dropped
        if ((status = step_skip(&cursor)) != OSC_OK) return status;
        size_t save = cursor.position;
        int save_line = cursor.line;
        size_t start, length;
        if (!step_keyword(&cursor, &start, &length)) return step_error(&cursor, "'ENDSEC;' expected in the header");
        if (step_span_equals(text + start, length, "ENDSEC")) {
            if ((status = step_expect(&cursor, ';', "';' expected after ENDSEC")) != OSC_OK) return status;
            break;
        }
        cursor.position = save;
        cursor.line = save_line;
        int record = -1;
        if ((status = step_record(&cursor, &record)) != OSC_OK) return status;
        if ((status = step_expect(&cursor, ';', "';' expected after a header entity")) != OSC_OK) return status;
        file->node_count = mark;
    }
    int sections = 0;
    for (;;) { // DATA sections (§9), optionally with parameters (edition 3), then the end
        if ((status = step_skip(&cursor)) != OSC_OK) return status;
        size_t start, length;
        if (!step_keyword(&cursor, &start, &length))
            return step_error(&cursor, step_peek(&cursor) < 0 ? "unexpected end of file (no END-ISO-10303-21;)"
                                                              : "'DATA;' expected");
        if (step_span_equals(text + start, length, "END-ISO-10303-21")) {
            if ((status = step_expect(&cursor, ';', "';' expected after END-ISO-10303-21")) != OSC_OK) return status;
            break;
        }
        if (!step_span_equals(text + start, length, "DATA")) return step_error(&cursor, "'DATA;' expected");
        if ((status = step_skip(&cursor)) != OSC_OK) return status;
        if (step_peek(&cursor) == '(') {
            int list = -1;
            if ((status = step_list(&cursor, 1, &list)) != OSC_OK) return status;
            file->node_count = list;
        }
        if ((status = step_expect(&cursor, ';', "';' expected after DATA")) != OSC_OK) return status;
        ++sections;
        for (;;) {
            if ((status = step_skip(&cursor)) != OSC_OK) return status;
            int c = step_peek(&cursor);
            if (c == '#') {
                if ((status = step_instance_parse(&cursor)) != OSC_OK) return status;
                continue;
            }
            if (c < 0) return step_error(&cursor, "unexpected end of file in the DATA section (no ENDSEC;)");
            if ((status = step_statement(&cursor, "ENDSEC", "entity instance or 'ENDSEC;' expected")) != OSC_OK)
                return status;
            break;
        }
    }
    if (sections == 0) return step_error(&cursor, "no DATA section");
    return step_index(&cursor);
}

void step_free(step_file* file) {
    if (!file) return;
    osc_free(file->nodes);
    osc_free(file->instances);
    osc_free(file->by_id);
    memset(file, 0, sizeof *file);
}

int step_find(const step_file* file, long long id) {
    int lo = 0, hi = file->instance_count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        long long found = file->instances[file->by_id[mid]].id;
        if (found == id) return file->by_id[mid];
        if (found < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int step_named(const step_file* file, int node, const char* name) {
    if (node < 0 || node >= file->node_count) return 0;
    const step_node* n = &file->nodes[node];
    if (n->kind != STEP_TYPED && n->kind != STEP_ENUM) return 0;
    return step_span_equals(file->text + n->text, n->length, name);
}

int step_part(const step_file* file, int instance, const char* name) {
    if (instance < 0 || instance >= file->instance_count) return -1;
    int part = file->instances[instance].parts;
    for (int k = 0; k < file->instances[instance].part_count && part >= 0; ++k) {
        if (step_named(file, part, name)) return part;
        part = file->nodes[part].next;
    }
    return -1;
}

int step_length(const step_file* file, int list) {
    if (list < 0 || list >= file->node_count) return -1;
    if (file->nodes[list].kind == STEP_TYPED) list = file->nodes[list].child;
    if (list < 0 || file->nodes[list].kind != STEP_LIST) return -1;
    return file->nodes[list].count;
}

int step_element(const step_file* file, int list, int index) {
    int count = step_length(file, list);
    if (index < 0 || index >= count) return -1;
    if (file->nodes[list].kind == STEP_TYPED) list = file->nodes[list].child;
    int node = file->nodes[list].child;
    for (int k = 0; k < index && node >= 0; ++k) node = file->nodes[node].next;
    return node;
}

// ---- typed access -----------------------------------------------------------------------------

void step_entity_name(const step_file* file, int instance, char* buffer, size_t size) {
    const step_instance* in = &file->instances[instance];
    size_t used = 0;
    buffer[0] = '\0';
    int part = in->parts;
    static const char* generic[] = {"BOUNDED_CURVE",
                                    "BOUNDED_SURFACE",
                                    "B_SPLINE_CURVE",
                                    "B_SPLINE_SURFACE",
                                    "CURVE",
                                    "SURFACE",
                                    "GEOMETRIC_REPRESENTATION_ITEM",
                                    "REPRESENTATION_ITEM"};
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

osc_status step_bad(const step_file* file, int instance, const char* what) {
    char name[96];
    step_entity_name(file, instance, name, sizeof name);
    return osc_fail(OSC_ERR_PARSE, "osc_brep_read_step: STEP line %d: #%lld %s: %s", file->instances[instance].line,
                    file->instances[instance].id, name, what);
}

int step_args(const step_file* file, int instance, const char* type) {
    if (instance < 0 || file->instances[instance].complex) return -1;
    return step_part(file, instance, type);
}

const step_node* step_arg(const step_file* file, int list, int index) {
    int node = step_element(file, list, index);
    return node < 0 ? NULL : &file->nodes[node];
}

osc_status step_ref(const step_file* file, int instance, int list, int index, int* target) {
    const step_node* node = step_arg(file, list, index);
    char what[96];
    if (!node || node->kind != STEP_REF) {
        snprintf(what, sizeof what, "parameter %d is not a reference", index + 1);
        return step_bad(file, instance, what);
    }
    *target = step_find(file, node->id);
    if (*target < 0) {
        snprintf(what, sizeof what, "parameter %d refers to #%lld, which is not defined", index + 1, node->id);
        return step_bad(file, instance, what);
    }
    return OSC_OK;
}

osc_status step_real(const step_file* file, int instance, int list, int index, double* value) {
    const step_node* node = step_arg(file, list, index);
    if (node && node->kind == STEP_TYPED) node = step_arg(file, (int)(node - file->nodes), 0);
    if (!node || (node->kind != STEP_REAL && node->kind != STEP_INTEGER)) {
        char what[64];
        snprintf(what, sizeof what, "parameter %d is not a number", index + 1);
        return step_bad(file, instance, what);
    }
    *value = node->real;
    return OSC_OK;
}

osc_status step_bool(const step_file* file, int instance, int list, int index, int* value) {
    int node = step_element(file, list, index);
    if (step_named(file, node, "T"))
        *value = 1;
    else if (step_named(file, node, "F"))
        *value = 0;
    else {
        char what[64];
        snprintf(what, sizeof what, "parameter %d is not .T. or .F.", index + 1);
        return step_bad(file, instance, what);
    }
    return OSC_OK;
}

osc_status step_list_arg(const step_file* file, int instance, int list, int index, int* first, int* count) {
    int node = step_element(file, list, index);
    if (node < 0 || file->nodes[node].kind != STEP_LIST) {
        char what[64];
        snprintf(what, sizeof what, "parameter %d is not a list", index + 1);
        return step_bad(file, instance, what);
    }
    *first = file->nodes[node].child;
    *count = file->nodes[node].count;
    return OSC_OK;
}

osc_status step_ref_node(const step_file* file, int instance, int node, int* target) {
    if (node < 0 || file->nodes[node].kind != STEP_REF)
        return step_bad(file, instance, "a list element is not a reference");
    *target = step_find(file, file->nodes[node].id);
    if (*target < 0) {
        char what[96];
        snprintf(what, sizeof what, "refers to #%lld, which is not defined", file->nodes[node].id);
        return step_bad(file, instance, what);
    }
    return OSC_OK;
}

void step_string(const step_file* file, int list, int index, char* buffer, size_t size) {
    const step_node* node = step_arg(file, list, index);
    size_t used = 0;
    if (node && node->kind == STEP_STRING)
        for (size_t i = 0; i < node->length && used + 1 < size; ++i) {
            char c = file->text[node->text + i];
            if (c == '\'' && i + 1 < node->length) ++i; // '' is one quote
            if (c == '\n' || c == '\r') continue;       // line breaks inside strings are ignored
            buffer[used++] = c;
        }
    buffer[used] = '\0';
}

// the three numbers of the list at parameter 1 of `args` (CARTESIAN_POINT, DIRECTION)
static osc_status step_triple(const step_file* file, int instance, int args, double c[3]) {
    int first = -1, count = 0;
    osc_status status = step_list_arg(file, instance, args, 1, &first, &count);
    if (status != OSC_OK) return status;
    if (count != 3) return step_bad(file, instance, "3 coordinates expected");
    for (int k = 0; k < 3; ++k, first = file->nodes[first].next) {
        const step_node* node = &file->nodes[first];
        if (node->kind != STEP_REAL && node->kind != STEP_INTEGER) return step_bad(file, instance, "bad coordinate");
        c[k] = node->real;
    }
    return OSC_OK;
}

osc_status step_point(const step_file* file, int instance, osc_vec3* point) {
    int args = step_args(file, instance, "CARTESIAN_POINT");
    if (args < 0) return step_bad(file, instance, "a CARTESIAN_POINT was expected");
    double c[3];
    osc_status status = step_triple(file, instance, args, c);
    if (status == OSC_OK) *point = osc_v3(c[0], c[1], c[2]);
    return status;
}

osc_status step_direction(const step_file* file, int instance, osc_vec3* direction) {
    int args = step_args(file, instance, "DIRECTION");
    if (args < 0) return step_bad(file, instance, "a DIRECTION was expected");
    double c[3];
    osc_status status = step_triple(file, instance, args, c);
    if (status != OSC_OK) return status;
    osc_vec3 d = osc_v3(c[0], c[1], c[2]);
    double length = osc_length(d);
    if (!(length > 1e-300) || !isfinite(length)) return step_bad(file, instance, "zero direction");
    *direction = osc_scale(d, 1.0 / length);
    return OSC_OK;
}

osc_status step_placement(const step_file* file, int instance, osc_vec3* o, osc_vec3* x, osc_vec3* y, osc_vec3* z) {
    int args = step_args(file, instance, "AXIS2_PLACEMENT_3D"), target;
    if (args < 0) return step_bad(file, instance, "an AXIS2_PLACEMENT_3D was expected");
    osc_status status = step_ref(file, instance, args, 1, &target);
    if (status == OSC_OK) status = step_point(file, target, o);
    if (status != OSC_OK) return status;
    *z = osc_v3(0, 0, 1);
    osc_vec3 r = osc_v3(1, 0, 0);
    const step_node* axis = step_arg(file, args, 2);
    const step_node* ref = step_arg(file, args, 3);
    if (!axis || !ref) return step_bad(file, instance, "4 parameters expected");
    if (axis->kind != STEP_UNSET) {
        if ((status = step_ref(file, instance, args, 2, &target)) != OSC_OK) return status;
        if ((status = step_direction(file, target, z)) != OSC_OK) return status;
    }
    if (ref->kind != STEP_UNSET) {
        if ((status = step_ref(file, instance, args, 3, &target)) != OSC_OK) return status;
        if ((status = step_direction(file, target, &r)) != OSC_OK) return status;
    } else if (fabs(z->x) > 1.0 - 1e-12) {
        r = osc_v3(0, 1, 0);
    }
    osc_vec3 p = osc_sub(r, osc_scale(*z, osc_dot(r, *z)));
    double length = osc_length(p);
    if (!(length > 1e-9)) return step_bad(file, instance, "ref_direction is parallel to the axis");
    *x = osc_scale(p, 1.0 / length);
    *y = osc_cross(*z, *x);
    return OSC_OK;
}
