// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// step_measure: what osculate reads from a STEP file, measured with the library's own evaluation,
// as JSON on stdout, for tools/occ_oracle.py to compare with OpenCASCADE.
//
// usage: step_measure FILE [--depth D] [--pair A B DMAX qw qx qy qz tx ty tz]...
//
// For each shell (placed solid) of the model: its face count, the area of each face, its volume
// and centroid, and the box of points sampled on its faces and edges. Areas and volumes integrate
// over each face's parameter box: a 24 x 24 grid of cells, each cell whose corners and centre do
// not agree on being inside the face, or (on the top three levels) that holds one of the points
// spaced a quarter of a grid cell along the face's trims (a loop smaller than a cell, a thin slot),
// split in four, down to D levels (default 6), 2 x 2
// Gauss-Legendre points per cell counted where inside (osc_brep_face_contains), with the surface's
// tangents by central differences on osc_brep_face_point. The volume is (1/3) of the flux of x
// through the boundary and the centroid (1/4) of the flux of x_i x (divergence theorem), the
// normals as the model orients them (out of the solid).
//
// Each --pair asks for the least local minimal distance (osc_lmd_query, d_max DMAX) between shell
// A at the identity and shell B moved by the pose (qw qx qy qz tx ty tz: B's points x go to
// R x + t), each built alone (osc_brep_create_from_shell); "min" is null when no contact is found.
//
// Exit status: 0 when the file was read (whatever the pairs found), 1 when it was not (the JSON
// then says why), 2 on bad arguments.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osculate/osculate.h"

typedef struct moments {
    double area, volume, first[3];
    osc_vec3 lo, hi;
} moments;

typedef struct face_ctx {
    const osc_brep* brep;
    int face;
    double du, dv; // finite-difference steps
    moments* m;
    const double* marks; // [mark_count][2]: points along the face's trims, a quarter cell apart
    int mark_count;
    int depth; // the deepest level; marks are looked for in cells of the top three levels
} face_ctx;

// Does the cell hold a mark (a loop smaller than the cell, or a thin slot across it, which its
// corners would miss)?
static int holds_mark(const face_ctx* f, double u0, double u1, double v0, double v1) {
    for (int i = 0; i < f->mark_count; i++) {
        double u = f->marks[2 * i], v = f->marks[2 * i + 1];
        if (u >= u0 && u <= u1 && v >= v0 && v <= v1) return 1;
    }
    return 0;
}

static void grow_box(moments* m, osc_vec3 x) {
    m->lo = osc_v3(fmin(m->lo.x, x.x), fmin(m->lo.y, x.y), fmin(m->lo.z, x.z));
    m->hi = osc_v3(fmax(m->hi.x, x.x), fmax(m->hi.y, x.y), fmax(m->hi.z, x.z));
}

// adds w times the surface's area element, flux of x and of x_i x at (u, v)
static void add_point(const face_ctx* f, double u, double v, double w) {
    osc_vec3 normal;
    osc_vec3 x = osc_brep_face_point(f->brep, f->face, u, v, &normal);
    osc_vec3 su = osc_scale(osc_sub(osc_brep_face_point(f->brep, f->face, u + f->du, v, NULL),
                                    osc_brep_face_point(f->brep, f->face, u - f->du, v, NULL)),
                            0.5 / f->du);
    osc_vec3 sv = osc_scale(osc_sub(osc_brep_face_point(f->brep, f->face, u, v + f->dv, NULL),
                                    osc_brep_face_point(f->brep, f->face, u, v - f->dv, NULL)),
                            0.5 / f->dv);
    double element = osc_length(osc_cross(su, sv)) * w;
    double flux = osc_dot(x, normal) * element;
    f->m->area += element;
    f->m->volume += flux / 3.0;
    f->m->first[0] += 0.25 * x.x * flux;
    f->m->first[1] += 0.25 * x.y * flux;
    f->m->first[2] += 0.25 * x.z * flux;
    grow_box(f->m, x);
}

