import numpy as np
import pytest

torch = pytest.importorskip("torch")
import osculate as osc  # noqa: E402
import osculate.torch as ot  # noqa: E402


def test_dcol_gradcheck_and_values():
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.ellipsoid([0.5, 1.0 / 3.0, 0.25])
    pa = torch.tensor(osc.pose([0.01, 0.02, -0.03], osc.axis_angle_quaternion([1, 2, 3], 0.4)), requires_grad=True)
    pb = torch.tensor(np.stack([osc.pose([1.0, 0.3, 0.1], osc.axis_angle_quaternion([0, 1, 1], 0.3)),
                                osc.pose([1.1, 0.3, 0.1])]), requires_grad=True)

    def f(p, q):
        r = ot.dcol(a, p, b, q, tolerance=1e-6)
        return r["alpha"], r["distance"], r["normal"], r["point_a"], r["point_b"], r["point"]

    assert torch.autograd.gradcheck(f, (pa, pb), eps=1e-6, atol=1e-6, rtol=1e-4)
    r = ot.dcol(a, pa, b, pb)
    ref = osc.dcol(a, pa.detach().numpy(), b, pb[1].detach().numpy(), derivatives=True)
    assert r["alpha"][1].item() == ref.alpha
    r["alpha"][1].backward()
    expect = osc.pair_jacobian_to_pq(ref.alpha_jacobian[None], pa.detach().numpy(), pb[1].detach().numpy())[0]
    np.testing.assert_allclose(pa.grad.numpy(), expect[:7], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(pb.grad[1].numpy(), expect[7:], rtol=1e-12, atol=1e-15)
    assert np.all(pb.grad[0].numpy() == 0)


def test_manifold_gradcheck(sphere_body):
    body, _, _ = sphere_body
    pa = torch.tensor(osc.pose([0, 0, 0], osc.axis_angle_quaternion([1, 2, 3], 0.3)), requires_grad=True)
    pb = torch.tensor(osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5)), requires_grad=True)

    def f(p, q):
        m = ot.manifold(body, p, body, q)
        return (m["weight"] * m["distance"]).sum(), (m["weight"][:, None] * m["point"]).sum(0), \
            (m["weight"][:, None] * m["normal"]).sum(0)

    assert torch.autograd.gradcheck(f, (pa, pb), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_sdf_and_ray_gradcheck():
    s = osc.SDF.box([0.3, 0.2, 0.1], rounding=0.02)
    p = torch.tensor([[0.5, 0.1, 0.05], [0.1, 0.4, 0.3]], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: ot.sdf(s, x), (p,))
    params = torch.tensor([0.5, -0.3, 0.01], dtype=torch.float64, requires_grad=True)
    o = torch.tensor([[-1.0, 0.1, 0.2], [-1.0, -0.2, 0.1]], dtype=torch.float64, requires_grad=True)
    d = torch.tensor([[1.0, 0.05, 0.0], [1.0, 0.0, 0.02]], dtype=torch.float64, requires_grad=True)

    def f(q, x, y):
        r = ot.ray_intersect_sag(q, 1.0, x, y)
        return r["t"], r["point"], r["normal"]

    assert torch.autograd.gradcheck(f, (params, o, d), eps=1e-6, atol=1e-6, rtol=1e-4)
    lens = osc.Implicit.sag(0.5, 1.0, -0.3, [0.01])
    assert torch.autograd.gradcheck(lambda x, y: ot.ray_intersect(lens, x, y)["point"], (o, d), eps=1e-6, atol=1e-6)
    r = ot.ray_intersect(lens, o, d)
    t, _, _, hits = osc.ray_intersect_batch(lens, o.detach().numpy(), d.detach().numpy())
    assert np.array_equal(r["t"].detach().numpy(), t) and r["hit"].all()


def test_no_grad_path_and_errors():
    a, b = osc.Convex.sphere(0.3), osc.Convex.sphere(0.5)
    r = ot.dcol(a, torch.tensor(osc.pose()), b, torch.tensor(osc.pose([1.0, 0, 0])))
    assert r["alpha"].item() == pytest.approx(1.25)
    with pytest.raises(ValueError):
        ot.dcol(a, torch.zeros(6), b, torch.zeros(7))
    with pytest.raises(ValueError):
        ot.dcol(a, torch.tensor([np.nan, 0, 0, 1, 0, 0, 0]), b, torch.tensor(osc.pose()))


def test_sdf_pair_gradcheck():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    pa = torch.tensor(osc.pose([0.1, 0.2, 0.3]), requires_grad=True)
    pb = torch.tensor(osc.pose([0.85, 0.25, 0.3], osc.axis_angle_quaternion([0, 0, 1], 0.2)), requires_grad=True)

    def f(p, q):
        r = ot.sdf_pair(a, p, b, q, temperature=0.02)
        return r["distance"][0], r["point"][0]

    assert torch.autograd.gradcheck(f, (pa, pb), eps=1e-6, atol=1e-5, rtol=1e-4)
