"""A random-argument fuzzer of the Python API: every entry point that takes arrays or numbers is
called with valid arguments and with broken ones (wrong shapes, wrong dtypes, non-contiguous,
byte-swapped and read-only arrays, NaN and infinities, empty and absurdly large arrays, numbers
of the wrong type or out of range, closed models). It checks that

- nothing crashes or hangs (a child interpreter runs the calls; faulthandler names the call that
  crashed or ran past the time limit, and the driver goes on with the next one),
- every refusal is a clear exception: ValueError, TypeError, OverflowError, MemoryError,
  NotImplementedError or an osculate error, never an AttributeError, IndexError, ctypes error,
  a NumPy warning turned error (a complex array cast to float), ...,
- arrays that differ only in layout (strided, Fortran-ordered, reversed, byte-swapped, float32 or
  integer values that are exact in float64) give the answer of the contiguous float64 array bit
  for bit, and finite valid input gives no NaN where the answer is documented to be finite.

    python fuzz_api.py --calls N [--seed S] [--timeout SECONDS]   (driver: restarts after crashes)
prints one line per problem and a closing summary; exits 1 when it found any.
tests/test_fuzz.py runs it briefly; run it longer by hand.
"""

import argparse
import faulthandler
import json
import os
import subprocess
import sys
import time
import traceback
import warnings

import numpy as np

CLEAR = (ValueError, TypeError, OverflowError, MemoryError, NotImplementedError, RuntimeError)


