// test_force.c: the contact force model (force.h) against closed forms (a sphere resting on a
// plane, damping, friction, rolling), every Jacobian column against central differences for
// contacts from an analytic sphere-plane pair, the manifold, DCOL, SDF pairs and LMD, momentum
// balance, a smoothness sweep through zero penetration and bad arguments.

#include "osculate/force.h"
#include "query_fixtures.h"
#include "test_common.h"

#include <stdbool.h>

static double softplus_reference(double x, double tau) {
    if (!(tau > 0.0)) return x > 0.0 ? x : 0.0;
    return x > 0.0 ? x + tau * log1p(exp(-x / tau)) : tau * log1p(exp(x / tau));
}

static const osc_body_velocity REST = {{0, 0, 0}, {0, 0, 0}};

// ---------------------------------------------------------------------------------------------
// contact sources: a function of the two poses writing contacts (with Jacobians when asked)

enum { MAX_CONTACTS = 512 };

typedef struct source source;
struct source {
    const char* name;
    int (*contacts)(source* s, osc_pose pa, osc_pose pb, bool jacobians, osc_force_contact* out);
    const query_models* models;
    double radius; // sphere-plane
    osc_manifold_contact manifold_contacts[MAX_CONTACTS];
    double point_jacobians[MAX_CONTACTS][36], normal_jacobians[MAX_CONTACTS][36];
    double distance_jacobians[MAX_CONTACTS][12], weight_jacobians[MAX_CONTACTS][12];
    osc_dcol_result dcol;
    osc_sdf_pair_contact pair_contacts[MAX_CONTACTS];
    osc_lmd_contact lmd_contacts[64];
    osc_lmd_cache* cache;
};

// body A a plane through p_A with normal R_A e_z, body B a sphere of radius r centred at p_B:
// n = R_A e_z, d = n.(p_B - p_A) - r, x = p_B - r n, and their Jacobians written by hand
static int sphere_plane(source* s, osc_pose pa, osc_pose pb, bool jacobians, osc_force_contact* out) {
    double r = s->radius;
    osc_vec3 n = osc_quat_rotate(osc_quat_normalize(pa.q), osc_v3(0, 0, 1));
    osc_vec3 gap = osc_sub(pb.p, pa.p);
    osc_force_contact c = {
        .point = osc_sub(pb.p, osc_scale(n, r)), .normal = n, .distance = osc_dot(n, gap) - r, .weight = 1.0};
    if (jacobians) {
        double* pj = s->point_jacobians[0];
        double* nj = s->normal_jacobians[0];
        double* dj = s->distance_jacobians[0];
        memset(pj, 0, 36 * sizeof(double));
        memset(nj, 0, 36 * sizeof(double));
        osc_mat3 skew_n = osc_skew(n); // [n]x
        osc_vec3 n_gap = osc_cross(n, gap);
        double ng[3] = {n.x, n.y, n.z}, cg[3] = {n_gap.x, n_gap.y, n_gap.z};
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                nj[i * 12 + 3 + j] = -skew_n.m[i][j];    // dn = dtheta_A x n
                pj[i * 12 + 3 + j] = r * skew_n.m[i][j]; // dx = dp_B - r dn
                pj[i * 12 + 6 + j] = i == j;
            }
            dj[i] = -ng[i];
            dj[3 + i] = cg[i]; // (dtheta x n).gap = dtheta.(n x gap)
            dj[6 + i] = ng[i];
            dj[9 + i] = 0.0;
        }
        c.point_jacobian = pj;
        c.normal_jacobian = nj;
        c.distance_jacobian = dj;
    }
    out[0] = c;
    return 1;
}

static int manifold_source(source* s, osc_pose pa, osc_pose pb, bool jacobians, osc_force_contact* out) {
    osc_manifold_output o = {.contacts = s->manifold_contacts, .capacity = MAX_CONTACTS};
    if (jacobians) {
        o.point_jacobians = s->point_jacobians[0];
        o.normal_jacobians = s->normal_jacobians[0];
        o.distance_jacobians = s->distance_jacobians[0];
        o.weight_jacobians = s->weight_jacobians[0];
    }
    CHECK_STATUS(osc_manifold_collide(s->models->slab_body, pa, s->models->ball_body, pb, NULL, &o), OSC_OK);
    for (int i = 0; i < o.count; ++i) out[i] = osc_force_contact_from_manifold(&o, i);
    return o.count;
}

static int dcol_source(source* s, osc_pose pa, osc_pose pb, bool jacobians, osc_force_contact* out) {
    osc_dcol_jacobians j = {NULL, s->point_jacobians[0], NULL, NULL, s->distance_jacobians[0], s->normal_jacobians[0]};
    CHECK_STATUS(osc_dcol_proximity(s->models->convex_box, pa, s->models->capsule, pb, NULL, &s->dcol,
                                    jacobians ? &j : NULL, NULL),
                 OSC_OK);
    out[0] = osc_force_contact_from_dcol(&s->dcol, jacobians ? &j : NULL);
    return 1;
}

