"""osculate.jax.dcol_wrench and manifold_wrench: the query and force.h's contact force in one XLA
custom call, against the NumPy path (osculate.contact_forces on the query's result), their JVP
rule from the C Jacobians against finite differences in forward and reverse mode (raw poses and
velocities), vmap as one batched call, lax.scan through time steps, float32, and bad settings."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.test_util import check_grads  # noqa: E402

import osculate as osc  # noqa: E402
import osculate.jax as oj  # noqa: E402
from conftest import custom_calls  # noqa: E402

jax.config.update("jax_enable_x64", True)

VA = np.array([0.05, -0.02, 0.1, 0.3, -0.2, 0.1])  # (linear, angular) of A
VB = np.array([-0.2, 0.05, 0.03, 0.1, 0.4, -0.3])
FORCE = dict(stiffness=2e4, friction=0.7, damping=0.5)


def dcol_case():
    box, capsule = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4)
    pa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 0, 1], 0.1))
    pb = osc.apply_twist(osc.pose([0.9, 0.2, 0.0], osc.axis_angle_quaternion([0, 1, 0], np.pi / 2)),
                         [0, 0, 0, 0, 0, 0.3])
    return box, capsule, pa, pb


def manifold_poses():
    pa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([1, 2, 3], 0.3))
    pb = osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5))
    return pa, pb


def test_dcol_wrench_equals_contact_forces_on_dcol():
    box, capsule, pa, pb = dcol_case()
    w = oj.dcol_wrench(box, pa, VA, capsule, pb, VB, tolerance=1e-6, **FORCE)
    ref = osc.contact_forces(osc.dcol(box, pa, capsule, pb, tolerance=1e-6), pa, VA, pb, VB,
                             **FORCE)
    assert w.shape == (2, 6)
    assert np.abs(ref.wrench_b[:3]).max() > 1.0  # the bodies press on each other
    np.testing.assert_array_equal(w[0], ref.wrench_a)
    np.testing.assert_array_equal(w[1], ref.wrench_b)


def test_manifold_wrench_equals_contact_forces_on_the_manifold(sphere_body):
    body = sphere_body[0]
    pa, pb = manifold_poses()
    w = oj.manifold_wrench(body, pa, VA, body, pb, VB, **FORCE)
    ref = osc.contact_forces(osc.manifold_collide(body, pa, body, pb), pa, VA, pb, VB, **FORCE)
    assert np.abs(ref.wrench_b[:3]).max() > 1.0
    np.testing.assert_allclose(w[0], ref.wrench_a, rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(w[1], ref.wrench_b, rtol=1e-13, atol=1e-12)


def test_the_jvp_is_the_c_jacobians_mapped_to_raw_poses():
    """The forward-mode derivative along each twist direction equals the C pose Jacobian's column
    (raw tangent = the twist's action on the pose), and along velocities the velocity Jacobian."""
    box, capsule, pa, pb = dcol_case()
    r = osc.contact_forces(osc.dcol(box, pa, capsule, pb, tolerance=1e-6, derivatives=True),
                           pa, VA, pb, VB, derivatives=True, **FORCE)
    f = lambda p, q, u, v: oj.dcol_wrench(box, p, u, capsule, q, v, tolerance=1e-6,  # noqa: E731
                                          **FORCE).reshape(12)
    args = tuple(jnp.asarray(x) for x in (pa, pb, VA, VB))
    for k in range(12):
        xi = np.zeros(6)
        xi[k % 6] = 1.0
        # the raw pose tangent of a left twist xi: dp = v, dq = 1/2 (0, omega) * q
        pose = pa if k < 6 else pb
        q = pose[3:]
        omega = np.concatenate([[0.0], xi[3:]])
        dq = 0.5 * _quat_mul(omega, q)
        dpose = np.concatenate([xi[:3], dq])
        tangents = [np.zeros(7), np.zeros(7), np.zeros(6), np.zeros(6)]
        tangents[0 if k < 6 else 1] = dpose
        _, t = jax.jvp(f, args, tuple(jnp.asarray(x) for x in tangents))
        np.testing.assert_allclose(t, r.pose_jacobian[:, k], rtol=1e-10, atol=1e-9)
    for k in range(12):
        tangents = [np.zeros(7), np.zeros(7), np.zeros(6), np.zeros(6)]
        tangents[2 if k < 6 else 3][k % 6] = 1.0
        _, t = jax.jvp(f, args, tuple(jnp.asarray(x) for x in tangents))
        np.testing.assert_allclose(t, r.velocity_jacobian[:, k], rtol=1e-12, atol=1e-12)


def _quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def test_dcol_wrench_grads_in_both_modes():
    box, capsule, pa, pb = dcol_case()
    f = lambda p, q, u, v: oj.dcol_wrench(box, p, u, capsule, q, v, tolerance=1e-6,  # noqa: E731
                                          **FORCE)
    # a wrench of magnitude ~1e2: finite differences of step 1e-6 see it to ~1e-4 absolute
    check_grads(f, tuple(jnp.asarray(x) for x in (pa, pb, VA, VB)), order=1,
                modes=("fwd", "rev"), eps=1e-6, atol=2e-3, rtol=1e-5)


def test_manifold_wrench_grads_in_both_modes(sphere_body):
    body = sphere_body[0]
    pa, pb = manifold_poses()
    f = lambda p, q, u, v: oj.manifold_wrench(body, p, u, body, q, v, **FORCE)  # noqa: E731
    check_grads(f, tuple(jnp.asarray(x) for x in (pa, pb, VA, VB)), order=1,
                modes=("fwd", "rev"), eps=1e-6, atol=2e-3, rtol=1e-5)


def test_one_reverse_pass_is_one_call_with_jacobians(sphere_body):
    """value_and_grad and vjp run the wrench's custom call once, with its Jacobians (the value
    comes from that call), and no loop: a reverse pass costs one forward-with-Jacobians call and
    the transposed products, as jacrev does for all its rows at once."""
    box, capsule, pa, pb = dcol_case()
    body = sphere_body[0]
    ma, mb = manifold_poses()
    cases = [("osculate_dcol_wrench",
              lambda p, u: oj.dcol_wrench(box, pa, VA, capsule, p, u, **FORCE), pb),
             ("osculate_manifold_wrench",
              lambda p, u: oj.manifold_wrench(body, ma, VA, body, p, u, **FORCE), mb)]
    w = jnp.asarray(np.random.default_rng(3).normal(size=(2, 6)))
    for target, f, p in cases:
        args = (jnp.asarray(p), jnp.asarray(VB))
        assert jnp.any(f(*args) != 0)  # in contact: the Jacobians are not trivially zero
        vg = jax.jit(jax.value_and_grad(lambda p, u: jnp.sum(w * f(p, u)), argnums=(0, 1)))
        pullback = jax.jit(lambda p, u: jax.vjp(f, p, u)[1](w))
        jr = jax.jit(jax.jacrev(f, argnums=(0, 1)))
        for g in (vg, pullback, jr):
            assert custom_calls(g, *args) == ([(target, 1)], 0)
        assert custom_calls(jax.jit(f), *args) == ([(target, 0)], 0)
        # the reverse pass's gradient is the Jacobian's rows weighted by w
        value, (gp, gu) = vg(*args)
        jp, ju = jr(*args)
        np.testing.assert_allclose(gp, jnp.einsum("rc,rcp->p", w, jp), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(gu, jnp.einsum("rc,rcp->p", w, ju), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(value, jnp.sum(w * f(*args)), rtol=1e-14)


def test_vmap_is_one_batched_call_equal_to_the_loop(sphere_body):
    body = sphere_body[0]
    pa, pb = manifold_poses()
    pbs = jnp.stack([jnp.asarray(pb).at[0].add(s) for s in np.linspace(-0.1, 0.05, 4)])
    vbs = jnp.stack([jnp.asarray(VB) * s for s in (1.0, 0.5, -1.0, 2.0)])
    f = jax.jit(jax.vmap(lambda q, v: oj.manifold_wrench(body, pa, VA, body, q, v, **FORCE)))
    assert f.lower(pbs, vbs).as_text().count("osculate_manifold_wrench") == 1
    out = f(pbs, vbs)
    g = jax.jit(jax.vmap(jax.grad(lambda q, v: jnp.sum(
        oj.manifold_wrench(body, pa, VA, body, q, v, **FORCE)[1, :3] ** 2), argnums=(0, 1))))
    gq, gv = g(pbs, vbs)
    for k in range(4):
        one = oj.manifold_wrench(body, pa, VA, body, pbs[k], vbs[k], **FORCE)
        np.testing.assert_array_equal(out[k], one)
        g1 = jax.grad(lambda q, v: jnp.sum(
            oj.manifold_wrench(body, pa, VA, body, q, v, **FORCE)[1, :3] ** 2),
            argnums=(0, 1))(pbs[k], vbs[k])
        np.testing.assert_allclose(gq[k], g1[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(gv[k], g1[1], rtol=1e-12, atol=1e-12)
    # broadcasting: one pose against a batch of velocities
    w = oj.dcol_wrench(osc.Convex.sphere(0.5), jnp.asarray(pa), None, osc.Convex.sphere(0.5),
                       jnp.asarray(osc.pose([0.9, 0, 0])), vbs)
    assert w.shape == (4, 2, 6)


def test_scan_through_time_against_central_differences():
    """A ball dropped on a box under gravity, semi-implicit Euler on the height and the vertical
    velocity, driven by dcol_wrench's force on the ball: the gradient of the final height with
    respect to the initial velocity, reverse mode through lax.scan, against central
    differences."""
    box, ball = osc.Convex.box([1.0, 1.0, 0.2]), osc.Convex.sphere(0.25)
    pa = jnp.array([0.0, 0, 0, 1, 0, 0, 0])
    h = 2e-3

    def simulate(v0):
        def step(state, _):
            z, v = state
            q = jnp.array([0.1, -0.05, 0.0, 1.0, 0.0, 0.0, 0.0]).at[2].set(z)
            vel = jnp.zeros(6).at[2].set(v)
            w = oj.dcol_wrench(box, pa, None, ball, q, vel, stiffness=1e4, damping=0.5)
            v = v + h * (w[1, 2] - 9.81)
            return (z + h * v, v), None
        return jax.lax.scan(step, (0.48, v0), None, length=60)[0]

    def rollout(v0):
        z, v = simulate(v0)
        return z + 0.1 * v

    f = jax.jit(rollout)
    assert jax.jit(simulate)(-1.0)[1] > 0.5  # the ball hit the box and bounced back
    g = jax.jit(jax.grad(rollout))(-1.0)
    eps = 1e-6
    fd = (f(-1.0 + eps) - f(-1.0 - eps)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-5)
    _, t = jax.jvp(rollout, (-1.0,), (1.0,))
    np.testing.assert_allclose(t, g, rtol=1e-10)


def test_float32():
    box, capsule, pa, pb = dcol_case()
    w32 = oj.dcol_wrench(box, np.float32(pa), np.float32(VA), capsule, np.float32(pb),
                         np.float32(VB), tolerance=1e-6, **FORCE)
    w64 = oj.dcol_wrench(box, np.float32(pa).astype(float), np.float32(VA).astype(float), capsule,
                         np.float32(pb).astype(float), np.float32(VB).astype(float),
                         tolerance=1e-6, **FORCE)
    assert w32.dtype == jnp.float32
    np.testing.assert_array_equal(w32, np.asarray(w64).astype(np.float32))


def test_bad_settings_name_the_problem():
    box, capsule, pa, pb = dcol_case()
    with pytest.raises(TypeError, match="unknown setting 'stifness'"):
        oj.dcol_wrench(box, pa, VA, capsule, pb, VB, stifness=1.0)
    with pytest.raises(osc.InvalidArgumentError, match="stiffness"):
        oj.dcol_wrench(box, pa, VA, capsule, pb, VB, stiffness=-1.0)
    with pytest.raises(ValueError, match="velocity_a"):
        oj.dcol_wrench(box, pa, np.zeros(3), capsule, pb, VB)
    with pytest.raises(ValueError, match="Body"):
        oj.manifold_wrench(box, pa, VA, capsule, pb, VB)
