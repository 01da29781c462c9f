"""Every enum of the public headers (include/osculate/*.h) and the package's mirror of it agree:
the statuses, flags, kinds and enum settings that the package names or numbers by itself. The
headers are read here (comments stripped, each enumerator's value from its initialiser or its
predecessor's plus one); the parse is cross-checked with the library's own names of statuses and
convex kinds. A value changed, an enumerator added or removed, or a new enum in a header fails a
test that names it."""

import glob
import inspect
import os
import re

import pytest

import osculate as osc
from osculate import _base, _convex, _manifold, _mesh, _ray, _sdf
from osculate import _ffi as F

INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include",
                       "osculate")


def _strip_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def header_enums():
    """{name: {enumerator: value}} of every enum in the headers: a typedef'd or tagged enum by its
    type name, an anonymous one as "enum of FILE" (one per header at most)."""
    enums = {}
    for path in sorted(glob.glob(os.path.join(INCLUDE, "*.h"))):
        text = _strip_comments(open(path).read())
        for m in re.finditer(r"\benum\s*(\w*)\s*\{(.*?)\}\s*(\w*)\s*;", text, re.S):
            name = m.group(1) or m.group(3) or "enum of %s" % os.path.basename(path)
            assert name not in enums, "%s: two enums named %s" % (path, name)
            values, value = {}, -1
            for item in filter(None, (s.strip() for s in m.group(2).split(","))):
                key, _, init = (s.strip() for s in item.partition("="))
                value = int(eval(init, {}, dict(values))) if init else value + 1  # noqa: S307
                values[key] = value
            enums[name] = values
    return enums


def header_defines():
    """{name: number} of the headers' numeric #defines (OSC_MAX_THREADS 256, ...)."""
    out = {}
    for path in glob.glob(os.path.join(INCLUDE, "*.h")):
        for name, value in re.findall(r"^#define\s+(OSC_\w+)\s+([-+0-9.eE]+)\s*$",
                                      _strip_comments(open(path).read()), re.M):
            out[name] = float(value) if re.search(r"[.eE]", value) else int(value)
    return out


def named(prefix, names):
    """A mirror as C enumerators: a tuple of names (index = value) or a dict name -> value, each
    name the enumerator's tail in lower case."""
    items = names.items() if isinstance(names, dict) else enumerate(names)
    pairs = ((v, k) for k, v in items) if isinstance(names, dict) else items
    return {prefix + name.upper(): value for value, name in pairs}


def mirrors():
    """{C enum: the package's values as {enumerator: value}}."""
    return {
        "osc_status": {"OSC_OK": _base.OK, **{
            "OSC_ERR_" + k: getattr(_base, k) for k in (
                "INVALID_ARGUMENT", "PARSE", "NO_MEMORY", "NOT_CONVERGED", "CAPACITY", "IO",
                "UNSUPPORTED")}},
        "osc_xpsq_frame": named("OSC_XPSQ_FRAME_", _sdf._FRAMES),
        "osc_mesh_format": named("OSC_MESH_FORMAT_", _mesh._FORMATS),
        "osc_mesh_degenerate_policy": named("OSC_MESH_DEGENERATE_", _mesh._DEGENERATE),
        "osc_mesh_feature": named("OSC_MESH_FEATURE_", _mesh._FEATURES),
        "osc_curve": named("OSC_CURVE_", _mesh.CURVES),
        "osc_convex_kind": {"OSC_CONVEX_INVALID": _convex.KIND_INVALID,
                            **named("OSC_CONVEX_", osc.KINDS)},
        "enum of dcol.h": {"OSC_DCOL_DEGENERATE": osc.DCOL_DEGENERATE,
                           "OSC_DCOL_COINCIDENT": osc.DCOL_COINCIDENT,
                           "OSC_DCOL_SMOOTHED": osc.DCOL_SMOOTHED},
        "osc_group_source": named("OSC_GROUPS_", _manifold._GROUPS),
        "osc_contact_kind": named("OSC_CONTACT_", osc.CONTACT_KINDS),
        "osc_ray_algorithm": named("OSC_RAY_", _ray._ALGORITHMS),
        "osc_ray_init": named("OSC_RAY_INIT_", _ray._INITS),
        "osc_surface_type": named("OSC_SURFACE_", osc.SURFACE_TYPES),
        "osc_trim_kind": named("OSC_TRIM_", osc.TRIM_KINDS),
        "osc_curve_type": named("OSC_CURVE_", osc.CURVE_TYPES),
        "osc_feature_kind": named("OSC_FEATURE_", osc.FEATURE_KINDS),
        "enum of lmd.h": {"OSC_LMD_CONFORMAL": osc.LMD_CONFORMAL},
    }


