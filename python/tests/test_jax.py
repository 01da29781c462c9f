import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.test_util import check_grads  # noqa: E402

import osculate as osc  # noqa: E402
import osculate.jax as oj  # noqa: E402

jax.config.update("jax_enable_x64", True)

try:  # what a failing custom call raises when the program runs
    RUNTIME_ERROR = jax.errors.JaxRuntimeError
except AttributeError:  # older jax
    from jaxlib.xla_extension import XlaRuntimeError as RUNTIME_ERROR


def dcol_poses():
    pa = jnp.array(osc.pose([0.01, 0.02, -0.03], osc.axis_angle_quaternion([1, 2, 3], 0.4)))
    pb = jnp.array(osc.pose([1.0, 0.3, 0.1], osc.axis_angle_quaternion([0, 1, 1], 0.3)))
    return pa, pb


def test_dcol_values_equal_numpy_and_grads_check():
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.ellipsoid([0.5, 1.0 / 3.0, 0.25])
    pa, pb = dcol_poses()
    out = oj.dcol(a, pa, b, pb)
    ref = osc.dcol(a, np.asarray(pa), b, np.asarray(pb), derivatives=True)
    assert float(out["alpha"]) == ref.alpha
    np.testing.assert_array_equal(out["normal"], ref.normal)
    for name in ("alpha", "distance", "normal", "point_a", "point_b"):
        check_grads(lambda p, q, n=name: oj.dcol(a, p, b, q, tolerance=1e-6)[n], (pa, pb), order=1,
                    modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-5)
    # the gradient with respect to the raw pose is the C twist Jacobian through the quaternion map
    g = jax.grad(lambda p, q: oj.dcol_alpha(a, p, b, q), argnums=(0, 1))(pa, pb)
    expect = osc.pair_jacobian_to_pq(ref.alpha_jacobian[None], np.asarray(pa), np.asarray(pb))[0]
    np.testing.assert_allclose(np.concatenate(g), expect, rtol=1e-12, atol=1e-15)


def test_dcol_under_jit_and_vmap():
    a, b = osc.Convex.capsule(0.2, 0.4), osc.Convex.sphere(0.3)
    pa, pb = dcol_poses()
    shifts = jnp.linspace(0.0, 0.5, 6)
    pbs = jnp.stack([pb.at[0].add(s) for s in shifts])
    f = jax.jit(jax.vmap(lambda q: oj.dcol(a, pa, b, q)["distance"]))
    d = f(pbs)
    batch = osc.dcol_batch(a, np.asarray(pa), b, np.asarray(pbs))
    np.testing.assert_array_equal(d, batch.distance)
    grads = jax.jit(jax.vmap(jax.grad(lambda q: oj.dcol(a, pa, b, q)["distance"])))(pbs)
    assert grads.shape == (6, 7)
    for k in range(6):
        r = osc.dcol(a, np.asarray(pa), b, np.asarray(pbs[k]), derivatives=True)
        np.testing.assert_allclose(grads[k], osc.twist_jacobian_to_pq(r.distance_jacobian[None, 6:], np.asarray(pbs[k, 3:]))[0],
                                   rtol=1e-12, atol=1e-15)
    # broadcasting inside one call: [6, 7] against [7]
    np.testing.assert_array_equal(oj.dcol(a, pa, b, pbs)["alpha"], batch.alpha)


def test_manifold_weighted_distance_grads(sphere_body):
    body, _, _ = sphere_body
    pa = jnp.array(osc.pose([0, 0, 0], osc.axis_angle_quaternion([1, 2, 3], 0.3)))
    pb = jnp.array(osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5)))

    def energy(p, q):
        m = oj.manifold(body, p, body, q)
        return jnp.sum(m["weight"] * m["distance"])

    check_grads(energy, (pa, pb), order=1, modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-4)
    m = oj.manifold(body, pa, body, pb)
    ref = osc.manifold_collide(body, np.asarray(pa), body, np.asarray(pb))
    n = int(m["count"])
    assert n == len(ref)
    np.testing.assert_array_equal(m["distance"][:n], ref.distance)
    assert np.all(m["weight"][n:] == 0) and np.all(m["distance"][n:] == osc.manifold_settings()["d_max"])
    counts = jax.vmap(lambda q: oj.manifold(body, pa, body, q)["count"])(jnp.stack([pb, pb.at[0].add(0.1)]))
    assert counts[0] == n and counts[1] < n


