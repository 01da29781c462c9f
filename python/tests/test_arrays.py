"""Arrays at every entry point: what is not an array of real numbers (complex, bool, strings, dates,
records, ragged lists) is refused naming the argument, instead of a cast that drops an imaginary
part or parses strings; arrays that differ only in layout (strided, Fortran-ordered, byte-swapped,
read-only, float32 or integer values) give the same answer bit for bit; empty batches give empty
answers; absurdly large arrays fail fast with MemoryError instead of hanging; and a brief run of
the random-argument fuzzer (fuzz_api.py) finds no crash, hang, unclear exception or layout
dependence."""

import dataclasses
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import run_isolated

import osculate as osc

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def m():
    sdf = osc.SDF.sphere(0.5)
    mesh = osc.collision_mesh(sdf, resolution=16, target_triangles=100)
    return dict(sdf=sdf, mesh=mesh, bvh=mesh.bvh(), body=osc.Body(mesh, sdf=sdf),
                grid=osc.Grid.from_sdf(sdf, resolution=8), box=osc.Convex.box([0.5, 0.4, 0.3]),
                capsule=osc.Convex.capsule(0.2, 0.4), brep=osc.Brep.box([1.0, 1.0, 0.5]),
                lens=osc.Implicit.sag(0.5, diameter=1.0))


POINTS = np.array([[0.1, 0.2, 0.3], [0.9, -0.2, 0.1], [-0.4, 0.45, 0.05], [0.0, 0.0, 0.7]])
POSE_B = np.array([0.9, 0.2, 0.1, 1.0, 0.0, 0.0, 0.0])

