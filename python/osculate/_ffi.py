"""ctypes declarations of the C API (include/osculate/*.h) and the shims (python/src/osculate_py.c,
python/src/found_rows.c).

Everything here mirrors a header one to one: structs with the same fields in the same order,
functions with the same arguments. ctypes.CDLL releases the GIL for the duration of every call.
"""

import ctypes as C
import operator
import os
import re
import types

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))


def _load():
    override = os.environ.get("OSCULATE_LIBRARY")
    for path in ([override] if override else []) + [os.path.join(_here, "_osculate.so")]:
        if path and os.path.exists(path):
            with _sleeping_openmp_threads():
                library = C.CDLL(path)
                library.osc_default_thread_count()  # an OpenMP runtime that reads its settings late
                return library
    raise ImportError(
        "osculate: the native library _osculate.so is missing next to %s; install the package with "
        "`pip install ./python` from the repository root" % _here
    )


class _sleeping_openmp_threads:
    """OMP_WAIT_POLICY=passive while the native library and its OpenMP runtime load and start,
    unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT: the runtime reads them once, and by
    default its idle threads spin for milliseconds after every batch, taking a core from the
    caller (docs/python.md, Threads and environment variables). The environment is restored
    afterwards, so that OpenMP runtimes loaded later (another package's) keep their defaults."""

    def __enter__(self):
        self.set = "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ
        if self.set:
            os.environ["OMP_WAIT_POLICY"] = "passive"

    def __exit__(self, *exception):
        if self.set:
            os.environ.pop("OMP_WAIT_POLICY", None)
        return False


_cdll = _load()

D = C.c_double
I = C.c_int
I32 = C.c_int32
I64 = C.c_int64
SZ = C.c_size_t
P = C.c_void_p
DP = C.POINTER(C.c_double)
IP = C.POINTER(C.c_int)
I32P = C.POINTER(C.c_int32)


class Vec3(C.Structure):
    _fields_ = [("x", D), ("y", D), ("z", D)]


class Quat(C.Structure):
    _fields_ = [("w", D), ("x", D), ("y", D), ("z", D)]


class Mat3(C.Structure):
    _fields_ = [("m", D * 9)]


class Pose(C.Structure):
    _fields_ = [("p", Vec3), ("q", Quat)]


# ------------------------------------------------------------------------------------------------
# sdf.h


class Plane(C.Structure):
    _fields_ = [("normal", Vec3), ("offset", D)]


class Profile(C.Structure):
    _fields_ = [("start", D), ("control", D), ("end", D)]


class PlaneProfile(C.Structure):
    _fields_ = [("start", Plane), ("control", Plane), ("end", Plane)]


class XpsqDesc(C.Structure):
    _fields_ = [
        ("control_points", Vec3 * 3),
        ("frame", I),
        ("binormal", Vec3),
        ("rotation_start", Quat),
        ("rotation_end", Quat),
        ("scale", Profile * 3),
        ("exponent", Profile * 2),
        ("planes", C.POINTER(PlaneProfile)),
        ("plane_count", I),
        ("plane_temperature", D),
        ("discriminant_temperature", D),
        ("root_temperature", D),
        ("blend_temperature", D),
    ]


# ------------------------------------------------------------------------------------------------
# mesh.h, grid.h, isosurface.h


class MeshTopology(C.Structure):
    _fields_ = [
        ("vertex_count", I32), ("triangle_count", I32), ("edge_count", I32),
        ("boundary_edges", I32), ("non_manifold_edges", I32), ("inconsistent_edges", I32),
        ("isolated_vertices", I32), ("degenerate_triangles", I32), ("components", I32),
        ("closed", I32), ("euler_characteristic", I32),
    ]


class MeshOrientation(C.Structure):
    _fields_ = [("patches", I32), ("closed_patches", I32), ("boundary_edges", I32),
                ("non_manifold_edges", I32), ("inconsistent_edges", I32),
                ("non_orientable_patches", I32), ("flat_patches", I32), ("inverted_patches", I32),
                ("triangles_flipped", I32), ("sign_reliable", I32), ("volume", D)]


class MeshLoadSettings(C.Structure):
    _booleans_ = ("keep_unreferenced", "orient")  # C booleans: settings() also takes bools
    _fields_ = [("format", I), ("weld_tolerance", D), ("degenerate", I),
                ("keep_unreferenced", I32), ("max_coordinate", D), ("orient", I32)]


class MeshLoadReport(C.Structure):
    _fields_ = [("format", I), ("binary", I32), ("vertices_read", I64), ("faces_read", I64),
                ("vertices_welded", I32), ("vertices_unreferenced", I32), ("faces_dropped", I32),
                ("polygons_triangulated", I32), ("orientation", MeshOrientation)]


class MeshClosest(C.Structure):
    _fields_ = [("point", Vec3), ("distance", D), ("triangle", I32), ("feature", I),
                ("feature_index", I32), ("barycentric", D * 3)]


class MeshSimplifySettings(C.Structure):
    _fields_ = [("target_triangles", I32), ("max_error", D), ("min_angle", D),
                ("weld_tolerance", D)]


class GridSettings(C.Structure):
    _fields_ = [("resolution", I), ("padding", D), ("normal_epsilon", D), ("threads", I)]


class CollisionMeshSettings(C.Structure):
    _fields_ = [("resolution", I), ("target_triangles", I32), ("max_error", D),
                ("project_iterations", I), ("threads", I)]


class IsosurfaceSettings(C.Structure):
    _fields_ = [("lo", Vec3), ("hi", Vec3), ("padding", D), ("resolution", I),
                ("iso_value", D), ("threads", I)]


# ------------------------------------------------------------------------------------------------
# manifold.h


class BodyDesc(C.Structure):
    _fields_ = [
        ("mesh", P), ("grid", P), ("sdf", P), ("groups", I), ("vertex_groups", I32P),
        ("edge_groups", I32P), ("group_count", I32), ("curve", I),
        ("broad_phase_resolution", I), ("broad_phase_padding", D), ("surface_tolerance", D),
    ]


class ManifoldSettings(C.Structure):
    _booleans_ = ("blend", "broad_phase", "edges", "blend_saturated")
    _fields_ = [
        ("d_max", D), ("bandwidth", D), ("trace_temperature", D), ("clip_temperature", D),
        ("blend_temperature", D), ("iterations", I), ("blend", I), ("broad_phase", I),
        ("edges", I), ("blend_saturated", I),
    ]