static void cell(const face_ctx* f, double u0, double u1, double v0, double v1, int depth) {
    const double g = 0.5 / sqrt(3.0);
    double um = 0.5 * (u0 + u1), vm = 0.5 * (v0 + v1), hu = u1 - u0, hv = v1 - v0;
    int inside = osc_brep_face_contains(f->brep, f->face, um, vm);
    int same = osc_brep_face_contains(f->brep, f->face, u0, v0) == inside &&
               osc_brep_face_contains(f->brep, f->face, u1, v0) == inside &&
               osc_brep_face_contains(f->brep, f->face, u0, v1) == inside &&
               osc_brep_face_contains(f->brep, f->face, u1, v1) == inside &&
               !(f->depth - depth <= 2 && holds_mark(f, u0, u1, v0, v1));
    if (!same && depth > 0) {
        cell(f, u0, um, v0, vm, depth - 1);
        cell(f, um, u1, v0, vm, depth - 1);
        cell(f, u0, um, vm, v1, depth - 1);
        cell(f, um, u1, vm, v1, depth - 1);
        return;
    }
    if (same && !inside) return;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double u = um + (i ? g : -g) * hu, v = vm + (j ? g : -g) * hv;
            if (same || osc_brep_face_contains(f->brep, f->face, u, v)) add_point(f, u, v, 0.25 * hu * hv);
        }
}

static double face_moments(const osc_brep* brep, int face, int depth, moments* m) {
    const osc_brep_desc* d = osc_brep_description(brep);
    const osc_brep_face* fc = &d->faces[face];
    double before = m->area;
    enum { GRID = 24 };
    double cu = (fc->umax - fc->umin) / GRID / 4.0, cv = (fc->vmax - fc->vmin) / GRID / 4.0;
    size_t count = 0, room = 0;
    double* marks = NULL;
    for (int l = fc->loop_begin; l < fc->loop_begin + fc->loop_count; l++)
        for (int t = d->loops[l].trim_begin; t < d->loops[l].trim_begin + d->loops[l].trim_count; t++) {
            const osc_brep_trim* tr = &d->trims[t];
            int arc = tr->kind == OSC_TRIM_ARC;
            double span = arc ? fabs(tr->sweep) * tr->radius * (1.0 / cu + 1.0 / cv)
                              : fabs(tr->end[0] - tr->start[0]) / cu + fabs(tr->end[1] - tr->start[1]) / cv;
            size_t n = (size_t)fmin(ceil(span), 1e6) + 1;
            if (count + n + 1 > room) {
                room = 2 * (count + n + 1);
                double* grown = realloc(marks, room * 2 * sizeof(double));
                if (!grown) {
                    fprintf(stderr, "step_measure: out of memory\n");
                    exit(1);
                }
                marks = grown;
            }
            for (size_t k = 0; k <= n; k++) {
                double w = (double)k / (double)n;
                if (arc) {
                    double a = tr->angle0 + w * tr->sweep;
                    marks[2 * count] = tr->center[0] + tr->radius * cos(a);
                    marks[2 * count + 1] = tr->center[1] + tr->radius * sin(a);
                } else {
                    marks[2 * count] = tr->start[0] + w * (tr->end[0] - tr->start[0]);
                    marks[2 * count + 1] = tr->start[1] + w * (tr->end[1] - tr->start[1]);
                }
                count++;
            }
        }
    int n = (int)count;
    face_ctx f = {brep, face, 1e-6 * (fc->umax - fc->umin), 1e-6 * (fc->vmax - fc->vmin), m, marks, n, depth};
    for (int i = 0; i < GRID; i++)
        for (int j = 0; j < GRID; j++)
            cell(&f, fc->umin + (fc->umax - fc->umin) * i / GRID, fc->umin + (fc->umax - fc->umin) * (i + 1) / GRID,
                 fc->vmin + (fc->vmax - fc->vmin) * j / GRID, fc->vmin + (fc->vmax - fc->vmin) * (j + 1) / GRID, depth);
    return m->area - before;
}

static void print_vec(const char* name, osc_vec3 x) { printf("\"%s\": [%.17g, %.17g, %.17g]", name, x.x, x.y, x.z); }

