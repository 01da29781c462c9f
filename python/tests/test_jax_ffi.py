"""osculate.jax's XLA custom calls under JAX's transformations: vmap as one batched call, forward
and reverse mode, jax.checkpoint, lax.scan over time steps, shard_map over several host devices,
float32 buffers, errors raised from a handler, models that outlive their Python objects, and the
ABI declarations of python/src/xla_abi.h against the header of the installed jaxlib (compiled as
C++: that header names structs without their tags)."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.test_util import check_grads  # noqa: E402

import osculate as osc  # noqa: E402
import osculate.jax as oj  # noqa: E402
from osculate import _xla  # noqa: E402
from conftest import custom_calls, largest_array  # noqa: E402

jax.config.update("jax_enable_x64", True)

HERE = os.path.dirname(os.path.abspath(__file__))


def box_capsule():
    return osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.5)


def pose(p, axis, angle):
    return jnp.array(osc.pose(p, osc.axis_angle_quaternion(axis, angle)))


def numpy_energy(body, pa, pb):
    m = osc.manifold_collide(body, np.asarray(pa), body, np.asarray(pb))
    return float(np.sum(m.weight * m.distance))


def energy(body, pa, pb, capacity=None):
    m = oj.manifold(body, pa, body, pb, capacity=capacity)
    return jnp.sum(m["weight"] * m["distance"])


def sphere_pair_poses():
    pa = pose([0, 0, 0], [1, 2, 3], 0.3)
    pb = pose([0.96, 0.05, -0.02], [0, 1, 0], 0.5)
    return pa, pb


def test_vmap_is_one_batched_call_equal_to_the_loop(sphere_body):
    body, _, _ = sphere_body
    pa, pb = sphere_pair_poses()
    pbs = jnp.stack([pb.at[0].add(s) for s in np.linspace(-0.1, 0.1, 5)])
    f = jax.jit(jax.vmap(lambda q: oj.manifold(body, pa, body, q, capacity=128)))
    # vmap keeps one custom call (no loop): the lowered program has exactly one osculate_manifold
    text = f.lower(pbs).as_text()
    assert text.count("osculate_manifold") == 1
    out = f(pbs)
    for k in range(5):
        one = oj.manifold(body, pa, body, pbs[k], capacity=128)
        for name in ("point", "distance", "normal", "weight", "count"):
            np.testing.assert_array_equal(out[name][k], one[name])
    grads = jax.jit(jax.vmap(jax.grad(lambda q: energy(body, pa, q, 128))))(pbs)
    for k in range(5):
        np.testing.assert_allclose(grads[k], jax.grad(lambda q: energy(body, pa, q, 128))(pbs[k]),
                                   rtol=1e-12, atol=1e-14)


def test_manifold_grads_in_both_modes_at_the_default_capacity(sphere_body):
    body, _, _ = sphere_body
    pa, pb = sphere_pair_poses()
    assert int(oj.manifold(body, pa, body, pb)["count"]) > 0
    check_grads(lambda p, q: energy(body, p, q), (pa, pb), order=1, modes=("fwd", "rev"),
                eps=1e-6, atol=1e-6, rtol=1e-5)
    # against central differences of the NumPy query, and equal at a capacity that fits exactly
    g = jax.jit(jax.grad(lambda q: energy(body, pa, q)))(pb)
    count = int(oj.manifold(body, pa, body, pb)["count"])
    g_tight = jax.grad(lambda q: energy(body, pa, q, count))(pb)
    np.testing.assert_allclose(g, g_tight, rtol=1e-13, atol=1e-15)
    eps = 1e-6
    fd = [(numpy_energy(body, pa, pb + eps * e) - numpy_energy(body, pa, pb - eps * e)) / (2 * eps)
          for e in np.eye(7)]
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)


def test_grad_of_dcol_alpha_asks_for_alpha_jacobian_only():
    a, b = box_capsule()
    pa, pb = pose([0, 0, 0], [1, 0, 0], 0.2), pose([0.6, 0.1, 0.2], [0, 1, 1], 0.4)
    text = jax.jit(jax.grad(lambda q: oj.dcol_alpha(a, pa, b, q))).lower(pb).as_text()
    assert text.count("osculate_dcol") == 1
    assert "jacobians = 1 : i64" in text  # the mask of alpha alone
    full = jax.jit(jax.grad(lambda q: oj.dcol(a, pa, b, q)["distance"])).lower(pb).as_text()
    assert "jacobians = 63 : i64" in full  # dcol() asks for all six outputs' Jacobians


def query_cases(body):
    """Each padded family's differentiable output at its default capacity (one row per slot) and
    DCOL's point: (target, its jacobians attribute, the function of pose_b, pose_b)."""
    pa, pb = sphere_pair_poses()
    a, b = box_capsule()
    sa, sb = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    brep_a, brep_b = osc.Brep.box([1.0, 2.0, 0.5]), osc.Brep.sphere(0.3)
    qa, qb = pose([0, 0, 0], [1, 0, 0], 0.2), pose([0.6, 0.1, 0.2], [0, 1, 1], 0.4)
    ra, rb = pose([0.1, 0.2, 0.3], [0, 0, 1], 0), pose([0.8, 0.25, 0.3], [0, 0, 1], 0.2)
    la, lb = pose([0.1, -0.2, 0.05], [1, 2, 3], 0.3), pose([0.3, 0.1, 1.2], [0, 0, 1], 0.0)
    return [
        ("osculate_manifold", 1, lambda p: oj.manifold(body, pa, body, p)["distance"], pb),
        ("osculate_dcol", 1 << 2, lambda p: oj.dcol(a, qa, b, p, outputs=("point",))["point"], qb),
        ("osculate_sdf_pair", 1,
         lambda p: oj.sdf_pair(sa, ra, sb, p, temperature=0.05)["distance"], rb),
        ("osculate_lmd", 1, lambda p: oj.lmd(brep_a, la, brep_b, p)["distance"], lb)]


