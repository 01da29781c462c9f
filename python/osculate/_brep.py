"""Exact CAD solids in boundary representation (brep.h): builders, descriptions as NumPy tables,
STEP import, shells."""

import ctypes as C
import os
from dataclasses import dataclass

import numpy as np

from . import _ffi as F
from ._base import OK, check, error
from ._ffi import lib
from ._model import _create, _Model


def brep_settings(**settings):
    """The B-Rep settings as a dict, with overrides: alpha_max (0.5, the quasi-flat angle of a
    BVH leaf's normals, radians in (0, pi/2]), plane_cell (0.25, a planar face's cells as a
    fraction of its longer side), max_leaf_count (1000000: larger models raise CapacityError)."""
    return F.struct_dict(_brep_settings(settings))


def _brep_settings(kw):
    return F.settings(lib.osc_brep_settings_default(), kw, "brep")


def _profile(value, name="profile"):
    return F.array(value, np.float64, (-1, 2), name)


SURFACE_TYPES = ("plane", "cylinder", "cone", "sphere", "torus", "nurbs")  # osc_surface_type
TRIM_KINDS = ("line", "arc")  # osc_trim_kind
CURVE_TYPES = ("line", "circle", "nurbs")  # osc_curve_type


def _record_dtype(struct):
    """A NumPy structured dtype with the C layout of `struct`, Vec3 and fixed arrays as sub-arrays
    (origin [3], start [2], face [2]) instead of nested records."""
    names, formats, offsets = [], [], []
    for name, t in struct._fields_:
        if t is F.Vec3:
            fmt = (np.float64, (3,))
        elif issubclass(t, C.Array):
            fmt = (np.dtype(t._type_), (t._length_,))
        else:
            fmt = np.dtype(t)
        names.append(name)
        formats.append(fmt)
        offsets.append(getattr(struct, name).offset)
    dt = np.dtype({"names": names, "formats": formats, "offsets": offsets,
                   "itemsize": C.sizeof(struct)})
    assert dt.itemsize == C.sizeof(struct), struct
    return dt


SURFACE_DTYPE = _record_dtype(F.BrepSurface)
FACE_DTYPE = _record_dtype(F.BrepFace)
LOOP_DTYPE = _record_dtype(F.BrepLoop)
TRIM_DTYPE = _record_dtype(F.BrepTrim)
EDGE_DTYPE = _record_dtype(F.BrepEdge)

# table: (ctypes struct, dtype, defaults of the fields left out, enum columns)
_TABLES = {
    "surfaces": (F.BrepSurface, SURFACE_DTYPE, {"sense": 1}, {"type": SURFACE_TYPES}),
    "faces": (F.BrepFace, FACE_DTYPE, {}, {}),
    "loops": (F.BrepLoop, LOOP_DTYPE, {}, {}),
    "trims": (F.BrepTrim, TRIM_DTYPE, {}, {"kind": TRIM_KINDS}),
    "edges": (F.BrepEdge, EDGE_DTYPE, {"vertex": -1}, {"type": CURVE_TYPES}),
}


@dataclass
class BrepDescription:
    """A solid as plain arrays (osc_brep_desc), indices 0-based: surfaces, faces, loops, trims and
    edges are NumPy structured arrays of SURFACE_DTYPE, FACE_DTYPE, LOOP_DTYPE, TRIM_DTYPE and
    EDGE_DTYPE (the C records' fields; osc_vec3 and fixed arrays as sub-arrays, e.g.
    surfaces["origin"] is [n, 3], edges["face"] [n, 2]); vertices is [n, 3]. See brep.h for the
    parametrisations and docs/python.md."""

    surfaces: np.ndarray
    faces: np.ndarray
    loops: np.ndarray
    trims: np.ndarray
    edges: np.ndarray
    vertices: np.ndarray