class ManifoldContact(C.Structure):
    _fields_ = [
        ("point", Vec3), ("distance", D), ("normal", Vec3), ("weight", D),
        ("jacobian_a", D * 18), ("jacobian_b", D * 18),
        ("feature", I32), ("kind", I32), ("body", I32), ("group", I32),
    ]


class ManifoldOutput(C.Structure):
    _fields_ = [
        ("contacts", C.POINTER(ManifoldContact)), ("capacity", I32), ("count", I32),
        ("needed", I32), ("point_jacobians", DP), ("distance_jacobians", DP),
        ("normal_jacobians", DP), ("weight_jacobians", DP),
    ]


class ManifoldBatchItem(C.Structure):
    _fields_ = [("a", P), ("pose_a", Pose), ("b", P), ("pose_b", Pose)]


# ------------------------------------------------------------------------------------------------
# convex.h, dcol.h


class DcolSettings(C.Structure):
    _fields_ = [("tolerance", D), ("max_iterations", I), ("regularization", D)]


class DcolWarmStart(C.Structure):
    _fields_ = [("valid", I), ("variables", I), ("solution", D * 8)]


class DcolResult(C.Structure):
    _fields_ = [("alpha", D), ("point", Vec3), ("point_a", Vec3), ("point_b", Vec3),
                ("distance", D), ("normal", Vec3), ("iterations", I), ("flags", I)]


class DcolJacobians(C.Structure):
    _fields_ = [("alpha", DP), ("point", DP), ("point_a", DP), ("point_b", DP),
                ("distance", DP), ("normal", DP)]


class DcolJacobiansAddress(C.Structure):
    """osc_dcol_jacobians with the pointers as plain addresses (same layout)."""
    _c_name_ = "osc_dcol_jacobians"
    _fields_ = [(name, P) for name, _ in DcolJacobians._fields_]


class DcolBatchItem(C.Structure):
    _fields_ = [("a", P), ("pose_a", Pose), ("b", P), ("pose_b", Pose), ("warm", P)]


# ------------------------------------------------------------------------------------------------
# sdf_pair.h

SdfFunction = C.CFUNCTYPE(D, P, DP, DP)


class SdfShape(C.Structure):
    _fields_ = [("sdf", P), ("function", SdfFunction), ("context", P), ("lo", Vec3),
                ("hi", Vec3), ("lipschitz", D)]


class SdfPairSettings(C.Structure):
    _booleans_ = ("first_only",)
    _fields_ = [("resolution", I), ("epsilon", D), ("step", D), ("max_iterations", I),
                ("first_only", I), ("merge_distance", D), ("temperature", D)]


class SdfPairContact(C.Structure):
    _fields_ = [("point", Vec3), ("distance", D), ("normal", Vec3), ("iterations", I32),
                ("smooth", I32)]


class SdfPairOutput(C.Structure):
    _fields_ = [("contacts", C.POINTER(SdfPairContact)), ("capacity", I32), ("count", I32),
                ("needed", I32), ("point_jacobians", DP), ("distance_jacobians", DP),
                ("boxes_overlap", I32), ("spheres", I32), ("survivors", I32)]


class SdfPairBatchItem(C.Structure):
    _fields_ = [("a", C.POINTER(SdfShape)), ("pose_a", Pose), ("b", C.POINTER(SdfShape)),
                ("pose_b", Pose)]


class SdfSceneBody(C.Structure):
    _fields_ = [("shape", C.POINTER(SdfShape)), ("pose", Pose)]


class SdfScenePair(C.Structure):
    _fields_ = [("a", I32), ("b", I32), ("first_contact", I32), ("contact_count", I32),
                ("status", I)]


class SdfSceneOutput(C.Structure):
    _fields_ = [("pairs", C.POINTER(SdfScenePair)), ("capacity", I32), ("count", I32),
                ("needed", I32), ("contacts", C.POINTER(SdfPairContact)),
                ("contacts_per_pair", I32)]


# ------------------------------------------------------------------------------------------------
# implicit.h, ray.h

ImplicitFunction = C.CFUNCTYPE(D, P, DP, DP)


class Sag(C.Structure):
    _fields_ = [("curvature", D), ("conic", D), ("coefficient_count", I),
                ("coefficients", D * 8), ("diameter", D)]


class ImplicitTransform(C.Structure):
    _fields_ = [("anchor", Vec3), ("scale", D), ("rotation", Quat), ("translation", Vec3)]


class RayPhase(C.Structure):
    _fields_ = [("algorithm", I), ("iterations", I), ("damping", D), ("max_step", D)]


class RaySettings(C.Structure):
    _booleans_ = ("analytic_conics",)
    _fields_ = [("init", I), ("beams", I), ("coarse", RayPhase), ("fine", RayPhase),
                ("final_step", RayPhase), ("tolerance", D), ("analytic_conics", I)]


class Ray(C.Structure):
    _fields_ = [("origin", Vec3), ("direction", Vec3)]


class RayHit(C.Structure):
    _fields_ = [("t", D), ("point", Vec3), ("normal", Vec3), ("hit", I), ("grazing", I),
                ("iterations", I)]


class RayJacobians(C.Structure):
    _fields_ = [(name, DP) for name in (
        "t_origin", "t_direction", "point_origin", "point_direction", "normal_origin",
        "normal_direction", "t_surface_pose", "t_parameters", "point_surface_pose",
        "normal_surface_pose", "point_parameters", "normal_parameters", "t_anchor", "t_scale")]


# ------------------------------------------------------------------------------------------------
# brep.h, lmd.h


class BrepSettings(C.Structure):
    _fields_ = [("alpha_max", D), ("plane_cell", D), ("max_leaf_count", I)]


class BrepInfo(C.Structure):
    _fields_ = [("face_count", I), ("edge_count", I), ("vertex_count", I),
                ("convex_edge_count", I), ("concave_edge_count", I), ("smooth_edge_count", I),
                ("leaf_count", I), ("node_count", I), ("lo", Vec3), ("hi", Vec3)]


class BrepSurface(C.Structure):
    _fields_ = [("type", I), ("origin", Vec3), ("axis", Vec3), ("ref", Vec3), ("radius", D),
                ("radius2", D), ("angle", D), ("sense", I), ("nurbs", I)]


