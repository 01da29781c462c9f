#!/usr/bin/env python3
"""Prints what OpenCASCADE reads from the KiCad fixtures of this directory, as the C table that
tests/test_brep_step.c (test_kicad_parts) checks osculate's import against.

usage: reference.py   (needs OpenCASCADE's Python binding: PyPI cadquery-ocp-novtk 8.0.1.1.0, as
                       tools/occ_oracle.py --install puts into build/occ-venv)

Per file: the number of solids and of faces (STEPControl_Reader, TopExp_Explorer), and per solid
its face count, its exact box (BRepBndLib::AddOptimal), and the minimum distance
(BRepExtrema_DistShapeShape) between it and a copy of itself turned by 0.5 rad about (1, 2, 3)
through its centre of mass and moved by (1.05, 0.2, 0.1) times its box diagonal, given as the
copy's pose (quaternion w x y z, translation) so that the test moves osculate's shell the same way.
"""

import math
import os
import sys

from OCP.BRepBndLib import BRepBndLib
from OCP.BRepBuilderAPI import BRepBuilderAPI_Transform
from OCP.BRepExtrema import BRepExtrema_DistShapeShape
from OCP.BRepGProp import BRepGProp
from OCP.Bnd import Bnd_Box
from OCP.GProp import GProp_GProps
from OCP.STEPControl import STEPControl_Reader
from OCP.TopAbs import TopAbs_FACE, TopAbs_SOLID
from OCP.TopExp import TopExp_Explorer
from OCP.gp import gp_Ax1, gp_Dir, gp_Pnt, gp_Trsf, gp_Vec

FILES = ["LED_D3.0mm_Horizontal_O1.27mm_Z2.0mm.step", "R_Axial_DIN0204_L3.6mm_D1.6mm_P2.54mm_Vertical.step",
         "RV_Disc_D7mm_W4.3mm_P5mm.step", "LED_D20.0mm.step",
         "L_Axial_L26.0mm_D11.0mm_P7.62mm_Vertical_Fastron_77A.step"]


def count(shape, kind):
    explorer, n = TopExp_Explorer(shape, kind), 0
    while explorer.More():
        n += 1
        explorer.Next()
    return n


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    axis = [v / math.sqrt(14.0) for v in (1.0, 2.0, 3.0)]
    angle = 0.5
    quat = [math.cos(angle / 2)] + [math.sin(angle / 2) * v for v in axis]
    for name in FILES:
        reader = STEPControl_Reader()
        reader.ReadFile(os.path.join(here, name))
        reader.TransferRoots()
        shape = reader.OneShape()
        print("// %s: %d solids, %d faces" % (name, count(shape, TopAbs_SOLID), count(shape, TopAbs_FACE)))
        explorer = TopExp_Explorer(shape, TopAbs_SOLID)
        while explorer.More():
            solid = explorer.Current()
            box = Bnd_Box()
            BRepBndLib.AddOptimal_s(solid, box, False, False)
            lo, hi = box.CornerMin(), box.CornerMax()
            lo, hi = [lo.X(), lo.Y(), lo.Z()], [hi.X(), hi.Y(), hi.Z()]
            props = GProp_GProps()
            BRepGProp.VolumeProperties_s(solid, props)
            c = props.CentreOfMass()
            c = [c.X(), c.Y(), c.Z()]
            size = math.dist(lo, hi)
            shift = [1.05 * size, 0.2 * size, 0.1 * size]
            rotation, translation = gp_Trsf(), gp_Trsf()
            rotation.SetRotation(gp_Ax1(gp_Pnt(*c), gp_Dir(*axis)), angle)
            translation.SetTranslation(gp_Vec(*shift))
            trsf = translation.Multiplied(rotation)
            copy = BRepBuilderAPI_Transform(solid, trsf, True).Shape()
            distance = BRepExtrema_DistShapeShape(solid, copy).Value()
            t = trsf.TranslationPart()
            print("    {\"%s\", %d, {%.12g, %.12g, %.12g}, {%.12g, %.12g, %.12g}, {%.17g, %.17g, %.17g, %.17g}, "
                  "{%.17g, %.17g, %.17g}, %.17g}," % ((name, count(solid, TopAbs_FACE)) + tuple(lo) + tuple(hi)
                                                     + tuple(quat) + (t.X(), t.Y(), t.Z(), distance)))
            explorer.Next()
    return 0


if __name__ == "__main__":
    sys.exit(main())
