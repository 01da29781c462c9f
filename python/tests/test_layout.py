"""Every ctypes Structure of the package against the C struct it mirrors: the size and the offset
of every field come from the library's own layout table (python/src/osculate_py.c, sizeof and
offsetof), so a header that moves, resizes, adds or drops a field without _ffi.py fails here by
name instead of having the library write past a Python buffer."""

import ctypes as C

import pytest

from osculate import _ffi as F

LAYOUTS = F.c_layouts()
MIRRORS = F.mirrored_structs()


def test_every_mirror_is_in_the_c_table_and_back():
    assert set(MIRRORS) == set(LAYOUTS), (sorted(set(MIRRORS) - set(LAYOUTS)),
                                          sorted(set(LAYOUTS) - set(MIRRORS)))
    assert len(LAYOUTS) >= 55  # every struct of the headers that the package passes to C


@pytest.mark.parametrize("name", sorted(MIRRORS))
def test_size_and_field_offsets(name):
    size, offsets = LAYOUTS[name]
    assert size and size > 0, name
    for cls in MIRRORS[name]:
        assert C.sizeof(cls) == size, "%s: sizeof %d in C, %d in _ffi.py (%s)" % (
            name, size, C.sizeof(cls), cls.__name__)
        fields = [f[0] for f in cls._fields_]
        assert fields == list(offsets), "%s: fields %s in C's table, %s in _ffi.py" % (
            name, list(offsets), fields)
        for field, offset in offsets.items():
            assert getattr(cls, field).offset == offset, "%s.%s: offset %d in C, %d in _ffi.py" % (
                name, field, offset, getattr(cls, field).offset)