static int sdf_pair_source(source* s, osc_pose pa, osc_pose pb, bool jacobians, osc_force_contact* out) {
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    settings.temperature = 0.05;
    osc_sdf_pair_output o = {.contacts = s->pair_contacts, .capacity = MAX_CONTACTS};
    if (jacobians) {
        o.point_jacobians = s->point_jacobians[0];
        o.distance_jacobians = s->distance_jacobians[0];
    }
    CHECK_STATUS(osc_sdf_pair_collide(&s->models->pair_ball, pa, &s->models->pair_box, pb, &settings, &o), OSC_OK);
    for (int i = 0; i < o.count; ++i) out[i] = osc_force_contact_from_sdf_pair(&o, i);
    return o.count;
}

static int lmd_source(source* s, osc_pose pa, osc_pose pb, bool jacobians, osc_force_contact* out) {
    osc_lmd_settings settings = fixture_lmd_settings();
    osc_lmd_output o = {.contacts = s->lmd_contacts, .capacity = 64};
    if (jacobians) o.distance_jacobians = s->distance_jacobians[0];
    CHECK_STATUS(osc_lmd_query(s->models->brep_box, pa, s->models->cylinder, pb, &settings, s->cache, &o, 1), OSC_OK);
    for (int i = 0; i < o.count; ++i) out[i] = osc_force_contact_from_lmd(&o, i);
    return o.count;
}

// ---------------------------------------------------------------------------------------------
// central differences of the wrenches

typedef struct wrenches {
    double w[12]; // wrench_a then wrench_b
} wrenches;

static wrenches evaluate(const osc_force_contact* c, int count, osc_pose pa, osc_body_velocity va, osc_pose pb,
                         osc_body_velocity vb, const osc_force_settings* settings, double* pose_j, double* vel_j) {
    osc_force_output out = {.pose_jacobian = pose_j, .velocity_jacobian = vel_j};
    CHECK_STATUS(osc_force_evaluate(c, count, pa, va, pb, vb, settings, &out), OSC_OK);
    wrenches w;
    memcpy(w.w, out.wrench_a, sizeof out.wrench_a);
    memcpy(w.w + 6, out.wrench_b, sizeof out.wrench_b);
    return w;
}

static void velocity_add(osc_body_velocity* v, int j, double h) {
    double* target = j < 3 ? &v->linear.x : &v->angular.x;
    target[j % 3] += h;
}

// the pose Jacobian and the velocity Jacobian of the wrenches against central differences (step h
// for poses, 1e-6 for velocities); a quantity without a Jacobian (frozen: SDF-pair normals, LMD
// points and normals) is held at its base value in the perturbed evaluations, as osc_force_evaluate
// holds it. Returns the worst error of each, relative to the largest entry of the Jacobian.
static void fd_check(source* s, osc_pose pa, osc_body_velocity va, osc_pose pb, osc_body_velocity vb,
                     const osc_force_settings* settings, double h, double tolerance, double worst[2]) {
    static osc_force_contact base[MAX_CONTACTS], at[MAX_CONTACTS];
    int count = s->contacts(s, pa, pb, true, base);
    CHECK_MSG(count > 0, "%s: no contacts", s->name);
    double pose_j[144], vel_j[144];
    evaluate(base, count, pa, va, pb, vb, settings, pose_j, vel_j);
    double fd_pose[144], fd_vel[144];
    for (int col = 0; col < 12; ++col) {
        wrenches side[2];
        for (int k = 0; k < 2; ++k) {
            double xi[6] = {0, 0, 0, 0, 0, 0};
            xi[col % 6] = k ? -h : h;
            osc_pose qa = col < 6 ? osc_pose_apply_twist(pa, xi) : pa, qb = col < 6 ? pb : osc_pose_apply_twist(pb, xi);
            int n = s->contacts(s, qa, qb, false, at);
            for (int i = 0; i < n && i < count; ++i) {
                if (!base[i].point_jacobian) at[i].point = base[i].point;
                if (!base[i].normal_jacobian) at[i].normal = base[i].normal;
            }
            if ((!base[0].point_jacobian || !base[0].normal_jacobian) && n != count)
                CHECK_MSG(0, "%s: %d contacts at a perturbed pose, %d at the base", s->name, n, count);
            side[k] = evaluate(at, n, qa, va, qb, vb, settings, NULL, NULL);
        }
        for (int row = 0; row < 12; ++row) fd_pose[row * 12 + col] = (side[0].w[row] - side[1].w[row]) / (2.0 * h);
        const double hv = 1e-6;
        for (int k = 0; k < 2; ++k) {
            osc_body_velocity wa = va, wb = vb;
            velocity_add(col < 6 ? &wa : &wb, col % 6, k ? -hv : hv);
            side[k] = evaluate(base, count, pa, wa, pb, wb, settings, NULL, NULL);
        }
        for (int row = 0; row < 12; ++row) fd_vel[row * 12 + col] = (side[0].w[row] - side[1].w[row]) / (2.0 * hv);
    }
    const double* analytic[2] = {pose_j, vel_j};
    const double* fd[2] = {fd_pose, fd_vel};
    for (int which = 0; which < 2; ++which) {
        double scale = 0.0, error = 0.0;
        int at_row = 0, at_col = 0;
        for (int k = 0; k < 144; ++k) scale = fmax(scale, fabs(fd[which][k]));
        for (int k = 0; k < 144; ++k) {
            double e = fabs(analytic[which][k] - fd[which][k]);
            if (e > error) error = e, at_row = k / 12, at_col = k % 12;
        }
        worst[which] = error / scale;
        CHECK_MSG(worst[which] <= tolerance && scale > 0.0,
                  "%s: %s Jacobian entry (%d, %d): analytic %.10g, differences %.10g, error %.3g of the largest "
                  "entry %.3g (tolerance %.1g)",
                  s->name, which ? "velocity" : "pose", at_row, at_col, analytic[which][at_row * 12 + at_col],
                  fd[which][at_row * 12 + at_col], worst[which], scale, tolerance);
    }
    printf("  %-12s %3d contacts: FD error of the pose Jacobian %.2e, of the velocity Jacobian %.2e (relative to "
           "the largest entry)\n",
           s->name, count, worst[0], worst[1]);
}

