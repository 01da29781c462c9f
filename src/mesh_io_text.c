// mesh_io_text.c: the parsers of Wavefront OBJ, OFF and STL (ASCII and binary). Each fills a
// mesh_builder (mesh_io_internal.h) and reports the first malformed line (or byte offset) it
// meets; none reads past its buffer.

#include "mesh_internal.h"
#include "mesh_io_internal.h"

#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// helpers

// "the end of the file" or the quoted token, for messages
static const char* describe(const char* token, size_t length, bool found, char quoted[40]) {
    if (!found) return "the end of the file";
    char inner[32];
    text_quote(token, length, inner);
    snprintf(quoted, 40, "'%s'", inner);
    return quoted;
}

// reads three coordinates from the current line
static osc_status read_coordinates(text_cursor* cursor, mesh_builder* builder, bool comments, const char* what,
                                   double xyz[3]) {
    for (int axis = 0; axis < 3; ++axis) {
        const char* token;
        size_t length;
        if (!text_token(cursor, comments, &token, &length))
            return mesh_parse_error(builder, cursor->line, "%s has %d coordinates, 3 needed", what, axis);
        if (!text_parse_double(token, length, &xyz[axis])) {
            char quoted[32];
            text_quote(token, length, quoted);
            return mesh_parse_error(builder, cursor->line, "%s coordinate %c: '%s' is not a number", what, "xyz"[axis],
                                    quoted);
        }
    }
    return OSC_OK;
}

