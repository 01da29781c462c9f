// osculate: the command-line program. It grows with the library; today it reports the build and
// evaluates any analytic primitive with its derivatives.
//
//   osculate version
//   osculate info
//   osculate eval <shape> <parameters...> <x> <y> <z>     (prints JSON: value, gradient, hessian)
//
// Shapes and parameters (the constructors of sdf.h):
//   sphere r | box hx hy hz rounding | capsule r half_length | cylinder r half_height
//   cone r_bottom r_top half_height | torus major minor | halfspace nx ny nz offset
//   ellipsoid rx ry rz | superquadric ax ay az eps1 eps2

#include "osculate/osculate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape_entry {
    const char* name;
    int parameters;
} shape_entry;

static const shape_entry shapes[] = {
    {"sphere", 1},    {"box", 4},       {"capsule", 2},   {"cylinder", 2},     {"cone", 3},
    {"torus", 2},     {"halfspace", 4}, {"ellipsoid", 3}, {"superquadric", 5},
};

static osc_status create_shape(const char* name, const double* p, osc_sdf** out) {
    if (!strcmp(name, "sphere")) return osc_sdf_create_sphere(p[0], out);
    if (!strcmp(name, "box")) return osc_sdf_create_box(osc_v3(p[0], p[1], p[2]), p[3], out);
    if (!strcmp(name, "capsule")) return osc_sdf_create_capsule(p[0], p[1], out);
    if (!strcmp(name, "cylinder")) return osc_sdf_create_cylinder(p[0], p[1], out);
    if (!strcmp(name, "cone")) return osc_sdf_create_cone(p[0], p[1], p[2], out);
    if (!strcmp(name, "torus")) return osc_sdf_create_torus(p[0], p[1], out);
    if (!strcmp(name, "halfspace")) return osc_sdf_create_halfspace(osc_v3(p[0], p[1], p[2]), p[3], out);
    if (!strcmp(name, "ellipsoid")) return osc_sdf_create_ellipsoid(osc_v3(p[0], p[1], p[2]), out);
    return osc_sdf_create_superquadric(osc_v3(p[0], p[1], p[2]), p[3], p[4], out);
}

static int usage(void) {
    fprintf(stderr, "usage: osculate version | info | eval <shape> <parameters...> <x> <y> <z>\n"
                    "shapes:");
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        fprintf(stderr, " %s(%d)", shapes[i].name, shapes[i].parameters);
    fprintf(stderr, "\n");
    return 2;
}

// parses argv[first .. first + count) as finite numbers
static int parse_numbers(char** argv, int first, int count, double* out) {
    for (int i = 0; i < count; ++i) {
        char* end = NULL;
        out[i] = strtod(argv[first + i], &end);
        if (end == argv[first + i] || *end != '\0') {
            fprintf(stderr, "osculate: '%s' is not a number\n", argv[first + i]);
            return 0;
        }
    }
    return 1;
}

static int command_eval(int argc, char** argv) {
    if (argc < 3) return usage();
    const shape_entry* shape = NULL;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        if (!strcmp(argv[2], shapes[i].name)) shape = &shapes[i];
    if (!shape) {
        fprintf(stderr, "osculate: unknown shape '%s'\n", argv[2]);
        return usage();
    }
    if (argc != 3 + shape->parameters + 3) {
        fprintf(stderr, "osculate: %s takes %d parameters and a point\n", shape->name, shape->parameters);
        return 2;
    }
    double values[8];
    if (!parse_numbers(argv, 3, shape->parameters + 3, values)) return 2;
    osc_sdf* sdf = NULL;
    if (create_shape(shape->name, values, &sdf) != OSC_OK) {
        fprintf(stderr, "osculate: %s\n", osc_last_error());
        return 1;
    }
    const double* x = values + shape->parameters;
    osc_vec3 g;
    osc_mat3 h;
    double phi = osc_sdf_eval(sdf, osc_v3(x[0], x[1], x[2]), &g, &h);
    printf("{\"shape\": \"%s\", \"point\": [%.17g, %.17g, %.17g], \"value\": %.17g, "
           "\"gradient\": [%.17g, %.17g, %.17g], \"hessian\": [",
           shape->name, x[0], x[1], x[2], phi, g.x, g.y, g.z);
    for (int i = 0; i < 9; ++i) printf("%s%.17g", i ? ", " : "", h.m[i / 3][i % 3]);
    printf("], \"lipschitz\": %.17g}\n", osc_sdf_lipschitz(sdf));
    osc_sdf_destroy(sdf);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    if (!strcmp(argv[1], "version")) {
        printf("%s\n", osc_version_string());
        return 0;
    }
    if (!strcmp(argv[1], "info")) {
        printf("{\"version\": \"%s\", \"threads\": %d}\n", osc_version_string(), osc_default_thread_count());
        return 0;
    }
    if (!strcmp(argv[1], "eval")) return command_eval(argc, argv);
    return usage();
}