class Args:
    """Random arguments: mostly valid, sometimes broken in one of many ways."""

    def __init__(self, rng, p_bad, replaying=False):
        self.rng = rng
        self.p_bad = p_bad
        self.layout = None  # the canonical array of a layout-only change, when one was made
        self.replaying = replaying  # draw the same, but return the canonical array instead

    def bad(self):
        return self.rng.random() < self.p_bad

    def pick(self, options):
        return options[self.rng.integers(len(options))]

    # arrays ------------------------------------------------------------------------------------

    def array(self, valid, allow_layout=True):
        """`valid` (a float64 array), or with probability p_bad a broken or re-laid-out copy."""
        if not self.bad():
            return valid
        kind = self.pick(("shape", "dtype", "layout", "layout", "nan", "empty", "absurd",
                          "garbage"))
        if kind == "layout" and allow_layout and self.layout is None:
            out = self._relayout(valid)
            self.layout = valid
            return valid if self.replaying else out
        if kind == "shape":
            return self.pick((valid[..., :-1] if valid.ndim else valid[None],
                              valid.reshape(-1) if valid.ndim > 1 else valid[None, None],
                              np.concatenate([valid, valid], axis=-1) if valid.ndim else valid,
                              valid[None], valid.T if valid.ndim > 1 else valid, valid.ravel()[:1],
                              np.zeros((2, 2, 2, 2))))
        if kind == "dtype":
            return self.pick((valid.astype(np.complex128) + 1j, valid.astype(bool),
                              valid.astype(str), valid.astype(object), np.full(valid.shape, "x"),
                              np.zeros(valid.shape, "datetime64[s]"),
                              np.zeros(valid.shape, [("a", "f8")])))
        if kind == "nan":
            out = valid.copy()
            if out.size:
                out.flat[self.rng.integers(out.size)] = self.pick((np.nan, np.inf, -np.inf,
                                                                   1e308, -1e308, 1e-320))
            return out
        if kind == "empty":
            return valid[:0] if valid.ndim else np.zeros(0)
        if kind == "absurd":  # a view of terabytes: converting it must fail cleanly
            shape = (2**38,) + valid.shape[1:] if valid.ndim else (2**40,)
            return np.broadcast_to(valid.reshape(-1)[:1].reshape((1,) * len(shape)) if valid.size
                                   else np.zeros((1,) * len(shape)), shape)
        return self.pick((None, "abc", 3, 2.5, {}, object(), [[1, 2], [3]], b"\x00" * 8))

    def numeric(self, valid):
        """`valid`, or with probability p_bad a float64 array of another shape, with NaN or
        infinities, or empty (what a tensor library can hold)."""
        if not self.bad():
            return valid
        out = np.array(self.array(valid, allow_layout=False))
        return out if out.dtype == np.float64 and out.size < 10**6 else valid[:0]

    def _relayout(self, valid):
        """The same values in another memory layout or an exact dtype."""
        v = np.asarray(valid, dtype=np.float64)
        options = ["reversed", "swapped", "readonly"]
        if v.ndim >= 1 and v.size:
            options += ["strided"]
        if v.ndim >= 2:
            options += ["fortran"]
        if np.all(v == v.astype(np.float32)):
            options += ["float32"]
        if np.all(np.isfinite(v)) and np.all(v == np.round(v)) and np.all(np.abs(v) < 2**31):
            options += ["int"]
        how = self.pick(options)
        if how == "strided":
            big = np.repeat(v, 2, axis=0)
            return big[::2]
        if how == "fortran":
            return np.asfortranarray(v)
        if how == "reversed":
            return v[::-1][::-1] if v.ndim else v
        if how == "swapped":
            return v.astype(v.dtype.newbyteorder(">"))
        if how == "readonly":
            out = v.copy()
            out.flags.writeable = False
            return out
        if how == "float32":
            return v.astype(np.float32)
        return v.astype(np.int64)

    def points(self, n=None):
        n = int(self.rng.integers(1, 40)) if n is None else n
        return self.array(self.rng.normal(size=(n, 3)))

    def point(self):
        return self.array(self.rng.normal(size=3))

    def pose(self, scale=1.0):
        q = self.rng.normal(size=4)
        p = np.concatenate([self.rng.normal(size=3) * scale, q / np.linalg.norm(q)])
        return self.array(p)

    def poses(self, n):
        q = self.rng.normal(size=(n, 4))
        p = np.concatenate([self.rng.normal(size=(n, 3)), q / np.linalg.norm(q, axis=1)[:, None]],
                           axis=1)
        return self.array(p)

    # numbers -----------------------------------------------------------------------------------

    def real(self, lo, hi):
        if not self.bad():
            return float(self.rng.uniform(lo, hi))
        return self.pick((np.nan, np.inf, -np.inf, 0.0, -1.0, 1e308, -1e308, 1e-320, 2**64,
                          True, None, "1", [1.0], np.array([1.0, 2.0]), complex(1, 1)))

    def integer(self, lo, hi):
        if not self.bad():
            return int(self.rng.integers(lo, hi + 1))
        return self.pick((-1, 0, 2**31, 2**32 + 3, -(2**63), 2**70, 10**6, True, 2.5, 3.0,
                          np.float64(2.0), None, "3", np.int8(-5), np.uint64(2**64 - 1)))

    def threads(self):
        return self.integer(0, 4) if self.bad() else self.pick((0, 1, 2, 100000))

    def flag(self):
        return bool(self.rng.integers(2))


def models(osc):
    """The valid models the entry points take, built once."""
    m = {}
    m["sdf"] = osc.SDF.union([osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.6])],
                             temperature=0.05)
    m["mesh"] = osc.collision_mesh(osc.SDF.sphere(0.5), resolution=16, target_triangles=120)
    m["bvh"] = m["mesh"].bvh()
    m["grid"] = osc.Grid.from_sdf(osc.SDF.sphere(0.5), resolution=12)
    m["body"] = osc.Body(m["mesh"], sdf=osc.SDF.sphere(0.5))
    m["convex"] = [osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4),
                   osc.Convex.sphere(0.4), osc.Convex.cone(np.tan(0.4), 0.5),
                   osc.Convex.cylinder(0.3, 0.3)]
    m["lens"] = osc.Implicit.sag(0.5, diameter=1.0, conic=-0.5)
    m["implicit"] = osc.Implicit.from_sdf(osc.SDF.sphere(0.5))
    m["breps"] = [osc.Brep.box([1.0, 1.0, 0.5]), osc.Brep.sphere(0.3),
                  osc.Brep.cylinder(0.3, 0.4)]
    m["cache"] = osc.LmdCache()
    closed = osc.SDF.sphere(1.0)
    getattr(closed, "close", closed.__del__)()
    m["closed"] = closed
    return m