def test_sdf_and_rays():
    s = osc.SDF.box([0.3, 0.2, 0.1], rounding=0.02)
    p = jnp.array([[0.5, 0.1, 0.05], [0.1, 0.4, 0.3]])
    np.testing.assert_array_equal(oj.sdf(s, p), s.eval(np.asarray(p)))
    check_grads(lambda x: oj.sdf(s, x), (p,), order=1, modes=("fwd", "rev"), eps=1e-6)
    params = jnp.array([0.5, -0.3, 0.01])
    o = jnp.array([[-1.0, 0.1, 0.2], [-1.0, -0.2, 0.1]])
    d = jnp.array([[1.0, 0.05, 0.0], [1.0, 0.0, 0.02]])
    for name in ("t", "point", "normal"):
        check_grads(lambda q, x, y, n=name: oj.ray_intersect_sag(q, 1.0, x, y)[n], (params, o, d), order=1,
                    modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-5)
    lens = osc.Implicit.sag(0.5, 1.0, -0.3, [0.01])
    r = jax.jit(lambda x, y: oj.ray_intersect(lens, x, y))(o, d)
    t, pts, _, hits = osc.ray_intersect_batch(lens, np.asarray(o), np.asarray(d))
    np.testing.assert_array_equal(r["t"], t)
    assert bool(r["hit"].all())
    check_grads(lambda x, y: oj.ray_intersect(lens, x, y)["point"], (o, d), order=1, modes=("fwd", "rev"), eps=1e-6)
    # vmapped parameters: one lens per batch entry
    ps = jnp.stack([params, params.at[0].add(0.1)])
    tv = jax.vmap(lambda q: oj.ray_intersect_sag(q, 1.0, o, d)["t"])(ps)
    assert tv.shape == (2, 2) and np.all(np.asarray(tv[0]) == t)


def test_sdf_pair_smooth_mode_grads():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    pa = jnp.array(osc.pose([0.1, 0.2, 0.3]))
    pb = jnp.array(osc.pose([0.85, 0.25, 0.3], osc.axis_angle_quaternion([0, 0, 1], 0.2)))

    def deepest(p, q):
        r = oj.sdf_pair(a, p, b, q, temperature=0.02)
        return r["distance"][0], r["point"][0]

    check_grads(deepest, (pa, pb), order=1, modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-4)
    r = oj.sdf_pair(a, pa, b, pb, temperature=0.02)
    ref = osc.sdf_pair_collide(a, np.asarray(pa), b, np.asarray(pb), temperature=0.02)
    n = int(r["count"])
    assert n == len(ref)
    np.testing.assert_array_equal(r["distance"][:n], ref.distance)
    with pytest.raises(ValueError):
        oj.sdf_pair(a, pa, b, pb)


# ------------------------------------------------------------------------------------------------
# the custom-call families against the NumPy API: values on several batch items, derivatives by
# finite differences, jit and vmap, float32 inputs (results are the float64 answer at the rounded
# inputs, rounded once), and errors


def as_float32(x):
    """x rounded to float32, and the same values in float64 (the inputs the C query sees)."""
    x32 = np.asarray(x, dtype=np.float32)
    return jnp.asarray(x32), x32.astype(np.float64)


def sdf_pair_scene():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    pa = jnp.array(osc.pose([0.1, 0.2, 0.3]))
    pbs = jnp.stack([jnp.array(osc.pose([x, 0.25, 0.3], osc.axis_angle_quaternion([0, 0, 1], r)))
                     for x, r in ((0.8, 0.2), (0.85, -0.1), (0.9, 0.4), (2.0, 0.0))])
    return a, pa, b, pbs


