// Synthetic URDF models for scaling tests and benchmarks (generate.hpp).
// Every link is a solid cylinder or box with positive mass and a full (positive definite)
// inertia, so no joint is structurally singular (docs/dynamics.md §2).
#include "geolin/generate.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "geolin/status.hpp"

namespace geolin {
namespace {

// Solid cylinder of radius r and length L along z, com at its middle (standard formulas).
struct Principal {
  double ixx, iyy, izz;
};
Principal cylinder_z(double m, double r, double L) {
  const double t = m * (3.0 * r * r + L * L) / 12.0;
  return {t, t, 0.5 * m * r * r};
}
// Solid box with sides a, b, c along x, y, z.
Principal box(double m, double a, double b, double c) {
  return {m * (b * b + c * c) / 12.0, m * (a * a + c * c) / 12.0, m * (a * a + b * b) / 12.0};
}

void append_link(fmt::memory_buffer &out, const std::string &name, double m, double cx, double cy,
                 double cz, double roll, double pitch, double yaw, const Principal &I) {
  // Compact (one line per link): the 100 000-body chain is parsed by urdfdom in the tests.
  fmt::format_to(std::back_inserter(out),
                 "<link name=\"{}\"><inertial><origin xyz=\"{:.9g} {:.9g} {:.9g}\"", name, cx, cy,
                 cz);
  if (roll != 0.0 || pitch != 0.0 || yaw != 0.0)
    fmt::format_to(std::back_inserter(out), " rpy=\"{:.9g} {:.9g} {:.9g}\"", roll, pitch, yaw);
  fmt::format_to(std::back_inserter(out),
                 "/><mass value=\"{:.9g}\"/><inertia ixx=\"{:.9g}\" ixy=\"0\" ixz=\"0\" "
                 "iyy=\"{:.9g}\" iyz=\"0\" izz=\"{:.9g}\"/></inertial></link>\n",
                 m, I.ixx, I.iyy, I.izz);
}

void check_count(int n_bodies) {
  if (n_bodies < 0)
    throw Error(Status::InvalidArgument, fmt::format("n_bodies must be >= 0 (got {})", n_bodies));
}

// Uniform double in [lo, hi) from the raw 32-bit output of mt19937 (whose sequence the C++
// standard fixes), so a seed gives the same model with every standard library.
double uniform(std::mt19937 &rng, double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(rng()) / 4294967296.0);
}
int uniform_index(std::mt19937 &rng, int count) {
  return static_cast<int>((static_cast<std::uint64_t>(rng()) * static_cast<std::uint64_t>(count)) >>
                          32);
}

}  // namespace

std::string make_chain_urdf(int n_bodies) {
  check_count(n_bodies);
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "<?xml version=\"1.0\"?>\n<robot name=\"chain{}\">\n",
                 n_bodies);
  // Base: a 0.2 m cube of 2 kg.
  append_link(out, "base", 2.0, 0, 0, 0, 0, 0, 0, box(2.0, 0.2, 0.2, 0.2));
  static const char *const axes[3] = {"1 0 0", "0 1 0", "0 0 1"};
  double previous_length = 0.1;  // the base's half height
  for (int i = 1; i <= n_bodies; ++i) {
    // Lengths cycle through 0.1 .. 0.3 m, masses 0.5 .. 2.3 kg; each link a cylinder of radius
    // 0.03 m along its z axis, com at mid-length.
    const double L = 0.1 + 0.05 * (i % 5);
    const double m = 0.5 + 0.2 * (i % 10);
    append_link(out, fmt::format("link{}", i), m, 0, 0, 0.5 * L, 0, 0, 0, cylinder_z(m, 0.03, L));
    fmt::format_to(std::back_inserter(out),
                   "<joint name=\"joint{}\" type=\"revolute\"><parent link=\"{}\"/><child "
                   "link=\"link{}\"/><origin xyz=\"0 0 {:.9g}\"/><axis xyz=\"{}\"/><limit "
                   "lower=\"-3.14\" upper=\"3.14\" effort=\"100\" velocity=\"10\"/></joint>\n",
                   i, i == 1 ? std::string("base") : fmt::format("link{}", i - 1), i,
                   previous_length, axes[(i - 1) % 3]);
    previous_length = L;
  }
  fmt::format_to(std::back_inserter(out), "</robot>\n");
  return fmt::to_string(out);
}

std::string make_random_tree_urdf(int n_bodies, unsigned seed) {
  check_count(n_bodies);
  std::mt19937 rng(seed);
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out),
                 "<?xml version=\"1.0\"?>\n<robot name=\"random_tree_{}_{}\">\n", n_bodies, seed);
  append_link(out, "link0", 5.0, 0, 0, 0, 0, 0, 0, box(5.0, 0.4, 0.3, 0.2));
  static const char *const types[3] = {"revolute", "continuous", "prismatic"};
  for (int i = 1; i <= n_bodies; ++i) {
    // A box of random sides 0.05-0.3 m and mass 0.2-3 kg, com and inertia axes randomly
    // placed and rotated.
    const double m = uniform(rng, 0.2, 3.0);
    const double a = uniform(rng, 0.05, 0.3), b = uniform(rng, 0.05, 0.3),
                 c = uniform(rng, 0.05, 0.3);
    const double cx = uniform(rng, -0.1, 0.1), cy = uniform(rng, -0.1, 0.1),
                 cz = uniform(rng, -0.1, 0.1);
    const double r = uniform(rng, -3.0, 3.0), p = uniform(rng, -1.5, 1.5),
                 y = uniform(rng, -3.0, 3.0);
    append_link(out, fmt::format("link{}", i), m, cx, cy, cz, r, p, y, box(m, a, b, c));

    const int parent = uniform_index(rng, i);
    const char *type = types[uniform_index(rng, 3)];
    // Random unit axis (normalized Gaussian direction, away from zero).
    double ax = 0, ay = 0, az = 0, norm = 0;
    while (norm < 0.1) {
      ax = uniform(rng, -1.0, 1.0);
      ay = uniform(rng, -1.0, 1.0);
      az = uniform(rng, -1.0, 1.0);
      norm = std::sqrt(ax * ax + ay * ay + az * az);
    }
    const double ox = uniform(rng, -0.3, 0.3), oy = uniform(rng, -0.3, 0.3),
                 oz = uniform(rng, -0.3, 0.3);
    const double orr = uniform(rng, -3.0, 3.0), op = uniform(rng, -1.5, 1.5),
                 oyw = uniform(rng, -3.0, 3.0);
    fmt::format_to(std::back_inserter(out),
                   "  <joint name=\"joint{}\" type=\"{}\">\n"
                   "    <parent link=\"link{}\"/>\n    <child link=\"link{}\"/>\n"
                   "    <origin xyz=\"{:.9g} {:.9g} {:.9g}\" rpy=\"{:.9g} {:.9g} {:.9g}\"/>\n"
                   "    <axis xyz=\"{:.9g} {:.9g} {:.9g}\"/>\n"
                   "    <limit lower=\"-1\" upper=\"1\" effort=\"100\" velocity=\"10\"/>\n"
                   "  </joint>\n",
                   i, type, parent, i, ox, oy, oz, orr, op, oyw, ax / norm, ay / norm, az / norm);
  }
  fmt::format_to(std::back_inserter(out), "</robot>\n");
  return fmt::to_string(out);
}

}  // namespace geolin
