// mesh_io.c: the mesh importers' common code: the builder, the text cursor and number parsing,
// welding (mesh_weld.c), the degenerate-face policy, removal of unreferenced vertices, format detection, and the public
// loaders osc_mesh_load / osc_mesh_load_memory. The parsers are in mesh_io_text.c (OBJ, OFF, STL)
// and mesh_io_ply.c (PLY).

#include "array_internal.h"
#include "mesh_internal.h"
#include "mesh_io_internal.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// messages

osc_status mesh_parse_error(const mesh_builder* builder, int64_t origin, const char* format, ...) {
    char message[320];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (builder->path)
        return osc_fail(OSC_ERR_PARSE, "%s: '%.200s': %s %s %lld: %s", builder->function, builder->path,
                        builder->format_name, builder->binary ? "byte" : "line", (long long)origin, message);
    return osc_fail(OSC_ERR_PARSE, "%s: %s %s %lld: %s", builder->function, builder->format_name,
                    builder->binary ? "byte" : "line", (long long)origin, message);
}

// a failure that is not tied to a place in the input
static osc_status load_error(const mesh_builder* builder, osc_status status, const char* message) {
    if (builder->path) return osc_fail(status, "%s: '%.200s': %s", builder->function, builder->path, message);
    return osc_fail(status, "%s: %s", builder->function, message);
}

// ---------------------------------------------------------------------------------------------
// the builder

osc_status mesh_builder_reserve(mesh_builder* builder, size_t vertices, size_t triangles) {
    if (vertices > SIZE_MAX / 64 - builder->vertex_count || triangles > SIZE_MAX / 64 - builder->triangle_count)
        return osc_fail(OSC_ERR_NO_MEMORY, "out of memory: %zu vertices and %zu triangles", vertices, triangles);
    osc_status status = osc_array_grow(&builder->vertices, &builder->vertex_capacity, builder->vertex_count + vertices,
                                       3 * sizeof(double));
    size_t needed = builder->triangle_count + triangles;
    if (!status && needed > builder->triangle_capacity) {
        // the origins and the triangles share one capacity: the origins grow to what the triangles will
        size_t origin_capacity = builder->triangle_capacity;
        status = OSC_ARRAY_RESERVE(builder->origins, origin_capacity, needed);
        if (!status)
            status = osc_array_grow(&builder->triangles, &builder->triangle_capacity, needed, 3 * sizeof(int32_t));
    }
    return status;
}

osc_status mesh_builder_reserve_face(mesh_builder* builder, size_t count) {
    return OSC_ARRAY_RESERVE(builder->face, builder->face_capacity, count);
}

osc_status mesh_builder_add_vertex(mesh_builder* builder, double x, double y, double z, int64_t origin) {
    const double coordinates[3] = {x, y, z};
    for (int axis = 0; axis < 3; ++axis) {
        double value = coordinates[axis];
        if (isnan(value))
            return mesh_parse_error(builder, origin, "vertex %zu: coordinate %c is NaN", builder->vertex_count,
                                    "xyz"[axis]);
        if (isinf(value))
            return mesh_parse_error(builder, origin, "vertex %zu: coordinate %c is infinite", builder->vertex_count,
                                    "xyz"[axis]);
        if (fabs(value) > builder->max_coordinate)
            return mesh_parse_error(builder, origin, "vertex %zu: coordinate %c = %g exceeds max_coordinate %g",
                                    builder->vertex_count, "xyz"[axis], value, builder -> max_coordinate);
    }
    if (builder->vertex_count >= (size_t)INT32_MAX)
        return mesh_parse_error(builder, origin, "more than %d vertices", (int)INT32_MAX);
    if (builder->vertex_count == builder->vertex_capacity) {
        osc_status status = mesh_builder_reserve(builder, 1, 0);
        if (status) return status;
    }
    memcpy(builder->vertices + 3 * builder->vertex_count++, coordinates, sizeof coordinates);
    return OSC_OK;
}