static osc_force_settings test_settings(void) {
    osc_force_settings s = osc_force_settings_default();
    s.stiffness = 100.0;
    s.depth_temperature = 1e-3;
    s.friction_velocity = 1e-2;
    s.damping_temperature = 0.05;
    return s;
}

static query_models models;

static source* source_new(const char* name, int (*contacts)(source*, osc_pose, osc_pose, bool, osc_force_contact*)) {
    source* s = calloc(1, sizeof *s);
    s->name = name;
    s->contacts = contacts;
    s->models = &models;
    s->radius = 0.5;
    return s;
}

// ---------------------------------------------------------------------------------------------
// closed forms

// a sphere of mass m resting on a plane: at the depth where k s+(delta)^e = m g the force on it is
// m g up, its torque about its centre zero, and A's torque about its origin x x (-F)
static void test_resting_sphere(void) {
    source* s = source_new("sphere-plane", sphere_plane);
    osc_force_settings settings = osc_force_settings_default();
    double weight = 9.81 * 2.0;
    double depth = pow(weight / settings.stiffness, 1.0 / settings.exponent);
    double delta = settings.depth_temperature * log(expm1(depth / settings.depth_temperature));
    osc_pose pa = osc_pose_identity(), pb = {osc_v3(0.3, -0.2, s->radius - delta), osc_quat_identity()};
    osc_force_contact c[1];
    sphere_plane(s, pa, pb, false, c);
    osc_force_contact_result result;
    osc_force_output out = {.contacts = &result};
    CHECK_STATUS(osc_force_evaluate(c, 1, pa, REST, pb, REST, NULL, &out), OSC_OK);
    CHECK_NEAR(result.normal_force, weight, 1e-9 * weight);
    CHECK_NEAR(out.wrench_b[2], weight, 1e-9 * weight);
    for (int k = 0; k < 6; ++k)
        if (k != 2) CHECK_NEAR(out.wrench_b[k], 0.0, 1e-12 * weight);
    for (int k = 0; k < 3; ++k) CHECK_NEAR(out.wrench_a[k], -out.wrench_b[k], 0.0);
    CHECK_NEAR(out.wrench_a[3], 0.2 * weight, 1e-9 * weight); // (0.3, -0.2, -delta) x (0, 0, -m g)
    CHECK_NEAR(out.wrench_a[4], 0.3 * weight, 1e-9 * weight);
    CHECK_NEAR(out.wrench_a[5], 0.0, 1e-12 * weight);
    CHECK_NEAR(result.penetration_rate, 0.0, 0.0);
    free(s);
}

