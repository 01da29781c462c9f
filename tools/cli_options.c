// cli_options.c: the osculate program's command line, parsed without doing any work (cli_options.h).
// Every value is checked here: numbers finite and in range, poses of seven numbers with a
// quaternion that can be normalised, known options and the right number of paths. A bad command
// line is CLI_BAD with a one-line reason that starts with the option it is about.

#include "cli_options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const cli_shape cli_shapes[] = {
    {"sphere", 1}, {"box", 4},       {"capsule", 2},   {"cylinder", 2},     {"cone", 3},
    {"torus", 2},  {"halfspace", 4}, {"ellipsoid", 3}, {"superquadric", 5},
};
const int cli_shape_count = (int)(sizeof cli_shapes / sizeof cli_shapes[0]);

const char* const cli_length_options[5] = {"--d-max", "--bandwidth", "--trace-temperature", "--clip-temperature",
                                           "--blend-temperature"};

static const struct {
    const char* name;
    cli_command command;
} commands[] = {{"version", CLI_VERSION}, {"info", CLI_INFO},       {"eval", CLI_EVAL},
                {"bake", CLI_BAKE},       {"contact", CLI_CONTACT}, {"box-sweep", CLI_BOX_SWEEP}};

// the parser's state: the arguments, the position, the message buffer
typedef struct parser {
    int argc;
    char** argv;
    int index; // the argument being read
    char* message;
    size_t size;
} parser;

// formats the reason into the message buffer and returns CLI_BAD
#if defined(__GNUC__) || defined(__clang__)
static cli_outcome bad(parser* p, const char* format, ...) __attribute__((format(printf, 2, 3)));
#endif
static cli_outcome bad(parser* p, const char* format, ...) {
    va_list args;
    va_start(args, format);
    if (p->size > 0) vsnprintf(p->message, p->size, format, args);
    va_end(args);
    return CLI_BAD;
}

static int is_help(const char* arg) { return !strcmp(arg, "--help") || !strcmp(arg, "-h"); }

// an argument that looks like an option ("-x", "--x"; "-" alone is a path)
static int is_option(const char* arg) { return arg[0] == '-' && arg[1] != '\0'; }

// the value of the option at p->index (advancing to it); NULL with the message set when missing
static const char* option_value(parser* p) {
    if (p->index + 1 >= p->argc) {
        bad(p, "%.60s needs a value", p->argv[p->index]);
        return NULL;
    }
    return p->argv[++p->index];
}

// ---------------------------------------------------------------------------------------------
// values

// a finite number: 1, else 0 with the message set
static int parse_finite(parser* p, const char* option, const char* text, double* out) {
    char* end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(value)) {
        bad(p, "%s '%.60s' is not a finite number", option, text);
        return 0;
    }
    *out = value;
    return 1;
}

// a finite number >= minimum
static int parse_real(parser* p, const char* option, double minimum, double* out) {
    const char* text = option_value(p);
    double value;
    if (!text || !parse_finite(p, option, text, &value)) return 0;
    if (!(value >= minimum)) {
        bad(p, "%s is %g (must be >= %g)", option, value, minimum);
        return 0;
    }
    *out = value;
    return 1;
}

// an integer in [minimum, maximum]
static int parse_int(parser* p, const char* option, long minimum, long maximum, int* out) {
    const char* text = option_value(p);
    if (!text) return 0;
    char* end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0') {
        bad(p, "%s '%.60s' is not an integer", option, text);
        return 0;
    }
    if (errno == ERANGE || value < minimum || value > maximum) {
        bad(p, "%s is %.60s (must be in %ld..%ld)", option, text, minimum, maximum);
        return 0;
    }
    *out = (int)value;
    return 1;
}

