// cli_models.h: how the osculate program reads a mesh file for baking (the import with its report,
// stray slivers), the size it scales its defaults by, and what it says about them.

#ifndef OSC_CLI_MODELS_H
#define OSC_CLI_MODELS_H

#include "cli_options.h"

/// What reading a mesh file did.
typedef struct cli_import {
    osc_mesh_load_report report; ///< the importer's (the orientation of the mesh as read)
    osc_mesh_orientation baked;  ///< the orientation of the mesh that is baked (strays dropped)
    int32_t stray_triangles;     ///< sliver triangles dropped for reaching far beyond the model
    double stray_reach;          ///< how far the farthest of them reached beyond the model's bounds
    int32_t vertices, triangles; ///< of the mesh that is baked
} cli_import;

/// Loads the mesh file at `path` (oriented, degenerate faces per `models`), drops its stray
/// slivers unless models->keep_stray, and describes it in `import`. The library's status on failure.
osc_status cli_load_mesh(const char* path, const cli_model_options* models, osc_mesh** out, cli_import* import);

/// Bakes the spline SDF of `mesh` with `resolution` cells along the longest axis.
osc_status cli_bake_mesh(const osc_mesh* mesh, int resolution, osc_grid** out);

/// The size of a model: the longest side of the bounds of its mesh's connected parts that hold at
/// least 1% of its area (a speck far away does not count); 0 for a mesh without area.
double cli_model_size(const osc_mesh* mesh);

/// Writes the import as a JSON object.
void cli_json_import(FILE* f, const cli_import* import);

/// Prints one line per remark about the import (what was fixed, dropped or cannot be trusted) to
/// `f`, each starting with `prefix`; returns how many.
int cli_print_import_remarks(FILE* f, const char* prefix, const cli_import* import);

/// 1 when both paths name the same existing file (the same device and inode, however spelled:
/// links included); 0 otherwise.
int cli_same_file(const char* a, const char* b);

/// 1 when `path` is a regular file that starts with the magic of osc_grid_save.
int cli_is_grid_file(const char* path);

#endif // OSC_CLI_MODELS_H