// approaching at speed V with the hard clamp: f_n = k delta^e (1 + c V) exactly; separating faster
// than 1 / c: zero force, and with the smooth clamp never a pull
static void test_damping(void) {
    source* s = source_new("sphere-plane", sphere_plane);
    osc_force_settings settings = osc_force_settings_default();
    settings.depth_temperature = 0.0;
    settings.damping_temperature = 0.0;
    settings.damping = 2.0;
    double delta = 0.01;
    osc_pose pa = osc_pose_identity(), pb = {osc_v3(0, 0, s->radius - delta), osc_quat_identity()};
    osc_force_contact c[1];
    sphere_plane(s, pa, pb, false, c);
    osc_force_contact_result result;
    osc_force_output out = {.contacts = &result};
    double speed = 0.3;
    osc_body_velocity down = {{0, 0, -speed}, {0, 0, 0}};
    CHECK_STATUS(osc_force_evaluate(c, 1, pa, REST, pb, down, &settings, &out), OSC_OK);
    double expected = settings.stiffness * pow(delta, 1.5) * (1.0 + 2.0 * speed);
    CHECK_NEAR(result.penetration_rate, speed, 1e-15);
    CHECK_NEAR(result.normal_force, expected, 1e-12 * expected);
    // the same relative velocity from A moving up gives the same force
    osc_body_velocity up = {{0, 0, speed}, {0, 0, 0}};
    CHECK_STATUS(osc_force_evaluate(c, 1, pa, up, pb, REST, &settings, &out), OSC_OK);
    CHECK_NEAR(result.normal_force, expected, 1e-12 * expected);
    osc_body_velocity away = {{0, 0, 1.0}, {0, 0, 0}}; // 1 + c r = -1
    CHECK_STATUS(osc_force_evaluate(c, 1, pa, REST, pb, away, &settings, &out), OSC_OK);
    CHECK_NEAR(result.normal_force, 0.0, 0.0);
    // smooth clamp: never negative, and equal to k delta^e tau_c log(1 + exp(z / tau_c)) exactly
    settings.damping_temperature = 0.05;
    double least = INFINITY;
    for (int i = 0; i <= 400; ++i) {
        double v = -2.0 + 0.01 * i;
        osc_body_velocity vb = {{0, 0, v}, {0, 0, 0}};
        CHECK_STATUS(osc_force_evaluate(c, 1, pa, REST, pb, vb, &settings, &out), OSC_OK);
        least = fmin(least, result.normal_force);
        double want = settings.stiffness * pow(delta, 1.5) * softplus_reference(1.0 - 2.0 * v, 0.05);
        CHECK_NEAR(result.normal_force, want, 1e-12 * fmax(want, 1e-300) + 1e-300);
    }
    CHECK_MSG(least >= 0.0, "the damped force pulls: %.3g", least);
    free(s);
}

// sliding at V: friction -mu f_n V / sqrt(V^2 + eps^2) against the slip, A gets the opposite; rolling
// without slipping (omega = V / r about y): no friction
static void test_friction(void) {
    source* s = source_new("sphere-plane", sphere_plane);
    osc_force_settings settings = osc_force_settings_default();
    double delta = 0.005;
    osc_pose pa = osc_pose_identity(), pb = {osc_v3(0, 0, s->radius - delta), osc_quat_identity()};
    osc_force_contact c[1];
    sphere_plane(s, pa, pb, false, c);
    osc_force_contact_result result;
    osc_force_output out = {.contacts = &result};
    double speed = 0.02;
    osc_body_velocity slide = {{speed, 0, 0}, {0, 0, 0}};
    CHECK_STATUS(osc_force_evaluate(c, 1, pa, REST, pb, slide, &settings, &out), OSC_OK);
    double fn = result.normal_force;
    double want = -settings.friction * fn * speed / sqrt(speed * speed + 1e-6);
    CHECK_NEAR(out.wrench_b[0], want, 1e-12 * fabs(want));
    CHECK_NEAR(out.wrench_a[0], -want, 1e-12 * fabs(want));
    CHECK_NEAR(out.wrench_b[2], fn, 1e-12 * fn);
    // the friction's torque about B's centre: (0, 0, -r) x (F_x, 0, 0) = (0, -r F_x, 0)
    CHECK_NEAR(out.wrench_b[4], -(s->radius - 0.0) * want, 1e-12 * fabs(want));
    osc_body_velocity roll = {{speed, 0, 0}, {0, speed / s->radius, 0}};
    CHECK_STATUS(osc_force_evaluate(c, 1, pa, REST, pb, roll, &settings, &out), OSC_OK);
    CHECK_NEAR(osc_length(result.slip_velocity), 0.0, 1e-17);
    CHECK_NEAR(out.wrench_b[0], 0.0, 1e-12 * fn);
    CHECK_NEAR(out.wrench_b[2], fn, 1e-12 * fn);
    free(s);
}

// ---------------------------------------------------------------------------------------------
// Jacobians against central differences

