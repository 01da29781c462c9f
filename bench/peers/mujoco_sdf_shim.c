// mujoco_sdf_shim.c: C loops over MuJoCo's own SDF functions and collision detection, so that mesh_sdf_peers.py
// and mujoco_manifold.py measure MuJoCo and not the Python interpreter. Built by bench/peers/setup.sh against the
// headers and library of the `mujoco` wheel installed in the peers' virtual environment, loaded with ctypes, and
// handed the raw mjModel / mjData pointers of the Python bindings (MjModel._address, MjData._address).
//
// MuJoCo >= 3.3.5 builds an SDF of a mesh natively (the SdfLib plugin was removed then): a mesh asset with
// `needsdf` set gets an octree of at most `octree_maxdepth` levels over its bounding box whose nodes hold the
// signed distance at their 8 corners (mjModel.oct_coeff); an `sdf` geom referring to that mesh without a plugin
// uses it. mjc_distance / mjc_gradient evaluate that octree for an mjSDF whose plugin is NULL, in the mesh's
// local frame (MuJoCo re-centres and re-orients meshes: local = R(mesh_quat)^T (x - mesh_pos)).

#include <mujoco/mujoco.h>

// signed distance (and, if grad is not NULL, its gradient) of the SDF geom `geom` at n points x (n x 3, in the
// geom's mesh frame)
void osc_mj_sdf_eval(const mjModel* m, const mjData* d, int geom, int n, const double* x, double* dist, double* grad) {
    const mjpPlugin* plugin[1] = {NULL}; // NULL: the mesh's native octree SDF
    int id[1] = {geom};
    mjtGeom type[1] = {mjGEOM_SDF};
    mjSDF sdf = {plugin, id, mjSDFTYPE_SINGLE, NULL, NULL, type};
    for (int i = 0; i < n; i++) {
        dist[i] = mjc_distance(m, d, &sdf, x + 3 * i);
        if (grad) mjc_gradient(m, d, &sdf, grad + 3 * i, x + 3 * i);
    }
}

// mj_geomDistance(geom1, geom2) with geom2 (a sphere) moved to each of n world points x in turn (only its
// position in mjData changes; no forward pass in between)
void osc_mj_geom_distance(const mjModel* m, mjData* d, int geom1, int geom2, double distmax, int n, const double* x,
                          double* dist) {
    double fromto[6];
    for (int i = 0; i < n; i++) {
        d->geom_xpos[3 * geom2 + 0] = x[3 * i + 0];
        d->geom_xpos[3 * geom2 + 1] = x[3 * i + 1];
        d->geom_xpos[3 * geom2 + 2] = x[3 * i + 2];
        dist[i] = mj_geomDistance(m, d, geom1, geom2, distmax, fromto);
    }
}

// collision detection alone (mj_kinematics, then mj_collision: broad and narrow phase, nothing else of a step) at n
// configurations of a model whose qpos is two free joints: pose i is poses[14 i ...] = position and quaternion
// (w, x, y, z) of body A, then of body B, written into qpos[0:14] as given. ncon[i] gets d->ncon. If out is not NULL,
// the first at most maxout contacts of configuration `keep` are copied into it, 13 numbers each: pos (3), dist,
// frame (9; its first row is the normal). Returns the total number of contacts.
long osc_mj_collide_poses(const mjModel* m, mjData* d, int n, const double* poses, int* ncon, int keep, int maxout,
                          double* out) {
    long total = 0;
    for (int i = 0; i < n; i++) {
        mju_copy(d->qpos, poses + 14 * i, 14);
        mj_kinematics(m, d);
        mj_collision(m, d);
        ncon[i] = d->ncon;
        total += d->ncon;
        if (out && i == keep) {
            for (int k = 0; k < d->ncon && k < maxout; k++) {
                const mjContact* c = d->contact + k;
                mju_copy3(out + 13 * k, c->pos);
                out[13 * k + 3] = c->dist;
                mju_copy(out + 13 * k + 4, c->frame, 9);
            }
        }
    }
    return total;
}
