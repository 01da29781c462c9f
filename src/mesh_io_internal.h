// mesh_io_internal.h: what the mesh importers share: a builder that collects vertices and
// fan-triangulated faces with the place (line or byte offset) each came from, a text cursor that
// never reads past its buffer, number parsing, and the parsers of each format (mesh_io.c: common
// code, welding and the loaders; mesh_io_text.c: OBJ, OFF, STL; mesh_io_ply.c: PLY). Never
// installed.

#ifndef OSC_MESH_IO_INTERNAL_H
#define OSC_MESH_IO_INTERNAL_H

#include "base_internal.h"
#include "osculate/mesh.h"

#include <stdint.h>

// ---------------------------------------------------------------------------------------------
// the builder

typedef struct mesh_builder {
    double* vertices; // [vertex_count][3] as read
    size_t vertex_count, vertex_capacity;
    int32_t* triangles; // [triangle_count][3], indices into the vertices as read
    int64_t* origins;   // [triangle_count]: the line or byte offset of each triangle's face
    size_t triangle_count, triangle_capacity;
    int32_t* face; // scratch for the indices of one polygon
    size_t face_capacity;
    int64_t faces_read; // polygons as found in the input
    int32_t polygons_triangulated;
    double max_coordinate;   // |coordinate| above it is a parse error
    const char* function;    // the public function, for messages
    const char* path;        // the file, for messages (NULL for a buffer)
    const char* format_name; // "OBJ", "binary STL", ...
    bool binary;             // origins are byte offsets (else line numbers)
} mesh_builder;

/// Formats "function: 'path': format line N: message" (or "byte N") and returns OSC_ERR_PARSE.
osc_status mesh_parse_error(const mesh_builder* builder, int64_t origin, const char* format, ...) OSC_PRINTF(3, 4);

/// Makes room for `count` more vertices and `triangles` more triangles in one allocation each.
osc_status mesh_builder_reserve(mesh_builder* builder, size_t vertices, size_t triangles);

/// Appends a vertex; OSC_ERR_PARSE at `origin` for a NaN, infinite or too large coordinate.
osc_status mesh_builder_add_vertex(mesh_builder* builder, double x, double y, double z, int64_t origin);

/// Appends the polygon held in builder->face [count] (indices into the vertices as read), fan
/// triangulated; OSC_ERR_PARSE at `origin` for fewer than three vertices.
osc_status mesh_builder_add_face(mesh_builder* builder, size_t count, int64_t origin);

/// Makes builder->face hold at least `count` indices.
osc_status mesh_builder_reserve_face(mesh_builder* builder, size_t count);

// ---------------------------------------------------------------------------------------------
// text

/// A cursor over a text buffer; `line` counts from 1.
typedef struct text_cursor {
    const char* data;
    size_t size, position;
    int64_t line;
} text_cursor;

/// Skips spaces, tabs, carriage returns, vertical tabs and form feeds (not newlines).
void text_skip_blanks(text_cursor* cursor);

/// Moves past the next newline (or to the end).
void text_next_line(text_cursor* cursor);

/// Reads the next token of the current line into `token` / `length`; false at the end of the line
/// (a newline, the end of the buffer, or a '#' comment when `comments` is set).
bool text_token(text_cursor* cursor, bool comments, const char** token, size_t* length);

/// Reads the next token anywhere ahead, crossing newlines (counting them) and skipping '#'
/// comments when `comments` is set; false at the end of the buffer.
bool text_token_any_line(text_cursor* cursor, bool comments, const char** token, size_t* length);

/// True when the token equals `word` (case-sensitive, or ASCII case-insensitive when `fold`).
bool text_token_is(const char* token, size_t length, const char* word, bool fold);

/// Parses a decimal floating-point token ("nan" and "inf" included, as such); false when it is not
/// one. Correctly rounded.
bool text_parse_double(const char* token, size_t length, double* value);

/// Parses a decimal integer token with an optional sign; false when it is not one or its
/// magnitude exceeds 2^62.
bool text_parse_int(const char* token, size_t length, int64_t* value);

/// Formats a token for a message: at most 24 characters, non-printable bytes as '?'.
void text_quote(const char* token, size_t length, char quoted[32]);

/// The triangle count of a binary STL: the little-endian uint32 at byte 80 (`data` holds >= 84 bytes).
static inline uint64_t stl_binary_count(const unsigned char* data) {
    return (uint64_t)data[80] | (uint64_t)data[81] << 8 | (uint64_t)data[82] << 16 | (uint64_t)data[83] << 24;
}

// ---------------------------------------------------------------------------------------------
// parsers: each fills the builder or fails with OSC_ERR_PARSE (or OSC_ERR_NO_MEMORY)

osc_status mesh_parse_obj(const char* data, size_t size, mesh_builder* builder);
osc_status mesh_parse_off(const char* data, size_t size, mesh_builder* builder);
osc_status mesh_parse_stl_ascii(const char* data, size_t size, mesh_builder* builder);
osc_status mesh_parse_stl_binary(const unsigned char* data, size_t size, mesh_builder* builder);
osc_status mesh_parse_ply(const unsigned char* data, size_t size, mesh_builder* builder);

#endif // OSC_MESH_IO_INTERNAL_H
