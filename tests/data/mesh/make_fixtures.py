#!/usr/bin/env python3
"""Writes the mesh importer fixtures of tests/test_mesh_io.c (run from anywhere; the files land
beside this script). The valid ones hold one mesh, a box with six quad faces, in every format;
its vertices are numbered in the order the fan-triangulated faces first use them, so a welded STL
(which lists each triangle's corners) gives exactly the indexed mesh. The malformed ones each
break one rule; tests/test_mesh_io.c names the message each must produce."""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# corner c = x + 2 y + 4 z of the box [-0.5, 1.25] x [0.25, 2.5] x [-1.75, 0.125] (exact in float32)
XS, YS, ZS = (-0.5, 1.25), (0.25, 2.5), (-1.75, 0.125)
CORNERS = [(XS[c & 1], YS[(c >> 1) & 1], ZS[c >> 2]) for c in range(8)]
# quads counter-clockwise seen from outside
QUADS_BY_CORNER = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]


def fan(quad):
    return [(quad[0], quad[i], quad[i + 1]) for i in range(1, len(quad) - 1)]


def first_use_order():
    order = []
    for quad in QUADS_BY_CORNER:
        for triangle in fan(quad):
            for corner in triangle:
                if corner not in order:
                    order.append(corner)
    return order


ORDER = first_use_order()  # new index -> corner
NEW = {corner: i for i, corner in enumerate(ORDER)}
VERTICES = [CORNERS[c] for c in ORDER]
QUADS = [tuple(NEW[c] for c in quad) for quad in QUADS_BY_CORNER]
TRIANGLES = [t for quad in QUADS for t in fan(quad)]


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(HERE, name), mode, newline="" if mode == "w" else None) as f:
        f.write(data)


def g(value):
    return repr(float(value)) if value != int(value) else str(int(value))


# ---------------------------------------------------------------------------------------------
# valid: the box in every format

def obj_box():
    lines = ["# the box of make_fixtures.py: quads, every reference form, comments", "mtllib box.mtl", "o box"]
    for i, v in enumerate(VERTICES):
        lines.append("v %s %s %s" % tuple(g(c) for c in v) + (" 1.0" if i == 3 else ""))
        lines.append("vt 0.5 0.5")
        lines.append("vn 0 0 1")
    lines.append("g sides")
    lines.append("usemtl grey")
    lines.append("s off")
    forms = ["{v}", "{v}/{v}", "{v}//{v}", "{v}/{v}/{v}"]
    for q, quad in enumerate(QUADS):
        refs = []
        for k, index in enumerate(quad):
            one_based = index + 1
            if q == 5:  # relative references: -1 is the last vertex
                one_based = index - len(VERTICES)
            refs.append(forms[(q + k) % 4].format(v=one_based))
        lines.append("f " + " ".join(refs) + ("  # a comment" if q == 2 else ""))
    lines.append("l 1 2")
    return "\r\n".join(lines) + "\r\n"


def off_box():
    lines = ["OFF", "# a comment line", "8 6 12", ""]
    for v in VERTICES:
        lines.append("%s %s %s" % tuple(g(c) for c in v))
    colours = ["", " 255 0 0", " 0.5 0.5 0.5 1", " 7", "", "  # trailing comment"]
    for quad, colour in zip(QUADS, colours):
        lines.append("4 " + " ".join(str(i) for i in quad) + colour)
    return "\n".join(lines) + "\n"


def ply_ascii_box():
    lines = ["ply", "format ascii 1.0", "comment the box of make_fixtures.py", "element vertex 8",
             "property float x", "property float y", "property float z", "property uchar red",
             "element face 6", "property list uchar int vertex_indices", "property int flags",
             "end_header"]
    for v in VERTICES:
        lines.append("%s %s %s 200" % tuple(g(c) for c in v))
    for quad in QUADS:
        lines.append("4 " + " ".join(str(i) for i in quad) + " 0")
    return "\n".join(lines) + "\n"