def test_sdf_pair_batch_equals_numpy_jit_vmap_float32():
    a, pa, b, pbs = sdf_pair_scene()
    kw = dict(temperature=0.02)
    r = oj.sdf_pair(a, pa, b, pbs, capacity=4, **kw)
    assert r["point"].shape == (4, 4, 3) and r["distance"].shape == (4, 4) and r["count"].shape == (4,)
    counts = []
    for k in range(4):
        ref = osc.sdf_pair_collide(a, np.asarray(pa), b, np.asarray(pbs[k]), capacity=4, derivatives=True, **kw)
        n = len(ref)
        counts.append(n)
        assert int(r["count"][k]) == n
        np.testing.assert_array_equal(r["distance"][k, :n], ref.distance)
        np.testing.assert_array_equal(r["point"][k, :n], ref.point)
        assert np.all(r["distance"][k, n:] == 0) and np.all(r["point"][k, n:] == 0)
        if n:  # the gradient of the deepest distance is the C twist Jacobian through the quaternion map
            g = jax.grad(lambda q: oj.sdf_pair(a, pa, b, q, capacity=4, **kw)["distance"][0])(pbs[k])
            expect = osc.pair_jacobian_to_pq(ref.distance_jacobian[:1, None, :], np.asarray(pa), np.asarray(pbs[k]))
            np.testing.assert_allclose(g, expect[0, 0, 7:], rtol=1e-12, atol=1e-15)
    assert counts[:3] == [1, 1, 1] and counts[3] == 0  # the last pair's boxes are apart
    f = jax.jit(jax.vmap(lambda q: oj.sdf_pair(a, pa, b, q, capacity=4, **kw)))
    for name, v in f(pbs).items():
        np.testing.assert_array_equal(v, r[name])
    p32, p64 = as_float32(pbs)
    r32 = oj.sdf_pair(a, pa.astype(jnp.float32), b, p32, capacity=4, **kw)
    assert r32["distance"].dtype == jnp.float32
    for k in range(3):
        ref = osc.sdf_pair_collide(a, np.asarray(pa, dtype=np.float32).astype(np.float64), b, p64[k], capacity=4, **kw)
        np.testing.assert_array_equal(r32["distance"][k, :1], ref.distance.astype(np.float32))
        np.testing.assert_array_equal(r32["point"][k, :1], ref.point.astype(np.float32))
    # float32 Jacobians pass through the handler's scratch: the float64 ones rounded
    g32 = jax.grad(lambda q: jnp.sum(oj.sdf_pair(a, pa.astype(jnp.float32), b, q, capacity=4, **kw)["point"]))(p32)
    g64 = jax.grad(lambda q: jnp.sum(oj.sdf_pair(a, jnp.asarray(np.float32(pa)), b, q, capacity=4, **kw)["point"]))(
        jnp.asarray(p64))
    assert g32.dtype == jnp.float32
    np.testing.assert_allclose(g32, g64, rtol=1e-6, atol=1e-6)


def test_sdf_pair_batch_grads_check_and_errors():
    a, pa, b, pbs = sdf_pair_scene()
    kw = dict(temperature=0.02)

    def deepest(p, q):
        r = oj.sdf_pair(a, p, b, q, capacity=2, **kw)
        return r["distance"][:3, 0], r["point"][:3, 0]

    check_grads(deepest, (pa, pbs), order=1, modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-4)
    grid = osc.Grid.from_sdf(osc.SDF.sphere(0.5), resolution=32)  # a Grid is its spline SDF
    r = oj.sdf_pair(grid, pa, b, pbs[0], **kw)
    ref = osc.sdf_pair_collide(grid, np.asarray(pa), b, np.asarray(pbs[0]), **kw)
    assert int(r["count"]) == len(ref) and np.all(r["distance"][:len(ref)] == ref.distance)
    with pytest.raises(RUNTIME_ERROR, match="RESOURCE_EXHAUSTED.*capacity"):
        box = osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)  # flat faces: many points
        oj.sdf_pair(box, pa, box, jnp.array(osc.pose([0.85, 0.2, 0.3])), capacity=16, **kw)["count"].block_until_ready()
    with pytest.raises(ValueError, match="poses"):
        oj.sdf_pair(a, pa[:6], b, pbs, **kw)
    with pytest.raises(ValueError):
        oj.sdf_pair(a, jnp.stack([pa, pa]), b, pbs, **kw)  # batches 2 and 4 do not broadcast
    with pytest.raises(ValueError, match="capacity"):
        oj.sdf_pair(a, pa, b, pbs, capacity=0, **kw)
    with pytest.raises(ValueError, match="SDF or a Grid"):
        oj.sdf_pair(osc.Convex.sphere(0.5), pa, b, pbs, **kw)


def lmd_scene():
    box, sphere = osc.Brep.box([1.0, 2.0, 0.5]), osc.Brep.sphere(0.3)
    pa = jnp.array(osc.pose([0.1, -0.2, 0.05], osc.axis_angle_quaternion([1, 2, 3], 0.3)))
    pbs = jnp.stack([jnp.array(osc.pose([1.4, 0.6, 0.9], osc.axis_angle_quaternion([0, 1, 0], 0.7))),
                     jnp.array(osc.pose([0.3, 0.1, 1.2])), jnp.array(osc.pose([-0.2, 0.4, 1.0])),
                     jnp.array(osc.pose([5.0, 0.0, 0.0]))])
    return box, pa, sphere, pbs


