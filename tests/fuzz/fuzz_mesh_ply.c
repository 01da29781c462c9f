// fuzz_mesh_ply.c: libFuzzer target of the PLY importer (osc_mesh_load_memory with the format
// forced); see fuzz_mesh.h for the checks and tests/fuzz_mesh.sh for how it is built and run.

#include "fuzz_mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_mesh_one(data, size, OSC_MESH_FORMAT_PLY); }
