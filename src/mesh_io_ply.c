// mesh_io_ply.c: the PLY parser (ascii, binary_little_endian, binary_big_endian). The header
// declares elements in file order, each with scalar and list properties of the eight PLY types;
// the importer reads x, y, z of the "vertex" element (any numeric type) and the vertex_indices
// (or vertex_index) list of the "face" element (any count and index types), and skips everything
// else, lists included. Header errors give the line, body errors the line (ascii) or the byte
// offset (binary); nothing is read past the buffer.

#include "mesh_internal.h"
#include "mesh_io_internal.h"

#include <string.h>

typedef enum ply_type {
    PLY_NONE,
    PLY_INT8,
    PLY_UINT8,
    PLY_INT16,
    PLY_UINT16,
    PLY_INT32,
    PLY_UINT32,
    PLY_FLOAT32,
    PLY_FLOAT64
} ply_type;

static const size_t ply_type_size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
static const char* const ply_type_name[] = {"none",  "int8",   "uint8",   "int16",  "uint16",
                                            "int32", "uint32", "float32", "float64"};

typedef enum ply_role { PLY_ROLE_OTHER, PLY_ROLE_X, PLY_ROLE_Y, PLY_ROLE_Z, PLY_ROLE_INDICES } ply_role;
typedef enum ply_kind { PLY_ELEMENT_OTHER, PLY_ELEMENT_VERTEX, PLY_ELEMENT_FACE } ply_kind;
typedef enum ply_encoding { PLY_ASCII, PLY_LITTLE_ENDIAN, PLY_BIG_ENDIAN } ply_encoding;

typedef struct ply_property {
    ply_type type;       // the value type (of the items, for a list)
    ply_type count_type; // PLY_NONE for a scalar
    ply_role role;
} ply_property;

typedef struct ply_element {
    ply_kind kind;
    int64_t count;
    int first_property, property_count;
    char name[32]; // for messages
} ply_element;

enum { PLY_MAX_ELEMENTS = 32, PLY_MAX_PROPERTIES = 256 };

typedef struct ply_header {
    ply_encoding encoding;
    ply_element elements[PLY_MAX_ELEMENTS];
    ply_property properties[PLY_MAX_PROPERTIES];
    int element_count, property_count;
    int vertex_element, face_element; // -1 when absent
} ply_header;

// the body being read: bytes (binary) or tokens (ascii)
typedef struct ply_reader {
    const unsigned char* data;
    size_t size;
    text_cursor text;
    ply_encoding encoding;
    mesh_builder* builder;
    const ply_element* element; // for messages
    int64_t instance;
} ply_reader;

// ---------------------------------------------------------------------------------------------
// header

static ply_type ply_parse_type(const char* token, size_t length) {
    static const char* const names[][2] = {{"char", "int8"},     {"uchar", "uint8"},   {"short", "int16"},
                                           {"ushort", "uint16"}, {"int", "int32"},     {"uint", "uint32"},
                                           {"float", "float32"}, {"double", "float64"}};
    for (int i = 0; i < 8; ++i)
        if (text_token_is(token, length, names[i][0], false) || text_token_is(token, length, names[i][1], false))
            return (ply_type)(i + 1);
    return PLY_NONE;
}

// the tokens of one header line; false for more than `capacity`
static bool ply_line_tokens(text_cursor* cursor, const char** tokens, size_t* lengths, int capacity, int* count) {
    *count = 0;
    const char* token;
    size_t length;
    while (text_token(cursor, false, &token, &length)) {
        if (*count == capacity) return false;
        tokens[*count] = token;
        lengths[(*count)++] = length;
    }
    return true;
}

