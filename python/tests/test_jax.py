import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.test_util import check_grads  # noqa: E402

import osculate as osc  # noqa: E402
import osculate.jax as oj  # noqa: E402

jax.config.update("jax_enable_x64", True)


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