// "px py pz qw qx qy qz" (blanks or commas between): a world-from-body pose, quaternion scalar first
static int parse_pose(parser* p, const char* option, osc_pose* out) {
    const char* text = option_value(p);
    if (!text) return 0;
    double v[7];
    int count = 0;
    for (const char* s = text;;) {
        while (*s == ' ' || *s == ',' || *s == '\t') ++s;
        if (!*s) break;
        char* end = NULL;
        double value = strtod(s, &end);
        if (end == s || !isfinite(value) || count == 7) {
            bad(p, "%s \"%.80s\" is not 7 finite numbers \"px py pz qw qx qy qz\"", option, text);
            return 0;
        }
        v[count++] = value;
        s = end;
    }
    if (count != 7) {
        bad(p, "%s \"%.80s\" has %d numbers, not 7 (px py pz qw qx qy qz)", option, text, count);
        return 0;
    }
    osc_quat q = {v[3], v[4], v[5], v[6]};
    if (!osc_quat_is_normalizable(q)) {
        bad(p, "%s: the quaternion (%g, %g, %g, %g) cannot be normalised", option, q.w, q.x, q.y, q.z);
        return 0;
    }
    out->p = osc_v3(v[0], v[1], v[2]);
    out->q = osc_quat_normalize(q);
    return 1;
}

// "drop" or "refuse"
static int parse_degenerate(parser* p, osc_mesh_degenerate_policy* out) {
    const char* text = option_value(p);
    if (!text) return 0;
    if (!strcmp(text, "drop"))
        *out = OSC_MESH_DEGENERATE_DROP;
    else if (!strcmp(text, "refuse"))
        *out = OSC_MESH_DEGENERATE_REJECT;
    else {
        bad(p, "--degenerate '%.60s' is neither drop nor refuse", text);
        return 0;
    }
    return 1;
}

// the model options shared by bake and contact; 1: consumed, 0: a bad value, -1: not one of them
static int parse_model_option(parser* p, const char* arg, cli_model_options* models) {
    if (!strcmp(arg, "--resolution")) return parse_int(p, arg, 4, 1024, &models->resolution);
    if (!strcmp(arg, "--degenerate")) return parse_degenerate(p, &models->degenerate);
    if (!strcmp(arg, "--keep-stray")) return models->keep_stray = 1;
    return -1;
}

static cli_model_options default_models(void) {
    cli_model_options models;
    models.resolution = osc_grid_settings_default().resolution;
    models.mesh_resolution = osc_collision_mesh_settings_default().resolution;
    models.triangles = (int)osc_collision_mesh_settings_default().target_triangles;
    models.groups = 0;
    models.degenerate = OSC_MESH_DEGENERATE_REJECT;
    models.keep_stray = 0;
    return models;
}

// ---------------------------------------------------------------------------------------------
// the commands

// version and info take nothing
static cli_outcome parse_bare(parser* p) {
    for (p->index = 2; p->index < p->argc; ++p->index) {
        if (is_help(p->argv[p->index])) return CLI_HELP;
        return bad(p, "takes no arguments, not '%.60s'", p->argv[p->index]);
    }
    return CLI_RUN;
}

// eval SHAPE PARAMETERS... X Y Z (numbers may be negative: only --help is an option)
static cli_outcome parse_eval(parser* p, cli_eval_options* o) {
    for (int i = 2; i < p->argc; ++i)
        if (is_help(p->argv[i])) return CLI_HELP;
    if (p->argc < 3) return bad(p, "needs a shape");
    o->shape = -1;
    for (int s = 0; s < cli_shape_count; ++s)
        if (!strcmp(p->argv[2], cli_shapes[s].name)) o->shape = s;
    if (o->shape < 0) return bad(p, "unknown shape '%.60s'", p->argv[2]);
    const cli_shape* shape = &cli_shapes[o->shape];
    if (p->argc != 3 + shape->parameters + 3)
        return bad(p, "%s takes %d parameters and a point (x y z)", shape->name, shape->parameters);
    for (int i = 0; i < shape->parameters + 3; ++i)
        if (!parse_finite(p, "eval:", p->argv[3 + i], &o->values[i])) return CLI_BAD;
    return CLI_RUN;
}

