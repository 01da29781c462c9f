"""Models lent to other models stay alive while they are borrowed: an SDF or a Grid inside a Body,
an SDF or a Grid inside an Implicit, a Mesh inside a MeshBVH or a Body, two Breps remembered by an
LmdCache. Whatever happens to the lender's Python object (dropped and collected, or closed by
close() or an explicit __del__()), the borrower keeps answering exactly as before. Each case runs
in a child interpreter (conftest.run_isolated), so that a read after free that crashes fails the
test instead of killing pytest."""

import copy
import dataclasses
import gc
import pickle
import threading

import numpy as np
import pytest
from conftest import run_isolated

import osculate as osc

HOW = ("close", "__del__", "del")  # close(), an explicit __del__(), or only dropping the name


def _release(model, how):
    if how == "close":
        model.close()
    elif how == "__del__":
        model.__del__()


def _churn():
    """Models made and dropped, so that the memory of anything freed is handed out again."""
    for _ in range(3):
        junk = [osc.SDF.box([1.0, 0.7, 0.4]) for _ in range(40)]
        junk += [osc.Grid.from_sdf(osc.SDF.box([1.0, 1.0, 1.0]), resolution=8) for _ in range(3)]
        junk += [osc.Brep.box([2.0, 2.0, 2.0]) for _ in range(5)]
        junk += [osc.Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
                          [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]) for _ in range(20)]
        del junk
        gc.collect()


def _assert_same(expected, got):
    if dataclasses.is_dataclass(expected):
        expected, got = dataclasses.asdict(expected), dataclasses.asdict(got)
    if isinstance(expected, dict):
        assert expected.keys() == got.keys()
        for k in expected:
            _assert_same(expected[k], got[k])
        return
    if isinstance(expected, tuple):
        assert len(expected) == len(got)
        for e, g in zip(expected, got):
            _assert_same(e, g)
        return
    assert np.array_equal(np.asarray(expected), np.asarray(got)), (expected, got)


def _sphere_parts():
    sdf = osc.SDF.sphere(0.5)
    return sdf, osc.collision_mesh(sdf, resolution=24, target_triangles=200)


def _collide(body):
    return osc.manifold_collide(body, osc.pose(), body, osc.pose([0.97, 0.0, 0.0]),
                                derivatives=True)


# ------------------------------------------------------------------------------------------------
# the cases, each run in a child interpreter


def case_body_keeps_its_sdf_and_mesh():
    for how in HOW:
        sdf, mesh = _sphere_parts()
        body = osc.Body(mesh, sdf=sdf)
        expected = _collide(body)
        # the closed form: the deepest vertex of A lies about 0.97 - 2 * 0.5 inside B
        assert 20 <= len(expected) <= 40 and -0.04 < expected.distance.min() < -0.02
        _release(sdf, how)
        _release(mesh, how)
        del sdf, mesh
        _churn()
        _assert_same(expected, _collide(body))


def case_body_keeps_its_grid():
    for how in HOW:
        sdf, mesh = _sphere_parts()
        grid = osc.Grid.from_sdf(sdf, resolution=16)
        body = osc.Body(mesh, grid=grid)
        expected = _collide(body)
        assert len(expected) > 0 and -0.04 < expected.distance.min() < -0.02
        for model in (grid, sdf, mesh):
            _release(model, how)
        del grid, sdf, mesh
        _churn()
        _assert_same(expected, _collide(body))


def case_body_keeps_the_sdf_of_a_grid():
    for how in HOW:
        sdf, mesh = _sphere_parts()
        grid = osc.Grid.from_sdf(sdf, resolution=16)
        body = osc.Body(mesh, sdf=grid)  # the SDF leaf made from the grid is borrowed
        expected = _collide(body)
        assert len(expected) > 0
        _release(grid, how)
        del grid, sdf, mesh
        _churn()
        _assert_same(expected, _collide(body))


def case_implicit_keeps_its_sdf():
    for how in HOW:
        for lender in ("sdf", "grid"):
            sdf = osc.SDF.sphere(0.5)
            model = sdf if lender == "sdf" else osc.Grid.from_sdf(sdf, resolution=16)
            surface = osc.Implicit.from_sdf(model)
            hit = osc.ray_intersect(surface, [-2.0, 0.1, 0.0], [1.0, 0.0, 0.0])
            assert hit.hit and abs(hit.t - (2.0 - np.sqrt(0.25 - 0.01))) < 1e-3
            _release(model, how)
            _release(sdf, how)
            del model, sdf
            _churn()
            again = osc.ray_intersect(surface, [-2.0, 0.1, 0.0], [1.0, 0.0, 0.0])
            _assert_same(hit, again)


def case_bvh_outlives_its_mesh():
    for how in HOW:
        mesh = osc.isosurface(osc.SDF.sphere(0.5), resolution=16)
        bvh = mesh.bvh()
        points = np.array([[0.0, 0.0, 0.0], [1.0, 0.2, -0.3], [0.1, 0.45, 0.0]])
        expected = bvh.signed_distance(points, closest_points=True)
        np.testing.assert_allclose(expected[0], np.linalg.norm(points, axis=1) - 0.5, atol=0.02)
        _release(mesh, how)
        del mesh
        _churn()
        _assert_same(expected, bvh.signed_distance(points, closest_points=True))