osc_status mesh_builder_add_face(mesh_builder* builder, size_t count, int64_t origin) {
    if (count < 3)
        return mesh_parse_error(builder, origin, "face %lld has %zu vertices (at least 3 needed)",
                                (long long)builder->faces_read, count);
    size_t triangles = count - 2;
    if (triangles > (size_t)OSC_MESH_MAX_TRIANGLES - builder->triangle_count)
        return mesh_parse_error(builder, origin, "more than %d triangles", (int)OSC_MESH_MAX_TRIANGLES);
    if (builder->triangle_count + triangles > builder->triangle_capacity) {
        osc_status status = mesh_builder_reserve(builder, 0, triangles);
        if (status) return status;
    }
    const int32_t* face = builder->face;
    for (size_t i = 1; i + 1 < count; ++i) {
        int32_t* triangle = builder->triangles + 3 * builder->triangle_count;
        triangle[0] = face[0];
        triangle[1] = face[i];
        triangle[2] = face[i + 1];
        builder->origins[builder->triangle_count++] = origin;
    }
    ++builder->faces_read;
    builder->polygons_triangulated += count > 3;
    return OSC_OK;
}

static void builder_release(mesh_builder* builder) {
    osc_free(builder->vertices);
    osc_free(builder->triangles);
    osc_free(builder->origins);
    osc_free(builder->face);
    builder->vertices = NULL;
    builder->triangles = NULL;
    builder->origins = NULL;
    builder->face = NULL;
}

// ---------------------------------------------------------------------------------------------
// the text cursor

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void text_skip_blanks(text_cursor* cursor) {
    while (cursor->position < cursor->size && is_blank(cursor->data[cursor->position])) ++cursor->position;
}

void text_next_line(text_cursor* cursor) {
    const char* newline = cursor->position < cursor->size
                              ? memchr(cursor->data + cursor->position, '\n', cursor->size - cursor->position)
                              : NULL;
    if (newline) {
        cursor->position = (size_t)(newline - cursor->data) + 1;
        ++cursor->line;
    } else {
        cursor->position = cursor->size;
    }
}

// reads a token starting at the cursor (not at a blank or newline)
static void read_token(text_cursor* cursor, const char** token, size_t* length) {
    size_t start = cursor->position;
    while (cursor->position < cursor->size && !is_blank(cursor->data[cursor->position]) &&
           cursor->data[cursor->position] != '\n')
        ++cursor->position;
    *token = cursor->data + start;
    *length = cursor->position - start;
}

// moves to the newline that ends a '#' comment, without crossing it
static void skip_comment(text_cursor* cursor) {
    const char* newline = memchr(cursor->data + cursor->position, '\n', cursor->size - cursor->position);
    cursor->position = newline ? (size_t)(newline - cursor->data) : cursor->size;
}

bool text_token(text_cursor* cursor, bool comments, const char** token, size_t* length) {
    text_skip_blanks(cursor);
    if (cursor->position >= cursor->size || cursor->data[cursor->position] == '\n') return false;
    if (comments && cursor->data[cursor->position] == '#') {
        skip_comment(cursor);
        return false;
    }
    read_token(cursor, token, length);
    return true;
}

bool text_token_any_line(text_cursor* cursor, bool comments, const char** token, size_t* length) {
    for (;;) {
        text_skip_blanks(cursor);
        if (cursor->position >= cursor->size) return false;
        char c = cursor->data[cursor->position];
        if (c == '\n') {
            ++cursor->position;
            ++cursor->line;
        } else if (comments && c == '#') {
            skip_comment(cursor);
        } else {
            read_token(cursor, token, length);
            return true;
        }
    }
}