# name of the array argument -> call taking it
CALLS = {
    "points": lambda m, x: m["sdf"].eval(x, gradient=True, hessian=True),
    "grid points": lambda m, x: m["grid"].eval(x, gradient=True, normal=True),
    "bvh points": lambda m, x: m["bvh"].signed_distance(x, closest_points=True),
    "closest points": lambda m, x: m["bvh"].closest(x),
    "pose_b": lambda m, x: osc.dcol(m["box"], osc.pose(), m["capsule"], x, derivatives=True),
    "poses_b": lambda m, x: osc.dcol_batch(m["box"], osc.pose(), m["capsule"], x,
                                           derivatives=True),
    "manifold pose_b": lambda m, x: osc.manifold_collide(m["body"], osc.pose(), m["body"], x,
                                                         derivatives=True),
    "lmd pose_b": lambda m, x: osc.lmd(m["brep"], osc.pose(), m["brep"], x, d_max=1.0),
    "origins": lambda m, x: osc.ray_intersect_batch(m["lens"], x, np.tile([1.0, 0, 0], (4, 1))),
    "many origins": lambda m, x: osc.ray_intersect_many(m["lens"], x, np.tile([1.0, 0, 0], (4, 1)),
                                                        derivatives=True),
    "vertices": lambda m, x: osc.Mesh(x, [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).volume,
    "half_extents": lambda m, x: osc.SDF.box(x).eval(POINTS),
    "x": lambda m, x: osc.softplus(x, 0.1, derivatives=True),
    "poses": lambda m, x: osc.apply_twist(x, np.full((2, 6), 0.01)),
}
VALID = {
    "points": POINTS, "grid points": POINTS, "bvh points": POINTS, "closest points": POINTS,
    "pose_b": POSE_B, "poses_b": np.stack([POSE_B, POSE_B + [0.5, 0, 0, 0, 0, 0, 0]]),
    "manifold pose_b": np.array([0.97, 0, 0, 1.0, 0, 0, 0]),
    "lmd pose_b": np.array([0.1, 0.2, 1.25, 1.0, 0, 0, 0]),
    "origins": np.array([[-2.0, 0.1, 0.0], [-2.0, -0.3, 0.1], [-2.0, 0.0, 0.45], [-2.0, 0, 0]]),
    "many origins": np.array([[-2.0, 0.1, 0.0], [-2.0, -0.3, 0.1], [-2.0, 0.0, 0.45],
                              [-2.0, 0, 0]]),
    "vertices": np.array([[0.0, 0, 0], [1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]),
    "half_extents": np.array([0.5, 0.25, 0.125]), "x": POINTS,
    "poses": np.stack([osc.pose([0.5, 0.25, 0.0]), POSE_B]),
}


def _flat(result):
    if result is None:
        return []
    if dataclasses.is_dataclass(result):
        return [a for f in dataclasses.fields(result) if not f.name.startswith("_")
                for a in _flat(getattr(result, f.name))]
    if isinstance(result, dict):
        return [a for k in sorted(result) for a in _flat(result[k])]
    if isinstance(result, (list, tuple)):
        return [a for r in result for a in _flat(r)]
    return [np.asarray(result)]


def _not_real(x):
    """Arrays of the shape of x that do not hold real numbers."""
    return {"complex": x + 1j, "bool": x > 0, "strings": x.astype(str),
            "dates": np.zeros(x.shape, "datetime64[s]"), "records": np.zeros(x.shape, [("a", "f8")]),
            "objects": np.full(x.shape, None)}


@pytest.mark.parametrize("key", list(CALLS))
def test_arrays_of_other_than_real_numbers_are_refused(m, key):
    name = key.split()[-1]
    for what, bad in _not_real(VALID[key]).items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a cast that drops an imaginary part must not happen
            with pytest.raises(ValueError, match=name):
                CALLS[key](m, bad)


def _layouts(x):
    big = np.repeat(x, 2, axis=0)
    readonly = x.copy()
    readonly.flags.writeable = False
    out = {"strided": big[::2], "byte-swapped": x.astype(x.dtype.newbyteorder(">")),
           "read-only": readonly, "reversed twice": x[::-1][::-1],
           "a list": x.tolist(), "float32": x.astype(np.float32)}
    if x.ndim == 2:
        out["fortran"] = np.asfortranarray(x)
    return out


@pytest.mark.parametrize("key", list(CALLS))
def test_layouts_give_the_same_answer(m, key):
    x = VALID[key]
    exact = x.astype(np.float32).astype(np.float64)  # values float32 holds exactly
    for base in (x, exact):
        expected = _flat(CALLS[key](m, base))
        for how, y in _layouts(base).items():
            if how == "float32" and base is x:
                continue
            got = _flat(CALLS[key](m, y))
            assert len(got) == len(expected)
            for a, b in zip(got, expected):
                assert np.array_equal(a, b, equal_nan=True), how
    ints = np.round(x * 4)  # integer-valued, also as an int64 array
    if key not in ("vertices", "half_extents") and "pose" not in key:
        expected = _flat(CALLS[key](m, ints))
        for a, b in zip(_flat(CALLS[key](m, ints.astype(np.int64))), expected):
            assert np.array_equal(a, b, equal_nan=True)


def test_empty_batches_give_empty_answers(m):
    e3, e7 = np.zeros((0, 3)), np.zeros((0, 7))
    assert m["sdf"].eval(e3).shape == (0,)
    assert m["grid"].eval(e3, gradient=True)[1].shape == (0, 3)
    assert m["bvh"].signed_distance(e3).shape == (0,)
    assert m["bvh"].closest(e3)["point"].shape == (0, 3)
    for pose_a in (e7, osc.pose()):  # one pose broadcasts against none: no pairs
        r = osc.dcol_batch(m["box"], pose_a, m["capsule"], e7, derivatives=True)
        assert r.alpha.shape == (0,) and r.jacobians["normal"].shape == (0, 3, 12)
    assert osc.manifold_collide_batch(m["body"], e7, m["body"], e7).count.shape == (0,)
    assert osc.sdf_scene_collide([], e7) == []
    assert osc.ray_intersect_batch(m["lens"], e3, e3)[0].shape == (0,)
    assert osc.ray_intersect_many(m["lens"], e3, e3, derivatives=True)["t_origin"].shape == (0, 3)
    assert osc.apply_twist(e7, np.zeros((0, 6))).shape == (0, 7)
    assert osc.curve_order(e3).shape == (0,)
    with pytest.raises(ValueError, match="poses must have shape"):
        osc.dcol_batch(m["box"], np.zeros((3, 7)), m["capsule"], np.zeros((2, 7)))


# ------------------------------------------------------------------------------------------------
# absurd sizes, in a child interpreter with a time limit: each must fail at once


def case_absurd_sizes_fail_fast():
    sdf, box = osc.SDF.sphere(0.5), osc.Convex.box([0.5, 0.5, 0.5])
    huge3 = np.broadcast_to(np.zeros((1, 3)), (2**38, 3))  # 6 TB, a view of 24 bytes
    huge4 = np.broadcast_to(np.zeros((1, 4)), (2**38, 4))
    huge7 = np.broadcast_to(osc.pose()[None], (2**38, 7))
    calls = [lambda: sdf.eval(huge3), lambda: osc.SDF.psq([1, 1, 1], 0.5, 0.5, planes=huge4),
             lambda: osc.dcol_batch(box, osc.pose(), box, huge7),
             lambda: osc.Convex.hull(huge3), lambda: osc.curve_order(huge3),
             lambda: osc.lmd(osc.Brep.box([1, 1, 1]), osc.pose(), osc.Brep.box([1, 1, 1]),
                             osc.pose([0, 0, 2.5]), capacity=2**31 - 1)]
    for call in calls:
        with pytest.raises((MemoryError, ValueError)):
            call()


def test_absurd_sizes_fail_fast():
    run_isolated(case_absurd_sizes_fail_fast, timeout=120)


def test_fuzz_briefly():
    """The random-argument fuzzer for a few hundred calls (python tests/fuzz_api.py --calls N
    runs it longer)."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "fuzz_api.py"), "--calls", "600",
                        "--seed", "7", "--timeout", "120"], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0 and "0 problems" in r.stdout, r.stdout[-5000:] + r.stderr[-2000:]