def case_cache_keeps_its_pair():
    """An LmdCache recognises its pair of solids by address: the solids of its last query must
    stay allocated while it remembers them, or a new solid made at a freed address inherits a
    front and footpoints that are not its own."""
    near = osc.pose([0.2, -0.3, 0.9])
    for how in HOW:
        cache = osc.LmdCache()
        a, b = osc.Brep.box([1.0, 1.0, 0.5]), osc.Brep.sphere(0.3)
        assert len(osc.lmd(a, osc.pose(), b, near, d_max=0.5, cache=cache)) == 1
        addresses = (a._handle, b._handle)
        _release(a, how)
        _release(b, how)
        del a, b
        gc.collect()
        # new solids of other shapes, those at the old addresses first when memory is reused
        made = [osc.Brep.block_with_hole([1.0, 1.0, 1.0], [[0.5, 1.0], [0.5, -0.5], [0.0, -0.5]])
                if k % 2 == 0 else osc.Brep.cylinder(0.3, 0.4) for k in range(12)]
        at = {m._handle: m for m in made}
        c = at.get(addresses[0], made[0])
        d = at.get(addresses[1], made[1] if c is not made[1] else made[2])
        for pose_d in (osc.pose([0.0, 0.0, 1.5]), osc.pose([0.1, 0.1, 1.45])):
            expected = osc.lmd(c, osc.pose(), d, pose_d, d_max=0.5)
            _assert_same(expected, osc.lmd(c, osc.pose(), d, pose_d, d_max=0.5, cache=cache))


def case_closed_models_refuse_use():
    sdf, mesh = _sphere_parts()
    sdf.close()
    sdf.close()  # a second close does nothing
    sdf.__del__()
    for call in (lambda: sdf.eval([0.0, 0.0, 0.0]), lambda: osc.Body(mesh, sdf=sdf),
                 lambda: osc.Implicit.from_sdf(sdf), lambda: osc.SDF.union([sdf, sdf]),
                 lambda: sdf.transformed(osc.pose()), lambda: osc.isosurface(sdf),
                 lambda: osc.sdf_pair_collide(sdf, osc.pose(), sdf, osc.pose())):
        with pytest.raises(ValueError, match="SDF is closed"):
            call()
    box = osc.Convex.box([0.5, 0.5, 0.5])
    other = osc.Convex.sphere(0.5)
    other.close()
    with pytest.raises(ValueError, match="closed"):
        osc.dcol_batch([box, other], np.tile(osc.pose(), (2, 1)), box, osc.pose([2, 0, 0]))
    with pytest.raises(ValueError, match="Convex is closed"):
        osc.dcol(box, osc.pose(), other, osc.pose([2, 0, 0]))


def case_models_cannot_be_duplicated():
    """A copy of a model shares its C object: copy and deepcopy return the model itself
    (models are immutable), pickling is refused; freeing both must not free twice."""
    for make in (lambda: osc.SDF.sphere(0.5), lambda: osc.Convex.box([1.0, 1.0, 1.0]),
                 lambda: osc.Brep.box([1.0, 1.0, 1.0])):
        m = make()
        c, d = copy.copy(m), copy.deepcopy(m)
        assert c is m and d is m
        with pytest.raises(TypeError, match="pickle"):
            pickle.dumps(m)
        del m, c, d
        gc.collect()
    cache = osc.LmdCache()
    with pytest.raises(TypeError):
        copy.copy(cache)
    with pytest.raises(TypeError):
        pickle.dumps(cache)


def case_borrowers_and_lenders_in_a_cycle():
    """Lender and borrower reachable only from each other: the collector finalises them in any
    order."""
    for _ in range(20):
        sdf, mesh = _sphere_parts()
        body = osc.Body(mesh, sdf=sdf)
        sdf.partner, body.partner = body, sdf
        surface = osc.Implicit.from_sdf(sdf)
        surface.partner = sdf
        sdf.surface = surface
        del sdf, mesh, body, surface
        gc.collect()
        _churn()


def case_concurrent_close():
    """close() and __del__() from several threads at once free the C object once."""
    for how in ("close", "__del__"):
        models = [osc.SDF.sphere(0.5) for _ in range(300)]
        borrowers = [osc.Implicit.from_sdf(m) for m in models[::2]]
        start = threading.Barrier(4)

        def work():
            start.wait()
            for m in models:
                _release(m, how)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        _churn()
        for s in borrowers:
            assert osc.ray_intersect(s, [-2.0, 0.0, 0.0], [1.0, 0.0, 0.0]).t == pytest.approx(1.5)


# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", [
    case_body_keeps_its_sdf_and_mesh, case_body_keeps_its_grid, case_body_keeps_the_sdf_of_a_grid,
    case_implicit_keeps_its_sdf, case_bvh_outlives_its_mesh, case_cache_keeps_its_pair,
    case_closed_models_refuse_use, case_models_cannot_be_duplicated,
    case_borrowers_and_lenders_in_a_cycle, case_concurrent_close], ids=lambda f: f.__name__[5:])
def test_lent_models_stay_alive(case):
    run_isolated(case)
