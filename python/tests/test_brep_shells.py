"""B-Rep shells: STEP files with several solids and assembly placements read into one Brep with a
shell per placed solid (Brep.shells, Brep.shell(i), the import report's instances). The oracle is
OpenCASCADE 8.0's reading of the same fixtures, the tables of tests/test_brep_step.c (written by
tests/data/step/make_fixtures.py): each solid's location and bounding box in millimetres."""

import os

import numpy as np
import pytest

import osculate as osc

STEP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                    "step")

# file: [(translation, rotation row by row, box lo, box hi)] per OpenCASCADE solid
# (tests/test_brep_step.c, k_asm_placed ... k_two_solids)
OCC = {
    "asm_placed.step": [
        ((100, -50, 25), (0.781639173907, -0.482929284214, 0.394739798174, 0.550117230704,
                          0.832030133775, -0.0713924994179, -0.293957878439, 0.272956338888,
                          0.916015066887),
         (90.34141432, -52.14177498, 22.06042122), (119.6585857, -27.85822502, 61.02138391))],
    "asm_twice.step": [
        ((40, 0, 0), (0.87758256189, -0.479425538604, 0, 0.479425538604, 0.87758256189, 0, 0, 0,
                      1),
         (30.41148923, 0, 0), (48.77582562, 22.34590662, 38)),
        ((-15, 60, 5), (0.213251757474, -0.932497736296, -0.29149898754, -0.326299451746,
                        0.213251757474, -0.920897581561, 0.920897581561, 0.29149898754,
                        -0.258797188042),
         (-42.39492435, 23.90548902, -3.320433657), (-12.86748243, 64.26503515, 20.03895557))],
    "asm_nested.step": [
        ((5.46221443036, 101.956368347, -23.5706270595),
         (0.754002545902, 0.655107928193, -0.0481015923971, -0.652996431512, 0.755484478853,
          0.0532809782531, 0.0712447977397, -0.00876382506566, 0.997420359811),
         (4.019166658, 95.42640403, -23.74590356), (26.10439845, 118.6644873, 14.68948019)),
        ((-16.8099849953, 114.600463283, -27.9382346423),
         (0.706111152468, 0.0576190925162, -0.705752846638, -0.608085712588, 0.560027937974,
          -0.562672617811, 0.3628206258, 0.826467633284, 0.430479319629),
         (-68.62606281, 67.93288437, -43.88469334), (19.74183351, 152.7873577, 35.89188326)),
        ((70, 0, 0), (0.947373996002, -0.19851778276, 0.251143786758, 0.251143786758,
                      0.947373996002, -0.19851778276, -0.19851778276, 0.251143786758,
                      0.947373996002),
         (66.02964434, -5.955533483, -1.985177828), (87.00805356, 21.45891779, 37.20955589))],
    "asm_mapped.step": [
        ((30, -10, 5), (1, 0, 0, 0, 0.621609968271, 0.783326909627, 0, -0.783326909627,
                        0.621609968271),
         (27, -11.24321994, 0.3000385422), (35, -2.341076744, 8.959606323)),
        ((9.80930034813, -7, 7.53509301072), (0.621609968271, 0, -0.783326909627, 0, 1, 0,
                                              0.783326909627, 0, 0.621609968271),
         (4.015206997, -9, 5.185112282), (12.91735019, -1, 13.84468006))],
    "two_solids.step": [
        ((0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1), (0, 0, 0), (4, 5, 6)),
        ((0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1), (10, 0, 0), (13, 3, 3))],
}


def rotation(q):
    w, x, y, z = np.asarray(q) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def edge_box(brep):
    """The box of a solid's vertices and of 4097 samples of each edge (line o + t axis, circle
    o + R (cos t ref + sin t axis x ref)): where the extremes of these solids lie (planes, and
    cylinders and cones, which are ruled), as in test_brep_step.c's shell_box."""
    d = brep.description()
    e = d.edges
    t = e["t0"][:, None] + (e["t1"] - e["t0"])[:, None] * np.linspace(0.0, 1.0, 4097)[None, :]
    line = e["origin"][:, None] + t[..., None] * e["axis"][:, None]
    side = np.cross(e["axis"], e["ref"])
    circle = e["origin"][:, None] + e["radius"][:, None, None] * (
        np.cos(t)[..., None] * e["ref"][:, None] + np.sin(t)[..., None] * side[:, None])
    points = np.where((e["type"] == 0)[:, None, None], line, circle).reshape(-1, 3)
    points = np.concatenate([points, d.vertices])
    return points.min(axis=0), points.max(axis=0)