def entries(osc):
    """(name, call(args, models), layout_checked): the entry points. A call returns what to
    compare when `layout_checked` and args.layout is set (the same call with the canonical
    array must give it bit for bit)."""

    def sdf_eval(a, m):
        return m["sdf"].eval(a.points(), gradient=a.flag(), hessian=a.flag(), threads=a.threads())

    def grid_eval(a, m):
        return m["grid"].eval(a.points(), gradient=a.flag(), normal=a.flag(),
                              threads=a.threads())

    def signed_distance(a, m):
        return m["bvh"].signed_distance(a.points(), closest_points=a.flag(), threads=a.threads())

    def closest(a, m):
        return m["bvh"].closest(a.points())

    def winding(a, m):
        return m["bvh"].winding_number(a.points(), beta=a.real(1.0, 3.0))

    def dcol(a, m):
        return osc.dcol(a.pick(m["convex"]), a.pose(0.1), a.pick(m["convex"]), a.pose(2.0),
                        derivatives=a.flag())

    def dcol_batch(a, m):
        n = int(a.rng.integers(0, 30))
        return osc.dcol_batch(a.pick(m["convex"]), a.pose(0.1), a.pick(m["convex"]),
                              a.poses(n), derivatives=a.flag(), threads=a.threads(),
                              check_status=a.flag())

    def dcol_gradients(a, m):
        f = a.pick((osc.dcol_alpha_gradient, osc.dcol_parameter_gradient))
        return f(a.pick(m["convex"]), a.pose(), a.pick(m["convex"]), a.pose(2.0))

    def convex_builders(a, m):
        k = a.rng.integers(6)
        if k == 0:
            return osc.Convex.polytope(a.array(np.vstack([np.eye(3), -np.eye(3)])),
                                       a.array(np.full(6, 0.5))).vertices
        if k == 1:
            return osc.Convex.ellipsoid(a.array(np.array([0.5, 1.0, np.sqrt(0.5)]))).bounding_radius
        if k == 2:
            return osc.Convex.polygon(a.array(np.array([[1.0, 0], [0, 1], [-1, 0], [0, -1]])),
                                      a.array(np.full(4, 0.5)), a.real(0.01, 0.5)).vertices
        if k == 3:
            return osc.Convex.box(a.array(np.array([0.5, 0.4, 0.3]))).face_count
        if k == 4:
            c = a.pick(m["convex"])
            return c.support(a.pose(), a.point()), c.gauge(a.point())
        return osc.Convex.hull(a.points(12)).vertices

    def manifold(a, m):
        return osc.manifold_collide(m["body"], a.pose(0.05), m["body"],
                                    a.array(np.array([0.95, 0.05, 0.0, 1.0, 0, 0, 0])),
                                    derivatives=a.flag(), capacity=a.pick((None, a.integer(
                                        1, 200))))

    def manifold_batch(a, m):
        n = int(a.rng.integers(0, 6))
        pb = np.tile([0.95, 0.05, 0.0, 1.0, 0, 0, 0], (n, 1))
        return osc.manifold_collide_batch(m["body"], a.array(np.tile(osc.pose(), (n, 1))),
                                          m["body"], a.array(pb), threads=a.threads())

    def sdf_pair(a, m):
        return osc.sdf_pair_collide(m["sdf"], a.pose(0.1), a.pick((m["sdf"], m["grid"])),
                                    a.array(np.array([0.9, 0.0, 0.0, 1.0, 0, 0, 0])),
                                    capacity=a.integer(1, 128))

    def sdf_pair_batch(a, m):
        n = int(a.rng.integers(0, 6))
        pb = np.tile([0.9, 0.0, 0.0, 1.0, 0, 0, 0], (n, 1))
        return osc.sdf_pair_collide_batch(m["sdf"], a.pose(0.1), a.pick((m["sdf"], m["grid"])),
                                          a.array(pb), capacity=a.integer(1, 128),
                                          threads=a.threads(), check_status=a.flag())

    def sdf_scene(a, m):
        n = int(a.rng.integers(0, 5))
        return osc.sdf_scene_collide([m["sdf"]] * n, a.array(
            np.array([[0.8 * k, 0, 0, 1, 0, 0, 0] for k in range(n)]).reshape(n, 7)),
            contacts_per_pair=a.integer(1, 256), threads=a.threads())

    def ray(a, m):
        o = a.array(np.array([-2.0, 0.1, 0.05]))
        d = a.array(np.array([1.0, 0.0, 0.0]))
        return osc.ray_intersect(a.pick((m["lens"], m["implicit"])), o, d,
                                 derivatives=a.flag())

    def ray_batch(a, m):
        n = int(a.rng.integers(0, 40))
        o = np.tile([-2.0, 0.0, 0.0], (n, 1))
        o[:, 1] = np.linspace(-0.4, 0.4, n)
        d = np.tile([1.0, 0.0, 0.0], (n, 1))
        f = a.pick((osc.ray_intersect_batch, osc.ray_intersect_many))
        return f(a.pick((m["lens"], m["implicit"])), a.array(o), a.array(d))

    def implicit(a, m):
        s = a.pick((m["lens"], m["implicit"]))
        return s.eval(a.point()), s.in_domain(a.point())

    def lmd(a, m, cache=None):
        return osc.lmd(a.pick(m["breps"]), a.pose(0.05), a.pick(m["breps"]),
                       a.array(np.array([0.1, 0.2, 1.3, 1.0, 0, 0, 0])),
                       d_max=a.real(0.1, 1.0), cache=cache,
                       capacity=a.pick((None, a.integer(0, 100))))

    def lmd_batch(a, m):
        n = int(a.rng.integers(0, 6))
        pb = np.tile([0.1, 0.2, 1.3, 1.0, 0, 0, 0], (n, 1))
        return osc.lmd_batch(a.pick(m["breps"]), a.pose(0.05), a.pick(m["breps"]), a.array(pb),
                             d_max=a.real(0.1, 1.0), capacity=a.pick((None, a.integer(0, 100))),
                             threads=a.threads(), check_status=a.flag())

    def lmd_cached(a, m):  # the footpoints of a warm start differ by Newton's tolerance
        return lmd(a, m, m["cache"])

    def forces(a, m):
        n = int(a.rng.integers(0, 8))
        normal = a.rng.normal(size=(n, 3))
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        contacts = dict(point=a.array(0.3 * a.rng.normal(size=(n, 3))), normal=a.array(normal),
                        distance=a.array(a.rng.uniform(-0.02, 0.01, n)),
                        weight=a.array(a.rng.uniform(0.0, 1.0, n)))
        if a.flag():
            contacts["point_jacobian"] = a.array(a.rng.normal(size=(n, 3, 12)))
            contacts["distance_jacobian"] = a.array(a.rng.normal(size=(n, 12)))
        return osc.contact_forces(contacts, a.pose(), a.array(a.rng.normal(size=6)), a.pose(),
                                  a.array(a.rng.normal(size=6)), derivatives=a.flag(),
                                  stiffness=a.real(1.0, 1e5), friction=a.real(0.0, 1.0))

    def brep_builders(a, m):
        k = a.rng.integers(5)
        if k == 0:
            return osc.Brep.revolved(a.array(np.array([[0, -0.5], [0.4, -0.5], [0.4, 0.5],
                                                       [0.0, 0.5]]))).info
        if k == 1:
            return osc.Brep.block_with_hole(a.array(np.array([1.0, 1.0, 1.0])), a.array(
                np.array([[0.5, 1.0], [0.5, -0.5], [0.0, -0.5]]))).info
        if k == 2:
            d = m["breps"][0].description()
            return osc.Brep.from_description(dict(surfaces=d.surfaces, faces=d.faces,
                                                  loops=d.loops, trims=d.trims, edges=d.edges,
                                                  vertices=a.array(d.vertices))).info
        if k == 3:
            b = a.pick(m["breps"])
            return b.shells, b.shell(a.integer(0, 0), plane_cell=a.real(0.1, 0.5)).info
        s = m["breps"][2].description().surfaces[0]
        return osc.surface_point(s, a.real(-3, 3), a.real(-1, 1)), osc.project(s, a.point())

    def mesh_builders(a, m):
        k = a.rng.integers(5)
        v, t = m["mesh"].vertices, m["mesh"].triangles
        if k == 0:
            return osc.Mesh(a.array(v), a.array(t.astype(np.float64))).volume
        if k == 4:
            mesh = osc.Mesh(a.array(v), a.array(t[:, ::-1].astype(np.float64)))
            return mesh.orientation, mesh.oriented().triangles
        if k == 1:
            return m["mesh"].edge_groups(a.array(np.zeros(len(v))))
        if k == 2:
            return osc.curve_order(a.points(), a.pick(("hilbert", "morton")))
        return osc.isosurface(m["sdf"], lo=a.array(np.full(3, -0.8)),
                              hi=a.array(np.full(3, 0.8)), resolution=a.integer(4, 12)).volume

    def sdf_builders(a, m):
        k = a.rng.integers(5)
        if k == 0:
            return osc.SDF.box(a.array(np.array([0.5, 0.4, 0.3]))).eval(np.zeros(3))
        if k == 1:
            return osc.SDF.psq(a.array(np.ones(3)), 0.5, 0.5,
                               planes=a.array(np.array([[0.0, 0.0, 1.0, -0.5]]))).bounds
        if k == 2:
            return m["sdf"].transformed(a.pose(), a.real(0.1, 2.0)).bounds
        if k == 3:
            return m["sdf"].eval_leaf(a.integer(0, 1), a.point())
        return osc.SDF.xpsq(control_points=a.array(np.array([[0, 0, 0], [1.0, 0.5, 0],
                                                             [2.0, 0, 0]])))

    def grid_point(a, m):
        g = m["grid"]
        return g.eval_hessian(a.point()), g.normal(a.point()), g.lower_bound(a.point())

    def smooth(a, m):
        x = a.array(a.rng.normal(size=(int(a.rng.integers(1, 5)), 3)))
        k = a.rng.integers(6)
        t = a.real(0.01, 1.0)
        if k == 0:
            return osc.sigmoid(x, t, derivatives=a.flag())
        if k == 1:
            return osc.softplus(x, t, derivatives=a.flag())
        if k == 2:
            return osc.smooth_max(x, a.array(a.rng.normal(size=3)), t, derivatives=a.flag())
        if k == 3:
            return osc.logsumexp(x, t, derivatives=a.flag())
        if k == 4:
            return osc.softmax(x, t, derivatives=a.flag())
        return osc.mollified_depth(x, a.real(0.01, 1.0), a.real(0.0, 0.5), derivatives=True)

    def poses(a, m):
        k = a.rng.integers(3)
        if k == 0:
            n = int(a.rng.integers(1, 5))
            return osc.apply_twist(a.poses(n), a.array(a.rng.normal(size=(n, 6)) * 0.1))
        if k == 1:
            return osc.pair_jacobian_to_pq(a.array(a.rng.normal(size=(2, 3, 12))),
                                           a.poses(2), a.poses(2))
        return osc.pose(a.point(), a.array(np.array([1.0, 0, 0, 0])))

    def closed_model(a, m):
        return a.pick((lambda: m["closed"].eval(np.zeros(3)),
                       lambda: osc.Body(m["mesh"], sdf=m["closed"]),
                       lambda: osc.sdf_pair_collide(m["closed"], osc.pose(), m["sdf"],
                                                    osc.pose())))()

    def jax_calls(a, m):
        import jax
        jax.config.update("jax_enable_x64", True)
        import osculate.jax as oj
        k = a.rng.integers(3)
        pose = a.numeric(np.array([0.9, 0.2, 0.0, 1.0, 0.0, 0.0, 0.0]))
        if k == 0:
            return np.asarray(oj.dcol_alpha(a.pick(m["convex"]), np.array(osc.pose()),
                                            a.pick(m["convex"]), pose))
        if k == 1:
            return np.asarray(jax.grad(lambda p: oj.dcol_alpha(
                m["convex"][0], np.array(osc.pose()), m["convex"][1], p).sum())(pose))
        return np.asarray(oj.sdf(m["sdf"], a.numeric(a.rng.normal(size=(5, 3)))))

    def torch_calls(a, m):
        import torch
        import osculate.torch as ot
        k = a.rng.integers(3)
        pose = torch.tensor(a.numeric(np.array([0.9, 0.2, 0.0, 1.0, 0.0, 0.0, 0.0])),
                            requires_grad=True)
        if k == 0:
            alpha = ot.dcol_alpha(a.pick(m["convex"]), torch.tensor(osc.pose()),
                                  a.pick(m["convex"]), pose)
            alpha.sum().backward()
            return alpha.detach().numpy(), pose.grad.numpy()
        if k == 1:
            return ot.sdf(m["sdf"], torch.tensor(a.numeric(a.rng.normal(size=(5, 3))))).numpy()
        o = torch.tensor(a.numeric(np.array([[-2.0, 0.1, 0.0]])))
        return ot.ray_intersect(m["lens"], o, torch.tensor([[1.0, 0.0, 0.0]]))["t"].numpy()

    optional = []
    for module, call in (("jax", jax_calls), ("torch", torch_calls)):
        try:
            __import__(module)
            optional.append((module, call, False))
        except ImportError:
            pass
    return optional + [("SDF.eval", sdf_eval, True), ("Grid.eval", grid_eval, True),
            ("MeshBVH.signed_distance", signed_distance, True), ("MeshBVH.closest", closest, True),
            ("MeshBVH.winding_number", winding, True), ("dcol", dcol, True),
            ("dcol_batch", dcol_batch, True), ("dcol gradients", dcol_gradients, True),
            ("Convex builders", convex_builders, True), ("manifold_collide", manifold, True),
            ("manifold_collide_batch", manifold_batch, True), ("sdf_pair_collide", sdf_pair, True),
            ("sdf_pair_collide_batch", sdf_pair_batch, True), ("sdf_scene_collide", sdf_scene, True), ("ray_intersect", ray, True),
            ("ray batches", ray_batch, True), ("Implicit", implicit, True), ("lmd", lmd, True), ("lmd_batch", lmd_batch, True), ("lmd with a cache", lmd_cached, False),
            ("contact_forces", forces, True),
            ("Brep builders", brep_builders, True), ("Mesh builders", mesh_builders, True),
            ("SDF builders", sdf_builders, True), ("Grid points", grid_point, True),
            ("smooth operators", smooth, True), ("poses", poses, True),
            ("closed models", closed_model, False)]