static osc_status ply_element_line(ply_header* header, mesh_builder* builder, int64_t line, const char** tokens,
                                   const size_t* lengths, int count) {
    int64_t instances;
    if (count != 3 || !text_parse_int(tokens[2], lengths[2], &instances) || instances < 0)
        return mesh_parse_error(builder, line, "expected 'element <name> <count>'");
    if (header->element_count == PLY_MAX_ELEMENTS)
        return mesh_parse_error(builder, line, "more than %d elements", PLY_MAX_ELEMENTS);
    ply_element* element = &header->elements[header->element_count];
    memset(element, 0, sizeof *element);
    element->count = instances;
    element->first_property = header->property_count;
    text_quote(tokens[1], lengths[1], element->name);
    bool vertex = text_token_is(tokens[1], lengths[1], "vertex", false);
    bool face = text_token_is(tokens[1], lengths[1], "face", false);
    if ((vertex && header->vertex_element >= 0) || (face && header->face_element >= 0))
        return mesh_parse_error(builder, line, "a second '%s' element", element->name);
    if ((vertex || face) && instances > INT32_MAX)
        return mesh_parse_error(builder, line, "%lld %s elements exceed %d", (long long)instances, element->name,
                                (int)INT32_MAX);
    element->kind = vertex ? PLY_ELEMENT_VERTEX : face ? PLY_ELEMENT_FACE : PLY_ELEMENT_OTHER;
    if (vertex) header->vertex_element = header->element_count;
    if (face) header->face_element = header->element_count;
    ++header->element_count;
    return OSC_OK;
}

static osc_status ply_property_line(ply_header* header, mesh_builder* builder, int64_t line, const char** tokens,
                                    const size_t* lengths, int count) {
    if (header->element_count == 0) return mesh_parse_error(builder, line, "a property before any element");
    if (header->property_count == PLY_MAX_PROPERTIES)
        return mesh_parse_error(builder, line, "more than %d properties", PLY_MAX_PROPERTIES);
    ply_element* element = &header->elements[header->element_count - 1];
    ply_property property = {PLY_NONE, PLY_NONE, PLY_ROLE_OTHER};
    bool list = count >= 2 && text_token_is(tokens[1], lengths[1], "list", false);
    if (list && count == 5) {
        property.count_type = ply_parse_type(tokens[2], lengths[2]);
        property.type = ply_parse_type(tokens[3], lengths[3]);
        if (property.count_type == PLY_NONE || property.type == PLY_NONE)
            return mesh_parse_error(builder, line, "unknown type in a list property");
    } else if (!list && count == 3) {
        property.type = ply_parse_type(tokens[1], lengths[1]);
        if (property.type == PLY_NONE) {
            char quoted[32];
            text_quote(tokens[1], lengths[1], quoted);
            return mesh_parse_error(builder, line, "unknown property type '%s'", quoted);
        }
    } else {
        return mesh_parse_error(builder, line,
                                "expected 'property <type> <name>' or 'property list <count "
                                "type> <item type> <name>'");
    }
    const char* name = tokens[count - 1];
    size_t name_length = lengths[count - 1];
    ply_role role = PLY_ROLE_OTHER;
    if (element->kind == PLY_ELEMENT_VERTEX) {
        if (text_token_is(name, name_length, "x", false)) role = PLY_ROLE_X;
        if (text_token_is(name, name_length, "y", false)) role = PLY_ROLE_Y;
        if (text_token_is(name, name_length, "z", false)) role = PLY_ROLE_Z;
    } else if (element->kind == PLY_ELEMENT_FACE && (text_token_is(name, name_length, "vertex_indices", false) ||
                                                     text_token_is(name, name_length, "vertex_index", false))) {
        role = PLY_ROLE_INDICES;
    }
    if (role != PLY_ROLE_OTHER) {
        for (int i = 0; i < element->property_count; ++i) {
            ply_role other = header->properties[element->first_property + i].role;
            if (other == role)
                return mesh_parse_error(builder, line, "a second %s property",
                                        role == PLY_ROLE_INDICES ? "vertex index list" : "coordinate");
        }
        if ((role == PLY_ROLE_INDICES) != list)
            return mesh_parse_error(builder, line, "%s",
                                    list ? "a vertex coordinate cannot be a list" : "vertex_indices must be a list");
    }
    property.role = role;
    header->properties[header->property_count++] = property;
    ++element->property_count;
    return OSC_OK;
}

// checks what the importer needs: a vertex element with x, y, z and a face index list
static osc_status ply_check_header(const ply_header* header, mesh_builder* builder, int64_t line) {
    if (header->vertex_element < 0) return mesh_parse_error(builder, line, "the header declares no vertex element");
    const ply_element* vertex = &header->elements[header->vertex_element];
    int found = 0;
    for (int i = 0; i < vertex->property_count; ++i)
        found += header->properties[vertex->first_property + i].role != PLY_ROLE_OTHER;
    if (found != 3) return mesh_parse_error(builder, line, "the vertex element lacks an x, y or z property");
    if (header->face_element >= 0) {
        const ply_element* face = &header->elements[header->face_element];
        found = 0;
        for (int i = 0; i < face->property_count; ++i)
            found += header->properties[face->first_property + i].role == PLY_ROLE_INDICES;
        if (!found) return mesh_parse_error(builder, line, "the face element has no vertex_indices list");
    }
    return OSC_OK;
}

