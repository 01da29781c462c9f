#!/usr/bin/env python3
"""Writes the assembly fixtures of tests/data/step with OpenCASCADE (PyPI cadquery-ocp-novtk) and
prints the reference numbers test_brep_step.c checks them against, as OpenCASCADE reads the same
files back.

usage: make_fixtures.py write      # (re)writes the fixtures below into this directory
       make_fixtures.py reference  # prints, per file, OpenCASCADE's solids as a C table
       make_fixtures.py nurbs      # (re)writes nurbs_pair.step and prints OpenCASCADE's distances
                                   # between its solids at the poses of test_brep_step.c

Fixtures (lengths in millimetres unless said):
  asm_placed.step   part P (a 10 x 20 x 30 box with a cylindrical boss) placed once by a rotation
                    and a translation (NEXT_ASSEMBLY_USAGE_OCCURRENCE, CONTEXT_DEPENDENT_SHAPE_
                    REPRESENTATION, REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION,
                    ITEM_DEFINED_TRANSFORMATION; written through XCAF by STEPCAFControl_Writer)
  asm_twice.step    the same part P instanced twice at two placements
  asm_nested.step   a top assembly holding P and a placed sub-assembly, which holds P and part Q (a
                    cone frustum) whose representation's length unit is edited to centimetres
  asm_mapped.step   Q's representation placed twice by MAPPED_ITEMs of one REPRESENTATION_MAP in the
                    assembly's SHAPE_REPRESENTATION (text written here around OpenCASCADE's part):
                    one mapping target is a placement (origin at the identity), the other maps a
                    non-identity origin onto the identity
  two_solids.step   two boxes in one SHAPE_REPRESENTATION (write.step.assembly off)
  cone_apex.step    a solid cone reaching its apex (radius 3, height 5)
  nurbs_pair.step   two solids with free-form faces in one SHAPE_REPRESENTATION: a loft
                    (BRepOffsetAPI_ThruSections, smooth) through a circle of radius 10 at z = 0, an
                    ellipse (13, 8) about (1, 0, 15) and a circle of radius 6 at z = 30 (a
                    B_SPLINE_SURFACE_WITH_KNOTS between two planes), and a torus (R 8, r 3) turned
                    into rational B-splines by BRepBuilderAPI_NurbsConvert (every face and edge a
                    NURBS), turned by 1.2 rad about x and moved to (26, 2, 15)
"""

import math
import os
import re
import sys

from OCP.BRepAlgoAPI import BRepAlgoAPI_Fuse
from OCP.BRepBndLib import BRepBndLib
from OCP.BRepGProp import BRepGProp
from OCP.BRepPrimAPI import BRepPrimAPI_MakeBox, BRepPrimAPI_MakeCone, BRepPrimAPI_MakeCylinder
from OCP.BRep import BRep_Builder
from OCP.Bnd import Bnd_Box
from OCP.GProp import GProp_GProps
from OCP.IFSelect import IFSelect_RetDone
from OCP.Interface import Interface_Static
from OCP.STEPCAFControl import STEPCAFControl_Writer
from OCP.STEPControl import STEPControl_AsIs, STEPControl_Controller, STEPControl_Reader, STEPControl_Writer
from OCP.TCollection import TCollection_ExtendedString
from OCP.TDocStd import TDocStd_Document
from OCP.TopAbs import TopAbs_SOLID
from OCP.TopExp import TopExp_Explorer
from OCP.TopLoc import TopLoc_Location
from OCP.TopoDS import TopoDS_Compound
from OCP.XCAFDoc import XCAFDoc_DocumentTool
from OCP.gp import gp_Ax1, gp_Ax2, gp_Dir, gp_Pnt, gp_Trsf, gp_Vec

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ("asm_placed.step", "asm_twice.step", "asm_nested.step", "asm_mapped.step", "two_solids.step",
         "cone_apex.step")


def part_p():
    box = BRepPrimAPI_MakeBox(gp_Pnt(0, 0, 0), 10.0, 20.0, 30.0).Shape()
    boss = BRepPrimAPI_MakeCylinder(gp_Ax2(gp_Pnt(3, 4, 30), gp_Dir(0, 0, 1)), 2.5, 8.0).Shape()
    return BRepAlgoAPI_Fuse(box, boss).Shape()


def part_q():
    return BRepPrimAPI_MakeCone(gp_Ax2(gp_Pnt(1, 2, 0), gp_Dir(0, 0, 1)), 4.0, 1.5, 7.0).Shape()


def placement(axis, angle, translation):
    rotation = gp_Trsf()
    rotation.SetRotation(gp_Ax1(gp_Pnt(0, 0, 0), gp_Dir(*axis)), angle)
    shift = gp_Trsf()
    shift.SetTranslation(gp_Vec(*translation))
    return TopLoc_Location(shift * rotation)


