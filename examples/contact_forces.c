// contact_forces.c: the contact wrench between two bodies, with its derivatives. Copy this to start.
//
// Body A is a rounded slab (a superquadric SDF with a collision mesh extracted from it), body B a ball
// of radius 0.4 sunk 0.01 into the slab's top, sliding along x and spinning. osc_manifold_collide
// gives the contacts with their pose Jacobians; osc_force_evaluate turns them into forces (a
// smoothed Hunt-Crossley spring-damper and regularised Coulomb friction, docs/force.md) and the net
// wrench on each body, with its Jacobians with respect to both poses and both velocities. The same
// call takes DCOL's contact (osc_force_contact_from_dcol), shown last for a capsule on a box.
//
// The program checks its own answer: the forces on A and B are equal and opposite, B is pushed up
// and friction opposes its slip; it exits with status 1 otherwise.

#include "osculate/osculate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) != OSC_OK) {                                                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, osc_last_error());                                               \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

enum { CAPACITY = 512 };

static void print_wrench(const char* name, const double w[6]) {
    printf("  %s: force (%+.4f, %+.4f, %+.4f)  torque (%+.4f, %+.4f, %+.4f)\n", name, w[0], w[1], w[2], w[3], w[4],
           w[5]);
}

int main(void) {
    // 1. the two bodies: SDFs, collision meshes extracted from them, bodies
    osc_sdf *slab = NULL, *ball = NULL;
    TRY(osc_sdf_create_superquadric(osc_v3(1.0, 0.3, 1.0), 0.3, 0.3, &slab)); // top face at y = 0.3
    TRY(osc_sdf_create_sphere(0.4, &ball));
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    mesh_settings.target_triangles = 600;
    osc_mesh *slab_mesh = NULL, *ball_mesh = NULL;
    TRY(osc_collision_mesh_create(slab, &mesh_settings, &slab_mesh));
    TRY(osc_collision_mesh_create(ball, &mesh_settings, &ball_mesh));
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = slab_mesh;
    desc.sdf = slab;
    osc_body *a = NULL, *b = NULL;
    TRY(osc_body_create(&desc, &a));
    desc.mesh = ball_mesh;
    desc.sdf = ball;
    TRY(osc_body_create(&desc, &b));

    // 2. the contacts with every pose Jacobian (the force's chain rule uses them all)
    osc_pose pose_a = osc_pose_identity(), pose_b = {osc_v3(0.0, 0.69, 0.0), osc_quat_identity()};
    static osc_manifold_contact contacts[CAPACITY];
    static double point_j[CAPACITY][36], normal_j[CAPACITY][36], distance_j[CAPACITY][12], weight_j[CAPACITY][12];
    osc_manifold_output output = {.contacts = contacts,
                                  .capacity = CAPACITY,
                                  .point_jacobians = point_j[0],
                                  .distance_jacobians = distance_j[0],
                                  .normal_jacobians = normal_j[0],
                                  .weight_jacobians = weight_j[0]};
    TRY(osc_manifold_collide(a, pose_a, b, pose_b, NULL, &output));

    // 3. the forces: A at rest, B sliding along x at 0.05 and spinning about y
    static osc_force_contact force_contacts[CAPACITY];
    for (int i = 0; i < output.count; ++i) force_contacts[i] = osc_force_contact_from_manifold(&output, i);
    osc_body_velocity velocity_a = {{0, 0, 0}, {0, 0, 0}}, velocity_b = {{0.05, 0, 0}, {0, 0.5, 0}};
    osc_force_settings settings = osc_force_settings_default(); // k 1e4, e 1.5, c 1, mu 0.5
    double pose_jacobian[12][12], velocity_jacobian[12][12];
    osc_force_output forces = {.pose_jacobian = pose_jacobian[0], .velocity_jacobian = velocity_jacobian[0]};
    TRY(osc_force_evaluate(force_contacts, output.count, pose_a, velocity_a, pose_b, velocity_b, &settings, &forces));

    printf("slab and ball, %d manifold contacts\n", output.count);
    print_wrench("on A (slab)", forces.wrench_a);
    print_wrench("on B (ball)", forces.wrench_b);
    printf("  stiffness d F_By / d p_By = %.1f, damping d F_By / d v_By = %.1f, friction d F_Bx / d v_Bx = %.2f\n",
           pose_jacobian[7][7], velocity_jacobian[7][7], velocity_jacobian[6][6]);

    int ok = forces.wrench_b[1] > 0.0 && forces.wrench_b[0] < 0.0; // pushed up, dragged against the slip
    for (int k = 0; k < 3; ++k) ok = ok && forces.wrench_a[k] == -forces.wrench_b[k];

    // 4. the same call on DCOL's contact: a capsule lying along x on a box, 0.005 deep
    osc_convex *box = NULL, *capsule = NULL;
    TRY(osc_convex_create_box(osc_v3(0.5, 0.5, 0.5), &box));
    TRY(osc_convex_create_capsule(0.1, 0.3, &capsule)); // radius, half-length along body z
    osc_pose box_pose = osc_pose_identity();
    osc_pose capsule_pose = {osc_v3(0.0, 0.0, 0.595),
                             osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.5 * 3.14159265358979323846)};
    osc_dcol_result result;
    double dcol_point[36], dcol_normal[36], dcol_distance[12];
    osc_dcol_jacobians dcol_j = {NULL, dcol_point, NULL, NULL, dcol_distance, dcol_normal};
    TRY(osc_dcol_proximity(box, box_pose, capsule, capsule_pose, NULL, &result, &dcol_j, NULL));
    osc_force_contact dcol_contact = osc_force_contact_from_dcol(&result, &dcol_j);
    osc_body_velocity rest = {{0, 0, 0}, {0, 0, 0}};
    TRY(osc_force_evaluate(&dcol_contact, 1, box_pose, rest, capsule_pose, rest, &settings, &forces));
    printf("box and capsule (DCOL), distance %.5f\n", result.distance);
    print_wrench("on A (box)", forces.wrench_a);
    print_wrench("on B (capsule)", forces.wrench_b);
    ok = ok && forces.wrench_b[2] > 0.0;

    osc_convex_destroy(capsule);
    osc_convex_destroy(box);
    osc_body_destroy(b);
    osc_body_destroy(a);
    osc_mesh_destroy(ball_mesh);
    osc_mesh_destroy(slab_mesh);
    osc_sdf_destroy(ball);
    osc_sdf_destroy(slab);
    if (!ok) fprintf(stderr, "contact_forces: the wrenches are not as expected\n");
    return ok ? 0 : 1;
}
