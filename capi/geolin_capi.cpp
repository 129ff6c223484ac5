// The C API of geolin (docs/c-api.md): thin, exception-free wrappers around the C++ core.
//
// Every entry point catches every exception and maps it to a status code plus a thread-local
// message. Evaluation functions check their inputs before touching any output, compute into
// buffers owned by the workspace, and copy to the caller's arrays only when every value is
// finite: on any failure nothing is written. They do not allocate (Eigen::Map wraps the
// caller's memory; the workspace buffers are sized in geolin_workspace_new).
#include <unistd.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <new>
#include <string>

#include "geolin.h"
#include "geolin/algorithms.hpp"
#include "geolin/constraints.hpp"
#include "geolin/model.hpp"
#include "geolin/srdf.hpp"
#include "geolin/state.hpp"
#include "geolin/status.hpp"
#include "geolin/workspace.hpp"

struct geolin_model {
  geolin::Model model;
};

struct geolin_workspace {
  // The model must outlive the workspace (documented in geolin.h).
  const geolin_model *m;
  geolin::Workspace ws;
  // Output staging buffers, one output each: results are copied out only when all of them are
  // finite. Sized by the workspace's features (staging_bytes below counts the same).
  Eigen::MatrixXd A, B;            // N x N, N x n_J (finite differences, step linearization)
  Eigen::MatrixXd mat;             // n x n (mass matrix and its inverse, M of dtau_dz)
  Eigen::VectorXd vec;             // n
  Eigen::MatrixXd J;               // 6 x n
  Eigen::MatrixXd Dz;              // 6 x N (derivatives of the cost functions in z)
  Eigen::VectorXd s_next, r_next;  // n_J
  Eigen::VectorXd lambda;          // max_rows: λ of the contact calls, Λ of geolin_impulse
  Eigen::MatrixXd dlambda_dz, dlambda_dw;  // max_rows x N, x n_J (contact_step_linearize)
  // The contact regularization mu of geolin_workspace_set_contact_regularization (0: redundant
  // contact sets are refused), passed to every contact function as geolin::Contacts::mu.
  double contact_mu = 0.0;

  geolin_workspace(const geolin_model *model, unsigned features, int max_wrenches)
      : m(model), ws(model->model, features, max_wrenches) {
    const int n = model->model.num_dofs();
    const int N = model->model.state_dim();
    const int nj = model->model.num_joints();
    const int rows = ws.dims.max_rows;
    if (ws.has(geolin::kWorkspaceFiniteDifference) || ws.has(geolin::kWorkspaceStepLinearize)) {
      A.setZero(N, N);
      B.setZero(N, nj);
    }
    if (ws.has(geolin::kWorkspaceMassMatrix)) mat.setZero(n, n);
    vec.setZero(n);
    J.setZero(6, n);
    Dz.setZero(6, N);
    s_next.setZero(nj);
    r_next.setZero(nj);
    if (ws.has(geolin::kWorkspaceContacts)) lambda.setZero(rows);
    if (ws.has(geolin::kWorkspaceContacts | geolin::kWorkspaceStepLinearize)) {
      dlambda_dz.setZero(rows, N);
      dlambda_dw.setZero(rows, nj);
    }
  }

  // The bytes of the staging buffers above for these dimensions (saturating).
  static std::size_t staging_bytes(const geolin::Model &model, const geolin::WorkspaceDims &dims) {
    const double n = model.num_dofs(), N = model.state_dim(), nj = model.num_joints();
    const double rows = dims.max_rows;
    const unsigned features = dims.features;
    double doubles = n + 6 * n + 6 * N + 2 * nj;
    if (features & (geolin::kWorkspaceFiniteDifference | geolin::kWorkspaceStepLinearize))
      doubles += N * N + N * nj;
    if (features & geolin::kWorkspaceMassMatrix) doubles += n * n;
    if (features & geolin::kWorkspaceContacts) doubles += rows;
    const unsigned step_contacts = geolin::kWorkspaceContacts | geolin::kWorkspaceStepLinearize;
    if ((features & step_contacts) == step_contacts) doubles += rows * (N + nj);
    const double bytes = doubles * sizeof(double) + sizeof(geolin_workspace);
    return bytes >= 1.8e19 ? SIZE_MAX : static_cast<std::size_t>(bytes);
  }
};

namespace {

// Each GEOLIN_* code of geolin.h is the core's geolin::Status of the same name.
constexpr bool is_status(int code, geolin::Status status) {
  return code == static_cast<int>(status);
}
using S = geolin::Status;
static_assert(is_status(GEOLIN_OK, S::Ok) &&
                  is_status(GEOLIN_ERR_INVALID_ARGUMENT, S::InvalidArgument) &&
                  is_status(GEOLIN_ERR_IO, S::Io) && is_status(GEOLIN_ERR_PARSE, S::Parse) &&
                  is_status(GEOLIN_ERR_MODEL, S::Model) &&
                  is_status(GEOLIN_ERR_UNSUPPORTED, S::Unsupported) &&
                  is_status(GEOLIN_ERR_NONFINITE, S::NonFinite) &&
                  is_status(GEOLIN_ERR_NUMERIC, S::Numeric) &&
                  is_status(GEOLIN_ERR_INTERNAL, S::Internal) &&
                  is_status(GEOLIN_ERR_MEMORY, S::Memory),
              "status codes out of sync");
static_assert(GEOLIN_FIXED_BASE == geolin::kFixedBase, "load flags out of sync");
static_assert(GEOLIN_WORKSPACE_MASS_MATRIX == geolin::kWorkspaceMassMatrix &&
                  GEOLIN_WORKSPACE_LINEARIZE == geolin::kWorkspaceLinearize &&
                  GEOLIN_WORKSPACE_FINITE_DIFFERENCE == geolin::kWorkspaceFiniteDifference &&
                  GEOLIN_WORKSPACE_STEP_LINEARIZE == geolin::kWorkspaceStepLinearize &&
                  GEOLIN_WORKSPACE_CONTACTS == geolin::kWorkspaceContacts &&
                  GEOLIN_WORKSPACE_ALL == geolin::kWorkspaceAll,
              "workspace features out of sync");
static_assert(GEOLIN_JOINT_DAMPING == geolin::kJointDamping, "load flags out of sync");

// The message of the last failure on this thread. Assigning to it reuses its capacity, so after
// the first failure on a thread, error reporting in evaluation calls does not allocate either.
thread_local std::string g_last_error;

void set_error_string(const char *message) noexcept {
  try {
    g_last_error.assign(message);
  } catch (...) {
    // Out of memory while reporting: keep whatever fits in the existing capacity.
    if (g_last_error.capacity() > 0) {
      g_last_error.clear();
    }
  }
}

// printf-style: formats into a stack buffer (no allocation), then stores the message.
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int fail(int status, const char *format, ...) noexcept {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  set_error_string(buffer);
  return status;
}

// Maps the exception being handled to a status code and records its message.
int handle_exception(const char *function) noexcept {
  try {
    throw;
  } catch (const geolin::Error &e) {
    const int status = static_cast<int>(e.status());
    try {
      std::string message = std::string(function) + ": " + e.what();
      g_last_error.swap(message);
    } catch (...) {
      set_error_string(e.what());
    }
    return (status > GEOLIN_OK && status <= GEOLIN_ERR_MEMORY) ? status : GEOLIN_ERR_INTERNAL;
  } catch (const std::bad_alloc &) {
    return fail(GEOLIN_ERR_MEMORY, "%s: out of memory", function);
  } catch (const std::exception &e) {
    return fail(GEOLIN_ERR_INTERNAL, "%s: internal error (please report): %s", function, e.what());
  } catch (...) {
    return fail(GEOLIN_ERR_INTERNAL, "%s: internal error (please report): unknown exception",
                function);
  }
}

// --- input checks (write nothing, return a status) -------------------------------------------

// A pointer to an array of `count` doubles is not NULL (unless count == 0).
int check_pointer(const char *function, const char *name, const double *x,
                  std::ptrdiff_t count) noexcept {
  if (count == 0 || x != nullptr) return GEOLIN_OK;
  return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL (expected %td doubles)",
              function, name, count);
}

// Every value of an array of `count` doubles (checked not NULL) is finite.
int check_finite(const char *function, const char *name, const double *x,
                 std::ptrdiff_t count) noexcept {
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    if (!std::isfinite(x[i])) {
      return fail(GEOLIN_ERR_NONFINITE,
                  "%s: argument '%s' has a non-finite value (%g) at index %td", function, name,
                  x[i], i);
    }
  }
  return GEOLIN_OK;
}

// An input array: not NULL (unless count == 0), all finite.
int check_array(const char *function, const char *name, const double *x,
                std::ptrdiff_t count) noexcept {
  if (int st = check_pointer(function, name, x, count)) return st;
  return check_finite(function, name, x, count);
}

int check_output(const char *function, const char *name, const double *x,
                 std::ptrdiff_t count) noexcept {
  if (count > 0 && x == nullptr) {
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: output argument '%s' is NULL (expected %td doubles)", function, name, count);
  }
  return GEOLIN_OK;
}

// One output array of a call, for the overlap check.
struct Output {
  const char *name;
  const double *p;
  std::ptrdiff_t count;
};

// The output arrays of one call must not overlap (e.g. A == B): each is written whole, so an
// overlap would leave one of them wrong with GEOLIN_OK. Outputs may alias inputs (every input is
// read before any output is written). NULL or empty outputs are skipped.
int check_disjoint(const char *function, const Output *outputs, int count) noexcept {
  for (const Output *a = outputs; a != outputs + count; ++a) {
    if (a->p == nullptr || a->count <= 0) continue;
    const auto a0 = reinterpret_cast<std::uintptr_t>(a->p);
    const auto a1 = a0 + static_cast<std::uintptr_t>(a->count) * sizeof(double);
    for (const Output *b = a + 1; b != outputs + count; ++b) {
      if (b->p == nullptr || b->count <= 0) continue;
      const auto b0 = reinterpret_cast<std::uintptr_t>(b->p);
      const auto b1 = b0 + static_cast<std::uintptr_t>(b->count) * sizeof(double);
      if (a0 < b1 && b0 < a1)
        return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                    "%s: output arguments '%s' (%td doubles) and '%s' (%td doubles) overlap in "
                    "memory; give each output its own array",
                    function, a->name, a->count, b->name, b->count);
    }
  }
  return GEOLIN_OK;
}

// The feature a function needs from its workspace (geolin_workspace_new_ex).
int check_feature(const char *function, const geolin_workspace *ws, unsigned feature,
                  const char *feature_name) noexcept {
  if (ws->ws.has(feature)) return GEOLIN_OK;
  return fail(GEOLIN_ERR_INVALID_ARGUMENT,
              "%s: the workspace was created without %s (create it with geolin_workspace_new, or "
              "geolin_workspace_new_ex with that feature)",
              function, feature_name);
}

// What keeps 16 finite doubles (a 4x4 matrix, column-major) from being a rigid transform within
// 1e-6 (docs/conventions.md): a bottom row other than [0 0 0 1], a rotation block R with
// R^T R != I (scaled, sheared), or det R != +1 (a reflection). The messages print the values
// compared with the tolerance in full (%.17g): a det R of 1 + 1.2e-6 is refused, and "%g" would
// print it as 1.
struct RigidDefect {
  enum Kind { kNone, kBottomRow, kNotOrthogonal, kNotProper } kind = kNone;
  int entry = -1;      // kBottomRow: the first entry (3, 7, 11 or 15) off [0 0 0 1]
  double value = 0.0;  // that entry, max |R^T R - I|, or det R
};

RigidDefect rigid_defect(const double *H) noexcept {
  constexpr double tol = 1e-6;
  RigidDefect d;
  for (int e = 3; e < 16; e += 4)  // bottom row (row 3): entries 3, 7, 11, 15
    if (std::abs(H[e] - (e == 15 ? 1.0 : 0.0)) > tol) {
      d.kind = RigidDefect::kBottomRow;
      d.entry = e;
      d.value = H[e];
      return d;
    }
  Eigen::Matrix3d R;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) R(i, j) = H[i + 4 * j];
  const double orth = (R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (!(orth <= tol)) {
    d.kind = RigidDefect::kNotOrthogonal;
    d.value = orth;
  } else if (const double det = R.determinant(); !(std::abs(det - 1.0) <= tol)) {
    d.kind = RigidDefect::kNotProper;
    d.value = det;
  }
  return d;
}

// A pose argument `name`: 16 finite doubles, column-major, a rigid transform within 1e-6.
int check_rigid(const char *function, const char *name, const double *H) noexcept {
  if (int st = check_array(function, name, H, 16)) return st;
  const RigidDefect d = rigid_defect(H);
  switch (d.kind) {
    case RigidDefect::kBottomRow:
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' is not a rigid transform: bottom row is [%.17g %.17g %.17g "
                  "%.17g], expected [0 0 0 1] within 1e-6 (%s is column-major: %s[3], %s[7], "
                  "%s[11], %s[15])",
                  function, name, H[3], H[7], H[11], H[15], name, name, name, name, name);
    case RigidDefect::kNotOrthogonal:
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' is not a rigid transform: |R^T R - I| = %.17g > 1e-6 "
                  "(%s is 4x4 column-major, R = %s[0..2], %s[4..6], %s[8..10])",
                  function, name, d.value, name, name, name, name);
    case RigidDefect::kNotProper:
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' is not a rigid transform: det R = %.17g, expected +1 within "
                  "1e-6 (|det R - 1| = %.3g)",
                  function, name, d.value, std::abs(d.value - 1.0));
    case RigidDefect::kNone:
      break;
  }
  return GEOLIN_OK;
}

int check_workspace(const char *function, const geolin_workspace *ws) noexcept {
  if (ws == nullptr) {
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'ws' is NULL", function);
  }
  return GEOLIN_OK;
}

// --- one guarded call ------------------------------------------------------------------------

// The phases of an evaluation call's argument checks, in their fixed order (docs/c-api.md, "One
// call"): the workspace (checked before any phase), the features it needs, the sizes (counts
// against the model and the workspace's capacity, a step's method and size h), the pointers
// (inputs, then required outputs), the aliasing of the outputs, the values (finite inputs, rigid
// transforms, indices, flags, scalars). The first failure ends the call with nothing written.
enum class Phase { features, sizes, pointers, aliasing, values };

// One evaluation call: its function, workspace and model, and the checks its entry point
// declares. guarded() runs the declaration once per phase; each declared check acts in its own
// phase only, so the order is the same for every entry point whatever the order of declaration.
class Call {
 public:
  Call(const char *function, geolin_workspace *workspace)
      : fn(function),
        ws(workspace),
        model(workspace->m->model),
        nj(model.num_joints()),
        n(model.num_dofs()),
        N(model.state_dim()) {}

  const char *const fn;
  geolin_workspace *const ws;
  const geolin::Model &model;
  const int nj, n, N;  // n_J, n = nv + n_J, N = 2 n

  Phase phase = Phase::features;
  int status = GEOLIN_OK;
  // The contacts of a contact call, set by declare_contacts once its arguments are checked
  // (count 0: none): the failure of a step is classified with them (step_failure).
  geolin::Contacts contacts;
  // The joint feedback of a _feedback step, set by declare_feedback once checked (all NULL:
  // none): step_failure classifies with the torque it adds at the input state.
  geolin::JointFeedback feedback;
  // The constraint set of a geolin_constrained_* call, set by declare_set once checked (NULL:
  // none): step_failure classifies with it, and the messages of numeric failures name its
  // constraints.
  const geolin::ConstraintSet *set = nullptr;

  // The workspace was created with `feature` (named `names` in the message).
  GEOLIN_ALWAYS_INLINE Call &feature(unsigned feature, const char *names) {
    if (at(Phase::features)) status = check_feature(fn, ws, feature, names);
    return *this;
  }
  // check() -> status, run in the sizes or the values phase.
  template <class Check>
  GEOLIN_ALWAYS_INLINE Call &sizes(Check &&check) {
    if (at(Phase::sizes)) status = check();
    return *this;
  }
  template <class Check>
  GEOLIN_ALWAYS_INLINE Call &values(Check &&check) {
    if (at(Phase::values)) status = check();
    return *this;
  }
  // An input array of `count` doubles: not NULL (unless empty), then finite.
  GEOLIN_ALWAYS_INLINE Call &input(const char *name, const double *p, std::ptrdiff_t count) {
    if (at(Phase::pointers)) status = check_pointer(fn, name, p, count);
    if (at(Phase::values)) status = check_finite(fn, name, p, count);
    return *this;
  }
  // A pose argument (16 doubles, column-major): not NULL, then a finite rigid transform.
  GEOLIN_ALWAYS_INLINE Call &pose(const char *name, const double *H) {
    if (at(Phase::pointers)) status = check_pointer(fn, name, H, 16);
    if (at(Phase::values)) status = check_rigid(fn, name, H);
    return *this;
  }
  // The state (H, s, v, r); H and v are not read for a fixed base.
  GEOLIN_ALWAYS_INLINE Call &state(const double *H, const double *s, const double *v,
                                   const double *r) {
    if (!model.fixed_base) pose("H", H);
    input("s", s, nj);
    if (!model.fixed_base) input("v", v, 6);
    return input("r", r, nj);
  }
  // The inputs of the dynamics calls: the state and the joint forces tau (n_J).
  GEOLIN_ALWAYS_INLINE Call &dynamics_inputs(const double *H, const double *s, const double *v,
                                             const double *r, const double *tau) {
    return state(H, s, v, r).input("tau", tau, nj);
  }
  // An output array the caller must give (unless empty), and one that may be NULL.
  GEOLIN_ALWAYS_INLINE Call &output(const char *name, double *p, std::ptrdiff_t count) {
    if (at(Phase::pointers)) status = check_output(fn, name, p, count);
    return optional_output(name, p, count);
  }
  GEOLIN_ALWAYS_INLINE Call &optional_output(const char *name, double *p, std::ptrdiff_t count) {
    if (at(Phase::aliasing) && outputs_count_ < kMaxOutputs)
      outputs_[outputs_count_++] = {name, p, count};
    return *this;
  }
  // After the aliasing phase's declarations: the outputs must not overlap.
  void check_aliasing() {
    if (at(Phase::aliasing)) status = check_disjoint(fn, outputs_, outputs_count_);
  }

