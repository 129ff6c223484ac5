// The command line of the `geolin` tool (common.cpp): exit codes, usage errors, the options a
// subcommand accepts and their parsing, and the names of the status codes.
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "geolin/status.hpp"

namespace geolin::cli {

/// Exit codes of the tool (documented in README.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,  // an error from the library, a bad state file, or `check` above tolerance
  kExitUsage = 2,    // bad command line
};

/// A command-line mistake: printed with the command's usage, exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "GEOLIN_ERR_IO" etc., the names of geolin.h.
const char *status_name(Status status);

/// The options a subcommand accepts: flags (no value) and options taking one value.
struct ArgSpec {
  std::set<std::string> flags;
  std::set<std::string> options;
  int max_positional = 1;

  ArgSpec &add_flags(const std::set<std::string> &names) {
    flags.insert(names.begin(), names.end());
    return *this;
  }
  ArgSpec &add_options(const std::set<std::string> &names) {
    options.insert(names.begin(), names.end());
    return *this;
  }
};

struct Args {
  std::vector<std::string> positional;
  std::set<std::string> flags;
  std::map<std::string, std::string> options;

  bool flag(const std::string &name) const { return flags.count(name) != 0; }
  bool has(const std::string &name) const { return options.count(name) != 0; }
  std::string get(const std::string &name, const std::string &fallback = "") const;
  double get_double(const std::string &name, double fallback) const;
  long get_int(const std::string &name, long fallback) const;
};

/// Parses `--name value`, `--name=value` and flags; throws UsageError on anything unknown.
Args parse_args(const std::vector<std::string> &argv, const ArgSpec &spec);

double parse_double(const std::string &text, const std::string &what);
long parse_int(const std::string &text, const std::string &what);

}  // namespace geolin::cli