def _flat(result):
    import dataclasses
    if result is None:
        return []
    if dataclasses.is_dataclass(result):
        return [a for f in dataclasses.fields(result) if not f.name.startswith("_")
                for a in _flat(getattr(result, f.name))]
    if isinstance(result, dict):
        return [a for k in sorted(result) for a in _flat(result[k])]
    if isinstance(result, (list, tuple)):
        return [a for r in result for a in _flat(r)]
    if hasattr(result, "_as_parameter_"):
        return []
    return [np.asarray(result)]


def child(seed, first, last, timeout, log):
    """Makes calls first .. last - 1 of the run of `seed`, writing each call's number and name to
    `log` before making it (the driver reads the last one after a crash) and each problem to
    stdout as a JSON line."""
    import osculate as osc
    warnings.simplefilter("error")  # a silent cast (ComplexWarning) is a problem
    m = models(osc)
    table = entries(osc)
    out = open(log, "w", buffering=1)
    outcomes = {}  # entry -> {"ok" or an exception's name: count}
    for i in range(first, last):
        name, call, layout_checked = table[np.random.default_rng([seed, i]).integers(len(table))]
        a = Args(np.random.default_rng([seed, i, 1]), p_bad=0.35)
        out.write("%d %s\n" % (i, name))
        faulthandler.dump_traceback_later(timeout, exit=True)
        problem, outcome = None, "ok"
        try:
            result = call(a, m)
            if a.layout is not None and layout_checked:
                # the same draws, the canonical array this time: the same answer bit for bit
                again = call(Args(np.random.default_rng([seed, i, 1]), 0.35, replaying=True), m)
                x, y = _flat(result), _flat(again)
                if len(x) != len(y) or not all(np.array_equal(u, v, equal_nan=True)
                                               for u, v in zip(x, y)):
                    problem = "a layout-only change of an array changed the answer"
        except CLEAR as e:
            outcome = type(e).__name__
        except Exception as e:  # noqa: BLE001 - an unclear exception is what we look for
            outcome = type(e).__name__
            if not type(e).__module__.startswith("osculate"):
                problem = "unclear %s: %s\n%s" % (type(e).__name__, str(e)[:200], "".join(
                    traceback.format_exc().splitlines(True)[-6:]))
        faulthandler.cancel_dump_traceback_later()
        counts = outcomes.setdefault(name, {})
        counts[outcome] = counts.get(outcome, 0) + 1
        if problem:
            print(json.dumps({"call": i, "seed": seed, "name": name, "problem": problem}),
                  flush=True)
        if i % 100 == 99 or i == last - 1:  # what a crash would lose is at most 100 calls
            print(json.dumps({"outcomes": outcomes}), flush=True)
            outcomes = {}