 private:
  GEOLIN_ALWAYS_INLINE bool at(Phase p) const { return status == GEOLIN_OK && phase == p; }
  static constexpr int kMaxOutputs = 6;
  Output outputs_[kMaxOutputs];
  int outputs_count_ = 0;
};

// flatten: the declarations inlined with their phase known, the checks folded (the optimized
// builds). Not in the sanitizer builds, which check memory, not speed: there the instrumented
// inlining of every call's checks made this file take 15x as long to compile (8 min under ASan).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GEOLIN_CAPI_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GEOLIN_CAPI_SANITIZED 1
#endif
#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(GEOLIN_CAPI_SANITIZED)
#define GEOLIN_FLATTEN __attribute__((flatten))
#else
#define GEOLIN_FLATTEN
#endif

// The one shape of an evaluation call: ws not NULL; declare(call) run once per phase (checks in
// the documented order, stopping at the first failure); then compute(call) -> status, which
// classifies the outcome and copies out (or writes nothing); no exception crosses the boundary.
template <class Declare, class Compute>
GEOLIN_FLATTEN int guarded(const char *fn, geolin_workspace *ws, Declare &&declare,
                           Compute &&compute) noexcept {
  if (int st = check_workspace(fn, ws)) return st;
  Call call(fn, ws);
  // The phases one after the other (not a loop): each declaration is inlined with a known phase,
  // so the checks of the other phases fold away.
  call.phase = Phase::features;
  declare(call);
  if (call.status != GEOLIN_OK) return call.status;
  call.phase = Phase::sizes;
  declare(call);
  if (call.status != GEOLIN_OK) return call.status;
  call.phase = Phase::pointers;
  declare(call);
  if (call.status != GEOLIN_OK) return call.status;
  call.phase = Phase::aliasing;
  declare(call);
  call.check_aliasing();
  if (call.status != GEOLIN_OK) return call.status;
  call.phase = Phase::values;
  declare(call);
  if (call.status != GEOLIN_OK) return call.status;
  try {
    return compute(call);
  } catch (...) {
    return handle_exception(fn);
  }
}

bool all_finite(const Eigen::Ref<const Eigen::MatrixXd> &X) noexcept {
  if (X.outerStride() == X.rows()) return geolin::all_finite(X.data(), X.size());
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    if (!geolin::all_finite(X.col(j).data(), X.rows())) return false;
  return true;
}

// GEOLIN_ERR_NUMERIC after a computation that cannot be trusted, with the core's message of the
// outcome (geolin::describe: M singular at this state, dependent contacts, or an overflow);
// `output` names what was not computed, `contacts` the contacts of a contact call (the constraint
// set of a geolin_constrained_* call is the call's own, c.set).
int numeric_failure(const Call &c, const geolin::Outcome &outcome, const char *output,
                    const geolin::Contacts *contacts = nullptr) noexcept {
  char message[512];
  geolin::describe(outcome, c.model, {c.fn, output, contacts, c.set}, geolin::Reader::c_api,
                   message, sizeof message);
  set_error_string(message);
  return GEOLIN_ERR_NUMERIC;
}

void copy_out(const Eigen::Ref<const Eigen::MatrixXd> &X, double *out) noexcept {
  if (X.outerStride() == X.rows()) {
    const double *p = X.data();
    const Eigen::Index count = X.size();
    for (Eigen::Index i = 0; i < count; ++i) out[i] = p[i];
    return;
  }
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    for (Eigen::Index i = 0; i < X.rows(); ++i) *out++ = X(i, j);
}

// One output of a staged call: its name, the caller's array (NULL: not requested) and the staged
// values (a staging buffer, a block of one, or a small fixed-size result).
struct Staged {
  const char *name;
  double *out;
  Eigen::Ref<const Eigen::MatrixXd> values;
};

// The end of a staged call: a failed outcome (named after the first output) or a requested
// output that is not finite is GEOLIN_ERR_NUMERIC with nothing written; else every requested
// output is copied out.
int finish(const Call &c, const geolin::Outcome &outcome, std::initializer_list<Staged> outputs,
           const geolin::Contacts *contacts = nullptr) noexcept {
  if (!outcome) return numeric_failure(c, outcome, outputs.begin()->name, contacts);
  for (const Staged &o : outputs)
    if (o.out != nullptr && !all_finite(o.values))
      return numeric_failure(c, geolin::Outcome::overflowed(), o.name, contacts);
  for (const Staged &o : outputs)
    if (o.out != nullptr) copy_out(o.values, o.out);
  return GEOLIN_OK;
}

// The outcome of a call that wrote straight into the caller's arrays (checked before writing):
// GEOLIN_OK, or GEOLIN_ERR_NUMERIC naming `output`.
int direct(const Call &c, const geolin::Outcome &outcome, const char *output,
           const geolin::Contacts *contacts = nullptr) noexcept {
  return outcome ? GEOLIN_OK : numeric_failure(c, outcome, output, contacts);
}

// Views of the caller's arrays. The data pointer may be NULL only when the size is 0; Eigen
// accepts (nullptr, 0).
using CMap = Eigen::Map<const Eigen::VectorXd>;

CMap joint_vector(const double *x, int nj) {
  return CMap(nj > 0 ? x : nullptr, nj);
}

geolin::Transform base_transform(const geolin::Model &model, const double *H) {
  if (model.fixed_base) return model.H_A_0;
  geolin::Transform T;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) T.R(i, j) = H[i + 4 * j];
    T.o(j) = H[12 + j];
  }
  return T;
}

geolin::Vec6 base_twist(const geolin::Model &model, const double *v) {
  geolin::Vec6 out = geolin::Vec6::Zero();
  if (!model.fixed_base) {
    for (int i = 0; i < 6; ++i) out(i) = v[i];
  }
  return out;
}

const geolin::Model *model_or_fail(const char *function, const geolin_model *model) noexcept {
  if (model == nullptr) {
    fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'model' is NULL", function);
    return nullptr;
  }
  return &model->model;
}

// A getter of an integer of the model (rule 9): get(model), or -1 (with the last error set)
// for a NULL handle.
template <class Get>
int model_integer(const char *function, const geolin_model *model, Get get) noexcept {
  const geolin::Model *m = model_or_fail(function, model);
  return m ? get(*m) : -1;
}

// The index of the joint or frame (`what`) called `name`; -1 with the last error set. name_of(m,
// k) is the name of element k, or NULL past the last one. Compared in place (no std::string
// temporary: no allocation).
template <class NameOf>
int index_by_name(const char *function, const geolin_model *model, const char *name,
                  const char *what, NameOf name_of) noexcept {
  const geolin::Model *m = model_or_fail(function, model);
  if (m == nullptr) return -1;
  if (name == nullptr) {
    fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'name' is NULL", function);
    return -1;
  }
  for (int k = 0; const std::string *element = name_of(*m, k); ++k)
    if (*element == name) return k;
  fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: no %s named '%.200s' in model '%.200s'", function, what,
       name, m->name.c_str());
  return -1;
}

int load_common(const char *function, const char *arg_name, const char *text, unsigned flags,
                geolin_model **out, bool from_file) noexcept {
  if (out == nullptr) {
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", function);
  }
  *out = nullptr;
  if (text == nullptr) {
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", function, arg_name);
  }
  const unsigned known = GEOLIN_FIXED_BASE | GEOLIN_JOINT_DAMPING;
  if ((flags & ~known) != 0u) {
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'flags' has unknown bits 0x%x (known: GEOLIN_FIXED_BASE = 1, "
                "GEOLIN_JOINT_DAMPING = 2)",
                function, flags & ~known);
  }
  try {
    geolin_model *m = new geolin_model{from_file ? geolin::load_urdf_file(text, flags)
                                                 : geolin::load_urdf_string(text, flags)};
    *out = m;
    return GEOLIN_OK;
  } catch (const std::bad_alloc &) {
    // The loader reports its own allocation failures as Status::Memory with the document's
    // size; this is the rest (e.g. the handle itself).
    if (from_file)
      return fail(GEOLIN_ERR_MEMORY, "%s: out of memory while loading URDF file '%.300s'", function,
                  text);
    return fail(GEOLIN_ERR_MEMORY, "%s: out of memory while loading a URDF document of %zu bytes",
                function, std::char_traits<char>::length(text));
  } catch (...) {
    return handle_exception(function);
  }
}

}  // namespace

extern "C" {

// ============================================================================================
// Errors and versions
// ============================================================================================

GEOLIN_API const char *geolin_last_error(void) {
  return g_last_error.c_str();
}

GEOLIN_API const char *geolin_status_string(int status) {
  return geolin::status_string(status);  // the core's one table (src/status.cpp)
}

GEOLIN_API void geolin_version(int *major, int *minor, int *patch) {
  if (major != nullptr) *major = GEOLIN_VERSION_MAJOR;
  if (minor != nullptr) *minor = GEOLIN_VERSION_MINOR;
  if (patch != nullptr) *patch = GEOLIN_VERSION_PATCH;
}

// ============================================================================================
// Models
// ============================================================================================

GEOLIN_API int geolin_model_load_urdf(const char *path, unsigned flags, geolin_model **out) {
  return load_common(__func__, "path", path, flags, out, true);
}

GEOLIN_API int geolin_model_load_urdf_string(const char *xml, unsigned flags, geolin_model **out) {
  return load_common(__func__, "xml", xml, flags, out, false);
}

GEOLIN_API void geolin_model_free(geolin_model *model) {
  delete model;
}

GEOLIN_API int geolin_model_num_joints(const geolin_model *model) {
  return model_integer(__func__, model, [](const geolin::Model &m) { return m.num_joints(); });
}

GEOLIN_API int geolin_model_num_dofs(const geolin_model *model) {
  return model_integer(__func__, model, [](const geolin::Model &m) { return m.num_dofs(); });
}

GEOLIN_API int geolin_model_state_dim(const geolin_model *model) {
  return model_integer(__func__, model, [](const geolin::Model &m) { return m.state_dim(); });
}

GEOLIN_API int geolin_model_num_bodies(const geolin_model *model) {
  return model_integer(__func__, model, [](const geolin::Model &m) { return m.num_bodies(); });
}

GEOLIN_API int geolin_model_is_fixed_base(const geolin_model *model) {
  return model_integer(__func__, model,
                       [](const geolin::Model &m) { return m.fixed_base ? 1 : 0; });
}

static bool body_in_range(const char *function, const geolin::Model &m, int body) noexcept {
  if (body < 0 || body >= m.num_bodies()) {
    fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'body' = %d is out of range [0, %d)", function,
         body, m.num_bodies());
    return false;
  }
  return true;
}

GEOLIN_API int geolin_model_parent(const geolin_model *model, int body) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr || !body_in_range(__func__, *m, body)) return -1;
  return body == 0 ? -1 : m->parent[static_cast<size_t>(body)];
}

GEOLIN_API int geolin_model_num_children(const geolin_model *model, int body) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr || !body_in_range(__func__, *m, body)) return -1;
  return static_cast<int>(m->children[static_cast<size_t>(body)].size());
}

GEOLIN_API int geolin_model_child(const geolin_model *model, int body, int k) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr || !body_in_range(__func__, *m, body)) return -1;
  const auto &children = m->children[static_cast<size_t>(body)];
  const int count = static_cast<int>(children.size());
  if (k < 0 || k >= count) {
    fail(GEOLIN_ERR_INVALID_ARGUMENT,
         "%s: argument 'k' = %d is out of range [0, %d) (body %d has %d children)", __func__, k,
         count, body, count);
    return -1;
  }
  return children[static_cast<size_t>(k)];
}

GEOLIN_API const char *geolin_model_body_name(const geolin_model *model, int body) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr || !body_in_range(__func__, *m, body)) return nullptr;
  return m->body_name[static_cast<size_t>(body)].c_str();
}

GEOLIN_API const char *geolin_model_joint_name(const geolin_model *model, int joint) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return nullptr;
  if (joint < 0 || joint >= m->num_joints()) {
    fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'joint' = %d is out of range [0, %d)", __func__,
         joint, m->num_joints());
    return nullptr;
  }
  return m->joint_name[static_cast<size_t>(joint) + 1].c_str();
}

GEOLIN_API int geolin_model_joint_index(const geolin_model *model, const char *name) {
  return index_by_name(__func__, model, name, "joint", [](const geolin::Model &m, int k) {
    return m.num_joints() > k ? &m.joint_name[static_cast<size_t>(k) + 1] : nullptr;  // body k + 1
  });
}

GEOLIN_API double geolin_model_total_mass(const geolin_model *model) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return std::nan("");
  try {
    return m->total_mass();
  } catch (...) {
    handle_exception(__func__);
    return std::nan("");
  }
}

// --- armature (docs/dynamics.md (D50)): a copy with reflected rotor inertias -----------------

GEOLIN_API int geolin_model_with_armature(const geolin_model *model, const double *armature,
                                          geolin_model **out) {
  if (out == nullptr)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", __func__);
  *out = nullptr;
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return GEOLIN_ERR_INVALID_ARGUMENT;
  const int nj = m->num_joints();
  if (armature == nullptr && nj > 0)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'armature' is NULL (expected %d doubles)", __func__, nj);
  try {  // geolin::with_armature checks every entry (naming armature[j] and the joint) first
    geolin::Model copy = geolin::with_armature(
        *m, Eigen::Map<const Eigen::VectorXd>(nj > 0 ? armature : nullptr, nj));
    *out = new geolin_model{std::move(copy)};
    return GEOLIN_OK;
  } catch (...) {
    return handle_exception(__func__);
  }
}

GEOLIN_API int geolin_model_with_srdf_rotor_params(const geolin_model *model, const char *path,
                                                   geolin_model **out) {
  if (out == nullptr)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", __func__);
  *out = nullptr;
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return GEOLIN_ERR_INVALID_ARGUMENT;
  if (path == nullptr)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'path' is NULL", __func__);
  try {
    geolin::Model copy = geolin::with_srdf_rotor_params(*m, path);
    *out = new geolin_model{std::move(copy)};
    return GEOLIN_OK;
  } catch (...) {
    return handle_exception(__func__);
  }
}

GEOLIN_API int geolin_model_armature(const geolin_model *model, double *armature) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return GEOLIN_ERR_INVALID_ARGUMENT;
  const int nj = m->num_joints();
  if (int st = check_output(__func__, "armature", armature, nj)) return st;
  for (int k = 0; k < nj; ++k) armature[k] = m->armature[k];
  return GEOLIN_OK;
}

// ============================================================================================
// Workspaces
// ============================================================================================

}  // extern "C"

namespace {

// "12.3 MB": a byte count for messages.
void format_bytes(std::size_t bytes, char *out, std::size_t size) {
  const double b = static_cast<double>(bytes);
  if (bytes == SIZE_MAX)
    std::snprintf(out, size, "more than 16 EB");
  else if (b >= 1e9)
    std::snprintf(out, size, "%.1f GB", b / 1e9);
  else if (b >= 1e6)
    std::snprintf(out, size, "%.1f MB", b / 1e6);
  else
    std::snprintf(out, size, "%.1f kB", b / 1e3);
}

std::size_t total_bytes(const geolin::Model &model, unsigned features, int max_wrenches) {
  const geolin::WorkspaceDims dims = geolin::workspace_dims(model, features, max_wrenches);
  const std::size_t core = geolin::workspace_bytes(model, dims);
  const std::size_t staging = geolin_workspace::staging_bytes(model, dims);
  return core > SIZE_MAX - staging ? SIZE_MAX : core + staging;
}

// The physical memory of this machine, or SIZE_MAX when it cannot be told.
std::size_t physical_memory() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    const double bytes = static_cast<double>(pages) * static_cast<double>(page);
    if (bytes < 1.8e19) return static_cast<std::size_t>(bytes);
  }
#endif
  return SIZE_MAX;
}

constexpr unsigned kKnownFeatures = GEOLIN_WORKSPACE_ALL;
constexpr int kMaxWrenchCapacity = 1 << 20;

int check_workspace_args(const char *fn, const geolin_model *model, unsigned features,
                         int max_wrenches) noexcept {
  if (model == nullptr)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'model' is NULL", fn);
  if ((features & ~kKnownFeatures) != 0u)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'features' has unknown bits 0x%x (known: GEOLIN_WORKSPACE_* = "
                "0x%x)",
                fn, features & ~kKnownFeatures, kKnownFeatures);
  if (max_wrenches < 0 || max_wrenches > kMaxWrenchCapacity)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'max_wrenches' = %d is out of range [0, %d]", fn, max_wrenches,
                kMaxWrenchCapacity);
  return GEOLIN_OK;
}