class BrepTrim(C.Structure):
    _fields_ = [("kind", I), ("start", D * 2), ("end", D * 2), ("center", D * 2), ("radius", D),
                ("angle0", D), ("sweep", D)]


class BrepLoop(C.Structure):
    _fields_ = [("trim_begin", I), ("trim_count", I)]


class BrepFace(C.Structure):
    _fields_ = [("surface", I), ("loop_begin", I), ("loop_count", I), ("umin", D), ("umax", D),
                ("vmin", D), ("vmax", D)]


class BrepEdge(C.Structure):
    _fields_ = [("type", I), ("origin", Vec3), ("axis", Vec3), ("ref", Vec3), ("radius", D),
                ("t0", D), ("t1", D), ("face", I * 2), ("vertex", I * 2), ("nurbs", I)]


class BrepNurbs(C.Structure):
    _fields_ = [("degree", I * 2), ("count", I * 2), ("knot_begin", I), ("point_begin", I),
                ("weight_begin", I)]


class BrepDesc(C.Structure):
    _fields_ = [("surfaces", C.POINTER(BrepSurface)), ("surface_count", I),
                ("faces", C.POINTER(BrepFace)), ("face_count", I),
                ("loops", C.POINTER(BrepLoop)), ("loop_count", I),
                ("trims", C.POINTER(BrepTrim)), ("trim_count", I),
                ("edges", C.POINTER(BrepEdge)), ("edge_count", I),
                ("vertices", C.POINTER(Vec3)), ("vertex_count", I),
                ("nurbs", C.POINTER(BrepNurbs)), ("nurbs_count", I),
                ("control_points", C.POINTER(Vec3)), ("control_point_count", I),
                ("reals", C.POINTER(D)), ("real_count", I)]


class BrepShell(C.Structure):
    _fields_ = [("face_begin", I), ("face_count", I), ("edge_begin", I), ("edge_count", I),
                ("vertex_begin", I), ("vertex_count", I), ("placement", Pose), ("scale", D),
                ("solid_id", C.c_longlong), ("depth", I), ("name", C.c_char * 64)]


class BrepImportReport(C.Structure):
    _fields_ = [("solids", I), ("faces_read", I), ("faces_imported", I),
                ("faces_unsupported", I), ("edges_imported", I), ("edges_unsupported", I),
                ("first_unsupported", C.c_char * 96), ("length_unit", D), ("instances", I),
                ("instances_imported", I), ("instances_skipped", I),
                ("first_skipped", C.c_char * 96)]


class LmdSettings(C.Structure):
    _booleans_ = ("culling",)
    _fields_ = [("d_max", D), ("eps_a", D), ("eps_b", D), ("alpha", D),
                ("conformal_samples", I), ("culling", I)]


class LmdContact(C.Structure):
    _fields_ = [("point_a", Vec3), ("point_b", Vec3), ("distance", D), ("normal", Vec3),
                ("param_a", D * 2), ("param_b", D * 2), ("kind_a", I), ("kind_b", I),
                ("feature_a", I32), ("feature_b", I32), ("key", C.c_uint64), ("flags", I32)]


class LmdOutput(C.Structure):
    _fields_ = [("contacts", C.POINTER(LmdContact)), ("capacity", I32), ("count", I32),
                ("needed", I32), ("distance_jacobians", DP), ("skipped_faces", I32)]


class LmdBatchItem(C.Structure):
    _fields_ = [("a", P), ("pose_a", Pose), ("b", P), ("pose_b", Pose), ("cache", P)]


class LmdStats(C.Structure):
    _fields_ = [("front_size", I), ("culling_tests", I), ("leaf_pairs", I),
                ("newton_iterations", I), ("warm_starts", I), ("searches", I)]


# ------------------------------------------------------------------------------------------------
# force.h


class ForceContact(C.Structure):
    _fields_ = [("point", Vec3), ("normal", Vec3), ("distance", D), ("weight", D),
                ("point_jacobian", DP), ("normal_jacobian", DP), ("distance_jacobian", DP),
                ("weight_jacobian", DP)]


class BodyVelocity(C.Structure):
    _fields_ = [("linear", Vec3), ("angular", Vec3)]


class ForceSettings(C.Structure):
    _fields_ = [("stiffness", D), ("exponent", D), ("damping", D), ("friction", D),
                ("friction_velocity", D), ("depth_temperature", D), ("damping_temperature", D)]


class ForceContactResult(C.Structure):
    _fields_ = [("normal_force", D), ("penetration_rate", D), ("slip_velocity", Vec3),
                ("force", Vec3)]


class ForceOutput(C.Structure):
    _fields_ = [("contacts", C.POINTER(ForceContactResult)), ("wrench_a", D * 6),
                ("wrench_b", D * 6), ("pose_jacobian", DP), ("velocity_jacobian", DP)]


# ------------------------------------------------------------------------------------------------
# prototypes: name -> (restype, argtypes)

PS = C.POINTER(P)  # an out-pointer to an opaque model
ST = I  # osc_status