def test_lmd_batch_equals_numpy_grads_jit_vmap_float32():
    box, pa, sphere, pbs = lmd_scene()
    kw = dict(d_max=2.0, eps_a=0.01)
    r = oj.lmd(box, pa, sphere, pbs, capacity=3, **kw)
    empty = 2.0 - 0.01
    for k in range(4):
        ref = osc.lmd(box, np.asarray(pa), sphere, np.asarray(pbs[k]), **kw)
        n = len(ref)
        assert int(r["count"][k]) == n and n == (0 if k == 3 else 1)
        np.testing.assert_array_equal(r["distance"][k, :n], ref.distance)
        assert np.all(r["distance"][k, n:] == empty)
        if n:
            g = jax.grad(lambda p, q: oj.lmd(box, p, sphere, q, capacity=3, **kw)["distance"][0], argnums=(0, 1))(
                pa, pbs[k])
            expect = osc.pair_jacobian_to_pq(ref.distance_jacobian[:, None, :], np.asarray(pa), np.asarray(pbs[k]))[0, 0]
            np.testing.assert_allclose(np.concatenate(g), expect, rtol=1e-12, atol=1e-15)
    check_grads(lambda p, q: oj.lmd(box, p, sphere, q, capacity=3, **kw)["distance"], (pa, pbs), order=1,
                modes=("fwd", "rev"), eps=1e-6, atol=1e-6, rtol=1e-5)
    f = jax.jit(jax.vmap(lambda q: oj.lmd(box, pa, sphere, q, capacity=3, **kw)))
    for name, v in f(pbs).items():
        np.testing.assert_array_equal(v, r[name])
    p32, p64 = as_float32(pbs)
    r32 = oj.lmd(box, pa.astype(jnp.float32), sphere, p32, capacity=3, **kw)
    assert r32["distance"].dtype == jnp.float32
    pa64 = np.asarray(pa, dtype=np.float32).astype(np.float64)
    for k in range(3):
        ref = osc.lmd(box, pa64, sphere, p64[k], **kw)
        np.testing.assert_array_equal(r32["distance"][k, :1], ref.distance.astype(np.float32))
    assert np.all(r32["distance"][:, 1:] == np.float32(empty))
    g32 = jax.grad(lambda q: jnp.sum(oj.lmd(box, pa.astype(jnp.float32), sphere, q, capacity=3, **kw)["distance"]))(p32)
    g64 = jax.grad(lambda q: jnp.sum(oj.lmd(box, jnp.asarray(pa64), sphere, q, capacity=3, **kw)["distance"]))(
        jnp.asarray(p64))
    assert g32.dtype == jnp.float32
    np.testing.assert_allclose(g32, g64, rtol=1e-6, atol=1e-6)
    with pytest.raises(RUNTIME_ERROR, match="RESOURCE_EXHAUSTED.*capacity is 0"):
        oj.lmd(box, pa, sphere, pbs, capacity=0, **kw)["count"].block_until_ready()
    assert oj.lmd(box, pa, sphere, pbs[3], capacity=0, **kw)["distance"].shape == (0,)  # nothing found
    with pytest.raises(ValueError, match="poses"):
        oj.lmd(box, pa, sphere, pbs[:, :6])
    with pytest.raises(ValueError, match="Brep"):
        oj.lmd(osc.SDF.sphere(0.3), pa, sphere, pbs)


