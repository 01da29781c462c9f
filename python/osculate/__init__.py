"""osculate: smoothly differentiable collision detection (Python binding of the C library).

Shapes and models: SDF, Mesh, MeshBVH, Grid, Body, Convex, Implicit, Brep. Queries: dcol,
dcol_batch, dcol_alpha_gradient, dcol_parameter_gradient, manifold_collide,
manifold_collide_batch, sdf_pair_collide, sdf_scene_collide, ray_intersect, ray_intersect_many,
ray_intersect_batch, lmd (with LmdCache).
Every pair query takes (a, pose_a, b, pose_b, ...) and reports a signed distance (negative:
penetration) with a normal from A to B (docs/api.md). Poses are [7] arrays (px, py, pz, qw, qx,
qy, qz), world-from-body, the quaternion scalar first (pose_from_matrix,
pose_from_position_quaternion); pose Jacobians have 12 columns along the left twists (dp, dtheta)
of A then B (pair_jacobian_to_pq / pair_jacobian_to_twist convert to and from raw pose columns).
Autodiff: osculate.jax and osculate.torch (imported on demand). Guide: docs/python.md.
"""

from ._brep import (CURVE_TYPES, FEATURE_KINDS, LMD_CONFORMAL, SURFACE_TYPES, TRIM_KINDS, Brep,
                    BrepDescription, BrepShell, LmdCache, LmdContacts, brep_settings, lmd,
                    lmd_settings, project, surface_point)
from ._core import (CapacityError, InvalidArgumentError, NotConvergedError, OsculateError,
                    OsculateIOError, OsculateMemoryError, ParseError, UnsupportedError,
                    apply_twist, axis_angle_quaternion, default_thread_count, logsumexp,
                    mollified_depth, pair_jacobian_to_pq, pair_jacobian_to_twist, pose,
                    pose_from_matrix, pose_from_position_quaternion,
                    pq_jacobian_to_twist, sigmoid, smooth_max, smooth_min,
                    softclip, softmax, softplus, status_string, transition,
                    twist_jacobian_to_pq, version)
from ._ffi import broadcast_poses
from ._models import SDF, Grid, Mesh, MeshBVH, collision_mesh, curve_order, isosurface
from ._queries import (CONTACT_KINDS, DCOL_COINCIDENT, DCOL_DEGENERATE, DCOL_SMOOTHED, KINDS,
                       Body, Convex, DcolBatch, DcolResult, DcolWarmStart, Implicit, Manifold,
                       ManifoldBatch, RayHit, SdfFunction, SdfPairResult, dcol,
                       dcol_alpha_gradient, dcol_batch, dcol_parameter_gradient, dcol_settings,
                       manifold_collide, manifold_collide_batch, manifold_settings,
                       max_contacts, ray_intersect, ray_intersect_batch, ray_intersect_many,
                       ray_settings, sdf_pair_collide, sdf_pair_settings, sdf_scene_collide,
                       transform)

__version__ = version()