_prototypes = {
    # base.h
    "osc_version": (I, []),
    "osc_version_string": (C.c_char_p, []),
    "osc_status_string": (C.c_char_p, [I]),
    "osc_last_error": (C.c_char_p, []),
    "osc_clear_error": (None, []),
    "osc_default_thread_count": (I, []),
    # sdf.h
    "osc_xpsq_desc_default": (XpsqDesc, []),
    "osc_sdf_create_sphere": (ST, [D, PS]),
    "osc_sdf_create_box": (ST, [Vec3, D, PS]),
    "osc_sdf_create_capsule": (ST, [D, D, PS]),
    "osc_sdf_create_cylinder": (ST, [D, D, PS]),
    "osc_sdf_create_cone": (ST, [D, D, D, PS]),
    "osc_sdf_create_menger": (ST, [D, I, PS]),
    "osc_sdf_create_torus": (ST, [D, D, PS]),
    "osc_sdf_create_halfspace": (ST, [Vec3, D, PS]),
    "osc_sdf_create_ellipsoid": (ST, [Vec3, PS]),
    "osc_sdf_create_superquadric": (ST, [Vec3, D, D, PS]),
    "osc_sdf_create_psq": (ST, [Vec3, D, D, C.POINTER(Plane), I, D, PS]),
    "osc_sdf_create_xpsq": (ST, [C.POINTER(XpsqDesc), PS]),
    "osc_sdf_create_union": (ST, [PS, I, D, PS]),
    "osc_sdf_create_intersection": (ST, [PS, I, D, PS]),
    "osc_sdf_create_subtraction": (ST, [P, P, D, PS]),
    "osc_sdf_create_transformed": (ST, [P, Pose, D, PS]),
    "osc_sdf_create_offset": (ST, [P, D, PS]),
    "osc_sdf_destroy": (None, [P]),
    "osc_sdf_eval": (D, [P, Vec3, C.POINTER(Vec3), C.POINTER(Mat3)]),
    "osc_sdf_eval_batch": (ST, [P, DP, SZ, DP, DP, DP, I]),
    "osc_sdf_bounds": (None, [P, C.POINTER(Vec3), C.POINTER(Vec3)]),
    "osc_sdf_lipschitz": (D, [P]),
    "osc_sdf_lipschitz_is_bound": (I, [P]),
    "osc_sdf_leaf_count": (I, [P]),
    "osc_sdf_eval_leaf": (D, [P, I, Vec3, C.POINTER(Vec3), C.POINTER(Mat3)]),
    # mesh.h
    "osc_mesh_create": (ST, [DP, I32, I32P, I32, PS]),
    "osc_mesh_destroy": (None, [P]),
    "osc_mesh_vertex_count": (I32, [P]),
    "osc_mesh_triangle_count": (I32, [P]),
    "osc_mesh_vertices": (DP, [P]),
    "osc_mesh_triangles": (I32P, [P]),
    "osc_mesh_volume": (D, [P]),
    "osc_mesh_area": (D, [P]),
    "osc_mesh_write_obj": (ST, [P, C.c_char_p]),
    "osc_mesh_edge_count": (I32, [P]),
    "osc_mesh_edges": (I32P, [P]),
    "osc_mesh_edge_triangles": (I32P, [P]),
    "osc_mesh_get_topology": (None, [P, C.POINTER(MeshTopology)]),
    "osc_mesh_get_orientation": (ST, [P, C.POINTER(MeshOrientation)]),
    "osc_mesh_orient": (ST, [P, PS, C.POINTER(MeshOrientation)]),
    "osc_mesh_load_settings_default": (MeshLoadSettings, []),
    "osc_mesh_load": (ST, [C.c_char_p, C.POINTER(MeshLoadSettings), PS, C.POINTER(MeshLoadReport)]),
    "osc_mesh_load_memory": (ST, [C.c_char_p, SZ, C.POINTER(MeshLoadSettings), PS,
                                  C.POINTER(MeshLoadReport)]),
    "osc_mesh_bvh_create": (ST, [P, PS]),
    "osc_mesh_bvh_destroy": (None, [P]),
    "osc_mesh_bvh_closest": (D, [P, Vec3, C.POINTER(MeshClosest)]),
    "osc_mesh_bvh_winding_number": (D, [P, Vec3, D]),
    "osc_mesh_bvh_signed_distance": (D, [P, Vec3, C.POINTER(MeshClosest)]),
    "osc_mesh_bvh_signed_distance_batch": (ST, [P, DP, SZ, DP, DP, I]),
    "osc_mesh_bvh_bounds": (None, [P, C.POINTER(Vec3), C.POINTER(Vec3)]),
    "osc_mesh_simplify_settings_default": (MeshSimplifySettings, []),
    "osc_mesh_simplify": (ST, [P, C.POINTER(MeshSimplifySettings), PS, DP]),
    "osc_curve_order": (ST, [DP, I32, I, I32P]),
    "osc_mesh_reorder": (ST, [P, I, PS, I32P, I32P]),
    "osc_mesh_groups_from_hulls": (ST, [P, PS, I32, I32P]),
    "osc_mesh_groups_cluster": (ST, [P, I32, I32P, I32P]),
    "osc_mesh_edge_groups": (ST, [P, I32P, I32P]),
    # isosurface.h
    "osc_isosurface_settings_default": (IsosurfaceSettings, []),
    "osc_isosurface_extract": (ST, [P, C.POINTER(IsosurfaceSettings), PS]),
    # grid.h
    "osc_grid_settings_default": (GridSettings, []),
    "osc_grid_create_from_mesh": (ST, [P, C.POINTER(GridSettings), PS]),
    "osc_grid_create_from_sdf": (ST, [P, C.POINTER(GridSettings), PS]),
    "osc_grid_destroy": (None, [P]),
    "osc_grid_eval": (D, [P, Vec3, C.POINTER(Vec3), C.POINTER(Mat3)]),
    "osc_grid_eval_normal": (Vec3, [P, Vec3, C.POINTER(Mat3)]),
    "osc_grid_eval_batch": (ST, [P, DP, SZ, DP, DP, DP, I]),
    "osc_grid_bounds": (None, [P, C.POINTER(Vec3), C.POINTER(Vec3)]),
    "osc_grid_cells": (D, [P, IP]),
    "osc_grid_lower_bound": (D, [P, Vec3, DP, DP]),
    "osc_grid_lipschitz": (D, [P]),
    "osc_grid_to_sdf": (ST, [P, PS]),
    "osc_grid_save": (ST, [P, C.c_char_p]),
    "osc_grid_load": (ST, [C.c_char_p, PS]),
    "osc_grid_load_memory": (ST, [C.c_char_p, SZ, PS]),
    "osc_collision_mesh_settings_default": (CollisionMeshSettings, []),
    "osc_collision_mesh_create": (ST, [P, C.POINTER(CollisionMeshSettings), PS]),
    # manifold.h
    "osc_body_desc_default": (BodyDesc, []),
    "osc_body_create": (ST, [C.POINTER(BodyDesc), PS]),
    "osc_body_destroy": (None, [P]),
    "osc_body_vertex_count": (I32, [P]),
    "osc_body_edge_count": (I32, [P]),
    "osc_body_group_count": (I32, [P]),
    "osc_body_vertex_groups": (None, [P, I32P]),
    "osc_manifold_settings_default": (ManifoldSettings, []),
    "osc_manifold_settings_for_size": (ManifoldSettings, [D]),
    "osc_manifold_max_contacts": (I32, [P, P, C.POINTER(ManifoldSettings)]),
    "osc_manifold_collide": (ST, [P, Pose, P, Pose, C.POINTER(ManifoldSettings), P]),
    "osc_manifold_collide_batch": (ST, [P, SZ, C.POINTER(ManifoldSettings), P, P, I]),
    # convex.h
    "osc_convex_create_polytope": (ST, [DP, DP, I, PS]),
    "osc_convex_create_hull": (ST, [DP, I, PS]),
    "osc_convex_create_hull_bounded": (ST, [DP, I, I, DP, PS]),
    "osc_convex_create_box": (ST, [Vec3, PS]),
    "osc_convex_create_capsule": (ST, [D, D, PS]),
    "osc_convex_create_cylinder": (ST, [D, D, PS]),
    "osc_convex_create_cone": (ST, [D, D, PS]),
    "osc_convex_create_ellipsoid": (ST, [Vec3, PS]),
    "osc_convex_create_sphere": (ST, [D, PS]),
    "osc_convex_create_polygon": (ST, [DP, DP, I, D, PS]),
    "osc_convex_destroy": (None, [P]),
    "osc_convex_get_kind": (I, [P]),
    "osc_convex_kind_name": (C.c_char_p, [I]),
    "osc_convex_bounding_radius": (D, [P]),
    "osc_convex_face_count": (I, [P]),
    "osc_convex_vertex_count": (I, [P]),
    "osc_convex_vertices": (I, [P, DP, I]),
    "osc_convex_support": (Vec3, [P, Pose, Vec3]),
    "osc_convex_gauge": (D, [P, Vec3]),
    # dcol.h
    "osc_dcol_settings_default": (DcolSettings, []),
    # result and jacobians by address (the single-pair fast path of dcol() passes NumPy buffers)
    "osc_dcol_proximity": (ST, [P, Pose, P, Pose, C.POINTER(DcolSettings), P, P,
                                C.POINTER(DcolWarmStart)]),
    "osc_dcol_alpha_gradient": (ST, [P, Pose, P, Pose, C.POINTER(DcolSettings), DP, DP]),
    "osc_dcol_parameter_count": (I, [P]),
    "osc_dcol_alpha_parameter_gradient": (ST, [P, Pose, P, Pose, C.POINTER(DcolSettings), DP, DP,
                                               DP]),
    "osc_dcol_proximity_batch": (ST, [P, SZ, C.POINTER(DcolSettings), P, P, P, I]),
    # sdf_pair.h
    "osc_sdf_pair_settings_default": (SdfPairSettings, []),
    "osc_sdf_pair_collide": (ST, [C.POINTER(SdfShape), Pose, C.POINTER(SdfShape), Pose,
                                  C.POINTER(SdfPairSettings), C.POINTER(SdfPairOutput)]),
    "osc_sdf_pair_collide_batch": (ST, [P, SZ, C.POINTER(SdfPairSettings), P, P, I]),
    "osc_sdf_scene_workspace_size": (SZ, [SZ]),
    "osc_sdf_scene_collide": (ST, [P, SZ, C.POINTER(SdfPairSettings), C.POINTER(SdfSceneOutput),
                                   P, I]),
    # implicit.h
    "osc_implicit_create_sag": (ST, [C.POINTER(Sag), PS]),
    "osc_implicit_create_sdf": (ST, [P, PS]),
    "osc_implicit_create_function": (ST, [ImplicitFunction, P, Vec3, D, PS]),
    "osc_implicit_destroy": (None, [P]),
    "osc_implicit_eval": (D, [P, Vec3, C.POINTER(Vec3), C.POINTER(Mat3)]),
    "osc_implicit_in_domain": (I, [P, Vec3]),
    "osc_implicit_sag": (D, [P, D, DP]),
    "osc_implicit_bounding_sphere": (None, [P, C.POINTER(Vec3), DP]),
    # ray.h
    "osc_implicit_transform_identity": (ImplicitTransform, []),
    "osc_ray_settings_default": (RaySettings, []),
    "osc_ray_intersect": (ST, [P, C.POINTER(ImplicitTransform), Ray, C.POINTER(RaySettings),
                               C.POINTER(RayHit), C.POINTER(RayJacobians)]),
    "osc_ray_intersect_batch": (ST, [P, C.POINTER(ImplicitTransform), P, SZ,
                                     C.POINTER(RaySettings), P, P, I]),
    # brep.h
    "osc_brep_settings_default": (BrepSettings, []),
    "osc_brep_destroy": (None, [P]),
    "osc_brep_get_info": (ST, [P, C.POINTER(BrepInfo)]),
    "osc_brep_create": (ST, [C.POINTER(BrepDesc), C.POINTER(BrepSettings), PS]),
    "osc_brep_description": (C.POINTER(BrepDesc), [P]),
    "osc_brep_project": (I, [C.POINTER(BrepSurface), Vec3, DP]),
    "osc_brep_surface_point": (Vec3, [C.POINTER(BrepSurface), D, D, C.POINTER(Vec3)]),
    "osc_brep_face_contains": (I, [P, I, D, D]),
    "osc_brep_create_box": (ST, [Vec3, C.POINTER(BrepSettings), PS]),
    "osc_brep_create_revolved": (ST, [DP, I, C.POINTER(BrepSettings), PS]),
    "osc_brep_create_cylinder": (ST, [D, D, C.POINTER(BrepSettings), PS]),
    "osc_brep_create_cone": (ST, [D, D, D, C.POINTER(BrepSettings), PS]),
    "osc_brep_create_sphere": (ST, [D, C.POINTER(BrepSettings), PS]),
    "osc_brep_create_block_with_hole": (ST, [Vec3, DP, I, C.POINTER(BrepSettings), PS]),
    "osc_brep_shell_count": (I, [P]),
    "osc_brep_skipped_face_count": (I, [P]),
    "osc_brep_get_skipped_face": (ST, [P, I, C.POINTER(Vec3), C.POINTER(Vec3), C.POINTER(I)]),
    "osc_brep_get_shell": (ST, [P, I, C.POINTER(BrepShell)]),
    "osc_brep_create_from_shell": (ST, [P, I, C.POINTER(BrepSettings), PS]),
    "osc_brep_read_step": (ST, [C.c_char_p, SZ, I, C.POINTER(BrepSettings), PS,
                                C.POINTER(BrepImportReport)]),
    "osc_brep_load_step": (ST, [C.c_char_p, I, C.POINTER(BrepSettings), PS,
                                C.POINTER(BrepImportReport)]),
    # lmd.h
    "osc_lmd_settings_default": (LmdSettings, []),
    "osc_lmd_cache_create": (ST, [PS]),
    "osc_lmd_cache_destroy": (None, [P]),
    "osc_lmd_cache_reset": (None, [P]),
    "osc_lmd_cache_stats": (ST, [P, C.POINTER(LmdStats)]),
    "osc_lmd_query": (ST, [P, Pose, P, Pose, C.POINTER(LmdSettings), P, C.POINTER(LmdOutput), I]),
    "osc_lmd_query_batch": (ST, [P, SZ, C.POINTER(LmdSettings), P, P, I]),
    # force.h (contacts by address: the package passes a NumPy array of osc_force_contact)
    "osc_force_settings_default": (ForceSettings, []),
    "osc_force_evaluate": (ST, [P, I32, Pose, BodyVelocity, Pose, BodyVelocity,
                                C.POINTER(ForceSettings), C.POINTER(ForceOutput)]),
    "osc_force_contact_from_manifold": (ForceContact, [C.POINTER(ManifoldOutput), I32]),
    "osc_force_contact_from_dcol": (ForceContact, [C.POINTER(DcolResult),
                                                   C.POINTER(DcolJacobians)]),
    "osc_force_contact_from_sdf_pair": (ForceContact, [C.POINTER(SdfPairOutput), I32]),
    "osc_force_contact_from_lmd": (ForceContact, [C.POINTER(LmdOutput), I32]),
    # python/src/osculate_py.c
    "oscpy_struct_size": (SZ, [C.c_char_p]),
    "oscpy_layout_row": (SZ, [SZ, C.POINTER(C.c_char_p), C.POINTER(C.c_char_p), C.POINTER(SZ)]),
    "oscpy_smooth_elementwise": (I, [I, DP, SZ, D, D, D, DP, DP, DP]),
    "oscpy_smooth_max": (None, [DP, DP, SZ, D, I, DP, DP, DP]),
    "oscpy_logsumexp": (None, [DP, SZ, I, D, DP, DP, DP]),
    "oscpy_softmax": (None, [DP, SZ, I, D, DP, DP]),
    "oscpy_twist_jacobian_to_pq": (SZ, [DP, SZ, I, DP, DP]),
    "oscpy_pose_apply_twist": (None, [DP, DP, SZ, DP]),
    "oscpy_ray_intersect_many": (ST, [P, C.POINTER(ImplicitTransform), SZ, DP, DP,
                                      C.POINTER(RaySettings), C.POINTER(RayHit),
                                      C.POINTER(RayJacobians), I, IP]),
    "oscpy_ref_create": (P, [P, P, C.POINTER(P), I]),
    "oscpy_ref_acquire": (None, [P]),
    "oscpy_ref_release": (None, [P]),
    # python/src/found_rows.c
    "oscpy_found_transpose": (None, [DP, I32P, DP, SZ, SZ, SZ, SZ, DP]),
}



