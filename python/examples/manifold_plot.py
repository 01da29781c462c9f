"""A contact manifold drawn with matplotlib: a superquadric pebble resting on a tilted slab.

Both bodies are analytic SDFs with collision meshes extracted from them (osculate.collision_mesh);
osculate.manifold_collide returns every vertex and edge contact with its signed distance, normal and
weight.
The figure shows the contact points coloured by distance (negative: penetration), their normals, and
the two collision meshes' vertices for context. Without matplotlib the script prints the contacts
and says it skipped the figure.

    python python/examples/manifold_plot.py [OUT.png]     (default: manifold.png)
"""

import sys

import numpy as np

import osculate as osc


def world(mesh, pose):
    w, x, y, z = pose[3:] / np.linalg.norm(pose[3:])
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return mesh.vertices @ R.T + pose[:3]


def main(out="manifold.png"):
    slab_sdf = osc.SDF.box([0.8, 0.8, 0.15], rounding=0.05)
    box_sdf = osc.SDF.superquadric([0.25, 0.2, 0.15], 0.5, 0.7)
    slab_mesh = osc.collision_mesh(slab_sdf, resolution=48, target_triangles=1500)
    box_mesh = osc.collision_mesh(box_sdf, resolution=32, target_triangles=600)
    slab = osc.Body(slab_mesh, sdf=slab_sdf)
    box = osc.Body(box_mesh, sdf=box_sdf)
    slab_pose = osc.pose([0, 0, 0], osc.axis_angle_quaternion([1, 0, 0], 0.05))
    box_pose = osc.pose([0.1, 0.05, 0.29], osc.axis_angle_quaternion([0, 1, 0.2], 0.12))
    m = osc.manifold_collide(slab, slab_pose, box, box_pose, derivatives=True)
    kinds = np.bincount(m.kind, minlength=3)
    print("%d contacts (%d vertex, %d edge), %d penetrating, deepest %.4f, total weight %.2f"
          % (len(m), kinds[0], kinds[1], np.sum(m.distance < 0), m.distance.min(), m.weight.sum()))
    lift = m.weight @ m.distance_jacobian[:, 8]  # d (sum of weighted distances) / d z of the pebble
    print("d (sum of weight * distance) / d z_pebble = %.3f" % lift)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: skipped the figure (pip install matplotlib)")
        return 0
    fig = plt.figure(figsize=(7, 6))
    ax = fig.add_subplot(projection="3d")
    for mesh, pose, colour in ((slab_mesh, slab_pose, "0.75"), (box_mesh, box_pose, "0.55")):
        v = world(mesh, pose)
        ax.scatter(v[:, 0], v[:, 1], v[:, 2], s=1, c=colour, alpha=0.3)
    sc = ax.scatter(m.point[:, 0], m.point[:, 1], m.point[:, 2], c=m.distance, cmap="coolwarm_r", s=12)
    n = m.normal * 0.04 * m.weight[:, None]
    ax.quiver(m.point[:, 0], m.point[:, 1], m.point[:, 2], n[:, 0], n[:, 1], n[:, 2], color="k", lw=0.5)
    fig.colorbar(sc, label="distance (negative: penetration)")
    ax.set_title("osculate contact manifold: %d contacts" % len(m))
    ax.set_xlim(-0.45, 0.55)
    ax.set_ylim(-0.45, 0.55)
    ax.set_zlim(0.0, 0.5)
    ax.set_box_aspect((1, 1, 0.5))
    fig.savefig(out, dpi=120)
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
