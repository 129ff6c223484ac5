// Synthetic URDF models for scaling tests and benchmarks (generate.cpp).
#pragma once

#include <string>

namespace geolin {

/// A serial chain of n_bodies moving bodies (plus a base link), revolute joints with axes
/// cycling through x, y, z, links of 0.1-0.3 m with plausible masses and inertias.
std::string make_chain_urdf(int n_bodies);

/// A random tree of n_bodies moving bodies (plus a base link): each new link attaches to a
/// uniformly chosen earlier link; joint types revolute/continuous/prismatic, random axes,
/// origins and valid inertias. Deterministic for a given seed.
std::string make_random_tree_urdf(int n_bodies, unsigned seed);

}  // namespace geolin
