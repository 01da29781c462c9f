// force.c: compliant contact forces (a smoothed Hunt-Crossley spring-damper and regularised
// Coulomb friction) and the two bodies' wrenches, with their exact pose and velocity Jacobians.
// docs/force.md derives every formula used here.

#include "osculate/force.h"

#include "osculate/smooth.h"
#include "query_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char* const FUNCTION = "osc_force_evaluate";

osc_force_settings osc_force_settings_default(void) {
    return (osc_force_settings){.stiffness = 1e4,
                                .exponent = 1.5,
                                .damping = 1.0,
                                .friction = 0.5,
                                .friction_velocity = 1e-3,
                                .depth_temperature = 1e-4,
                                .damping_temperature = 0.01};
}

// ---------------------------------------------------------------------------------------------
// argument checks

// value in [lo, hi] (lo excluded when `open`), else the message naming settings.name
static osc_status check_setting(const char* name, double value, double lo, double hi, bool open) {
    bool inside = (open ? value > lo : value >= lo) && value <= hi;
    if (inside) return OSC_OK;
    return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.%s %g is outside %s%g, %g]", FUNCTION, name, value,
                    open ? "(" : "[", lo, hi);
}

static osc_status check_settings(const osc_force_settings* s) {
    const double big = OSC_FORCE_MAX_MAGNITUDE;
    osc_status status;
    if ((status = check_setting("stiffness", s->stiffness, 0.0, big, true))) return status;
    if ((status = check_setting("exponent", s->exponent, 1.0, 4.0, false))) return status;
    if ((status = check_setting("damping", s->damping, 0.0, big, false))) return status;
    if ((status = check_setting("friction", s->friction, 0.0, 100.0, false))) return status;
    if ((status = check_setting("friction_velocity", s->friction_velocity, 0.0, big, true))) return status;
    if ((status = check_setting("depth_temperature", s->depth_temperature, 0.0, big, false))) return status;
    return check_setting("damping_temperature", s->damping_temperature, 0.0, big, false);
}

static bool is_sane(double value) { return fabs(value) <= OSC_FORCE_MAX_MAGNITUDE; } // false for NaN

static bool is_sane3(osc_vec3 v) { return is_sane(v.x) && is_sane(v.y) && is_sane(v.z); }

static osc_status check_vector(const char* name, int index, const char* field, osc_vec3 v) {
    if (is_sane3(v)) return OSC_OK;
    char label[64];
    if (index >= 0)
        snprintf(label, sizeof label, "contacts[%d].%s", index, field);
    else
        snprintf(label, sizeof label, "%s.%s", name, field);
    return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s = (%g, %g, %g) is not finite or beyond %g", FUNCTION, label, v.x,
                    v.y, v.z, OSC_FORCE_MAX_MAGNITUDE);
}

static osc_status check_jacobian(int index, const char* field, const double* jacobian, int size) {
    if (!jacobian) return OSC_OK;
    for (int k = 0; k < size; ++k)
        if (!is_sane(jacobian[k]))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: contacts[%d].%s[%d] = %g is not finite or beyond %g",
                            FUNCTION, index, field, k, jacobian[k], OSC_FORCE_MAX_MAGNITUDE);
    return OSC_OK;
}

static osc_status check_contact(const osc_force_contact* c, int index) {
    osc_status status;
    if ((status = check_vector(NULL, index, "point", c->point))) return status;
    if ((status = check_vector(NULL, index, "normal", c->normal))) return status;
    if (!is_sane(c->distance))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: contacts[%d].distance = %g is not finite or beyond %g", FUNCTION,
                        index, c->distance, OSC_FORCE_MAX_MAGNITUDE);
    if (!(c->weight >= 0.0 && c->weight <= 1.0 + 1e-9))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: contacts[%d].weight = %g is outside [0, 1]", FUNCTION, index,
                        c->weight);
    double length = osc_length(c->normal);
    if (c->weight > 0.0 && !(fabs(length - 1.0) <= 1e-6))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: contacts[%d].normal has length %.9g; it must be a unit vector",
                        FUNCTION, index, length);
    if ((status = check_jacobian(index, "point_jacobian", c->point_jacobian, 36))) return status;
    if ((status = check_jacobian(index, "normal_jacobian", c->normal_jacobian, 36))) return status;
    if ((status = check_jacobian(index, "distance_jacobian", c->distance_jacobian, 12))) return status;
    return check_jacobian(index, "weight_jacobian", c->weight_jacobian, 12);
}

// ---------------------------------------------------------------------------------------------
// one contact

