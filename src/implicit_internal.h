// implicit_internal.h: the layout of an osc_implicit, shared by implicit.c and ray.c (which
// differentiates with respect to a sag's parameters). Never installed.

#ifndef OSC_IMPLICIT_INTERNAL_H
#define OSC_IMPLICIT_INTERNAL_H

#include "osculate/implicit.h"

typedef enum implicit_kind { IMPLICIT_SAG, IMPLICIT_SDF, IMPLICIT_FUNCTION } implicit_kind;

struct osc_implicit {
    implicit_kind kind;
    osc_sag sag;
    double half_aperture; // D / 2
    const osc_sdf* sdf;
    osc_implicit_function function;
    void* context;
    osc_vec3 centre; // bounding sphere
    double radius;
};

/// The number of a sag's parameters (c, k, then its coefficients) and d F / d(parameters) at the
/// surface-frame point into `out` [2 + coefficient_count].
int implicit_sag_parameter_gradient(const osc_implicit* surface, osc_vec3 point, double* out);

/// d (grad F) / d(parameters) of a sag at the surface-frame point into `out` [2 + count][3].
void implicit_sag_parameter_gradient_of_gradient(const osc_implicit* surface, osc_vec3 point, double (*out)[3]);

#endif // OSC_IMPLICIT_INTERNAL_H