static void test_jacobians(void) {
    osc_force_settings settings = test_settings();
    osc_body_velocity va = {{0.05, -0.02, 0.03}, {0.2, -0.1, 0.3}}, vb = {{-0.04, -0.03, 0.06}, {-0.3, 0.25, 0.1}};
    double worst[2];

    source* s = source_new("sphere-plane", sphere_plane);
    osc_pose pa = fixture_pose(0.1, -0.1, 0.05, 0.2);
    osc_vec3 n = osc_quat_rotate(pa.q, osc_v3(0, 0, 1));
    osc_pose pb = {osc_add(pa.p, osc_scale(n, s->radius - 0.004)), fixture_pose(0, 0, 0, 0.7).q};
    osc_vec3 slide = osc_v3(0.02, -0.01, 0.0); // along the plane: the depth stays 0.004
    pb.p = osc_add(pb.p, osc_add_scaled(slide, n, -osc_dot(slide, n)));
    fd_check(s, pa, va, pb, vb, &settings, 1e-6, 1e-7, worst);
    // the hard model (relu, hard clamp) is smooth away from zero penetration and zero damping factor
    osc_force_settings hard = settings;
    hard.depth_temperature = hard.damping_temperature = 0.0;
    fd_check(s, pa, va, pb, vb, &hard, 1e-6, 1e-7, worst);
    free(s);

    s = source_new("manifold", manifold_source);
    fd_check(s, fixture_pose(0, 0, 0, 0), va, manifold_pose_b(3), vb, &settings, 1e-6, 1e-5, worst);
    fd_check(s, fixture_pose(0, 0, 0, 0), va, manifold_pose_b(6), vb, &settings, 1e-6, 1e-5, worst);
    free(s);

    s = source_new("dcol", dcol_source);
    for (int i = 0; i < 64; i += 21)
        fd_check(s, fixture_pose(0.0, 0.0, 0.0, 0.2), va, dcol_pose_b(i), vb, &settings, 1e-6, 1e-5, worst);
    free(s);

    s = source_new("sdf_pair", sdf_pair_source);
    fd_check(s, fixture_pose(0, 0, 0, 0), va, fixture_pose(0.78, 0.1, 0.05, 0.3), vb, &settings, 1e-6, 1e-5, worst);
    free(s);

    s = source_new("lmd", lmd_source);
    CHECK_STATUS(osc_lmd_cache_create(&s->cache), OSC_OK);
    // the cylinder tilted by 0.1 about x: one rim point 1e-3 above the box's top (a parallel face is
    // sampled, and its sample count changes under a rotation)
    double tilt = 0.1, lowest = 0.5 * cos(tilt) + 0.3 * sin(tilt);
    osc_pose lmd_b = {osc_v3(0.01, 0.02, 0.3 + lowest + 1e-3), osc_quat_from_axis_angle(osc_v3(1, 0, 0), tilt)};
    fd_check(s, fixture_pose(0, 0, 0, 0), va, lmd_b, vb, &settings, 1e-6, 1e-5, worst);
    osc_lmd_cache_destroy(s->cache);
    free(s);
}

// ---------------------------------------------------------------------------------------------
// momentum

// equal and opposite forces; the torques about the world origin, tau_X + p_X x F_X, cancel; and so
// do the same combinations of every Jacobian column
static void test_momentum(void) {
    source* s = source_new("manifold", manifold_source);
    osc_force_settings settings = test_settings();
    osc_body_velocity va = {{0.05, -0.02, 0.03}, {0.2, -0.1, 0.3}}, vb = {{-0.04, -0.03, 0.06}, {-0.3, 0.25, 0.1}};
    osc_pose pa = fixture_pose(0.1, 0.0, -0.05, 0.1), pb = manifold_pose_b(5);
    pb.p = osc_add(pb.p, osc_v3(0.1, 0.0, -0.05));
    static osc_force_contact c[MAX_CONTACTS];
    int count = s->contacts(s, pa, pb, true, c);
    double pj[144], vj[144];
    osc_force_output out = {.pose_jacobian = pj, .velocity_jacobian = vj};
    CHECK_STATUS(osc_force_evaluate(c, count, pa, va, pb, vb, &settings, &out), OSC_OK);
    osc_vec3 fa = osc_v3(out.wrench_a[0], out.wrench_a[1], out.wrench_a[2]);
    osc_vec3 fb = osc_v3(out.wrench_b[0], out.wrench_b[1], out.wrench_b[2]);
    osc_vec3 ta = osc_v3(out.wrench_a[3], out.wrench_a[4], out.wrench_a[5]);
    osc_vec3 tb = osc_v3(out.wrench_b[3], out.wrench_b[4], out.wrench_b[5]);
    double scale = osc_length(fb) + osc_length(ta) + osc_length(tb);
    CHECK_MSG(osc_length(fb) > 1e-3, "no force (%d contacts)", count);
    CHECK(osc_length(osc_add(fa, fb)) == 0.0);
    osc_vec3 total = osc_add(osc_add(ta, osc_cross(pa.p, fa)), osc_add(tb, osc_cross(pb.p, fb)));
    CHECK_MSG(osc_length(total) <= 1e-13 * scale, "torques about the origin add to %.3g", osc_length(total));
    // Jacobian columns: d(F_A + F_B) = 0; d(tau_A + p_A x F_A + tau_B + p_B x F_B) = 0, where p_X moves
    // with X's translation columns
    for (int which = 0; which < 2; ++which) {
        const double* j = which ? vj : pj;
        double jscale = 0.0, worst_force = 0.0, worst_torque = 0.0;
        for (int k = 0; k < 144; ++k) jscale = fmax(jscale, fabs(j[k]));
        for (int col = 0; col < 12; ++col) {
            osc_vec3 dfa = osc_v3(j[col], j[12 + col], j[24 + col]),
                     dfb = osc_v3(j[72 + col], j[84 + col], j[96 + col]);
            osc_vec3 dta = osc_v3(j[36 + col], j[48 + col], j[60 + col]);
            osc_vec3 dtb = osc_v3(j[108 + col], j[120 + col], j[132 + col]);
            osc_vec3 t = osc_add(osc_add(dta, osc_cross(pa.p, dfa)), osc_add(dtb, osc_cross(pb.p, dfb)));
            if (!which && col < 3) t = osc_add(t, osc_cross(osc_v3(col == 0, col == 1, col == 2), fa));
            if (!which && col >= 6 && col < 9) t = osc_add(t, osc_cross(osc_v3(col == 6, col == 7, col == 8), fb));
            worst_force = fmax(worst_force, osc_length(osc_add(dfa, dfb)));
            worst_torque = fmax(worst_torque, osc_length(t));
        }
        CHECK_MSG(worst_force == 0.0, "%s Jacobian: d(F_A + F_B) = %.3g", which ? "velocity" : "pose", worst_force);
        CHECK_MSG(worst_torque <= 1e-12 * jscale, "%s Jacobian: the total torque's derivative is %.3g (scale %.3g)",
                  which ? "velocity" : "pose", worst_torque, jscale);
    }
    free(s);
}

