"""A batch of DCOL queries sharded over several devices with JAX: each device runs osculate.jax.dcol
on its own shard of the poses.

The host CPU is split into 4 XLA devices (XLA_FLAGS=--xla_force_host_platform_device_count=4, set
before JAX is imported; an XLA_FLAGS already in the environment is kept and the flag appended). A
batch of 64 poses of a capsule B around a fixed box A (a ring of poses at various heights and
turns) is laid out along a 1-axis device mesh named "batch"; shard_map (jax.shard_map, or
jax.experimental.shard_map.shard_map on older JAX) runs the function below on each device with
that device's 16 poses, and A's pose replicated on every device:

    per shard: d = osculate.jax.dcol(box, pose_a, capsule, poses_b)   -> distance [16], ...

The sharded result, and the gradient of sum(distance) with respect to the poses of B taken through
the sharded call, must equal the unsharded call's (jax.jit of the same function on the whole
batch): each pair is the same C query whichever device runs it. Run:

    python python/examples/sharded_dcol_jax.py    (exit status 0 when both agree)
"""

import os
import sys

DEVICES = 4
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=%d" % DEVICES).strip()

import jax  # noqa: E402  (after XLA_FLAGS)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

import osculate as osc  # noqa: E402
import osculate.jax as oj  # noqa: E402

try:
    shard_map = jax.shard_map
except AttributeError:
    from jax.experimental.shard_map import shard_map

jax.config.update("jax_enable_x64", True)

BATCH = 64
box = osc.Convex.box([0.5, 0.4, 0.3])
capsule = osc.Convex.capsule(0.15, 0.35)


def poses_b(n):
    """n poses of the capsule on a ring round the box, at heights and turns that vary."""
    k = np.arange(n)
    angle = 2 * np.pi * k / n
    position = np.stack([0.9 * np.cos(angle), 0.75 * np.sin(angle), 0.3 * np.sin(3 * angle)], 1)
    turn = [osc.axis_angle_quaternion([np.cos(a), 0.3, np.sin(a)], 0.7 * a) for a in angle]
    return np.hstack([position, np.array(turn)])


def distances(pose_a, pose_b):
    """DCOL of the box at pose_a [7] and the capsule at each of pose_b [n, 7]: its outputs."""
    return oj.dcol(box, pose_a, capsule, pose_b)


def total_distance(pose_a, pose_b):
    return jnp.sum(distances(pose_a, pose_b)["distance"])


def over_devices(f, mesh):
    """shard_map of f(pose_a [7], poses_b [n, 7]) over the mesh: A's pose replicated, B's poses and
    the outputs split along "batch". The replication check is off: it knows no rule for the host
    call inside."""
    specs = dict(mesh=mesh, in_specs=(P(), P("batch")), out_specs=P("batch"))
    try:
        return shard_map(f, check_vma=False, **specs)
    except TypeError:  # JAX before 0.6 names the check check_rep
        return shard_map(f, check_rep=False, **specs)


def main():
    devices = jax.devices()
    if len(devices) < DEVICES:
        print("only %d devices (XLA_FLAGS was read before this script set it?)" % len(devices))
        return 1
    mesh = Mesh(np.array(devices[:DEVICES]), ("batch",))
    print("%d devices: %s" % (DEVICES, ", ".join(str(d) for d in devices[:DEVICES])))
    pose_a = jnp.asarray(osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 0, 1], 0.2)))
    pb = jax.device_put(jnp.asarray(poses_b(BATCH)), NamedSharding(mesh, P("batch")))

    def per_device(pa, pb_shard):
        # traced once per shard shape: pb_shard is this device's block of the batch
        print("inside shard_map: poses of B %s per device, pose of A %s"
              % (pb_shard.shape, pa.shape))
        return distances(pa, pb_shard)

    out = jax.jit(over_devices(per_device, mesh))(pose_a, pb)
    whole = jax.jit(distances)(pose_a, jnp.asarray(poses_b(BATCH)))

    d = out["distance"]
    print("result: distance %s, sharded as %s" % (d.shape, d.sharding.spec))
    for shard in sorted(d.addressable_shards, key=lambda s: s.index[0].start):
        print("  %s: poses %d..%d, shard %s" % (shard.device, shard.index[0].start,
                                                 shard.index[0].stop - 1, shard.data.shape))
    same = all(np.array_equal(np.asarray(out[k]), np.asarray(whole[k])) for k in whole)
    print("every output equals the unsharded call's: %s" % same)
    print("distance: least %.4f, greatest %.4f, %d of %d pairs penetrating"
          % (float(d.min()), float(d.max()), int(np.sum(np.asarray(d) < 0)), BATCH))

    def sharded_total(pa, pb):
        return jnp.sum(over_devices(lambda a, b: distances(a, b)["distance"], mesh)(pa, pb))

    g_sharded = jax.jit(jax.grad(sharded_total, argnums=1))(pose_a, pb)
    g_whole = jax.jit(jax.grad(total_distance, argnums=1))(pose_a, jnp.asarray(poses_b(BATCH)))
    grad_same = bool(np.allclose(np.asarray(g_sharded), np.asarray(g_whole), rtol=1e-12,
                                 atol=1e-14))
    print("gradient of sum(distance) over B's poses %s, sharded as %s; equals the unsharded "
          "one's: %s" % (g_sharded.shape, g_sharded.sharding.spec, grad_same))
    return 0 if same and grad_same else 1


if __name__ == "__main__":
    sys.exit(main())