def _enum_column(col, values, name):
    a = np.asarray(col)
    if a.dtype.kind in "UOS":
        return np.array([F.enum_value(dict(zip(values, range(len(values)))), v, name)
                         for v in a.ravel()], dtype=np.int32).reshape(a.shape)
    a = F.array(a, np.int32, a.shape, name) if a.dtype.kind in "iub" else None
    if a is None or np.any((a < 0) | (a >= len(values))):
        raise ValueError("%s must be one of %s (or 0 to %d)" % (name, ", ".join(values),
                                                                 len(values) - 1))
    return a


def _table(value, key):
    """A table of the description as a contiguous structured array of its record dtype, from a
    structured array, a dict of columns or a sequence of dicts (one per record)."""
    _, dt, defaults, enums = _TABLES[key]
    if value is None:
        return np.zeros(0, dtype=dt)
    if isinstance(value, np.ndarray) and value.dtype.names is not None:
        if value.ndim != 1:
            raise ValueError("%s must be one-dimensional, got shape %s" % (key, value.shape))
        rows = None
        columns = {n: value[n] for n in value.dtype.names}
    elif isinstance(value, dict):
        rows = None
        columns = value
    elif isinstance(value, (list, tuple)):
        rows = [dict(zip(r.dtype.names, r.tolist())) if isinstance(r, np.void) else r
                for r in value]
        if not all(isinstance(r, dict) for r in rows):
            raise ValueError("%s: a sequence must hold dicts of fields (or records)" % key)
        names = sorted({k for r in rows for k in r})
        columns = {}
        for k in names:  # a field left out of some rows takes its default there
            d = defaults.get(k, 0)
            columns[k] = [r.get(k, d if np.ndim(d) == 0 else d) for r in rows]
    else:
        raise ValueError("%s must be a structured array, a dict of columns or a list of dicts, "
                         "got %s" % (key, type(value).__name__))
    unknown = [k for k in columns if k not in dt.names]
    if unknown:
        raise ValueError("%s: unknown field %s (fields: %s)" % (key, unknown[0],
                                                                ", ".join(dt.names)))
    lengths = {k: len(np.atleast_1d(np.asarray(c, dtype=object if k in enums else None)))
               for k, c in columns.items()}
    n = len(rows) if rows is not None else (max(lengths.values()) if lengths else 0)
    out = np.zeros(n, dtype=dt)
    for k, d in defaults.items():
        out[k] = d
    for k, col in columns.items():
        name = "%s.%s" % (key, k)
        base, sub = dt.fields[k][0].base, dt.fields[k][0].shape
        if k in enums:
            a = _enum_column(col, enums[k], name)
            if a.shape != (n,):
                raise ValueError("%s must have shape (%d,), got %s" % (name, n, a.shape))
        else:
            a = F.array(col, base, (n,) + sub, name)
        out[k] = a
    return out


def _description_arrays(desc):
    if isinstance(desc, BrepDescription):
        desc = {k: getattr(desc, k) for k in ("surfaces", "faces", "loops", "trims", "edges",
                                               "vertices")}
    if not isinstance(desc, dict):
        raise ValueError("description must be a BrepDescription or a dict, got %s"
                         % type(desc).__name__)
    unknown = [k for k in desc if k not in _TABLES and k != "vertices"]
    if unknown:
        raise ValueError("description: unknown table %s (tables: %s, vertices)"
                         % (unknown[0], ", ".join(_TABLES)))
    tables = {k: _table(desc.get(k), k) for k in _TABLES}
    v = desc.get("vertices")
    tables["vertices"] = (np.zeros((0, 3)) if v is None
                          else F.array(v, np.float64, (-1, 3), "vertices"))
    for k, a in tables.items():
        F.rows(a, k)
    return tables


def _desc_struct(t):
    d = F.BrepDesc()
    for k, (struct, _, _, _) in _TABLES.items():
        setattr(d, k, t[k].ctypes.data_as(C.POINTER(struct)))
        setattr(d, k[:-1] + "_count", len(t[k]))
    d.vertices = t["vertices"].ctypes.data_as(C.POINTER(F.Vec3))
    d.vertex_count = len(t["vertices"])
    return d


