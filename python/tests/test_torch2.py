"""osculate.torch under PyTorch 2: torch.compile(fullgraph=True) without graph breaks, and the
torch.func transforms (grad, vmap over grad, jacrev, vmap through the ops' batching rules) for
every query family, each against eager gradients that torch.autograd.gradcheck verifies against
central differences of the same function."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not (hasattr(torch, "compile") and hasattr(torch, "func")):
    pytest.skip("torch.compile and torch.func need PyTorch >= 2.0 (this is %s)" % torch.__version__,
                allow_module_level=True)
import osculate as osc  # noqa: E402
import osculate.torch as ot  # noqa: E402


def _t(x):
    return torch.tensor(np.asarray(x, dtype=np.float64))


def _rotation(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _cases(body):
    """name -> (vec(*inputs) -> [m] tensor, inputs, first-input batch [B, ...] for vmap). The
    inputs are one item each (poses [7], a few points or rays); the batch moves the first input."""
    box, ell = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.ellipsoid([0.5, 1.0 / 3.0, 0.25])
    pa = osc.pose([0.01, 0.02, -0.03], osc.axis_angle_quaternion([1, 2, 3], 0.4))
    pb = osc.pose([0.8, 0.3, 0.1], osc.axis_angle_quaternion([0, 1, 1], 0.3))

    def dcol(p, q):
        r = ot.dcol(box, p, ell, q, tolerance=1e-6)
        return torch.cat([r["alpha"][None], r["distance"][None], r["normal"], r["point"],
                          r["point_a"], r["point_b"]])

    def dcol_alpha(p, q):
        return ot.dcol_alpha(box, p, ell, q, tolerance=1e-6)[None]

    ma = osc.pose([0, 0, 0], osc.axis_angle_quaternion([1, 2, 3], 0.3))
    mb = osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5))

    def manifold(p, q):
        m = ot.manifold(body, p, body, q)
        w = m["weight"]
        return torch.cat([(w * m["distance"]).sum()[None], (w[:, None] * m["point"]).sum(0),
                          (w[:, None] * m["normal"]).sum(0)])

    sa, sb = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)

    def sdf_pair(p, q):
        r = ot.sdf_pair(sa, p, sb, q, temperature=0.02)
        return torch.cat([r["distance"].sum()[None], r["point"].sum(0)])

    brep_box, ball = osc.Brep.box([1.0, 2.0, 0.5]), osc.Brep.sphere(0.3)
    qa = osc.axis_angle_quaternion([1, 2, 3], 0.3)
    la = osc.pose([0.1, -0.2, 0.05], qa)
    lb = osc.pose(la[:3] + _rotation(qa) @ (np.array([0.2, 0.5, 0.5]) + [0, 0, 0.7]),
                  osc.axis_angle_quaternion([0, 1, 0], 0.7))

    def lmd(p, q):
        r = ot.lmd(brep_box, p, ball, q, capacity=4, d_max=2.0, eps_a=0.01, eps_b=0.005)
        return r["distance"]

    s = osc.SDF.box([0.3, 0.2, 0.1], rounding=0.02)
    points = np.array([[0.5, 0.1, 0.05], [0.1, 0.4, 0.3], [0.05, -0.1, 0.3]])

    def sdf(x):
        return ot.sdf(s, x)

    lens = osc.Implicit.sag(0.5, 1.0, -0.3, [0.01])
    o = np.array([[-1.0, 0.1, 0.2], [-1.0, -0.2, 0.1]])
    d = np.array([[1.0, 0.05, 0.0], [1.0, 0.0, 0.02]])

    def ray(x, y):
        r = ot.ray_intersect(lens, x, y)
        return torch.cat([r["t"], r["point"].reshape(-1), r["normal"].reshape(-1)])

    def ray_sag(c, x, y):
        r = ot.ray_intersect_sag(c, 1.0, x, y)
        return torch.cat([r["t"], r["point"].reshape(-1), r["normal"].reshape(-1)])

    va = np.array([0.05, -0.02, 0.1, 0.3, -0.2, 0.1])
    vb = np.array([-0.2, 0.05, 0.03, 0.1, 0.4, -0.3])
    force = dict(stiffness=2e4, friction=0.7, damping=0.5)
    capsule = osc.Convex.capsule(0.2, 0.4)
    wa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 0, 1], 0.1))
    wb = osc.apply_twist(osc.pose([0.9, 0.2, 0.0], osc.axis_angle_quaternion([0, 1, 0], np.pi / 2)),
                         [0, 0, 0, 0, 0, 0.3])

    # wrenches of ~1e3 scaled to ~1, which the finite differences of _eager_jacobian resolve
    def dcol_wrench(p, u, q, v):
        return ot.dcol_wrench(box, p, u, capsule, q, v, tolerance=1e-6, **force).reshape(12) * 1e-3

    def manifold_wrench(p, u, q, v):
        return ot.manifold_wrench(body, p, u, body, q, v, **force).reshape(12) * 1e-3

    shift = np.array([0, 1, 2])[:, None] * 0.004  # three nearby items of the first input

    def pose_batch(p):
        return np.stack([np.concatenate([p[:3] + s, p[3:]]) for s in shift])
    return {
        "dcol": (dcol, (pa, pb), pose_batch(pa)),
        "dcol_alpha": (dcol_alpha, (pa, pb), pose_batch(pa)),
        "manifold": (manifold, (ma, mb), pose_batch(ma)),
        "sdf_pair": (sdf_pair, (osc.pose([0.1, 0.2, 0.3]), osc.pose(
            [0.85, 0.25, 0.3], osc.axis_angle_quaternion([0, 0, 1], 0.2))),
            pose_batch(osc.pose([0.1, 0.2, 0.3]))),
        "lmd": (lmd, (la, lb), pose_batch(la)),
        "sdf": (sdf, (points,), points[None] + shift[:, :, None]),
        "ray_intersect": (ray, (o, d), o[None] + shift[:, :, None]),
        "ray_intersect_sag": (ray_sag, (np.array([0.5, -0.3, 0.01]), o, d),
                              np.array([0.5, -0.3, 0.01]) + shift),
        "dcol_wrench": (dcol_wrench, (wa, va, wb, vb), pose_batch(wa)),
        "manifold_wrench": (manifold_wrench, (ma, va, mb, vb), pose_batch(ma)),
    }


FAMILIES = ("dcol", "dcol_alpha", "manifold", "sdf_pair", "lmd", "sdf", "ray_intersect",
            "ray_intersect_sag", "dcol_wrench", "manifold_wrench")


@pytest.fixture(scope="module")
def cases():
    sdf = osc.SDF.sphere(0.5)
    body = osc.Body(osc.collision_mesh(sdf, resolution=24, target_triangles=200), sdf=sdf)
    return _cases(body)


def _eager_jacobian(vec, inputs):
    """The Jacobian [m, *input shape] of vec with respect to each input, row by row through
    torch.autograd.grad (eager), after gradcheck of vec at the inputs."""
    inputs = [x.clone().requires_grad_(True) for x in inputs]
    assert torch.autograd.gradcheck(vec, inputs, eps=1e-6, atol=1e-5, rtol=1e-4)
    y = vec(*inputs)
    rows = [torch.autograd.grad(y[i], inputs, retain_graph=True, allow_unused=True)
            for i in range(len(y))]
    return y.detach(), [torch.stack([torch.zeros_like(x) if r[k] is None else r[k] for r in rows])
                        for k, x in enumerate(inputs)]


def _weights(m):
    return torch.linspace(0.5, 1.5, m, dtype=torch.float64)


@pytest.mark.parametrize("family", FAMILIES)
def test_func_grad_vmap_jacrev(cases, family):
    vec, inputs, batch = cases[family]
    inputs = [_t(x) for x in inputs]
    value, jac = _eager_jacobian(vec, inputs)
    w = _weights(len(value))
    argnums = tuple(range(len(inputs)))

    def f(*xs):
        return vec(*xs) @ w

    # grad: the weighted rows of the eager Jacobian
    got = torch.func.grad(f, argnums=argnums)(*inputs)
    for g, j in zip(got, jac):
        np.testing.assert_allclose(g.numpy(), torch.tensordot(w, j, dims=1).numpy(), rtol=1e-10,
                                   atol=1e-12)
    # jacrev: the eager Jacobian (a vmap of the backward over the rows); with batching rules
    # (PyTorch >= 2.4) no op falls back to a loop, which warns
    with warnings.catch_warnings():
        if hasattr(torch.library, "register_vmap"):
            warnings.simplefilter("error")
        got = torch.func.jacrev(vec, argnums=argnums)(*inputs)
    for g, j in zip(got, jac):
        np.testing.assert_allclose(g.numpy(), j.numpy(), rtol=1e-10, atol=1e-12)
    # vmap over grad: each item's eager gradient
    xs = _t(batch)
    rest = (None,) * (len(inputs) - 1)
    with warnings.catch_warnings():
        if hasattr(torch.library, "register_vmap"):
            warnings.simplefilter("error")
        got = torch.func.vmap(torch.func.grad(f, argnums=argnums), in_dims=(0,) + rest)(
            xs, *inputs[1:])
    # grad of a vmap (the Functions' vmap staticmethods): the gradient of the summed batch
    summed = torch.func.grad(lambda b, *r: torch.func.vmap(f, in_dims=(0,) + rest)(b, *r).sum(),
                             argnums=argnums)(xs, *inputs[1:])
    items = []  # items[i][k]: item i's eager gradient with respect to input k
    for i in range(len(xs)):
        _, ji = _eager_jacobian(vec, [xs[i]] + inputs[1:])
        items.append([torch.tensordot(w, j, dims=1) for j in ji])
    for k in range(len(inputs)):
        for i in range(len(xs)):
            np.testing.assert_allclose(got[k][i].numpy(), items[i][k].numpy(), rtol=1e-10,
                                       atol=1e-12)
        want = torch.stack([it[0] for it in items]) if k == 0 else sum(it[k] for it in items)
        np.testing.assert_allclose(summed[k].numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("family", FAMILIES)
def test_vmap_uses_the_batching_rules(cases, family, monkeypatch):
    """vmap of a query is one op call (torch.library.register_vmap, PyTorch >= 2.4), not the
    fallback's loop of one call per item: the CPU kernels convert their inputs with _np, as
    often for the batch as for one item. Values equal the items computed alone."""
    if not hasattr(torch.library, "register_vmap"):
        pytest.skip("batching rules need torch.library.register_vmap (PyTorch >= 2.4)")
    vec, inputs, batch = cases[family]
    inputs = [_t(x) for x in inputs]
    xs = _t(batch)
    conversions = []
    to_numpy = ot._np
    monkeypatch.setattr(ot, "_np", lambda t: conversions.append(t.shape) or to_numpy(t))
    vec(*inputs)
    one = len(conversions)
    del conversions[:]
    got = torch.func.vmap(vec, in_dims=(0,) + (None,) * (len(inputs) - 1))(xs, *inputs[1:])
    assert one > 0 and len(conversions) == one, conversions
    monkeypatch.undo()
    for i in range(len(xs)):
        np.testing.assert_array_equal(got[i].numpy(), vec(xs[i], *inputs[1:]).numpy())


@pytest.mark.parametrize("family", FAMILIES)
def test_compile_fullgraph_matches_eager(cases, family):
    vec, inputs, _ = cases[family]
    inputs = [_t(x) for x in inputs]
    value, jac = _eager_jacobian(vec, inputs)  # which also registers the models (see docs)
    explanation = torch._dynamo.explain(vec)(*inputs)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    w = _weights(len(value))
    compiled = torch.compile(lambda *xs: vec(*xs) @ w, fullgraph=True)
    xs = [x.clone().requires_grad_(True) for x in inputs]
    y = compiled(*xs)
    np.testing.assert_allclose(y.item(), (value @ w).item(), rtol=1e-12, atol=1e-14)
    y.backward()
    for x, j in zip(xs, jac):
        np.testing.assert_allclose(x.grad.numpy(), torch.tensordot(w, j, dims=1).numpy(),
                                   rtol=1e-10, atol=1e-12)