int workspace_new(const char *fn, const geolin_model *model, unsigned features, int max_wrenches,
                  geolin_workspace **out) noexcept {
  if (out == nullptr) return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", fn);
  *out = nullptr;
  if (int st = check_workspace_args(fn, model, features, max_wrenches)) return st;
  const geolin::Model &m = model->model;
  std::size_t bytes = 0;
  try {
    bytes = total_bytes(m, features, max_wrenches);
    // Refuse what cannot fit before touching it: the buffers are zeroed (every page is mapped
    // now, not in an evaluation), so an overcommitted allocation would end in the OOM killer.
    const std::size_t physical = physical_memory();
    if (bytes > physical) {
      char need[32], have[32], dyn[32];
      format_bytes(bytes, need, sizeof need);
      format_bytes(physical, have, sizeof have);
      format_bytes(total_bytes(m, 0u, 0), dyn, sizeof dyn);
      return fail(GEOLIN_ERR_MEMORY,
                  "%s: the workspace needs %zu bytes (%s), more than this machine's memory (%s); "
                  "ask only for the features you call with geolin_workspace_new_ex (forward and "
                  "inverse dynamics alone need %s; geolin_workspace_bytes tells the others)",
                  fn, bytes, need, have, dyn);
    }
    *out = new geolin_workspace(model, features, max_wrenches);
    return GEOLIN_OK;
  } catch (const std::bad_alloc &) {
    char need[32];
    format_bytes(bytes, need, sizeof need);
    return fail(GEOLIN_ERR_MEMORY,
                "%s: out of memory: the workspace needs %zu bytes (%s); ask only for the features "
                "you call with geolin_workspace_new_ex",
                fn, bytes, need);
  } catch (...) {
    return handle_exception(fn);
  }
}

}  // namespace

extern "C" {

GEOLIN_API int geolin_workspace_new(const geolin_model *model, geolin_workspace **out) {
  const int frames = model ? static_cast<int>(model->model.frames.size()) : 0;
  return workspace_new(__func__, model, GEOLIN_WORKSPACE_ALL, frames, out);
}

GEOLIN_API int geolin_workspace_new_ex(const geolin_model *model, unsigned features,
                                       int max_wrenches, geolin_workspace **out) {
  return workspace_new(__func__, model, features, max_wrenches, out);
}

GEOLIN_API size_t geolin_workspace_bytes(const geolin_model *model, unsigned features,
                                         int max_wrenches) {
  if (check_workspace_args(__func__, model, features, max_wrenches)) return 0;
  try {
    return total_bytes(model->model, features, max_wrenches);
  } catch (...) {
    handle_exception(__func__);
    return 0;
  }
}

GEOLIN_API void geolin_workspace_free(geolin_workspace *ws) {
  delete ws;
}

GEOLIN_API int geolin_workspace_set_gravity(geolin_workspace *ws, const double g[3]) {
  if (int st = check_workspace(__func__, ws)) return st;
  if (int st = check_array(__func__, "g", g, 3)) return st;
  ws->ws.gravity = geolin::Vec3(g[0], g[1], g[2]);
  return GEOLIN_OK;
}

GEOLIN_API int geolin_workspace_set_contact_regularization(geolin_workspace *ws, double mu) {
  if (int st = check_workspace(__func__, ws)) return st;
  if (!std::isfinite(mu))
    return fail(GEOLIN_ERR_NONFINITE, "%s: argument 'mu' is not finite (%g)", __func__, mu);
  if (mu < 0.0)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'mu' = %g is negative (0: redundant contacts are refused; > 0: "
                "the compliance of the regularized contacts, docs/contacts.md section 4)",
                __func__, mu);
  static_assert(GEOLIN_CONTACT_REGULARIZATION_MAX == geolin::kMaxContactRegularization);
  if (mu > geolin::kMaxContactRegularization)
    return fail(
        GEOLIN_ERR_INVALID_ARGUMENT,
        "%s: argument 'mu' = %g is above GEOLIN_CONTACT_REGULARIZATION_MAX = %g "
        "(m/s^2)/N: a compliance far above the inverse mass any contact carries makes every "
        "contact force vanish (lambda ~ -c / mu); useful values are small against the "
        "diagonal of J_c M^-1 J_c^T, e.g. 1e-8 .. 1e-4 for a robot of tens of kg "
        "(docs/contacts.md section 4.2)",
        __func__, mu, geolin::kMaxContactRegularization);
  ws->contact_mu = mu;
  return GEOLIN_OK;
}

// ============================================================================================
// Dynamics
// ============================================================================================

GEOLIN_API int geolin_forward_dynamics(geolin_workspace *ws, const double *H, const double *s,
                                       const double *v, const double *r, const double *tau,
                                       double *nu_dot) {
  return guarded(
      __func__, ws,
      [&](Call &c) { c.dynamics_inputs(H, s, v, r, tau).output("nu_dot", nu_dot, c.n); },
      [&](Call &c) {
        const geolin::Outcome o = geolin::aba(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), joint_vector(tau, c.nj), ws->vec);
        return finish(c, o, {{"nu_dot", nu_dot, ws->vec}});
      });
}

GEOLIN_API int geolin_inverse_dynamics(geolin_workspace *ws, const double *H, const double *s,
                                       const double *v, const double *r, const double *nu_dot,
                                       double *generalized_force) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.state(H, s, v, r)
            .input("nu_dot", nu_dot, c.n)
            .output("generalized_force", generalized_force, c.n);
      },
      [&](Call &c) {
        geolin::rnea(c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
                     base_twist(c.model, v), joint_vector(r, c.nj),
                     CMap(c.n > 0 ? nu_dot : nullptr, c.n), ws->vec);
        return finish(c, geolin::Outcome(), {{"generalized_force", generalized_force, ws->vec}});
      });
}

// geolin_mass_matrix (CRBA) and geolin_mass_matrix_inverse: the same checks, one n x n output
// `name` staged in ws->mat (CRBA straight into out when its terms bound every entry).
static int mass_matrix_common(const char *fn, geolin_workspace *ws, const double *s,
                              const char *name, double *out, bool inverse) noexcept {
  return guarded(
      fn, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceMassMatrix, "GEOLIN_WORKSPACE_MASS_MATRIX")
            .input("s", s, c.nj)
            .output(name, out, std::ptrdiff_t{c.n} * c.n);
      },
      [&](Call &c) -> int {
        if (inverse) {
          const geolin::Outcome o =
              geolin::mass_matrix_inverse(c.model, ws->ws, joint_vector(s, c.nj), ws->mat);
          return finish(c, o, {{name, out, ws->mat}});
        }
        Eigen::Map<Eigen::MatrixXd> M(out, c.n, c.n);
        if (geolin::crba_if_bounded(c.model, ws->ws, joint_vector(s, c.nj), M)) return GEOLIN_OK;
        geolin::crba(c.model, ws->ws, joint_vector(s, c.nj), ws->mat);
        return finish(c, geolin::Outcome(), {{name, out, ws->mat}});
      });
}

GEOLIN_API int geolin_mass_matrix(geolin_workspace *ws, const double *s, double *M) {
  return mass_matrix_common(__func__, ws, s, "M", M, false);
}

GEOLIN_API int geolin_mass_matrix_inverse(geolin_workspace *ws, const double *s, double *Minv) {
  return mass_matrix_common(__func__, ws, s, "Minv", Minv, true);
}

// ============================================================================================
// Linearization
// ============================================================================================

// The documented range of the finite-difference step: outside it the truncation error (large
// eps) or the round-off error (small eps) leaves few correct digits.
constexpr double kMinFiniteDifferenceStep = 1e-10, kMaxFiniteDifferenceStep = 1e-2;

static int check_eps(const char *fn, double eps) noexcept {
  if (!std::isfinite(eps))
    return fail(GEOLIN_ERR_NONFINITE, "%s: argument 'eps' is not finite (%g)", fn, eps);
  if (!(eps >= kMinFiniteDifferenceStep && eps <= kMaxFiniteDifferenceStep))
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'eps' = %g is outside [1e-10, 1e-2], where central differences "
                "keep several correct digits (about 1e-6 is a good choice)",
                fn, eps);
  return GEOLIN_OK;
}

GEOLIN_API int geolin_linearize(geolin_workspace *ws, const double *H, const double *s,
                                const double *v, const double *r, const double *tau, double *A,
                                double *B) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceLinearize, "GEOLIN_WORKSPACE_LINEARIZE")
            .dynamics_inputs(H, s, v, r, tau)
            .output("A", A, std::ptrdiff_t{c.N} * c.N)
            .output("B", B, std::ptrdiff_t{c.N} * c.nj);
      },
      [&](Call &c) {  // straight into the caller's arrays, checked before writing
        Eigen::Map<Eigen::MatrixXd> Am(A, c.N, c.N), Bm(B, c.N, c.nj);
        return direct(
            c,
            geolin::linearize_if_finite(c.model, ws->ws, base_transform(c.model, H),
                                        joint_vector(s, c.nj), base_twist(c.model, v),
                                        joint_vector(r, c.nj), joint_vector(tau, c.nj), Am, Bm),
            "A");
      });
}

GEOLIN_API int geolin_linearize_finite_difference(geolin_workspace *ws, const double *H,
                                                  const double *s, const double *v, const double *r,
                                                  const double *tau, double eps, double *A,
                                                  double *B) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceFiniteDifference, "GEOLIN_WORKSPACE_FINITE_DIFFERENCE")
            .dynamics_inputs(H, s, v, r, tau)
            .values([&] { return check_eps(c.fn, eps); })
            .output("A", A, std::ptrdiff_t{c.N} * c.N)
            .output("B", B, std::ptrdiff_t{c.N} * c.nj);
      },
      [&](Call &c) {
        const geolin::Outcome o = geolin::linearize_finite_difference(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), joint_vector(tau, c.nj), eps, ws->A,
            ws->B);
        return finish(c, o, {{"A", A, ws->A}, {"B", B, ws->B}});
      });
}

// With dtau_dz, the outputs go straight into the caller's arrays when every term of the pass is
// within bounds (inverse_dynamics_linearize_if_bounded; the force via ws->vec, as r may alias
// it). Otherwise they are staged (M in ws->mat, the force in ws->vec, and dtau_dz in the
// solver's panel, lent by Workspace::scratch_panel: this pass does not solve, and an n x N
// buffer of its own would add 6.4 GB to a 20 000-body chain) and copied out only when all are
// finite.
GEOLIN_API int geolin_inverse_dynamics_linearize(geolin_workspace *ws, const double *H,
                                                 const double *s, const double *v, const double *r,
                                                 const double *nu_dot, double *generalized_force,
                                                 double *dtau_dz, double *M) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        if (dtau_dz != nullptr)
          c.feature(geolin::kWorkspaceLinearize, "GEOLIN_WORKSPACE_LINEARIZE");
        if (M != nullptr) c.feature(geolin::kWorkspaceMassMatrix, "GEOLIN_WORKSPACE_MASS_MATRIX");
        c.state(H, s, v, r)
            .input("nu_dot", nu_dot, c.n)
            .output("generalized_force", generalized_force, c.n)
            .optional_output("dtau_dz", dtau_dz, std::ptrdiff_t{c.n} * c.N)
            .optional_output("M", M, std::ptrdiff_t{c.n} * c.n);
      },
      [&](Call &c) -> int {
        const int n = c.n, N = c.N;
        const geolin::Transform T = base_transform(c.model, H);
        const geolin::Vec6 v0 = base_twist(c.model, v);
        const CMap nu_dot_in(n > 0 ? nu_dot : nullptr, n);
        if (dtau_dz != nullptr) {
          Eigen::Map<Eigen::MatrixXd> dz_out(dtau_dz, n, N), M_out(M, M ? n : 0, M ? n : 0);
          if (geolin::inverse_dynamics_linearize_if_bounded(
                  c.model, ws->ws, T, joint_vector(s, c.nj), v0, joint_vector(r, c.nj), nu_dot_in,
                  ws->vec, dz_out, M_out)) {
            copy_out(ws->vec, generalized_force);
            return GEOLIN_OK;
          }
        }
        Eigen::Map<Eigen::MatrixXd> dz(dtau_dz ? ws->ws.scratch_panel() : nullptr, dtau_dz ? n : 0,
                                       dtau_dz ? N : 0);
        Eigen::Map<Eigen::MatrixXd> Mm(M ? ws->mat.data() : nullptr, M ? n : 0, M ? n : 0);
        geolin::inverse_dynamics_linearize(c.model, ws->ws, T, joint_vector(s, c.nj), v0,
                                           joint_vector(r, c.nj), nu_dot_in, ws->vec, dz, Mm);
        return finish(c, geolin::Outcome(),
                      {{"generalized_force", generalized_force, ws->vec},
                       {"dtau_dz", dtau_dz, dz},
                       {"M", M, Mm}});
      });
}

}  // extern "C"

// ============================================================================================
// Frames, external wrenches, discrete time (added in ABI 0, version 0.2)
// ============================================================================================

namespace {

bool frame_in_range(const char *function, const geolin::Model &m, int frame) noexcept {
  const int nf = static_cast<int>(m.frames.size());
  if (frame < 0 || frame >= nf) {
    fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'frame' = %d is out of range [0, %d)", function,
         frame, nf);
    return false;
  }
  return true;
}

// An array of `count` ints (frames, types) is not NULL when count > 0.
int check_ints(const char *fn, const char *name, const int *p, int count) noexcept {
  if (count == 0 || p != nullptr) return GEOLIN_OK;
  return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL (expected %d ints)", fn, name,
              count);
}

// The frames and wrench_flags shared by the wrench and contact calls: wrench_flags is
// GEOLIN_WRENCH_LOCAL or GEOLIN_WRENCH_MIXED; each of the `count` entries of `frames` (checked
// not NULL) is a frame index of the model.
int check_frames(const char *fn, const geolin::Model &model, int count, const int *frames,
                 unsigned wrench_flags) noexcept {
  const int nframes = static_cast<int>(model.frames.size());
  if (wrench_flags != GEOLIN_WRENCH_LOCAL && wrench_flags != GEOLIN_WRENCH_MIXED)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'wrench_flags' = %u is not GEOLIN_WRENCH_LOCAL (0) or "
                "GEOLIN_WRENCH_MIXED (1)",
                fn, wrench_flags);
  for (int k = 0; k < count; ++k)
    if (frames[k] < 0 || frames[k] >= nframes)
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'frames' has %d at index %d, out of range [0, %d)", fn, frames[k],
                  k, nframes);
  return GEOLIN_OK;
}

// nf of the *_ext functions: at most one wrench per frame, and (linearize_ext, `capacity` >= 0)
// at most the workspace's wrench capacity.
int check_wrench_count(const char *fn, const geolin::Model &model, int nf, int capacity) noexcept {
  const int nframes = static_cast<int>(model.frames.size());
  if (nf < 0 || nf > nframes) {
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'nf' = %d is out of range [0, %d] (at most one wrench per frame "
                "on average: add wrenches that act at the same frame)",
                fn, nf, nframes);
  }
  if (capacity >= 0 && nf > capacity)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'nf' = %d is more than the %d wrenches the workspace was created "
                "for (geolin_workspace_new_ex, max_wrenches)",
                fn, nf, capacity);
  return GEOLIN_OK;
}

// The wrenches of the *_ext functions: nf (sizes), frames and wrenches (pointers, values) and
// wrench_flags (values); capacity as check_wrench_count.
void declare_wrenches(Call &c, int nf, const int *frames, const double *wrenches,
                      unsigned wrench_flags, int capacity) {
  c.sizes([&] { return check_wrench_count(c.fn, c.model, nf, capacity); });
  if (c.phase == Phase::pointers && c.status == GEOLIN_OK)
    c.status = check_ints(c.fn, "frames", frames, nf);
  c.values([&] {
     return check_frames(c.fn, c.model, nf, frames, wrench_flags);
   }).input("wrenches", wrenches, 6 * std::ptrdiff_t{nf});
}

// A frame index of the model.
int check_frame(const char *fn, const geolin::Model &model, int frame) noexcept {
  return frame_in_range(fn, model, frame) ? GEOLIN_OK : GEOLIN_ERR_INVALID_ARGUMENT;
}

// The inputs of the frame calls: the base pose H (moving base), the joint positions s, a frame
// index of the model.
Call &declare_frame_inputs(Call &c, const double *H, const double *s, int frame) {
  if (!c.model.fixed_base) c.pose("H", H);
  return c.input("s", s, c.nj).values([&] { return check_frame(c.fn, c.model, frame); });
}

int check_step(const char *fn, int method, double h) noexcept {
  if (method != GEOLIN_STEP_SEMI_IMPLICIT_EULER && method != GEOLIN_STEP_RK4 &&
      method != GEOLIN_STEP_IMPLICIT_EULER) {
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'method' = %d is not GEOLIN_STEP_SEMI_IMPLICIT_EULER (0), "
                "GEOLIN_STEP_RK4 (1) or GEOLIN_STEP_IMPLICIT_EULER (2)",
                fn, method);
  }
  if (!std::isfinite(h)) return fail(GEOLIN_ERR_NONFINITE, "%s: argument 'h' is not finite", fn);
  if (!(h > 0.0))
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'h' = %g must be > 0", fn, h);
  return GEOLIN_OK;
}

