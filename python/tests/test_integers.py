"""Python integers that do not fit the C integer they go to are refused, never wrapped (ctypes
would pass iterations=2**32 + 3 as 3): settings keywords, counts, capacities, threads, indices
and integer arrays. Bools and floats where an integer is expected are refused too (a setting that
is a C flag, such as culling or edges, takes a bool)."""

import numpy as np
import pytest

import osculate as osc

BIG = 2**32 + 3  # wraps to 3 in a 32-bit C int


@pytest.fixture(scope="module")
def models():
    sdf = osc.SDF.sphere(0.5)
    mesh = osc.collision_mesh(sdf, resolution=16, target_triangles=100)
    return dict(sdf=sdf, mesh=mesh, body=osc.Body(mesh, sdf=sdf),
                grid=osc.Grid.from_sdf(sdf, resolution=8), box=osc.Convex.box([0.5, 0.4, 0.3]),
                capsule=osc.Convex.capsule(0.2, 0.4), brep=osc.Brep.box([1.0, 1.0, 0.5]),
                lens=osc.Implicit.sag(0.5, diameter=1.0))


OBJ = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"

# (name in the message, call taking the value)
CALLS = {
    # settings keywords
    "max_iterations": lambda m, v: osc.dcol(m["box"], osc.pose(), m["capsule"],
                                            osc.pose([0.9, 0, 0]), max_iterations=v),
    "iterations": lambda m, v: osc.manifold_collide(m["body"], osc.pose(), m["body"],
                                                    osc.pose([0.97, 0, 0]), iterations=v),
    "broad_phase_resolution": lambda m, v: osc.Body(m["mesh"], sdf=m["sdf"],
                                                    broad_phase_resolution=v),
    "group_count": lambda m, v: osc.Body(m["mesh"], sdf=m["sdf"], groups="cluster",
                                         group_count=v),
    "resolution": lambda m, v: osc.Grid.from_sdf(m["sdf"], resolution=v),
    "target_triangles": lambda m, v: m["mesh"].simplify(target_triangles=v),
    "project_iterations": lambda m, v: osc.collision_mesh(m["sdf"], resolution=8,
                                                          project_iterations=v),
    "conformal_samples": lambda m, v: osc.lmd(m["brep"], osc.pose(), m["brep"],
                                              osc.pose([0, 0, 1.2]), conformal_samples=v),
    "max_leaf_count": lambda m, v: osc.Brep.box([1, 1, 1], max_leaf_count=v),
    "beams": lambda m, v: osc.ray_intersect(m["lens"], [-1, 0.1, 0], [1, 0, 0], beams=v),
    "coarse": lambda m, v: osc.ray_intersect(m["lens"], [-1, 0.1, 0], [1, 0, 0],
                                             coarse=dict(iterations=v)),
    "sdf_pair max_iterations": lambda m, v: osc.sdf_pair_collide(
        m["sdf"], osc.pose(), m["sdf"], osc.pose([0.9, 0, 0]), max_iterations=v),
    # counts, indices
    "levels": lambda m, v: osc.SDF.menger(1.0, v),
    "leaf": lambda m, v: m["sdf"].eval_leaf(v, [0.0, 0.0, 0.0]),
    "group_count ": lambda m, v: m["mesh"].groups_cluster(v),
    "max_faces": lambda m, v: osc.Convex.bounded_hull(np.random.default_rng(0).normal(
        size=(30, 3)), max_faces=v),
    "face": lambda m, v: m["brep"].face_contains(v, 0.0, 0.0),
    # capacities
    "capacity": lambda m, v: osc.manifold_collide(m["body"], osc.pose(), m["body"],
                                                  osc.pose([0.97, 0, 0]), capacity=v),
    "batch capacity": lambda m, v: osc.manifold_collide_batch(
        m["body"], osc.pose(), m["body"], osc.pose([0.97, 0, 0]), capacity=v),
    "sdf_pair capacity": lambda m, v: osc.sdf_pair_collide(m["sdf"], osc.pose(), m["sdf"],
                                                           osc.pose([0.9, 0, 0]), capacity=v),
    "lmd capacity": lambda m, v: osc.lmd(m["brep"], osc.pose(), m["brep"],
                                         osc.pose([0, 0, 1.2]), capacity=v),
    "contacts_per_pair": lambda m, v: osc.sdf_scene_collide(
        [m["sdf"], m["sdf"]], [osc.pose(), osc.pose([0.9, 0, 0])], contacts_per_pair=v),
    "pair_capacity": lambda m, v: osc.sdf_scene_collide(
        [m["sdf"], m["sdf"]], [osc.pose(), osc.pose([0.9, 0, 0])], pair_capacity=v),
    # threads
    "SDF.eval threads": lambda m, v: m["sdf"].eval(np.zeros((4, 3)), threads=v),
    "Grid.eval threads": lambda m, v: m["grid"].eval(np.zeros((4, 3)), threads=v),
    "signed_distance threads": lambda m, v: m["mesh"].bvh().signed_distance(np.zeros((4, 3)),
                                                                            threads=v),
    "dcol_batch threads": lambda m, v: osc.dcol_batch(m["box"], osc.pose(), m["capsule"],
                                                      np.tile(osc.pose([0.9, 0, 0]), (4, 1)),
                                                      threads=v),
    "manifold threads": lambda m, v: osc.manifold_collide_batch(
        m["body"], osc.pose(), m["body"], osc.pose([0.97, 0, 0]), threads=v),
    "scene threads": lambda m, v: osc.sdf_scene_collide(
        [m["sdf"], m["sdf"]], [osc.pose(), osc.pose([0.9, 0, 0])], threads=v),
    "ray threads": lambda m, v: osc.ray_intersect_batch(m["lens"], [[-1, 0.1, 0]], [[1, 0, 0]],
                                                        threads=v),
    "grid threads": lambda m, v: osc.Grid.from_sdf(m["sdf"], resolution=8, threads=v),
    "isosurface threads": lambda m, v: osc.isosurface(m["sdf"], resolution=8, threads=v),
    "collision threads": lambda m, v: osc.collision_mesh(m["sdf"], resolution=8, threads=v),
    "lmd threads": lambda m, v: osc.lmd(m["brep"], osc.pose(), m["brep"],
                                        osc.pose([0, 0, 1.2]), threads=v),
}