// ---------------------------------------------------------------------------------------------
// smoothness through zero penetration

// f_n(d) for a sphere sinking through a plane, e = 1: its slope k sigma changes by at most
// k h / (4 tau) between samples h apart (the softplus curvature is at most 1 / (4 tau)); the hard
// model's slope jumps by k at d = 0, which this bound would catch. The slope is read from the pose
// Jacobian and checked against the differences of the force between samples.
static double sweep(double tau, double* worst_slope_jump, double* worst_mismatch) {
    source* s = source_new("sphere-plane", sphere_plane);
    osc_force_settings settings = osc_force_settings_default();
    settings.exponent = 1.0;
    settings.depth_temperature = tau;
    const int samples = 2001;
    const double range = 0.004, h = 2.0 * range / (samples - 1);
    double previous_force = 0.0, previous_slope = 0.0;
    *worst_slope_jump = 0.0;
    *worst_mismatch = 0.0;
    for (int i = 0; i < samples; ++i) {
        double d = -range + h * i;
        osc_pose pa = osc_pose_identity(), pb = {osc_v3(0, 0, s->radius + d), osc_quat_identity()};
        osc_force_contact c[1];
        sphere_plane(s, pa, pb, true, c);
        double pj[144];
        osc_force_output out = {.pose_jacobian = pj};
        CHECK_STATUS(osc_force_evaluate(c, 1, pa, REST, pb, REST, &settings, &out), OSC_OK);
        double force = out.wrench_b[2], slope = pj[8 * 12 + 8]; // d F_Bz / d p_Bz = d f_n / d d
        if (i > 0) {
            *worst_slope_jump = fmax(*worst_slope_jump, fabs(slope - previous_slope));
            double secant = (force - previous_force) / h;
            *worst_mismatch = fmax(*worst_mismatch, fabs(secant - 0.5 * (slope + previous_slope)));
        }
        previous_force = force;
        previous_slope = slope;
    }
    free(s);
    return h;
}

static void test_smoothness(void) {
    double k = osc_force_settings_default().stiffness, tau = 1e-4, jump, mismatch;
    double h = sweep(tau, &jump, &mismatch);
    double bound = k * h / (4.0 * tau);
    CHECK_MSG(jump <= 1.0001 * bound, "slope jumps by %.4g between samples (bound %.4g)", jump, bound);
    // trapezoid rule error of a secant: h^2 / 12 max |f'''| <= h bound-ish; far below a jump of k
    CHECK_MSG(mismatch <= 0.05 * bound, "force differences disagree with the slope by %.3g", mismatch);
    printf("  smooth (tau %.0e): largest slope change between samples %.4g (bound %.4g, stiffness %.4g)\n", tau, jump,
           bound, k);
    double hard_jump, hard_mismatch;
    sweep(0.0, &hard_jump, &hard_mismatch);
    CHECK_MSG(hard_jump >= 0.999 * k, "the hard model's slope jumps by %.4g, expected k = %.4g", hard_jump, k);
    printf("  hard: slope jump %.4g at zero penetration (the sweep catches it)\n", hard_jump);
}

// ---------------------------------------------------------------------------------------------
// bad arguments

static void expect_error(osc_status got, const char* needle, const char* what) {
    CHECK_MSG(got == OSC_ERR_INVALID_ARGUMENT && strstr(osc_last_error(), needle) &&
                  strstr(osc_last_error(), "osc_force_evaluate"),
              "%s: status %d, message '%s' (expected to name '%s')", what, (int)got, osc_last_error(), needle);
}

