"""Every function that takes `threads`: a request far beyond the machine (100000, which killed the
process from Python before the C library clamped it to OSC_MAX_THREADS) gives the single-threaded
answer bit for bit, and a negative count raises ValueError naming threads. Each case runs in a
child interpreter (conftest.run_isolated), so that a crash fails the test instead of killing
pytest."""

import dataclasses

import numpy as np
import pytest
from conftest import run_isolated

import osculate as osc


def _flat(result):
    """A result as a flat list of arrays, for exact comparison."""
    if result is None:
        return []
    if dataclasses.is_dataclass(result):
        result = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)
                  if not f.name.startswith("_")}
    if isinstance(result, dict):
        return [a for k in sorted(result) for a in _flat(result[k])]
    if isinstance(result, (list, tuple)):
        return [a for r in result for a in _flat(r)]
    if isinstance(result, osc.Mesh):
        return [result.vertices, result.triangles]
    if isinstance(result, osc.Grid):
        return _flat(result.eval(np.random.default_rng(1).uniform(-0.7, 0.7, (500, 3)),
                                 gradient=True))
    return [np.asarray(result)]


def _same_for_any_thread_count(run):
    one = _flat(run(1))
    for threads in (100000, 2**31 - 1, 0):
        many = _flat(run(threads))
        assert len(one) == len(many)
        for a, b in zip(one, many):
            assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True), threads
    for threads in (-1, -(2**31)):
        with pytest.raises(ValueError, match="threads"):
            run(threads)


POINTS = np.random.default_rng(0).uniform(-1.0, 1.0, (20000, 3))


def _sphere_body():
    sdf = osc.SDF.sphere(0.5)
    return osc.Body(osc.collision_mesh(sdf, resolution=16, target_triangles=150), sdf=sdf)


# ------------------------------------------------------------------------------------------------
# the cases, each run in a child interpreter


def case_sdf_eval():
    sdf = osc.SDF.union([osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.6])], temperature=0.05)
    _same_for_any_thread_count(lambda t: sdf.eval(POINTS, gradient=True, hessian=True, threads=t))


def case_grid_eval():
    grid = osc.Grid.from_sdf(osc.SDF.sphere(0.5), resolution=16)
    _same_for_any_thread_count(lambda t: grid.eval(POINTS, gradient=True, normal=True, threads=t))


def case_signed_distance():
    bvh = osc.isosurface(osc.SDF.sphere(0.5), resolution=16).bvh()
    _same_for_any_thread_count(lambda t: bvh.signed_distance(POINTS[:5000], closest_points=True,
                                                             threads=t))


def case_dcol_batch():
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4)
    poses = np.tile(osc.pose([0.9, 0.2, 0.0]), (5000, 1))
    poses[:, 0] += np.linspace(0.0, 1.0, len(poses))
    _same_for_any_thread_count(lambda t: osc.dcol_batch(a, osc.pose(), b, poses,
                                                        derivatives=True, threads=t))


def case_manifold_collide_batch():
    body = _sphere_body()
    poses = np.tile(osc.pose([0.97, 0.0, 0.0]), (64, 1))
    poses[:, 1] += np.linspace(-0.1, 0.1, len(poses))
    _same_for_any_thread_count(lambda t: osc.manifold_collide_batch(
        body, np.tile(osc.pose(), (len(poses), 1)), body, poses, derivatives=True, threads=t))


def case_sdf_scene_collide():
    shapes = [osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.3]), osc.SDF.sphere(0.3)] * 4
    poses = [osc.pose([0.8 * (k % 4), 0.7 * (k // 4), 0.0]) for k in range(len(shapes))]
    _same_for_any_thread_count(lambda t: osc.sdf_scene_collide(shapes, poses,
                                                               contacts_per_pair=256, threads=t))


def case_sdf_pair_collide_batch():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    poses = np.tile(osc.pose([0.85, 0.0, 0.0]), (32, 1))
    poses[:, 1] += np.linspace(-0.2, 0.2, len(poses))
    _same_for_any_thread_count(lambda t: osc.sdf_pair_collide_batch(
        a, osc.pose(), b, poses, capacity=256, derivatives=True, temperature=0.02, threads=t))


def case_ray_intersect_batch():
    lens = osc.Implicit.sag(0.5, diameter=1.0, conic=-0.5)
    o = np.tile([-1.0, 0.0, 0.0], (5000, 1))
    o[:, 1] = np.linspace(-0.45, 0.45, len(o))
    d = np.tile([1.0, 0.0, 0.0], (len(o), 1))
    _same_for_any_thread_count(lambda t: osc.ray_intersect_batch(lens, o, d, threads=t))


def case_grid_creation():
    sdf = osc.SDF.box([0.4, 0.3, 0.5], 0.05)
    mesh = osc.isosurface(sdf, resolution=16)
    _same_for_any_thread_count(lambda t: osc.Grid.from_sdf(sdf, resolution=16, threads=t))
    _same_for_any_thread_count(lambda t: osc.Grid.from_mesh(mesh, resolution=16, threads=t))


def case_isosurface_and_collision_mesh():
    sdf = osc.SDF.torus(0.5, 0.2)
    _same_for_any_thread_count(lambda t: osc.isosurface(sdf, resolution=24, threads=t))
    _same_for_any_thread_count(lambda t: osc.collision_mesh(sdf, resolution=24,
                                                            target_triangles=300, threads=t))


def case_lmd():
    hole = osc.Brep.block_with_hole([1, 1, 1], [[0.505, 1.0], [0.505, -0.8]])
    peg = osc.Brep.revolved([[0.0, -0.6], [0.45, -0.6], [0.5, -0.55], [0.5, 0.9], [0.0, 0.9]])
    pose = osc.pose([0.003, 0.002, 0.1], osc.axis_angle_quaternion([1, 1, 0], 0.003))
    _same_for_any_thread_count(lambda t: osc.lmd(hole, osc.pose(), peg, pose, d_max=0.02,
                                                 conformal_samples=4, threads=t))


def case_lmd_batch():
    box, cyl = osc.Brep.box([1.0, 2.0, 0.5]), osc.Brep.cylinder(0.4, 0.6)
    poses = np.tile(osc.pose([0.1, 0.2, 1.2]), (16, 1))
    poses[:, 0] += np.linspace(-0.3, 0.3, len(poses))
    _same_for_any_thread_count(lambda t: osc.lmd_batch(box, osc.pose(), cyl, poses, d_max=2.0,
                                                       threads=t))


# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", [
    case_sdf_eval, case_grid_eval, case_signed_distance, case_dcol_batch,
    case_manifold_collide_batch, case_sdf_pair_collide_batch, case_sdf_scene_collide,
    case_ray_intersect_batch, case_grid_creation, case_isosurface_and_collision_mesh, case_lmd,
    case_lmd_batch],
    ids=lambda f: f.__name__[5:])
def test_threads_are_clamped_or_refused(case):
    run_isolated(case)
