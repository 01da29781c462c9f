// A downstream program: builds a smooth union and checks one value against its closed form.
#include <osculate/osculate.h>

#include <math.h>
#include <stdio.h>

int main(void) {
    osc_sdf *a = NULL, *b = NULL, *u = NULL;
    if (osc_sdf_create_sphere(1.0, &a) || osc_sdf_create_box(osc_v3(1, 1, 1), 0.0, &b)) return 1;
    const osc_sdf* parts[2] = {a, b};
    if (osc_sdf_create_union(parts, 2, 0.0, &u)) return 1;
    double value = osc_sdf_eval(u, osc_v3(3.0, 0.0, 0.0), NULL, NULL); // min(2, 2) = 2
    osc_sdf_destroy(a);
    osc_sdf_destroy(b);
    osc_sdf_destroy(u);
    printf("consumer of osculate %s: phi = %g\n", osc_version_string(), value);
    return fabs(value - 2.0) < 1e-15 ? 0 : 1;
}