@pytest.mark.parametrize("name", sorted(OCC))
def test_placed_solids_against_opencascade(name):
    brep = osc.Brep.load_step(os.path.join(STEP, name))
    expected = OCC[name]
    n = len(expected)
    r = brep.import_report
    assert (r["instances"], r["instances_imported"], r["instances_skipped"]) == (n, n, 0)
    assert r["first_skipped"] == "" and r["length_unit"] == pytest.approx(0.001, abs=1e-15)
    shells = brep.shells
    assert len(shells) == n
    # the shells tile the description's tables in order
    for key, count in (("faces", "face_count"), ("edges", "edge_count"),
                       ("vertices", "vertex_count")):
        ranges = [getattr(s, key) for s in shells]
        assert ranges[0].start == 0 and ranges[-1].stop == brep.info[count]
        assert all(a.stop == b.start for a, b in zip(ranges, ranges[1:]))
    parts = [brep.shell(i) for i in range(n)]
    boxes = [edge_box(p) for p in parts]
    used = set()
    for translation, rows, lo, hi in expected:
        size = np.linalg.norm(np.subtract(hi, lo))
        middle = 0.5 * (np.add(lo, hi))
        # the shell nearest by placement and by its box's centre (two solids may share a placement)
        gaps = [np.linalg.norm(s.placement[:3] - translation) +
                np.abs(rotation(s.placement[3:]) - np.reshape(rows, (3, 3))).sum() for s in shells]
        best = min(range(n), key=lambda i: gaps[i] + np.linalg.norm(0.5 * sum(boxes[i]) - middle))
        assert best not in used
        used.add(best)
        assert gaps[best] <= 1e-9 * (1 + size), "%s shell %d: placement %g off" % (name, best,
                                                                                  gaps[best])
        np.testing.assert_allclose(boxes[best][0], lo, rtol=0, atol=1e-6 * size)
        np.testing.assert_allclose(boxes[best][1], hi, rtol=0, atol=1e-6 * size)
        assert shells[best].depth >= (0 if name == "two_solids.step" else 1)


def test_a_shell_taken_apart_is_that_part_of_the_model():
    brep = osc.Brep.load_step(os.path.join(STEP, "asm_nested.step"))
    whole = brep.description()
    for i, s in enumerate(brep.shells):
        part = brep.shell(i, plane_cell=0.5)
        d = part.description()
        np.testing.assert_array_equal(d.vertices, whole.vertices[s.vertices.start:
                                                                  s.vertices.stop])
        assert len(d.faces) == len(s.faces) and len(d.edges) == len(s.edges)
        for k in ("umin", "umax", "vmin", "vmax"):
            np.testing.assert_array_equal(d.faces[k], whole.faces[k][s.faces.start:s.faces.stop])
        own = whole.surfaces[whole.faces["surface"][s.faces.start:s.faces.stop]]
        for k in own.dtype.names:  # (building a solid normalises its frames again: to rounding)
            np.testing.assert_allclose(d.surfaces[k], own[k], rtol=0, atol=1e-12 * 200, err_msg=k)
        (alone,) = part.shells  # its one shell keeps the placement, scale, id, depth and name
        assert (alone.faces, alone.edges, alone.vertices) == (range(len(s.faces)),
                                                              range(len(s.edges)),
                                                              range(len(s.vertices)))
        np.testing.assert_array_equal(alone.placement, s.placement)
        assert (alone.scale, alone.solid_id, alone.depth, alone.name) == (s.scale, s.solid_id,
                                                                          s.depth, s.name)
        assert part.import_report is None
    # the sub-assembly's part in centimetres is scaled into the model's millimetres
    assert sorted(s.scale for s in brep.shells) == [1.0, 1.0, 10.0]
    # a part alone, at its own pose, has the gap the whole model has to it (box below each)
    slab = osc.Brep.box([500.0, 500.0, 1.0])
    pose_slab = osc.pose([0.0, 0.0, -100.0])
    part = brep.shell(2)
    lo = edge_box(part)[0][2]
    r = osc.lmd(slab, pose_slab, part, osc.pose(), d_max=100.0)
    assert r.distance.min() == pytest.approx(lo - (-99.0), rel=1e-9)
    with pytest.raises(osc.InvalidArgumentError, match="index 3 is outside"):
        brep.shell(3)
    with pytest.raises(osc.InvalidArgumentError, match="index -1 is outside"):
        brep.shell(-1)
    with pytest.raises(OverflowError, match="index"):
        brep.shell(2 ** 40)
    with pytest.raises(TypeError, match="index"):
        brep.shell(1.0)