class _Function:
    """A C function with its prototype. ctypes hides what went wrong with an argument in an
    ArgumentError; the argument whose _as_parameter_ raises (a closed model) raises its own
    exception instead. `c_function` is the bare ctypes function (for its address)."""

    __slots__ = ("c_function",)

    def __init__(self, name, restype, argtypes):
        self.c_function = getattr(_cdll, name)
        self.c_function.restype = restype
        self.c_function.argtypes = argtypes

    def __call__(self, *args):
        try:
            return self.c_function(*args)
        except C.ArgumentError:
            for a in args:
                getattr(a, "_as_parameter_", None)
            raise


lib = types.SimpleNamespace(**{name: _Function(name, restype, argtypes)
                               for name, (restype, argtypes) in _prototypes.items()})


def c_struct_name(cls):
    """The C name of a mirrored struct: class SdfPairContact mirrors osc_sdf_pair_contact (or its
    `_c_name_`)."""
    return getattr(cls, "_c_name_", None) or \
        "osc" + re.sub(r"([A-Z])", r"_\1", cls.__name__).lower()


def mirrored_structs():
    """Every ctypes Structure of this module that mirrors a C struct: {C name: class}, several
    classes per C name where one is mirrored twice (osc_dcol_jacobians)."""
    out = {}
    for cls in list(globals().values()):
        if isinstance(cls, type) and issubclass(cls, C.Structure) and cls is not C.Structure:
            out.setdefault(c_struct_name(cls), []).append(cls)
    return out