def test_one_reverse_pass_is_one_query_and_one_transpose(sphere_body):
    """value_and_grad of a weighted sum over each family's outputs runs the query once, with its
    Jacobians, and found_transpose once per differentiated output (never found_apply, which the
    reverse pass transposes away), and no loop; jacrev the same calls, batched over its rows."""
    for target, mask, f, p in query_cases(sphere_body[0]):
        w = jnp.asarray(np.random.default_rng(1).normal(size=f(p).shape))
        vg = jax.jit(jax.value_and_grad(lambda p: jnp.sum(w * f(p))))
        expected = sorted([(target, mask), ("osculate_found_transpose", None)])
        assert custom_calls(vg, p) == (expected, 0), target
        assert custom_calls(jax.jit(jax.jacrev(f)), p) == (expected, 0), target
        assert custom_calls(jax.jit(f), p) == ([(target, 0)], 0), target
        # forward mode applies the Jacobians instead
        jf = jax.jit(lambda p: jax.jvp(f, (p,), (jnp.ones_like(p),))[1])
        forward = sorted([(target, mask), ("osculate_found_apply", None)])
        assert custom_calls(jf, p) == (forward, 0), target
        np.testing.assert_allclose(vg(p)[1], jnp.tensordot(w, jax.jacrev(f)(p), w.ndim),
                                   rtol=1e-12, atol=1e-12)