// reads the header up to and including the end_header line
static osc_status ply_read_header(text_cursor* cursor, ply_header* header, mesh_builder* builder) {
    enum { MAX_TOKENS = 6 };
    const char* tokens[MAX_TOKENS];
    size_t lengths[MAX_TOKENS];
    int count = 0;
    ply_line_tokens(cursor, tokens, lengths, MAX_TOKENS, &count);
    if (count != 1 || !text_token_is(tokens[0], lengths[0], "ply", false))
        return mesh_parse_error(builder, cursor->line, "the file does not start with 'ply'");
    text_next_line(cursor);
    bool format = false;
    while (cursor->position < cursor->size) {
        int64_t line = cursor->line;
        const char* keyword;
        size_t keyword_length;
        if (!text_token(cursor, false, &keyword, &keyword_length)) {
            text_next_line(cursor); // a blank line
            continue;
        }
        if (text_token_is(keyword, keyword_length, "comment", false) ||
            text_token_is(keyword, keyword_length, "obj_info", false)) {
            text_next_line(cursor);
            continue;
        }
        tokens[0] = keyword;
        lengths[0] = keyword_length;
        bool fits = ply_line_tokens(cursor, tokens + 1, lengths + 1, MAX_TOKENS - 1, &count);
        ++count;
        text_next_line(cursor);
        osc_status status = OSC_OK;
        if (!fits) {
            status = mesh_parse_error(builder, line, "too many words on a header line");
        } else if (text_token_is(keyword, keyword_length, "format", false)) {
            static const char* const encodings[3] = {"ascii", "binary_little_endian", "binary_big_endian"};
            int encoding = -1;
            for (int i = 0; count == 3 && i < 3; ++i)
                if (text_token_is(tokens[1], lengths[1], encodings[i], false)) encoding = i;
            if (format || encoding < 0 || !text_token_is(tokens[2], lengths[2], "1.0", false))
                status = mesh_parse_error(builder, line,
                                          "expected one 'format ascii|binary_little_endian|"
                                          "binary_big_endian 1.0' line");
            header->encoding = (ply_encoding)(encoding < 0 ? 0 : encoding);
            format = true;
        } else if (!format) {
            status = mesh_parse_error(builder, line, "the format line must come second");
        } else if (text_token_is(keyword, keyword_length, "element", false)) {
            status = ply_element_line(header, builder, line, tokens, lengths, count);
        } else if (text_token_is(keyword, keyword_length, "property", false)) {
            status = ply_property_line(header, builder, line, tokens, lengths, count);
        } else if (text_token_is(keyword, keyword_length, "end_header", false) && count == 1) {
            return ply_check_header(header, builder, line);
        } else {
            char quoted[32];
            text_quote(keyword, keyword_length, quoted);
            status = mesh_parse_error(builder, line, "unknown header keyword '%s'", quoted);
        }
        if (status) return status;
    }
    return mesh_parse_error(builder, cursor->line, "the header has no end_header line");
}

// ---------------------------------------------------------------------------------------------
// body

// where the reader is: a line (ascii) or a byte offset (binary)
static int64_t ply_origin(const ply_reader* reader) {
    return reader->encoding == PLY_ASCII ? reader->text.line : (int64_t)reader->text.position;
}

static osc_status ply_truncated(const ply_reader* reader) {
    return mesh_parse_error(reader->builder, ply_origin(reader), "the file ends inside %s element %lld",
                            reader->element->name, (long long)reader->instance);
}

// one binary value as a double (exact for every PLY type)
static double ply_decode(const unsigned char* bytes, ply_type type, bool big_endian) {
    size_t size = ply_type_size[type];
    uint64_t bits = 0;
    for (size_t i = 0; i < size; ++i) bits |= (uint64_t)bytes[big_endian ? size - 1 - i : i] << (8 * i);
    switch (type) {
        case PLY_INT8: return (double)(int8_t)(uint8_t)bits;
        case PLY_UINT8: return (double)(uint8_t)bits;
        case PLY_INT16: return (double)(int16_t)(uint16_t)bits;
        case PLY_UINT16: return (double)(uint16_t)bits;
        case PLY_INT32: return (double)(int32_t)(uint32_t)bits;
        case PLY_UINT32: return (double)(uint32_t)bits;
        case PLY_FLOAT32: {
            uint32_t narrow = (uint32_t)bits;
            float value;
            memcpy(&value, &narrow, sizeof value);
            return value;
        }
        case PLY_FLOAT64: {
            double value;
            memcpy(&value, &bits, sizeof value);
            return value;
        }
        case PLY_NONE: break;
    }
    return 0.0;
}