// A feedback gain `name` (kp or kd): NULL, or n_J finite entries >= 0.
int check_feedback_gain(const char *fn, const char *name, const double *k, int nj) noexcept {
  if (k == nullptr) return GEOLIN_OK;
  for (int j = 0; j < nj; ++j) {
    if (!std::isfinite(k[j]))
      return fail(GEOLIN_ERR_NONFINITE, "%s: argument '%s' has a non-finite value: %s[%d] = %g", fn,
                  name, name, j, k[j]);
    if (k[j] < 0.0)
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' has a negative value: %s[%d] = %g; feedback gains must be "
                  ">= 0",
                  fn, name, name, j, k[j]);
  }
  return GEOLIN_OK;
}

// A feedback reference `name` (s_ref or r_ref): NULL, or n_J finite entries.
int check_feedback_ref(const char *fn, const char *name, const double *x, int nj) noexcept {
  if (x == nullptr) return GEOLIN_OK;
  for (int j = 0; j < nj; ++j)
    if (!std::isfinite(x[j]))
      return fail(GEOLIN_ERR_NONFINITE, "%s: argument '%s' has a non-finite value: %s[%d] = %g", fn,
                  name, name, j, x[j]);
  return GEOLIN_OK;
}

// The joint feedback of the geolin_*_feedback steps (values phase): kp, kd, s_ref, r_ref, each
// NULL (zeros) or n_J entries.
Call &declare_feedback(Call &c, const double *kp, const double *kd, const double *s_ref,
                       const double *r_ref) {
  return c.values([&]() -> int {
    if (int st = check_feedback_gain(c.fn, "kp", kp, c.nj)) return st;
    if (int st = check_feedback_gain(c.fn, "kd", kd, c.nj)) return st;
    if (int st = check_feedback_ref(c.fn, "s_ref", s_ref, c.nj)) return st;
    if (int st = check_feedback_ref(c.fn, "r_ref", r_ref, c.nj)) return st;
    c.feedback = {kp, kd, s_ref, r_ref};
    return GEOLIN_OK;
  });
}

// The state outputs of a step: H_next and v_next (moving base), s_next, r_next.
Call &declare_next_state(Call &c, double *H_next, double *s_next, double *v_next, double *r_next) {
  if (!c.model.fixed_base) c.output("H_next", H_next, 16).output("v_next", v_next, 6);
  return c.output("s_next", s_next, c.nj).output("r_next", r_next, c.nj);
}

void copy_transform(const geolin::Transform &T, double *H) noexcept {
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) H[i + 4 * j] = T.R(i, j);
    H[3 + 4 * j] = 0.0;
    H[12 + j] = T.o(j);
  }
  H[15] = 1.0;
}

// The dynamics at a step's input state, the contacts or the constraint set of the call held
// (c.contacts, c.set; neither: aba):
// its outcome, overflowed when it is regular but not finite. Writes only workspace scratch.
geolin::Outcome dynamics_at_input(const Call &c, const double *H, const double *s, const double *v,
                                  const double *r, const double *tau) {
  geolin_workspace *ws = c.ws;
  const geolin::Transform Hb = base_transform(c.model, H);
  const geolin::Vec6 vb = base_twist(c.model, v);
  // τ with the call's feedback at the input state (docs/dynamics.md (D57)), in the step's own
  // staging ws.step_tau, written here before it is read.
  const geolin::JointFeedback &fb = c.feedback;
  if (fb.any()) {
    Eigen::VectorXd &t = ws->ws.step_tau;
    t = joint_vector(tau, c.nj);
    for (int j = 0; j < c.nj; ++j) {
      if (fb.kp) t[j] += fb.kp[j] * ((fb.s_ref ? fb.s_ref[j] : 0.0) - s[j]);
      if (fb.kd) t[j] += fb.kd[j] * ((fb.r_ref ? fb.r_ref[j] : 0.0) - r[j]);
    }
  }
  const Eigen::Ref<const Eigen::VectorXd> tau_in =
      fb.any() ? Eigen::Ref<const Eigen::VectorXd>(ws->ws.step_tau)
               : Eigen::Ref<const Eigen::VectorXd>(joint_vector(tau, c.nj));
  geolin::Outcome o;
  bool finite;
  if (c.set != nullptr) {
    const int m = c.set->rows();
    o = geolin::constrained_dynamics(c.model, ws->ws, Hb, joint_vector(s, c.nj), vb,
                                     joint_vector(r, c.nj), tau_in, *c.set, ws->contact_mu, ws->vec,
                                     ws->lambda.head(m));
    finite = all_finite(ws->vec) && all_finite(ws->lambda.head(m));
  } else if (c.contacts.count > 0) {
    o = geolin::contact_dynamics(c.model, ws->ws, Hb, joint_vector(s, c.nj), vb,
                                 joint_vector(r, c.nj), tau_in, c.contacts, ws->vec, ws->lambda);
    finite = all_finite(ws->vec) && all_finite(ws->lambda.head(c.contacts.rows()));
  } else {
    o = geolin::aba(c.model, ws->ws, Hb, joint_vector(s, c.nj), vb, joint_vector(r, c.nj), tau_in,
                    ws->ws.nu_dot);
    finite = all_finite(ws->ws.nu_dot);
  }
  return o && !finite ? geolin::Outcome::overflowed() : o;
}

// A step that failed (outcome, or results not finite: overflowed). A singular M, dependent
// contacts or constraints, or a wheel whose axis turned normal to the plane, met by the step are
// reported as such. Any other failure (an overflow, in a stage or
// in the results) is classified by the dynamics at the input state, with the call's contacts
// (the same overflow check as every other function): not finite or not regular there, its own
// outcome (the inputs overflowed); finite and regular, the step size overflowed the states the
// step reaches: Outcome::step_overflowed names h.
int step_failure(const Call &c, geolin::Outcome outcome, double h, const double *H, const double *s,
                 const double *v, const double *r, const double *tau, const char *output) {
  using Kind = geolin::Outcome::Kind;
  if (outcome.kind != Kind::singular_joint && outcome.kind != Kind::singular_base &&
      outcome.kind != Kind::dependent_contact_row &&
      outcome.kind != Kind::dependent_constraint_row && outcome.kind != Kind::wheel_axis_normal) {
    outcome = dynamics_at_input(c, H, s, v, r, tau);
    if (outcome) outcome = geolin::Outcome::step_overflowed(h);
  }
  return numeric_failure(c, outcome, output, c.contacts.count > 0 ? &c.contacts : nullptr);
}

// The end of geolin_step and geolin_contact_step: the next state (staged in Hn, ws->s_next, vn,
// ws->r_next) and the step's λ (staged, empty for geolin_step; lambda may be NULL) copied out
// when the step succeeded and all are finite, else step_failure.
int finish_step(const Call &c, const geolin::Outcome &outcome, double h, const double *H,
                const double *s, const double *v, const double *r, const double *tau,
                const geolin::Transform &Hn, const geolin::Vec6 &vn, double *H_next, double *s_next,
                double *v_next, double *r_next,
                const Eigen::Ref<const Eigen::MatrixXd> &lambda_staged, double *lambda) {
  const geolin_workspace *ws = c.ws;
  const geolin::Outcome overflow = geolin::Outcome::overflowed();
  if (!outcome || !Hn.R.allFinite() || !Hn.o.allFinite() || !vn.allFinite() ||
      !all_finite(ws->s_next) || !all_finite(ws->r_next))
    return step_failure(c, outcome ? overflow : outcome, h, H, s, v, r, tau,
                        "H_next/s_next/v_next/r_next");
  if (!all_finite(lambda_staged)) return step_failure(c, overflow, h, H, s, v, r, tau, "lambda");
  if (!c.model.fixed_base) {
    copy_transform(Hn, H_next);
    for (int i = 0; i < 6; ++i) v_next[i] = vn[i];
  }
  copy_out(ws->s_next, s_next);
  copy_out(ws->r_next, r_next);
  if (lambda != nullptr) copy_out(lambda_staged, lambda);
  return GEOLIN_OK;
}

}  // namespace

extern "C" {

GEOLIN_API int geolin_model_num_frames(const geolin_model *model) {
  return model_integer(__func__, model,
                       [](const geolin::Model &m) { return static_cast<int>(m.frames.size()); });
}

GEOLIN_API const char *geolin_model_frame_name(const geolin_model *model, int frame) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr || !frame_in_range(__func__, *m, frame)) return nullptr;
  return m->frames[frame].name.c_str();
}

GEOLIN_API int geolin_model_frame_index(const geolin_model *model, const char *name) {
  return index_by_name(__func__, model, name, "frame", [](const geolin::Model &m, int k) {
    return static_cast<int>(m.frames.size()) > k ? &m.frames[static_cast<size_t>(k)].name : nullptr;
  });
}

GEOLIN_API int geolin_frame_pose(geolin_workspace *ws, const double *H, const double *s, int frame,
                                 double *H_frame) {
  return guarded(
      __func__, ws,
      [&](Call &c) { declare_frame_inputs(c, H, s, frame).output("H_frame", H_frame, 16); },
      [&](Call &c) -> int {
        const geolin::Transform T = geolin::frame_pose(c.model, ws->ws, base_transform(c.model, H),
                                                       joint_vector(s, c.nj), frame);
        if (!T.R.allFinite() || !T.o.allFinite())
          return numeric_failure(c, geolin::Outcome::overflowed(), "H_frame");
        copy_transform(T, H_frame);
        return GEOLIN_OK;
      });
}

GEOLIN_API int geolin_frame_jacobian(geolin_workspace *ws, const double *H, const double *s,
                                     int frame, double *J) {
  return guarded(
      __func__, ws, [&](Call &c) { declare_frame_inputs(c, H, s, frame).output("J", J, 6 * c.n); },
      [&](Call &c) {
        geolin::frame_jacobian(c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
                               frame, ws->J);
        return finish(c, geolin::Outcome(), {{"J", J, ws->J}});
      });
}

GEOLIN_API int geolin_forward_dynamics_ext(geolin_workspace *ws, const double *H, const double *s,
                                           const double *v, const double *r, const double *tau,
                                           int nf, const int *frames, const double *wrenches,
                                           unsigned wrench_flags, double *nu_dot) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.dynamics_inputs(H, s, v, r, tau);
        declare_wrenches(c, nf, frames, wrenches, wrench_flags, -1);
        c.output("nu_dot", nu_dot, c.n);
      },
      [&](Call &c) {
        const geolin::ExternalWrenches ext{nf, frames, wrenches, wrench_flags};
        const geolin::Outcome o = geolin::aba(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), joint_vector(tau, c.nj), ext, ws->vec);
        return finish(c, o, {{"nu_dot", nu_dot, ws->vec}});
      });
}

GEOLIN_API int geolin_linearize_ext(geolin_workspace *ws, const double *H, const double *s,
                                    const double *v, const double *r, const double *tau, int nf,
                                    const int *frames, const double *wrenches,
                                    unsigned wrench_flags, double *A, double *B) {
  const std::ptrdiff_t cols_B =
      nf >= 0 && ws ? ws->m->model.num_joints() + 6 * std::ptrdiff_t{nf} : 0;
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceLinearize, "GEOLIN_WORKSPACE_LINEARIZE")
            .dynamics_inputs(H, s, v, r, tau);
        declare_wrenches(c, nf, frames, wrenches, wrench_flags, ws->ws.dims.max_wrenches);
        c.output("A", A, std::ptrdiff_t{c.N} * c.N).output("B", B, c.N * cols_B);
      },
      [&](Call &c) {  // straight into the caller's arrays, checked before anything is written
        const geolin::ExternalWrenches ext{nf, frames, wrenches, wrench_flags};
        Eigen::Map<Eigen::MatrixXd> Am(A, c.N, c.N), Bm(B, c.N, cols_B);
        return direct(c,
                      geolin::linearize_if_finite(c.model, ws->ws, base_transform(c.model, H),
                                                  joint_vector(s, c.nj), base_twist(c.model, v),
                                                  joint_vector(r, c.nj), joint_vector(tau, c.nj),
                                                  ext, Am, Bm),
                      "A");
      });
}

}  // extern "C"

namespace {

// geolin_step and geolin_step_feedback (fb: the caller's joint feedback, all NULL for
// geolin_step); fn: the entry point's name.
int step_entry(const char *fn, geolin_workspace *ws, int method, double h, const double *H,
               const double *s, const double *v, const double *r, const double *tau,
               const geolin::JointFeedback &fb, double *H_next, double *s_next, double *v_next,
               double *r_next) {
  return guarded(
      fn, ws,
      [&](Call &c) {
        c.dynamics_inputs(H, s, v, r, tau).sizes([&] { return check_step(c.fn, method, h); });
        declare_feedback(c, fb.kp, fb.kd, fb.s_ref, fb.r_ref);
        declare_next_state(c, H_next, s_next, v_next, r_next);
      },
      [&](Call &c) {
        geolin::Transform Hn = base_transform(c.model, H);
        geolin::Vec6 vn = base_twist(c.model, v);
        const geolin::Outcome o = geolin::step(
            c.model, ws->ws, static_cast<geolin::StepMethod>(method), h, base_transform(c.model, H),
            joint_vector(s, c.nj), base_twist(c.model, v), joint_vector(r, c.nj),
            joint_vector(tau, c.nj), Hn, ws->s_next, vn, ws->r_next, fb);
        return finish_step(c, o, h, H, s, v, r, tau, Hn, vn, H_next, s_next, v_next, r_next,
                           ws->lambda.head(0), nullptr);
      });
}

// geolin_step_linearize and geolin_step_feedback_linearize.
int step_linearize_entry(const char *fn, geolin_workspace *ws, int method, double h,
                         const double *H, const double *s, const double *v, const double *r,
                         const double *tau, const geolin::JointFeedback &fb, double *A_d,
                         double *B_d) {
  return guarded(
      fn, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceStepLinearize, "GEOLIN_WORKSPACE_STEP_LINEARIZE")
            .dynamics_inputs(H, s, v, r, tau)
            .sizes([&] { return check_step(c.fn, method, h); })
            .output("A_d", A_d, std::ptrdiff_t{c.N} * c.N)
            .output("B_d", B_d, std::ptrdiff_t{c.N} * c.nj);
        declare_feedback(c, fb.kp, fb.kd, fb.s_ref, fb.r_ref);
      },
      [&](Call &c) {
        geolin::Outcome o = geolin::step_linearize(
            c.model, ws->ws, static_cast<geolin::StepMethod>(method), h, base_transform(c.model, H),
            joint_vector(s, c.nj), base_twist(c.model, v), joint_vector(r, c.nj),
            joint_vector(tau, c.nj), ws->A, ws->B, fb);
        if (!o || !all_finite(ws->A))
          return step_failure(c, o ? geolin::Outcome::overflowed() : o, h, H, s, v, r, tau, "A_d");
        if (!all_finite(ws->B))
          return step_failure(c, geolin::Outcome::overflowed(), h, H, s, v, r, tau, "B_d");
        return finish(c, o, {{"A_d", A_d, ws->A}, {"B_d", B_d, ws->B}});
      });
}

}  // namespace

extern "C" {

GEOLIN_API int geolin_step(geolin_workspace *ws, int method, double h, const double *H,
                           const double *s, const double *v, const double *r, const double *tau,
                           double *H_next, double *s_next, double *v_next, double *r_next) {
  return step_entry(__func__, ws, method, h, H, s, v, r, tau, {}, H_next, s_next, v_next, r_next);
}

GEOLIN_API int geolin_step_feedback(geolin_workspace *ws, int method, double h, const double *H,
                                    const double *s, const double *v, const double *r,
                                    const double *tau, const double *kp, const double *kd,
                                    const double *s_ref, const double *r_ref, double *H_next,
                                    double *s_next, double *v_next, double *r_next) {
  return step_entry(__func__, ws, method, h, H, s, v, r, tau, {kp, kd, s_ref, r_ref}, H_next,
                    s_next, v_next, r_next);
}

GEOLIN_API int geolin_step_linearize(geolin_workspace *ws, int method, double h, const double *H,
                                     const double *s, const double *v, const double *r,
                                     const double *tau, double *A_d, double *B_d) {
  return step_linearize_entry(__func__, ws, method, h, H, s, v, r, tau, {}, A_d, B_d);
}

GEOLIN_API int geolin_step_feedback_linearize(geolin_workspace *ws, int method, double h,
                                              const double *H, const double *s, const double *v,
                                              const double *r, const double *tau, const double *kp,
                                              const double *kd, const double *s_ref,
                                              const double *r_ref, double *A_d, double *B_d) {
  return step_linearize_entry(__func__, ws, method, h, H, s, v, r, tau, {kp, kd, s_ref, r_ref}, A_d,
                              B_d);
}

}  // extern "C"

// ============================================================================================
// Contact-constrained dynamics (version 0.3)
// ============================================================================================

namespace {

// gains = {Kp, Kd} (NULL: both 0), finite and >= 0.
int check_gains(const char *fn, const double *gains) noexcept {
  if (gains == nullptr) return GEOLIN_OK;
  for (int k = 0; k < 2; ++k) {
    const char *name = k == 0 ? "Kp" : "Kd";
    if (!std::isfinite(gains[k]))
      return fail(GEOLIN_ERR_NONFINITE, "%s: argument 'gains' has a non-finite %s (%g) at index %d",
                  fn, name, gains[k], k);
    if (gains[k] < 0.0)
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'gains' has a negative %s (%g) at index %d: gains must be >= 0", fn,
                  name, gains[k], k);
  }
  return GEOLIN_OK;
}