// counts the numeric tokens left on the line; OSC_ERR_PARSE for one that is not a number
static osc_status count_trailing_numbers(text_cursor* cursor, mesh_builder* builder, const char* what, int* count) {
    const char* token;
    size_t length;
    *count = 0;
    while (text_token(cursor, true, &token, &length)) {
        double ignored;
        if (!text_parse_double(token, length, &ignored)) {
            char quoted[32];
            text_quote(token, length, quoted);
            return mesh_parse_error(builder, cursor->line, "%s: unexpected '%s'", what, quoted);
        }
        ++*count;
    }
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// OBJ: "v x y z [w | r g b]" and "f v[/vt][/vn] ..." lines; everything else is ignored

static osc_status obj_vertex(text_cursor* cursor, mesh_builder* builder) {
    double xyz[3];
    int extra = 0;
    osc_status status = read_coordinates(cursor, builder, true, "v", xyz);
    if (!status) status = count_trailing_numbers(cursor, builder, "v", &extra);
    if (!status && extra > 4)
        status = mesh_parse_error(builder, cursor->line, "v has %d values, at most 7 expected", 3 + extra);
    return status ? status : mesh_builder_add_vertex(builder, xyz[0], xyz[1], xyz[2], cursor->line);
}

// the vertex index of "v", "v/vt", "v//vn" or "v/vt/vn" (texture and normal indices are checked
// for syntax only)
static bool obj_reference(const char* token, size_t length, int64_t* index) {
    const char* slash = memchr(token, '/', length);
    size_t head = slash ? (size_t)(slash - token) : length;
    if (!text_parse_int(token, head, index)) return false;
    for (int part = 0; part < 2 && head < length; ++part) {
        size_t start = head + 1; // past the slash
        const char* next = memchr(token + start, '/', length - start);
        size_t end = next && part == 0 ? (size_t)(next - token) : length;
        int64_t ignored;
        if (end > start && !text_parse_int(token + start, end - start, &ignored)) return false;
        head = end;
    }
    return true;
}

static osc_status obj_face(text_cursor* cursor, mesh_builder* builder) {
    const char* token;
    size_t length, count = 0;
    while (text_token(cursor, true, &token, &length)) {
        int64_t index = 0;
        bool valid = obj_reference(token, length, &index) && index != 0;
        if (index < 0)
            index += (int64_t)builder->vertex_count; // relative: -1 is the last one
        else
            index -= 1;
        if (!valid || index < 0 || index >= INT32_MAX) {
            char quoted[32];
            text_quote(token, length, quoted);
            if (!obj_reference(token, length, &index))
                return mesh_parse_error(builder, cursor->line, "f: '%s' is not a vertex reference", quoted);
            if (index == 0) return mesh_parse_error(builder, cursor->line, "f: vertex index 0 (OBJ counts from 1)");
            return mesh_parse_error(builder, cursor->line,
                                    "f: vertex reference '%s' out of range (%zu vertices so far)", quoted,
                                    builder->vertex_count);
        }
        osc_status status = mesh_builder_reserve_face(builder, count + 1);
        if (status) return status;
        builder->face[count++] = (int32_t)index;
    }
    return mesh_builder_add_face(builder, count, cursor->line);
}

osc_status mesh_parse_obj(const char* data, size_t size, mesh_builder* builder) {
    text_cursor cursor = {data, size, 0, 1};
    while (cursor.position < cursor.size) {
        const char* token;
        size_t length;
        if (text_token(&cursor, true, &token, &length)) {
            osc_status status = OSC_OK;
            if (text_token_is(token, length, "v", false))
                status = obj_vertex(&cursor, builder);
            else if (text_token_is(token, length, "f", false))
                status = obj_face(&cursor, builder);
            if (status) return status;
        }
        text_next_line(&cursor);
    }
    // positive indices may refer forward: check them against the final count
    for (size_t i = 0; i < 3 * builder->triangle_count; ++i)
        if ((size_t)builder->triangles[i] >= builder->vertex_count)
            return mesh_parse_error(builder, builder->origins[i / 3], "f: vertex index %lld out of range [1, %zu]",
                                    (long long)builder->triangles[i] + 1, builder->vertex_count);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// OFF: "[ST][C][N]OFF", "V F [E]", V vertex lines (extra values ignored), F face lines
// "n i1 .. in [colour]"; '#' comments anywhere

// the first token of the next line that has one, crossing blank and comment lines; false at the end
static bool off_first_token(text_cursor* cursor, const char** token, size_t* length) {
    while (cursor->position < cursor->size) {
        if (text_token(cursor, true, token, length)) return true;
        text_next_line(cursor);
    }
    return false;
}

// reads "V F [E]" from the rest of the keyword line or the next line with tokens
static osc_status off_counts(text_cursor* cursor, mesh_builder* builder, int64_t counts[3]) {
    const char* token;
    size_t length;
    bool found = text_token(cursor, true, &token, &length);
    if (found && text_token_is(token, length, "BINARY", true))
        return mesh_parse_error(builder, cursor->line, "binary OFF is not supported");
    if (!found) {
        text_next_line(cursor);
        found = off_first_token(cursor, &token, &length);
    }
    int count = 0;
    for (; found; found = text_token(cursor, true, &token, &length)) {
        char quoted[32];
        text_quote(token, length, quoted);
        if (count == 3 || !text_parse_int(token, length, &counts[count]) || counts[count] < 0)
            return mesh_parse_error(builder, cursor->line, "'%s' is not a count (expected: vertices faces [edges])",
                                    quoted);
        ++count;
    }
    if (count < 2)
        return mesh_parse_error(builder, cursor->line, "expected the vertex and face counts, found %d number(s)",
                                count);
    if (counts[0] > INT32_MAX || counts[1] > INT32_MAX)
        return mesh_parse_error(builder, cursor->line, "counts %lld and %lld exceed %d", (long long)counts[0],
                                (long long)counts[1], (int)INT32_MAX);
    // every vertex line takes at least 6 bytes ("0 0 0\n"), every face line 8 ("3 0 1 2\n")
    uint64_t needed = 6 * (uint64_t)counts[0] + 8 * (uint64_t)counts[1];
    if (needed > cursor->size - cursor->position + 1)
        return mesh_parse_error(builder, cursor->line,
                                "the header declares %lld vertices and %lld faces, more than the "
                                "%zu bytes that follow can hold",
                                (long long)counts[0], (long long)counts[1], cursor->size - cursor->position);
    text_next_line(cursor);
    return OSC_OK;
}

static osc_status off_vertex(text_cursor* cursor, mesh_builder* builder, int64_t index) {
    const char* token;
    size_t length;
    if (!off_first_token(cursor, &token, &length))
        return mesh_parse_error(builder, cursor->line, "the file ends after %lld of the vertices the header declares",
                                (long long)index);
    cursor->position -= length; // read the token again as the first coordinate
    double xyz[3];
    int extra = 0;
    osc_status status = read_coordinates(cursor, builder, true, "vertex", xyz);
    if (!status) status = count_trailing_numbers(cursor, builder, "vertex", &extra);
    if (!status) status = mesh_builder_add_vertex(builder, xyz[0], xyz[1], xyz[2], cursor->line);
    text_next_line(cursor);
    return status;
}

static osc_status off_face(text_cursor* cursor, mesh_builder* builder, int64_t index, int64_t vertex_count) {
    const char* token;
    size_t length;
    char quoted[32];
    if (!off_first_token(cursor, &token, &length))
        return mesh_parse_error(builder, cursor->line, "the file ends after %lld of the faces the header declares",
                                (long long)index);
    int64_t count;
    if (!text_parse_int(token, length, &count) || count < 0) {
        text_quote(token, length, quoted);
        return mesh_parse_error(builder, cursor->line, "face %lld: '%s' is not a vertex count", (long long)index,
                                quoted);
    }
    if (count < 3)
        return mesh_parse_error(builder, cursor->line, "face %lld has %lld vertices (at least 3 needed)",
                                (long long)index, (long long)count);
    if ((uint64_t)count > (cursor->size - cursor->position) / 2)
        return mesh_parse_error(builder, cursor->line, "face %lld declares %lld vertices, more than the line can hold",
                                (long long)index, (long long)count);
    osc_status status = mesh_builder_reserve_face(builder, (size_t)count);
    for (int64_t k = 0; !status && k < count; ++k) {
        int64_t vertex;
        if (!text_token(cursor, true, &token, &length))
            return mesh_parse_error(builder, cursor->line, "face %lld declares %lld vertices, the line has %lld",
                                    (long long)index, (long long)count, (long long)k);
        if (!text_parse_int(token, length, &vertex)) {
            text_quote(token, length, quoted);
            return mesh_parse_error(builder, cursor->line, "face %lld: '%s' is not a vertex index", (long long)index,
                                    quoted);
        }
        if (vertex < 0 || vertex >= vertex_count)
            return mesh_parse_error(builder, cursor->line, "face %lld: vertex index %lld out of range [0, %lld)",
                                    (long long)index, (long long)vertex, (long long)vertex_count);
        builder->face[k] = (int32_t)vertex;
    }
    int colour = 0;
    if (!status) status = count_trailing_numbers(cursor, builder, "face", &colour);
    if (!status && colour != 0 && colour != 1 && colour != 3 && colour != 4)
        status = mesh_parse_error(builder, cursor->line,
                                  "face %lld: %d values after the indices (a colour has 0, 1, 3 "
                                  "or 4)",
                                  (long long)index, colour);
    if (!status) status = mesh_builder_add_face(builder, (size_t)count, cursor->line);
    text_next_line(cursor);
    return status;
}

osc_status mesh_parse_off(const char* data, size_t size, mesh_builder* builder) {
    text_cursor cursor = {data, size, 0, 1};
    const char* token;
    size_t length;
    char quoted[40];
    bool found = off_first_token(&cursor, &token, &length);
    bool keyword = found && length >= 3 && memcmp(token + length - 3, "OFF", 3) == 0;
    for (size_t i = 0; keyword && i + 3 < length; ++i) keyword = strchr("STCN", token[i]) != NULL;
    if (!keyword) {
        if (found && length >= 3 && length <= 9 && memcmp(token + length - 3, "OFF", 3) == 0)
            return mesh_parse_error(builder, cursor.line, "unsupported OFF variant %s (only 3D OFF, COFF, NOFF, STOFF)",
                                    describe(token, length, found, quoted));
        return mesh_parse_error(builder, cursor.line, "expected the OFF keyword, found %s",
                                describe(token, length, found, quoted));
    }
    int64_t counts[3] = {0, 0, 0};
    osc_status status = off_counts(&cursor, builder, counts);
    if (!status) status = mesh_builder_reserve(builder, (size_t)counts[0], (size_t)counts[1]);
    for (int64_t i = 0; !status && i < counts[0]; ++i) status = off_vertex(&cursor, builder, i);
    for (int64_t i = 0; !status && i < counts[1]; ++i) status = off_face(&cursor, builder, i, counts[0]);
    if (!status && off_first_token(&cursor, &token, &length))
        status = mesh_parse_error(builder, cursor.line, "unexpected %s after the %lld faces the header declares",
                                  describe(token, length, true, quoted), (long long)counts[1]);
    return status;
}

// ---------------------------------------------------------------------------------------------
// ASCII STL: solid name / facet normal n n n / outer loop / vertex x y z (3) / endloop / endfacet
// ... / endsolid name; several solids may follow each other

// reads the next token, which must be `word` (any case)
static osc_status stl_expect(text_cursor* cursor, mesh_builder* builder, const char* word) {
    const char* token = NULL;
    size_t length = 0;
    char quoted[40];
    bool found = text_token_any_line(cursor, false, &token, &length);
    if (found && text_token_is(token, length, word, true)) return OSC_OK;
    return mesh_parse_error(builder, cursor->line, "expected '%s', found %s", word,
                            describe(token, length, found, quoted));
}

// reads three numbers, crossing lines
static osc_status stl_numbers(text_cursor* cursor, mesh_builder* builder, const char* what, double xyz[3]) {
    for (int axis = 0; axis < 3; ++axis) {
        const char* token = NULL;
        size_t length = 0;
        char quoted[40];
        bool found = text_token_any_line(cursor, false, &token, &length);
        if (!found || !text_parse_double(token, length, &xyz[axis]))
            return mesh_parse_error(builder, cursor->line, "%s %c: expected a number, found %s", what, "xyz"[axis],
                                    describe(token, length, found, quoted));
    }
    return OSC_OK;
}

static osc_status stl_facet(text_cursor* cursor, mesh_builder* builder) {
    double xyz[3];
    int64_t line = cursor->line;
    osc_status status = stl_expect(cursor, builder, "normal");
    if (!status) status = stl_numbers(cursor, builder, "normal", xyz);
    if (!status) status = stl_expect(cursor, builder, "outer");
    if (!status) status = stl_expect(cursor, builder, "loop");
    if (!status) status = mesh_builder_reserve_face(builder, 3);
    for (int k = 0; !status && k < 3; ++k) {
        status = stl_expect(cursor, builder, "vertex");
        if (!status) status = stl_numbers(cursor, builder, "vertex", xyz);
        builder->face[k] = (int32_t)builder->vertex_count;
        if (!status) status = mesh_builder_add_vertex(builder, xyz[0], xyz[1], xyz[2], cursor->line);
    }
    if (!status) status = stl_expect(cursor, builder, "endloop");
    if (!status) status = stl_expect(cursor, builder, "endfacet");
    if (!status) status = mesh_builder_add_face(builder, 3, line);
    return status;
}

osc_status mesh_parse_stl_ascii(const char* data, size_t size, mesh_builder* builder) {
    text_cursor cursor = {data, size, 0, 1};
    osc_status status = stl_expect(&cursor, builder, "solid");
    if (status) return status;
    text_next_line(&cursor); // the name
    for (;;) {
        const char* token = NULL;
        size_t length = 0;
        char quoted[40];
        bool found = text_token_any_line(&cursor, false, &token, &length);
        if (found && text_token_is(token, length, "facet", true)) {
            status = stl_facet(&cursor, builder);
            if (status) return status;
        } else if (found && text_token_is(token, length, "endsolid", true)) {
            text_next_line(&cursor); // the name
            if (!text_token_any_line(&cursor, false, &token, &length)) return OSC_OK;
            if (!text_token_is(token, length, "solid", true))
                return mesh_parse_error(builder, cursor.line, "unexpected %s after 'endsolid'",
                                        describe(token, length, true, quoted));
            text_next_line(&cursor);
        } else {
            return mesh_parse_error(builder, cursor.line, "expected 'facet' or 'endsolid', found %s",
                                    describe(token, length, found, quoted));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// binary STL: an 80-byte header, a little-endian uint32 count n, then n records of 50 bytes
// (normal, three vertices as little-endian float32, a 2-byte attribute)

static float read_float_le(const unsigned char* bytes) {
    uint32_t bits = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

osc_status mesh_parse_stl_binary(const unsigned char* data, size_t size, mesh_builder* builder) {
    if (size < 84)
        return mesh_parse_error(builder, (int64_t)size, "the file ends inside the 84-byte header (%zu bytes)", size);
    uint64_t count = stl_binary_count(data);
    if (84 + 50 * count != (uint64_t)size)
        return mesh_parse_error(builder, 80,
                                "the header declares %llu triangles (%llu bytes) but the file has "
                                "%zu bytes",
                                (unsigned long long)count, (unsigned long long)(84 + 50 * count), size);
    if (count > (uint64_t)OSC_MESH_MAX_TRIANGLES)
        return mesh_parse_error(builder, 80, "%llu triangles exceed the maximum %d", (unsigned long long)count,
                                (int)OSC_MESH_MAX_TRIANGLES);
    osc_status status = mesh_builder_reserve(builder, 3 * (size_t)count, (size_t)count);
    if (!status) status = mesh_builder_reserve_face(builder, 3);
    for (size_t t = 0; !status && t < (size_t)count; ++t) {
        size_t record = 84 + 50 * t;
        for (int k = 0; !status && k < 3; ++k) {
            const unsigned char* p = data + record + 12 + 12 * (size_t)k;
            builder->face[k] = (int32_t)builder->vertex_count;
            status = mesh_builder_add_vertex(builder, read_float_le(p), read_float_le(p + 4), read_float_le(p + 8),
                                             (int64_t)(p - data));
        }
        if (!status) status = mesh_builder_add_face(builder, 3, (int64_t)record);
    }
    return status;
}