def _copy_table(pointer, count, dtype):
    if count <= 0:
        return np.zeros(0, dtype=dtype)
    raw = C.string_at(C.cast(pointer, C.c_void_p), count * dtype.itemsize)
    return np.frombuffer(raw, dtype=dtype).copy()


def _surface(surface):
    """A surface record (an element of BrepDescription.surfaces, or a dict of its fields) as a
    one-record array and the osc_brep_surface pointer to it."""
    if isinstance(surface, np.void) and surface.dtype.names is not None:
        surface = dict(zip(surface.dtype.names, surface.tolist()))
    if not isinstance(surface, dict):
        raise ValueError("surface must be a record of BrepDescription.surfaces or a dict, got %s"
                         % type(surface).__name__)
    rec = _table([surface], "surfaces")
    return rec, rec.ctypes.data_as(C.POINTER(F.BrepSurface))


def surface_point(surface, u, v):
    """The point at parameters (u, v) of a surface record (an element of
    BrepDescription.surfaces or a dict of its fields) and the solid's outward unit normal there
    (the natural normal times `sense`): (point [3], normal [3]) (osc_brep_surface_point)."""
    rec, sp = _surface(surface)
    n = F.Vec3()
    p = lib.osc_brep_surface_point(sp, float(u), float(v), C.byref(n))
    return F.from_vec3(p), F.from_vec3(n)


def project(surface, x):
    """The parameters uv [2] of the closest point to x [3] on the untrimmed surface (a surface
    record as for surface_point) and ok: False at a degenerate point (on a cylinder's axis, a
    sphere's centre) (osc_brep_project)."""
    rec, sp = _surface(surface)
    uv = np.zeros(2)
    ok = lib.osc_brep_project(sp, F.vec3(x, "x"), F.ptr(uv))
    return uv, bool(ok)


@dataclass(frozen=True, eq=False)
class BrepShell:
    """One shell of a Brep (osc_brep_shell): a closed set of faces with their edges and vertices,
    consecutive in the description. `faces`, `edges`, `vertices` are the ranges of their indices
    in Brep.description()'s tables. A solid built from a description or by a builder is one shell;
    a STEP import has one per placed solid, in the order of the file's assembly structure, and
    then `placement` [7] is that solid's own frame in the model's (its geometry in the model is
    the file's, scaled by `scale` from the solid's length unit to the model's, then moved by the
    placement), `solid_id` the entity id of its MANIFOLD_SOLID_BREP (#id), `depth` the number of
    placements between the file's top representation and the solid (0: not in an assembly) and
    `name` the name of the PRODUCT holding it (else the solid's own). Otherwise the placement is
    the identity, the scale 1, solid_id and depth 0 and the name ""."""

    faces: range
    edges: range
    vertices: range
    placement: np.ndarray
    scale: float
    solid_id: int
    depth: int
    name: str

    @classmethod
    def _from_c(cls, s):
        p = s.placement
        return cls(faces=range(s.face_begin, s.face_begin + s.face_count),
                   edges=range(s.edge_begin, s.edge_begin + s.edge_count),
                   vertices=range(s.vertex_begin, s.vertex_begin + s.vertex_count),
                   placement=np.array([p.p.x, p.p.y, p.p.z, p.q.w, p.q.x, p.q.y, p.q.z]),
                   scale=s.scale, solid_id=s.solid_id, depth=s.depth,
                   name=s.name.decode(errors="replace"))


