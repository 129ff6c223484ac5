// geolin generate: synthetic URDF models (a serial chain or a random tree) on standard output.
#include <fmt/format.h>

#include "args.hpp"
#include "commands.hpp"
#include "geolin/generate.hpp"

namespace geolin::cli {

namespace {
int body_count(const std::string &text) {
  const long n = parse_int(text, "N");
  if (n < 1 || n > 100000) throw UsageError("N must be between 1 and 100000");
  return static_cast<int>(n);
}
}  // namespace

int cmd_generate(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.max_positional = 3;
  const Args args = parse_args(argv, spec);
  const auto &p = args.positional;
  if (p.empty()) throw UsageError("missing the kind: chain or tree");
  if (p[0] == "chain") {
    if (p.size() != 2) throw UsageError("usage: geolin generate chain N");
    fmt::print("{}", make_chain_urdf(body_count(p[1])));
  } else if (p[0] == "tree") {
    if (p.size() != 3) throw UsageError("usage: geolin generate tree N SEED");
    const long seed = parse_int(p[2], "SEED");
    if (seed < 0 || seed > 0xFFFFFFFFL) throw UsageError("SEED must be between 0 and 2^32 - 1");
    fmt::print("{}", make_random_tree_urdf(body_count(p[1]), static_cast<unsigned>(seed)));
  } else {
    throw UsageError(fmt::format("unknown kind '{}' (chain or tree)", p[0]));
  }
  return kExitOk;
}

}  // namespace geolin::cli
