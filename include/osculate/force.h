// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// force.h: compliant contact forces with exact derivatives, on top of every contact-producing
// query (manifold, DCOL, SDF pairs in smooth mode, LMD). docs/force.md derives every formula.
//
// SUMMARY
// - osc_force_contact: the family-independent contact: a world point, a unit normal from A to B,
//   a signed distance (negative: penetration), a weight (the share of the force: the manifold's
//   transition weight, 1 elsewhere), and optionally their pose Jacobians [rows][12] along left
//   world twists (A's twist, then B's; docs/api.md, Jacobians). osc_force_contact_from_* build one
//   from each family's output without copying its Jacobians.
// - osc_force_evaluate: for contacts between two bodies with poses and velocities, per contact
//     penetration rate  r = -n . v_rel, v_rel = velocity of B's material point at x minus A's
//     normal force      f_n = k s+(-d, tau_d)^e s+(1 + c r, tau_c)       (Hunt and Crossley 1975,
//                       smoothed: s+ is the softplus of smooth.h; the second factor is the damping,
//                       smoothly clamped at zero so that it never pulls)
//     friction          f_t = -mu f_n v_t / sqrt(|v_t|^2 + eps^2), v_t the tangential part of v_rel
//     force on B        F = w (f_n n + f_t) at x; A receives -F at x
//   and the net wrench on each body (force, torque about its own origin), with the Jacobians of
//   both wrenches with respect to both poses (12 twist columns) and both velocities (12 columns).
//
// CONVENTIONS (docs/api.md, docs/architecture.md §2)
// A body's velocity is (v, omega): the linear velocity of its origin and its angular velocity, both
// in world coordinates; the material point at x moves at v + omega x (x - p). These are the rates
// of the left world twist of the pose, so the velocity columns and the pose columns use the same
// coordinates. A wrench is (force, torque about the body's origin p), world coordinates.
//
// NUMERIC ROBUSTNESS
// With every temperature > 0 the wrench is a smooth (C-infinity) function of the contacts'
// distance, point, normal and weight and of both velocities; it is as smooth in the poses as the
// contacts are. Temperatures of 0 select the hard operators (relu, the clamp at zero): the force
// is then continuous, with a kink at zero penetration and where the damping factor reaches zero.
// A contact Jacobian left NULL is taken as zero: the quantity is held fixed under pose changes.

#ifndef OSCULATE_FORCE_H
#define OSCULATE_FORCE_H

#include "osculate/base.h"
#include "osculate/dcol.h"
#include "osculate/lmd.h"
#include "osculate/manifold.h"
#include "osculate/math.h"
#include "osculate/sdf_pair.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The largest magnitude of a length, velocity or Jacobian entry osc_force_evaluate accepts:
/// beyond it the force's powers would overflow.
#define OSC_FORCE_MAX_MAGNITUDE 1e30

/// The most contacts one osc_force_evaluate call takes.
#define OSC_FORCE_MAX_CONTACTS (1 << 24)

/// One contact between bodies A and B, in the vocabulary every query family shares.
typedef struct osc_force_contact {
    osc_vec3 point;                  ///< world point where the force acts
    osc_vec3 normal;                 ///< unit normal from A to B (may be zero when weight is 0)
    double distance;                 ///< signed distance, negative: penetration
    double weight;                   ///< share of the force in [0, 1] (manifold: f_t or W; else 1)
    const double* point_jacobian;    ///< nullable [3][12] d point / d (xi_A, xi_B)
    const double* normal_jacobian;   ///< nullable [3][12] d normal / d (xi_A, xi_B)
    const double* distance_jacobian; ///< nullable [12]    d distance / d (xi_A, xi_B)
    const double* weight_jacobian;   ///< nullable [12]    d weight / d (xi_A, xi_B)
} osc_force_contact;

/// A rigid body's velocity: the linear velocity of its origin and its angular velocity (world).
typedef struct osc_body_velocity {
    osc_vec3 linear;  ///< velocity of the body's origin p
    osc_vec3 angular; ///< angular velocity omega
} osc_body_velocity;