def init_writer(assembly=True):
    STEPControl_Controller.Init_s()
    Interface_Static.SetIVal_s("write.surfacecurve.mode", 0)  # no pcurves: small files
    Interface_Static.SetIVal_s("write.step.assembly", 1 if assembly else 0)


def write_document(path, build):
    init_writer()
    doc = TDocStd_Document(TCollection_ExtendedString("XmlOcaf"))
    tool = XCAFDoc_DocumentTool.ShapeTool_s(doc.Main())
    build(tool)
    tool.UpdateAssemblies()
    writer = STEPCAFControl_Writer()
    writer.Transfer(doc, STEPControl_AsIs)
    writer.Write(path)


def write_shape(path, shape, assembly=True):
    init_writer(assembly)
    writer = STEPControl_Writer()
    writer.Transfer(shape, STEPControl_AsIs)
    writer.Write(path)


def asm_placed(tool):
    p = tool.AddShape(part_p(), False)
    top = tool.NewShape()
    tool.AddComponent(top, p, placement((1, 2, 3), 0.7, (100, -50, 25)))


def asm_twice(tool):
    p = tool.AddShape(part_p(), False)
    top = tool.NewShape()
    tool.AddComponent(top, p, placement((0, 0, 1), 0.5, (40, 0, 0)))
    tool.AddComponent(top, p, placement((1, -1, 0.5), 2.0, (-15, 60, 5)))


def asm_nested(tool):
    p = tool.AddShape(part_p(), False)
    q = tool.AddShape(part_q(), False)
    sub = tool.NewShape()
    tool.AddComponent(sub, p, placement((0, 1, 0), 0.3, (5, 5, 5)))
    tool.AddComponent(sub, q, placement((1, 0, 0), 1.1, (-20, 0, 10)))
    top = tool.NewShape()
    tool.AddComponent(top, sub, placement((0.2, 0.5, 1), -0.8, (0, 100, -30)))
    tool.AddComponent(top, p, placement((1, 1, 1), 0.4, (70, 0, 0)))


def instance_line(text, number):
    match = re.search(r"^#%d\s*=.*?;" % number, text, re.M | re.S)
    return match


def context_of(text, representation):
    """the context id of representation #representation"""
    line = instance_line(text, representation).group(0)
    return int(re.findall(r"#(\d+)", line)[-1])


def to_centimetres(text, representation):
    """edits the length unit of the context of `representation` to centimetres"""
    context = instance_line(text, context_of(text, representation)).group(0)
    units = re.search(r"GLOBAL_UNIT_ASSIGNED_CONTEXT\s*\(\s*\(([^)]*)\)", context).group(1)
    for unit in re.findall(r"#(\d+)", units):
        match = instance_line(text, int(unit))
        if "LENGTH_UNIT" in match.group(0):
            edited = match.group(0).replace(".MILLI.", ".CENTI.")
            return text[:match.start()] + edited + text[match.end():]
    raise RuntimeError("no length unit")


def representation_of(text, solid_text):
    """the ADVANCED_BREP_SHAPE_REPRESENTATION whose items hold the solid"""
    for match in re.finditer(r"^#(\d+)\s*=\s*ADVANCED_BREP_SHAPE_REPRESENTATION\(.*?;", text, re.M | re.S):
        yield int(match.group(1)), match.group(0)


def write_nested(path):
    write_document(path, asm_nested)
    with open(path) as f:
        text = f.read()
    # Q is the representation whose solid has a CONICAL_SURFACE
    for number, line in representation_of(text, None):
        solid = int(re.findall(r"#(\d+)", line)[-2])
        shell = int(re.findall(r"#(\d+)", instance_line(text, solid).group(0))[-1])
        faces = re.findall(r"#(\d+)", instance_line(text, shell).group(0))[1:]
        if any("CONICAL_SURFACE" in instance_line(text, int(re.findall(r"#(\d+)", instance_line(
                text, int(face)).group(0))[-1])).group(0) for face in faces):
            text = to_centimetres(text, number)
            break
    with open(path, "w") as f:
        f.write(text)


