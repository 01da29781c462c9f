// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// implicit.h: implicit surfaces F(X) = 0 for ray intersection (Torch Lens Maker): optical sag surfaces of
// revolution, any library SDF, or a user function; each defined everywhere, with its gradient and,
// where the ray solver's derivatives need it, its Hessian.
//
// SUMMARY
// - Sag surfaces (Torch Lens Maker "Sag surface and diameter band surface"): the even asphere
//       x = g(r) = c r^2 / (1 + sqrt(1 - (1 + k) c^2 r^2)) + sum_i a_i r^(2 i + 4),  r = sqrt(y^2 + z^2)
//   with curvature c = 1 / R, conic constant k (0: sphere, -1: parabola) and up to 8 coefficients,
//   over the aperture |r| <= D / 2. Inside it F = g(r) - x; outside, the diameter band
//   F = (x - A_x)^2 + (r - A_r)^2 around the rim point A = (g(D/2), D/2), which has no root there
//   (so no ray "hits" the surface's analytic continuation) and leads a solver back to the rim.
//   The optical axis is x; the vertex is at the origin.
// - 2D meridional mode: evaluate at (x, r, 0).
// - osc_implicit_eval gives F, its gradient and Hessian in the surface frame; ray.h places the
//   surface with an osc_implicit_transform (anchor, scale, rotation, translation).

#ifndef OSCULATE_IMPLICIT_H
#define OSCULATE_IMPLICIT_H

#include "osculate/base.h"
#include "osculate/math.h"
#include "osculate/sdf.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The most asphere coefficients.
#define OSC_SAG_MAX_COEFFICIENTS 8

/// The largest conic constant |k| accepted.
#define OSC_SAG_CONIC_MAX 1e30

/// An even-asphere sag (sphere: conic 0, no coefficients; parabola: conic -1). Lengths follow
/// sdf.h's range [OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX].
typedef struct osc_sag {
    double curvature;                              ///< c = 1 / R (0: flat), |c| <= 1 / OSC_SDF_LENGTH_MIN
    double conic;                                  ///< k, |k| <= OSC_SAG_CONIC_MAX
    int coefficient_count;                         ///< 0..OSC_SAG_MAX_COEFFICIENTS
    double coefficients[OSC_SAG_MAX_COEFFICIENTS]; ///< a_0.. multiply r^4, r^6, ...; finite
    double diameter;                               ///< the aperture D in [OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX];
                                                   ///< 1 - (1 + k) c^2 (D/2)^2 must be > 0, and the sag and its slope
                                                   ///< finite and |g| <= OSC_SDF_LENGTH_MAX over the aperture
} osc_sag;

/// A user surface: returns F at `point` [3] (surface frame) and writes its gradient [3] (never
/// NULL). Must be callable from several threads at once.
typedef double (*osc_implicit_function)(void* context, const double point[3], double gradient[3]);

/// An immutable implicit surface (opaque).
typedef struct osc_implicit osc_implicit;

/// Creates a sag surface of revolution from `sag` into `out`. OSC_ERR_INVALID_ARGUMENT, naming
/// the parameter and its value, for a NULL argument, a value outside the ranges of osc_sag, too
/// many coefficients, an aperture beyond the conic's domain, or a sag that is not finite or
/// exceeds OSC_SDF_LENGTH_MAX over the aperture.
OSC_API osc_status osc_implicit_create_sag(const osc_sag* sag, osc_implicit** out);

/// Creates the surface phi = 0 of a library SDF (borrowed: it must outlive the surface). Its
/// bounding radius for ray initialisation comes from the SDF's bounds: they must be finite and not
/// empty. OSC_ERR_INVALID_ARGUMENT for a NULL argument.
OSC_API osc_status osc_implicit_create_sdf(const osc_sdf* sdf, osc_implicit** out);

/// Creates a user surface with a bounding sphere for initialisation: `centre`'s coordinates at
/// most OSC_SDF_LENGTH_MAX in magnitude, `radius` in [OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX].
/// OSC_ERR_INVALID_ARGUMENT for a NULL `function` or `out`.
OSC_API osc_status osc_implicit_create_function(osc_implicit_function function, void* context, osc_vec3 centre,
                                                double radius, osc_implicit** out);

/// Releases a surface (NULL is fine).
OSC_API void osc_implicit_destroy(osc_implicit* surface);

/// Returns F at the surface-frame point and writes its gradient and Hessian (both nullable; the
/// Hessian of a user surface is not known and is written as zeros). A NULL surface returns NaN
/// and writes NaN to both.
OSC_API double osc_implicit_eval(const osc_implicit* surface, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian);

/// Returns 1 when the surface-frame point lies in the surface's domain (a sag's aperture
/// |r| <= D / 2; always for other surfaces); 0 for a NULL surface.
OSC_API int osc_implicit_in_domain(const osc_implicit* surface, osc_vec3 point);

/// Returns the sag x = g(r) and writes g'(r) (nullable); NaN (and a NaN derivative) for a surface
/// that is not a sag or is NULL.
OSC_API double osc_implicit_sag(const osc_implicit* surface, double r, double* derivative);

/// Writes a sphere (centre, radius; each nullable) that contains the surface's part a ray can hit:
/// the sag's aperture cap, the SDF's bounds, the user's sphere; NaN for a NULL surface.
OSC_API void osc_implicit_bounding_sphere(const osc_implicit* surface, osc_vec3* centre, double* radius);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_IMPLICIT_H
