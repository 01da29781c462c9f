"""Pose optimisation of two meshes in contact, in PyTorch: push a bunny out of another one.

Two bodies of data/bunny.obj (osculate.Body.from_mesh: a spline SDF of the mesh and a collision
mesh extracted from it; resolution 40 and 800 triangles, enough for the example and quick to
build). A stays at the origin; B starts sunk into A's back, shifted up by half of A's height and
turned 0.3 rad about (1, 1, 0), so that their contact manifold has many penetrating contacts. We
look for the pose of B nearest to that start with no penetration, minimising over B's raw pose
p = (position, quaternion) [7]

    E(p) = |p - p0|^2  +  RHO * sum_contacts weight * max(0, -distance)^2

where the sum runs over the contacts of osculate.torch.manifold (signed distance, negative:
penetration; weight: the contact's share of the surface, 0 in empty slots), differentiable in both
poses through the C library's Jacobians. torch.optim.Adam takes the steps, their size decaying
by 2 % a step. The energy is compiled
with torch.compile where this PyTorch has it (2.0 and later); on older ones (Debian's 1.13) it
runs eagerly and says so. Run:

    python python/examples/bunny_pose_torch.py    (exit status 0 when the deepest penetration
                                                   falls below 5 % of where it started)
"""

import os
import sys

import numpy as np
import torch

import osculate as osc
import osculate.torch as ot

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "bunny.obj")
RHO = 1e4
STEPS = 150


def bodies():
    """The bunny body and the starting poses of A and B."""
    body = osc.Body.from_mesh(MODEL, resolution=40, triangles=800)
    v = body.collision_mesh.vertices
    height = float(v[:, 2].max() - v[:, 2].min())
    pose_a = osc.pose()
    pose_b = osc.pose([0.0, 0.0, 0.5 * height], osc.axis_angle_quaternion([1, 1, 0], 0.3))
    return body, pose_a, pose_b


def main():
    torch.set_default_dtype(torch.float64)
    body, pose_a, pose_b = bodies()
    a = torch.tensor(pose_a)
    start = torch.tensor(pose_b)

    def contacts(p):
        return ot.manifold(body, a, body, p)

    def energy(p):
        m = contacts(p)
        penetration = torch.clamp(-m["distance"], min=0.0)
        return torch.sum((p - start) ** 2) + RHO * torch.sum(m["weight"] * penetration**2)

    if hasattr(torch, "compile"):
        energy = torch.compile(energy)
        print("torch %s: the energy runs under torch.compile" % torch.__version__)
    else:
        print("torch %s has no torch.compile: the energy runs eagerly" % torch.__version__)

    def deepest(p):
        with torch.no_grad():
            m = contacts(p)
            return float(torch.clamp(-m["distance"], min=0.0).max()), int(m["count"])

    depth0, count0 = deepest(start)
    print("bunny size %.3f; start: %d contacts, deepest penetration %.4f"
          % (body.size, count0, depth0))
    position = start[:3].clone().requires_grad_(True)
    quaternion = start[3:].clone().requires_grad_(True)
    # steps of about 0.5 % of the body's size and of 0.005 (about 0.01 rad) on the quaternion
    opt = torch.optim.Adam([{"params": [position], "lr": 0.005 * body.size},
                            {"params": [quaternion], "lr": 0.005}])
    schedule = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.98)  # settle as it nears
    for it in range(1, STEPS + 1):
        opt.zero_grad()
        p = torch.cat([position, quaternion])
        e = energy(p)
        e.backward()
        opt.step()
        schedule.step()
        if it % 25 == 0:
            depth, count = deepest(p)
            print("step %2d: energy %.5f, %d contacts, deepest penetration %.5f"
                  % (it, float(e), count, depth))
    p = torch.cat([position, quaternion]).detach()
    depth, count = deepest(p)
    moved = p - start
    print("B moved by (%+.4f, %+.4f, %+.4f), its quaternion by %.4f; deepest penetration %.5f "
          "(%.1f %% of the start)" % (*moved[:3].tolist(), float(moved[3:].norm()), depth,
                                       100 * depth / depth0))
    ok = depth < 0.05 * depth0
    print("B %s" % ("is pushed out of A" if ok else "still penetrates A"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