def ply_binary_box(big_endian):
    e = ">" if big_endian else "<"
    if big_endian:
        header = ["ply", "format binary_big_endian 1.0", "element material 2",
                  "property list ushort uchar name", "property double shininess",
                  "element face 6", "property uint8 flags", "property list uint8 uint32 vertex_index",
                  "element vertex 8", "property double x", "property double y", "property double z",
                  "property list int int16 adjacency", "end_header"]
        body = b""
        body += struct.pack(e + "H", 3) + b"abc" + struct.pack(e + "d", 0.5)
        body += struct.pack(e + "H", 0) + struct.pack(e + "d", 2.0)
        for quad in QUADS:
            body += struct.pack(e + "BB", 1, 4) + struct.pack(e + "4I", *quad)
        for v in VERTICES:
            body += struct.pack(e + "3d", *v) + struct.pack(e + "i", 2) + struct.pack(e + "2h", -1, 7)
    else:
        header = ["ply", "format binary_little_endian 1.0", "comment float32 coordinates",
                  "obj_info generated", "element vertex 8", "property float x", "property float32 y",
                  "property float z", "property uchar red", "property uchar green",
                  "property uchar blue", "element face 6", "property list uchar int vertex_indices",
                  "element edge 1", "property int vertex1", "property int vertex2", "end_header"]
        body = b""
        for v in VERTICES:
            body += struct.pack(e + "3f", *v) + bytes([10, 20, 30])
        for quad in QUADS:
            body += struct.pack(e + "B", 4) + struct.pack(e + "4i", *quad)
        body += struct.pack(e + "2i", 0, 1)
    return ("\n".join(header) + "\n").encode() + body


def stl_ascii_box():
    forms = ["{}", "{:.6e}", "{:+}", "{:.4f}"]
    lines = ["solid box"]
    for t, triangle in enumerate(TRIANGLES):
        lines.append("  facet normal 0 0 0")
        lines.append("    outer loop")
        for k, index in enumerate(triangle):
            form = forms[(t + k) % 4]
            lines.append("      vertex " + " ".join(form.format(c) for c in VERTICES[index]))
        lines.append("    endloop")
        lines.append("  endfacet")
    lines.append("endsolid box")
    return "\n".join(lines) + "\n"


def stl_binary(triangles, header=b"solid box (a binary STL whose header starts with solid)"):
    data = header.ljust(80, b" ") + struct.pack("<I", len(triangles))
    for corners in triangles:
        data += struct.pack("<3f", 0, 0, 0)
        for corner in corners:
            data += struct.pack("<3f", *corner)
        data += b"\0\0"
    return data


def box_corner_triangles():
    return [[VERTICES[i] for i in triangle] for triangle in TRIANGLES]


def valid():
    write("box.obj", obj_box())
    write("box.off", off_box())
    write("box_ascii.ply", ply_ascii_box())
    write("box_le.ply", ply_binary_box(False))
    write("box_be.ply", ply_binary_box(True))
    write("box_ascii.stl", stl_ascii_box())
    write("box_binary.stl", stl_binary(box_corner_triangles()))


# ---------------------------------------------------------------------------------------------
# malformed: one broken rule each

def obj_lines(*faces, vertices=None):
    vertices = VERTICES if vertices is None else vertices
    lines = ["v %s %s %s" % tuple(g(c) for c in v) for v in vertices]
    return "\n".join(lines + list(faces)) + "\n"


