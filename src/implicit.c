// implicit.c: implicit surfaces for ray intersection (Torch Lens Maker): even-asphere sags of revolution
// with the diameter band outside the aperture, library SDFs and user functions. Derivations:
// docs/ray.md §1.

#include "implicit_internal.h"

#include "base_internal.h"
#include "sdf_internal.h" // the length range's checks

#include <string.h>

// ---------------------------------------------------------------------------------------------
// the sag and its derivatives in r:
//   g(r) = c r^2 / (1 + s) + sum_i a_i r^(2i+4),   s = sqrt(w), w = 1 - (1 + k) c^2 r^2
//   u(r) = g'(r) / r = c / s + sum_i (2i+4) a_i r^(2i+2)          (finite at r = 0)
//   v(r) = u'(r) / r = (1 + k) c^3 / s^3 + sum_i (2i+4)(2i+2) a_i r^(2i)

static double sag_value(const osc_sag* sag, double r2, double* u, double* v) {
    double c = sag->curvature, k1 = 1.0 + sag->conic;
    double w = 1.0 - k1 * c * c * r2;
    double s = sqrt(w > 0.0 ? w : 0.0);
    double g = c * r2 / (1.0 + s);
    double du = s > 0.0 ? c / s : INFINITY, dv = s > 0.0 ? k1 * c * c * c / (s * s * s) : INFINITY;
    double power = r2 * r2; // r^4, then r^6, ...
    double lower = r2;      // r^2, then r^4: multiplies in u
    double lowest = 1.0;    // r^0, then r^2: multiplies in v
    for (int i = 0; i < sag->coefficient_count; ++i) {
        double a = sag->coefficients[i], n = 2.0 * i + 4.0;
        g += a * power;
        du += n * a * lower;
        dv += n * (n - 2.0) * a * lowest;
        power *= r2;
        lower *= r2;
        lowest *= r2;
    }
    if (u) *u = du;
    if (v) *v = dv;
    return g;
}

// ---------------------------------------------------------------------------------------------
// creation

static osc_status check_out(const char* function, osc_implicit** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    return OSC_OK;
}

// the sag's parameters (implicit.h); each check names the parameter and its value
static osc_status check_sag(const char* function, const osc_sag* sag) {
    if (!sag) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: sag is NULL", function);
    if (!(fabs(sag->curvature) <= 1.0 / OSC_SDF_LENGTH_MIN))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: sag->curvature is %g; it must be finite and at "
                        "most 1e30 (1 / OSC_SDF_LENGTH_MIN) in magnitude",
                        function, sag->curvature);
    if (!(fabs(sag->conic) <= OSC_SAG_CONIC_MAX))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: sag->conic is %g; it must be finite and at most "
                        "1e30 (OSC_SAG_CONIC_MAX) in magnitude",
                        function, sag->conic);
    osc_status status = sdf_check_length(function, "sag->diameter", sag->diameter);
    if (status) return status;
    if (sag->coefficient_count < 0 || sag->coefficient_count > OSC_SAG_MAX_COEFFICIENTS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: sag->coefficient_count is %d; it must be in 0..%d", function,
                        sag->coefficient_count, OSC_SAG_MAX_COEFFICIENTS);
    for (int i = 0; i < sag->coefficient_count; ++i)
        if (!isfinite(sag->coefficients[i]))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: sag->coefficients[%d] is %g; it must be finite", function, i,
                            sag->coefficients[i]);
    double half = 0.5 * sag->diameter, c = sag->curvature;
    if (!(1.0 - (1.0 + sag->conic) * c * c * half * half > 0.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the aperture (diameter %g) reaches beyond the conic's domain "
                        "(1 - (1 + k) c^2 (D/2)^2 <= 0 with c %g, k %g)",
                        function, sag->diameter, c, sag->conic);
    return OSC_OK;
}

// the sag's extent over the aperture [*lo, *hi] from 65 samples, where its value, slope and
// curvature terms must be finite and the value within OSC_SDF_LENGTH_MAX
static osc_status sample_sag(const char* function, const osc_sag* sag, double* lo, double* hi) {
    double half = 0.5 * sag->diameter;
    *lo = *hi = 0.0;
    for (int i = 0; i <= 64; ++i) {
        double r = half * i / 64.0, u, v, g = sag_value(sag, r * r, &u, &v);
        if (!(fabs(g) <= OSC_SDF_LENGTH_MAX) || !isfinite(u * r) || !isfinite(v * r * r))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: the sag is %g with slope %g at r = %g, beyond "
                            "1e30 (OSC_SDF_LENGTH_MAX) or not finite: sag->coefficients or sag->curvature "
                            "too large for the diameter %g",
                            function, g, u * r, r, sag->diameter);
        *lo = fmin(*lo, g);
        *hi = fmax(*hi, g);
    }
    return OSC_OK;
}