static char fold_case(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

bool text_token_is(const char* token, size_t length, const char* word, bool fold) {
    size_t i = 0;
    for (; i < length && word[i]; ++i)
        if (fold ? fold_case(token[i]) != fold_case(word[i]) : token[i] != word[i]) return false;
    return i == length && word[i] == '\0';
}

void text_quote(const char* token, size_t length, char quoted[32]) {
    size_t shown = length > 24 ? 24 : length;
    for (size_t i = 0; i < shown; ++i) {
        unsigned char c = (unsigned char)token[i];
        quoted[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (length > shown) memcpy(quoted + shown, "...", 3), shown += 3;
    quoted[shown] = '\0';
}

// ---------------------------------------------------------------------------------------------
// numbers

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

// the decimal digits of a token: mantissa (up to 19 significant digits) times 10^exponent, and
// whether a non-zero digit was cut off
typedef struct decimal {
    uint64_t mantissa;
    int64_t exponent;
    bool truncated;
} decimal;

// scans [+-]? (digits [. digits] | . digits) ([eE] [+-]? digits)? from `i`; false on a syntax
// error
static bool scan_decimal(const char* token, size_t length, size_t i, decimal* out) {
    int digits = 0;
    bool any_digit = false, fraction = false;
    *out = (decimal){0, 0, false};
    for (; i < length; ++i) {
        char c = token[i];
        if (c == '.' && !fraction) {
            fraction = true;
            continue;
        }
        if (!is_digit(c)) break;
        any_digit = true;
        int digit = c - '0';
        if (out->mantissa == 0 && digit == 0) {
            out->exponent -= fraction; // a leading zero
        } else if (digits < 19) {
            out->mantissa = 10 * out->mantissa + (uint64_t)digit;
            out->exponent -= fraction;
            ++digits;
        } else {
            out->exponent += !fraction; // a dropped integer digit still scales
            out->truncated |= digit != 0;
        }
    }
    if (!any_digit) return false;
    if (i < length && (token[i] == 'e' || token[i] == 'E')) {
        ++i;
        bool negative = i < length && token[i] == '-';
        if (i < length && (token[i] == '-' || token[i] == '+')) ++i;
        if (i == length || !is_digit(token[i])) return false;
        int64_t exponent = 0;
        for (; i < length && is_digit(token[i]); ++i)
            if (exponent < 100000) exponent = 10 * exponent + (token[i] - '0');
        out->exponent += negative ? -exponent : exponent;
    }
    return i == length;
}

// strtod on a NUL-terminated copy, in the C locale's notation whatever the current locale is
static bool parse_double_slow(const char* token, size_t length, double* value) {
    char copy[416];
    if (length >= sizeof copy) return false;
    memcpy(copy, token, length);
    copy[length] = '\0';
    char* end = NULL;
    *value = strtod(copy, &end);
    if (end == copy + length) return true;
    const struct lconv* conventions = localeconv();
    char* point = memchr(copy, '.', length);
    if (!point || !conventions || !conventions->decimal_point || !conventions->decimal_point[0] ||
        conventions->decimal_point[1])
        return false;
    *point = conventions->decimal_point[0];
    *value = strtod(copy, &end);
    return end == copy + length;
}

bool text_parse_double(const char* token, size_t length, double* value) {
    static const double powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = 0;
    bool negative = length > 0 && token[0] == '-';
    if (length > 0 && (token[0] == '-' || token[0] == '+')) i = 1;
    if (i < length && !is_digit(token[i]) && token[i] != '.') {
        const char* word = token + i;
        size_t word_length = length - i;
        if (text_token_is(word, word_length, "nan", true)) {
            *value = NAN;
            return true;
        }
        if (text_token_is(word, word_length, "inf", true) || text_token_is(word, word_length, "infinity", true)) {
            *value = negative ? -INFINITY : INFINITY;
            return true;
        }
        return false;
    }
    decimal parsed;
    if (!scan_decimal(token, length, i, &parsed)) return false;
    // Clinger's fast path: an exact mantissa times an exact power of ten, rounded once
    if (parsed.mantissa == 0) {
        *value = negative ? -0.0 : 0.0;
        return true;
    }
    if (!parsed.truncated && parsed.mantissa <= (UINT64_C(1) << 53) && parsed.exponent >= -22 &&
        parsed.exponent <= 22) {
        double magnitude = (double)parsed.mantissa;
        magnitude = parsed.exponent < 0 ? magnitude / powers[-parsed.exponent] : magnitude * powers[parsed.exponent];
        *value = negative ? -magnitude : magnitude;
        return true;
    }
    return parse_double_slow(token, length, value);
}

bool text_parse_int(const char* token, size_t length, int64_t* value) {
    size_t i = 0;
    bool negative = length > 0 && token[0] == '-';
    if (length > 0 && (token[0] == '-' || token[0] == '+')) i = 1;
    if (i == length) return false;
    int64_t magnitude = 0;
    for (; i < length; ++i) {
        if (!is_digit(token[i]) || magnitude > ((INT64_C(1) << 62) - (token[i] - '0')) / 10) return false;
        magnitude = 10 * magnitude + (token[i] - '0');
    }
    *value = negative ? -magnitude : magnitude;
    return true;
}

// ---------------------------------------------------------------------------------------------
// from the builder to a mesh

// moves the vertices with remap[i] == i to the front, in order, and turns remap into old -> new;
// remap[i] < i merges vertex i into an earlier one, remap[i] < 0 drops it (and stays -1)
static size_t compact_vertices(double* vertices, size_t count, int32_t* remap) {
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
        if (remap[i] == (int32_t)i) {
            if (kept != i) memmove(vertices + 3 * kept, vertices + 3 * i, 3 * sizeof(double));
            remap[i] = (int32_t)kept++;
        } else if (remap[i] >= 0) {
            remap[i] = remap[remap[i]]; // an earlier vertex, already renumbered
        }
    }
    return kept;
}

// re-indexes the triangles through remap and applies the degenerate policy
static osc_status remap_triangles(mesh_builder* builder, const int32_t* remap, const osc_mesh_load_settings* settings,
                                  int32_t* dropped) {
    size_t kept = 0;
    for (size_t t = 0; t < builder->triangle_count; ++t) {
        int32_t* triangle = builder->triangles + 3 * t;
        int32_t a = remap[triangle[0]], b = remap[triangle[1]], c = remap[triangle[2]];
        if (a == b || b == c || c == a) {
            bool repeated = triangle[0] == triangle[1] || triangle[1] == triangle[2] || triangle[2] == triangle[0];
            if (settings->degenerate == OSC_MESH_DEGENERATE_REJECT)
                return mesh_parse_error(builder, builder->origins[t], "degenerate face: %s",
                                        repeated ? "it repeats a vertex" : "two of its vertices were welded into one");
            ++*dropped;
            continue;
        }
        int32_t* out = builder->triangles + 3 * kept;
        out[0] = a;
        out[1] = b;
        out[2] = c;
        builder->origins[kept++] = builder->origins[t];
    }
    builder->triangle_count = kept;
    return OSC_OK;
}

// welds, applies the degenerate policy, removes unreferenced vertices and hands the arrays to a
// new mesh; fills the counts of `report` (not its format)
static osc_status builder_finish(mesh_builder* builder, const osc_mesh_load_settings* settings, osc_mesh** out,
                                 osc_mesh_load_report* report) {
    size_t read = builder->vertex_count;
    int32_t* remap = osc_calloc(read ? read : 1, sizeof(int32_t));
    if (!remap) return OSC_ERR_NO_MEMORY;
    int64_t kept = mesh_weld_points(builder->vertices, read, settings->weld_tolerance, remap);
    osc_status status = kept < 0 ? OSC_ERR_NO_MEMORY : OSC_OK;
    size_t count = status ? 0 : compact_vertices(builder->vertices, read, remap);
    int32_t dropped = 0;
    if (!status) status = remap_triangles(builder, remap, settings, &dropped);
    size_t unreferenced = 0;
    if (!status && !settings->keep_unreferenced) {
        // remap becomes: -1 unused, then old -> new over the used vertices
        for (size_t i = 0; i < count; ++i) remap[i] = -1;
        for (size_t i = 0; i < 3 * builder->triangle_count; ++i) remap[builder->triangles[i]] = 0;
        for (size_t i = 0; i < count; ++i)
            if (remap[i] == 0) remap[i] = (int32_t)i;
        size_t used = compact_vertices(builder->vertices, count, remap);
        for (size_t i = 0; i < 3 * builder->triangle_count; ++i) builder->triangles[i] = remap[builder->triangles[i]];
        unreferenced = count - used;
        count = used;
    }
    osc_free(remap);
    if (status) return status;

    report->vertices_read = (int64_t)read;
    report->faces_read = builder->faces_read;
    report->vertices_welded = (int32_t)(read - (size_t)kept);
    report->vertices_unreferenced = (int32_t)unreferenced;
    report->faces_dropped = dropped;
    report->polygons_triangulated = builder->polygons_triangulated;
    status = osc_mesh_create_owned(builder->vertices, (int32_t)count, builder->triangles,
                                   (int32_t)builder->triangle_count, NULL, NULL, out);
    builder->vertices = NULL; // owned by the mesh now, or released
    builder->triangles = NULL;
    return status;
}

// ---------------------------------------------------------------------------------------------
// format detection

// true when the text starts, after white space, with `word` followed by white space or the end
// (ASCII case-insensitive)
static bool starts_with_word(const char* data, size_t size, const char* word) {
    text_cursor cursor = {data, size, 0, 1};
    const char* token;
    size_t length;
    return text_token_any_line(&cursor, false, &token, &length) && text_token_is(token, length, word, true);
}

// true when the first 64 KiB hold a byte that no text file has (control characters other than
// tab, newline, vertical tab, form feed and carriage return)
static bool looks_binary(const unsigned char* data, size_t size) {
    size_t limit = size < 65536 ? size : 65536;
    for (size_t i = 0; i < limit; ++i)
        if (data[i] < 0x09 || (data[i] > 0x0d && data[i] < 0x20) || data[i] == 0x7f) return true;
    return false;
}

// a binary STL's size is 84 + 50 n, n the count at byte 80
static bool binary_stl_size_matches(const unsigned char* data, size_t size) {
    if (size < 84) return false;
    return 84 + 50 * stl_binary_count(data) == (uint64_t)size;
}

// OFF, COFF, NOFF, STOFF, CNOFF, 4OFF, nOFF, ...: letters of {ST, C, N, 4, n} then "OFF"
static bool is_off_keyword(const char* token, size_t length) {
    if (length < 3 || length > 9 || memcmp(token + length - 3, "OFF", 3) != 0) return false;
    for (size_t i = 0; i + 3 < length; ++i)
        if (!strchr("STCN4n", token[i])) return false;
    return true;
}

static osc_mesh_format detect_content(const unsigned char* data, size_t size) {
    const char* text = (const char*)data;
    if (size >= 3 && memcmp(data, "ply", 3) == 0 && (size == 3 || data[3] == '\n' || data[3] == '\r'))
        return OSC_MESH_FORMAT_PLY;
    text_cursor cursor = {text, size, 0, 1};
    const char* token;
    size_t length;
    if (text_token_any_line(&cursor, true, &token, &length) && is_off_keyword(token, length))
        return OSC_MESH_FORMAT_OFF;
    if (binary_stl_size_matches(data, size) || starts_with_word(text, size, "solid")) return OSC_MESH_FORMAT_STL;
    return OSC_MESH_FORMAT_OBJ;
}

// the format named by the extension of `path` (.obj .stl .off .ply, any case), else AUTO
static osc_mesh_format format_from_extension(const char* path) {
    const char* dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/') || strchr(dot, '\\')) return OSC_MESH_FORMAT_AUTO;
    size_t length = strlen(dot + 1);
    if (text_token_is(dot + 1, length, "obj", true)) return OSC_MESH_FORMAT_OBJ;
    if (text_token_is(dot + 1, length, "stl", true)) return OSC_MESH_FORMAT_STL;
    if (text_token_is(dot + 1, length, "off", true)) return OSC_MESH_FORMAT_OFF;
    if (text_token_is(dot + 1, length, "ply", true)) return OSC_MESH_FORMAT_PLY;
    return OSC_MESH_FORMAT_AUTO;
}

// ---------------------------------------------------------------------------------------------
// the loaders

osc_mesh_load_settings osc_mesh_load_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_mesh_load_settings){.format = OSC_MESH_FORMAT_AUTO,
                                    .weld_tolerance = 0.0,
                                    .degenerate = OSC_MESH_DEGENERATE_REJECT,
                                    .keep_unreferenced = 0,
                                    .max_coordinate = 1e12,
                                    .orient = 1};
}