def test_sdf_values_grads_jit_vmap_float32():
    rng = np.random.default_rng(3)
    points = jnp.asarray(rng.uniform(-0.6, 0.6, size=(4, 5, 3)))
    grid = osc.Grid.from_sdf(osc.SDF.sphere(0.5), resolution=32)
    for model in (osc.SDF.box([0.3, 0.2, 0.1], rounding=0.02), grid):
        flat = np.asarray(points).reshape(-1, 3)
        v, g = model.eval(flat, gradient=True)
        np.testing.assert_array_equal(oj.sdf(model, points), v.reshape(4, 5))
        np.testing.assert_array_equal(jax.jit(lambda p, m=model: oj.sdf(m, p))(points), v.reshape(4, 5))
        np.testing.assert_array_equal(jax.vmap(lambda p, m=model: oj.sdf(m, p))(points), v.reshape(4, 5))
        grads = jax.jit(jax.vmap(jax.grad(lambda p, m=model: oj.sdf(m, p))))(points.reshape(-1, 3))
        np.testing.assert_array_equal(grads, g)
        check_grads(lambda p, m=model: oj.sdf(m, p), (points[0],), order=1, modes=("fwd", "rev"), eps=1e-6)
        p32, p64 = as_float32(points)
        out = oj.sdf(model, p32)
        assert out.dtype == jnp.float32
        v64, g64 = model.eval(p64.reshape(-1, 3), gradient=True)
        np.testing.assert_array_equal(out, v64.astype(np.float32).reshape(4, 5))
        g32 = jax.vmap(jax.grad(lambda p, m=model: oj.sdf(m, p)))(p32.reshape(-1, 3))
        np.testing.assert_array_equal(g32, g64.astype(np.float32))
    assert oj.sdf(grid, points[0, 0]).shape == ()
    with pytest.raises(ValueError, match="points"):
        oj.sdf(grid, points[..., :2])
    with pytest.raises(ValueError, match="SDF or a Grid"):
        oj.sdf(osc.Convex.sphere(0.5), points)


def ray_scene():
    """Rays against a lens: four hits and one that passes outside the aperture."""
    o = jnp.array([[-1.0, 0.1, 0.2], [-1.0, -0.2, 0.1], [-0.8, 0.0, 0.0], [-1.2, 0.3, -0.1], [-1.0, 0.8, 0.0]])
    d = jnp.array([[1.0, 0.05, 0.0], [1.0, 0.0, 0.02], [1.0, 0.0, 0.0], [0.9, -0.1, 0.05], [1.0, 0.0, 0.0]])
    return o, d


def test_ray_intersect_equals_numpy_grads_jit_vmap_float32():
    lens = osc.Implicit.sag(0.5, 1.0, -0.3, [0.01])
    o, d = ray_scene()
    placement = osc.transform(anchor=[0.05, 0, 0], scale=1.1, rotation=osc.axis_angle_quaternion([0, 1, 0], 0.1),
                              translation=[0.02, -0.01, 0.03])
    for transform in (None, placement):
        r = oj.ray_intersect(lens, o, d, transform=transform)
        ref = osc.ray_intersect_many(lens, np.asarray(o), np.asarray(d), transform, derivatives=True)
        assert list(np.asarray(r["hit"])) == [True] * 4 + [False] and list(ref["hit"]) == list(r["hit"])
        for name in ("t", "point", "normal"):
            np.testing.assert_array_equal(r[name], ref[name])
        # forward-mode Jacobians: the C ones, zero where the ray misses
        jo, jd = jax.jacfwd(lambda x, y: oj.ray_intersect(lens, x, y, transform=transform)["point"], argnums=(0, 1))(
            o, d)
        for k in range(5):
            np.testing.assert_array_equal(jo[k, :, k], ref["point_origin"][k])
            np.testing.assert_array_equal(jd[k, :, k], ref["point_direction"][k])
        assert np.all(jo[4] == 0) and np.all(jd[4] == 0)
        for name in ("t", "point", "normal"):
            check_grads(lambda x, y, n=name: oj.ray_intersect(lens, x, y, transform=transform)[n][:4], (o, d), order=1,
                        modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-5)
    f = jax.jit(jax.vmap(lambda x, y: oj.ray_intersect(lens, x, y)))
    r = oj.ray_intersect(lens, o, d)
    for name, v in f(o, d).items():
        np.testing.assert_array_equal(v, r[name])
    # one origin broadcast against the directions
    t = oj.ray_intersect(lens, o[0], d)["t"]
    np.testing.assert_array_equal(t, osc.ray_intersect_many(lens, np.repeat(np.asarray(o[:1]), 5, 0), np.asarray(d))["t"])
    o32, o64 = as_float32(o)
    d32, d64 = as_float32(d)
    r32 = oj.ray_intersect(lens, o32, d32)
    ref = osc.ray_intersect_many(lens, o64, d64, derivatives=True)
    assert r32["t"].dtype == jnp.float32
    for name in ("t", "point", "normal"):
        np.testing.assert_array_equal(r32[name], ref[name].astype(np.float32))
    j32 = jax.jacfwd(lambda x: oj.ray_intersect(lens, x, d32)["t"])(o32)
    np.testing.assert_array_equal(j32[np.arange(5), np.arange(5)], ref["t_origin"].astype(np.float32))
    with pytest.raises(ValueError, match="origins and directions"):
        oj.ray_intersect(lens, o[:, :2], d)
    with pytest.raises(ValueError, match="Implicit.function"):
        user = osc.Implicit.function(lambda p: (p[0], np.array([1.0, 0.0, 0.0])), [0, 0, 0], 1.0)
        oj.ray_intersect(user, o, d)


