"""osculate.torch.dcol_wrench and manifold_wrench: the query and force.h's contact force as
torch.library ops, against the NumPy path (osculate.contact_forces on each item's query result)
and osculate.jax's wrenches, their backward against the C Jacobians (the velocity Jacobian, the
pose Jacobian mapped to raw poses) and central differences (gradcheck, float64, poses and
velocities, broadcast batches), the Meta kernel's shapes, and bad arguments."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import osculate as osc  # noqa: E402
import osculate.torch as ot  # noqa: E402

VA = np.array([0.05, -0.02, 0.1, 0.3, -0.2, 0.1])  # (linear, angular) of A
VB = np.array([-0.2, 0.05, 0.03, 0.1, 0.4, -0.3])
FORCE = dict(stiffness=2e4, friction=0.7, damping=0.5)


def dcol_case():
    """A box and a capsule pressing on each other: A at one pose, B at three (one batch)."""
    box, capsule = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4)
    pa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 0, 1], 0.1))
    pbs = np.stack([osc.apply_twist(osc.pose([x, 0.2, z], osc.axis_angle_quaternion([0, 1, 0],
                                                                                    np.pi / 2)),
                                    [0, 0, 0, 0, 0, 0.3])
                    for x, z in ((0.9, 0.0), (0.87, 0.05), (0.93, -0.04))])
    return box, capsule, pa, pbs


def manifold_case():
    pa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([1, 2, 3], 0.3))
    pbs = np.stack([osc.pose([x, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5))
                    for x in (0.96, 0.94, 0.98)])
    return pa, pbs


def velocities():
    """B's velocities [3, 6], one per batch item."""
    return np.stack([VB * s for s in (1.0, -0.5, 2.0)])


def t(x, grad=False):
    return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=grad)


def test_dcol_wrench_equals_contact_forces_per_item():
    box, capsule, pa, pbs = dcol_case()
    vbs = velocities()
    w = ot.dcol_wrench(box, t(pa), t(VA), capsule, t(pbs), t(vbs), tolerance=1e-6, **FORCE)
    assert w.shape == (3, 2, 6) and w.dtype == torch.float64
    for k in range(3):
        ref = osc.contact_forces(osc.dcol(box, pa, capsule, pbs[k], tolerance=1e-6), pa, VA,
                                 pbs[k], vbs[k], **FORCE)
        assert np.abs(ref.wrench_b[:3]).max() > 1.0  # the bodies press on each other
        np.testing.assert_array_equal(w[k, 0].numpy(), ref.wrench_a)
        np.testing.assert_array_equal(w[k, 1].numpy(), ref.wrench_b)


def test_manifold_wrench_equals_contact_forces_per_item(sphere_body):
    body = sphere_body[0]
    pa, pbs = manifold_case()
    vbs = velocities()
    w = ot.manifold_wrench(body, t(pa), t(VA), body, t(pbs), t(vbs), **FORCE)
    assert w.shape == (3, 2, 6)
    for k in range(3):
        ref = osc.contact_forces(osc.manifold_collide(body, pa, body, pbs[k]), pa, VA, pbs[k],
                                 vbs[k], **FORCE)
        assert np.abs(ref.wrench_b[:3]).max() > 1.0
        np.testing.assert_allclose(w[k, 0].numpy(), ref.wrench_a, rtol=1e-13, atol=1e-12)
        np.testing.assert_allclose(w[k, 1].numpy(), ref.wrench_b, rtol=1e-13, atol=1e-12)


def test_values_equal_osculate_jax(sphere_body):
    jax = pytest.importorskip("jax")
    import osculate.jax as oj
    jax.config.update("jax_enable_x64", True)
    box, capsule, pa, pbs = dcol_case()
    vbs = velocities()
    w = ot.dcol_wrench(box, t(pa), t(VA), capsule, t(pbs), t(vbs), tolerance=1e-6, **FORCE)
    wj = oj.dcol_wrench(box, pa, VA, capsule, pbs, vbs, tolerance=1e-6, **FORCE)
    np.testing.assert_array_equal(w.numpy(), np.asarray(wj))
    body = sphere_body[0]
    pa, pbs = manifold_case()
    w = ot.manifold_wrench(body, t(pa), t(VA), body, t(pbs), t(vbs), **FORCE)
    wj = oj.manifold_wrench(body, pa, VA, body, pbs, vbs, **FORCE)
    np.testing.assert_allclose(w.numpy(), np.asarray(wj), rtol=1e-13, atol=1e-12)


