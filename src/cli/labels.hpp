// The row and column labels of the matrices the `geolin` tool prints (common.cpp).
#pragma once

#include <string>
#include <vector>

#include "geolin/model.hpp"

namespace geolin::cli {

/// Labels of the generalized velocity nu: v[vx]..v[wz] (moving base), then r[joint].
std::vector<std::string> nu_labels(const Model &model, const std::string &base,
                                   const std::string &joint);
/// Labels of z = [z_H; z_s; z_v; z_r] (fixed base: [z_s; z_r]).
std::vector<std::string> z_labels(const Model &model);
/// A block of z: name ("z_H", "z_s", "z_v", "z_r"), offset and size.
struct Block {
  std::string name;
  int offset = 0;
  int size = 0;
};
/// The blocks of z in order (fixed base: z_s, z_r only); blocks of size 0 are kept.
std::vector<Block> z_blocks(const Model &model);

/// tau[joint] for every joint.
std::vector<std::string> tau_labels(const Model &model);
/// PREFIX[joint] for every joint.
std::vector<std::string> joint_labels(const Model &model, const std::string &prefix);
/// PREFIX[vx]..PREFIX[wz].
std::vector<std::string> twist_labels(const std::string &prefix);

}  // namespace geolin::cli