// bake MESH OUT [--resolution N] [--degenerate drop|refuse] [--keep-stray]
static cli_outcome parse_bake(parser* p, cli_bake_options* o) {
    int count = 0, options_end = 0;
    o->models = default_models();
    for (p->index = 2; p->index < p->argc; ++p->index) {
        const char* arg = p->argv[p->index];
        if (!options_end && is_help(arg)) return CLI_HELP;
        if (!options_end && !strcmp(arg, "--")) {
            options_end = 1;
        } else if (!options_end && is_option(arg)) {
            int parsed = parse_model_option(p, arg, &o->models);
            if (parsed < 0) return bad(p, "unknown option '%.60s'", arg);
            if (!parsed) return CLI_BAD;
        } else if (count < 2) {
            *(count++ ? &o->out : &o->mesh) = arg;
        } else {
            return bad(p, "one mesh and one output path, not '%.60s' too", arg);
        }
    }
    if (count != 2) return bad(p, "needs a mesh and an output path");
    return CLI_RUN;
}

// the flags of contact; 1: consumed, -1: not one of them
static int parse_contact_flag(const char* arg, cli_contact_options* o) {
    osc_manifold_settings* s = &o->settings;
    if (!strcmp(arg, "--blend-saturated")) return s->blend_saturated = 1;
    if (!strcmp(arg, "--no-blend")) return (s->blend = 0), 1;
    if (!strcmp(arg, "--no-edges")) return (s->edges = 0), 1;
    if (!strcmp(arg, "--no-broad-phase")) return (s->broad_phase = 0), 1;
    if (!strcmp(arg, "--derivatives")) return o->derivatives = 1;
    return -1;
}

// the options of contact that take a value; 1: consumed, 0: a bad value, -1: not one of them
static int parse_contact_value(parser* p, const char* arg, cli_contact_options* o) {
    for (int k = 0; k < 5; ++k)
        if (!strcmp(arg, cli_length_options[k])) return parse_real(p, arg, 0.0, &o->lengths[k]);
    if (!strcmp(arg, "--pose-a") || !strcmp(arg, "--pose-b")) return parse_pose(p, arg, &o->poses[arg[7] == 'b']);
    if (!strcmp(arg, "--mesh-resolution")) return parse_int(p, arg, 4, 1024, &o->models.mesh_resolution);
    if (!strcmp(arg, "--triangles")) return parse_int(p, arg, 0, 100000000, &o->models.triangles);
    if (!strcmp(arg, "--groups")) return parse_int(p, arg, 0, 1000000, &o->models.groups);
    if (!strcmp(arg, "--iterations")) return parse_int(p, arg, 0, 64, &o->settings.iterations);
    if (!strcmp(arg, "--scale")) {
        if (!parse_real(p, arg, 0.0, &o->scale)) return 0;
        if (!(o->scale > 0.0)) return bad(p, "--scale must be > 0"), 0;
        return 1;
    }
    const char** outputs[4] = {&o->json_path, &o->ply_path, &o->obj_path, &o->scene_path};
    static const char* const output_names[4] = {"--json", "--points", "--obj", "--scene"};
    for (int k = 0; k < 4; ++k)
        if (!strcmp(arg, output_names[k])) return (*outputs[k] = option_value(p)) != NULL;
    return parse_model_option(p, arg, &o->models);
}

static void default_contact(cli_contact_options* o) {
    memset(o, 0, sizeof *o);
    o->poses[0] = o->poses[1] = osc_pose_identity();
    o->models = default_models();
    o->settings = osc_manifold_settings_default();
    for (int k = 0; k < 5; ++k) o->lengths[k] = NAN;
}

// contact A B [options]
static cli_outcome parse_contact(parser* p, cli_contact_options* o) {
    int positional = 0, options_end = 0;
    default_contact(o);
    for (p->index = 2; p->index < p->argc; ++p->index) {
        const char* arg = p->argv[p->index];
        if (!options_end && is_help(arg)) return CLI_HELP;
        if (!options_end && !strcmp(arg, "--")) {
            options_end = 1;
        } else if (!options_end && is_option(arg)) {
            int parsed = parse_contact_flag(arg, o);
            if (parsed < 0) parsed = parse_contact_value(p, arg, o);
            if (parsed < 0) return bad(p, "unknown option '%.60s'", arg);
            if (!parsed) return CLI_BAD;
        } else if (positional < 2) {
            o->paths[positional++] = arg;
        } else {
            return bad(p, "two models, not '%.60s' too", arg);
        }
    }
    if (positional != 2) return bad(p, "needs two models A and B");
    return CLI_RUN;
}

