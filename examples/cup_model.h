// cup_model.h: the cup of Beker et al. 2026 Fig. 9 as an SDF tree of three XPSQ primitives (Beker et al. 2026
// §III-A): an outer cylinder with an inner cylinder subtracted, and a handle made by sweeping a box
// section along a quadratic spline. Used by examples/cup.c and bench/bench_sdf.c. Units: cm.

#ifndef OSC_CUP_MODEL_H
#define OSC_CUP_MODEL_H

#include "osculate/osculate.h"

// a cylinder of `radius` from z0 to z1 as an XPSQ: a thin, flat-ended disc (eps1 = 0.1) swept along
// a straight spline; inside the sweep the section's radial distance is the distance to the wall,
// beyond its ends the disc's flat face is the cap
static osc_status make_cylinder(double radius, double z0, double z1, osc_sdf** out) {
    const double half_thickness = 0.25;
    osc_xpsq_desc d = osc_xpsq_desc_default();
    d.control_points[0] = osc_v3(0.0, 0.0, z0 + half_thickness);
    d.control_points[1] = osc_v3(0.0, 0.0, 0.5 * (z0 + z1));
    d.control_points[2] = osc_v3(0.0, 0.0, z1 - half_thickness);
    d.scale[0] = d.scale[1] = osc_profile_constant(radius);
    d.scale[2] = osc_profile_constant(half_thickness);
    d.exponent[0] = osc_profile_constant(0.1); // flat caps
    d.exponent[1] = osc_profile_constant(1.0); // round section
    d.blend_temperature = 0.02;
    d.root_temperature = 1e-3;
    return osc_sdf_create_xpsq(&d, out);
}

// the handle: a rounded box section (0.7 x 1.8 cm) swept along a spline leaving the wall at
// z = 7.5 and returning at z = 2.5; the Frenet frame keeps the section's long side along y
static osc_status make_handle(osc_sdf** out) {
    osc_xpsq_desc d = osc_xpsq_desc_default();
    d.control_points[0] = osc_v3(3.8, 0.0, 7.6);
    d.control_points[1] = osc_v3(7.4, 0.0, 5.0);
    d.control_points[2] = osc_v3(3.8, 0.0, 2.4);
    d.scale[0] = osc_profile_constant(0.35); // thickness, toward the centre of curvature
    d.scale[1] = osc_profile_constant(0.9);  // width, along the binormal
    d.scale[2] = osc_profile_constant(0.3);  // half-length of the swept box along the tangent
    d.exponent[0] = osc_profile_constant(0.3);
    d.exponent[1] = osc_profile_constant(0.3);
    d.blend_temperature = 0.02;
    return osc_sdf_create_xpsq(&d, out);
}

/// Creates the cup; returns the status of the first call that fails.
static osc_status make_cup(osc_sdf** out) {
    osc_sdf *outer = NULL, *inner = NULL, *handle = NULL, *body = NULL;
    osc_status status = OSC_OK;
    if ((status = make_cylinder(4.0, 0.0, 10.0, &outer)) || (status = make_cylinder(3.6, 0.5, 10.8, &inner)) ||
        (status = make_handle(&handle)))
        goto done;
    // smooth union of wall and handle (Beker et al. 2026 eq. 2), then the cavity subtracted (eq. 4)
    const osc_sdf* parts[2] = {outer, handle};
    if ((status = osc_sdf_create_union(parts, 2, 0.1, &body))) goto done;
    status = osc_sdf_create_subtraction(body, inner, 0.05, out);
done:
    osc_sdf_destroy(outer);
    osc_sdf_destroy(inner);
    osc_sdf_destroy(handle);
    osc_sdf_destroy(body);
    return status;
}

#endif // OSC_CUP_MODEL_H