def driver(calls, seed, timeout, quiet=False):
    """Runs child interpreters until `calls` calls are made; a crash or a hang is recorded and the
    next child starts after the call that crashed. Returns the problems."""
    problems, done, start, outcomes = [], 0, time.time(), {}
    log = os.path.join(os.environ.get("TMPDIR", "/tmp"), "fuzz_api.%d.log" % os.getpid())
    while done < calls:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--seed",
                            str(seed), "--first", str(done), "--calls", str(calls),
                            "--timeout", str(timeout), "--log", log],
                           capture_output=True, text=True)
        for line in r.stdout.splitlines():
            record = json.loads(line) if line.startswith("{") else {}
            if "problem" in record:
                problems.append(record)
            for name, counts in record.get("outcomes", {}).items():
                for k, v in counts.items():
                    outcomes.setdefault(name, {})[k] = outcomes.get(name, {}).get(k, 0) + v
        if r.returncode == 0:
            break
        last = open(log).read().splitlines()[-1].split(" ", 1)
        kind = "hang" if "Timeout" in r.stderr else "crash (exit %d)" % r.returncode
        problems.append({"call": int(last[0]), "seed": seed, "name": last[1],
                         "problem": kind + "\n" + r.stderr[-2000:]})
        done = int(last[0]) + 1
    if os.path.exists(log):
        os.remove(log)
    if not quiet:
        for name in sorted(outcomes):
            print("%-24s %s" % (name, ", ".join("%s %d" % kv for kv in sorted(
                outcomes[name].items(), key=lambda kv: -kv[1]))))
        for p in problems:
            print("PROBLEM call %(call)d seed %(seed)d %(name)s: %(problem)s" % p)
        print("fuzz_api: %d calls, seed %d, %.0f s: %d problems"
              % (calls, seed, time.time() - start, len(problems)))
    return problems


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--child", action="store_true")
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--log", default="fuzz_api.log")
    o = p.parse_args()
    if o.child:
        child(o.seed, o.first, o.calls, o.timeout, o.log)
    else:
        sys.exit(1 if driver(o.calls, o.seed, o.timeout) else 0)


if __name__ == "__main__":
    main()