static osc_status check_settings(const char* function, const osc_mesh_load_settings* settings) {
    if ((int)settings->format < OSC_MESH_FORMAT_AUTO || (int)settings->format > OSC_MESH_FORMAT_PLY)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->format %d is not a format", function,
                        (int)settings->format);
    if (!isfinite(settings->weld_tolerance))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->weld_tolerance is not finite (%g)", function,
                        settings->weld_tolerance);
    if (settings->degenerate != OSC_MESH_DEGENERATE_REJECT && settings->degenerate != OSC_MESH_DEGENERATE_DROP)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->degenerate %d is not a policy", function,
                        (int)settings->degenerate);
    if (!(settings->max_coordinate > 0.0 && settings->max_coordinate <= OSC_MESH_MAX_COORDINATE))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: settings->max_coordinate must be in (0, OSC_MESH_MAX_COORDINATE = %g] (got %g)", function,
                        OSC_MESH_MAX_COORDINATE, settings->max_coordinate);
    if (settings->orient != 0 && settings->orient != 1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->orient must be 0 or 1 (got %d)", function,
                        (int)settings->orient);
    return OSC_OK;
}

// parses `data` in a known format into the builder; sets builder->binary and its format name
static osc_status parse_format(osc_mesh_format format, const unsigned char* data, size_t size, mesh_builder* builder) {
    const char* text = (const char*)data;
    switch (format) {
        case OSC_MESH_FORMAT_OBJ: builder->format_name = "OBJ"; return mesh_parse_obj(text, size, builder);
        case OSC_MESH_FORMAT_OFF: builder->format_name = "OFF"; return mesh_parse_off(text, size, builder);
        case OSC_MESH_FORMAT_PLY: builder->format_name = "PLY"; return mesh_parse_ply(data, size, builder);
        case OSC_MESH_FORMAT_STL: break;
        case OSC_MESH_FORMAT_AUTO: return OSC_ERR_INVALID_ARGUMENT; // resolved by the caller
    }
    // STL: binary when the size fits the count; ASCII when it starts with "solid" and reads as
    // text (binary headers often start with "solid" too)
    bool solid = starts_with_word(text, size, "solid");
    if (binary_stl_size_matches(data, size) || (size >= 84 && (!solid || looks_binary(data, size)))) {
        builder->format_name = "binary STL";
        builder->binary = true;
        return mesh_parse_stl_binary(data, size, builder);
    }
    builder->format_name = "STL";
    if (solid) return mesh_parse_stl_ascii(text, size, builder);
    return load_error(builder, OSC_ERR_PARSE,
                      "STL: neither ASCII (no 'solid' keyword) nor binary (fewer than the 84 bytes "
                      "of a binary header)");
}