def test_backward_is_the_c_jacobians():
    """The gradient of sum(G * W) is G^T J_V along the velocities and G^T J_xi mapped to the raw
    poses (pair_jacobian_to_pq) along the poses, J from contact_forces with the query's
    derivatives."""
    box, capsule, pa, pbs = dcol_case()
    pb = pbs[1]
    args = [t(x, True) for x in (pa, VA, pb, VB)]
    w = ot.dcol_wrench(box, args[0], args[1], capsule, args[2], args[3], tolerance=1e-6, **FORCE)
    G = np.random.default_rng(3).normal(size=(2, 6))
    (w * t(G)).sum().backward()
    r = osc.contact_forces(osc.dcol(box, pa, capsule, pb, tolerance=1e-6, derivatives=True),
                           pa, VA, pb, VB, derivatives=True, **FORCE)
    g = G.reshape(12)
    gv = g @ r.velocity_jacobian
    np.testing.assert_allclose(args[1].grad.numpy(), gv[:6], rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(args[3].grad.numpy(), gv[6:], rtol=1e-13, atol=1e-12)
    gp = osc.pair_jacobian_to_pq((g @ r.pose_jacobian)[None], pa, pb)[0]
    np.testing.assert_allclose(args[0].grad.numpy(), gp[:7], rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(args[2].grad.numpy(), gp[7:], rtol=1e-12, atol=1e-10)


def test_dcol_wrench_gradcheck_poses_and_velocities():
    """Broadcast batch: A's pose and velocity one, B's poses [3, 7], B's velocities [3, 6]."""
    box, capsule, pa, pbs = dcol_case()
    args = [t(x, True) for x in (pa, VA, pbs, velocities())]
    f = lambda p, u, q, v: ot.dcol_wrench(box, p, u, capsule, q, v, tolerance=1e-6,  # noqa: E731
                                          **FORCE)
    # a wrench of magnitude ~1e3: central differences of step 1e-6 see it to ~1e-4 absolute
    assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=2e-3, rtol=1e-5)


def test_manifold_wrench_gradcheck_poses_and_velocities(sphere_body):
    body = sphere_body[0]
    pa, pbs = manifold_case()
    args = [t(x, True) for x in (pa, VA, pbs[:2], velocities()[:2])]
    f = lambda p, u, q, v: ot.manifold_wrench(body, p, u, body, q, v, **FORCE)  # noqa: E731
    assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=2e-3, rtol=1e-5)


def test_at_rest_and_float32():
    box, capsule, pa, pbs = dcol_case()
    rest = ot.dcol_wrench(box, t(pa), None, capsule, t(pbs[0]), None, tolerance=1e-6, **FORCE)
    zeros = ot.dcol_wrench(box, t(pa), t(np.zeros(6)), capsule, t(pbs[0]), t(np.zeros(6)),
                           tolerance=1e-6, **FORCE)
    np.testing.assert_array_equal(rest.numpy(), zeros.numpy())
    w32 = ot.dcol_wrench(box, torch.tensor(pa, dtype=torch.float32), None, capsule,
                         torch.tensor(pbs[0], dtype=torch.float32), None, tolerance=1e-6, **FORCE)
    w64 = ot.dcol_wrench(box, t(np.float32(pa)), None, capsule, t(np.float32(pbs[0])), None,
                         tolerance=1e-6, **FORCE)
    assert w32.dtype == torch.float32
    np.testing.assert_array_equal(w32.numpy(), w64.numpy().astype(np.float32))


def test_meta_shapes(sphere_body):
    box, capsule, _, _ = dcol_case()
    meta = lambda *s: torch.empty(s, dtype=torch.float64, device="meta")  # noqa: E731
    h = ot.register("dcol_wrench", box, capsule)
    w, pj, vj = torch.ops.osculate.dcol_wrench(meta(4, 1, 7), meta(6), meta(3, 7), meta(4, 3, 6),
                                               h, True)
    assert w.device.type == "meta"
    assert tuple(w.shape) == (4, 3, 2, 6) and tuple(pj.shape) == tuple(vj.shape) == (12, 12, 12)
    assert pj.dtype == vj.dtype == torch.float64
    w, pj, vj = torch.ops.osculate.dcol_wrench(meta(7), meta(6), meta(7), meta(6), h, False)
    assert tuple(w.shape) == (2, 6) and tuple(pj.shape) == tuple(vj.shape) == (0,)
    body = sphere_body[0]
    h = ot.register("manifold_wrench", body, body)
    w32 = torch.empty(5, 7, dtype=torch.float32, device="meta")
    w, pj, vj = torch.ops.osculate.manifold_wrench(w32, meta(6), meta(7), meta(6), h, 8, True)
    assert tuple(w.shape) == (5, 2, 6) and w.dtype == torch.float64
    assert tuple(pj.shape) == (5, 12, 12)
    with pytest.raises(ValueError, match="capacity"):
        torch.ops.osculate.manifold_wrench(meta(7), meta(6), meta(7), meta(6), h, 0, False)


def test_bad_arguments_name_the_problem(sphere_body):
    box, capsule, pa, pbs = dcol_case()
    with pytest.raises(TypeError, match="stifness"):
        ot.dcol_wrench(box, t(pa), t(VA), capsule, t(pbs[0]), t(VB), stifness=1.0)
    with pytest.raises(osc.InvalidArgumentError, match="stiffness"):
        ot.dcol_wrench(box, t(pa), t(VA), capsule, t(pbs[0]), t(VB), stiffness=-1.0)
    with pytest.raises(ValueError, match="velocity_a"):
        ot.dcol_wrench(box, t(pa), t(np.zeros(3)), capsule, t(pbs[0]), t(VB))
    with pytest.raises(ValueError, match="do not broadcast"):
        ot.dcol_wrench(box, t(pbs), t(VA), capsule, t(pbs[:2]), t(VB))
    with pytest.raises(ValueError, match="Body"):
        ot.manifold_wrench(box, t(pa), t(VA), capsule, t(pbs[0]), t(VB))
