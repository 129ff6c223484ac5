// libFuzzer target for the URDF loader through the C API (docs/c-api.md rule 3): any input must end
// in GEOLIN_OK or a documented load status with a non-empty message; never a crash, a hang, a
// leak, an escaped exception or GEOLIN_ERR_INTERNAL. Built by cmake/ci_fuzz.sh with
// clang++ -fsanitize=fuzzer,address,undefined.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "geolin.h"

namespace {

bool documented_load_status(int status) {
  return status == GEOLIN_ERR_PARSE || status == GEOLIN_ERR_MODEL ||
         status == GEOLIN_ERR_UNSUPPORTED;
}

void check(const std::string &xml, unsigned flags) {
  geolin_model *model = nullptr;
  const int status = geolin_model_load_urdf_string(xml.c_str(), flags, &model);
  if (status == GEOLIN_OK) {
    if (model == nullptr) {
      std::fprintf(stderr, "fuzz_load_urdf: GEOLIN_OK but no model (flags %u)\n", flags);
      std::abort();
    }
    if (geolin_model_num_bodies(model) < 1 || !(geolin_model_total_mass(model) >= 0.0)) {
      std::fprintf(stderr, "fuzz_load_urdf: inconsistent model (flags %u)\n", flags);
      std::abort();
    }
    geolin_model_free(model);
    return;
  }
  const char *message = geolin_last_error();
  if (model != nullptr || !documented_load_status(status) || message == nullptr ||
      message[0] == '\0') {
    std::fprintf(stderr, "fuzz_load_urdf: status %d (%s), model %p, message '%s' (flags %u)\n",
                 status, geolin_status_string(status), static_cast<void *>(model),
                 message ? message : "(null)", flags);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The C API takes a NUL-terminated string: cut the input at its first NUL.
  std::string xml(reinterpret_cast<const char *>(data), size);
  const size_t nul = xml.find('\0');
  if (nul != std::string::npos) xml.resize(nul);
  check(xml, 0u);
  check(xml, GEOLIN_FIXED_BASE);
  return 0;
}