osc_status osc_implicit_create_sag(const osc_sag* sag, osc_implicit** out) {
    osc_status status = check_out(__func__, out);
    if (status == OSC_OK) status = check_sag(__func__, sag);
    double lo, hi;
    if (status == OSC_OK) status = sample_sag(__func__, sag, &lo, &hi);
    if (status != OSC_OK) return status;
    osc_implicit* surface = osc_calloc(1, sizeof *surface);
    if (!surface) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    surface->kind = IMPLICIT_SAG;
    surface->sag = *sag;
    surface->half_aperture = 0.5 * sag->diameter;
    // the bounding sphere: the cap's extreme sag over the aperture, sampled, with a relative margin
    surface->centre = osc_v3(0.5 * (lo + hi), 0.0, 0.0);
    surface->radius = hypot(0.5 * (hi - lo), surface->half_aperture) * 1.01;
    *out = surface;
    return OSC_OK;
}

osc_status osc_implicit_create_sdf(const osc_sdf* sdf, osc_implicit** out) {
    osc_status status = check_out(__func__, out);
    if (status != OSC_OK) return status;
    if (!sdf) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: sdf is NULL", __func__);
    osc_vec3 lo, hi;
    osc_sdf_bounds(sdf, &lo, &hi);
    if (!osc_vec3_is_finite(lo) || !osc_vec3_is_finite(hi))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the SDF is unbounded; give a user function "
                        "with a bounding sphere instead",
                        __func__);
    if (lo.x > hi.x || lo.y > hi.y || lo.z > hi.z)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the SDF's bounds are empty (it has no surface)", __func__);
    osc_implicit* surface = osc_calloc(1, sizeof *surface);
    if (!surface) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    surface->kind = IMPLICIT_SDF;
    surface->sdf = sdf;
    surface->centre = osc_scale(osc_add(lo, hi), 0.5);
    surface->radius = 0.5 * osc_length(osc_sub(hi, lo)) * 1.01;
    *out = surface;
    return OSC_OK;
}

osc_status osc_implicit_create_function(osc_implicit_function function, void* context, osc_vec3 centre, double radius,
                                        osc_implicit** out) {
    osc_status status = check_out(__func__, out);
    if (status != OSC_OK) return status;
    if (!function) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: function is NULL", __func__);
    if ((status = sdf_check_point(__func__, "centre", centre)) ||
        (status = sdf_check_length(__func__, "radius", radius)))
        return status;
    osc_implicit* surface = osc_calloc(1, sizeof *surface);
    if (!surface) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    surface->kind = IMPLICIT_FUNCTION;
    surface->function = function;
    surface->context = context;
    surface->centre = centre;
    surface->radius = radius;
    *out = surface;
    return OSC_OK;
}

void osc_implicit_destroy(osc_implicit* surface) { osc_free(surface); }

// ---------------------------------------------------------------------------------------------
// evaluation

// inside the aperture F = g(r) - x: grad = (-1, u y, u z), Hessian [0; 0, u + v y^2, v y z; ...];
// outside, the band F = (x - A_x)^2 + (r - A_r)^2: grad = (2 (x - A_x), 2 (r - A_r) y / r, ...)
static double sag_eval(const osc_implicit* s, osc_vec3 p, osc_vec3* gradient, osc_mat3* hessian) {
    double r2 = p.y * p.y + p.z * p.z, half = s->half_aperture;
    if (r2 <= half * half) {
        double u, v, g = sag_value(&s->sag, r2, &u, &v);
        if (gradient) *gradient = osc_v3(-1.0, u * p.y, u * p.z);
        if (hessian) {
            *hessian = osc_mat3_zero();
            hessian->m[1][1] = u + v * p.y * p.y;
            hessian->m[1][2] = hessian->m[2][1] = v * p.y * p.z;
            hessian->m[2][2] = u + v * p.z * p.z;
        }
        return g - p.x;
    }
    double r = sqrt(r2), ax = sag_value(&s->sag, half * half, NULL, NULL);
    double dx = p.x - ax, dr = r - half;
    if (gradient) *gradient = osc_v3(2.0 * dx, 2.0 * dr * p.y / r, 2.0 * dr * p.z / r);
    if (hessian) {
        // d/dy (2 dr y / r) = 2 y^2 / r^2 + 2 dr (r^2 - y^2) / r^3
        *hessian = osc_mat3_zero();
        hessian->m[0][0] = 2.0;
        double yz[2] = {p.y, p.z};
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
                hessian->m[1 + i][1 + j] =
                    2.0 * yz[i] * yz[j] / r2 + 2.0 * dr * ((i == j ? r2 : 0.0) - yz[i] * yz[j]) / (r2 * r);
    }
    return dx * dx + dr * dr;
}