// types (checked not NULL): nc entries, each GEOLIN_CONTACT_POINT or GEOLIN_CONTACT_RIGID.
int check_types(const char *fn, int nc, const int *types) noexcept {
  for (int k = 0; k < nc; ++k)
    if (types[k] != GEOLIN_CONTACT_POINT && types[k] != GEOLIN_CONTACT_RIGID)
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'types' has %d at index %d, not GEOLIN_CONTACT_POINT (3) or "
                  "GEOLIN_CONTACT_RIGID (6)",
                  fn, types[k], k);
  return GEOLIN_OK;
}

// The reference pose H_ref = refs[16 k .. 16 k + 15] of the rigid contact k: a rigid transform
// (docs/contacts.md). Messages name 'refs', the contact and the index in refs.
int check_rigid_ref(const char *fn, int k, const double *refs) noexcept {
  const double *h = refs + 16 * k;
  const int at = 16 * k;
  for (int i = 0; i < 16; ++i)
    if (!std::isfinite(h[i]))
      return fail(GEOLIN_ERR_NONFINITE,
                  "%s: argument 'refs' has a non-finite value (%g) at index %d (contact %d, "
                  "entry %d of its H_ref)",
                  fn, h[i], at + i, k, i);
  const RigidDefect d = rigid_defect(h);
  switch (d.kind) {
    case RigidDefect::kBottomRow:
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'refs' is not a rigid transform for contact %d: refs[%d] = %.17g, "
                  "but the bottom row of H_ref (refs[%d], refs[%d], refs[%d], refs[%d]; "
                  "column-major) must be [0 0 0 1] within 1e-6",
                  fn, k, at + d.entry, d.value, at + 3, at + 7, at + 11, at + 15);
    case RigidDefect::kNotOrthogonal:
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'refs' is not a rigid transform for contact %d: its rotation "
                  "R = refs[%d..%d], refs[%d..%d], refs[%d..%d] has |R^T R - I| = %.17g > 1e-6",
                  fn, k, at, at + 2, at + 4, at + 6, at + 8, at + 10, d.value);
    case RigidDefect::kNotProper:
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'refs' is not a rigid transform for contact %d: its rotation "
                  "R = refs[%d..%d], refs[%d..%d], refs[%d..%d] has det R = %.17g, expected +1 "
                  "within 1e-6 (|det R - 1| = %.3g)",
                  fn, k, at, at + 2, at + 4, at + 6, at + 8, at + 10, d.value,
                  std::abs(d.value - 1.0));
    case RigidDefect::kNone:
      break;
  }
  return GEOLIN_OK;
}

// refs (needed when Kp != 0): a point contact's translation refs[16 k + 12 .. 14] is finite, a
// rigid contact's H_ref a rigid transform.
int check_refs(const char *fn, int nc, const int *types, double Kp, const double *refs) noexcept {
  if (Kp == 0.0 || nc == 0) return GEOLIN_OK;
  if (refs == nullptr)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'refs' is NULL but Kp = %g: the position gain needs a reference "
                "pose per contact (16 doubles each)",
                fn, Kp);
  for (int k = 0; k < nc; ++k) {
    if (types[k] == GEOLIN_CONTACT_RIGID) {
      if (int st = check_rigid_ref(fn, k, refs)) return st;
      continue;
    }
    for (int i = 16 * k + 12; i < 16 * k + 15; ++i)
      if (!std::isfinite(refs[i]))
        return fail(GEOLIN_ERR_NONFINITE,
                    "%s: argument 'refs' has a non-finite value (%g) at index %d (contact %d, "
                    "translation)",
                    fn, refs[i], i, k);
  }
  return GEOLIN_OK;
}

// nc: at most the contacts the workspace was created for.
int check_contact_count(const char *fn, const geolin_workspace *ws, int nc) noexcept {
  if (nc >= 0 && nc <= ws->ws.dims.max_wrenches) return GEOLIN_OK;
  return fail(GEOLIN_ERR_INVALID_ARGUMENT,
              "%s: argument 'nc' = %d is out of range [0, %d] (the contacts the workspace was "
              "created for: geolin_workspace_new_ex, max_wrenches)",
              fn, nc, ws->ws.dims.max_wrenches);
}

// The contacts of one geolin_contact_* or impulse call, as the core takes them (gains NULL:
// Kp = Kd = 0; the workspace's contact regularization).
geolin::Contacts contacts_of(const geolin_workspace *ws, int nc, const int *frames,
                             const int *types, unsigned wrench_flags, const double *gains,
                             const double *refs) noexcept {
  geolin::Contacts c;
  c.count = nc;
  c.frames = frames;
  c.types = types;
  c.flags = wrench_flags;
  c.Kp = gains ? gains[0] : 0.0;
  c.Kd = gains ? gains[1] : 0.0;
  c.refs = refs;
  c.mu = ws->contact_mu;
  return c;
}

// More constraint rows than degrees of freedom: dependent rows for certain.
int check_contact_rows(const char *fn, const geolin_workspace *ws, int nc,
                       const int *types) noexcept {
  int m = 0;
  for (int k = 0; k < nc; ++k) m += types[k];
  const int n = ws->m->model.num_dofs();
  if (m <= n) return GEOLIN_OK;
  return fail(GEOLIN_ERR_NUMERIC,
              "%s: the %d contacts have %d constraint rows, more than the model's %d degrees of "
              "freedom: they are redundant (remove contacts, or hold points instead of frames); "
              "nothing was written",
              fn, nc, m, n);
}

// nc (sizes), frames and types (pointers), then wrench_flags, the frame indices, gains, types,
// refs and the number of rows (values) of the geolin_contact_* and impulse functions.
Call &declare_contacts(Call &c, int nc, const int *frames, const int *types, unsigned wrench_flags,
                       const double *gains, const double *refs) {
  c.sizes([&] { return check_contact_count(c.fn, c.ws, nc); });
  if (c.phase == Phase::pointers && c.status == GEOLIN_OK) {
    c.status = check_ints(c.fn, "frames", frames, nc);
    if (c.status == GEOLIN_OK) c.status = check_ints(c.fn, "types", types, nc);
  }
  return c.values([&]() -> int {
    if (int st = check_frames(c.fn, c.model, nc, frames, wrench_flags)) return st;
    if (int st = check_gains(c.fn, gains)) return st;
    if (int st = check_types(c.fn, nc, types)) return st;
    if (int st = check_refs(c.fn, nc, types, gains ? gains[0] : 0.0, refs)) return st;
    if (int st = check_contact_rows(c.fn, c.ws, nc, types)) return st;
    c.contacts = contacts_of(c.ws, nc, frames, types, wrench_flags, gains, refs);
    return GEOLIN_OK;
  });
}

// The constraint rows of nc contacts of `types`, the size of their outputs: from the pointers
// phase on, after declare_contacts (nc in range, types not NULL); a type that the values phase
// will refuse counts as a point.
std::ptrdiff_t contact_rows(const Call &c, int nc, const int *types) {
  if (c.status != GEOLIN_OK || c.phase < Phase::pointers || types == nullptr) return 0;
  std::ptrdiff_t m = 0;
  for (int k = 0; k < nc; ++k) m += types[k] == GEOLIN_CONTACT_RIGID ? 6 : 3;
  return m;
}

// restitution: finite, in [0, 1].
int check_restitution(const char *fn, double e) noexcept {
  if (!std::isfinite(e))
    return fail(GEOLIN_ERR_NONFINITE, "%s: argument 'restitution' is not finite (%g)", fn, e);
  if (e < 0.0 || e > 1.0)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'restitution' = %g is out of range [0, 1] (0: the contacts stop, "
                "1: their velocity reverses, a perfectly elastic impact)",
                fn, e);
  return GEOLIN_OK;
}

}  // namespace

extern "C" {

GEOLIN_API int geolin_contact_dynamics(geolin_workspace *ws, const double *H, const double *s,
                                       const double *v, const double *r, const double *tau, int nc,
                                       const int *frames, const int *types, unsigned wrench_flags,
                                       const double *gains, const double *refs, double *nu_dot,
                                       double *lambda) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceContacts, "GEOLIN_WORKSPACE_CONTACTS")
            .dynamics_inputs(H, s, v, r, tau);
        declare_contacts(c, nc, frames, types, wrench_flags, gains, refs)
            .output("nu_dot", nu_dot, c.n)
            .output("lambda", lambda, contact_rows(c, nc, types));
      },
      [&](Call &c) {
        const geolin::Contacts k = contacts_of(ws, nc, frames, types, wrench_flags, gains, refs);
        const geolin::Outcome o = geolin::contact_dynamics(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), joint_vector(tau, c.nj), k, ws->vec,
            ws->lambda);
        return finish(
            c, o, {{"nu_dot", nu_dot, ws->vec}, {"lambda", lambda, ws->lambda.head(k.rows())}}, &k);
      });
}

GEOLIN_API int geolin_contact_linearize(geolin_workspace *ws, const double *H, const double *s,
                                        const double *v, const double *r, const double *tau, int nc,
                                        const int *frames, const int *types, unsigned wrench_flags,
                                        const double *gains, const double *refs, double *A,
                                        double *B, double *dlambda_dz, double *dlambda_dw) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        const std::ptrdiff_t m = contact_rows(c, nc, types), N = c.N;
        c.feature(geolin::kWorkspaceContacts | geolin::kWorkspaceLinearize,
                  "GEOLIN_WORKSPACE_CONTACTS | GEOLIN_WORKSPACE_LINEARIZE")
            .dynamics_inputs(H, s, v, r, tau);
        declare_contacts(c, nc, frames, types, wrench_flags, gains, refs)
            .output("A", A, N * N)
            .output("B", B, N * c.nj)
            .optional_output("dlambda_dz", dlambda_dz, m * N)
            .optional_output("dlambda_dw", dlambda_dw, m * c.nj);
      },
      [&](Call &c) {  // straight into the caller's arrays, checked before writing
        const geolin::Contacts k = contacts_of(ws, nc, frames, types, wrench_flags, gains, refs);
        const int m = k.rows();
        Eigen::Map<Eigen::MatrixXd> Am(A, c.N, c.N), Bm(B, c.N, c.nj);
        Eigen::Map<Eigen::MatrixXd> dz(dlambda_dz, dlambda_dz ? m : 0, dlambda_dz ? c.N : 0);
        Eigen::Map<Eigen::MatrixXd> dw(dlambda_dw, dlambda_dw ? m : 0, dlambda_dw ? c.nj : 0);
        const geolin::Outcome o = geolin::contact_linearize(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), joint_vector(tau, c.nj), k, Am, Bm, dz,
            dw);
        return direct(c, o, "A", &k);
      });
}

GEOLIN_API int geolin_impulse(geolin_workspace *ws, const double *H, const double *s,
                              const double *v, const double *r, int nc, const int *frames,
                              const int *types, unsigned wrench_flags, double restitution,
                              double *v_next, double *r_next, double *impulse) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceContacts, "GEOLIN_WORKSPACE_CONTACTS").state(H, s, v, r);
        declare_contacts(c, nc, frames, types, wrench_flags, nullptr, nullptr).values([&] {
          return check_restitution(c.fn, restitution);
        });
        if (!c.model.fixed_base) c.output("v_next", v_next, 6);
        c.output("r_next", r_next, c.nj)
            .optional_output("impulse", impulse, contact_rows(c, nc, types));
      },
      [&](Call &c) {  // staged: the outputs may alias the inputs
        const geolin::Contacts k =
            contacts_of(ws, nc, frames, types, wrench_flags, nullptr, nullptr);
        const geolin::Outcome o = geolin::impulse(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), k, restitution, ws->vec, ws->lambda);
        const int nv = c.n - c.nj;
        return finish(c, o,
                      {{"v_next/r_next", c.model.fixed_base ? nullptr : v_next, ws->vec.head(nv)},
                       {"v_next/r_next", r_next, ws->vec.tail(c.nj)},
                       {"impulse", impulse, ws->lambda.head(k.rows())}},
                      &k);
      });
}

GEOLIN_API int geolin_impulse_linearize(geolin_workspace *ws, const double *H, const double *s,
                                        const double *v, const double *r, int nc, const int *frames,
                                        const int *types, unsigned wrench_flags, double restitution,
                                        double *A_imp, double *dimpulse_dz) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceContacts | geolin::kWorkspaceLinearize,
                  "GEOLIN_WORKSPACE_CONTACTS | GEOLIN_WORKSPACE_LINEARIZE")
            .state(H, s, v, r);
        declare_contacts(c, nc, frames, types, wrench_flags, nullptr, nullptr)
            .values([&] { return check_restitution(c.fn, restitution); })
            .output("A_imp", A_imp, std::ptrdiff_t{c.N} * c.N)
            .optional_output("dimpulse_dz", dimpulse_dz, contact_rows(c, nc, types) * c.N);
      },
      [&](Call &c) {  // straight into the caller's arrays, checked before writing
        const geolin::Contacts k =
            contacts_of(ws, nc, frames, types, wrench_flags, nullptr, nullptr);
        const int m = k.rows();
        Eigen::Map<Eigen::MatrixXd> Am(A_imp, c.N, c.N);
        Eigen::Map<Eigen::MatrixXd> dz(dimpulse_dz, dimpulse_dz ? m : 0, dimpulse_dz ? c.N : 0);
        const geolin::Outcome o = geolin::impulse_linearize(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), k, restitution, Am, dz);
        return direct(c, o, "A_imp", &k);
      });
}

}  // extern "C"

namespace {

// geolin_contact_step and geolin_contact_step_feedback (fb all NULL for the first).
int contact_step_entry(const char *fn, geolin_workspace *ws, int method, double h, const double *H,
                       const double *s, const double *v, const double *r, const double *tau,
                       const geolin::JointFeedback &fb, int nc, const int *frames, const int *types,
                       unsigned wrench_flags, const double *gains, const double *refs,
                       double *H_next, double *s_next, double *v_next, double *r_next,
                       double *lambda) {
  return guarded(
      fn, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceContacts, "GEOLIN_WORKSPACE_CONTACTS")
            .dynamics_inputs(H, s, v, r, tau)
            .sizes([&] { return check_step(c.fn, method, h); });
        declare_feedback(c, fb.kp, fb.kd, fb.s_ref, fb.r_ref);
        declare_contacts(c, nc, frames, types, wrench_flags, gains, refs);
        declare_next_state(c, H_next, s_next, v_next, r_next)
            .optional_output("lambda", lambda, contact_rows(c, nc, types));
      },
      [&](Call &c) {
        const geolin::Contacts k = contacts_of(ws, nc, frames, types, wrench_flags, gains, refs);
        geolin::Transform Hn = base_transform(c.model, H);
        geolin::Vec6 vn = base_twist(c.model, v);
        const geolin::Outcome o = geolin::contact_step(
            c.model, ws->ws, static_cast<geolin::StepMethod>(method), h, base_transform(c.model, H),
            joint_vector(s, c.nj), base_twist(c.model, v), joint_vector(r, c.nj),
            joint_vector(tau, c.nj), k, Hn, ws->s_next, vn, ws->r_next, ws->lambda, fb);
        if (o.kind == geolin::Outcome::Kind::dependent_contact_row)
          return numeric_failure(c, o, "H_next/s_next/v_next/r_next", &k);
        return finish_step(c, o, h, H, s, v, r, tau, Hn, vn, H_next, s_next, v_next, r_next,
                           ws->lambda.head(k.rows()), lambda);
      });
}

// geolin_contact_step_linearize and geolin_contact_step_feedback_linearize.
int contact_step_linearize_entry(const char *fn, geolin_workspace *ws, int method, double h,
                                 const double *H, const double *s, const double *v, const double *r,
                                 const double *tau, const geolin::JointFeedback &fb, int nc,
                                 const int *frames, const int *types, unsigned wrench_flags,
                                 const double *gains, const double *refs, double *A_d, double *B_d,
                                 double *dlambda_dz, double *dlambda_dw) {
  return guarded(
      fn, ws,
      [&](Call &c) {
        const std::ptrdiff_t m = contact_rows(c, nc, types), N = c.N;
        c.feature(geolin::kWorkspaceContacts | geolin::kWorkspaceStepLinearize,
                  "GEOLIN_WORKSPACE_CONTACTS | GEOLIN_WORKSPACE_STEP_LINEARIZE")
            .dynamics_inputs(H, s, v, r, tau)
            .sizes([&] { return check_step(c.fn, method, h); });
        declare_feedback(c, fb.kp, fb.kd, fb.s_ref, fb.r_ref);
        declare_contacts(c, nc, frames, types, wrench_flags, gains, refs)
            .output("A_d", A_d, N * N)
            .output("B_d", B_d, N * c.nj)
            .optional_output("dlambda_dz", dlambda_dz, m * N)
            .optional_output("dlambda_dw", dlambda_dw, m * c.nj);
      },
      [&](Call &c) {  // staged: A_d, B_d in ws->A, ws->B, Dλ in ws->dlambda_dz, ws->dlambda_dw
        const geolin::Contacts k = contacts_of(ws, nc, frames, types, wrench_flags, gains, refs);
        const int m = k.rows();
        auto dz = ws->dlambda_dz.topRows(m);
        auto dw = ws->dlambda_dw.topRows(m);
        const geolin::Outcome o = geolin::contact_step_linearize(
            c.model, ws->ws, static_cast<geolin::StepMethod>(method), h, base_transform(c.model, H),
            joint_vector(s, c.nj), base_twist(c.model, v), joint_vector(r, c.nj),
            joint_vector(tau, c.nj), k, ws->A, ws->B, dz, dw, fb);
        if (o.kind == geolin::Outcome::Kind::dependent_contact_row)
          return numeric_failure(c, o, "A_d", &k);
        const geolin::Outcome overflow = geolin::Outcome::overflowed();
        if (!o || !all_finite(ws->A))
          return step_failure(c, o ? overflow : o, h, H, s, v, r, tau, "A_d");
        if (!all_finite(ws->B)) return step_failure(c, overflow, h, H, s, v, r, tau, "B_d");
        if (m > 0 && (!all_finite(dz) || !all_finite(dw)))
          return step_failure(c, overflow, h, H, s, v, r, tau, "dlambda_dz");
        return finish(c, o,
                      {{"A_d", A_d, ws->A},
                       {"B_d", B_d, ws->B},
                       {"dlambda_dz", m > 0 ? dlambda_dz : nullptr, dz},
                       {"dlambda_dw", m > 0 ? dlambda_dw : nullptr, dw}});
      });
}

}  // namespace