def _check_layouts():
    """Every struct mirrored here (class DcolWarmStart for osc_dcol_warm_start, ...) must have its
    C size: a header changed without _ffi.py would have the library write past Python's buffers.
    ImportError naming the structs that differ."""
    wrong = []
    for name, cls in list(globals().items()):
        if not (isinstance(cls, type) and issubclass(cls, C.Structure)):
            continue
        c_name = c_struct_name(cls)
        size = lib.oscpy_struct_size(c_name.encode())
        if size != C.sizeof(cls):
            wrong.append("%s (C: %d bytes, _ffi.py: %d)" % (c_name, size, C.sizeof(cls)))
    if wrong:
        raise ImportError("osculate: python/osculate/_ffi.py does not match the library's "
                          "headers: " + ", ".join(wrong))


_check_layouts()


def c_layouts():
    """The library's layout table (python/src/osculate_py.c): {C struct name: (size, {field:
    offset})}."""
    out = {}
    t, f, v = C.c_char_p(), C.c_char_p(), SZ()
    n = lib.oscpy_layout_row(0, C.byref(t), C.byref(f), C.byref(v))
    for i in range(n):
        lib.oscpy_layout_row(i, C.byref(t), C.byref(f), C.byref(v))
        size, fields = out.setdefault(t.value.decode(), (None, {}))
        if f.value is None:
            out[t.value.decode()] = (v.value, fields)
        else:
            fields[f.value.decode()] = v.value
    return out


# ------------------------------------------------------------------------------------------------
# marshalling helpers


def ptr(array):
    """The data pointer of a C-contiguous float64 array (or None) as double*."""
    if array is None:
        return None
    return array.ctypes.data_as(DP)


