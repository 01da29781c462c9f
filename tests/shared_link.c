// Links against the shared library only through the public header: every public symbol used here
// must be exported, and nothing internal is reachable.
#include "osculate/osculate.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    osc_sdf* sphere = NULL;
    if (osc_sdf_create_sphere(1.0, &sphere) != OSC_OK) return 1;
    double value = osc_sdf_eval(sphere, osc_v3(2.0, 0.0, 0.0), NULL, NULL);
    osc_sdf_destroy(sphere);
    if (value != 1.0) return 2;
    if (strcmp(osc_version_string(), "0.1.0") != 0) return 3;
    printf("shared library %s ok\n", osc_version_string());
    return 0;
}