class Brep(_Model):
    """An immutable B-Rep solid with its BVH (osc_brep): faces on planes, cylinders, cones,
    spheres and tori, trimmed by exact loops, in one or more shells (Brep.shells). Build with the
    class methods (each canonical solid centred on its body frame, axis of revolution along +z)
    or import every solid of a STEP file, placed where its assembly structure puts it
    (Brep.load_step, Brep.read_step; Brep.shell(i) takes one part apart). Every constructor takes
    the settings of brep_settings() as keyword arguments. Released by close() or when
    garbage-collected; thread-safe to query."""

    _destroy = lib.osc_brep_destroy

    def __init__(self, handle, import_report=None):
        super().__init__(handle)
        self.import_report = import_report  # what load_step / read_step read; None otherwise

    @classmethod
    def box(cls, half_extents, **settings):
        """A box with half extents [3] (all > 0): 6 planar faces, 12 edges, 8 vertices."""
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_box, F.vec3(half_extents, "half_extents"),
                           C.byref(s)))

    @classmethod
    def cylinder(cls, radius, half_length, **settings):
        """A cylinder of `radius` from z = -half_length to +half_length."""
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_cylinder, float(radius), float(half_length),
                           C.byref(s)))

    @classmethod
    def cone(cls, radius_bottom, radius_top, half_length, **settings):
        """A cone frustum from radius_bottom at z = -half_length to radius_top at +half_length
        (both > 0: an apex is not supported, truncate it)."""
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_cone, float(radius_bottom), float(radius_top),
                           float(half_length), C.byref(s)))

    @classmethod
    def sphere(cls, radius, **settings):
        """A sphere of `radius` (one face, no edges)."""
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_sphere, float(radius), C.byref(s)))

    @classmethod
    def revolved(cls, profile, **settings):
        """A solid of revolution about z from a profile [n, 2] of (r, z) points (n >= 2, r >= 0,
        consecutive points distinct) that starts and ends on the axis or is closed by discs;
        each segment becomes a disc or annulus, a cylinder or a cone. A cylinder is the profile
        (0, -h), (R, -h), (R, h), (0, h)."""
        p = _profile(profile)
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_revolved, F.ptr(p), F.rows(p, "profile"),
                           C.byref(s)))

    @classmethod
    def block_with_hole(cls, half_extents, profile, **settings):
        """A box of half extents [3] with a blind hole of revolution opening in its top face
        (z = half_extents[2]): the wall follows profile [n, 2] of (r, z) points from the top
        (r_0 > 0, z_0 = half_extents[2]) down to the bottom, which ends on the axis or is closed
        by a disc. The hole's faces are concave."""
        p = _profile(profile)
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_block_with_hole,
                           F.vec3(half_extents, "half_extents"), F.ptr(p),
                           F.rows(p, "profile"), C.byref(s)))

    @classmethod
    def from_description(cls, description, **settings):
        """A solid from its plain arrays (osc_brep_create; the arrays are copied): a
        BrepDescription, or a dict with the tables surfaces, faces, loops, trims, edges
        (each a structured array, a dict of columns or a list of dicts of fields; tables left
        out are empty) and vertices [n, 3]. Fields left out are 0, except surfaces' sense (1) and
        edges' vertex ([-1, -1]); type and kind columns also take the names of SURFACE_TYPES,
        TRIM_KINDS and CURVE_TYPES. ValueError (InvalidArgumentError) naming the first bad
        entity, e.g. "surfaces[0].radius2"."""
        t = _description_arrays(description)
        d = _desc_struct(t)
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create, C.byref(d), C.byref(s)))

    def description(self):
        """A copy of the solid's description as a BrepDescription (osc_brep_description);
        Brep.from_description(b.description()) rebuilds the same solid."""
        d = lib.osc_brep_description(self).contents
        out = {k: _copy_table(getattr(d, k), getattr(d, k[:-1] + "_count"), dt)
               for k, (_, dt, _, _) in _TABLES.items()}
        out["vertices"] = _copy_table(d.vertices, d.vertex_count,
                                      np.dtype((np.float64, (3,)))).reshape(-1, 3)
        return BrepDescription(**out)

    def face_contains(self, face, u, v):
        """True when (u, v) lies in the solid domain of `face` (inside its parameter box and its
        loops by the even-odd rule; periodic parameters are wrapped first)
        (osc_brep_face_contains). ValueError for a face index out of range."""
        n = self.info["face_count"]
        face = F.integer(face, "face")
        if not 0 <= face < n:
            raise ValueError("face_contains: face must be an index in [0, %d), got %r"
                             % (n, face))
        return bool(lib.osc_brep_face_contains(self, face, float(u), float(v)))

    @classmethod
    def read_step(cls, data, skip_unsupported=False, **settings):
        """Every solid of a STEP (ISO 10303-21) text given as bytes or str, placed where the
        file's assembly structure puts it (placements of products, mapped items), in one model
        with a shell per placed solid (Brep.shells), in the length unit of the file's top
        representation. Faces or edges on unsupported geometry (B-splines, NURBS), and solids that
        cannot be placed (a mirroring placement), raise UnsupportedError naming
        the entity unless skip_unsupported=True, which drops them and counts them in
        `import_report`, a dict: solids (solid entities in the file), faces_read,
        faces_imported, faces_unsupported, edges_imported, edges_unsupported, first_unsupported
        ("#123 CURVE_BOUNDED_SURFACE" or ""), length_unit (metres per unit of the model,
        0 when the file does not say), instances (placed solids found: a solid used twice is two
        instances), instances_imported (the model's shells), instances_skipped (placed solids
        left out, only with skip_unsupported) and first_skipped (the first of them, "#33
        BREP_WITH_VOIDS: ..." or ""). Malformed text or a cyclic assembly raises ParseError with
        the line or a relationship of the cycle; more than 100000 placed solids CapacityError. A
        raised error carries the report as `.report`."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        elif isinstance(data, (bytearray, memoryview)):
            data = bytes(data)
        elif not isinstance(data, bytes):
            raise ValueError("read_step: data must be bytes or str, got %s" % type(data).__name__)
        s = _brep_settings(settings)
        return cls._import(lib.osc_brep_read_step, data, len(data), int(bool(skip_unsupported)),
                           C.byref(s))

    @classmethod
    def load_step(cls, path, skip_unsupported=False, **settings):
        """Brep.read_step on the file at `path` (OsculateIOError, an OSError, when it cannot be
        read)."""
        s = _brep_settings(settings)
        return cls._import(lib.osc_brep_load_step, os.fsencode(path), int(bool(skip_unsupported)),
                           C.byref(s))

    @classmethod
    def _import(cls, fn, *args):
        report = F.BrepImportReport()
        out = C.c_void_p()
        status = fn(*args, C.byref(out), C.byref(report))
        if status != OK:
            e = error(status)
            e.report = F.struct_dict(report)
            raise e
        return cls(out.value, F.struct_dict(report))

    @property
    def info(self):
        """A dict of counts: face_count, edge_count, vertex_count, convex_edge_count,
        concave_edge_count, smooth_edge_count, leaf_count and node_count of the BVH, and the
        body-frame bounding box lo, hi [3] (osc_brep_get_info)."""
        i = F.BrepInfo()
        check(lib.osc_brep_get_info(self, C.byref(i)))
        return F.struct_dict(i)

    @property
    def face_count(self):
        """The number of faces (info["face_count"])."""
        return self.info["face_count"]

    @property
    def shells(self):
        """The shells of the solid, a list of BrepShell (osc_brep_get_shell): one for a solid
        from a builder or a description, one per placed solid of a STEP import."""
        out = []
        for i in range(lib.osc_brep_shell_count(self)):
            s = F.BrepShell()
            check(lib.osc_brep_get_shell(self, i, C.byref(s)))
            out.append(BrepShell._from_c(s))
        return out

    def shell(self, index, **settings):
        """A new Brep of shell `index` alone (its faces, edges and vertices, in this model's
        frame, keeping its BrepShell fields), so that the parts of an assembly can be moved and
        queried apart (osc_brep_create_from_shell). Takes the settings of brep_settings().
        ValueError (InvalidArgumentError) for an index outside [0, len(self.shells))."""
        s = _brep_settings(settings)
        return Brep(_create(lib.osc_brep_create_from_shell, self, F.integer(index, "index"),
                            C.byref(s)))
