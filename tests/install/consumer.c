// A downstream program: builds a smooth union and checks one value against its closed form, and
// calls inline helpers of math.h that call libm (sqrt, sin, cos, atan2), so that linking it at -O0
// without adding -lm by hand checks that the package brings libm.
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
    // a rotation of 0.5 rad about z as a quaternion (sin, cos) and back (atan2), and a length (sqrt);
    // volatile so that no optimisation level folds the calls away
    volatile double angle = 0.5, side = 3.0;
    osc_quat q = osc_quat_exp(osc_v3(0.0, 0.0, angle));
    osc_vec3 axis_angle = osc_quat_log(q);
    double length = osc_length(osc_v3(side, 4.0, 0.0));
    printf("consumer of osculate %s: phi = %g, angle %g, length %g\n", osc_version_string(), value, axis_angle.z,
           length);
    return fabs(value - 2.0) < 1e-15 && fabs(axis_angle.z - 0.5) < 1e-14 && fabs(length - 5.0) < 1e-14 ? 0 : 1;
}
