"""Body.from_mesh: a mesh file or (vertices, faces) arrays to a body in one call, with every size
derived from the model as the `osculate contact` program derives it, so that the same model in
metres and in millimetres (scaled by 1000) gives the same contacts up to that scale: points,
distances and the translation columns of the Jacobians times 1000, normals and weights equal."""

import numpy as np
import pytest

import osculate as osc

SCALE = 1000.0


@pytest.fixture(scope="module")
def pebble():
    """A superquadric pebble's triangle mesh (vertices in metres, faces)."""
    sdf = osc.SDF.superquadric([0.25, 0.2, 0.15], 0.5, 0.7)
    mesh = osc.collision_mesh(sdf, resolution=32, target_triangles=600)
    return mesh.vertices, mesh.triangles


def test_the_same_model_in_millimetres_gives_the_same_contacts(pebble, tmp_path):
    v, f = pebble
    metres = osc.Body.from_mesh((v, f), resolution=32, mesh_resolution=32, triangles=300)
    path = tmp_path / "pebble_mm.obj"
    osc.Mesh(v * SCALE, f).write_obj(str(path))
    millimetres = osc.Body.from_mesh(str(path), resolution=32, mesh_resolution=32, triangles=300)
    assert metres.size == pytest.approx(0.5, rel=0.05)  # the longest side, 2 x 0.25
    assert millimetres.size == pytest.approx(SCALE * metres.size, rel=1e-9)
    assert millimetres.vertex_count == metres.vertex_count
    q = osc.axis_angle_quaternion([0.3, 1, 0.2], 0.4)
    pa, pb = osc.pose([0, 0, 0]), osc.pose([0.3, 0.05, 0.12], q)
    pb_mm = osc.pose(SCALE * pb[:3], q)
    m = osc.manifold_collide(metres, pa, metres, pb, derivatives=True)
    mm = osc.manifold_collide(millimetres, pa, millimetres, pb_mm, derivatives=True)
    assert len(m) > 10 and m.distance.min() < 0
    assert list(zip(m.body, m.kind, m.feature)) == list(zip(mm.body, mm.kind, mm.feature))
    tol = 1e-6 * metres.size
    np.testing.assert_allclose(mm.point / SCALE, m.point, atol=tol)
    np.testing.assert_allclose(mm.distance / SCALE, m.distance, atol=tol)
    np.testing.assert_allclose(mm.normal, m.normal, atol=1e-5)
    np.testing.assert_allclose(mm.weight, m.weight, atol=1e-5)
    # d distance / d translation is unitless; d distance / d rotation is a length
    np.testing.assert_allclose(mm.distance_jacobian[:, [0, 1, 2, 6, 7, 8]],
                               m.distance_jacobian[:, [0, 1, 2, 6, 7, 8]], atol=1e-4)
    np.testing.assert_allclose(mm.distance_jacobian[:, [3, 4, 5, 9, 10, 11]] / SCALE,
                               m.distance_jacobian[:, [3, 4, 5, 9, 10, 11]], atol=1e-4 * 0.5)
    # the settings came from the sizes: d_max scaled with the model
    assert osc.max_contacts(millimetres, millimetres) == osc.max_contacts(metres, metres)
    # an explicit size overrides the bodies' own
    assert len(osc.manifold_collide(millimetres, pa, millimetres, pb_mm, size=1.0)) < len(mm)


def test_groups_and_errors(pebble):
    v, f = pebble
    grouped = osc.Body.from_mesh((v, f), resolution=24, mesh_resolution=24, triangles=200,
                                 groups=4)
    assert grouped.group_count == 4
    assert isinstance(grouped.grid, osc.Grid) and isinstance(grouped.collision_mesh, osc.Mesh)
    with pytest.raises(ValueError, match="groups"):
        osc.Body.from_mesh((v, f), groups=-1)
    with pytest.raises(OSError):
        osc.Body.from_mesh("/nonexistent/pebble.obj")
    with pytest.raises(ValueError):
        osc.Body.from_mesh((v, f, f))


def test_guide_section_runs(capsys):
    """docs/python.md's Body.from_mesh example prints what its comment says."""
    import os
    import re
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    text = open(os.path.join(root, "docs", "python.md")).read()
    start = text.index("## Bodies from mesh files")
    blocks = re.findall(r"```python\n(.*?)```", text[start:text.index("\n## ", start + 1)], re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/python.md", "exec"), {})  # noqa: S102 - the guide's own code
    assert capsys.readouterr().out.splitlines() == ["True True"]