extern "C" {

GEOLIN_API int geolin_contact_step(geolin_workspace *ws, int method, double h, const double *H,
                                   const double *s, const double *v, const double *r,
                                   const double *tau, int nc, const int *frames, const int *types,
                                   unsigned wrench_flags, const double *gains, const double *refs,
                                   double *H_next, double *s_next, double *v_next, double *r_next,
                                   double *lambda) {
  return contact_step_entry(__func__, ws, method, h, H, s, v, r, tau, {}, nc, frames, types,
                            wrench_flags, gains, refs, H_next, s_next, v_next, r_next, lambda);
}

GEOLIN_API int geolin_contact_step_feedback(
    geolin_workspace *ws, int method, double h, const double *H, const double *s, const double *v,
    const double *r, const double *tau, const double *kp, const double *kd, const double *s_ref,
    const double *r_ref, int nc, const int *frames, const int *types, unsigned wrench_flags,
    const double *gains, const double *refs, double *H_next, double *s_next, double *v_next,
    double *r_next, double *lambda) {
  return contact_step_entry(__func__, ws, method, h, H, s, v, r, tau, {kp, kd, s_ref, r_ref}, nc,
                            frames, types, wrench_flags, gains, refs, H_next, s_next, v_next,
                            r_next, lambda);
}

GEOLIN_API int geolin_contact_step_linearize(geolin_workspace *ws, int method, double h,
                                             const double *H, const double *s, const double *v,
                                             const double *r, const double *tau, int nc,
                                             const int *frames, const int *types,
                                             unsigned wrench_flags, const double *gains,
                                             const double *refs, double *A_d, double *B_d,
                                             double *dlambda_dz, double *dlambda_dw) {
  return contact_step_linearize_entry(__func__, ws, method, h, H, s, v, r, tau, {}, nc, frames,
                                      types, wrench_flags, gains, refs, A_d, B_d, dlambda_dz,
                                      dlambda_dw);
}

GEOLIN_API int geolin_contact_step_feedback_linearize(
    geolin_workspace *ws, int method, double h, const double *H, const double *s, const double *v,
    const double *r, const double *tau, const double *kp, const double *kd, const double *s_ref,
    const double *r_ref, int nc, const int *frames, const int *types, unsigned wrench_flags,
    const double *gains, const double *refs, double *A_d, double *B_d, double *dlambda_dz,
    double *dlambda_dw) {
  return contact_step_linearize_entry(__func__, ws, method, h, H, s, v, r, tau,
                                      {kp, kd, s_ref, r_ref}, nc, frames, types, wrench_flags,
                                      gains, refs, A_d, B_d, dlambda_dz, dlambda_dw);
}

}  // extern "C"

// ============================================================================================
// Constraint sets: contacts, loops, couplings and wheels (version 0.5, docs/constraints.md)
// ============================================================================================

// An ordered set of constraints of one model (geolin.h). The model must outlive the set.
struct geolin_constraints {
  const geolin_model *m;
  geolin::ConstraintSet set;
};

static_assert(GEOLIN_LOOP_POINT == geolin::kLoopPoint && GEOLIN_LOOP_HINGE == geolin::kLoopHinge &&
                  GEOLIN_LOOP_RIGID == geolin::kLoopRigid,
              "loop types out of sync");
static_assert(GEOLIN_CONTACT_POINT == geolin::kContactPoint &&
                  GEOLIN_CONTACT_RIGID == geolin::kContactRigid,
              "contact types out of sync");

namespace {

using Constraint = geolin::Constraint;

int check_set(const char *fn, const geolin_constraints *set) noexcept {
  if (set != nullptr) return GEOLIN_OK;
  return fail(GEOLIN_ERR_INVALID_ARGUMENT,
              "%s: argument 'set' is NULL (create one with geolin_constraints_new)", fn);
}

// A frame argument `name` of a setter: a frame index of the set's model.
int check_set_frame(const char *fn, const geolin::Model &model, const char *name,
                    int frame) noexcept {
  const int nf = static_cast<int>(model.frames.size());
  if (frame >= 0 && frame < nf) return GEOLIN_OK;
  return fail(GEOLIN_ERR_INVALID_ARGUMENT,
              "%s: argument '%s' = %d is out of range [0, %d) (the frames of model '%.200s')", fn,
              name, frame, nf, model.name.c_str());
}

// A joint argument `name` of a setter: a joint index of the set's model.
int check_set_joint(const char *fn, const geolin::Model &model, const char *name,
                    int joint) noexcept {
  if (joint >= 0 && joint < model.num_joints()) return GEOLIN_OK;
  return fail(GEOLIN_ERR_INVALID_ARGUMENT,
              "%s: argument '%s' = %d is out of range [0, %d) (the joints of model '%.200s')", fn,
              name, joint, model.num_joints(), model.name.c_str());
}

const char *frame_name(const geolin::Model &model, int frame) {
  return model.frames[static_cast<std::size_t>(frame)].name.c_str();
}

const char *joint_name(const geolin::Model &model, int joint) {
  return model.joint_name[static_cast<std::size_t>(joint) + 1].c_str();
}

// A contact's ref (NULL: none): a rigid contact's H_ref a rigid transform within 1e-6; a point
// contact's translation ref[12..14] finite (its rotation is not read), as geolin_contact_dynamics
// checks its refs.
int check_contact_ref(const char *fn, int type, const double *ref) noexcept {
  if (ref == nullptr) return GEOLIN_OK;
  if (type == GEOLIN_CONTACT_RIGID) return check_rigid(fn, "ref", ref);
  for (int i = 12; i < 15; ++i)
    if (!std::isfinite(ref[i]))
      return fail(GEOLIN_ERR_NONFINITE,
                  "%s: argument 'ref' has a non-finite value (%g) at index %d (the translation of "
                  "the point contact's held pose)",
                  fn, ref[i], i);
  return GEOLIN_OK;
}

// The held pose of a contact of `type` from a checked ref (a point keeps its translation only).
geolin::Transform contact_ref(int type, const double *ref) {
  geolin::Transform T;
  for (int j = 0; j < 3; ++j) {
    if (type == GEOLIN_CONTACT_RIGID)
      for (int i = 0; i < 3; ++i) T.R(i, j) = ref[i + 4 * j];
    T.o(j) = ref[12 + j];
  }
  return T;
}

// Whether joint `to` follows from joint `from` through the couplings of `items` (edges joint ->
// source): adding the coupling of `to` to `from` would then close a cycle.
bool coupled_through(const std::vector<Constraint> &items, int nj, int from, int to) {
  std::vector<char> seen(static_cast<std::size_t>(nj), 0);
  std::vector<int> stack{from};
  while (!stack.empty()) {
    const int j = stack.back();
    stack.pop_back();
    if (j == to) return true;
    if (seen[static_cast<std::size_t>(j)]) continue;
    seen[static_cast<std::size_t>(j)] = 1;
    for (const Constraint &c : items)
      if (c.kind == Constraint::Kind::coupling && c.joint == j) stack.push_back(c.source);
  }
  return false;
}

// A coupling s[joint] = ratio s[source] + offset of checked joints to be added to `items`:
// ratio finite and not 0, offset finite, no cycle. Messages name the arguments of
// geolin_constraints_add_coupling, or (mimic) the URDF's <mimic>. Allocates (the cycle walk).
int check_coupling(const char *fn, const geolin::Model &model, const std::vector<Constraint> &items,
                   int joint, int source, double ratio, double offset, bool mimic) {
  const char *ratio_name = mimic ? "the <mimic> multiplier" : "argument 'ratio'";
  const char *offset_name = mimic ? "the <mimic> offset" : "argument 'offset'";
  if (!std::isfinite(ratio))
    return fail(GEOLIN_ERR_NONFINITE, "%s: %s of joint '%.100s' is not finite (%g)", fn, ratio_name,
                joint_name(model, joint), ratio);
  if (ratio == 0.0)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: %s of joint '%.100s' is 0: a coupling s[joint] = ratio s[source] + offset "
                "needs ratio != 0 (to hold a joint at a position, use a ratio with a joint that "
                "does not move, or a joint limit of the model)",
                fn, ratio_name, joint_name(model, joint));
  if (!std::isfinite(offset))
    return fail(GEOLIN_ERR_NONFINITE, "%s: %s of joint '%.100s' is not finite (%g)", fn,
                offset_name, joint_name(model, joint), offset);
  if (coupled_through(items, model.num_joints(), source, joint))
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: %s coupling of joint %d ('%.100s') to joint %d ('%.100s') would close a cycle "
                "of couplings: joint '%.100s' already follows joint '%.100s' through the set's "
                "couplings (argument 'source')",
                fn, mimic ? "the <mimic>" : "the", joint, joint_name(model, joint), source,
                joint_name(model, source), joint_name(model, source), joint_name(model, joint));
  return GEOLIN_OK;
}

// Applies change(set) to a copy of the set, rebuilds the copy's contact arrays
// (ConstraintSet::update) and then replaces the set by it: on MEMORY the set is unchanged.
template <class Change>
int modify(const char *fn, geolin_constraints *set, Change &&change) noexcept {
  try {
    geolin::ConstraintSet next = set->set;
    change(next);
    next.update();
    set->set = std::move(next);
    return GEOLIN_OK;
  } catch (...) {
    return handle_exception(fn);
  }
}

// Adds c to the set (strong guarantee: on MEMORY the set is unchanged).
int push(const char *fn, geolin_constraints *set, const Constraint &c) noexcept {
  return modify(fn, set, [&](geolin::ConstraintSet &next) { next.items.push_back(c); });
}

// The set of a geolin_constrained_* call: not NULL (pointers phase, with the inputs), then
// (values phase) of the workspace's model, within the workspace's wrench capacity (a loop takes
// two) and its rows (m <= n), and with the held pose of every contact when Kp != 0. Sets c.set.
Call &declare_set(Call &c, const geolin_constraints *set) {
  if (c.phase == Phase::pointers && c.status == GEOLIN_OK) c.status = check_set(c.fn, set);
  return c.values([&]() -> int {
    const geolin::ConstraintSet &k = set->set;
    if (set->m != c.ws->m)
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'set' was created for another model ('%.100s') than the "
                  "workspace's ('%.100s'): create the set with geolin_constraints_new on the "
                  "workspace's model",
                  c.fn, set->m->model.name.c_str(), c.model.name.c_str());
    const int slots = k.slots(), capacity = c.ws->ws.dims.max_wrenches;
    if (slots > capacity)
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'set' has %d constraints taking %d wrenches (a loop takes 2), more "
                  "than the %d the workspace was created for (geolin_workspace_new_ex, "
                  "max_wrenches)",
                  c.fn, static_cast<int>(k.items.size()), slots, capacity);
    const int m = k.rows();
    if (m > c.n)
      return fail(GEOLIN_ERR_NUMERIC,
                  "%s: the %d constraints of argument 'set' have %d rows, more than the model's "
                  "%d degrees of freedom: they are redundant (remove constraints, or hold points "
                  "instead of frames); nothing was written",
                  c.fn, static_cast<int>(k.items.size()), m, c.n);
    if (k.Kp != 0.0)
      for (std::size_t i = 0; i < k.items.size(); ++i) {
        const Constraint &ci = k.items[i];
        if (ci.kind == Constraint::Kind::contact && !ci.has_ref)
          return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                      "%s: argument 'set' has Kp = %g but its constraint %d (contact at frame "
                      "'%.100s') has no ref: the position gain needs the held pose "
                      "(geolin_constraints_set_ref)",
                      c.fn, k.Kp, static_cast<int>(i), frame_name(c.model, ci.frame));
      }
    c.set = &k;
    return GEOLIN_OK;
  });
}

// The rows m of the call's set, the size of its lambda outputs: from the pointers phase on (0
// before, or for a NULL set, which declare_set refuses).
std::ptrdiff_t set_rows(const Call &c, const geolin_constraints *set) {
  if (c.status != GEOLIN_OK || c.phase < Phase::pointers || set == nullptr) return 0;
  return set->set.rows();
}

}  // namespace

extern "C" {

GEOLIN_API int geolin_constraints_new(const geolin_model *model, geolin_constraints **out) {
  if (out == nullptr)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", __func__);
  *out = nullptr;
  if (model_or_fail(__func__, model) == nullptr) return GEOLIN_ERR_INVALID_ARGUMENT;
  geolin_constraints *set = new (std::nothrow) geolin_constraints{model, geolin::ConstraintSet{}};
  if (set == nullptr) return fail(GEOLIN_ERR_MEMORY, "%s: out of memory", __func__);
  try {
    set->set.update();
  } catch (...) {
    delete set;
    return handle_exception(__func__);
  }
  *out = set;
  return GEOLIN_OK;
}

GEOLIN_API void geolin_constraints_free(geolin_constraints *set) {
  delete set;
}

GEOLIN_API int geolin_constraints_add_contact(geolin_constraints *set, int frame, int type,
                                              const double *ref) {
  if (int st = check_set(__func__, set)) return st;
  const geolin::Model &model = set->m->model;
  if (int st = check_set_frame(__func__, model, "frame", frame)) return st;
  if (type != GEOLIN_CONTACT_POINT && type != GEOLIN_CONTACT_RIGID)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'type' = %d is not GEOLIN_CONTACT_POINT (3) or GEOLIN_CONTACT_RIGID "
                "(6)",
                __func__, type);
  if (int st = check_contact_ref(__func__, type, ref)) return st;
  const Constraint c = ref != nullptr ? Constraint::contact(frame, type, contact_ref(type, ref))
                                      : Constraint::contact(frame, type);
  return push(__func__, set, c);
}

GEOLIN_API int geolin_constraints_add_loop(geolin_constraints *set, int frame_a, int frame_b,
                                           int type) {
  if (int st = check_set(__func__, set)) return st;
  const geolin::Model &model = set->m->model;
  if (int st = check_set_frame(__func__, model, "frame_a", frame_a)) return st;
  if (int st = check_set_frame(__func__, model, "frame_b", frame_b)) return st;
  if (frame_a == frame_b)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'frame_b' = %d is frame_a ('%.100s'): a loop closes two distinct "
                "frames on two bodies",
                __func__, frame_b, frame_name(model, frame_a));
  const int body_a = model.frames[static_cast<std::size_t>(frame_a)].body;
  const int body_b = model.frames[static_cast<std::size_t>(frame_b)].body;
  if (body_a == body_b)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'frame_b' = %d ('%.100s') is on the body of frame_a ('%.100s'), "
                "'%.100s': a loop needs two bodies (frames on one body never move apart)",
                __func__, frame_b, frame_name(model, frame_b), frame_name(model, frame_a),
                model.body_name[static_cast<std::size_t>(body_a)].c_str());
  if (type != GEOLIN_LOOP_POINT && type != GEOLIN_LOOP_HINGE && type != GEOLIN_LOOP_RIGID)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'type' = %d is not GEOLIN_LOOP_POINT (3), GEOLIN_LOOP_HINGE (5) or "
                "GEOLIN_LOOP_RIGID (6)",
                __func__, type);
  return push(__func__, set, Constraint::loop(frame_a, frame_b, type));
}

GEOLIN_API int geolin_constraints_add_coupling(geolin_constraints *set, int joint, int source,
                                               double ratio, double offset) {
  if (int st = check_set(__func__, set)) return st;
  const geolin::Model &model = set->m->model;
  if (int st = check_set_joint(__func__, model, "joint", joint)) return st;
  if (int st = check_set_joint(__func__, model, "source", source)) return st;
  if (joint == source)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'source' = %d is 'joint' ('%.100s'): a joint cannot be coupled to "
                "itself",
                __func__, source, joint_name(model, joint));
  try {
    if (int st =
            check_coupling(__func__, model, set->set.items, joint, source, ratio, offset, false))
      return st;
  } catch (...) {
    return handle_exception(__func__);
  }
  return push(__func__, set, Constraint::coupling(joint, source, ratio, offset));
}

