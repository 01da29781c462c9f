// query_fixtures.h: one small model of every query family, and one call per family that writes
// everything the query returns into a plain struct (so that two runs can be compared bit for bit).
// Shared by test_no_alloc.c (allocations counted around the calls) and test_threads.c (the same
// calls from many threads at once on the shared models).

#ifndef OSC_QUERY_FIXTURES_H
#define OSC_QUERY_FIXTURES_H

#include "osculate/osculate.h"
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE_MUST(call)                                                                                             \
    do {                                                                                                               \
        osc_status status_ = (call);                                                                                   \
        if (status_ != OSC_OK) {                                                                                       \
            fprintf(stderr, "%s failed: %s\n", #call, osc_last_error());                                               \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

typedef struct query_models {
    osc_sdf *sphere, *box, *both, *grid_sdf; // SDFs and a spline grid of their smooth union
    osc_grid* grid;
    osc_mesh* mesh; // the union's collision mesh and its BVH
    osc_mesh_bvh* bvh;
    osc_sdf *slab, *ball; // two manifold bodies: a superquadric slab and a sphere
    osc_mesh *slab_mesh, *ball_mesh;
    osc_body *slab_body, *ball_body;
    osc_convex *convex_box, *capsule;  // DCOL
    osc_sdf_shape pair_ball, pair_box; // SDF pairs (library SDFs)
    osc_implicit *lens, *sphere_surface;
    osc_brep *brep_box, *cylinder; // LMD
} query_models;

static inline osc_pose fixture_pose(double x, double y, double z, double angle) {
    osc_pose pose = {osc_v3(x, y, z), osc_quat_from_axis_angle(osc_v3(0.3, 0.8, 0.52), angle)};
    return pose;
}

static inline void query_models_create(query_models* m) {
    memset(m, 0, sizeof *m);
    FIXTURE_MUST(osc_sdf_create_sphere(0.5, &m->sphere));
    FIXTURE_MUST(osc_sdf_create_box(osc_v3(0.4, 0.3, 0.6), 0.05, &m->box));
    const osc_sdf* parts[2] = {m->sphere, m->box};
    FIXTURE_MUST(osc_sdf_create_union(parts, 2, 0.05, &m->both));
    osc_grid_settings grid_settings = osc_grid_settings_default();
    grid_settings.resolution = 24;
    FIXTURE_MUST(osc_grid_create_from_sdf(m->both, &grid_settings, &m->grid));
    FIXTURE_MUST(osc_grid_to_sdf(m->grid, &m->grid_sdf));
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    mesh_settings.target_triangles = 400;
    FIXTURE_MUST(osc_collision_mesh_create(m->both, &mesh_settings, &m->mesh));
    FIXTURE_MUST(osc_mesh_bvh_create(m->mesh, &m->bvh));

    FIXTURE_MUST(osc_sdf_create_superquadric(osc_v3(1.0, 0.3, 1.0), 0.3, 0.3, &m->slab));
    FIXTURE_MUST(osc_sdf_create_sphere(0.4, &m->ball));
    mesh_settings.target_triangles = 600;
    FIXTURE_MUST(osc_collision_mesh_create(m->slab, &mesh_settings, &m->slab_mesh));
    FIXTURE_MUST(osc_collision_mesh_create(m->ball, &mesh_settings, &m->ball_mesh));
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = m->slab_mesh;
    desc.sdf = m->slab;
    FIXTURE_MUST(osc_body_create(&desc, &m->slab_body));
    desc = osc_body_desc_default();
    desc.mesh = m->ball_mesh;
    desc.sdf = m->ball;
    FIXTURE_MUST(osc_body_create(&desc, &m->ball_body));

    FIXTURE_MUST(osc_convex_create_box(osc_v3(0.5, 0.4, 0.3), &m->convex_box));
    FIXTURE_MUST(osc_convex_create_capsule(0.2, 0.4, &m->capsule));

    m->pair_ball.sdf = m->sphere;
    m->pair_box.sdf = m->box;

    osc_sag sag = {0};
    sag.curvature = 0.5;
    sag.conic = -0.5;
    sag.coefficient_count = 1;
    sag.coefficients[0] = 1e-3;
    sag.diameter = 1.5;
    FIXTURE_MUST(osc_implicit_create_sag(&sag, &m->lens));
    FIXTURE_MUST(osc_implicit_create_sdf(m->sphere, &m->sphere_surface));

    FIXTURE_MUST(osc_brep_create_box(osc_v3(0.5, 0.4, 0.3), NULL, &m->brep_box));
    FIXTURE_MUST(osc_brep_create_cylinder(0.3, 0.5, NULL, &m->cylinder));
}

static inline void query_models_destroy(query_models* m) {
    osc_brep_destroy(m->cylinder);
    osc_brep_destroy(m->brep_box);
    osc_implicit_destroy(m->sphere_surface);
    osc_implicit_destroy(m->lens);
    osc_convex_destroy(m->capsule);
    osc_convex_destroy(m->convex_box);
    osc_body_destroy(m->ball_body);
    osc_body_destroy(m->slab_body);
    osc_mesh_destroy(m->ball_mesh);
    osc_mesh_destroy(m->slab_mesh);
    osc_sdf_destroy(m->ball);
    osc_sdf_destroy(m->slab);
    osc_mesh_bvh_destroy(m->bvh);
    osc_mesh_destroy(m->mesh);
    osc_sdf_destroy(m->grid_sdf);
    osc_grid_destroy(m->grid);
    osc_sdf_destroy(m->both);
    osc_sdf_destroy(m->box);
    osc_sdf_destroy(m->sphere);
}

// ---------------------------------------------------------------------------------------------
// one configuration of each family: its status and everything it returned

// point i of a line through the SDF union
static inline osc_vec3 fixture_point(int i) { return osc_v3(-0.8 + 0.05 * (i % 32), 0.1 * sin(i), 0.2 * cos(i)); }

typedef struct shape_answer {
    double values[6];
    osc_vec3 gradients[3];
    osc_mat3 hessians[3];
    osc_mesh_closest closest;
} shape_answer;

static inline osc_status query_shapes(const query_models* m, int i, shape_answer* out) {
    memset(out, 0, sizeof *out);
    osc_vec3 p = fixture_point(i);
    out->values[0] = osc_sdf_eval(m->both, p, &out->gradients[0], &out->hessians[0]);
    out->values[1] = osc_grid_eval(m->grid, p, &out->gradients[1], &out->hessians[1]);
    out->gradients[2] = osc_grid_eval_normal(m->grid, p, &out->hessians[2]);
    out->values[2] = osc_mesh_bvh_closest(m->bvh, p, &out->closest);
    out->values[3] = osc_mesh_bvh_signed_distance(m->bvh, p, &out->closest);
    out->values[4] = osc_mesh_bvh_winding_number(m->bvh, p, 2.0);
    return OSC_OK;
}

enum { FIXTURE_MANIFOLD_CAPACITY = 512 };

typedef struct manifold_answer {
    osc_manifold_contact contacts[FIXTURE_MANIFOLD_CAPACITY];
    double distance_jacobians[FIXTURE_MANIFOLD_CAPACITY][12];
    double point_jacobians[FIXTURE_MANIFOLD_CAPACITY][36];
    int32_t count, needed;
} manifold_answer;

static inline osc_pose manifold_pose_b(int i) { return fixture_pose(0.05 * (i % 8), 0.62, 0.0, 0.1 * (i % 8)); }

static inline osc_status query_manifold(const query_models* m, int i, int hard, manifold_answer* out) {
    memset(out, 0, sizeof *out);
    osc_manifold_settings settings = osc_manifold_settings_default();
    if (hard) {
        settings.blend = 0;
        settings.trace_temperature = settings.clip_temperature = settings.blend_temperature = 0.0;
    }
    osc_manifold_output output = {.contacts = out->contacts,
                                  .capacity = FIXTURE_MANIFOLD_CAPACITY,
                                  .point_jacobians = &out->point_jacobians[0][0],
                                  .distance_jacobians = &out->distance_jacobians[0][0]};
    osc_status status = osc_manifold_collide(m->slab_body, fixture_pose(0.0, 0.0, 0.0, 0.0), m->ball_body,
                                             manifold_pose_b(i), &settings, &output);
    out->count = output.count;
    out->needed = output.needed;
    return status;
}

typedef struct dcol_answer {
    osc_dcol_result result;
    double alpha[12], point[36], point_a[36], point_b[36], distance[12], normal[36];
    double gradient[12], alpha_value, parameters_a[64], parameters_b[64];
} dcol_answer;

// the capsule's pose: its axis (body z) turned onto the pose's x by a quarter turn about y
static inline osc_pose dcol_pose_b(int i) {
    osc_pose pose = fixture_pose(0.5 + 0.01 * (i % 64), 0.3, 0.1, 0.05 * (i % 64));
    pose.q = osc_quat_mul(pose.q, osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.5 * TEST_PI));
    return pose;
}

static inline osc_status query_dcol(const query_models* m, int i, dcol_answer* out) {
    memset(out, 0, sizeof *out);
    osc_pose pose_a = fixture_pose(0.0, 0.0, 0.0, 0.2), pose_b = dcol_pose_b(i);
    osc_dcol_jacobians jacobians = {out->alpha, out->point, out->point_a, out->point_b, out->distance, out->normal};
    osc_status status =
        osc_dcol_proximity(m->convex_box, pose_a, m->capsule, pose_b, NULL, &out->result, &jacobians, NULL);
    if (status) return status;
    status = osc_dcol_alpha_gradient(m->convex_box, pose_a, m->capsule, pose_b, NULL, &out->alpha_value, out->gradient);
    if (status) return status;
    return osc_dcol_alpha_parameter_gradient(m->convex_box, pose_a, m->capsule, pose_b, NULL, &out->alpha_value,
                                             out->parameters_a, out->parameters_b);
}

// the items of a DCOL batch of `count` configurations (those of query_dcol)
static inline void fixture_dcol_batch(const query_models* m, int count, osc_dcol_batch_item* items) {
    for (int i = 0; i < count; ++i)
        items[i] = (osc_dcol_batch_item){m->convex_box, fixture_pose(0.0, 0.0, 0.0, 0.2), m->capsule, dcol_pose_b(i),
                                         NULL};
}

enum { FIXTURE_PAIR_CAPACITY = 4096 };

typedef struct sdf_pair_answer {
    osc_sdf_pair_contact contacts[FIXTURE_PAIR_CAPACITY];
    double point_jacobians[FIXTURE_PAIR_CAPACITY][36];
    double distance_jacobians[FIXTURE_PAIR_CAPACITY][12];
    int count, needed, spheres, survivors;
} sdf_pair_answer;

// hard mode with many points (sorted by depth), or smooth mode with Jacobians
static inline osc_status query_sdf_pair(const query_models* m, int i, int smooth, sdf_pair_answer* out) {
    memset(out, 0, sizeof *out);
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    osc_sdf_pair_output output = {.contacts = out->contacts, .capacity = FIXTURE_PAIR_CAPACITY};
    if (smooth) {
        settings.temperature = 0.05;
        output.point_jacobians = &out->point_jacobians[0][0];
        output.distance_jacobians = &out->distance_jacobians[0][0];
    } else {
        settings.resolution = 32;
        settings.merge_distance = 0.5;
    }
    osc_status status = osc_sdf_pair_collide(&m->pair_ball, fixture_pose(0.0, 0.0, 0.0, 0.0), &m->pair_box,
                                             fixture_pose(0.75 + 0.01 * (i % 8), 0.1, 0.05, 0.3), &settings, &output);
    out->count = output.count;
    out->needed = output.needed;
    out->spheres = output.spheres;
    out->survivors = output.survivors;
    return status;
}

typedef struct ray_answer {
    osc_ray_hit hit[2];
    double t_origin[3], t_direction[3], point_origin[9], normal_origin[9], t_pose[6], t_parameters[8];
} ray_answer;

// a ray along the optical axis x through the lens with every Jacobian, and one through the sphere
static inline osc_status query_ray(const query_models* m, int i, ray_answer* out) {
    memset(out, 0, sizeof *out);
    osc_ray_settings settings = osc_ray_settings_default();
    osc_ray_jacobians jacobians = {0};
    jacobians.t_origin = out->t_origin;
    jacobians.t_direction = out->t_direction;
    jacobians.point_origin = out->point_origin;
    jacobians.normal_origin = out->normal_origin;
    jacobians.t_surface_pose = out->t_pose;
    jacobians.t_parameters = out->t_parameters;
    double y = -0.5 + 0.015 * (i % 64);
    osc_ray ray = {osc_v3(-2.0, y, 0.1), osc_v3(1.0, 0.0, 0.0)};
    osc_status status = osc_ray_intersect(m->lens, NULL, ray, &settings, &out->hit[0], &jacobians);
    if (status) return status;
    jacobians.t_parameters = NULL;
    ray.origin = osc_v3(-2.0, 0.5 * y, 0.1);
    return osc_ray_intersect(m->sphere_surface, NULL, ray, &settings, &out->hit[1], &jacobians);
}

enum { FIXTURE_LMD_CAPACITY = 64 };

typedef struct lmd_answer {
    osc_lmd_contact contacts[FIXTURE_LMD_CAPACITY];
    double distance_jacobians[FIXTURE_LMD_CAPACITY][12];
    int32_t count;
} lmd_answer;

// the settings of query_lmd: a conformal contact sampled at 64 points
static inline osc_lmd_settings fixture_lmd_settings(void) {
    osc_lmd_settings settings = osc_lmd_settings_default();
    settings.d_max = 2.0;
    settings.conformal_samples = 64;
    return settings;
}

// step i of a short trajectory of the cylinder standing on the box, 0.01 above it, its end face
// parallel to the box's top (with `cache`, nullable)
static inline osc_lmd_batch_item fixture_lmd_item(const query_models* m, int i, osc_lmd_cache* cache) {
    osc_pose pose_b = {osc_v3(0.002 * i, 0.0, 0.81), osc_quat_identity()};
    return (osc_lmd_batch_item){m->brep_box, fixture_pose(0.0, 0.0, 0.0, 0.0), m->cylinder, pose_b, cache};
}

// step i of the trajectory: a conformal contact sampled at 64 points, whose sort needs more than
// glibc's 1 KB of stack (warm when `cache` is)
static inline osc_status query_lmd(const query_models* m, int i, int threads, osc_lmd_cache* cache, lmd_answer* out) {
    memset(out, 0, sizeof *out);
    osc_lmd_settings settings = fixture_lmd_settings();
    osc_lmd_batch_item item = fixture_lmd_item(m, i, cache);
    osc_lmd_output output = {.contacts = out->contacts,
                             .capacity = FIXTURE_LMD_CAPACITY,
                             .distance_jacobians = &out->distance_jacobians[0][0]};
    osc_status status = osc_lmd_query(item.a, item.pose_a, item.b, item.pose_b, &settings, cache, &output, threads);
    out->count = output.count;
    return status;
}

#endif // OSC_QUERY_FIXTURES_H
