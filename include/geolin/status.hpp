// Status codes and the exception the C++ core throws; the C API maps it to a status code and
// the thread-local last error (docs/c-api.md rule 3).
#pragma once

#include <stdexcept>
#include <string>

namespace geolin {

/// Mirrors the GEOLIN_* codes of geolin.h exactly.
enum class Status : int {
  Ok = 0,
  InvalidArgument = 1,
  Io = 2,
  Parse = 3,
  Model = 4,
  Unsupported = 5,
  NonFinite = 6,
  Numeric = 7,
  Internal = 8,
  Memory = 9,  // allocation failed: the message says how much was needed
};

/// The name of a status code's constant in geolin.h, e.g. "GEOLIN_ERR_IO";
/// "GEOLIN_ERR_UNKNOWN" for a value outside the enumeration. A static string.
const char *status_name(Status status) noexcept;

/// The name and meaning of a status code, e.g. "GEOLIN_ERR_IO: file missing or unreadable"
/// (geolin_status_string of the C API); "unknown status" for any other value. A static string.
const char *status_string(int status) noexcept;

/// The error every fallible C++ function throws: a status and a message that names what is
/// wrong and where (URDF element, joint or link name, argument).
class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string &message) : std::runtime_error(message), status_(status) {}
  Status status() const noexcept { return status_; }

 private:
  Status status_;
};

}  // namespace geolin