def iptr(array, ctype=I32P):
    if array is None:
        return None
    return array.ctypes.data_as(ctype)


def vaddr(array):
    return None if array is None else array.ctypes.data


def floats(value, name):
    """`value` as a C-contiguous float64 array: the one way a float array reaches C. It takes real
    numbers (floats and integers, any byte order and layout); ValueError naming `name` for complex
    numbers (whose imaginary part a cast would drop), bools, strings, dates, records and ragged
    lists."""
    try:
        a = np.asarray(value)
        if a.dtype.kind not in "fiu" and (a.dtype.kind != "O" or not all(
                isinstance(v, (float, int, np.floating, np.integer)) and
                not isinstance(v, (bool, np.bool_)) for v in a.flat)):
            raise TypeError("dtype %s is not a real number" % a.dtype)
        return np.asarray(a, dtype=np.float64, order="C")
    except (TypeError, ValueError) as e:
        raise ValueError("%s must hold real numbers: %s" % (name, e)) from None


def vec3(value, name="vector"):
    a = floats(value, name)
    if a.shape != (3,):
        raise ValueError("%s must have shape (3,), got %s" % (name, a.shape))
    return Vec3(float(a[0]), float(a[1]), float(a[2]))


def quat(value, name="quaternion"):
    a = floats(value, name)
    if a.shape != (4,):
        raise ValueError("%s must have shape (4,) (w, x, y, z), got %s" % (name, a.shape))
    return Quat(*(float(v) for v in a))


def pose(value, name="pose"):
    """A pose (px, py, pz, qw, qx, qy, qz) as osc_pose; None is the identity."""
    if value is None:
        return Pose(Vec3(0, 0, 0), Quat(1, 0, 0, 0))
    if type(value) is np.ndarray and value.dtype == np.float64 and value.shape == (7,) \
            and value.flags.c_contiguous:
        return Pose.from_buffer_copy(value)
    a = floats(value, name)
    if a.shape != (7,):
        raise ValueError("%s must have shape (7,) (px, py, pz, qw, qx, qy, qz), got %s"
                         % (name, a.shape))
    return Pose(Vec3(a[0], a[1], a[2]), Quat(a[3], a[4], a[5], a[6]))


def from_vec3(v):
    return np.array([v.x, v.y, v.z])


def _limits(ctype):
    bits = 8 * C.sizeof(ctype)
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ctype(-1).value < 0 else (0, (1 << bits) - 1)


_LIMITS = {t: _limits(t) for t in (C.c_int, C.c_int32, C.c_int64, C.c_size_t)}


class IntegerTypeError(TypeError, ValueError):
    """Not an integer where C takes one (also a ValueError, as bad arguments are)."""


class IntegerOverflowError(OverflowError, ValueError):
    """An integer that does not fit the C type it goes to (also a ValueError)."""


def integer(value, name, ctype=I):
    """`value` as a Python int for a C integer of type `ctype` (int by default): the one way an
    integer argument or setting reaches C (ctypes would wrap 2**32 + 3 to 3). IntegerTypeError
    naming `name` for what is not an integer (a bool, a float, a string, None),
    IntegerOverflowError naming it when it does not fit."""
    if isinstance(value, (bool, np.bool_)):
        raise IntegerTypeError("%s must be an integer, got the bool %r" % (name, value))
    try:
        v = operator.index(value)
    except TypeError:
        raise IntegerTypeError("%s must be an integer, got %r" % (name, value)) from None
    lo, hi = _LIMITS[ctype]
    if not lo <= v <= hi:
        raise IntegerOverflowError("%s = %d does not fit in a C %s (%d to %d)"
                                   % (name, v, ctype.__name__[2:], lo, hi))
    return v


def rows(a, name, ctype=I):
    """The number of rows of array `a` for a C count of type `ctype` (IntegerOverflowError
    beyond it)."""
    return integer(len(a), "%s: the number of rows" % name, ctype)


def _integers(value, dtype, name):
    """`value` as an array that converts to the integer `dtype` exactly: IntegerOverflowError for
    a value out of its range, ValueError for non-integral or NaN floats and for what is not a
    number."""
    try:
        a = np.asarray(value)
    except (TypeError, ValueError) as e:
        raise ValueError("%s must hold integers: %s" % (name, e)) from None
    python_ints = a.dtype.kind == "O" and all(type(v) is int for v in a.flat)  # beyond int64
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.round(a))
        if bad.any():
            raise ValueError("%s must hold integers, got %r" % (name, a[bad].flat[0]))
    elif a.dtype.kind not in "iu" and not python_ints and a.size:
        raise ValueError("%s must hold integers, got dtype %s" % (name, a.dtype))
    info = np.iinfo(dtype)
    out = np.asarray((a < info.min) | (a > info.max), dtype=bool)
    if a.size and out.any():
        raise IntegerOverflowError("%s: %d does not fit in %s" % (name, a[out].flat[0],
                                                                  np.dtype(dtype).name))
    return a.astype(dtype)


def array(value, dtype, shape, name):
    """A C-contiguous copy-if-needed of `value` with `dtype` and `shape` (-1: any length); an
    integer `dtype` takes only values that fit it exactly (_integers)."""
    if np.issubdtype(dtype, np.integer):
        a = np.ascontiguousarray(_integers(value, dtype, name))
    else:
        a = floats(value, name)
    if a.ndim != len(shape) or any(s != -1 and s != n for s, n in zip(shape, a.shape)):
        want = str(tuple("N" if s == -1 else s for s in shape)).replace("'", "")
        raise ValueError("%s must have shape %s, got %s" % (name, want, a.shape))
    return a


def points(value, name="points"):
    """Points as a C-contiguous [N, 3] float64 array; a single point [3] gives (array, True)."""
    a = floats(value, name)
    if a.shape == (3,):
        return a.reshape(1, 3), True
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError("%s must have shape (3,) or (N, 3), got %s" % (name, a.shape))
    return a, False


def poses(value, name="poses"):
    """Poses as a C-contiguous [N, 7] float64 array; a single pose [7] gives (array, True)."""
    a = floats(value, name)
    if a.shape == (7,):
        return a.reshape(1, 7), True
    if a.ndim != 2 or a.shape[1] != 7:
        raise ValueError("%s must have shape (7,) or (N, 7), got %s" % (name, a.shape))
    return a, False


