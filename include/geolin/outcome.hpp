// How an evaluation ended: the one value every algorithm that can fail at a state returns
// (docs/c-api.md, "Numeric contract"), with the numbers its message needs, and the one function
// that writes that message for the C API and the command-line tool.
#pragma once

#include <cstddef>

namespace geolin {

struct Model;
struct Contacts;
struct ConstraintSet;

/// The outcome of an evaluation. Anything but Kind::ok means that its results are not to be used.
struct Outcome {
  enum class Kind : int {
    ok,                        // the results are trusted
    singular_joint,            // M is singular: the articulated pivot D_i of joint body `index`
                               // vanishes (pivot, ratio to the terms it is summed from)
    singular_base,             // M is singular: a Cholesky pivot of the base's I^A_0 vanishes
                               // (index 0; ratio: the worst L_kk² / (I^A_0)_kk)
    pivot_overflow,            // a pivot or its scale at body `index` is not finite: the inputs are
                               // too large (an overflow, not a singular M)
    dependent_contact_row,     // row `row` of contact `index` depends on the rows before it
                               // (ratio: its pivot in Λ⁻¹ relative to its diagonal entry)
    dependent_constraint_row,  // row `row` of constraint `index` of a ConstraintSet depends
                               // on the rows before it (ratio as dependent_contact_row)
    wheel_axis_normal,         // constraint `index`, a wheel, has its spin axis normal to the
                               // ground plane at this state: its rim point is not defined
    overflow,                  // a result is not finite although every input is
    step_overflow,             // a step's states overflowed where the dynamics at its input state
                               // is finite and regular: the step size `h` is too large
  };
  Kind kind = Kind::ok;
  int index = -1;      // the body (singular_*, pivot_overflow) or the contact
  int row = 0;         // dependent_contact_row: the row within the contact
  double pivot = 0.0;  // singular_*: the failed pivot
  double ratio = 0.0;  // singular_*, dependent_contact_row: the pivot relative to its scale
  double h = 0.0;      // step_overflow: the step size

  bool ok() const noexcept { return kind == Kind::ok; }
  explicit operator bool() const noexcept { return ok(); }
  /// Keeps the first failure of a sequence of evaluations (finite-difference evaluations, the
  /// stages of a step): *this unless it is ok, then `next`.
  Outcome &keep_first(const Outcome &next) noexcept {
    if (ok()) *this = next;
    return *this;
  }

  /// A failed articulated pivot of body `body` (0: the base): singular, or pivot_overflow when
  /// the ratio is not finite (the pivot or its scale overflowed).
  static Outcome failed_pivot(int body, double pivot, double ratio) noexcept;
  static Outcome dependent_contact(int contact, int row, double ratio) noexcept {
    Outcome o;
    o.kind = Kind::dependent_contact_row;
    o.index = contact;
    o.row = row;
    o.ratio = ratio;
    return o;
  }
  static Outcome dependent_constraint(int constraint, int row, double ratio) noexcept {
    Outcome o = dependent_contact(constraint, row, ratio);
    o.kind = Kind::dependent_constraint_row;
    return o;
  }
  static Outcome wheel_normal(int constraint) noexcept {
    Outcome o;
    o.kind = Kind::wheel_axis_normal;
    o.index = constraint;
    return o;
  }
  static Outcome overflowed() noexcept {
    Outcome o;
    o.kind = Kind::overflow;
    return o;
  }
  static Outcome step_overflowed(double h) noexcept {
    Outcome o;
    o.kind = Kind::step_overflow;
    o.h = h;
    return o;
  }
};

/// Whose words a message uses: the C API's (its functions and arguments, "nothing was written")
/// or the command-line tool's (its options).
enum class Reader { c_api, command_line };

/// What failed: the function (C API entry point or CLI stage), the output that was not computed,
/// and for a contact failure the contacts of the call (their frames name them).
struct FailureSubject {
  const char *function = "";
  const char *output = "";
  const Contacts *contacts = nullptr;
  const ConstraintSet *constraints = nullptr;  // a geolin_constrained_* call's set
};

/// Writes the message of a failed outcome (GEOLIN_ERR_NUMERIC) into buffer[0, size), truncated
/// and NUL-terminated; no allocation. Returns the length of the full message.
std::size_t describe(const Outcome &outcome, const Model &model, const FailureSubject &subject,
                     Reader reader, char *buffer, std::size_t size) noexcept;

}  // namespace geolin