def test_jacobians_of_padded_outputs_contract_the_query_jacobians_once(sphere_body):
    """jacrev and jacfwd of each family's padded output (one row per slot) hold the query with its
    Jacobians and one found-rows product over all rows at once: no array of the compiled program
    is larger than those of value_and_grad, the rows x rows identity jacrev seeds, the rows' twist
    Jacobians or jacfwd's 7 twist tangents, so the query's Jacobians [C, R, 12] are never
    broadcast over the rows or the tangents."""
    for target, mask, f, p in query_cases(sphere_body[0]):
        rows = f(p).size
        bound = max(largest_array(jax.jit(jax.value_and_grad(lambda p: jnp.sum(f(p)))), p),
                    rows * rows, 12 * max(rows, 7))
        for name, jac, product in (("jacrev", jax.jacrev, "osculate_found_transpose"),
                                   ("jacfwd", jax.jacfwd, "osculate_found_apply")):
            g = jax.jit(jac(f))
            assert custom_calls(g, p) == (sorted([(target, mask), (product, None)]), 0), target
            assert largest_array(g, p) <= bound, (target, name, largest_array(g, p), bound)


def test_jacobians_of_padded_outputs_equal_the_row_by_row_products(sphere_body):
    """jacrev of each padded output equals the vjp of each row alone (the same sums in C, bit for
    bit), jacfwd equals it to rounding and the central differences of the query; nested vmaps of
    vjp and of the linearised function, jacrev of a batch of poses and vmap of jacrev over it equal
    the loops they batch."""
    for target, mask, f, p in query_cases(sphere_body[0]):
        out, vjp = jax.vjp(f, p)
        jr = jax.jit(jax.jacrev(f))(p)
        basis = np.eye(out.size).reshape((out.size,) + out.shape)
        rows = np.stack([vjp(jnp.asarray(e))[0] for e in basis]).reshape(out.shape + p.shape)
        np.testing.assert_array_equal(jr, rows, err_msg=target)
        np.testing.assert_allclose(jax.jit(jax.jacfwd(f))(p), jr, rtol=1e-12, atol=1e-14,
                                   err_msg=target)
        eps = 1e-6
        fd = np.stack([(f(p + eps * e) - f(p - eps * e)) / (2 * eps) for e in np.eye(7)], -1)
        np.testing.assert_allclose(jr, fd, rtol=1e-5, atol=1e-6, err_msg=target)
        # a vector dimension that a second vmap joins: [2, 3] cotangents and tangents
        cts = jnp.asarray(np.random.default_rng(2).normal(size=(2, 3) + out.shape))
        nested = jax.jit(jax.vmap(jax.vmap(lambda c: vjp(c)[0])))(cts)
        for i, j in np.ndindex(2, 3):
            np.testing.assert_array_equal(nested[i, j], vjp(cts[i, j])[0], err_msg=target)
        _, lin = jax.linearize(f, p)
        ts = jnp.asarray(np.random.default_rng(3).normal(size=(2, 3, 7)))
        nested = jax.jit(jax.vmap(jax.vmap(lin)))(ts)
        for i, j in np.ndindex(2, 3):
            np.testing.assert_allclose(nested[i, j], lin(ts[i, j]), rtol=1e-13, atol=1e-15,
                                       err_msg=target)
        # Jacobians with a batch of their own: jacrev of the batched query, vmap of jacrev
        ps = jnp.stack([p, p.at[0].add(0.01), p.at[1].add(-0.01)])
        loop = np.stack([jax.jacrev(f)(q) for q in ps])
        np.testing.assert_array_equal(jax.jit(jax.vmap(jax.jacrev(f)))(ps), loop, err_msg=target)
        whole = jax.jit(jax.jacrev(jax.vmap(f)))(ps)
        for k in range(3):
            np.testing.assert_array_equal(whole[k, ..., k, :], loop[k], err_msg=target)
            others = np.delete(np.moveaxis(np.asarray(whole[k]), -2, 0), k, axis=0)
            assert not others.any(), target


