// fuzz_step.c: libFuzzer target of the STEP importer (osc_brep_read_step, docs/brep.md "Import
// from STEP"); built and run by tests/fuzz_mesh.sh with the mesh importers' targets, seeded with
// tests/data/step. Each input is read twice, refusing and skipping unsupported geometry. Beyond the
// sanitizers it aborts when an outcome breaks the contract: a status other than a parse error,
// unsupported geometry, a model the B-Rep builder refuses, or no memory; a failure that leaves *out
// set; a parse error whose message lacks its line; an imported solid without faces; shells that do
// not tile the model's faces, or instance counts that do not add up.

#include "osculate/brep.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_REQUIRE(condition)                                                                                        \
    do {                                                                                                               \
        if (!(condition)) abort();                                                                                     \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    for (int skip = 0; skip < 2; ++skip) {
        static char sentinel;
        osc_brep* brep = (osc_brep*)&sentinel; // must be overwritten
        osc_brep_import_report report;
        osc_status status = osc_brep_read_step((const char*)data, size, skip, NULL, &brep, &report);
        if (status != OSC_OK) {
            FUZZ_REQUIRE(brep == NULL);
            FUZZ_REQUIRE(status == OSC_ERR_PARSE || status == OSC_ERR_UNSUPPORTED ||
                         status == OSC_ERR_INVALID_ARGUMENT || status == OSC_ERR_NO_MEMORY ||
                         status == OSC_ERR_CAPACITY);
            FUZZ_REQUIRE(status != OSC_ERR_PARSE || strstr(osc_last_error(), "line ") != NULL);
            FUZZ_REQUIRE(status != OSC_ERR_UNSUPPORTED || skip == 0 || report.faces_read == 0 ||
                         report.faces_unsupported > 0 || report.edges_unsupported > 0 ||
                         report.first_unsupported[0] != '\0');
            continue;
        }
        FUZZ_REQUIRE(brep != NULL && report.solids >= 1);
        FUZZ_REQUIRE(report.faces_imported >= 1 &&
                     report.faces_imported + report.faces_unsupported == report.faces_read);
        osc_brep_info info;
        FUZZ_REQUIRE(osc_brep_get_info(brep, &info) == OSC_OK);
        FUZZ_REQUIRE(info.face_count == report.faces_imported && info.edge_count == report.edges_imported);
        FUZZ_REQUIRE(report.instances_imported == osc_brep_shell_count(brep) && report.instances_imported >= 1 &&
                     report.instances_imported + report.instances_skipped == report.instances);
        int faces = 0;
        for (int k = 0; k < osc_brep_shell_count(brep); ++k) {
            osc_brep_shell shell;
            FUZZ_REQUIRE(osc_brep_get_shell(brep, k, &shell) == OSC_OK && shell.face_begin == faces &&
                         shell.face_count >= 1);
            faces += shell.face_count;
        }
        FUZZ_REQUIRE(faces == info.face_count);
        osc_brep* part = NULL; // the last shell alone (a copy of the whole when there is one)
        osc_status split = osc_brep_create_from_shell(brep, osc_brep_shell_count(brep) - 1, NULL, &part);
        FUZZ_REQUIRE(split == OSC_OK || split == OSC_ERR_INVALID_ARGUMENT || split == OSC_ERR_NO_MEMORY ||
                     split == OSC_ERR_CAPACITY);
        osc_brep_destroy(part);
        const osc_brep_desc* desc = osc_brep_description(brep);
        for (int f = 0; f < desc->face_count; ++f) {
            const osc_brep_face* face = &desc->faces[f];
            (void)osc_brep_face_contains(brep, f, 0.5 * (face->umin + face->umax), 0.5 * (face->vmin + face->vmax));
        }
        osc_brep_destroy(brep);
    }
    return 0;
}
