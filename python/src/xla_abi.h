// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// xla_abi.h: the part of the XLA FFI C ABI (API version 0.1, as jaxlib >= 0.4.34 ships it under
// jax.ffi.include_dir(), xla/ffi/api/c_api.h) that osculate's custom-call handlers use, declared
// here under osculate's own names so that building the Python package needs no jaxlib. Only the
// layouts are fixed by XLA: every struct starts with its size, newer minor versions only append
// fields (jaxlib 0.10 has API 0.3 and runs handlers built for 0.1), and
// python/tests/test_jax_ffi.py compiles a check of each field offset, and that each struct here
// is a prefix of XLA's, against the header of the installed jaxlib.
// A handler is a plain C function oscx_handler; XLA calls it once with a metadata extension to
// learn the API version it was built for, then once per execution.

#ifndef OSCULATE_PY_XLA_ABI_H
#define OSCULATE_PY_XLA_ABI_H

#include <stddef.h>
#include <stdint.h>

#define OSCX_API_MAJOR 0
#define OSCX_API_MINOR 1

typedef enum oscx_extension_type { OSCX_EXTENSION_METADATA = 1 } oscx_extension_type;

typedef struct oscx_extension {
    size_t struct_size;
    oscx_extension_type type;
    struct oscx_extension* next;
} oscx_extension;

typedef struct oscx_api_version {
    size_t struct_size;
    oscx_extension* extension_start;
    int major_version;
    int minor_version;
} oscx_api_version;

typedef struct oscx_metadata {
    size_t struct_size;
    oscx_api_version api_version;
    uint32_t traits;
} oscx_metadata;

typedef struct oscx_metadata_extension {
    oscx_extension extension_base;
    oscx_metadata* metadata;
} oscx_metadata_extension;

typedef struct oscx_error oscx_error; // opaque, made by the API's error_create

/// The error codes of absl::Status that the handlers use.
typedef enum oscx_error_code {
    OSCX_ERROR_INVALID_ARGUMENT = 3,
    OSCX_ERROR_RESOURCE_EXHAUSTED = 8,
    OSCX_ERROR_INTERNAL = 13
} oscx_error_code;

typedef struct oscx_error_create_args {
    size_t struct_size;
    oscx_extension* extension_start;
    const char* message; // copied by XLA
    oscx_error_code errc;
} oscx_error_create_args;

/// Element types of buffers and attributes (the ones the handlers accept or check for).
typedef enum oscx_dtype {
    OSCX_PRED = 1,
    OSCX_S32 = 4,
    OSCX_S64 = 5,
    OSCX_U8 = 6,
    OSCX_U64 = 9,
    OSCX_F32 = 11,
    OSCX_F64 = 12
} oscx_dtype;

typedef struct oscx_buffer {
    size_t struct_size;
    oscx_extension* extension_start;
    oscx_dtype dtype;
    void* data;
    int64_t rank;
    int64_t* dims;
} oscx_buffer;

typedef enum oscx_attr_type { OSCX_ATTR_ARRAY = 1, OSCX_ATTR_DICTIONARY = 2, OSCX_ATTR_SCALAR = 3 } oscx_attr_type;

typedef struct oscx_byte_span {
    const char* ptr;
    size_t len;
} oscx_byte_span;

typedef struct oscx_scalar {
    oscx_dtype dtype;
    void* value;
} oscx_scalar;

typedef struct oscx_array {
    oscx_dtype dtype;
    size_t size;
    void* data;
} oscx_array;

typedef enum oscx_stage { OSCX_STAGE_EXECUTE = 3 } oscx_stage;

typedef struct oscx_args {
    size_t struct_size;
    oscx_extension* extension_start;
    int64_t size;
    int* types;  // all buffers
    void** args; // oscx_buffer*
} oscx_args;

typedef struct oscx_rets {
    size_t struct_size;
    oscx_extension* extension_start;
    int64_t size;
    int* types;
    void** rets; // oscx_buffer*
} oscx_rets;

typedef struct oscx_attrs {
    size_t struct_size;
    oscx_extension* extension_start;
    int64_t size;
    oscx_attr_type* types;
    oscx_byte_span** names;
    void** attrs; // oscx_scalar* or oscx_array*
} oscx_attrs;

typedef struct oscx_call_frame oscx_call_frame;
typedef oscx_error* oscx_error_create_fn(oscx_error_create_args* args);

/// The start of XLA's function table: the handlers call error_create only.
typedef struct oscx_api {
    size_t struct_size;
    oscx_extension* extension_start;
    oscx_api_version api_version;
    void* internal_api;
    oscx_error_create_fn* error_create;
} oscx_api;

struct oscx_call_frame {
    size_t struct_size;
    oscx_extension* extension_start; // an oscx_metadata_extension on the metadata call
    const oscx_api* api;
    void* ctx;
    int stage; // an oscx_stage; handlers registered alone run at OSCX_STAGE_EXECUTE
    oscx_args args;
    oscx_rets rets;
    oscx_attrs attrs;
};

/// A custom-call handler: returns NULL on success or an error made by api->error_create.
typedef oscx_error* oscx_handler(oscx_call_frame* frame);

#endif // OSCULATE_PY_XLA_ABI_H