// the orientation of a loaded mesh into `report`; with settings->orient, *mesh is replaced by its
// oriented copy where a triangle needs turning (and released on failure)
static osc_status orient_loaded(const osc_mesh_load_settings* settings, osc_mesh** mesh, osc_mesh_orientation* report) {
    osc_status status = mesh_orientation_of(*mesh, report);
    if (status || !settings->orient || report->triangles_flipped == 0) {
        if (status) osc_mesh_destroy(*mesh);
        return status;
    }
    osc_mesh* oriented = NULL;
    status = mesh_orient_internal(*mesh, &oriented, NULL);
    osc_mesh_destroy(*mesh);
    *mesh = oriented;
    return status;
}

// parses and builds; on failure releases everything and names the function
static osc_status load_buffer(mesh_builder* builder, const unsigned char* data, size_t size,
                              const osc_mesh_load_settings* settings, osc_mesh** out, osc_mesh_load_report* report) {
    osc_mesh_format format = settings->format;
    osc_status status = OSC_OK;
    if (format == OSC_MESH_FORMAT_AUTO) {
        if (size == 0)
            status = load_error(builder, OSC_ERR_PARSE, "cannot detect the format of empty input");
        else
            format = detect_content(data, size);
    }
    if (!status) status = parse_format(format, data, size, builder);
    if (!status && settings->format == OSC_MESH_FORMAT_AUTO && format == OSC_MESH_FORMAT_OBJ &&
        builder->vertex_count == 0 && builder->faces_read == 0)
        status = load_error(builder, OSC_ERR_PARSE,
                            "cannot detect the format: no PLY, OFF or STL signature and no OBJ "
                            "v or f statement");
    osc_mesh_load_report local;
    memset(&local, 0, sizeof local);
    local.format = format;
    local.binary = builder->binary;
    if (!status) status = builder_finish(builder, settings, out, &local);
    builder_release(builder);
    if (!status) status = orient_loaded(settings, out, &local.orientation);
    if (status) {
        *out = NULL;
        return status == OSC_ERR_NO_MEMORY ? osc_fail_in(builder->function, status) : status;
    }
    if (report) *report = local;
    return OSC_OK;
}