double osc_implicit_eval(const osc_implicit* surface, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian) {
    if (!surface) {
        if (gradient) *gradient = osc_v3(NAN, NAN, NAN);
        if (hessian)
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) hessian->m[i][k] = NAN;
        return NAN;
    }
    switch (surface->kind) {
        case IMPLICIT_SAG: return sag_eval(surface, point, gradient, hessian);
        case IMPLICIT_SDF: return osc_sdf_eval(surface->sdf, point, gradient, hessian);
        case IMPLICIT_FUNCTION: {
            double p[3] = {point.x, point.y, point.z}, g[3] = {0, 0, 0};
            double value = surface->function(surface->context, p, g);
            if (gradient) *gradient = osc_v3(g[0], g[1], g[2]);
            if (hessian) *hessian = osc_mat3_zero();
            return value;
        }
    }
    return NAN;
}

int osc_implicit_in_domain(const osc_implicit* surface, osc_vec3 point) {
    if (!surface) return 0;
    if (surface->kind != IMPLICIT_SAG) return 1;
    return point.y * point.y + point.z * point.z <= surface->half_aperture * surface->half_aperture * (1.0 + 1e-12);
}

double osc_implicit_sag(const osc_implicit* surface, double r, double* derivative) {
    if (!surface || surface->kind != IMPLICIT_SAG) {
        if (derivative) *derivative = NAN;
        return NAN;
    }
    double u, g = sag_value(&surface->sag, r * r, &u, NULL);
    if (derivative) *derivative = u * r;
    return g;
}

void osc_implicit_bounding_sphere(const osc_implicit* surface, osc_vec3* centre, double* radius) {
    if (centre) *centre = surface ? surface->centre : osc_v3(NAN, NAN, NAN);
    if (radius) *radius = surface ? surface->radius : NAN;
}

// d g / d(c, k, a_i) at r^2 (with s = sqrt(1 - (1 + k) c^2 r^2)):
//   dg/dc = r^2 / (1 + s) + (1 + k) c^2 r^4 / (s (1 + s)^2),  dg/dk = c^3 r^4 / (2 s (1 + s)^2),
//   dg/da_i = r^(2i+4)
static void sag_parameter_gradient(const osc_sag* sag, double r2, double* out) {
    double c = sag->curvature, k1 = 1.0 + sag->conic;
    double s = sqrt(fmax(1.0 - k1 * c * c * r2, 0.0)), d = (1.0 + s) * (1.0 + s);
    out[0] = r2 / (1.0 + s) + k1 * c * c * r2 * r2 / (s * d);
    out[1] = c * c * c * r2 * r2 / (2.0 * s * d);
    double power = r2 * r2;
    for (int i = 0; i < sag->coefficient_count; ++i) {
        out[2 + i] = power;
        power *= r2;
    }
}

int implicit_sag_parameter_gradient(const osc_implicit* surface, osc_vec3 p, double* out) {
    int count = 2 + surface->sag.coefficient_count;
    double r2 = p.y * p.y + p.z * p.z, half = surface->half_aperture;
    if (r2 <= half * half) {
        sag_parameter_gradient(&surface->sag, r2, out); // F = g - x
        return count;
    }
    // the band moves with its rim point: dF = -2 (x - A_x) dA_x, A_x = g(D/2)
    double ax = sag_value(&surface->sag, half * half, NULL, NULL);
    sag_parameter_gradient(&surface->sag, half * half, out);
    for (int i = 0; i < count; ++i) out[i] *= -2.0 * (p.x - ax);
    return count;
}

// d(grad F)/d(theta): inside the aperture grad F = (-1, u y, u z) with
//   du/dc = 1/s + (1 + k) c^2 r^2 / s^3,  du/dk = c^3 r^2 / (2 s^3),  du/da_i = (2i+4) r^(2i+2);
// outside, grad F = (2 (x - A_x), ...) moves with the rim: (-2 dA_x/dtheta, 0, 0)
void implicit_sag_parameter_gradient_of_gradient(const osc_implicit* surface, osc_vec3 p, double (*out)[3]) {
    const osc_sag* sag = &surface->sag;
    int count = 2 + sag->coefficient_count;
    double r2 = p.y * p.y + p.z * p.z, half = surface->half_aperture;
    if (r2 > half * half) {
        double rim[2 + OSC_SAG_MAX_COEFFICIENTS];
        sag_parameter_gradient(sag, half * half, rim);
        for (int i = 0; i < count; ++i) {
            out[i][0] = -2.0 * rim[i];
            out[i][1] = out[i][2] = 0.0;
        }
        return;
    }
    double c = sag->curvature, k1 = 1.0 + sag->conic;
    double s = sqrt(fmax(1.0 - k1 * c * c * r2, 0.0)), s3 = s * s * s;
    double du[2 + OSC_SAG_MAX_COEFFICIENTS];
    du[0] = 1.0 / s + k1 * c * c * r2 / s3;
    du[1] = c * c * c * r2 / (2.0 * s3);
    double power = r2;
    for (int i = 0; i < sag->coefficient_count; ++i) {
        du[2 + i] = (2.0 * i + 4.0) * power;
        power *= r2;
    }
    for (int i = 0; i < count; ++i) {
        out[i][0] = 0.0;
        out[i][1] = du[i] * p.y;
        out[i][2] = du[i] * p.z;
    }
}
