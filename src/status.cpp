// The one table of the status codes' names and meanings (include/geolin/status.hpp): used by
// geolin_status_string (capi/geolin_capi.cpp, docs/c-api.md "Status codes") and by the
// command-line tool's messages (src/cli/common.cpp).
#include "geolin/status.hpp"

namespace geolin {
namespace {

struct StatusText {
  const char *name;  // the constant of geolin.h
  const char *text;  // the name, ": ", the meaning
};

#define GEOLIN_STATUS_TEXT(name, meaning) \
  { name, name ": " meaning }
// Indexed by the code (Status::Ok = 0 .. Status::Memory = 9).
constexpr StatusText kStatusTexts[] = {
    GEOLIN_STATUS_TEXT("GEOLIN_OK", "success"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_INVALID_ARGUMENT",
                       "invalid argument (NULL pointer, index out of range, bad H, bad size)"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_IO", "file missing or unreadable"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_PARSE", "not well-formed XML or not URDF"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_MODEL", "not a valid dynamics model"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_UNSUPPORTED", "URDF feature not supported"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_NONFINITE", "NaN or Inf in an input"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_NUMERIC", "numerically singular at this state"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_INTERNAL", "internal error (please report)"),
    GEOLIN_STATUS_TEXT("GEOLIN_ERR_MEMORY", "out of memory"),
};
#undef GEOLIN_STATUS_TEXT

constexpr int kStatusCount = static_cast<int>(sizeof kStatusTexts / sizeof kStatusTexts[0]);
static_assert(kStatusCount == static_cast<int>(Status::Memory) + 1,
              "one entry per status code, in the order of the enumeration");

}  // namespace

const char *status_name(Status status) noexcept {
  const int code = static_cast<int>(status);
  return code >= 0 && code < kStatusCount ? kStatusTexts[code].name : "GEOLIN_ERR_UNKNOWN";
}

const char *status_string(int status) noexcept {
  return status >= 0 && status < kStatusCount ? kStatusTexts[status].text : "unknown status";
}

}  // namespace geolin