GEOLIN_API int geolin_constraints_add_mimic_joints(geolin_constraints *set) {
  if (int st = check_set(__func__, set)) return st;
  const geolin::Model &model = set->m->model;
  try {
    // All or nothing: the couplings are added to a copy, which replaces the set's list at the end.
    std::vector<Constraint> items = set->set.items;
    int added = 0;
    for (int i = 1; i < model.num_bodies() && static_cast<std::size_t>(i) < model.mimic_of.size();
         ++i) {
      const std::string &of = model.mimic_of[static_cast<std::size_t>(i)];
      if (of.empty()) continue;
      const int joint = i - 1, source = model.joint_index(of);
      if (source < 0 || source == joint)
        return fail(GEOLIN_ERR_MODEL,
                    "%s: the <mimic> of joint '%.100s' names joint '%.100s', which is %s; nothing "
                    "was added",
                    __func__, joint_name(model, joint), of.c_str(),
                    source < 0 ? "not a joint of the model" : "itself");
      const double ratio = model.mimic_multiplier[static_cast<std::size_t>(i)];
      const double offset = model.mimic_offset[static_cast<std::size_t>(i)];
      if (int st = check_coupling(__func__, model, items, joint, source, ratio, offset, true))
        return st;
      items.push_back(Constraint::coupling(joint, source, ratio, offset));
      ++added;
    }
    const int st =
        modify(__func__, set, [&](geolin::ConstraintSet &next) { next.items.swap(items); });
    return st != GEOLIN_OK ? st : added;
  } catch (...) {
    return handle_exception(__func__);
  }
}

GEOLIN_API int geolin_constraints_add_wheel(geolin_constraints *set, int frame, const double *axis,
                                            double radius) {
  if (int st = check_set(__func__, set)) return st;
  const geolin::Model &model = set->m->model;
  if (int st = check_set_frame(__func__, model, "frame", frame)) return st;
  if (int st = check_array(__func__, "axis", axis, 3)) return st;
  const geolin::Vec3 a(axis[0], axis[1], axis[2]);
  const double norm = a.norm();
  if (!(norm > 0.0) || !std::isfinite(norm))
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'axis' = [%g %g %g] of the wheel at frame '%.100s' has length %g: "
                "give the spin axis, a nonzero vector in the frame's axes",
                __func__, axis[0], axis[1], axis[2], frame_name(model, frame), norm);
  if (!std::isfinite(radius))
    return fail(GEOLIN_ERR_NONFINITE,
                "%s: argument 'radius' of the wheel at frame '%.100s' is not finite (%g)", __func__,
                frame_name(model, frame), radius);
  if (!(radius > 0.0))
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'radius' = %g of the wheel at frame '%.100s' must be > 0 (m)",
                __func__, radius, frame_name(model, frame));
  try {
    // The spin axis in world axes at the neutral configuration (s = 0, the base at the origin or,
    // fixed, where the model welds it).
    geolin::Workspace neutral(model, geolin::kWorkspaceDynamics, 0);
    const geolin::Transform base = model.fixed_base ? model.H_A_0 : geolin::Transform{};
    const Eigen::VectorXd s0 = Eigen::VectorXd::Zero(model.num_joints());
    const geolin::Transform T = geolin::frame_pose(model, neutral, base, s0, frame);
    const geolin::Vec3 unit = a / norm, world = T.R * unit;
    if (std::abs(world.z()) > 1.0 - 1e-6)
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument 'axis' = [%g %g %g]: the spin axis of the wheel at frame '%.100s' "
                  "is normal to the ground plane z = 0 at the model's neutral configuration "
                  "(s = 0, the base at the origin: [%.3g %.3g %.3g] in world axes), where the rim "
                  "point nearest the plane is not defined; a wheel rolls on its rim, its spin "
                  "axis parallel to the plane",
                  __func__, axis[0], axis[1], axis[2], frame_name(model, frame), world.x(),
                  world.y(), world.z());
    return push(__func__, set, Constraint::wheel(frame, unit, radius));
  } catch (...) {
    return handle_exception(__func__);
  }
}

GEOLIN_API int geolin_constraints_set_gains(geolin_constraints *set, double kp, double kd) {
  if (int st = check_set(__func__, set)) return st;
  const double gains[2] = {kp, kd};
  for (int k = 0; k < 2; ++k) {
    const char *name = k == 0 ? "kp" : "kd";
    if (!std::isfinite(gains[k]))
      return fail(GEOLIN_ERR_NONFINITE, "%s: argument '%s' is not finite (%g)", __func__, name,
                  gains[k]);
    if (gains[k] < 0.0)
      return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' = %g is negative: Baumgarte gains must be >= 0", __func__,
                  name, gains[k]);
  }
  return modify(__func__, set, [&](geolin::ConstraintSet &next) {
    next.Kp = kp;
    next.Kd = kd;
  });
}

GEOLIN_API int geolin_constraints_set_axes(geolin_constraints *set, unsigned wrench_flags) {
  if (int st = check_set(__func__, set)) return st;
  if (wrench_flags != GEOLIN_WRENCH_LOCAL && wrench_flags != GEOLIN_WRENCH_MIXED)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'wrench_flags' = %u is not GEOLIN_WRENCH_LOCAL (0) or "
                "GEOLIN_WRENCH_MIXED (1)",
                __func__, wrench_flags);
  return modify(__func__, set, [&](geolin::ConstraintSet &next) { next.flags = wrench_flags; });
}

GEOLIN_API int geolin_constraints_set_ref(geolin_constraints *set, int k, const double *ref) {
  if (int st = check_set(__func__, set)) return st;
  const int count = static_cast<int>(set->set.items.size());
  if (k < 0 || k >= count)
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'k' = %d is out of range [0, %d) (the set's constraints, in the "
                "order added)",
                __func__, k, count);
  const Constraint &c = set->set.items[static_cast<std::size_t>(k)];
  if (c.kind != Constraint::Kind::contact) {
    static const char *const kinds[] = {"contact", "loop", "coupling", "wheel"};
    return fail(GEOLIN_ERR_INVALID_ARGUMENT,
                "%s: argument 'k' = %d is a %s, not a contact: only a contact has a held pose",
                __func__, k, kinds[static_cast<int>(c.kind)]);
  }
  if (int st = check_contact_ref(__func__, c.type, ref)) return st;
  const geolin::Transform held = ref != nullptr ? contact_ref(c.type, ref) : geolin::Transform{};
  return modify(__func__, set, [&](geolin::ConstraintSet &next) {
    Constraint &contact = next.items[static_cast<std::size_t>(k)];
    contact.has_ref = ref != nullptr;
    contact.ref = held;
  });
}

GEOLIN_API int geolin_constraints_num_rows(const geolin_constraints *set) {
  if (check_set(__func__, set)) return -1;
  return set->set.rows();
}

GEOLIN_API int geolin_constrained_dynamics(geolin_workspace *ws, const geolin_constraints *set,
                                           const double *H, const double *s, const double *v,
                                           const double *r, const double *tau, double *nu_dot,
                                           double *lambda) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceContacts, "GEOLIN_WORKSPACE_CONTACTS")
            .dynamics_inputs(H, s, v, r, tau);
        declare_set(c, set)
            .output("nu_dot", nu_dot, c.n)
            .output("lambda", lambda, set_rows(c, set));
      },
      [&](Call &c) {
        const int m = set->set.rows();
        const geolin::Outcome o = geolin::constrained_dynamics(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), joint_vector(tau, c.nj), set->set,
            ws->contact_mu, ws->vec, ws->lambda.head(m));
        return finish(c, o, {{"nu_dot", nu_dot, ws->vec}, {"lambda", lambda, ws->lambda.head(m)}});
      });
}

GEOLIN_API int geolin_constrained_linearize(geolin_workspace *ws, const geolin_constraints *set,
                                            const double *H, const double *s, const double *v,
                                            const double *r, const double *tau, double *A,
                                            double *B, double *dlambda_dz, double *dlambda_dw) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        const std::ptrdiff_t m = set_rows(c, set), N = c.N;
        c.feature(geolin::kWorkspaceContacts | geolin::kWorkspaceLinearize,
                  "GEOLIN_WORKSPACE_CONTACTS | GEOLIN_WORKSPACE_LINEARIZE")
            .dynamics_inputs(H, s, v, r, tau);
        declare_set(c, set)
            .output("A", A, N * N)
            .output("B", B, N * c.nj)
            .optional_output("dlambda_dz", dlambda_dz, m * N)
            .optional_output("dlambda_dw", dlambda_dw, m * c.nj);
      },
      [&](Call &c) {  // straight into the caller's arrays, checked before writing
        const int m = set->set.rows();
        Eigen::Map<Eigen::MatrixXd> Am(A, c.N, c.N), Bm(B, c.N, c.nj);
        Eigen::Map<Eigen::MatrixXd> dz(dlambda_dz, dlambda_dz ? m : 0, dlambda_dz ? c.N : 0);
        Eigen::Map<Eigen::MatrixXd> dw(dlambda_dw, dlambda_dw ? m : 0, dlambda_dw ? c.nj : 0);
        const geolin::Outcome o = geolin::constrained_linearize(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), joint_vector(tau, c.nj), set->set,
            ws->contact_mu, Am, Bm, dz, dw);
        return direct(c, o, "A");
      });
}

GEOLIN_API int geolin_constrained_impulse(geolin_workspace *ws, const geolin_constraints *set,
                                          double restitution, const double *H, const double *s,
                                          const double *v, const double *r, double *v_next,
                                          double *r_next, double *impulse) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceContacts, "GEOLIN_WORKSPACE_CONTACTS").state(H, s, v, r);
        declare_set(c, set).values([&] { return check_restitution(c.fn, restitution); });
        if (!c.model.fixed_base) c.output("v_next", v_next, 6);
        c.output("r_next", r_next, c.nj).optional_output("impulse", impulse, set_rows(c, set));
      },
      [&](Call &c) {  // staged: the outputs may alias the inputs
        const int m = set->set.rows();
        const geolin::Outcome o = geolin::constrained_impulse(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), set->set, ws->contact_mu, restitution,
            ws->vec, ws->lambda.head(m));
        const int nv = c.n - c.nj;
        return finish(c, o,
                      {{"v_next/r_next", c.model.fixed_base ? nullptr : v_next, ws->vec.head(nv)},
                       {"v_next/r_next", r_next, ws->vec.tail(c.nj)},
                       {"impulse", impulse, ws->lambda.head(m)}});
      });
}

GEOLIN_API int geolin_constrained_impulse_linearize(
    geolin_workspace *ws, const geolin_constraints *set, double restitution, const double *H,
    const double *s, const double *v, const double *r, double *A_imp, double *dimpulse_dz) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceContacts | geolin::kWorkspaceLinearize,
                  "GEOLIN_WORKSPACE_CONTACTS | GEOLIN_WORKSPACE_LINEARIZE")
            .state(H, s, v, r);
        declare_set(c, set)
            .values([&] { return check_restitution(c.fn, restitution); })
            .output("A_imp", A_imp, std::ptrdiff_t{c.N} * c.N)
            .optional_output("dimpulse_dz", dimpulse_dz, set_rows(c, set) * c.N);
      },
      [&](Call &c) {  // straight into the caller's arrays, checked before writing
        const int m = set->set.rows();
        Eigen::Map<Eigen::MatrixXd> Am(A_imp, c.N, c.N);
        Eigen::Map<Eigen::MatrixXd> dz(dimpulse_dz, dimpulse_dz ? m : 0, dimpulse_dz ? c.N : 0);
        const geolin::Outcome o = geolin::constrained_impulse_linearize(
            c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
            base_twist(c.model, v), joint_vector(r, c.nj), set->set, ws->contact_mu, restitution,
            Am, dz);
        return direct(c, o, "A_imp");
      });
}

}  // extern "C"

namespace {

// geolin_constrained_step and geolin_constrained_step_feedback (fb all NULL for the first).
int constrained_step_entry(const char *fn, geolin_workspace *ws, const geolin_constraints *set,
                           int method, double h, const double *H, const double *s, const double *v,
                           const double *r, const double *tau, const geolin::JointFeedback &fb,
                           double *H_next, double *s_next, double *v_next, double *r_next,
                           double *lambda) {
  return guarded(
      fn, ws,
      [&](Call &c) {
        c.feature(geolin::kWorkspaceContacts, "GEOLIN_WORKSPACE_CONTACTS")
            .dynamics_inputs(H, s, v, r, tau)
            .sizes([&] { return check_step(c.fn, method, h); });
        declare_feedback(c, fb.kp, fb.kd, fb.s_ref, fb.r_ref);
        declare_set(c, set);
        declare_next_state(c, H_next, s_next, v_next, r_next)
            .optional_output("lambda", lambda, set_rows(c, set));
      },
      [&](Call &c) {
        const int m = set->set.rows();
        geolin::Transform Hn = base_transform(c.model, H);
        geolin::Vec6 vn = base_twist(c.model, v);
        const geolin::Outcome o = geolin::constrained_step(
            c.model, ws->ws, static_cast<geolin::StepMethod>(method), h, base_transform(c.model, H),
            joint_vector(s, c.nj), base_twist(c.model, v), joint_vector(r, c.nj),
            joint_vector(tau, c.nj), set->set, ws->contact_mu, Hn, ws->s_next, vn, ws->r_next,
            ws->lambda.head(m), fb);
        using Kind = geolin::Outcome::Kind;
        if (o.kind == Kind::dependent_contact_row || o.kind == Kind::dependent_constraint_row ||
            o.kind == Kind::wheel_axis_normal)
          return numeric_failure(c, o, "H_next/s_next/v_next/r_next");
        return finish_step(c, o, h, H, s, v, r, tau, Hn, vn, H_next, s_next, v_next, r_next,
                           ws->lambda.head(m), lambda);
      });
}

// geolin_constrained_step_linearize and geolin_constrained_step_feedback_linearize.
int constrained_step_linearize_entry(const char *fn, geolin_workspace *ws,
                                     const geolin_constraints *set, int method, double h,
                                     const double *H, const double *s, const double *v,
                                     const double *r, const double *tau,
                                     const geolin::JointFeedback &fb, double *A_d, double *B_d,
                                     double *dlambda_dz, double *dlambda_dw) {
  return guarded(
      fn, ws,
      [&](Call &c) {
        const std::ptrdiff_t m = set_rows(c, set), N = c.N;
        c.feature(geolin::kWorkspaceContacts | geolin::kWorkspaceStepLinearize,
                  "GEOLIN_WORKSPACE_CONTACTS | GEOLIN_WORKSPACE_STEP_LINEARIZE")
            .dynamics_inputs(H, s, v, r, tau)
            .sizes([&] { return check_step(c.fn, method, h); });
        declare_feedback(c, fb.kp, fb.kd, fb.s_ref, fb.r_ref);
        declare_set(c, set)
            .output("A_d", A_d, N * N)
            .output("B_d", B_d, N * c.nj)
            .optional_output("dlambda_dz", dlambda_dz, m * N)
            .optional_output("dlambda_dw", dlambda_dw, m * c.nj);
      },
      [&](Call &c) {  // staged: A_d, B_d in ws->A, ws->B, Dλ in ws->dlambda_dz, ws->dlambda_dw
        const int m = set->set.rows();
        auto dz = ws->dlambda_dz.topRows(m);
        auto dw = ws->dlambda_dw.topRows(m);
        const geolin::Outcome o = geolin::constrained_step_linearize(
            c.model, ws->ws, static_cast<geolin::StepMethod>(method), h, base_transform(c.model, H),
            joint_vector(s, c.nj), base_twist(c.model, v), joint_vector(r, c.nj),
            joint_vector(tau, c.nj), set->set, ws->contact_mu, ws->A, ws->B, dz, dw, fb);
        using Kind = geolin::Outcome::Kind;
        if (o.kind == Kind::dependent_contact_row || o.kind == Kind::dependent_constraint_row ||
            o.kind == Kind::wheel_axis_normal)
          return numeric_failure(c, o, "A_d");
        const geolin::Outcome overflow = geolin::Outcome::overflowed();
        if (!o || !all_finite(ws->A))
          return step_failure(c, o ? overflow : o, h, H, s, v, r, tau, "A_d");
        if (!all_finite(ws->B)) return step_failure(c, overflow, h, H, s, v, r, tau, "B_d");
        if (m > 0 && (!all_finite(dz) || !all_finite(dw)))
          return step_failure(c, overflow, h, H, s, v, r, tau, "dlambda_dz");
        return finish(c, o,
                      {{"A_d", A_d, ws->A},
                       {"B_d", B_d, ws->B},
                       {"dlambda_dz", m > 0 ? dlambda_dz : nullptr, dz},
                       {"dlambda_dw", m > 0 ? dlambda_dw : nullptr, dw}});
      });
}

}  // namespace

