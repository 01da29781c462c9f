import numpy as np
import pytest

import osculate as osc


def fd_twist(f, pose, eps=1e-6):
    """Central differences of f(pose) along the six left-twist directions: [*f.shape, 6]."""
    cols = []
    for k in range(6):
        xi = np.zeros(6)
        xi[k] = eps
        plus = np.asarray(f(osc.apply_twist(pose, xi)))
        minus = np.asarray(f(osc.apply_twist(pose, -xi)))
        cols.append((plus - minus) / (2 * eps))
    return np.stack(cols, axis=-1)


def random_pose(rng, scale=1.0):
    q = rng.normal(size=4)
    return osc.pose(rng.normal(size=3) * scale, q / np.linalg.norm(q))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def sphere_body():
    sdf = osc.SDF.sphere(0.5)
    mesh = osc.collision_mesh(sdf, resolution=24, target_triangles=200)
    return osc.Body(mesh, sdf=sdf), sdf, mesh