// box-sweep OUT.csv [--hard] [--no-blend]
static cli_outcome parse_box_sweep(parser* p, cli_box_sweep_options* o) {
    o->path = NULL;
    o->hard = 0;
    o->blend = 1;
    for (p->index = 2; p->index < p->argc; ++p->index) {
        const char* arg = p->argv[p->index];
        if (is_help(arg)) return CLI_HELP;
        if (!strcmp(arg, "--hard"))
            o->hard = 1;
        else if (!strcmp(arg, "--no-blend"))
            o->blend = 0;
        else if (is_option(arg))
            return bad(p, "unknown option '%.60s'", arg);
        else if (!o->path)
            o->path = arg;
        else
            return bad(p, "one output path, not '%.60s' too", arg);
    }
    if (!o->path) return bad(p, "needs an output path");
    return CLI_RUN;
}

cli_outcome cli_parse(int argc, char** argv, cli_options* out, char* message, size_t size) {
    parser p = {argc, argv, 1, message, size};
    memset(out, 0, sizeof *out);
    if (size > 0) message[0] = '\0';
    if (argc < 2 || !argv) return bad(&p, "needs a command");
    const char* name = argv[1];
    if (is_help(name) || !strcmp(name, "help")) {
        if (argc > 2)
            for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c)
                if (!strcmp(argv[2], commands[c].name)) out->command = commands[c].command;
        return CLI_HELP;
    }
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c)
        if (!strcmp(name, commands[c].name)) out->command = commands[c].command;
    switch (out->command) {
        case CLI_VERSION:
        case CLI_INFO: return parse_bare(&p);
        case CLI_EVAL: return parse_eval(&p, &out->eval);
        case CLI_BAKE: return parse_bake(&p, &out->bake);
        case CLI_CONTACT: return parse_contact(&p, &out->contact);
        case CLI_BOX_SWEEP: return parse_box_sweep(&p, &out->box_sweep);
        case CLI_NONE: break;
    }
    return bad(&p, "unknown command '%.60s'", name);
}

// ---------------------------------------------------------------------------------------------
// help

static void print_general(FILE* f) {
    fprintf(f, "usage: osculate COMMAND [ARGUMENTS]   (osculate COMMAND --help: its options)\n"
               "  version                                    the library's version\n"
               "  info                                       version and default threads (JSON)\n"
               "  eval SHAPE PARAMETERS... X Y Z             value, gradient, Hessian of a primitive (JSON)\n"
               "  bake MESH OUT [options]                    spline SDF of a mesh, saved\n"
               "  contact A B [options]                      contact manifold of two models (JSON)\n"
               "  box-sweep OUT.csv [--hard] [--no-blend]    diagnostic: the data of Beker et al. 2026 Fig. 10\n"
               "shapes:");
    for (int s = 0; s < cli_shape_count; ++s) fprintf(f, " %s(%d)", cli_shapes[s].name, cli_shapes[s].parameters);
    fprintf(f, "\n");
}

static void print_model_options(FILE* f) {
    fprintf(f,
            "  --resolution N          spline cells along the longest axis of a mesh (default %d)\n"
            "  --degenerate refuse|drop  faces whose corners coincide (after welding exact duplicates),\n"
            "                          such as zero-area STL facets: an error (default) or dropped and counted\n"
            "  --keep-stray            keep sliver triangles that reach far beyond the rest of the model\n"
            "                          (by default they are dropped and counted: they would stretch the spline's\n"
            "                          region, coarsening it, and bound no volume)\n",
            osc_grid_settings_default().resolution);
}