def settings(struct_default, overrides, what, enums=None):
    """A settings struct from its C default with keyword overrides; unknown names raise TypeError."""
    s = struct_default
    names = [f[0] for f in type(s)._fields_]
    for key, value in overrides.items():
        if key not in names:
            raise TypeError("%s: unknown setting %r (known: %s)" % (what, key, ", ".join(names)))
        if enums and key in enums:
            value = enum_value(enums[key], value, key)
        field_type = dict(type(s)._fields_)[key]
        if field_type is Vec3:
            value = vec3(value, key)
        elif field_type in (I, I32):
            if key in getattr(type(s), "_booleans_", ()) and isinstance(value, (bool, np.bool_)):
                value = int(value)
            value = integer(value, "%s: setting %s" % (what, key), field_type)
        elif field_type is D:
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ValueError("%s: setting %s must be a number, got %r" % (what, key, value))
        setattr(s, key, value)
    return s


def struct_dict(s):
    """A struct as a dict: vectors as arrays, nested structs as dicts, char arrays as str."""
    out = {}
    for name, t in type(s)._fields_:
        v = getattr(s, name)
        if isinstance(v, Vec3):
            v = from_vec3(v)
        elif isinstance(v, C.Structure):
            v = struct_dict(v)
        elif isinstance(v, bytes):
            v = v.decode(errors="replace")
        out[name] = v
    return out


def enum_value(table, value, name):
    if isinstance(value, str):
        key = value.lower()
        if key not in table:
            raise ValueError("%s must be one of %s, got %r" % (name, ", ".join(table), value))
        return table[key]
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and \
            int(value) in table.values():
        return int(value)
    raise ValueError("%s must be one of %s, got %r" % (name, ", ".join(table), value))


_FLAT = {"Vec3": 3, "Quat": 4, "Pose": 7}


def _np_format(t):
    if isinstance(t, type) and issubclass(t, (C._Pointer, C._CFuncPtr)) or \
            t in (C.c_void_p, C.c_char_p):
        return np.uintp
    if isinstance(t, type) and issubclass(t, C.Structure):
        if t.__name__ in _FLAT:
            return (np.float64, (_FLAT[t.__name__],))
        return as_dtype(t)
    if isinstance(t, type) and issubclass(t, C.Array):
        inner = _np_format(t._type_)
        if isinstance(inner, tuple):
            return (inner[0], (t._length_,) + inner[1])
        return (inner, (t._length_,))
    return np.dtype(t)


def as_dtype(struct):
    """The NumPy record dtype of a mirrored struct, with its C offsets and size: pointers as
    uintp, osc_vec3 / osc_quat / osc_pose fields as float64 [3] / [4] / [7] (x, y, z; w, x, y, z;
    p, q), nested structs as records, arrays as subarrays."""
    names = [name for name, _ in struct._fields_]
    dt = np.dtype(dict(names=names, formats=[_np_format(t) for _, t in struct._fields_],
                       offsets=[getattr(struct, name).offset for name in names],
                       itemsize=C.sizeof(struct)))
    assert dt.itemsize == C.sizeof(struct), struct
    return dt


def broadcast_poses(pose_a, pose_b, where, max_batch_ndim=None, names=("pose_a", "pose_b")):
    """The batch rule of every pair query that takes many poses (NumPy, JAX and PyTorch alike):
    pose_a and pose_b are [..., 7] and broadcast against each other as NumPy broadcasts (a single
    pose against many, [N, 7] against [N, 7], [N, 1, 7] against [M, 7] ...). Returns (pa, pb,
    batch): both as C-contiguous [prod(batch), 7] float64 arrays, and the broadcast batch shape.
    ValueError naming `where` for other shapes, or a batch of more than max_batch_ndim axes, and
    naming the argument (`names`) for what is not an array of real numbers."""
    pa = floats(pose_a, names[0])
    pb = floats(pose_b, names[1])
    if pa.shape[-1:] != (7,) or pb.shape[-1:] != (7,):
        raise ValueError("%s: poses must have shape (..., 7), got %s and %s"
                         % (where, pa.shape, pb.shape))
    try:
        batch = np.broadcast_shapes(pa.shape[:-1], pb.shape[:-1])
    except ValueError:
        raise ValueError("%s: poses must have shapes that broadcast against each other, got %s "
                         "and %s" % (where, pa.shape, pb.shape)) from None
    if max_batch_ndim is not None and len(batch) > max_batch_ndim:
        raise ValueError("%s: poses must have shape (7,) or (N, 7), got %s and %s"
                         % (where, pa.shape, pb.shape))
    pa = np.ascontiguousarray(np.broadcast_to(pa, batch + (7,)).reshape(-1, 7))
    pb = np.ascontiguousarray(np.broadcast_to(pb, batch + (7,)).reshape(-1, 7))
    return pa, pb, batch


def models(value, n, cls, name):
    """One model or a sequence of n (the models of a batch's slots): (handles [n] uintp, the
    models to keep alive). ValueError naming `name` for another type, a length that differs from
    n, or a closed model."""
    if isinstance(value, cls):
        return np.full(n, value._as_parameter_, dtype=np.uintp), (value,)
    try:
        items = value if isinstance(value, (list, tuple)) else list(value)
    except TypeError:
        raise ValueError("%s must be a %s or a sequence of them, got %r"
                         % (name, cls.__name__, value)) from None
    if len(items) != n:
        raise ValueError("%s: %d models for %d poses" % (name, len(items), n))
    for m in items:
        if not isinstance(m, cls):
            raise ValueError("%s must be a %s or a sequence of them, got %r"
                             % (name, cls.__name__, m))
    handles = np.fromiter((m._handle or 0 for m in items), dtype=np.uintp, count=n)
    if not handles.all():
        raise ValueError("%s: a %s is closed" % (name, cls.__name__))
    return handles, tuple(items)


def model_of(keep, i):
    """The model of slot i among `keep`, the models that models() returned for a batch."""
    return keep[0] if len(keep) == 1 else keep[i]


def pointers_into(array, n):
    """Addresses of n equal blocks of `array` (None: zeros): block i of array [n, ...]."""
    if array is None:
        return 0
    step = array.nbytes // n if n else 0
    return array.ctypes.data + np.arange(n, dtype=np.uint64) * np.uint64(step)