static osc_vec3 mat3_apply(double m[3][3], osc_vec3 v) {
    return osc_v3(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
                  m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

static osc_vec3 column(const double* jacobian, int j) {
    return jacobian ? osc_v3(jacobian[j], jacobian[12 + j], jacobian[24 + j]) : osc_v3(0.0, 0.0, 0.0);
}

// the rows (force A, torque A, force B, torque B) of column j of a [12][12] Jacobian, added to
static void add_column(double* jacobian, int j, osc_vec3 force_b, osc_vec3 torque_a, osc_vec3 torque_b) {
    const double values[12] = {-force_b.x, -force_b.y, -force_b.z, torque_a.x, torque_a.y, torque_a.z,
                               force_b.x,  force_b.y,  force_b.z,  torque_b.x, torque_b.y, torque_b.z};
    for (int row = 0; row < 12; ++row) jacobian[row * 12 + j] += values[row];
}

// the two bodies' origins and velocities
typedef struct force_bodies {
    osc_vec3 p_a, p_b;
    osc_body_velocity va, vb;
} force_bodies;

// the sums over the contacts: B's force, the torques about each origin, and the Jacobians (nullable)
typedef struct force_sum {
    osc_vec3 force_b, torque_a, torque_b;
    double* pose_jacobian;
    double* velocity_jacobian;
} force_sum;

// adds contact c's force and, where requested, its Jacobian columns (docs/force.md §3, §4)
static void add_contact(const osc_force_contact* c, const force_bodies* bodies, const osc_force_settings* s,
                        osc_force_contact_result* result, force_sum* sum) {
    const osc_vec3 p_a = bodies->p_a, p_b = bodies->p_b;
    const osc_body_velocity va = bodies->va, vb = bodies->vb;
    osc_vec3 x = c->point, n = c->normal;
    double w = c->weight;
    osc_vec3 ra = osc_sub(x, p_a), rb = osc_sub(x, p_b);
    // relative velocity of B's material point over A's at x, its normal and tangential parts
    osc_vec3 v = osc_sub(osc_add(vb.linear, osc_cross(vb.angular, rb)), osc_add(va.linear, osc_cross(va.angular, ra)));
    double vn = osc_dot(n, v);
    double rate = -vn;
    osc_vec3 vt = osc_add_scaled(v, n, -vn);
    // normal force f_n = k s+(delta)^e g, g = s+(1 + c r)
    double sigma_d, sigma_c;
    double depth = osc_softplus(-c->distance, s->depth_temperature, &sigma_d, NULL);
    double power = pow(depth, s->exponent - 1.0);
    double spring = s->stiffness * power * depth;
    double factor = osc_softplus(1.0 + s->damping * rate, s->damping_temperature, &sigma_c, NULL);
    double fn = spring * factor;
    double fn_depth = s->stiffness * s->exponent * power * sigma_d * factor; // d f_n / d delta
    double fn_rate = spring * sigma_c * s->damping;                          // d f_n / d r
    // friction direction u = v_t / q, m = n - mu u, F = w f_n m
    double mu = s->friction;
    double q = sqrt(osc_dot(vt, vt) + s->friction_velocity * s->friction_velocity);
    osc_vec3 u = osc_scale(vt, 1.0 / q);
    osc_vec3 m = osc_add_scaled(n, u, -mu);
    osc_vec3 force = osc_scale(m, w * fn);
    if (result) {
        result->normal_force = fn;
        result->penetration_rate = rate;
        result->slip_velocity = vt;
        result->force = force;
    }
    sum->force_b = osc_add(sum->force_b, force);
    sum->torque_b = osc_add(sum->torque_b, osc_cross(rb, force));
    sum->torque_a = osc_sub(sum->torque_a, osc_cross(ra, force));
    if (!sum->pose_jacobian && !sum->velocity_jacobian) return;

    // dF = G_v dv + G_n dn + g_d dd + g_w dw (docs/force.md §4)
    // U = (I - u u^T) / q, P = I - n n^T
    double gv[3][3], gn[3][3];
    double nv[3] = {n.x, n.y, n.z}, uv[3] = {u.x, u.y, u.z}, mv[3] = {m.x, m.y, m.z}, vv[3] = {v.x, v.y, v.z};
    double up[3][3]; // U P
    {
        double uu[3][3], pp[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                uu[i][j] = ((i == j) - uv[i] * uv[j]) / q;
                pp[i][j] = (i == j) - nv[i] * nv[j];
            }
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) up[i][j] = uu[i][0] * pp[0][j] + uu[i][1] * pp[1][j] + uu[i][2] * pp[2][j];
        // G_v = w [-f_r m n^T - f_n mu U P]
        // G_n = w [-f_r m v^T + f_n I + f_n mu U (vn I + n v^T)]; U n = (n - u (u.n)) / q with u.n = 0
        // up to rounding, but kept exact as written
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                gv[i][j] = w * (-fn_rate * mv[i] * nv[j] - fn * mu * up[i][j]);
                double un = uu[i][0] * nv[0] + uu[i][1] * nv[1] + uu[i][2] * nv[2];
                gn[i][j] = w * (-fn_rate * mv[i] * vv[j] + fn * (i == j) + fn * mu * (uu[i][j] * vn + un * vv[j]));
            }
    }
    osc_vec3 gd = osc_scale(m, -w * fn_depth); // dF / dd (delta = -d)
    osc_vec3 gw = osc_scale(m, fn);            // dF / dw

    if (sum->velocity_jacobian) {
        for (int j = 0; j < 12; ++j) {
            int axis = j % 3;
            osc_vec3 e = osc_v3(axis == 0, axis == 1, axis == 2);
            osc_vec3 dv; // d v_rel along velocity coordinate j
            if (j < 3)
                dv = osc_neg(e);
            else if (j < 6)
                dv = osc_cross(ra, e);
            else if (j < 9)
                dv = e;
            else
                dv = osc_cross(e, rb);
            osc_vec3 df = mat3_apply(gv, dv);
            add_column(sum->velocity_jacobian, j, df, osc_neg(osc_cross(ra, df)), osc_cross(rb, df));
        }
    }
    if (sum->pose_jacobian) {
        for (int j = 0; j < 12; ++j) {
            osc_vec3 dx = column(c->point_jacobian, j), dn = column(c->normal_jacobian, j);
            double dd = c->distance_jacobian ? c->distance_jacobian[j] : 0.0;
            double dw = c->weight_jacobian ? c->weight_jacobian[j] : 0.0;
            osc_vec3 dra = dx, drb = dx; // d(x - p_X): p_A moves with A's translation only
            if (j < 3) dra = osc_sub(dx, osc_v3(j == 0, j == 1, j == 2));
            if (j >= 6 && j < 9) drb = osc_sub(dx, osc_v3(j == 6, j == 7, j == 8));
            osc_vec3 dv = osc_sub(osc_cross(vb.angular, drb), osc_cross(va.angular, dra));
            osc_vec3 df =
                osc_add(osc_add(mat3_apply(gv, dv), mat3_apply(gn, dn)), osc_add(osc_scale(gd, dd), osc_scale(gw, dw)));
            osc_vec3 dta = osc_neg(osc_add(osc_cross(dra, force), osc_cross(ra, df)));
            osc_vec3 dtb = osc_add(osc_cross(drb, force), osc_cross(rb, df));
            add_column(sum->pose_jacobian, j, df, dta, dtb);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// the call

osc_status osc_force_evaluate(const osc_force_contact* contacts, int32_t count, osc_pose pose_a,
                              osc_body_velocity velocity_a, osc_pose pose_b, osc_body_velocity velocity_b,
                              const osc_force_settings* settings, osc_force_output* out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", FUNCTION);
    if (count < 0 || count > OSC_FORCE_MAX_CONTACTS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count %d is outside [0, %d]", FUNCTION, (int)count,
                        OSC_FORCE_MAX_CONTACTS);
    if (count > 0 && !contacts)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: contacts is NULL with count %d", FUNCTION, (int)count);
    osc_status status;
    if ((status = osc_check_pose(FUNCTION, "pose_a", pose_a, OSC_FORCE_MAX_MAGNITUDE, "OSC_FORCE_MAX_MAGNITUDE", NULL)))
        return status;
    if ((status = osc_check_pose(FUNCTION, "pose_b", pose_b, OSC_FORCE_MAX_MAGNITUDE, "OSC_FORCE_MAX_MAGNITUDE", NULL)))
        return status;
    if ((status = check_vector("velocity_a", -1, "linear", velocity_a.linear))) return status;
    if ((status = check_vector("velocity_a", -1, "angular", velocity_a.angular))) return status;
    if ((status = check_vector("velocity_b", -1, "linear", velocity_b.linear))) return status;
    if ((status = check_vector("velocity_b", -1, "angular", velocity_b.angular))) return status;
    osc_force_settings s = settings ? *settings : osc_force_settings_default();
    if ((status = check_settings(&s))) return status;
    for (int32_t i = 0; i < count; ++i)
        if ((status = check_contact(&contacts[i], (int)i))) return status;

    if (out->pose_jacobian) memset(out->pose_jacobian, 0, 144 * sizeof(double));
    if (out->velocity_jacobian) memset(out->velocity_jacobian, 0, 144 * sizeof(double));
    const force_bodies bodies = {pose_a.p, pose_b.p, velocity_a, velocity_b};
    force_sum sum = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, out->pose_jacobian, out->velocity_jacobian};
    for (int32_t i = 0; i < count; ++i) {
        osc_force_contact_result* result = out->contacts ? &out->contacts[i] : NULL;
        if (contacts[i].weight == 0.0 && osc_dot(contacts[i].normal, contacts[i].normal) == 0.0) {
            // a contact that carries no force and has no direction (the manifold's zero normal)
            if (result) memset(result, 0, sizeof *result);
            continue;
        }
        add_contact(&contacts[i], &bodies, &s, result, &sum);
    }
    const osc_vec3 force_b = sum.force_b, torque_a = sum.torque_a, torque_b = sum.torque_b;
    const double wrench[12] = {-force_b.x, -force_b.y, -force_b.z, torque_a.x, torque_a.y, torque_a.z,
                               force_b.x,  force_b.y,  force_b.z,  torque_b.x, torque_b.y, torque_b.z};
    memcpy(out->wrench_a, wrench, sizeof out->wrench_a);
    memcpy(out->wrench_b, wrench + 6, sizeof out->wrench_b);
    bool finite = true;
    for (int k = 0; k < 12; ++k) finite = finite && isfinite(wrench[k]);
    for (int k = 0; k < 144; ++k) {
        if (out->pose_jacobian) finite = finite && isfinite(out->pose_jacobian[k]);
        if (out->velocity_jacobian) finite = finite && isfinite(out->velocity_jacobian[k]);
    }
    if (!finite)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the force overflows (settings.stiffness %g, settings.exponent %g and the depths and "
                        "velocities given are too large together)",
                        FUNCTION, s.stiffness, s.exponent);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// contacts from each query family

static osc_force_contact make_contact(osc_vec3 point, osc_vec3 normal, double distance) {
    osc_force_contact c;
    memset(&c, 0, sizeof c);
    c.point = point;
    c.normal = normal;
    c.distance = distance;
    c.weight = 1.0;
    return c;
}

osc_force_contact osc_force_contact_from_manifold(const osc_manifold_output* output, int32_t i) {
    const osc_manifold_contact* k = &output->contacts[i];
    osc_force_contact c = make_contact(k->point, k->normal, k->distance);
    c.weight = k->weight;
    size_t i3 = (size_t)i * 36, i1 = (size_t)i * 12;
    c.point_jacobian = output->point_jacobians ? output->point_jacobians + i3 : NULL;
    c.normal_jacobian = output->normal_jacobians ? output->normal_jacobians + i3 : NULL;
    c.distance_jacobian = output->distance_jacobians ? output->distance_jacobians + i1 : NULL;
    c.weight_jacobian = output->weight_jacobians ? output->weight_jacobians + i1 : NULL;
    return c;
}

osc_force_contact osc_force_contact_from_dcol(const osc_dcol_result* result, const osc_dcol_jacobians* jacobians) {
    osc_force_contact c = make_contact(result->point, result->normal, result->distance);
    if (jacobians) {
        c.point_jacobian = jacobians->point;
        c.normal_jacobian = jacobians->normal;
        c.distance_jacobian = jacobians->distance;
    }
    return c;
}

osc_force_contact osc_force_contact_from_sdf_pair(const osc_sdf_pair_output* output, int32_t i) {
    const osc_sdf_pair_contact* k = &output->contacts[i];
    osc_force_contact c = make_contact(k->point, k->normal, k->distance);
    if (k->smooth) {
        c.point_jacobian = output->point_jacobians ? output->point_jacobians + (size_t)i * 36 : NULL;
        c.distance_jacobian = output->distance_jacobians ? output->distance_jacobians + (size_t)i * 12 : NULL;
    }
    return c;
}

osc_force_contact osc_force_contact_from_lmd(const osc_lmd_output* output, int32_t i) {
    const osc_lmd_contact* k = &output->contacts[i];
    osc_force_contact c = make_contact(osc_scale(osc_add(k->point_a, k->point_b), 0.5), k->normal, k->distance);
    c.distance_jacobian = output->distance_jacobians ? output->distance_jacobians + (size_t)i * 12 : NULL;
    return c;
}
