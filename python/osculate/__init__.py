"""osculate: smoothly differentiable collision detection (Python binding of the C library).

Shapes and models: SDF, Mesh, MeshBVH, Grid, Body, Convex, Implicit, Brep. Queries: dcol,
dcol_batch, dcol_alpha_gradient, dcol_parameter_gradient, manifold_collide,
manifold_collide_batch, sdf_pair_collide, sdf_pair_collide_batch, sdf_scene_collide, ray_intersect,
ray_intersect_many, ray_intersect_batch, lmd (with LmdCache), lmd_batch. Forces: contact_forces
(the wrenches of a compliant contact model over any query's contacts, with their Jacobians).
Every pair query takes (a, pose_a, b, pose_b, ...) and reports a signed distance (negative:
penetration) with a normal from A to B (docs/api.md). Poses are [7] arrays (px, py, pz, qw, qx,
qy, qz), world-from-body, the quaternion scalar first (pose_from_matrix,
pose_from_position_quaternion); pose Jacobians have 12 columns along the left twists (dp, dtheta)
of A then B (pair_jacobian_to_pq / pair_jacobian_to_twist convert to and from raw pose columns).
Autodiff: osculate.jax and osculate.torch (imported on demand). Guide: docs/python.md.
"""

from ._base import (CapacityError, InvalidArgumentError, NotConvergedError, OsculateError,
                    OsculateIOError, OsculateMemoryError, ParseError, UnsupportedError,
                    default_thread_count, status_string, version)
from ._brep import (CURVE_TYPES, SURFACE_TYPES, TRIM_KINDS, Brep, BrepDescription, BrepShell,
                    brep_settings, project, surface_point)
from ._convex import KINDS, Convex
from ._dcol import (DCOL_COINCIDENT, DCOL_DEGENERATE, DCOL_SMOOTHED, DcolBatch, DcolResult,
                    DcolWarmStart, dcol, dcol_alpha_gradient, dcol_batch, dcol_parameter_gradient,
                    dcol_settings)
from ._ffi import broadcast_poses
from ._force import ContactForces, ForceContacts, contact_forces, force_contacts, force_settings
from ._grid import Grid, collision_mesh
from ._implicit import Implicit, transform
from ._isosurface import isosurface
from ._lmd import (FEATURE_KINDS, LMD_CONFORMAL, LmdBatch, LmdCache, LmdContacts, lmd, lmd_batch,
                   lmd_settings)
from ._manifold import (CONTACT_KINDS, Body, Manifold, ManifoldBatch, manifold_collide,
                        manifold_collide_batch, manifold_settings, max_contacts)
from ._mesh import Mesh, MeshBVH, curve_order
from ._pose import (apply_twist, axis_angle_quaternion, pair_jacobian_to_pq,
                    pair_jacobian_to_twist, pose, pose_from_matrix, pose_from_position_quaternion,
                    pq_jacobian_to_twist, twist_jacobian_to_pq)
from ._ray import RayHit, ray_intersect, ray_intersect_batch, ray_intersect_many, ray_settings
from ._sdf import SDF
from ._sdf_pair import (SdfFunction, SdfPairBatch, SdfPairResult, sdf_pair_collide,
                        sdf_pair_collide_batch, sdf_pair_settings, sdf_scene_collide)
from ._smooth import (logsumexp, mollified_depth, sigmoid, smooth_max, smooth_min, softclip,
                      softmax, softplus, transition)

__version__ = version()
