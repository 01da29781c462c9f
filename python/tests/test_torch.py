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


# ------------------------------------------------------------------------------------------------
# the ops: batches, broadcast poses, Meta kernels, backward over the contacts found, errors

OPS = ("dcol", "dcol_alpha", "manifold", "sdf_pair", "lmd", "sdf", "ray_intersect", "pose_vjp")


def test_the_queries_are_ops():
    for name in OPS:
        op = getattr(torch.ops.osculate, name)
        assert str(op) == "osculate." + name and callable(op.default)


def _sphere_poses(batch):
    """pose_a [7] and pose_b [batch, 7]: spheres in contact at different depths and turns."""
    pa = torch.tensor(osc.pose([0, 0, 0], osc.axis_angle_quaternion([1, 2, 3], 0.3)), requires_grad=True)
    pb = torch.tensor(np.stack([osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5)),
                                osc.pose([0.97, -0.04, 0.03], osc.axis_angle_quaternion([1, 1, 0], 0.2)),
                                osc.pose([0.05, 0.95, 0.02], osc.axis_angle_quaternion([0, 0, 1], 0.7))][:batch]),
                      requires_grad=True)
    return pa, pb


def test_manifold_gradcheck_batch_and_broadcast(sphere_body):
    body, _, _ = sphere_body
    pa, pb = _sphere_poses(3)
    m = ot.manifold(body, pa, body, pb)
    assert m["distance"].shape[0] == 3 and np.all(m["count"].numpy() > 10)

    def f(p, q):
        m = ot.manifold(body, p, body, q)
        w = m["weight"]
        return (w * m["distance"]).sum(-1), (w[..., None] * m["point"]).sum(-2), \
            (w[..., None] * m["normal"]).sum(-2), w.sum(-1)

    assert torch.autograd.gradcheck(f, (pa, pb), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_manifold_backward_reads_only_the_contacts_found(sphere_body):
    """At the default capacity (804 slots, about 30 found): the Jacobians past each count are as
    the C library left them (np.empty) and are never read. Poisoned with NaN there (and the
    cotangents too), pose_vjp still gives the product of the cotangents with the NumPy query's
    Jacobians converted to raw poses (pair_jacobian_to_pq) over the contacts found, and so does
    backward."""
    body, _, _ = sphere_body
    pa, pb = _sphere_poses(3)
    h = ot.register("manifold", body, body)
    cap = osc.max_contacts(body, body)
    out = torch.ops.osculate.manifold(pa.detach(), pb.detach(), h, cap, True)
    count = out[4]
    assert cap > 20 * count.max().item()
    rng = np.random.default_rng(3)
    names = [n for n, _ in osc._host.MANIFOLD_OUTPUTS]
    pa_np, pb_np = (np.broadcast_to(p.detach().numpy(), (3, 7)) for p in (pa, pb))
    refs = [osc.manifold_collide(body, pa_np[i], body, pb_np[i], derivatives=True) for i in range(3)]
    values = {n: [getattr(r, n) for r in refs] for n in names}
    dense = {n: [osc.pair_jacobian_to_pq(getattr(r, n + "_jacobian").reshape(len(r), -1, 12),
                                         pa_np[i], pb_np[i]) for i, r in enumerate(refs)]
             for n in names}
    cts, jacs, want = [], [], np.zeros((3, 14))
    for k, (name, shape) in enumerate(osc._host.MANIFOLD_OUTPUTS):
        rows = int(np.prod(shape, dtype=int))
        ct = rng.normal(size=(3, cap, rows))
        j = out[5 + k].clone()
        for i in range(3):
            n = count[i].item()
            np.testing.assert_array_equal(out[k][i, :n].numpy(), values[name][i])
            j[i, n:] = np.nan
            ct[i, n:] = np.nan
            want[i] += np.einsum("sr,src->c", ct[i, :n], dense[name][i])
        cts.append(torch.tensor(ct))
        jacs.append(j)
    got = torch.ops.osculate.pose_vjp(jacs, cts, count, pa.detach(), pb.detach())
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    # and through autograd: E = sum of weight * distance
    m = ot.manifold(body, pa, body, pb)
    (m["weight"] * m["distance"]).sum().backward()
    e = np.zeros((3, 14))
    for i in range(3):
        n = count[i].item()
        e[i] = values["weight"][i] @ dense["distance"][i].reshape(n, 14) + \
            values["distance"][i] @ dense["weight"][i].reshape(n, 14)
    np.testing.assert_allclose(pa.grad.numpy(), e[:, :7].sum(0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pb.grad.numpy(), e[:, 7:], rtol=1e-10, atol=1e-12)
    assert names == ["point", "distance", "normal", "weight"]


def test_dcol_gradcheck_batch_and_alpha_only():
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.ellipsoid([0.5, 1.0 / 3.0, 0.25])
    pa = torch.tensor(np.stack([osc.pose([0.01, 0.02, -0.03], osc.axis_angle_quaternion([1, 2, 3], 0.4)),
                                osc.pose([-0.1, 0.0, 0.05], osc.axis_angle_quaternion([0, 1, 3], 0.2))])[:, None],
                      requires_grad=True)  # [2, 1, 7] against [3, 7]: a [2, 3] batch
    pb = torch.tensor(np.stack([osc.pose([0.8, 0.3, 0.1], osc.axis_angle_quaternion([0, 1, 1], 0.3)),
                                osc.pose([0.9, -0.2, 0.1]), osc.pose([0.1, 0.2, 0.6])]), requires_grad=True)
    assert torch.autograd.gradcheck(lambda p, q: ot.dcol_alpha(a, p, b, q), (pa, pb), eps=1e-6, atol=1e-6,
                                    rtol=1e-4)
    assert torch.autograd.gradcheck(lambda p, q: ot.dcol(a, p, b, q)["normal"], (pa, pb), eps=1e-6,
                                    atol=1e-6, rtol=1e-4)
    alpha = ot.dcol_alpha(a, pa, b, pb)
    assert alpha.shape == (2, 3)
    np.testing.assert_array_equal(alpha.detach().numpy(), ot.dcol(a, pa, b, pb)["alpha"].detach().numpy())
    # dcol_alpha asks the C library for alpha's Jacobian only
    h = ot.register("dcol", a, b)
    out = torch.ops.osculate.dcol_alpha(pa.detach(), pb.detach(), h, True)
    assert [tuple(t.shape) for t in out] == [(2, 3), (6, 1, 12)]
    full = torch.ops.osculate.dcol(pa.detach(), pb.detach(), h, True)
    np.testing.assert_array_equal(out[1].numpy(), full[6].numpy())


def test_sdf_pair_gradcheck_batch():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    pa = torch.tensor(osc.pose([0.1, 0.2, 0.3]), requires_grad=True)
    pb = torch.tensor(np.stack([osc.pose([0.85, 0.25, 0.3], osc.axis_angle_quaternion([0, 0, 1], 0.2)),
                                osc.pose([0.1, 0.95, 0.35], osc.axis_angle_quaternion([1, 0, 0], 0.3))]),
                      requires_grad=True)
    r = ot.sdf_pair(a, pa, b, pb, temperature=0.02)
    assert np.all(r["count"].numpy() >= 1) and r["distance"].shape == (2, 16)

    def f(p, q):
        r = ot.sdf_pair(a, p, b, q, temperature=0.02)
        return r["distance"][:, 0], r["point"][:, 0]

    assert torch.autograd.gradcheck(f, (pa, pb), eps=1e-6, atol=1e-5, rtol=1e-4)
    slab = osc.SDF.box([0.5, 0.5, 0.2], rounding=0.02)  # face on face: a hundred points and more
    with pytest.raises(osc.CapacityError, match="capacity 16"):
        ot.sdf_pair(slab, osc.pose(), slab, osc.pose([0.3, 0.1, 0.38]), temperature=0.02)


def _rotation(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def test_lmd_gradcheck_batch_and_padding():
    """A rotated box and a sphere above one of its faces and beside one of its edges (test_lmd's
    configurations), as one pose_a [7] against pose_b [2, 7]."""
    box, ball = osc.Brep.box([1.0, 2.0, 0.5]), osc.Brep.sphere(0.3)
    qa = osc.axis_angle_quaternion([1, 2, 3], 0.3)
    a_np = osc.pose([0.1, -0.2, 0.05], qa)
    pb_np = []
    for anchor, direction in (([0.2, 0.5, 0.5], [0, 0, 1]), ([1.0, 0.3, 0.5], [1, 0, 1])):
        direction = np.array(direction, float) / np.linalg.norm(direction)
        pb_np.append(osc.pose(a_np[:3] + _rotation(qa) @ (np.array(anchor) + 0.7 * direction),
                              osc.axis_angle_quaternion([0, 1, 0], 0.7)))
    pa = torch.tensor(a_np, requires_grad=True)
    pb = torch.tensor(np.stack(pb_np), requires_grad=True)
    settings = dict(d_max=2.0, eps_a=0.01, eps_b=0.005)
    r = ot.lmd(box, pa, ball, pb, **settings)
    count = r["count"].numpy()
    assert np.all(count >= 1) and r["distance"].shape == (2, 32)
    for i in range(2):
        ref = osc.lmd(box, a_np, ball, pb_np[i], **settings)
        np.testing.assert_array_equal(r["distance"][i, :count[i]].detach().numpy(), ref.distance)
        assert np.all(r["distance"][i, count[i]:].detach().numpy() == 2.0 - 0.015)
    assert torch.autograd.gradcheck(lambda p, q: ot.lmd(box, p, ball, q, **settings)["distance"],
                                    (pa, pb), eps=1e-6, atol=1e-5, rtol=1e-4)
    with pytest.raises(osc.CapacityError, match="capacity 0"):
        ot.lmd(box, pa, ball, pb, capacity=0, **settings)


def test_sdf_and_ray_batches_broadcast():
    s = osc.SDF.box([0.3, 0.2, 0.1], rounding=0.02)
    p = torch.tensor(np.random.default_rng(5).normal(scale=0.3, size=(2, 3, 3)), requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: ot.sdf(s, x), (p,))
    params = torch.tensor([[0.5, -0.3, 0.01], [0.4, -0.1, 0.02]], dtype=torch.float64, requires_grad=True)
    o = torch.tensor([[[-1.0, 0.1, 0.2]], [[-1.0, -0.2, 0.1]], [[-1.0, 0.0, -0.15]]], dtype=torch.float64,
                     requires_grad=True)  # [3, 1, 3] against [2, P]: a [3, 2] batch
    d = torch.tensor([1.0, 0.05, 0.0], dtype=torch.float64, requires_grad=True)

    def f(q, x, y):
        r = ot.ray_intersect_sag(q, 1.0, x, y)
        return r["t"], r["point"], r["normal"]

    assert torch.autograd.gradcheck(f, (params, o, d), eps=1e-6, atol=1e-6, rtol=1e-4)
    assert ot.ray_intersect_sag(params, 1.0, o, d)["hit"].shape == (3, 2)


def _meta_matches(op, *args):
    """The op on meta tensors gives the CPU outputs' shapes and dtypes, without a C call."""
    cpu = op(*args)
    meta = op(*[a.to("meta") if isinstance(a, torch.Tensor) else a for a in args])
    assert len(cpu) == len(meta)
    for c, m in zip(cpu, meta):
        assert m.device.type == "meta" and (c.shape, c.dtype) == (m.shape, m.dtype)


def test_meta_kernels_match_the_cpu_kernels(sphere_body):
    body, _, _ = sphere_body
    pa, pb = (t.detach() for t in _sphere_poses(2))
    for jac in (False, True):
        h = ot.register("manifold", body, body)
        _meta_matches(torch.ops.osculate.manifold, pa, pb, h, 64, jac)
        convex = ot.register("dcol", osc.Convex.sphere(0.3), osc.Convex.sphere(0.5))
        _meta_matches(torch.ops.osculate.dcol, pa[None], pb, convex, jac)
        _meta_matches(torch.ops.osculate.dcol_alpha, pa.float(), pb.float(), convex, jac)
        sdfs = ot.register("sdf_pair", osc.SDF.sphere(0.5), osc.SDF.sphere(0.4), temperature=0.02)
        _meta_matches(torch.ops.osculate.sdf_pair, pa, pb, sdfs, 16, jac)
        breps = ot.register("lmd", osc.Brep.sphere(0.3), osc.Brep.sphere(0.5), d_max=2.0)
        _meta_matches(torch.ops.osculate.lmd, pa, pb, breps, 4, jac)
        _meta_matches(torch.ops.osculate.sdf, torch.zeros(4, 2, 3), ot.register("sdf", osc.SDF.sphere(0.5)),
                      jac)
        lens = ot.register("ray", None, 1.0, None)
        o, d = torch.tensor([[-1.0, 0.1, 0.0]]), torch.tensor([1.0, 0.0, 0.0])
        _meta_matches(torch.ops.osculate.ray_intersect, o, d, torch.tensor([[0.5, -0.3, 0.01]] * 2), lens, jac)
        surface = ot.register("ray", osc.Implicit.sag(0.5, 1.0, -0.3, [0.01]), None, None)
        _meta_matches(torch.ops.osculate.ray_intersect, o, d, None, surface, jac)
    out = torch.ops.osculate.manifold(pa, pb, ot.register("manifold", body, body), 64, True)
    grads = [torch.ones(o.shape[:-1] if o.dim() == 4 else o.shape) for o in out[5:]]
    jacs, cts = list(out[5:]), [g.reshape(2, 64, -1) for g in grads]
    vjp = torch.ops.osculate.pose_vjp(jacs, cts, out[4], pa, pb)
    meta = torch.ops.osculate.pose_vjp([j.to("meta") for j in jacs], [c.to("meta") for c in cts],
                                       out[4].to("meta"), pa.to("meta"), pb.to("meta"))
    assert (vjp.shape, vjp.dtype) == (meta.shape, meta.dtype) == ((2, 14), torch.float64)


def test_op_errors_are_clear(sphere_body):
    body, _, _ = sphere_body
    pa, pb = (t.detach() for t in _sphere_poses(2))
    with pytest.raises(ValueError, match=r"poses must have shape \(\.\.\., 7\)"):
        ot.manifold(body, torch.zeros(2, 6), body, pb)
    with pytest.raises(ValueError, match="do not broadcast"):
        ot.dcol(osc.Convex.sphere(0.3), torch.zeros(3, 7), osc.Convex.sphere(0.5), pb)
    with pytest.raises(osc.CapacityError, match="capacity 3"):
        ot.manifold(body, pa, body, pb, capacity=3)
    for device in ("cpu", "meta"):
        with pytest.raises(ValueError, match="capacity must be >= 1"):
            torch.ops.osculate.manifold(pa.to(device), pb.to(device), ot.register("manifold", body, body),
                                        0, False)
    with pytest.raises(ValueError, match="not a handle"):
        torch.ops.osculate.manifold(pa, pb, 10 ** 9, 8, False)
    with pytest.raises(ValueError, match="not a handle"):  # a handle of another query
        torch.ops.osculate.manifold(pa, pb, ot.register("sdf", osc.SDF.sphere(0.5)), 8, False)
    out = torch.ops.osculate.manifold(pa, pb, ot.register("manifold", body, body), 64, True)
    with pytest.raises(ValueError, match="cotangent"):
        torch.ops.osculate.pose_vjp([out[6]], [torch.ones(2, 63, 1)], out[4], pa, pb)
    with pytest.raises(ValueError, match="float64"):
        torch.ops.osculate.pose_vjp([out[6].float()], [torch.ones(2, 64, 1)], out[4], pa, pb)


def test_registry_keys_by_value_and_keeps_models():
    a = osc.Convex.sphere(0.3)
    h = ot.register("dcol", a, a, tolerance=1e-8)
    assert ot.register("dcol", a, a, tolerance=1e-8) == h
    assert ot.register("dcol", a, a, tolerance=1e-9) != h
    t1 = dict(translation=np.array([0.1, 0.2, 0.30000000001]))
    t2 = dict(translation=np.array([0.1, 0.2, 0.3]))
    assert ot.register("ray", None, 1.0, t1) != ot.register("ray", None, 1.0, t2)
    assert ot.register("ray", None, 1.0, t2) == ot.register("ray", None, 1.0, dict(t2))