def test_a_builder_solid_is_one_shell():
    box = osc.Brep.box([1.0, 2.0, 3.0])
    (s,) = box.shells
    assert (s.faces, s.edges, s.vertices) == (range(6), range(12), range(8))
    np.testing.assert_array_equal(s.placement, osc.pose())
    assert (s.scale, s.solid_id, s.depth, s.name) == (1.0, 0, 0, "")
    assert osc.Brep.sphere(1.0).shells[0].edges == range(0)
    peg = osc.Brep.load_step(os.path.join(STEP, "peg.step"))
    (s,) = peg.shells
    assert (s.solid_id, s.depth, s.name) == (10, 0, "it's a peg")
    box.close()
    with pytest.raises(ValueError, match="closed"):
        box.shells
    with pytest.raises(ValueError, match="closed"):
        box.shell(0)


# entities appended to peg.step (test_brep_step.c, test_placements): frames, and the peg (#1)
# placed by mapped items
FRAMES = ("#950 = CARTESIAN_POINT('',(1.,2.,3.));\n#951 = DIRECTION('',(1.,0.,0.));\n"
          "#952 = DIRECTION('',(0.,0.,1.));\n#953 = AXIS2_PLACEMENT_3D('origin',#950,#951,#952);\n"
          "#960 = CARTESIAN_POINT('',(10.,20.,30.));\n#961 = DIRECTION('',(0.,0.6,0.8));\n"
          "#962 = DIRECTION('',(1.,0.,0.));\n#963 = AXIS2_PLACEMENT_3D('target',#960,#961,#962);\n"
          "#972 = DIRECTION('',(0.,-0.8,0.6));\n")
END = "ENDSEC;\nEND-ISO-10303-21;"


def peg_with(extra):
    text = open(os.path.join(STEP, "peg.step")).read()
    assert text.count(END) == 1
    return text.replace(END, FRAMES + extra + END)


def test_mapped_items_scale_and_mirroring():
    peg = osc.Brep.load_step(os.path.join(STEP, "peg.step"))
    # a CARTESIAN_TRANSFORMATION_OPERATOR_3D of scale 2 with axes z' = (0, 0.6, 0.8), x' = x at
    # (10, 20, 30): the peg's vertices move by x -> 2 R x + t
    scaled = osc.Brep.read_step(peg_with(
        "#900 = SHAPE_REPRESENTATION('top',(#901,#2),#105);\n"
        "#901 = MAPPED_ITEM('scaled',#902,#970);\n#902 = REPRESENTATION_MAP(#2,#1);\n"
        "#970 = CARTESIAN_TRANSFORMATION_OPERATOR_3D('','','',#962,$,#960,2.,#961);\n"))
    (s,) = scaled.shells
    z = np.array([0.0, 0.6, 0.8])
    frame = np.stack([[1.0, 0.0, 0.0], np.cross(z, [1.0, 0.0, 0.0]), z], axis=1)
    np.testing.assert_allclose(rotation(s.placement[3:]), frame, atol=1e-12)
    np.testing.assert_allclose(s.placement[:3], [10, 20, 30], atol=1e-12)
    assert (s.scale, s.depth, s.solid_id, s.name) == (2.0, 1, 10, "it's a peg")
    np.testing.assert_allclose(scaled.description().vertices,
                               2.0 * peg.description().vertices @ frame.T + [10, 20, 30],
                               atol=1e-12 * 40)
    # a mirroring operator beside a plain placement: refused naming it, or skipped and counted
    mirrored = peg_with(
        "#900 = SHAPE_REPRESENTATION('top',(#901,#903,#2),#105);\n"
        "#901 = MAPPED_ITEM('mirrored',#902,#971);\n#903 = MAPPED_ITEM('plain',#902,#963);\n"
        "#902 = REPRESENTATION_MAP(#2,#1);\n"
        "#971 = CARTESIAN_TRANSFORMATION_OPERATOR_3D('','','',#962,#972,#960,1.,#961);\n")
    with pytest.raises(osc.UnsupportedError, match="#901 MAPPED_ITEM: a mirroring placement") as e:
        osc.Brep.read_step(mirrored)
    assert e.value.report["instances"] == 2
    kept = osc.Brep.read_step(mirrored, skip_unsupported=True)
    r = kept.import_report
    assert (r["instances"], r["instances_imported"], r["instances_skipped"]) == (2, 1, 1)
    assert "#901 MAPPED_ITEM: a mirroring placement" in r["first_skipped"]
    (s,) = kept.shells
    np.testing.assert_allclose(s.placement[:3], [10, 20, 30], atol=1e-12)
    assert len(kept.shells) == r["instances_imported"]


