// fuzz_cli.c: libFuzzer target of the osculate program's option parsing (tools/cli_options.c,
// cli_parse); built and run by tests/fuzz_mesh.sh (target `cli`). The input is split at NUL bytes
// and newlines into at most 48 arguments after the program's name; cli_parse must do no work and
// no I/O. Beyond the sanitizers it aborts when an outcome breaks the contract: an outcome that is
// not one of the three, a refusal without a reason (or one that overruns its buffer), or parsed
// options out of their documented ranges: an unknown shape or a non-finite eval value, a missing
// path, a resolution outside [4, 1024], an iteration count outside [0, 64], a negative or
// non-finite length, a scale that is not positive where given, a pose that is not finite or whose
// quaternion is not unit length.

#include "cli_options.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_REQUIRE(condition)                                                                                        \
    do {                                                                                                               \
        if (!(condition)) abort();                                                                                     \
    } while (0)

enum { MOST_ARGUMENTS = 48 };

static void check_models(const cli_model_options* m) {
    FUZZ_REQUIRE(m->resolution >= 4 && m->resolution <= 1024);
    FUZZ_REQUIRE(m->mesh_resolution >= 4 && m->mesh_resolution <= 1024);
    FUZZ_REQUIRE(m->triangles >= 0 && m->groups >= 0);
    FUZZ_REQUIRE(m->degenerate == OSC_MESH_DEGENERATE_REJECT || m->degenerate == OSC_MESH_DEGENERATE_DROP);
    FUZZ_REQUIRE(m->keep_stray == 0 || m->keep_stray == 1);
}

static void check_pose(osc_pose pose) {
    FUZZ_REQUIRE(isfinite(pose.p.x) && isfinite(pose.p.y) && isfinite(pose.p.z));
    double norm = sqrt(pose.q.w * pose.q.w + pose.q.x * pose.q.x + pose.q.y * pose.q.y + pose.q.z * pose.q.z);
    FUZZ_REQUIRE(fabs(norm - 1.0) < 1e-12);
}

static void check_contact(const cli_contact_options* o) {
    FUZZ_REQUIRE(o->paths[0] && o->paths[1]);
    check_models(&o->models);
    check_pose(o->poses[0]);
    check_pose(o->poses[1]);
    FUZZ_REQUIRE(o->scale == 0.0 || (o->scale > 0.0 && isfinite(o->scale)));
    for (int k = 0; k < 5; ++k) FUZZ_REQUIRE(isnan(o->lengths[k]) || (o->lengths[k] >= 0.0 && isfinite(o->lengths[k])));
    FUZZ_REQUIRE(o->settings.iterations >= 0 && o->settings.iterations <= 64);
}

static void check_parsed(const cli_options* o) {
    switch (o->command) {
        case CLI_EVAL:
            FUZZ_REQUIRE(o->eval.shape >= 0 && o->eval.shape < cli_shape_count);
            for (int i = 0; i < cli_shapes[o->eval.shape].parameters + 3; ++i)
                FUZZ_REQUIRE(isfinite(o->eval.values[i]));
            break;
        case CLI_BAKE:
            FUZZ_REQUIRE(o->bake.mesh && o->bake.out);
            check_models(&o->bake.models);
            break;
        case CLI_CONTACT: check_contact(&o->contact); break;
        case CLI_BOX_SWEEP: FUZZ_REQUIRE(o->box_sweep.path != NULL); break;
        case CLI_VERSION:
        case CLI_INFO: break;
        case CLI_NONE: FUZZ_REQUIRE(0); // a command line that runs names a command
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // a NUL-terminated copy, split in place at NUL bytes and newlines
    char* text = malloc(size + 1);
    FUZZ_REQUIRE(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    char* argv[MOST_ARGUMENTS + 2] = {"osculate"};
    int argc = 1;
    for (size_t i = 0, start = 0; i <= size && argc <= MOST_ARGUMENTS; ++i)
        if (text[i] == '\0' || text[i] == '\n') {
            text[i] = '\0';
            argv[argc++] = text + start;
            start = i + 1;
        }
    argv[argc] = NULL;
    char message[256];
    memset(message, 'x', sizeof message);
    cli_options options;
    cli_outcome outcome = cli_parse(argc, argv, &options, message, sizeof message);
    FUZZ_REQUIRE(outcome == CLI_RUN || outcome == CLI_HELP || outcome == CLI_BAD);
    if (outcome == CLI_BAD) FUZZ_REQUIRE(memchr(message, '\0', sizeof message) != NULL && message[0] != '\0');
    if (outcome == CLI_RUN) check_parsed(&options);
    if (outcome != CLI_RUN) FUZZ_REQUIRE(options.command >= CLI_NONE && options.command <= CLI_BOX_SWEEP);
    free(text);
    return 0;
}