def test_ray_intersect_sag_per_ray_parameters():
    o, d = ray_scene()
    rows = np.array([[0.5, -0.3, 0.01], [0.4, 0.0, 0.0], [0.5, -0.3, 0.01], [0.6, 0.2, -0.02], [0.5, 0.0, 0.0]])
    params = jnp.asarray(rows)
    r = oj.ray_intersect_sag(params, 1.0, o, d)
    for k, row in enumerate(rows):  # each ray against its own lens
        lens = osc.Implicit.sag(row[0], 1.0, row[1], row[2:])
        ref = osc.ray_intersect_many(lens, np.asarray(o[k:k + 1]), np.asarray(d[k:k + 1]), derivatives=True)
        assert bool(r["hit"][k]) == bool(ref["hit"][0])
        for name in ("t", "point", "normal"):
            np.testing.assert_array_equal(r[name][k], ref[name][0])
        gp = jax.grad(lambda q: oj.ray_intersect_sag(q, 1.0, o[k], d[k])["t"])(params[k])
        np.testing.assert_array_equal(gp, ref["t_parameters"][0])
    check_grads(lambda q, x, y: oj.ray_intersect_sag(q, 1.0, x, y)["point"][:4], (params, o, d), order=1,
                modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-5)
    f = jax.jit(jax.vmap(lambda q, x, y: oj.ray_intersect_sag(q, 1.0, x, y)))
    for name, v in f(params, o, d).items():
        np.testing.assert_array_equal(v, r[name])
    q32, q64 = as_float32(params)
    r32 = oj.ray_intersect_sag(q32, 1.0, o.astype(jnp.float32), d.astype(jnp.float32))
    assert r32["t"].dtype == jnp.float32
    lens = osc.Implicit.sag(q64[1, 0], 1.0, q64[1, 1], q64[1, 2:])
    ref = osc.ray_intersect_many(lens, np.asarray(o[1:2], np.float32).astype(np.float64),
                                 np.asarray(d[1:2], np.float32).astype(np.float64))
    np.testing.assert_array_equal(r32["t"][1], ref["t"].astype(np.float32)[0])
    with pytest.raises(ValueError, match="parameters"):
        oj.ray_intersect_sag(params[:, :1], 1.0, o, d)
    with pytest.raises(RUNTIME_ERROR, match="INVALID_ARGUMENT.*sag"):  # beyond the conic's domain
        oj.ray_intersect_sag(jnp.array([3.0, 0.0]), 1.0, o, d)["t"].block_until_ready()


def test_manifold_float32_values_and_grads(sphere_body):
    body, _, _ = sphere_body
    pa = jnp.array(osc.pose([0, 0, 0], osc.axis_angle_quaternion([1, 2, 3], 0.3)))
    pb32, pb64 = as_float32(osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5)))
    pa32, pa64 = as_float32(pa)
    m = oj.manifold(body, pa32, body, pb32)
    ref = osc.manifold_collide(body, pa64, body, pb64)
    n = int(m["count"])
    assert m["distance"].dtype == jnp.float32 and n == len(ref) and n > 1
    np.testing.assert_array_equal(m["distance"][:n], ref.distance.astype(np.float32))
    np.testing.assert_array_equal(m["point"][:n], ref.point.astype(np.float32))

    def energy(p, q):
        m = oj.manifold(body, p, body, q)
        return jnp.sum(m["weight"] * m["distance"]) + jnp.sum(m["point"]) + jnp.sum(m["normal"])

    g32 = jax.grad(energy, argnums=(0, 1))(pa32, pb32)
    g64 = jax.grad(energy, argnums=(0, 1))(jnp.asarray(pa64), jnp.asarray(pb64))
    for x32, x64 in zip(g32, g64):
        assert x32.dtype == jnp.float32
        np.testing.assert_allclose(x32, x64, rtol=1e-5, atol=1e-5)