// an ascii token of an integer type, range-checked
static bool ply_parse_integer(const char* token, size_t length, ply_type type, double* value) {
    static const int64_t lo[] = {0, INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0};
    static const int64_t hi[] = {0, INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX, INT32_MAX, UINT32_MAX};
    int64_t integer;
    if (!text_parse_int(token, length, &integer) || integer < lo[type] || integer > hi[type]) return false;
    *value = (double)integer;
    return true;
}

// reads the next value of `type`
static osc_status ply_read_value(ply_reader* reader, ply_type type, double* value) {
    if (reader->encoding != PLY_ASCII) {
        size_t size = ply_type_size[type];
        if (reader->size - reader->text.position < size) return ply_truncated(reader);
        *value = ply_decode(reader->data + reader->text.position, type, reader->encoding == PLY_BIG_ENDIAN);
        reader->text.position += size;
        return OSC_OK;
    }
    const char* token;
    size_t length;
    if (!text_token_any_line(&reader->text, false, &token, &length)) return ply_truncated(reader);
    bool ok = type == PLY_FLOAT32 || type == PLY_FLOAT64 ? text_parse_double(token, length, value)
                                                         : ply_parse_integer(token, length, type, value);
    if (ok) return OSC_OK;
    char quoted[32];
    text_quote(token, length, quoted);
    return mesh_parse_error(reader->builder, reader->text.line, "%s element %lld: '%s' is not a %s",
                            reader->element->name, (long long)reader->instance, quoted, ply_type_name[type]);
}

// reads a list count: integral, >= 0, and no more items than the rest of the file can hold
static osc_status ply_read_count(ply_reader* reader, const ply_property* property, int64_t* count) {
    int64_t origin = ply_origin(reader);
    double value;
    osc_status status = ply_read_value(reader, property->count_type, &value);
    if (status) return status;
    // ascii items take at least 2 bytes ("0 "; the last one 1), binary items their size
    size_t remaining = reader->size - reader->text.position;
    size_t limit = reader->encoding == PLY_ASCII ? remaining / 2 + 1 : remaining / ply_type_size[property->type];
    if (!(value >= 0.0 && value == floor(value)))
        return mesh_parse_error(reader->builder, origin, "%s element %lld: list count %g is not a count",
                                reader->element->name, (long long)reader->instance, value);
    if (value > (double)limit)
        return mesh_parse_error(reader->builder, origin,
                                "%s element %lld: a list of %.0f items does not fit in the %zu "
                                "bytes left",
                                reader->element->name, (long long)reader->instance, value, remaining);
    *count = (int64_t)value;
    return OSC_OK;
}

// reads the vertex index list of a face into builder->face
static osc_status ply_read_indices(ply_reader* reader, const ply_property* property, int64_t vertex_count,
                                   size_t* count) {
    int64_t items;
    osc_status status = ply_read_count(reader, property, &items);
    if (!status) status = mesh_builder_reserve_face(reader->builder, (size_t)items);
    for (int64_t k = 0; !status && k < items; ++k) {
        int64_t origin = ply_origin(reader);
        double index;
        status = ply_read_value(reader, property->type, &index);
        if (!status && !(index >= 0.0 && index < (double)vertex_count && index == floor(index)))
            status = mesh_parse_error(reader->builder, origin, "face %lld: vertex index %g out of range [0, %lld)",
                                      (long long)reader->instance, index, (long long)vertex_count);
        if (!status) reader->builder->face[k] = (int32_t)index;
    }
    *count = (size_t)items;
    return status;
}

