// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// oscpy_api.h: the export mark of the Python package's native library, whose symbols are hidden
// unless marked (python/CMakeLists.txt: C_VISIBILITY_PRESET hidden).

#ifndef OSCULATE_PY_API_H
#define OSCULATE_PY_API_H

#define OSCPY_API __attribute__((visibility("default")))

#endif // OSCULATE_PY_API_H
