// bench_force.c: the cost of the contact force model (force.h) against the query that produces its
// contacts, on the manifold fixture of the tests (tests/query_fixtures.h): a superquadric slab
// (radii 1, 0.3, 1, exponents 0.3) and a sphere of radius 0.4, each with a 600-triangle collision
// mesh extracted from its SDF, the sphere at 8 poses sunk about 0.08 into the slab's top.
//
// Per pose, alternating, --repeats (201) times each:
//   query          osc_manifold_collide, default settings, with the point, normal, distance and
//                  weight Jacobians (what the force's chain rule reads)
//   force          osc_force_evaluate on its contacts, default settings, wrenches only
//   force+derivs   osc_force_evaluate with the pose and velocity Jacobians of both wrenches
// Figures: the median over repeats of each pose's time, divided by its contact count (ns per
// contact), then the median over poses; and the query's time per call (us).
//
// Timing: CLOCK_MONOTONIC (bench_now) around 20 calls; medians. stdout: one JSON object per figure.

#include "bench.h"
#include "osculate/osculate.h"

enum { CAPACITY = 512, POSES = 8, BATCH = 20 };

#define MUST(call)                                                                                                     \
    do {                                                                                                               \
        if ((call) != OSC_OK) {                                                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, osc_last_error());                                               \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static osc_manifold_contact contacts[CAPACITY];
static double point_j[CAPACITY][36], normal_j[CAPACITY][36], distance_j[CAPACITY][12], weight_j[CAPACITY][12];
static osc_force_contact force_contacts[CAPACITY];

int main(int argc, char** argv) {
    int repeats = 201;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--repeats")) repeats = atoi(argv[i + 1]);
    if (repeats < 1) repeats = 1;
    osc_sdf *slab = NULL, *ball = NULL;
    MUST(osc_sdf_create_superquadric(osc_v3(1.0, 0.3, 1.0), 0.3, 0.3, &slab));
    MUST(osc_sdf_create_sphere(0.4, &ball));
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    mesh_settings.target_triangles = 600;
    osc_mesh *slab_mesh = NULL, *ball_mesh = NULL;
    MUST(osc_collision_mesh_create(slab, &mesh_settings, &slab_mesh));
    MUST(osc_collision_mesh_create(ball, &mesh_settings, &ball_mesh));
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = slab_mesh;
    desc.sdf = slab;
    osc_body *a = NULL, *b = NULL;
    MUST(osc_body_create(&desc, &a));
    desc.mesh = ball_mesh;
    desc.sdf = ball;
    MUST(osc_body_create(&desc, &b));

    osc_manifold_output output = {.contacts = contacts,
                                  .capacity = CAPACITY,
                                  .point_jacobians = point_j[0],
                                  .normal_jacobians = normal_j[0],
                                  .distance_jacobians = distance_j[0],
                                  .weight_jacobians = weight_j[0]};
    osc_body_velocity va = {{0.05, -0.02, 0.03}, {0.2, -0.1, 0.3}}, vb = {{-0.04, -0.03, 0.06}, {-0.3, 0.25, 0.1}};
    double pose_jacobian[144], velocity_jacobian[144];
    osc_force_output plain = {0}, derivs = {.pose_jacobian = pose_jacobian, .velocity_jacobian = velocity_jacobian};
    double* times = malloc(3 * (size_t)repeats * sizeof *times);
    double per_contact[3][POSES], query_us[POSES];
    int total_contacts = 0;
    for (int pose = 0; pose < POSES; ++pose) {
        osc_pose pa = osc_pose_identity();
        osc_pose pb = {osc_v3(0.05 * pose, 0.62, 0.0), osc_quat_from_axis_angle(osc_v3(0.3, 0.8, 0.52), 0.1 * pose)};
        MUST(osc_manifold_collide(a, pa, b, pb, NULL, &output));
        int count = output.count;
        total_contacts += count;
        for (int i = 0; i < count; ++i) force_contacts[i] = osc_force_contact_from_manifold(&output, i);
        for (int r = 0; r < repeats; ++r) {
            double t0 = bench_now();
            for (int k = 0; k < BATCH; ++k) osc_manifold_collide(a, pa, b, pb, NULL, &output);
            double t1 = bench_now();
            for (int k = 0; k < BATCH; ++k) osc_force_evaluate(force_contacts, count, pa, va, pb, vb, NULL, &plain);
            double t2 = bench_now();
            for (int k = 0; k < BATCH; ++k) osc_force_evaluate(force_contacts, count, pa, va, pb, vb, NULL, &derivs);
            double t3 = bench_now();
            times[r] = (t1 - t0) / BATCH;
            times[repeats + r] = (t2 - t1) / BATCH;
            times[2 * repeats + r] = (t3 - t2) / BATCH;
        }
        query_us[pose] = 1e6 * bench_median(times, repeats);
        for (int side = 0; side < 3; ++side)
            per_contact[side][pose] = 1e9 * bench_median(times + side * repeats, repeats) / count;
    }
    const char* names[3] = {"query_ns_per_contact", "force_ns_per_contact", "force_derivs_ns_per_contact"};
    for (int side = 0; side < 3; ++side)
        bench_report("force", "manifold_slab_ball", names[side], bench_median(per_contact[side], POSES), "ns");
    bench_report("force", "manifold_slab_ball", "query_us", bench_median(query_us, POSES), "us");
    bench_report("force", "manifold_slab_ball", "contacts_per_query", (double)total_contacts / POSES, "1");
    free(times);
    osc_body_destroy(b);
    osc_body_destroy(a);
    osc_mesh_destroy(ball_mesh);
    osc_mesh_destroy(slab_mesh);
    osc_sdf_destroy(ball);
    osc_sdf_destroy(slab);
    return 0;
}