static void json_string(const char* s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: step_measure FILE [--depth D] [--pair A B DMAX qw qx qy qz tx ty tz]...\n");
        return 2;
    }
    int depth = 6;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--depth") && i + 1 < argc) {
            depth = atoi(argv[++i]);
            if (depth < 0 || depth > 12) {
                fprintf(stderr, "step_measure: --depth %d is outside [0, 12]\n", depth);
                return 2;
            }
        } else if (!strcmp(argv[i], "--pair") && i + 10 < argc) {
            i += 10;
        } else {
            fprintf(stderr, "step_measure: unknown or incomplete option %s\n", argv[i]);
            return 2;
        }
    }
    osc_brep* brep = NULL;
    osc_brep_import_report report;
    memset(&report, 0, sizeof report);
    osc_status status = osc_brep_load_step(argv[1], 0, NULL, &brep, &report);
    printf("{\"file\": ");
    json_string(argv[1]);
    printf(", \"status\": ");
    json_string(status == OSC_OK ? "OK" : osc_last_error());
    printf(", \"faces_read\": %d, \"faces_imported\": %d, \"instances\": %d", report.faces_read, report.faces_imported,
           report.instances);
    if (status != OSC_OK) {
        printf("}\n");
        return 1;
    }
    int shells = osc_brep_shell_count(brep);
    osc_brep** parts = calloc((size_t)shells, sizeof *parts);
    printf(", \"length_unit\": %.17g, \"shells\": [", report.length_unit);
    for (int s = 0; s < shells; s++) {
        osc_brep_shell shell;
        osc_brep_get_shell(brep, s, &shell);
        if (osc_brep_create_from_shell(brep, s, NULL, &parts[s]) != OSC_OK) {
            fprintf(stderr, "step_measure: shell %d: %s\n", s, osc_last_error());
            return 1;
        }
        moments m = {0, 0, {0, 0, 0}, osc_v3(INFINITY, INFINITY, INFINITY), osc_v3(-INFINITY, -INFINITY, -INFINITY)};
        printf("%s\n  {\"name\": ", s ? "," : "");
        json_string(shell.name);
        printf(", \"solid_id\": %lld, \"faces\": %d, \"face_areas\": [", (long long)shell.solid_id, shell.face_count);
        for (int f = 0; f < shell.face_count; f++)
            printf("%s%.17g", f ? ", " : "", face_moments(brep, shell.face_begin + f, depth, &m));
        const osc_brep_desc* d = osc_brep_description(brep);
        for (int e = shell.edge_begin; e < shell.edge_begin + shell.edge_count; e++)
            for (int k = 0; k <= 64; k++)
                grow_box(&m, osc_brep_edge_point(brep, e, d->edges[e].t0 + (d->edges[e].t1 - d->edges[e].t0) * k / 64));
        printf("], \"area\": %.17g, \"volume\": %.17g, ", m.area, m.volume);
        print_vec("centroid", osc_v3(m.first[0] / m.volume, m.first[1] / m.volume, m.first[2] / m.volume));
        printf(", ");
        print_vec("lo", m.lo);
        printf(", ");
        print_vec("hi", m.hi);
        printf("}");
    }
    printf("],\n \"pairs\": [");
    int pairs = 0;
    enum { CAP = 4096 };
    osc_lmd_contact* contacts = calloc(CAP, sizeof *contacts);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--depth")) {
            i++;
            continue;
        }
        int a = atoi(argv[i + 1]), b = atoi(argv[i + 2]);
        double v[8];
        for (int k = 0; k < 8; k++) v[k] = strtod(argv[i + 3 + k], NULL);
        i += 10;
        if (a < 0 || a >= shells || b < 0 || b >= shells) {
            fprintf(stderr, "step_measure: --pair %d %d: no such shell\n", a, b);
            return 2;
        }
        osc_lmd_settings settings = osc_lmd_settings_default();
        settings.d_max = v[0];
        osc_pose pose_b = osc_pose_make(osc_v3(v[5], v[6], v[7]), (osc_quat){v[1], v[2], v[3], v[4]});
        osc_lmd_output out = {contacts, CAP, 0, 0, NULL, 0};
        osc_status st = osc_lmd_query(parts[a], osc_pose_identity(), parts[b], pose_b, &settings, NULL, &out, 1);
        double least = INFINITY;
        for (int k = 0; k < out.count; k++) least = fmin(least, contacts[k].distance);
        printf("%s\n  {\"a\": %d, \"b\": %d, \"status\": ", pairs++ ? "," : "", a, b);
        json_string(st == OSC_OK ? "OK" : osc_last_error());
        printf(", \"contacts\": %d, \"skipped_faces\": %d, \"min\": ", out.needed, out.skipped_faces);
        if (isfinite(least))
            printf("%.17g}", least);
        else
            printf("null}");
    }
    printf("]}\n");
    free(contacts);
    for (int s = 0; s < shells; s++) osc_brep_destroy(parts[s]);
    free(parts);
    osc_brep_destroy(brep);
    return 0;
}