extern "C" {

GEOLIN_API int geolin_constrained_step(geolin_workspace *ws, const geolin_constraints *set,
                                       int method, double h, const double *H, const double *s,
                                       const double *v, const double *r, const double *tau,
                                       double *H_next, double *s_next, double *v_next,
                                       double *r_next, double *lambda) {
  return constrained_step_entry(__func__, ws, set, method, h, H, s, v, r, tau, {}, H_next, s_next,
                                v_next, r_next, lambda);
}

GEOLIN_API int geolin_constrained_step_feedback(geolin_workspace *ws, const geolin_constraints *set,
                                                int method, double h, const double *H,
                                                const double *s, const double *v, const double *r,
                                                const double *tau, const double *kp,
                                                const double *kd, const double *s_ref,
                                                const double *r_ref, double *H_next, double *s_next,
                                                double *v_next, double *r_next, double *lambda) {
  return constrained_step_entry(__func__, ws, set, method, h, H, s, v, r, tau,
                                {kp, kd, s_ref, r_ref}, H_next, s_next, v_next, r_next, lambda);
}

GEOLIN_API int geolin_constrained_step_linearize(geolin_workspace *ws,
                                                 const geolin_constraints *set, int method,
                                                 double h, const double *H, const double *s,
                                                 const double *v, const double *r,
                                                 const double *tau, double *A_d, double *B_d,
                                                 double *dlambda_dz, double *dlambda_dw) {
  return constrained_step_linearize_entry(__func__, ws, set, method, h, H, s, v, r, tau, {}, A_d,
                                          B_d, dlambda_dz, dlambda_dw);
}

GEOLIN_API int geolin_constrained_step_feedback_linearize(
    geolin_workspace *ws, const geolin_constraints *set, int method, double h, const double *H,
    const double *s, const double *v, const double *r, const double *tau, const double *kp,
    const double *kd, const double *s_ref, const double *r_ref, double *A_d, double *B_d,
    double *dlambda_dz, double *dlambda_dw) {
  return constrained_step_linearize_entry(__func__, ws, set, method, h, H, s, v, r, tau,
                                          {kp, kd, s_ref, r_ref}, A_d, B_d, dlambda_dz, dlambda_dw);
}

}  // extern "C"

// ============================================================================================
// Costs and constraints: centre of mass, centroidal momentum, frame errors, velocities and
// accelerations with their derivatives in z (docs/dynamics.md §11)
// ============================================================================================

namespace {

// flags of the frame velocity and acceleration: GEOLIN_WRENCH_LOCAL or GEOLIN_WRENCH_MIXED.
int check_axes(const char *fn, unsigned flags) noexcept {
  if (flags == GEOLIN_WRENCH_LOCAL || flags == GEOLIN_WRENCH_MIXED) return GEOLIN_OK;
  return fail(GEOLIN_ERR_INVALID_ARGUMENT,
              "%s: argument 'flags' = %u is not GEOLIN_WRENCH_LOCAL (0) or GEOLIN_WRENCH_MIXED (1)",
              fn, flags);
}

// The centre of mass is undefined for a model without mass (a fixed base may have none).
int check_mass(const char *fn, const geolin::Model &model) noexcept {
  if (model.total_mass() > 0.0) return GEOLIN_OK;
  return fail(GEOLIN_ERR_NUMERIC,
              "%s: the model has no mass (total %g kg): its centre of mass is undefined; nothing "
              "was written",
              fn, model.total_mass());
}

// A view of a staging matrix for an optional output: the whole matrix when the caller asked for
// it, an empty view (not computed) for NULL.
Eigen::Ref<Eigen::MatrixXd> staged(Eigen::MatrixXd &M, Eigen::Index rows, const double *out) {
  return out ? Eigen::Ref<Eigen::MatrixXd>(M.topRows(rows))
             : Eigen::Ref<Eigen::MatrixXd>(M.topLeftCorner(0, 0));
}

}  // namespace

extern "C" {

GEOLIN_API int geolin_center_of_mass(geolin_workspace *ws, const double *H, const double *s,
                                     const double *v, const double *r, double *com,
                                     double *com_velocity, double *J_com) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.state(H, s, v, r)
            .values([&] { return check_mass(c.fn, c.model); })
            .optional_output("com", com, 3)
            .optional_output("com_velocity", com_velocity, 3)
            .optional_output("J_com", J_com, 3 * c.n);
      },
      [&](Call &c) {
        geolin::Vec3 p, pv;
        geolin::center_of_mass(c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
                               base_twist(c.model, v), joint_vector(r, c.nj), p, pv,
                               staged(ws->J, 3, J_com));
        return finish(c, geolin::Outcome(),
                      {{"com", com, p},
                       {"com_velocity", com_velocity, pv},
                       {"J_com", J_com, ws->J.topRows(3)}});
      });
}

GEOLIN_API int geolin_centroidal_momentum(geolin_workspace *ws, const double *H, const double *s,
                                          const double *v, const double *r, double *h_G,
                                          double *A_G, double *dh_dz) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.state(H, s, v, r)
            .values([&] { return check_mass(c.fn, c.model); })
            .output("h_G", h_G, 6)
            .optional_output("A_G", A_G, 6 * c.n)
            .optional_output("dh_dz", dh_dz, 6 * std::ptrdiff_t{c.N});
      },
      [&](Call &c) {
        geolin::Vec6 h;
        geolin::centroidal_momentum(c.model, ws->ws, base_transform(c.model, H),
                                    joint_vector(s, c.nj), base_twist(c.model, v),
                                    joint_vector(r, c.nj), h, staged(ws->J, 6, A_G),
                                    staged(ws->Dz, 6, dh_dz));
        return finish(c, geolin::Outcome(),
                      {{"h_G", h_G, h}, {"A_G", A_G, ws->J}, {"dh_dz", dh_dz, ws->Dz}});
      });
}

GEOLIN_API int geolin_frame_pose_error(geolin_workspace *ws, const double *H, const double *s,
                                       int frame, const double *H_ref, double *error,
                                       double *de_dz) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        declare_frame_inputs(c, H, s, frame)
            .pose("H_ref", H_ref)
            .output("error", error, 6)
            .optional_output("de_dz", de_dz, 6 * std::ptrdiff_t{c.N});
      },
      [&](Call &c) {
        geolin::Transform ref;
        for (int j = 0; j < 3; ++j) {
          for (int i = 0; i < 3; ++i) ref.R(i, j) = H_ref[i + 4 * j];
          ref.o(j) = H_ref[12 + j];
        }
        geolin::Vec6 e;
        geolin::frame_pose_error(c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
                                 frame, ref, e, staged(ws->Dz, 6, de_dz));
        return finish(c, geolin::Outcome(), {{"error", error, e}, {"de_dz", de_dz, ws->Dz}});
      });
}

GEOLIN_API int geolin_frame_velocity(geolin_workspace *ws, const double *H, const double *s,
                                     const double *v, const double *r, int frame, unsigned flags,
                                     double *twist, double *dtwist_dz) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.state(H, s, v, r)
            .values([&] { return check_frame(c.fn, c.model, frame); })
            .values([&] { return check_axes(c.fn, flags); })
            .output("twist", twist, 6)
            .optional_output("dtwist_dz", dtwist_dz, 6 * std::ptrdiff_t{c.N});
      },
      [&](Call &c) {
        geolin::Vec6 t;
        geolin::frame_velocity(c.model, ws->ws, base_transform(c.model, H), joint_vector(s, c.nj),
                               base_twist(c.model, v), joint_vector(r, c.nj), frame, flags, t,
                               staged(ws->Dz, 6, dtwist_dz));
        return finish(c, geolin::Outcome(),
                      {{"twist", twist, t}, {"dtwist_dz", dtwist_dz, ws->Dz}});
      });
}

GEOLIN_API int geolin_frame_acceleration(geolin_workspace *ws, const double *H, const double *s,
                                         const double *v, const double *r, const double *nu_dot,
                                         int frame, unsigned flags, double *acc, double *dacc_dz,
                                         double *dacc_dnudot) {
  return guarded(
      __func__, ws,
      [&](Call &c) {
        c.state(H, s, v, r)
            .input("nu_dot", nu_dot, c.n)
            .values([&] { return check_frame(c.fn, c.model, frame); })
            .values([&] { return check_axes(c.fn, flags); })
            .output("acc", acc, 6)
            .optional_output("dacc_dz", dacc_dz, 6 * std::ptrdiff_t{c.N})
            .optional_output("dacc_dnudot", dacc_dnudot, 6 * c.n);
      },
      [&](Call &c) {
        geolin::Vec6 a;
        geolin::frame_acceleration(c.model, ws->ws, base_transform(c.model, H),
                                   joint_vector(s, c.nj), base_twist(c.model, v),
                                   joint_vector(r, c.nj), CMap(nu_dot, c.n), frame, flags, a,
                                   staged(ws->Dz, 6, dacc_dz), staged(ws->J, 6, dacc_dnudot));
        return finish(
            c, geolin::Outcome(),
            {{"acc", acc, a}, {"dacc_dz", dacc_dz, ws->Dz}, {"dacc_dnudot", dacc_dnudot, ws->J}});
      });
}

}  // extern "C"

// --- State algebra (geolin_state_*): the model only, no workspace ----------------------------
// The group operations of include/geolin/state.hpp. The pose and twist parts are computed on the
// stack and the joint parts entry by entry, so an output may be its own input; a result is
// checked finite before anything is written (no staging buffer: these calls have no workspace).

namespace {

// The names of one state's arguments: H, s, v, r (or H0, s0, ..., H1, s1, ...).
struct StateNames {
  const char *H, *s, *v, *r;
};

// A state argument (H, s, v, r) of the model: H rigid and v finite for a moving base (else not
// read), s finite, and r finite when `velocities` (the derivative calls do not read v, r).
int check_state_args(const char *fn, const geolin::Model &model, const StateNames &names,
                     const double *H, const double *s, const double *v, const double *r,
                     bool velocities) noexcept {
  const int nj = model.num_joints();
  const bool moving = !model.fixed_base;
  if (moving) {
    if (int st = check_rigid(fn, names.H, H)) return st;
  }
  if (int st = check_array(fn, names.s, s, nj)) return st;
  if (!velocities) return GEOLIN_OK;
  if (moving) {
    if (int st = check_array(fn, names.v, v, 6)) return st;
  }
  return check_array(fn, names.r, r, nj);
}

// GEOLIN_ERR_NUMERIC for a state-algebra result that is not finite although every input is.
int state_overflow(const char *fn, const char *output) noexcept {
  return fail(GEOLIN_ERR_NUMERIC,
              "%s: the result '%s' overflowed (is not finite) although every input is finite: "
              "the inputs are too large (entries near 1e308, or a rotation vector whose square "
              "is Inf); nothing was written",
              fn, output);
}

using Map = Eigen::Map<Eigen::VectorXd>;

Map joint_output(double *x, int nj) {
  return Map(nj > 0 ? x : nullptr, nj);
}

// One state Jacobian: blockdiag(pose, sign 1) into D[N*N] (column-major), unless D is NULL.
void write_state_jacobian(const geolin::Model &model, const geolin::Mat6 &pose, double sign,
                          double *D) noexcept {
  const int N = model.state_dim();
  if (D == nullptr) return;
  Eigen::Map<Eigen::MatrixXd> out(D, N, N);
  geolin::state_jacobian(model, pose, sign, out);
}

constexpr StateNames kState{"H", "s", "v", "r"};
constexpr StateNames kState0{"H0", "s0", "v0", "r0"};
constexpr StateNames kState1{"H1", "s1", "v1", "r1"};

}  // namespace

extern "C" {

GEOLIN_API int geolin_state_integrate(const geolin_model *model, const double *H, const double *s,
                                      const double *v, const double *r, const double *z,
                                      double *H_out, double *s_out, double *v_out, double *r_out) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return GEOLIN_ERR_INVALID_ARGUMENT;
  const int nj = m->num_joints(), N = m->state_dim();
  const bool moving = !m->fixed_base;
  if (int st = check_state_args(__func__, *m, kState, H, s, v, r, true)) return st;
  if (int st = check_array(__func__, "z", z, N)) return st;
  if (moving) {
    if (int st = check_output(__func__, "H_out", H_out, 16)) return st;
  }
  if (int st = check_output(__func__, "s_out", s_out, nj)) return st;
  if (moving) {
    if (int st = check_output(__func__, "v_out", v_out, 6)) return st;
  }
  if (int st = check_output(__func__, "r_out", r_out, nj)) return st;
  const Output outputs[] = {{"H_out", moving ? H_out : nullptr, 16},
                            {"s_out", s_out, nj},
                            {"v_out", moving ? v_out : nullptr, 6},
                            {"r_out", r_out, nj}};
  if (int st = check_disjoint(__func__, outputs, 4)) return st;
  try {
    const geolin::Transform T = base_transform(*m, H);
    const geolin::Vec6 tw = base_twist(*m, v);
    const CMap sv = joint_vector(s, nj), rv = joint_vector(r, nj), zv(z, N);
    if (!geolin::state_integrate_finite(*m, T, sv, tw, rv, zv))
      return state_overflow(__func__, "x exp(z)");
    geolin::Transform T_out;
    geolin::Vec6 tw_out;
    geolin::state_integrate(*m, T, sv, tw, rv, zv, T_out, joint_output(s_out, nj), tw_out,
                            joint_output(r_out, nj));
    if (moving) {
      copy_transform(T_out, H_out);
      for (int i = 0; i < 6; ++i) v_out[i] = tw_out[i];
    }
    return GEOLIN_OK;
  } catch (...) {
    return handle_exception(__func__);
  }
}

GEOLIN_API int geolin_state_difference(const geolin_model *model, const double *H0,
                                       const double *s0, const double *v0, const double *r0,
                                       const double *H1, const double *s1, const double *v1,
                                       const double *r1, double *z) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return GEOLIN_ERR_INVALID_ARGUMENT;
  const int nj = m->num_joints(), N = m->state_dim();
  if (int st = check_state_args(__func__, *m, kState0, H0, s0, v0, r0, true)) return st;
  if (int st = check_state_args(__func__, *m, kState1, H1, s1, v1, r1, true)) return st;
  if (int st = check_output(__func__, "z", z, N)) return st;
  try {
    const geolin::Transform T0 = base_transform(*m, H0), T1 = base_transform(*m, H1);
    const geolin::Vec6 tw0 = base_twist(*m, v0), tw1 = base_twist(*m, v1);
    const CMap s0v = joint_vector(s0, nj), r0v = joint_vector(r0, nj);
    const CMap s1v = joint_vector(s1, nj), r1v = joint_vector(r1, nj);
    if (!geolin::state_difference_finite(*m, T0, s0v, tw0, r0v, T1, s1v, tw1, r1v))
      return state_overflow(__func__, "z");
    geolin::state_difference(*m, T0, s0v, tw0, r0v, T1, s1v, tw1, r1v, Map(z, N));
    return GEOLIN_OK;
  } catch (...) {
    return handle_exception(__func__);
  }
}

GEOLIN_API int geolin_state_integrate_derivatives(const geolin_model *model, const double *H,
                                                  const double *s, const double *v, const double *r,
                                                  const double *z, double *d_dx, double *d_dz) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return GEOLIN_ERR_INVALID_ARGUMENT;
  const std::ptrdiff_t N = m->state_dim();
  // v and r are not read: the derivatives depend on z only.
  if (int st = check_state_args(__func__, *m, kState, H, s, v, r, false)) return st;
  if (int st = check_array(__func__, "z", z, N)) return st;
  const Output outputs[] = {{"d_dx", d_dx, N * N}, {"d_dz", d_dz, N * N}};
  if (int st = check_disjoint(__func__, outputs, 2)) return st;
  try {
    const geolin::Vec6 zH = m->fixed_base ? geolin::Vec6::Zero() : geolin::Vec6(CMap(z, 6));
    const geolin::Mat6 P_dx = geolin::pose_integrate_dx(zH), P_dz = geolin::pose_integrate_dz(zH);
    if (d_dx != nullptr && !P_dx.allFinite()) return state_overflow(__func__, "d_dx");
    if (d_dz != nullptr && !P_dz.allFinite()) return state_overflow(__func__, "d_dz");
    write_state_jacobian(*m, P_dx, 1.0, d_dx);  // docs/dynamics.md (D43)
    write_state_jacobian(*m, P_dz, 1.0, d_dz);
    return GEOLIN_OK;
  } catch (...) {
    return handle_exception(__func__);
  }
}

GEOLIN_API int geolin_state_difference_derivatives(const geolin_model *model, const double *H0,
                                                   const double *s0, const double *v0,
                                                   const double *r0, const double *H1,
                                                   const double *s1, const double *v1,
                                                   const double *r1, double *dz_dx0,
                                                   double *dz_dx1) {
  const geolin::Model *m = model_or_fail(__func__, model);
  if (m == nullptr) return GEOLIN_ERR_INVALID_ARGUMENT;
  const std::ptrdiff_t N = m->state_dim();
  if (int st = check_state_args(__func__, *m, kState0, H0, s0, v0, r0, false)) return st;
  if (int st = check_state_args(__func__, *m, kState1, H1, s1, v1, r1, false)) return st;
  const Output outputs[] = {{"dz_dx0", dz_dx0, N * N}, {"dz_dx1", dz_dx1, N * N}};
  if (int st = check_disjoint(__func__, outputs, 2)) return st;
  try {
    const geolin::Vec6 zH =
        m->fixed_base ? geolin::Vec6::Zero()
                      : geolin::pose_difference(base_transform(*m, H0), base_transform(*m, H1));
    const geolin::Mat6 P0 = geolin::pose_difference_dx0(zH), P1 = geolin::pose_difference_dx1(zH);
    if (dz_dx0 != nullptr && !P0.allFinite()) return state_overflow(__func__, "dz_dx0");
    if (dz_dx1 != nullptr && !P1.allFinite()) return state_overflow(__func__, "dz_dx1");
    write_state_jacobian(*m, P0, -1.0, dz_dx0);  // docs/dynamics.md (D44)
    write_state_jacobian(*m, P1, 1.0, dz_dx1);
    return GEOLIN_OK;
  } catch (...) {
    return handle_exception(__func__);
  }
}

}  // extern "C"