def test_checkpoint_and_scan_over_time_steps():
    """A ball dropped towards a box: lax.scan over 20 explicit steps of a penalty on DCOL's alpha,
    differentiated with respect to the initial height, against central differences."""
    box, ball = osc.Convex.box([1.0, 1.0, 0.2]), osc.Convex.sphere(0.25)
    pa = pose([0, 0, 0], [0, 0, 1], 0.0)

    def rollout(z0):
        def step(state, _):
            z, v = state
            q = jnp.array([0.1, -0.05, 0.0, 1.0, 0.0, 0.0, 0.0]).at[2].set(z)
            alpha = jax.checkpoint(lambda q: oj.dcol_alpha(box, pa, ball, q))(q)
            force = 50.0 * jax.nn.softplus(10.0 * (1.2 - alpha)) / 10.0
            v = v + 0.01 * (force - 9.81)
            return (z + 0.01 * v, v), alpha
        (z, _), alphas = jax.lax.scan(step, (z0, -1.0), None, length=20)
        return z + jnp.sum(alphas)

    f = jax.jit(rollout)
    g = jax.jit(jax.grad(rollout))(0.5)
    eps = 1e-6
    fd = (f(0.5 + eps) - f(0.5 - eps)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6)
    _, t = jax.jvp(rollout, (0.5,), (1.0,))
    np.testing.assert_allclose(t, g, rtol=1e-12)


def test_float32_buffers():
    a, b = box_capsule()
    pa, pb = pose([0, 0, 0], [1, 0, 0], 0.2), pose([0.6, 0.1, 0.2], [0, 1, 1], 0.4)
    out = oj.dcol(a, pa.astype(jnp.float32), b, pb.astype(jnp.float32))
    ref = osc.dcol(a, np.asarray(pa, np.float32).astype(float), b,
                   np.asarray(pb, np.float32).astype(float))
    assert out["alpha"].dtype == jnp.float32
    assert out["alpha"] == np.float32(ref.alpha)
    np.testing.assert_array_equal(out["normal"], ref.normal.astype(np.float32))
    g32 = jax.grad(lambda q: oj.dcol_alpha(a, pa.astype(jnp.float32), b, q))(pb.astype(jnp.float32))
    g64 = jax.grad(lambda q: oj.dcol_alpha(a, pa, b, q))(pb)
    assert g32.dtype == jnp.float32
    np.testing.assert_allclose(g32, g64, rtol=1e-5, atol=1e-6)