def write_mapped(path):
    write_shape(path, part_q())
    with open(path) as f:
        text = f.read()
    absr = int(re.search(r"^#(\d+)\s*=\s*ADVANCED_BREP_SHAPE_REPRESENTATION", text, re.M).group(1))
    part_pd = int(re.search(r"^#(\d+)\s*=\s*PRODUCT_DEFINITION\(", text, re.M).group(1))
    context = context_of(text, absr)
    app = int(re.search(r"^#(\d+)\s*=\s*APPLICATION_CONTEXT", text, re.M).group(1))
    n = max(int(x) for x in re.findall(r"^#(\d+)", text, re.M)) + 1

    def axis(i, origin, z, x):
        return ("#%d = AXIS2_PLACEMENT_3D('',#%d,#%d,#%d);\n#%d = CARTESIAN_POINT('',(%r,%r,%r));\n"
                "#%d = DIRECTION('',(%r,%r,%r));\n#%d = DIRECTION('',(%r,%r,%r));\n"
                % (i, i + 1, i + 2, i + 3, i + 1, *origin, i + 2, *z, i + 3, *x))

    c, s = math.cos(0.9), math.sin(0.9)
    extra = (
        "#%d = PRODUCT('mapped assembly','mapped assembly','',(#%d));\n" % (n, n + 1)
        + "#%d = PRODUCT_CONTEXT('',#%d,'mechanical');\n" % (n + 1, app)
        + "#%d = PRODUCT_DEFINITION_FORMATION('','',#%d);\n" % (n + 2, n)
        + "#%d = PRODUCT_DEFINITION_CONTEXT('part definition',#%d,'design');\n" % (n + 3, app)
        + "#%d = PRODUCT_DEFINITION('design','',#%d,#%d);\n" % (n + 4, n + 2, n + 3)
        + "#%d = PRODUCT_DEFINITION_SHAPE('','',#%d);\n" % (n + 5, n + 4)
        + "#%d = SHAPE_DEFINITION_REPRESENTATION(#%d,#%d);\n" % (n + 6, n + 5, n + 7)
        + "#%d = SHAPE_REPRESENTATION('mapped',(#%d,#%d,#%d),#%d);\n" % (n + 7, n + 10, n + 11, n + 20, context)
        + "#%d = NEXT_ASSEMBLY_USAGE_OCCURRENCE('1','q','',#%d,#%d,$);\n" % (n + 8, n + 4, part_pd)
        + "#%d = REPRESENTATION_MAP(#%d,#%d);\n" % (n + 9, n + 20, absr)
        + "#%d = MAPPED_ITEM('first',#%d,#%d);\n" % (n + 10, n + 9, n + 24)
        + "#%d = MAPPED_ITEM('second',#%d,#%d);\n" % (n + 11, n + 12, n + 20)
        + "#%d = REPRESENTATION_MAP(#%d,#%d);\n" % (n + 12, n + 28, absr)
        + axis(n + 20, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 0.0))
        + axis(n + 24, (30.0, -10.0, 5.0), (0.0, s, c), (1.0, 0.0, 0.0))
        + axis(n + 28, (-12.0, 7.0, 3.0), (s, 0.0, c), (c, 0.0, -s)))
    text = text.replace("ENDSEC;\nEND-ISO", extra + "ENDSEC;\nEND-ISO")
    with open(path, "w") as f:
        f.write(text)


def write_all():
    write_document(os.path.join(HERE, "asm_placed.step"), asm_placed)
    write_document(os.path.join(HERE, "asm_twice.step"), asm_twice)
    write_nested(os.path.join(HERE, "asm_nested.step"))
    write_mapped(os.path.join(HERE, "asm_mapped.step"))
    pair = TopoDS_Compound()
    builder = BRep_Builder()
    builder.MakeCompound(pair)
    builder.Add(pair, BRepPrimAPI_MakeBox(gp_Pnt(0, 0, 0), 4.0, 5.0, 6.0).Shape())
    builder.Add(pair, BRepPrimAPI_MakeBox(gp_Pnt(10, 0, 0), 3.0, 3.0, 3.0).Shape())
    write_shape(os.path.join(HERE, "two_solids.step"), pair, assembly=False)
    write_shape(os.path.join(HERE, "cone_apex.step"), BRepPrimAPI_MakeCone(3.0, 0.0, 5.0).Shape())


