import numpy as np
import pytest
from conftest import fd_twist

import osculate as osc


def poses():
    pa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([1, 2, 3], 0.3))
    pb = osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5))
    return pa, pb


def test_body_properties(sphere_body):
    body, sdf, mesh = sphere_body
    assert body.vertex_count == mesh.vertex_count and body.edge_count == mesh.edge_count
    assert body.group_count == 0 and np.all(body.vertex_groups == -1)
    grouped = osc.Body(mesh, sdf=sdf, groups="cluster", group_count=4)
    assert grouped.group_count == 4 and set(grouped.vertex_groups) == {0, 1, 2, 3}
    given = osc.Body(mesh, sdf=sdf, groups="given", vertex_groups=np.zeros(mesh.vertex_count))
    assert given.group_count == 1
    grid_body = osc.Body(mesh, grid=osc.Grid.from_sdf(sdf, resolution=24))
    assert grid_body.vertex_count == mesh.vertex_count


def test_vertex_contacts_against_the_sphere_formula(sphere_body):
    body, sdf, mesh = sphere_body
    pa, pb = poses()
    s = osc.manifold_settings()
    m = osc.manifold_collide(body, pa, body, pb)
    assert len(m) > 0 and m.needed == len(m)
    # A's vertices in the world: the SDF is an exact sphere, so phi_B(x) = |x - p_B| - 0.5
    qa = pa[3:]
    w, x, y, z = qa
    Ra = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                   [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                   [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    world = mesh.vertices @ Ra.T + pa[:3]
    vertex = (m.kind == 0) & (m.body == 0)
    assert vertex.sum() >= 1
    for p, distance, weight, normal in zip(m.point[vertex], m.distance[vertex], m.weight[vertex],
                                          m.normal[vertex]):
        assert np.min(np.linalg.norm(world - p, axis=1)) < 1e-12
        phi = np.linalg.norm(p - pb[:3]) - 0.5
        assert distance == pytest.approx(osc.mollified_depth(phi, s["d_max"], s["bandwidth"]), abs=1e-12)
        assert weight == pytest.approx(osc.transition(phi, s["d_max"], s["bandwidth"]), abs=1e-12)
        np.testing.assert_allclose(normal, (pb[:3] - p) / np.linalg.norm(pb[:3] - p), atol=1e-9)
    assert np.all(m.distance < s["d_max"]) and np.all(m.weight > 0)
    assert m.distance.min() < 0  # they interpenetrate by about 0.04
    # contact Jacobians: weight [I | -[x - p]x]
    i = 0
    rx = m.point[i] - pa[:3]
    skew = np.array([[0, -rx[2], rx[1]], [rx[2], 0, -rx[0]], [-rx[1], rx[0], 0]])
    np.testing.assert_allclose(m.jacobian_a[i], m.weight[i] * np.hstack([np.eye(3), -skew]), atol=1e-12)


def key(m):
    return list(zip(m.body, m.kind, m.feature))


def test_pose_jacobians_match_differences(sphere_body):
    body, _, _ = sphere_body
    pa, pb = poses()
    m = osc.manifold_collide(body, pa, body, pb, derivatives=True)
    keys = key(m)

    def field(name, which):
        def f(p):
            args = (p, pb) if which == 0 else (pa, p)
            r = osc.manifold_collide(body, args[0], body, args[1])
            assert key(r) == keys  # the same contacts
            return getattr(r, name)
        return f

    for name in ("distance", "weight", "point", "normal"):
        fd = np.concatenate([fd_twist(field(name, 0), pa), fd_twist(field(name, 1), pb)], axis=-1)
        np.testing.assert_allclose(getattr(m, name + "_jacobian"), fd, atol=5e-5, err_msg=name)


def test_batch_equals_single_and_capacity(sphere_body):
    body, _, _ = sphere_body
    pa, pb = poses()
    pbs = np.array([osc.apply_twist(pb, [0.01 * k, 0, 0, 0, 0.02 * k, 0]) for k in range(5)])
    batch = osc.manifold_collide_batch(body, np.tile(pa, (5, 1)), body, pbs, derivatives=True, threads=2)
    for k in range(5):
        one = osc.manifold_collide(body, pa, body, pbs[k], derivatives=True)
        got = batch[k]
        assert len(got) == len(one)
        assert np.array_equal(got.distance, one.distance) and np.array_equal(got.point, one.point)
        assert np.array_equal(got.distance_jacobian, one.distance_jacobian)
    assert batch.count[0] > batch.count[4]  # moving apart loses contacts
    # the batch rule of every pair query (osculate.broadcast_poses): one pose_a against many
    # poses_b, and a sequence of bodies per slot, give the same slots bit for bit
    for single in (osc.manifold_collide_batch(body, pa, body, pbs, derivatives=True, threads=2),
                   osc.manifold_collide_batch([body] * 5, pa[None], [body] * 5, pbs,
                                              derivatives=True)):
        assert np.array_equal(single.count, batch.count)
        assert np.array_equal(single.distance, batch.distance)
        assert np.array_equal(single.distance_jacobian, batch.distance_jacobian)
    with pytest.raises(ValueError, match="broadcast"):
        osc.manifold_collide_batch(body, np.tile(pa, (3, 1)), body, pbs)
    with pytest.raises(ValueError, match="3 models for 5 poses"):
        osc.manifold_collide_batch([body] * 3, pa, body, pbs)
    with pytest.raises(osc.CapacityError):
        osc.manifold_collide(body, pa, body, pb, capacity=2)
    with pytest.raises(osc.CapacityError):
        osc.manifold_collide_batch(body, np.tile(pa, (5, 1)), body, pbs, capacity=2)
    assert osc.max_contacts(body, body) == 2 * (body.vertex_count + body.edge_count)
    assert osc.max_contacts(body, body, edges=0) == 2 * body.vertex_count


def test_settings_and_errors(sphere_body):
    body, sdf, mesh = sphere_body
    pa, pb = poses()
    s = osc.manifold_settings(size=10.0)
    assert s["d_max"] == pytest.approx(0.2) and s["iterations"] == 3
    hard = osc.manifold_collide(body, pa, body, pb, trace_temperature=0, clip_temperature=0,
                                blend_temperature=0, bandwidth=0)
    assert np.all(hard.weight == 1.0)
    with pytest.raises(ValueError):
        osc.manifold_collide(body, pa, body, pb, d_max=-1.0)
    with pytest.raises(ValueError):
        osc.manifold_collide(body, [np.nan] * 7, body, pb)
    with pytest.raises(ValueError):
        osc.manifold_collide(body, pa, body, pb, size=-1.0)
    with pytest.raises(TypeError):
        osc.manifold_collide(body, pa, body, pb, dmax=0.1)
    with pytest.raises(ValueError):
        osc.manifold_collide(body, pa, "body", pb)
    with pytest.raises(ValueError):
        osc.Body(mesh)  # no SDF
    with pytest.raises(ValueError):
        osc.Body(mesh, sdf=osc.SDF.sphere(2.0))  # the SDF does not cover the mesh
    with pytest.raises(ValueError):
        osc.Body(mesh, sdf=sdf, groups="given", vertex_groups=np.full(mesh.vertex_count, -3))
    with pytest.raises(ValueError):
        osc.Body(mesh, sdf=sdf, groups="given")
