// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// osculate.h: includes every public header.

#ifndef OSCULATE_OSCULATE_H
#define OSCULATE_OSCULATE_H

#include "osculate/base.h"
#include "osculate/math.h"
#include "osculate/smooth.h"
#include "osculate/sdf.h"
#include "osculate/mesh.h"
#include "osculate/isosurface.h"
#include "osculate/grid.h"
#include "osculate/manifold.h"
#include "osculate/convex.h"
#include "osculate/dcol.h"
#include "osculate/sdf_pair.h"
#include "osculate/implicit.h"
#include "osculate/ray.h"
#include "osculate/brep.h"
#include "osculate/lmd.h"
#include "osculate/force.h"

#endif // OSCULATE_OSCULATE_H