/// Settings of the contact model; get them from osc_force_settings_default(). The defaults suit
/// bodies about 1 unit across with a mass of about 1 under gravity about 10.
typedef struct osc_force_settings {
    double stiffness;           ///< k, force / length^exponent (> 0, at most 1e30; default 1e4)
    double exponent;            ///< e of the depth's power (1..4; default 1.5, Hertz)
    double damping;             ///< c, Hunt-Crossley's damping over stiffness, 1 / velocity
                                ///< (0..1e30; default 1)
    double friction;            ///< Coulomb's mu (0..100; default 0.5)
    double friction_velocity;   ///< eps, the slip speed below which friction is regularised
                                ///< (> 0, at most 1e30; default 1e-3)
    double depth_temperature;   ///< tau_d of the softplus of the penetration, a length (0: relu;
                                ///< 0..1e30; default 1e-4)
    double damping_temperature; ///< tau_c of the softplus clamping the damping factor 1 + c r at
                                ///< zero, dimensionless (0: the hard clamp; 0..1e30; default 0.01)
} osc_force_settings;

/// Returns the default settings (values above).
OSC_API osc_force_settings osc_force_settings_default(void);

/// What osc_force_evaluate reports for one contact.
typedef struct osc_force_contact_result {
    double normal_force;     ///< f_n >= 0, before the weight
    double penetration_rate; ///< r = -n . v_rel (positive: approaching)
    osc_vec3 slip_velocity;  ///< v_t, the tangential relative velocity of B over A at the point
    osc_vec3 force;          ///< F = w (f_n n + f_t), the force on B (A receives -F)
} osc_force_contact_result;

/// Where osc_force_evaluate writes. Jacobian rows are (force on A, torque on A, force on B,
/// torque on B), 12 of them; columns are A's then B's (twist or velocity); row-major [12][12].
typedef struct osc_force_output {
    osc_force_contact_result* contacts; ///< nullable [count] per-contact results
    double wrench_a[6];                 ///< set: force and torque about p_A on A
    double wrench_b[6];                 ///< set: force and torque about p_B on B
    double* pose_jacobian;              ///< nullable [12][12] d (wrench_a, wrench_b) / d (xi_A, xi_B)
    double* velocity_jacobian;          ///< nullable [12][12] d (wrench_a, wrench_b) / d (V_A, V_B),
                                        ///< V = (linear, angular)
} osc_force_output;

/// Returns OSC_OK and writes the contact forces of `count` contacts between body A (pose_a,
/// velocity_a) and body B into `out` (`settings` NULL: the defaults): the per-contact results
/// when out->contacts is non-NULL, the two wrenches, and each non-NULL Jacobian. Only the poses'
/// translations enter (torques are about the origins); the poses are checked as every query
/// checks them. OSC_ERR_INVALID_ARGUMENT, naming the argument, for NULL contacts with count > 0,
/// a count outside [0, OSC_FORCE_MAX_CONTACTS], a NULL output, a bad pose, a non-finite or
/// absurd (beyond OSC_FORCE_MAX_MAGNITUDE) velocity, point, distance or Jacobian entry, a normal
/// that is not unit (within 1e-6) on a contact of positive weight, a weight outside [0, 1 + 1e-9],
/// a setting outside its range, or a force that overflows. Allocates nothing.
OSC_API osc_status osc_force_evaluate(const osc_force_contact* contacts, int32_t count, osc_pose pose_a,
                                      osc_body_velocity velocity_a, osc_pose pose_b, osc_body_velocity velocity_b,
                                      const osc_force_settings* settings, osc_force_output* out);

/// Returns contact i of a manifold output as a force contact: its point, normal, distance and
/// weight, with the output's Jacobian rows for it where the arrays are non-NULL (borrowed: the
/// output must outlive the contact). Contact i must be below output->count.
OSC_API osc_force_contact osc_force_contact_from_manifold(const osc_manifold_output* output, int32_t i);

/// Returns a DCOL result as a force contact: the intersection point x of the scaled shapes, the
/// normal and the signed distance, weight 1, with the point, normal and distance Jacobians of
/// `jacobians` (nullable; borrowed).
OSC_API osc_force_contact osc_force_contact_from_dcol(const osc_dcol_result* result,
                                                      const osc_dcol_jacobians* jacobians);

/// Returns contact i of an SDF-pair output as a force contact: its point, normal and distance,
/// weight 1, with the point and distance Jacobian rows where the arrays are non-NULL and the
/// contact is smooth (the query has no normal Jacobian: the normal is held fixed). Contact i must
/// be below output->count.
OSC_API osc_force_contact osc_force_contact_from_sdf_pair(const osc_sdf_pair_output* output, int32_t i);

/// Returns contact i of an LMD output as a force contact: the midpoint of the two footpoints, the
/// normal and the gap, weight 1, with the distance Jacobian row where the array is non-NULL (the
/// query has no point or normal Jacobian: they are held fixed). Contact i must be below
/// output->count.
OSC_API osc_force_contact osc_force_contact_from_lmd(const osc_lmd_output* output, int32_t i);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_FORCE_H