def _name(key):
    return key.split()[-1]


@pytest.mark.parametrize("key", list(CALLS))
def test_integers_that_do_not_fit_are_refused(models, key):
    for value in (BIG, -BIG, 2**70, np.int64(BIG)):
        with pytest.raises(OverflowError, match=_name(key)):
            CALLS[key](models, value)


@pytest.mark.parametrize("key", list(CALLS))
def test_bools_and_floats_are_not_integers(models, key):
    for value in (True, 3.0, 2.7, np.float64(4.0), "4"):
        with pytest.raises(TypeError, match=_name(key)):
            CALLS[key](models, value)


def test_flags_take_bools(models):
    m = models
    r = osc.manifold_collide(m["body"], osc.pose(), m["body"], osc.pose([0.97, 0, 0]),
                             edges=False, blend=True, broad_phase=np.bool_(True))
    assert len(r) > 0 and np.all(r.kind == 0)  # vertex contacts only
    r = osc.lmd(m["brep"], osc.pose(), m["brep"], osc.pose([0, 0, 1.2]), culling=False)
    assert len(r) > 0
    assert len(osc.Mesh.from_bytes(OBJ, format="obj", keep_unreferenced=True).vertices) == 4
    # integers of every kind that fit are taken as they are
    assert osc.SDF.menger(1.0, np.int8(2)).leaf_count >= 1
    assert osc.Grid.from_sdf(m["sdf"], resolution=np.uint16(8)).cells[0].max() >= 8


def test_integer_arrays_are_not_wrapped(models):
    mesh, sdf = models["mesh"], models["sdf"]
    n = mesh.vertex_count
    for bad, error in (([BIG] + [0] * (n - 1), OverflowError),
                       (np.full(n, 2**31, np.int64), OverflowError),
                       (np.full(n, -(2**31) - 1, np.int64), OverflowError),
                       (np.full(n, 0.5), ValueError), (np.full(n, np.nan), ValueError),
                       ([2**70] * n, OverflowError), (["0"] * n, ValueError)):
        with pytest.raises(error, match="vertex_groups"):
            osc.Body(mesh, sdf=sdf, groups="given", vertex_groups=bad)
        with pytest.raises(error, match="vertex_groups"):
            mesh.edge_groups(bad)
    # integral values of a float array are integers (np.zeros is float)
    assert osc.Body(mesh, sdf=sdf, groups="given", vertex_groups=np.zeros(n)).group_count == 1
    bad_edges = np.zeros((mesh.edge_count, 2), np.int64)
    bad_edges[3, 1] = BIG
    with pytest.raises(OverflowError, match="edge_groups"):
        osc.Body(mesh, sdf=sdf, groups="given", vertex_groups=np.zeros(n, np.int32),
                 edge_groups=bad_edges)
    with pytest.raises(OverflowError, match="triangles"):
        osc.Mesh(np.eye(3), [[0, 1, BIG]])
    with pytest.raises(ValueError, match="triangles"):
        osc.Mesh(np.eye(3), [[0, 1, 2.5]])
    d = osc.Brep.box([1.0, 1.0, 1.0]).description()
    d.faces = d.faces.astype([(k, np.int64 if d.faces.dtype[k].kind == "i" else
                                d.faces.dtype[k]) for k in d.faces.dtype.names])
    d.faces["surface"][0] = BIG  # would wrap to surface 3
    with pytest.raises(OverflowError, match="faces.surface"):
        osc.Brep.from_description(d)
    with pytest.raises(OverflowError, match="edges.face"):
        osc.Brep.from_description(dict(osc.Brep.box([1, 1, 1]).description().__dict__,
                                       edges={"face": [[0, BIG]]}))
