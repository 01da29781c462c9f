// contact.c: the contact manifold between two rigid bodies, with its derivatives. Copy this to start.
//
// Body A is a rounded slab: an analytic superquadric SDF, with a collision mesh extracted from the
// SDF itself. Body B is the Stanford bunny of data/bunny.obj (about 10 units tall, y up): a spline
// SDF baked from the mesh, with its own collision mesh. The bunny stands on the slab, its feet sunk
// 0.1 into it. osc_manifold_collide runs Beker et al. 2026 §IV both ways (A's vertices and edges against B's
// SDF, B's against A's) and blends each convex group into one contact; every output comes with its
// derivatives with respect to both poses.
//
//   usage: contact [bunny.obj]      (default: the repository's data/bunny.obj)

#include "osculate/osculate.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef OSC_DATA_DIR
#define OSC_DATA_DIR "data"
#endif

#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) != OSC_OK) {                                                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, osc_last_error());                                               \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

int main(int argc, char** argv) {
    const char* bunny_path = argc > 1 ? argv[1] : OSC_DATA_DIR "/bunny.obj";

    // 1. body A: a superquadric slab 14 x 2 x 12, nearly a box (small exponents), and its collision
    //    mesh: marching cubes of the SDF, simplified to about 2000 triangles (Beker et al. 2026 §IV-A)
    osc_sdf* slab = NULL;
    osc_mesh* slab_mesh = NULL;
    TRY(osc_sdf_create_superquadric(osc_v3(7.0, 1.0, 6.0), 0.3, 0.3, &slab));
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    TRY(osc_collision_mesh_create(slab, &mesh_settings, &slab_mesh));
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = slab_mesh;               // copied by the body
    desc.sdf = slab;                     // borrowed: keep it until the body is gone
    desc.groups = OSC_GROUPS_SDF_LEAVES; // one group per SDF leaf: the slab is one convex group
    osc_body* a = NULL;
    TRY(osc_body_create(&desc, &a));

    // 2. body B: the bunny as a spline SDF baked from the mesh's BVH (64 cells along its longest
    //    side), and the collision mesh of that spline
    osc_mesh* bunny = NULL;
    osc_mesh_bvh* bvh = NULL;
    osc_grid* grid = NULL;
    osc_sdf* grid_sdf = NULL;
    osc_mesh* bunny_mesh = NULL;
    TRY(osc_mesh_load(bunny_path, NULL, &bunny, NULL));
    TRY(osc_mesh_bvh_create(bunny, &bvh));
    osc_grid_settings grid_settings = osc_grid_settings_default();
    TRY(osc_grid_create_from_mesh(bvh, &grid_settings, &grid));
    TRY(osc_grid_to_sdf(grid, &grid_sdf));
    TRY(osc_collision_mesh_create(grid_sdf, &mesh_settings, &bunny_mesh));
    desc = osc_body_desc_default();
    desc.mesh = bunny_mesh;
    desc.grid = grid;                 // the spline with its normal field (borrowed)
    desc.groups = OSC_GROUPS_CLUSTER; // no convex decomposition at hand: 8 compact clusters
    desc.group_count = 8;
    osc_body* b = NULL;
    TRY(osc_body_create(&desc, &b));
    printf("slab:  %d vertices, %d edges, %d group\n", (int)osc_body_vertex_count(a), (int)osc_body_edge_count(a),
           (int)osc_body_group_count(a));
    printf("bunny: %d vertices, %d edges, %d groups\n", (int)osc_body_vertex_count(b), (int)osc_body_edge_count(b),
           (int)osc_body_group_count(b));

    // 3. poses (world from body; quaternions w, x, y, z): the slab's top face at y = 0.1, the bunny
    //    (its feet at y = 0) turned 30 degrees about the vertical
    osc_pose pose_a = {osc_v3(0.0, -0.9, 0.0), osc_quat_identity()};
    osc_pose pose_b = {osc_v3(0.0, 0.0, 0.0), osc_quat_from_axis_angle(osc_v3(0.0, 1.0, 0.0), 0.5236)};

    // 4. settings: the defaults suit bodies about 1 unit across; these are 10 across, so every length
    //    and temperature is scaled by 10
    osc_manifold_settings settings = osc_manifold_settings_for_size(10.0);

    // 5. the query writes to caller-owned arrays: at most one contact per group here (room for 16),
    //    and the pose Jacobians we ask for (NULL ones are not computed): 12 columns, A's twist
    //    (dp, dtheta) then B's
    enum { CAPACITY = 16 };
    osc_manifold_contact contacts[CAPACITY];
    double distance_jacobians[CAPACITY][12], point_jacobians[CAPACITY][3][12];
    osc_manifold_output out = {0};
    out.contacts = contacts;
    out.capacity = CAPACITY;
    out.distance_jacobians = &distance_jacobians[0][0];
    out.point_jacobians = &point_jacobians[0][0][0];
    TRY(osc_manifold_collide(a, pose_a, b, pose_b, &settings, &out));

    // 6. the contacts: distance < 0 is penetration, the normal points from A (slab) to B (bunny);
    //    column 6 + 1 of a Jacobian is the bunny moving up (B's dp along y)
    static const char* kinds[] = {"vertex", "edge", "group"};
    static const char* bodies[] = {"slab features in the bunny", "bunny features in the slab"};
    printf("%d contacts\n", (int)out.count);
    for (int32_t i = 0; i < out.count; ++i) {
        const osc_manifold_contact* c = &contacts[i];
        printf("  %s %d (%s): point (%.3f, %.3f, %.3f) depth %+.4f normal (%.3f, %.3f, %.3f) weight %.3f\n",
               kinds[c->kind], (int)c->feature, bodies[c->body], c->point.x, c->point.y, c->point.z, c->distance,
               c->normal.x, c->normal.y, c->normal.z, c->weight);
        printf("      bunny up by du: d depth / du = %+.4f, d point.y / du = %+.4f\n", distance_jacobians[i][7],
               point_jacobians[i][1][7]);
    }

    // bodies first: they borrow the SDFs and grids
    osc_body_destroy(a);
    osc_body_destroy(b);
    osc_mesh_destroy(slab_mesh);
    osc_mesh_destroy(bunny_mesh);
    osc_sdf_destroy(slab);
    osc_sdf_destroy(grid_sdf);
    osc_grid_destroy(grid);
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(bunny);
    return 0;
}
