// cli_options.h: the command line of the osculate program, parsed into plain structs without doing
// any work, printing or exiting (tools/osculate.c runs the commands; tests/fuzz/fuzz_cli.c fuzzes
// the parser).

#ifndef OSC_CLI_OPTIONS_H
#define OSC_CLI_OPTIONS_H

#include "osculate/osculate.h"

#include <stddef.h>
#include <stdio.h>

/// The commands.
typedef enum cli_command {
    CLI_NONE = 0, ///< no command (or `help` without one): the general usage
    CLI_VERSION,
    CLI_INFO,
    CLI_EVAL,
    CLI_BAKE,
    CLI_CONTACT,
    CLI_BOX_SWEEP
} cli_command;

/// What cli_parse found.
typedef enum cli_outcome {
    CLI_RUN = 0,  ///< options parsed: run the command
    CLI_HELP = 1, ///< help asked for (`--help`, `-h`, `help [COMMAND]`): print it, exit 0
    CLI_BAD = 2   ///< a bad command line: print the message and the usage, exit 2
} cli_outcome;

/// The shapes of `eval` (the constructors of sdf.h) and their parameter counts.
typedef struct cli_shape {
    const char* name;
    int parameters;
} cli_shape;

extern const cli_shape cli_shapes[];
extern const int cli_shape_count;

/// How a mesh file is read and turned into a body.
typedef struct cli_model_options {
    int resolution;                        ///< spline cells along the longest axis
    int mesh_resolution;                   ///< marching-cubes cells of the collision mesh
    int triangles;                         ///< collision-mesh triangle target (0: no simplification)
    int groups;                            ///< convex groups per body by clustering (0: none)
    osc_mesh_degenerate_policy degenerate; ///< faces whose corners coincide: refuse or drop
    int keep_stray;                        ///< 1: keep sliver triangles that reach far beyond the model
} cli_model_options;

typedef struct cli_eval_options {
    int shape;        ///< index into cli_shapes
    double values[8]; ///< the shape's parameters, then the point
} cli_eval_options;

typedef struct cli_bake_options {
    const char* mesh;
    const char* out;
    cli_model_options models; ///< resolution, degenerate and keep_stray apply
} cli_bake_options;

typedef struct cli_contact_options {
    const char* paths[2];
    osc_pose poses[2];
    cli_model_options models;
    double scale;      ///< <= 0: from the bodies
    double lengths[5]; ///< d_max, bandwidth, trace, clip, blend temperature; NAN: not given
    osc_manifold_settings settings;
    int derivatives;
    const char* json_path;
    const char* ply_path;
    const char* obj_path;
    const char* scene_path;
} cli_contact_options;

typedef struct cli_box_sweep_options {
    const char* path;
    int hard, blend;
} cli_box_sweep_options;

/// A parsed command line; only the command's own options are set.
typedef struct cli_options {
    cli_command command;
    cli_eval_options eval;
    cli_bake_options bake;
    cli_contact_options contact;
    cli_box_sweep_options box_sweep;
} cli_options;

/// The names of the five length options of `contact`, in cli_contact_options.lengths order.
extern const char* const cli_length_options[5];

/// Parses argv[1..argc) into `out` (the pointers in it point into argv). CLI_RUN, CLI_HELP (with
/// out->command the command whose help was asked for, CLI_NONE for the general one) or CLI_BAD with
/// a one-line reason in `message` [size] (out->command then says which usage to show). Does no I/O.
cli_outcome cli_parse(int argc, char** argv, cli_options* out, char* message, size_t size);

/// Prints the help of `command` (CLI_NONE: the general usage) to `stream`.
void cli_print_help(FILE* stream, cli_command command);

#endif // OSC_CLI_OPTIONS_H