static void test_bad_arguments(void) {
    source* s = source_new("sphere-plane", sphere_plane);
    osc_pose pa = osc_pose_identity(), pb = {osc_v3(0, 0, 0.49), osc_quat_identity()};
    osc_force_contact c[1];
    sphere_plane(s, pa, pb, true, c);
    osc_force_output out = {0};
    expect_error(osc_force_evaluate(c, 1, pa, REST, pb, REST, NULL, NULL), "out", "NULL out");
    expect_error(osc_force_evaluate(c, -1, pa, REST, pb, REST, NULL, &out), "count", "negative count");
    expect_error(osc_force_evaluate(c, OSC_FORCE_MAX_CONTACTS + 1, pa, REST, pb, REST, NULL, &out), "count",
                 "huge count");
    expect_error(osc_force_evaluate(NULL, 1, pa, REST, pb, REST, NULL, &out), "contacts", "NULL contacts");
    CHECK_STATUS(osc_force_evaluate(NULL, 0, pa, REST, pb, REST, NULL, &out), OSC_OK);
    CHECK(out.wrench_a[0] == 0.0 && out.wrench_b[5] == 0.0);
    osc_pose bad = pa;
    bad.p.y = NAN;
    expect_error(osc_force_evaluate(c, 1, bad, REST, pb, REST, NULL, &out), "pose_a.p", "NaN pose_a");
    bad = pb;
    bad.q = (osc_quat){0, 0, 0, 0};
    expect_error(osc_force_evaluate(c, 1, pa, REST, bad, REST, NULL, &out), "pose_b.q", "zero quaternion");
    bad = pb;
    bad.p.x = 1e200;
    expect_error(osc_force_evaluate(c, 1, pa, REST, bad, REST, NULL, &out), "pose_b.p", "absurd pose");
    osc_body_velocity v = REST;
    v.angular.z = INFINITY;
    expect_error(osc_force_evaluate(c, 1, pa, v, pb, REST, NULL, &out), "velocity_a.angular", "infinite omega");
    v = REST;
    v.linear.x = NAN;
    expect_error(osc_force_evaluate(c, 1, pa, REST, pb, v, NULL, &out), "velocity_b.linear", "NaN velocity");

    osc_force_contact k = c[0];
    k.point.z = NAN;
    expect_error(osc_force_evaluate(&k, 1, pa, REST, pb, REST, NULL, &out), "contacts[0].point", "NaN point");
    k = c[0];
    k.normal = osc_v3(0, 0, 2);
    expect_error(osc_force_evaluate(&k, 1, pa, REST, pb, REST, NULL, &out), "contacts[0].normal", "long normal");
    k = c[0];
    k.distance = -1e40;
    expect_error(osc_force_evaluate(&k, 1, pa, REST, pb, REST, NULL, &out), "contacts[0].distance", "absurd depth");
    k = c[0];
    k.weight = 1.5;
    expect_error(osc_force_evaluate(&k, 1, pa, REST, pb, REST, NULL, &out), "contacts[0].weight", "weight 1.5");
    k.weight = NAN;
    expect_error(osc_force_evaluate(&k, 1, pa, REST, pb, REST, NULL, &out), "contacts[0].weight", "NaN weight");
    double nan_row[36];
    for (int i = 0; i < 36; ++i) nan_row[i] = 0.0;
    nan_row[17] = NAN;
    const char* fields[4] = {"point_jacobian", "normal_jacobian", "distance_jacobian", "weight_jacobian"};
    for (int f = 0; f < 4; ++f) {
        k = c[0];
        const double** slot[4] = {&k.point_jacobian, &k.normal_jacobian, &k.distance_jacobian, &k.weight_jacobian};
        *slot[f] = nan_row + (f >= 2 ? 12 : 0); // [17] or [5]
        char needle[64];
        snprintf(needle, sizeof needle, "contacts[0].%s", fields[f]);
        expect_error(osc_force_evaluate(&k, 1, pa, REST, pb, REST, NULL, &out), needle, "NaN Jacobian entry");
    }
    // a zero normal is fine on a contact of weight 0, which contributes nothing
    k = c[0];
    k.normal = osc_v3(0, 0, 0);
    k.weight = 0.0;
    osc_force_contact_result result;
    out.contacts = &result;
    CHECK_STATUS(osc_force_evaluate(&k, 1, pa, REST, pb, REST, NULL, &out), OSC_OK);
    CHECK(out.wrench_b[2] == 0.0 && result.normal_force == 0.0);
    out.contacts = NULL;

    // every setting out of range, by name
    struct {
        const char* name;
        double value;
    } settings_cases[] = {{"stiffness", 0.0},          {"stiffness", NAN},          {"stiffness", 1e31},
                          {"exponent", 0.5},           {"exponent", 5.0},           {"damping", -1.0},
                          {"damping", INFINITY},       {"friction", -0.1},          {"friction", 101.0},
                          {"friction_velocity", 0.0},  {"friction_velocity", NAN},  {"depth_temperature", -1e-3},
                          {"damping_temperature", -1}, {"damping_temperature", NAN}};
    for (size_t i = 0; i < sizeof settings_cases / sizeof settings_cases[0]; ++i) {
        osc_force_settings bad_settings = osc_force_settings_default();
        double* field = !strcmp(settings_cases[i].name, "stiffness")           ? &bad_settings.stiffness
                        : !strcmp(settings_cases[i].name, "exponent")          ? &bad_settings.exponent
                        : !strcmp(settings_cases[i].name, "damping")           ? &bad_settings.damping
                        : !strcmp(settings_cases[i].name, "friction")          ? &bad_settings.friction
                        : !strcmp(settings_cases[i].name, "friction_velocity") ? &bad_settings.friction_velocity
                        : !strcmp(settings_cases[i].name, "depth_temperature") ? &bad_settings.depth_temperature
                                                                               : &bad_settings.damping_temperature;
        *field = settings_cases[i].value;
        char needle[64];
        snprintf(needle, sizeof needle, "settings.%s", settings_cases[i].name);
        expect_error(osc_force_evaluate(c, 1, pa, REST, pb, REST, &bad_settings, &out), needle, needle);
    }
    // the largest legal inputs everywhere: a finite wrench, or the overflow refused by name, never
    // infinity with OSC_OK
    osc_force_settings huge = osc_force_settings_default();
    huge.stiffness = huge.damping = OSC_FORCE_MAX_MAGNITUDE;
    huge.exponent = 4.0;
    double big_row[36];
    for (int i = 0; i < 36; ++i) big_row[i] = OSC_FORCE_MAX_MAGNITUDE;
    k = c[0];
    k.distance = -OSC_FORCE_MAX_MAGNITUDE;
    k.point = osc_v3(OSC_FORCE_MAX_MAGNITUDE, 0, 0);
    k.point_jacobian = k.normal_jacobian = k.distance_jacobian = big_row;
    osc_body_velocity fast = {{0, 0, -OSC_FORCE_MAX_MAGNITUDE}, {0, OSC_FORCE_MAX_MAGNITUDE, 0}};
    double pj[144], vj[144];
    osc_force_output extreme = {.pose_jacobian = pj, .velocity_jacobian = vj};
    osc_status status = osc_force_evaluate(&k, 1, pa, fast, pb, REST, &huge, &extreme);
    bool finite = true;
    for (int i = 0; i < 144; ++i) finite = finite && isfinite(pj[i]) && isfinite(vj[i]);
    for (int i = 0; i < 6; ++i) finite = finite && isfinite(extreme.wrench_a[i]) && isfinite(extreme.wrench_b[i]);
    CHECK_MSG((status == OSC_OK && finite) ||
                  (status == OSC_ERR_INVALID_ARGUMENT && strstr(osc_last_error(), "overflows")),
              "extreme inputs: status %d, finite %d, message '%s'", (int)status, (int)finite, osc_last_error());
    free(s);
}