// reads (or skips) one instance of an element
static osc_status ply_read_instance(ply_reader* reader, const ply_header* header, const ply_element* element,
                                    int64_t vertex_count) {
    int64_t origin = ply_origin(reader);
    double xyz[3] = {0.0, 0.0, 0.0};
    size_t face_size = 0;
    osc_status status = OSC_OK;
    for (int i = 0; !status && i < element->property_count; ++i) {
        const ply_property* property = &header->properties[element->first_property + i];
        if (property->role == PLY_ROLE_INDICES) {
            status = ply_read_indices(reader, property, vertex_count, &face_size);
        } else if (property->count_type != PLY_NONE) {
            int64_t items;
            double ignored;
            status = ply_read_count(reader, property, &items);
            if (!status && reader->encoding != PLY_ASCII) // ply_read_count checked the room
                reader->text.position += (size_t)items * ply_type_size[property->type];
            for (int64_t k = 0; !status && reader->encoding == PLY_ASCII && k < items; ++k)
                status = ply_read_value(reader, property->type, &ignored);
        } else {
            double value;
            status = ply_read_value(reader, property->type, &value);
            if (property->role >= PLY_ROLE_X && property->role <= PLY_ROLE_Z) xyz[property->role - PLY_ROLE_X] = value;
        }
    }
    if (status) return status;
    if (element->kind == PLY_ELEMENT_VERTEX)
        return mesh_builder_add_vertex(reader->builder, xyz[0], xyz[1], xyz[2], origin);
    if (element->kind == PLY_ELEMENT_FACE) return mesh_builder_add_face(reader->builder, face_size, origin);
    return OSC_OK;
}

// the fewest bytes an instance of `element` takes
static size_t ply_min_instance_size(const ply_header* header, const ply_element* element, ply_encoding encoding) {
    size_t size = 0;
    for (int i = 0; i < element->property_count; ++i) {
        const ply_property* property = &header->properties[element->first_property + i];
        ply_type first = property->count_type != PLY_NONE ? property->count_type : property->type;
        size += encoding == PLY_ASCII ? 2 : ply_type_size[first];
    }
    return size;
}

// rejects counts that the bytes after the header cannot hold, before anything is allocated
static osc_status ply_check_counts(const ply_header* header, ply_reader* reader) {
    size_t remaining = reader->size - reader->text.position + (reader->encoding == PLY_ASCII);
    for (int e = 0; e < header->element_count; ++e) {
        const ply_element* element = &header->elements[e];
        size_t size = ply_min_instance_size(header, element, reader->encoding);
        if (size > 0 && (uint64_t)element->count > remaining / size)
            return mesh_parse_error(reader->builder, ply_origin(reader),
                                    "the header declares %lld %s elements, more than the %zu bytes "
                                    "that follow can hold",
                                    (long long)element->count, element->name, reader->size - reader->text.position);
        remaining -= (size_t)element->count * size;
    }
    return OSC_OK;
}

osc_status mesh_parse_ply(const unsigned char* data, size_t size, mesh_builder* builder) {
    ply_header header;
    memset(&header, 0, sizeof header);
    header.vertex_element = header.face_element = -1;
    text_cursor cursor = {(const char*)data, size, 0, 1};
    osc_status status = ply_read_header(&cursor, &header, builder);
    if (status) return status;

    ply_reader reader = {data, size, cursor, header.encoding, builder, NULL, 0};
    if (header.encoding != PLY_ASCII) {
        builder->binary = true;
        builder->format_name = "binary PLY";
    }
    status = ply_check_counts(&header, &reader);
    int64_t vertex_count = header.elements[header.vertex_element].count;
    int64_t face_count = header.face_element >= 0 ? header.elements[header.face_element].count : 0;
    if (!status) status = mesh_builder_reserve(builder, (size_t)vertex_count, (size_t)face_count);
    for (int e = 0; !status && e < header.element_count; ++e) {
        const ply_element* element = &header.elements[e];
        reader.element = element;
        if (element->property_count == 0) continue; // nothing to read
        for (int64_t i = 0; !status && i < element->count; ++i) {
            reader.instance = i;
            status = ply_read_instance(&reader, &header, element, vertex_count);
        }
    }
    if (status) return status;
    const char* token;
    size_t length;
    if (header.encoding != PLY_ASCII && reader.text.position != size)
        return mesh_parse_error(builder, (int64_t)reader.text.position, "%zu bytes after the last element",
                                size - reader.text.position);
    if (header.encoding == PLY_ASCII && text_token_any_line(&reader.text, false, &token, &length)) {
        char quoted[32];
        text_quote(token, length, quoted);
        return mesh_parse_error(builder, reader.text.line, "unexpected '%s' after the last element", quoted);
    }
    return OSC_OK;
}
