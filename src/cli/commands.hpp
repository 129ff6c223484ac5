// The subcommands of the `geolin` tool: each `int cmd_NAME(const std::vector<std::string> &args)`
// (cmd_NAME.cpp) returns the exit code.
#pragma once

#include <string>
#include <vector>

namespace geolin::cli {

int cmd_info(const std::vector<std::string> &argv);
int cmd_dynamics(const std::vector<std::string> &argv);
int cmd_linearize(const std::vector<std::string> &argv);
int cmd_check(const std::vector<std::string> &argv);
int cmd_generate(const std::vector<std::string> &argv);
int cmd_simulate(const std::vector<std::string> &argv);
int cmd_bench(const std::vector<std::string> &argv);

}  // namespace geolin::cli