# KiCad parts (tests/data/step/kicad, LICENSE.md there) as OpenCASCADE 8.0 reads them
# (tests/data/step/kicad/reference.py; the table of test_brep_step.c's test_kicad_parts): per solid
# its face count, exact box, and the least distance to a copy of itself turned by 0.5 rad about
# (1, 2, 3) through its centre of mass and moved by (1.05, 0.2, 0.1) times its diagonal (the copy's
# pose: translation, quaternion w x y z).
TURN = (0.96891242171064473, 0.066121489404414646, 0.13224297880882929, 0.19836446821324394)
KICAD = {
    "LED_D3.0mm_Horizontal_O1.27mm_Z2.0mm.step": [
        (33, (-0.3, -6.57, -2), (3.17, 0.3, 3.9),
         (8.6336054581975681, 1.2807995447348826, 1.9253294414577395), 5.0199836512375819)],
    "R_Axial_DIN0204_L3.6mm_D1.6mm_P2.54mm_Vertical.step": [
        (17, (-0.8000001, -0.8, -3), (2.7900001, 0.8, 6.6),
         (10.245151019233916, 2.0488673635298511, 1.2702070317663343), 6.7330306042955206)],
    "RV_Disc_D7mm_W4.3mm_P5mm.step": [
        (11, (-1.0000001, -3.1500001, -3.0000001), (6.0000001, 1.1500001, 7.0300001),
         (12.551996192302608, 1.762945185702812, 2.2036140260160093), 6.696011227806939)],
    "LED_D20.0mm.step": [
        (18, (-8.73, -11.5, -1.25), (12.77, 11.5, 16.5),
         (35.57515343005349, 7.3394902285246149, 4.3320068366473894), 16.156680555264423),
        (2, (-0.23, -1.5, 7.5), (2.77, 1.5, 8.99999999994),
         (2.4328368093046757, 1.0422375924709799, 1.1192293352400924), 2.1290870698245667)],
    "L_Axial_L26.0mm_D11.0mm_P7.62mm_Vertical_Fastron_77A.step": [
        (27, (-5.5, -5.5, -3.0000044912), (8.07, 5.5, 29.2500001),
         (34.814800931140589, 8.2949751804509226, 4.2600422503476381), 22.84177665307292)],
}


@pytest.mark.parametrize("name", sorted(KICAD))
def test_kicad_parts_against_opencascade(name):
    brep = osc.Brep.load_step(os.path.join(STEP, "kicad", name))
    expected = KICAD[name]
    faces = sum(e[0] for e in expected)
    r = brep.import_report
    assert (r["faces_read"], r["faces_imported"]) == (faces, faces)
    assert (r["instances"], r["instances_imported"]) == (len(expected), len(expected))
    for count, lo, hi, translation, distance in expected:
        # the shell of OpenCASCADE's solid: its face count is unique in the file
        (index,) = [i for i, s in enumerate(brep.shells) if len(s.faces) == count]
        part = brep.shell(index)
        size = np.linalg.norm(np.subtract(hi, lo))
        info = part.info
        assert np.all(np.asarray(info["lo"]) <= np.add(lo, 1e-6 * size))
        assert np.all(np.asarray(info["hi"]) >= np.subtract(hi, 1e-6 * size))
        contacts = osc.lmd(part, osc.pose(), part, osc.pose(translation, TURN), d_max=1.5 * distance)
        assert len(contacts) > 0
        assert abs(contacts.distance.min() - distance) <= 1e-9 * size