ENUMS = header_enums()


def test_the_parse_agrees_with_the_library():
    """The statuses' and convex kinds' names as the library spells them, at the parsed values."""
    statuses = ENUMS["osc_status"]
    assert len(statuses) == 8
    for name, value in statuses.items():
        assert F.lib.osc_status_string(value).decode() == name
    kinds = ENUMS["osc_convex_kind"]
    assert header_defines()["OSC_CONVEX_KIND_COUNT"] == len(kinds) - 1
    for name, value in kinds.items():
        expected = "unknown" if value < 0 else name[len("OSC_CONVEX_"):].lower()
        assert F.lib.osc_convex_kind_name(value).decode() == expected


def test_every_header_enum_is_mirrored():
    missing = sorted(set(ENUMS) - set(mirrors()))
    assert not missing, "enums of the headers the package does not mirror: %s (mirror them in " \
        "python/osculate and add them to test_constants.py)" % missing
    assert not set(mirrors()) - set(ENUMS), "mirrors of enums the headers do not have"


@pytest.mark.parametrize("enum", sorted(mirrors()))
def test_mirror_matches_the_header(enum):
    assert mirrors()[enum] == ENUMS[enum]


def test_errors_follow_the_statuses():
    """Each failure status raises its exception class, whose .status is the C value."""
    classes = {"OSC_ERR_INVALID_ARGUMENT": osc.InvalidArgumentError, "OSC_ERR_PARSE":
               osc.ParseError, "OSC_ERR_NO_MEMORY": osc.OsculateMemoryError,
               "OSC_ERR_NOT_CONVERGED": osc.NotConvergedError, "OSC_ERR_CAPACITY":
               osc.CapacityError, "OSC_ERR_IO": osc.OsculateIOError, "OSC_ERR_UNSUPPORTED":
               osc.UnsupportedError}
    for name, value in ENUMS["osc_status"].items():
        if value == 0:
            continue
        F.lib.osc_clear_error()
        e = _base.error(value)
        assert type(e) is classes[name] and e.status == value and name in str(e)


def test_defaults_that_mirror_defines():
    defines = header_defines()
    default = inspect.signature(osc.Convex.bounded_hull).parameters["max_faces"].default
    assert default == defines["OSC_CONVEX_MAX_FACES"]
    # a DcolWarmStart holds OSC_DCOL_MAX_VARIABLES numbers, a sag OSC_SAG_MAX_COEFFICIENTS
    assert len(F.DcolWarmStart().solution) == defines["OSC_DCOL_MAX_VARIABLES"]
    assert len(F.Sag().coefficients) == defines["OSC_SAG_MAX_COEFFICIENTS"]


def test_version_is_the_headers():
    defines = header_defines()
    version = "%d.%d.%d" % tuple(defines["OSC_VERSION_" + k] for k in ("MAJOR", "MINOR", "PATCH"))
    assert osc.version() == version == osc.__version__
    pyproject = open(os.path.join(INCLUDE, "..", "..", "python", "pyproject.toml")).read()
    assert re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1) == version
