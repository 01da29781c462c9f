// mesh_io.c: being written in this session.
#include "base_internal.h"
typedef int osc_placeholder_mesh_io;
