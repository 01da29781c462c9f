// sdf_pair_internal.h: what the scene driver (sdf_scene.c) shares with the pair query
// (sdf_pair.c). Never installed.

#ifndef OSC_SDF_PAIR_INTERNAL_H
#define OSC_SDF_PAIR_INTERNAL_H

#include "osculate/sdf_pair.h"

/// Checks a shape and its pose (messages name `function`, the shape as `name` and the pose as
/// `pose_name`) and writes the world box of the posed shape. OSC_ERR_INVALID_ARGUMENT or
/// OSC_ERR_UNSUPPORTED (unbounded).
osc_status sdf_pair_world_box(const char* function, const char* name, const char* pose_name, const osc_sdf_shape* shape,
                              osc_pose pose, osc_vec3* lo, osc_vec3* hi);

/// Checks settings (not NULL) for the public function `function`: OSC_OK, or
/// OSC_ERR_INVALID_ARGUMENT naming the setting, its value and its range.
osc_status sdf_pair_check_settings(const char* function, const osc_sdf_pair_settings* settings);

#endif // OSC_SDF_PAIR_INTERNAL_H