def test_float32_manifold_tangents(sphere_body):
    body, _, _ = sphere_body
    pa, pb = sphere_pair_poses()
    g32 = jax.grad(lambda q: energy(body, pa.astype(jnp.float32), q))(pb.astype(jnp.float32))
    g64 = jax.grad(lambda q: energy(body, pa, q))(pb)
    assert g32.dtype == jnp.float32
    np.testing.assert_allclose(g32, g64, rtol=1e-4, atol=1e-5)
    # jacrev in float32: the row-by-row vjp to float32 rounding (XLA's float32 product with the
    # pose maps may round a batch differently), jacfwd likewise
    f = lambda q: oj.manifold(body, pa.astype(jnp.float32), body, q)["point"]  # noqa: E731
    p32 = pb.astype(jnp.float32)
    out, vjp = jax.vjp(f, p32)
    jr = jax.jit(jax.jacrev(f))(p32)
    assert jr.dtype == jnp.float32 and jr.shape == out.shape + (7,)
    for k in range(0, out.size, 37):
        e = jnp.zeros(out.size, jnp.float32).at[k].set(1).reshape(out.shape)
        np.testing.assert_allclose(jr.reshape(-1, 7)[k], vjp(e)[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(jax.jit(jax.jacfwd(f))(p32), jr, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_found_rows_products_over_vectors(dtype):
    """found_apply and found_transpose under vmap of the vector alone (one vector dimension, and
    two that join it) equal one product per vector bit for bit and the sums over the found slots
    in NumPy; the Jacobians of empty slots (NaN here) are never read."""
    rng = np.random.default_rng(4)
    j = rng.normal(size=(2, 5, 3, 12)).astype(dtype)
    count = np.array([3, 0], np.int32)
    j[0, 3:] = np.nan
    j[1] = np.nan
    j, count = jnp.asarray(j), jnp.asarray(count)
    cts = jnp.asarray(rng.normal(size=(4, 6, 2, 5, 3)).astype(dtype))
    ts = jnp.asarray(rng.normal(size=(4, 6, 2, 12)).astype(dtype))
    found = np.asarray(j[0, :3], np.float64)
    for vector, prim, expected in (
            (cts, _xla.found_transpose,
             lambda v: np.stack([np.einsum("srk,sr->k", found, v[0, :3]), np.zeros(12)])),
            (ts, _xla.found_apply,
             lambda v: np.stack([np.concatenate([found @ v[0], np.zeros((2, 3))]),
                                 np.zeros((5, 3))]))):
        one = jax.vmap(lambda v: prim(j, count, v))(vector[0])
        two = jax.jit(jax.vmap(jax.vmap(lambda v: prim(j, count, v))))(vector)
        assert two.dtype == dtype and not np.isnan(two).any()
        for a, b in np.ndindex(4, 6):
            single = prim(j, count, vector[a, b])
            np.testing.assert_array_equal(two[a, b], single)
            np.testing.assert_allclose(single, expected(np.asarray(vector[a, b], np.float64)),
                                       rtol=1e-6 if dtype == np.float32 else 1e-14,
                                       atol=1e-6 if dtype == np.float32 else 1e-14)
        np.testing.assert_array_equal(one, two[0])


def test_capacity_that_runs_out_raises(sphere_body):
    body, _, _ = sphere_body
    pa, pb = sphere_pair_poses()
    count = int(oj.manifold(body, pa, body, pb)["count"])
    assert count > 2
    with pytest.raises(Exception, match="capacity"):
        jax.block_until_ready(jax.jit(lambda q: oj.manifold(body, pa, body, q, capacity=2))(pb))


def test_bad_arguments_raise_before_running():
    a, b = box_capsule()
    with pytest.raises(ValueError, match="poses must have shape"):
        oj.dcol(a, jnp.zeros(6), b, jnp.zeros(7))
    with pytest.raises(ValueError, match="outputs"):
        oj.dcol(a, jnp.zeros(7), b, jnp.zeros(7), outputs=("volume",))
    with pytest.raises(ValueError):
        oj.dcol("box", jnp.zeros(7), b, jnp.zeros(7))
    closed = osc.Convex.sphere(0.3)
    closed.close()
    with pytest.raises(ValueError, match="closed"):
        oj.dcol(a, jnp.zeros(7), closed, jnp.zeros(7))


def test_compiled_program_outlives_its_models():
    """A compiled program keeps using its models after the Python objects are closed and gone:
    the C objects are kept alive for it (_xla.model)."""
    a, b = box_capsule()
    pa, pb = pose([0, 0, 0], [1, 0, 0], 0.2), pose([0.6, 0.1, 0.2], [0, 1, 1], 0.4)
    expect = osc.dcol(a, np.asarray(pa), b, np.asarray(pb)).alpha
    f = jax.jit(lambda q: oj.dcol_alpha(a, pa, b, q))
    assert float(f(pb)) == expect
    a.close()
    b.close()
    del a, b
    for _ in range(3):  # new models may take the freed Python objects' places
        osc.Convex.sphere(1.0)
    assert float(f(pb)) == expect


SHARDED = """
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
from jax.sharding import Mesh, PartitionSpec as P, NamedSharding
try:
    from jax import shard_map
except ImportError:
    from jax.experimental.shard_map import shard_map
import osculate as osc, osculate.jax as oj
assert len(jax.devices()) == 4
a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.5)
pa = np.array(osc.pose([0, 0, 0], osc.axis_angle_quaternion([1, 0, 0], 0.2)))
rng = np.random.default_rng(3)
pbs = np.array([osc.pose(rng.uniform(-0.8, 0.8, 3), osc.axis_angle_quaternion(rng.normal(size=3), 1.0))
                for _ in range(64)])
mesh = Mesh(np.array(jax.devices()), ("pairs",))
seen = []
def local(q):
    seen.append(q.shape)
    return oj.dcol(a, pa, b, q)["distance"]
import inspect
# jax >= 0.6 types values by the mesh axes they vary over, and does not mark a custom call's
# results as varying: its check must be off there (jax 0.4's replication check has our rules)
loose = {"check_vma": False} if "check_vma" in inspect.signature(shard_map).parameters else {}
f = jax.jit(shard_map(local, mesh=mesh, in_specs=P("pairs"), out_specs=P("pairs"), **loose))
q = jax.device_put(pbs, NamedSharding(mesh, P("pairs")))
d = f(q)
print("local shapes", seen)
print("shards", sorted((s.device.id, s.data.shape) for s in d.addressable_shards))
np.testing.assert_array_equal(np.asarray(d), osc.dcol_batch(a, pa, b, pbs).distance)
g = jax.jit(shard_map(jax.grad(lambda q: jnp.sum(local(q))), mesh=mesh, in_specs=P("pairs"),
                      out_specs=P("pairs"), **loose))(q)
np.testing.assert_allclose(g, jax.grad(lambda q: jnp.sum(oj.dcol(a, pa, b, q)["distance"]))(pbs),
                           rtol=1e-12, atol=1e-14)
print("ok")
"""


def test_shard_map_runs_each_shard_on_its_device():
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    r = subprocess.run([sys.executable, "-c", SHARDED], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "local shapes [(16, 7)" in r.stdout  # each device's part: 64 / 4 pairs
    assert "shards [(0, (16,)), (1, (16,)), (2, (16,)), (3, (16,))]" in r.stdout
    assert r.stdout.strip().endswith("ok")


ABI_CHECK = r"""
#include <stddef.h>
#include "xla/ffi/api/c_api.h"
#include "xla_abi.h"
// XLA's minor versions append fields: each of our structs must be a prefix of XLA's
#define SAME(ours, theirs) static_assert(sizeof(ours) <= sizeof(struct theirs), #ours " size")
#define AT(ours, f, theirs, g) static_assert(offsetof(ours, f) == offsetof(struct theirs, g), #ours "." #f)
SAME(oscx_extension, XLA_FFI_Extension_Base);
AT(oscx_extension, type, XLA_FFI_Extension_Base, type);
AT(oscx_extension, next, XLA_FFI_Extension_Base, next);
SAME(oscx_api_version, XLA_FFI_Api_Version);
AT(oscx_api_version, major_version, XLA_FFI_Api_Version, major_version);
AT(oscx_api_version, minor_version, XLA_FFI_Api_Version, minor_version);
SAME(oscx_metadata, XLA_FFI_Metadata);
AT(oscx_metadata, api_version, XLA_FFI_Metadata, api_version);
AT(oscx_metadata, traits, XLA_FFI_Metadata, traits);
SAME(oscx_metadata_extension, XLA_FFI_Metadata_Extension);
AT(oscx_metadata_extension, metadata, XLA_FFI_Metadata_Extension, metadata);
SAME(oscx_error_create_args, XLA_FFI_Error_Create_Args);
AT(oscx_error_create_args, message, XLA_FFI_Error_Create_Args, message);
AT(oscx_error_create_args, errc, XLA_FFI_Error_Create_Args, errc);
SAME(oscx_buffer, XLA_FFI_Buffer);
AT(oscx_buffer, dtype, XLA_FFI_Buffer, dtype);
AT(oscx_buffer, data, XLA_FFI_Buffer, data);
AT(oscx_buffer, rank, XLA_FFI_Buffer, rank);
AT(oscx_buffer, dims, XLA_FFI_Buffer, dims);
SAME(oscx_byte_span, XLA_FFI_ByteSpan);
SAME(oscx_scalar, XLA_FFI_Scalar);
AT(oscx_scalar, value, XLA_FFI_Scalar, value);
SAME(oscx_array, XLA_FFI_Array);
AT(oscx_array, size, XLA_FFI_Array, size);
AT(oscx_array, data, XLA_FFI_Array, data);
SAME(oscx_args, XLA_FFI_Args);
AT(oscx_args, size, XLA_FFI_Args, size);
AT(oscx_args, args, XLA_FFI_Args, args);
SAME(oscx_rets, XLA_FFI_Rets);
AT(oscx_rets, rets, XLA_FFI_Rets, rets);
SAME(oscx_attrs, XLA_FFI_Attrs);
AT(oscx_attrs, types, XLA_FFI_Attrs, types);
AT(oscx_attrs, names, XLA_FFI_Attrs, names);
AT(oscx_attrs, attrs, XLA_FFI_Attrs, attrs);
AT(oscx_call_frame, extension_start, XLA_FFI_CallFrame, extension_start);
AT(oscx_call_frame, api, XLA_FFI_CallFrame, api);
AT(oscx_call_frame, stage, XLA_FFI_CallFrame, stage);
AT(oscx_call_frame, args, XLA_FFI_CallFrame, args);
AT(oscx_call_frame, rets, XLA_FFI_CallFrame, rets);
AT(oscx_call_frame, attrs, XLA_FFI_CallFrame, attrs);
AT(oscx_api, api_version, XLA_FFI_Api, api_version);
AT(oscx_api, error_create, XLA_FFI_Api, XLA_FFI_Error_Create);
static_assert(OSCX_API_MAJOR == XLA_FFI_API_MAJOR && OSCX_API_MINOR <= XLA_FFI_API_MINOR, "version");
static_assert((int)OSCX_EXTENSION_METADATA == (int)XLA_FFI_Extension_Metadata, "metadata");
static_assert((int)OSCX_STAGE_EXECUTE == (int)XLA_FFI_ExecutionStage_EXECUTE, "stage");
static_assert((int)OSCX_F32 == (int)XLA_FFI_DataType_F32 && (int)OSCX_F64 == (int)XLA_FFI_DataType_F64, "floats");
static_assert((int)OSCX_S32 == (int)XLA_FFI_DataType_S32 && (int)OSCX_S64 == (int)XLA_FFI_DataType_S64, "ints");
static_assert((int)OSCX_U8 == (int)XLA_FFI_DataType_U8 && (int)OSCX_U64 == (int)XLA_FFI_DataType_U64, "unsigned");
static_assert((int)OSCX_ATTR_ARRAY == (int)XLA_FFI_AttrType_ARRAY && (int)OSCX_ATTR_SCALAR == (int)XLA_FFI_AttrType_SCALAR, "attrs");
static_assert((int)OSCX_ERROR_INVALID_ARGUMENT == (int)XLA_FFI_Error_Code_INVALID_ARGUMENT, "errc");
static_assert((int)OSCX_ERROR_RESOURCE_EXHAUSTED == (int)XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "errc");
static_assert((int)OSCX_ERROR_INTERNAL == (int)XLA_FFI_Error_Code_INTERNAL, "errc");
"""


def _abi_header_dir():
    """python/src (the source tree) or, for an installed package without sources, None."""
    src = os.path.join(HERE, "..", "src")
    return src if os.path.exists(os.path.join(src, "xla_abi.h")) else None


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_abi_declarations_match_the_installed_jaxlib(tmp_path):
    ours = _abi_header_dir()
    assert ours is not None, "python/src/xla_abi.h not found next to the tests"
    include = _xla._jax_ffi.include_dir()
    assert os.path.exists(os.path.join(include, "xla", "ffi", "api", "c_api.h"))
    # jaxlib's c_api.h is C in its layouts but names untagged structs as C++ does: check as C++
    source = tmp_path / "abi.cc"
    source.write_text(textwrap.dedent(ABI_CHECK))
    r = subprocess.run(["c++", "-std=c++17", "-fsyntax-only", "-I", include, "-I", ours, str(source)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_one_registration_per_target_on_the_cpu():
    assert _xla.PLATFORM == "cpu"
    for name in _xla.TARGETS:
        assert hasattr(osc._ffi._cdll, name)