osc_status osc_mesh_load_memory(const void* data, size_t size, const osc_mesh_load_settings* settings, osc_mesh** out,
                                osc_mesh_load_report* report) {
    static const char function[] = "osc_mesh_load_memory";
    if (report) memset(report, 0, sizeof *report);
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!data && size > 0) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: data is NULL with size %zu", function, size);
    osc_mesh_load_settings defaults = osc_mesh_load_settings_default();
    if (!settings) settings = &defaults;
    osc_status status = check_settings(function, settings);
    if (status) return status;
    mesh_builder builder;
    memset(&builder, 0, sizeof builder);
    builder.function = function;
    builder.max_coordinate = settings->max_coordinate;
    return load_buffer(&builder, data ? data : (const void*)"", size, settings, out, report);
}

osc_status osc_mesh_load(const char* path, const osc_mesh_load_settings* settings, osc_mesh** out,
                         osc_mesh_load_report* report) {
    static const char function[] = "osc_mesh_load";
    if (report) memset(report, 0, sizeof *report);
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!path) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: path is NULL", function);
    osc_mesh_load_settings chosen = settings ? *settings : osc_mesh_load_settings_default();
    osc_status status = check_settings(function, &chosen);
    if (status) return status;
    if (chosen.format == OSC_MESH_FORMAT_AUTO) chosen.format = format_from_extension(path);
    unsigned char* data = NULL;
    size_t size = 0;
    status = osc_read_file(function, path, &data, &size);
    if (status) return status;
    mesh_builder builder;
    memset(&builder, 0, sizeof builder);
    builder.function = function;
    builder.path = path;
    builder.max_coordinate = chosen.max_coordinate;
    status = load_buffer(&builder, data, size, &chosen, out, report);
    osc_free(data);
    return status;
}