def nurbs_pair():
    from OCP.BRepBuilderAPI import BRepBuilderAPI_MakeEdge, BRepBuilderAPI_MakeWire, BRepBuilderAPI_NurbsConvert
    from OCP.BRepBuilderAPI import BRepBuilderAPI_Transform
    from OCP.BRepOffsetAPI import BRepOffsetAPI_ThruSections
    from OCP.BRepPrimAPI import BRepPrimAPI_MakeTorus
    from OCP.gp import gp_Circ, gp_Elips

    def wire(curve):
        return BRepBuilderAPI_MakeWire(BRepBuilderAPI_MakeEdge(curve).Edge()).Wire()

    loft = BRepOffsetAPI_ThruSections(True, False)
    loft.AddWire(wire(gp_Circ(gp_Ax2(gp_Pnt(0, 0, 0), gp_Dir(0, 0, 1)), 10.0)))
    loft.AddWire(wire(gp_Elips(gp_Ax2(gp_Pnt(1, 0, 15), gp_Dir(0, 0, 1)), 13.0, 8.0)))
    loft.AddWire(wire(gp_Circ(gp_Ax2(gp_Pnt(0, 0, 30), gp_Dir(0, 0, 1)), 6.0)))
    loft.Build()
    torus = BRepBuilderAPI_NurbsConvert(BRepPrimAPI_MakeTorus(gp_Ax2(gp_Pnt(0, 0, 0), gp_Dir(0, 0, 1)), 8.0,
                                                              3.0).Shape(), True).Shape()
    moved = BRepBuilderAPI_Transform(torus, placement((1, 0, 0), 1.2, (26.0, 2.0, 15.0)).Transformation(),
                                     True).Shape()
    return loft.Shape(), moved


# the poses of the second solid of nurbs_pair.step (x -> R x + t in the model's frame, R about the
# axis through the origin) at which test_brep_step.c compares the distances
NURBS_POSES = (((0, 0, 1), 0.0, (0, 0, 0)), ((0, 0, 1), 0.3, (0, 0, 0)), ((1, 1, 0), -0.4, (-2, 3, 1)),
               ((0, 1, 0), 0.25, (1.5, -4, -6)), ((1, 0, 0), 0.6, (-3, 0, 5)), ((1, 2, 3), 2.0, (3, 1, -2)))


def write_nurbs():
    from OCP.BRepBuilderAPI import BRepBuilderAPI_Transform
    from OCP.BRepExtrema import BRepExtrema_DistShapeShape

    path = os.path.join(HERE, "nurbs_pair.step")
    loft, torus = nurbs_pair()
    pair = TopoDS_Compound()
    builder = BRep_Builder()
    builder.MakeCompound(pair)
    builder.Add(pair, loft)
    builder.Add(pair, torus)
    write_shape(path, pair, assembly=False)
    # read back, as the test does
    reader = STEPControl_Reader()
    if reader.ReadFile(path) != IFSelect_RetDone:
        raise RuntimeError(path)
    reader.TransferRoots()
    solids = []
    explorer = TopExp_Explorer(reader.OneShape(), TopAbs_SOLID)
    while explorer.More():
        solids.append(explorer.Current())
        explorer.Next()
    for axis, angle, translation in NURBS_POSES:
        moved = BRepBuilderAPI_Transform(solids[1], placement(axis, angle, translation).Transformation(),
                                         True).Shape()
        tool = BRepExtrema_DistShapeShape(solids[0], moved)
        kinds = ",".join("%s/%s" % (str(tool.SupportTypeShape1(i)).split("_")[-1],
                                    str(tool.SupportTypeShape2(i)).split("_")[-1])
                         for i in range(1, tool.NbSolution() + 1))
        print("    {{%g, %g, %g}, %.17g, {%g, %g, %g}, %.17g}, // %s" % (axis + (angle,) + translation +
                                                                         (tool.Value(), kinds)))


def reference():
    for name in FILES:
        reader = STEPControl_Reader()
        if reader.ReadFile(os.path.join(HERE, name)) != IFSelect_RetDone:
            raise RuntimeError(name)
        reader.TransferRoots()
        shape = reader.OneShape()
        print("// %s" % name)
        explorer = TopExp_Explorer(shape, TopAbs_SOLID)
        while explorer.More():
            solid = explorer.Current()
            props = GProp_GProps()
            BRepGProp.VolumeProperties_s(solid, props)
            centre = props.CentreOfMass()
            box = Bnd_Box()
            BRepBndLib.AddOptimal_s(solid, box, False, False)
            lo, hi = box.CornerMin(), box.CornerMax()
            t = solid.Location().Transformation()
            rotation = [[t.Value(r, c) / t.ScaleFactor() for c in (1, 2, 3)] for r in (1, 2, 3)]
            translation = t.TranslationPart()
            print("    {%.10g, {%.10g, %.10g, %.10g}, {%.10g, %.10g, %.10g}, {%.10g, %.10g, %.10g},"
                  % (props.Mass(), centre.X(), centre.Y(), centre.Z(), lo.X(), lo.Y(), lo.Z(), hi.X(), hi.Y(), hi.Z()))
            print("     {%.12g, %.12g, %.12g}, {%s}}," % (translation.X(), translation.Y(), translation.Z(),
                  ", ".join("%.12g" % v for row in rotation for v in row)))
            explorer.Next()


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("write", "reference", "nurbs"):
        sys.exit(__doc__)
    {"write": write_all, "reference": reference, "nurbs": write_nurbs}[sys.argv[1]]()