// the converters copy each family's fields and point at its Jacobian rows
static void test_converters(void) {
    osc_manifold_contact mc[2] = {{.point = {1, 2, 3}, .distance = -0.1, .normal = {0, 1, 0}, .weight = 0.5},
                                  {.point = {4, 5, 6}, .distance = -0.2, .normal = {1, 0, 0}, .weight = 0.25}};
    double pj[2][36], dj[2][12];
    osc_manifold_output mo = {
        .contacts = mc, .capacity = 2, .count = 2, .point_jacobians = pj[0], .distance_jacobians = dj[0]};
    osc_force_contact c = osc_force_contact_from_manifold(&mo, 1);
    CHECK(c.point.x == 4 && c.distance == -0.2 && c.normal.x == 1 && c.weight == 0.25);
    CHECK(c.point_jacobian == pj[1] && c.distance_jacobian == dj[1] && !c.normal_jacobian && !c.weight_jacobian);
    osc_sdf_pair_contact sc[2] = {{.point = {1, 1, 1}, .distance = -0.3, .normal = {0, 0, 1}, .smooth = 1},
                                  {.point = {2, 2, 2}, .distance = -0.4, .normal = {0, 0, 1}, .smooth = 0}};
    osc_sdf_pair_output so = {
        .contacts = sc, .capacity = 2, .count = 2, .point_jacobians = pj[0], .distance_jacobians = dj[0]};
    c = osc_force_contact_from_sdf_pair(&so, 0);
    CHECK(c.weight == 1.0 && c.point_jacobian == pj[0] && c.distance_jacobian == dj[0] && !c.normal_jacobian);
    c = osc_force_contact_from_sdf_pair(&so, 1); // not smooth: no Jacobians
    CHECK(c.distance == -0.4 && !c.point_jacobian && !c.distance_jacobian);
    osc_lmd_contact lc = {.point_a = {0, 0, 0}, .point_b = {0, 0, 2}, .distance = 1.5, .normal = {0, 0, 1}};
    osc_lmd_output lo = {.contacts = &lc, .capacity = 1, .count = 1, .distance_jacobians = dj[0]};
    c = osc_force_contact_from_lmd(&lo, 0);
    CHECK(c.point.z == 1.0 && c.distance == 1.5 && c.distance_jacobian == dj[0] && !c.point_jacobian);
}

int main(void) {
    query_models_create(&models);
    RUN(test_resting_sphere);
    RUN(test_damping);
    RUN(test_friction);
    RUN(test_jacobians);
    RUN(test_momentum);
    RUN(test_smoothness);
    RUN(test_bad_arguments);
    RUN(test_converters);
    query_models_destroy(&models);
    return test_finish();
}
