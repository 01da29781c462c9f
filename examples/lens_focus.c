// lens_focus.c: trace a bundle of parallel rays through a plano-convex lens and find its focus.
// Copy this to start with rays against optical surfaces (ray.h, implicit.h).
//
// The lens: a spherical front surface of radius R = 50 (a sag with curvature 1/R) at x = 0, a flat
// back surface at x = thickness = 1.5 (the front sag reaches 1.01 at the rim), glass of index n = 1.5, aperture 20. Rays parallel to the
// optical axis x at heights h are intersected with each surface (osc_ray_intersect), refracted by
// Snell's law with the returned unit normals, and followed to where they cross the axis. Paraxial
// rays focus at the thick lens's back focal point, thickness + f - thickness / n with the
// lensmaker's f = R / (n - 1); marginal rays focus shorter (spherical aberration).
//
//   usage: lens_focus          (exit status 0 when the paraxial focus matches to 1e-4 of f)

#include "osculate/osculate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// refracts the unit direction v at a surface with unit normal `normal` (either orientation) from
// index n1 to n2 (ratio n1 / n2)
static osc_vec3 refract(osc_vec3 v, osc_vec3 normal, double ratio) {
    osc_vec3 n = osc_dot(normal, v) > 0 ? osc_neg(normal) : normal; // facing the incoming ray
    double cosi = -osc_dot(n, v), sin2t = ratio * ratio * (1 - cosi * cosi);
    return osc_normalize(osc_add(osc_scale(v, ratio), osc_scale(n, ratio * cosi - sqrt(1 - sin2t))));
}

static osc_implicit* sphere_sag(double radius, double diameter) {
    osc_sag sag;
    memset(&sag, 0, sizeof sag);
    sag.curvature = 1.0 / radius; // 0 would be flat
    sag.diameter = diameter;
    osc_implicit* surface = NULL;
    if (osc_implicit_create_sag(&sag, &surface) != OSC_OK)
        fprintf(stderr, "osc_implicit_create_sag: %s\n", osc_last_error());
    return surface;
}

int main(void) {
    const double R = 50.0, n = 1.5, thickness = 1.5, aperture = 20.0;
    osc_implicit* front = sphere_sag(R, aperture);
    osc_implicit* back = sphere_sag(1e12, aperture); // a radius of 1e12: flat to rounding
    if (!front || !back) return 1;
    osc_implicit_transform back_place = osc_implicit_transform_identity();
    back_place.translation = osc_v3(thickness, 0, 0);

    double f = R / (n - 1.0), expected = thickness + f - thickness / n, paraxial = 0.0;
    printf("   height   axis crossing x\n");
    for (int i = 1; i <= 8; ++i) {
        double height = i <= 2 ? 0.05 * i : 1.2 * (i - 2); // two paraxial rays, then wider ones
        osc_vec3 origin = osc_v3(-10.0, height, 0.0), direction = osc_v3(1.0, 0.0, 0.0);
        osc_ray_hit first, second;
        if (osc_ray_intersect(front, NULL, (osc_ray){origin, direction}, NULL, &first, NULL) != OSC_OK || !first.hit)
            return fprintf(stderr, "front surface missed: %s\n", osc_last_error()), 1;
        osc_vec3 inside = refract(direction, first.normal, 1.0 / n);
        if (osc_ray_intersect(back, &back_place, (osc_ray){first.point, inside}, NULL, &second, NULL) != OSC_OK ||
            !second.hit)
            return fprintf(stderr, "back surface missed: %s\n", osc_last_error()), 1;
        osc_vec3 out = refract(inside, second.normal, n);
        double crossing = second.point.x - second.point.y / out.y * out.x;
        printf("  %7.3f   %.6f\n", height, crossing);
        if (i == 1) paraxial = crossing;
    }
    printf("paraxial focus %.6f; thick-lens back focus from the lensmaker's f = %.3f: %.6f\n", paraxial, f, expected);
    osc_implicit_destroy(front);
    osc_implicit_destroy(back);
    return fabs(paraxial - expected) < 1e-4 * f ? 0 : 1;
}