def malformed():
    # OBJ (line numbers: 8 vertex lines, then the faces)
    write("bad_obj_index_range.obj", obj_lines("f 1 2 3", "f 1 2 9"))
    write("bad_obj_index_zero.obj", obj_lines("f 0 1 2"))
    write("bad_obj_relative.obj", obj_lines("f -1 -2 -9"))
    write("bad_obj_number.obj", "v 0 0 0\nv 1.0 abc 2\n")
    write("bad_obj_missing.obj", "v 0 0 0\nv 1 2\n")
    write("bad_obj_nan.obj", "v 0 0 0\nv 1 1 1\nv nan 0 0\n")
    write("bad_obj_inf.obj", "v 0 -inf 0\n")
    write("bad_obj_overflow.obj", "v 0 0 0\nv 1e400 0 0\n")
    write("bad_obj_huge.obj", "v 0 0 0\nv 0 0 1e13\n")
    write("bad_obj_two_vertices.obj", obj_lines("f 1 2 3", "f 1 2"))
    write("bad_obj_degenerate.obj", obj_lines("f 1 2 3", "f 4 5 5"))
    write("bad_obj_degenerate_welded.obj",
          obj_lines("f 1 2 3", "f 2 3 9", vertices=VERTICES + [VERTICES[2]]))
    write("bad_obj_reference.obj", obj_lines("f 1/x/2 2 3"))
    write("bad_obj_extra.obj", "v 1 2 3 4 5 6 7 8\n")
    # OFF
    head = "OFF\n8 6 0\n" + "".join("%s %s %s\n" % tuple(g(c) for c in v) for v in VERTICES)
    faces = ["4 " + " ".join(str(i) for i in quad) for quad in QUADS]
    write("bad_off_truncated.off", "OFF\n4 1 0\n0.000000 0.000000 0.000000\n1.000000 0.000000 0.000000\n"
          "0.000000 1.000000 0.000000\n")
    write("bad_off_lying_count.off", "OFF\n1000000 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    write("bad_off_index_range.off", head + "\n".join(faces[:3] + ["4 0 1 8 2"] + faces[4:]) + "\n")
    write("bad_off_negative_index.off", head + "3 0 -1 2\n")
    write("bad_off_extra_face.off", head + "\n".join(faces + ["3 0 1 2"]) + "\n")
    write("bad_off_keyword.off", "OF\n8 6 0\n")
    write("bad_off_4d.off", "4OFF\n1 0 0\n0 0 0 0\n")
    write("bad_off_binary.off", "OFF BINARY\n")
    write("bad_off_short_face.off", head + "\n".join(faces[:1] + ["4 0 1 2"] + faces[2:]) + "\n")
    write("bad_off_colour.off", head + "\n".join(faces[:2] + ["4 0 1 2 3 255 0"]) + "\n")
    write("bad_off_count.off", "OFF\n-1 2 0\n")
    write("bad_off_huge.off", "OFF\n3 1 0\n0 0 0\n1e20 0 0\n0 1 0\n3 0 1 2\n")
    write("bad_off_two_vertices.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n")
    # STL
    text = stl_ascii_box()
    cut = text.index("endloop", text.index("facet normal", 200))
    write("bad_stl_truncated.stl", text[:cut])
    write("bad_stl_keyword.stl", text.replace("vertex", "vertx", 7).replace("vertx", "vertex", 6))
    write("bad_stl_no_endsolid.stl", text[:text.rindex("endsolid")])
    write("bad_stl_number.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 zero\n")
    binary = stl_binary(box_corner_triangles())
    write("bad_stl_binary_truncated.stl", binary[:-7])
    write("bad_stl_binary_trailing.stl", binary + b"\0\0\0\0")
    nan_triangles = box_corner_triangles()
    nan_triangles[2][1] = (0.0, float("nan"), 0.0)
    write("bad_stl_binary_nan.stl", stl_binary(nan_triangles, b"binary"))
    huge_triangles = box_corner_triangles()
    huge_triangles[1][2] = (1e30, 0.0, 0.0)
    write("bad_stl_binary_huge.stl", stl_binary(huge_triangles, b"binary"))
    degenerate = box_corner_triangles()
    degenerate[3][2] = degenerate[3][0]
    write("bad_stl_binary_degenerate.stl", stl_binary(degenerate, b"binary"))
    write("bad_stl_short.stl", b"not an stl")
    # PLY
    write("bad_ply_magic.ply", "plx\nformat ascii 1.0\nend_header\n")
    write("bad_ply_format.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n")
    write("bad_ply_type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nend_header\n")
    write("bad_ply_no_end_header.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n")
    write("bad_ply_missing_z.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
          "property float y\nend_header\n0 0\n")
    write("bad_ply_list_coordinate.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
          "property float y\nproperty list uchar float z\nend_header\n")
    ascii_box = ply_ascii_box()
    write("bad_ply_index_range.ply", ascii_box.replace("\n4 ", "\n4 8 ", 1).replace(" 0\n", "\n", 1)
          if False else ascii_box.replace("4 0 1 2 3 0", "4 0 1 2 8 0"))
    write("bad_ply_uchar.ply", ascii_box.replace("200", "300", 1))
    write("bad_ply_lying_count.ply", ascii_box.replace("element vertex 8", "element vertex 800000"))
    write("bad_ply_extra.ply", ascii_box + "4 0 1 2 3 0\n")
    write("bad_ply_two_vertices.ply", ascii_box.replace("4 0 1 2 3 0", "2 0 1 0"))
    le = ply_binary_box(False)
    write("bad_ply_binary_truncated.ply", le[:-20])
    write("bad_ply_binary_trailing.ply", le + b"\0")
    be = ply_binary_box(True)
    body = be.index(b"end_header\n") + len(b"end_header\n")
    # the first vertex's y (double) is NaN: material 0 (2 + 3 + 8), material 1 (2 + 8), 6 faces (18)
    first_vertex = body + 13 + 10 + 6 * 18
    nan_be = be[:first_vertex + 8] + struct.pack(">d", float("nan")) + be[first_vertex + 16:]
    write("bad_ply_binary_nan.ply", nan_be)
    # face 2's third index (uint32) is 99
    face2 = body + 23 + 2 * 18 + 2 + 2 * 4
    write("bad_ply_binary_index.ply", be[:face2] + struct.pack(">I", 99) + be[face2 + 4:])
    # the material name list claims 60000 chars
    write("bad_ply_binary_list.ply", be[:body] + struct.pack(">H", 60000) + be[body + 2:])
    print("first vertex of box_be.ply at byte", first_vertex, "face 2 third index at", face2,
          "body at", body)


def main():
    valid()
    malformed()
    print("vertices", VERTICES)
    print("triangles", TRIANGLES)


if __name__ == "__main__":
    main()
