// Reflected rotor inertias from an SRDF (srdf.cpp): Pinocchio's <rotor_params> format,
//   <robot name="..."><rotor_params><joint name="J" mass="I_rotor" gear_ratio="N"/>...</robot>
// giving armature_J = I_rotor N² (Model::armature, with_armature).
#pragma once

#include <string>

#include "geolin/model.hpp"

namespace geolin {

/// A copy of model whose joints named in the SRDF's <rotor_params> carry I_rotor N² (the other
/// joints keep their armature). Throws Error naming the file and the line: Status::Io (not a
/// readable regular file of at most kMaxUrdfFileBytes), Status::Parse (not well-formed XML,
/// a root other than <robot>, a <joint> without name, mass or gear_ratio, a value that is not a
/// number), Status::Model (a joint the model does not have, a negative or infinite value).
Model with_srdf_rotor_params(const Model &model, const std::string &path);
/// The same from the SRDF's text; origin names it in messages.
Model with_srdf_rotor_params_string(const Model &model, const std::string &srdf,
                                    const std::string &origin);

}  // namespace geolin