static void print_contact(FILE* f) {
    osc_manifold_settings s = osc_manifold_settings_default();
    osc_collision_mesh_settings m = osc_collision_mesh_settings_default();
    fprintf(f, "usage: osculate contact A B [options]\n"
               "A, B: a mesh file (.obj .stl .off .ply) or a spline SDF saved by `osculate bake`; the same file\n"
               "twice is built once. Prints JSON (settings, bodies, contacts, summary) on stdout, or to --json FILE\n"
               "with a short summary on stdout.\n"
               "models:\n");
    print_model_options(f);
    fprintf(f,
            "  --mesh-resolution N     marching-cubes cells of the collision mesh (default %d)\n"
            "  --triangles N           collision-mesh triangle target, 0: no simplification (default %d)\n"
            "  --groups N              convex groups per body by clustering, 0: none (default 0)\n"
            "query:\n"
            "  --pose-a \"px py pz qw qx qy qz\"   world-from-body pose of A (default identity)\n"
            "  --pose-b \"px py pz qw qx qy qz\"   world-from-body pose of B (default identity)\n"
            "  --scale S               length unit of the default lengths and temperatures below (default:\n"
            "                          the size of the smaller body: the longest side of its collision mesh's\n"
            "                          bounds, without parts that hold under 1%% of its area)\n"
            "  --d-max D               contacts saturate at this depth (default %g S)\n"
            "  --bandwidth E           width of the transition below d_max (default %g S)\n"
            "  --trace-temperature T   sphere-tracing temperature (default %g S)\n"
            "  --clip-temperature T    soft-clip temperature (default %g S)\n"
            "  --blend-temperature T   softmax temperature within a group (default %g S)\n"
            "  --iterations N          sphere-tracing steps per edge corner (default %d)\n"
            "  --no-blend              report every vertex and edge contact even with --groups\n"
            "  --blend-saturated       blend as Beker et al. 2026 does verbatim: features beyond d_max in the softmax\n"
            "  --no-edges              vertex contacts only\n"
            "  --no-broad-phase        run the narrow phase on every feature (same result, slower)\n"
            "output:\n"
            "  --derivatives           add the pose Jacobians (12 columns: A's twist, then B's)\n"
            "  --json FILE             write the JSON there (default stdout)\n"
            "  --points FILE.ply       the contact points as a PLY point set (normals, depth, weight)\n"
            "  --obj FILE.obj          the contact points as OBJ vertices\n"
            "  --scene FILE.obj        both collision meshes at their poses (objects a and b)\n"
            "A temperature (or bandwidth) of 0 selects the hard operator. No output may be an input file.\n",
            m.resolution, (int)m.target_triangles, s.d_max, s.bandwidth, s.trace_temperature, s.clip_temperature,
            s.blend_temperature, s.iterations);
}

void cli_print_help(FILE* f, cli_command command) {
    switch (command) {
        case CLI_NONE: print_general(f); break;
        case CLI_VERSION: fprintf(f, "usage: osculate version\nprints the library's version\n"); break;
        case CLI_INFO:
            fprintf(f, "usage: osculate info\nprints the version and the default thread count (JSON)\n");
            break;
        case CLI_EVAL:
            fprintf(f, "usage: osculate eval SHAPE PARAMETERS... X Y Z\n"
                       "prints the value, gradient, Hessian and Lipschitz bound of a primitive at a point (JSON)\n"
                       "shapes: sphere r | box hx hy hz rounding | capsule r half_length | cylinder r half_length |\n"
                       "  cone r_bottom r_top half_length | torus major minor | halfspace nx ny nz offset |\n"
                       "  ellipsoid rx ry rz | superquadric ax ay az eps1 eps2\n");
            break;
        case CLI_BAKE:
            fprintf(f,
                    "usage: osculate bake MESH OUT [options]\n"
                    "bakes the spline SDF of a mesh file (.obj .stl .off .ply) and saves it to OUT (not MESH itself);\n"
                    "prints what was read (JSON: the import, its orientation and closedness, the spline)\n");
            print_model_options(f);
            break;
        case CLI_CONTACT: print_contact(f); break;
        case CLI_BOX_SWEEP:
            fprintf(f, "usage: osculate box-sweep OUT.csv [--hard] [--no-blend]\n"
                       "writes the data of Beker et al. 2026 Fig. 10: two stacked boxes, the upper one tilted (CSV)\n");
            break;
    }
}
