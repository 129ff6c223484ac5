// The messages of failed outcomes (include/geolin/outcome.hpp): the one place where the prose of
// a singular mass matrix, an overflow, redundant contacts or constraints is written, for the C API
// (capi/geolin_capi.cpp) and the command-line tool (src/cli/contacts.cpp).
#include "geolin/outcome.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "geolin/algorithms.hpp"
#include "geolin/constraints.hpp"
#include "geolin/model.hpp"

namespace geolin {

Outcome Outcome::failed_pivot(int body, double pivot, double ratio) noexcept {
  Outcome o;
  o.kind = !std::isfinite(ratio) ? Kind::pivot_overflow
           : body > 0            ? Kind::singular_joint
                                 : Kind::singular_base;
  o.index = body;
  o.pivot = pivot;
  o.ratio = ratio;
  return o;
}

namespace {

// Appends printf-style to a fixed buffer; counts what did not fit (the full length).
class MessageWriter {
 public:
  MessageWriter(char *buffer, std::size_t size) : buffer_(buffer), size_(size) {
    if (size_ > 0) buffer_[0] = '\0';
  }
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  void
  add(const char *format, ...) noexcept {
    va_list args;
    va_start(args, format);
    const std::size_t room = used_ < size_ ? size_ - used_ : 0;
    const int n = std::vsnprintf(room > 0 ? buffer_ + used_ : nullptr, room, format, args);
    va_end(args);
    if (n > 0) used_ += static_cast<std::size_t>(n);
  }
  std::size_t length() const {
    return used_;
  }

 private:
  char *buffer_;
  std::size_t size_, used_ = 0;
};

// Where a pivot failed: "joint 'name'" or "the base 'name'".
void add_place(MessageWriter &w, const Model &model, int body) {
  if (body > 0)
    w.add("joint '%.200s'", model.joint_name[body].c_str());
  else
    w.add("the base '%.200s'", model.body_name[0].c_str());
}

void add_pivot_failure(MessageWriter &w, const Outcome &o, const Model &model,
                       const FailureSubject &subject, Reader reader) {
  const bool c_api = reader == Reader::c_api;
  const char *not_written = c_api ? " (nothing was written)" : "";
  if (o.kind == Outcome::Kind::pivot_overflow) {
    w.add("%s: the computation overflowed (is not finite) at ", subject.function);
    add_place(w, model, o.index);
    w.add(" although every input is finite: %s; '%s' was not computed%s",
          c_api ? "its articulated inertia is not finite, the inputs are too large for this model "
                  "(e.g. positions or velocities near 1e150, whose squares are Inf)"
                : "positions or velocities too large",
          subject.output, not_written);
  } else if (o.kind == Outcome::Kind::singular_joint) {
    w.add(
        "%s: the mass matrix is numerically singular at this state: the articulated inertia of "
        "joint '%.200s' (joint %d) about its axis vanishes (pivot %.3g, %.1e of the terms it is "
        "summed from; threshold 1e-10): the joint moves its subtree as other joints do, e.g. two "
        "joint axes aligned through massless links; '%s' was not computed%s",
        subject.function, model.joint_name[o.index].c_str(), o.index - 1, o.pivot, o.ratio,
        subject.output, not_written);
  } else {
    w.add(
        "%s: the mass matrix is numerically singular at this state: the articulated inertia of "
        "the base '%.200s' is singular (Cholesky pivot %.1e of its diagonal; threshold 1e-10): "
        "the joints can move the whole robot relative to the base without inertia; '%s' was "
        "not computed%s",
        subject.function, model.body_name[0].c_str(), o.ratio, subject.output, not_written);
  }
}

void add_contact_failure(MessageWriter &w, const Outcome &o, const Model &model,
                         const FailureSubject &subject, Reader reader) {
  const Contacts &c = *subject.contacts;
  const int k = o.index;
  const char *type = c.types[k] == kContactRigid ? "rigid" : "point";
  w.add(
      "%s: the contacts are redundant or singular at this state: row %d of contact %d ('%.60s', "
      "%s) depends on the rows before it%s",
      subject.function, o.row, k, model.frames[c.frames[k]].name.c_str(), type,
      k > 0 ? " of contacts " : "");
  for (int j = 0; j < k && j < 6; ++j)
    w.add("%s%d ('%.40s')", j ? ", " : "", j, model.frames[c.frames[j]].name.c_str());
  w.add(
      " (pivot %.1e of its diagonal in J_c M^-1 J_c^T, threshold 1e-10; e.g. two contacts on "
      "one body, or a leg at full stretch",
      o.ratio);
  const bool regularized = c.mu > 0.0;
  if (reader == Reader::c_api)
    w.add("; %s); nothing was written",
          regularized ? "the contact regularization is too small to survive the round-off"
                      : "geolin_workspace_set_contact_regularization solves such sets softly");
  else
    w.add(")%s", regularized ? "; --regularization is too small for them"
                             : "; --regularization MU solves them softly");
}

// What constraint k of a set is: "constraint 1 (loop point between frames 'a' and 'b')".
void add_constraint(MessageWriter &w, const Model &model, const ConstraintSet &set, int k) {
  const Constraint &c = set.items[static_cast<std::size_t>(k)];
  auto frame = [&](int f) { return model.frames[static_cast<std::size_t>(f)].name.c_str(); };
  auto joint = [&](int j) { return model.joint_name[static_cast<std::size_t>(j) + 1].c_str(); };
  w.add("constraint %d (", k);
  switch (c.kind) {
    case Constraint::Kind::contact:
      w.add("%s contact at frame '%.60s')", c.type == kContactRigid ? "rigid" : "point",
            frame(c.frame));
      break;
    case Constraint::Kind::loop:
      w.add("loop %s between frames '%.60s' and '%.60s')",
            c.type == kLoopPoint   ? "point"
            : c.type == kLoopHinge ? "hinge"
                                   : "rigid",
            frame(c.frame), frame(c.frame_b));
      break;
    case Constraint::Kind::coupling:
      w.add("coupling of joint '%.60s' to joint '%.60s', ratio %g)", joint(c.joint),
            joint(c.source), c.ratio);
      break;
    case Constraint::Kind::wheel:
      w.add("wheel at frame '%.60s', radius %g m)", frame(c.frame), c.radius);
      break;
  }
}

bool names_constraint(const FailureSubject &subject, int k) {
  return subject.constraints != nullptr && k >= 0 &&
         static_cast<std::size_t>(k) < subject.constraints->items.size();
}

// Row `row` of constraint `index` of the call's set depends on the rows before it (at mu = 0;
// with mu > 0 the regularization did not survive the round-off).
void add_constraint_failure(MessageWriter &w, const Outcome &o, const Model &model,
                            const FailureSubject &subject, Reader reader) {
  const ConstraintSet &set = *subject.constraints;
  w.add("%s: the constraints are redundant or singular at this state: row %d of ", subject.function,
        o.row);
  add_constraint(w, model, set, o.index);
  w.add(
      " depends on the rows before it (pivot %.1e of its diagonal in J_c M^-1 J_c^T; e.g. a loop "
      "repeating a coupling, two wheels on one axle, a leg at full stretch)",
      o.ratio);
  if (reader == Reader::c_api)
    w.add(
        "; solve such sets softly with geolin_workspace_set_contact_regularization(ws, mu > 0), "
        "e.g. 1e-12 (or a larger mu); nothing was written");
  else
    w.add("; --regularization MU solves them softly");
}

void add_wheel_failure(MessageWriter &w, const Outcome &o, const Model &model,
                       const FailureSubject &subject, Reader reader) {
  w.add("%s: ", subject.function);
  add_constraint(w, model, *subject.constraints, o.index);
  w.add(
      ": its spin axis is normal to the ground plane at this state, where the rim point nearest "
      "the plane is not defined (the wheel lies flat); '%s' was not computed%s",
      subject.output, reader == Reader::c_api ? " (nothing was written)" : "");
}

void add_overflow(MessageWriter &w, const FailureSubject &subject, Reader reader) {
  if (reader == Reader::command_line && subject.constraints != nullptr)
    w.add(
        "%s: the result '%s' is not finite although every input is: the inputs are too large "
        "for this model, or the constraints nearly singular",
        subject.function, subject.output);
  else if (reader == Reader::command_line && subject.contacts != nullptr)
    w.add(
        "%s: the result '%s' is not finite although every input is: the inputs are too large "
        "for this model, or the contacts nearly singular",
        subject.function, subject.output);
  else
    w.add(
        "%s: the result '%s' overflowed (is not finite) although every input is finite: the "
        "inputs are too large for this model (e.g. velocities above ~1e150 square to Inf)%s",
        subject.function, subject.output, reader == Reader::c_api ? "; nothing was written" : "");
}

}  // namespace

std::size_t describe(const Outcome &outcome, const Model &model, const FailureSubject &subject,
                     Reader reader, char *buffer, std::size_t size) noexcept {
  MessageWriter w(buffer, size);
  switch (outcome.kind) {
    case Outcome::Kind::ok:
      w.add("%s: '%s' was computed", subject.function, subject.output);
      break;
    case Outcome::Kind::singular_joint:
    case Outcome::Kind::singular_base:
    case Outcome::Kind::pivot_overflow:
      add_pivot_failure(w, outcome, model, subject, reader);
      break;
    case Outcome::Kind::dependent_contact_row:
      if (subject.contacts != nullptr && outcome.index >= 0 &&
          outcome.index < subject.contacts->count)
        add_contact_failure(w, outcome, model, subject, reader);
      else if (names_constraint(subject, outcome.index))  // a set of contacts only
        add_constraint_failure(w, outcome, model, subject, reader);
      else
        add_overflow(w, subject, reader);
      break;
    case Outcome::Kind::dependent_constraint_row:
      if (names_constraint(subject, outcome.index))
        add_constraint_failure(w, outcome, model, subject, reader);
      else
        add_overflow(w, subject, reader);
      break;
    case Outcome::Kind::wheel_axis_normal:
      if (names_constraint(subject, outcome.index))
        add_wheel_failure(w, outcome, model, subject, reader);
      else
        w.add(
            "%s: constraint %d, a wheel, has its spin axis normal to the ground plane at this "
            "state; '%s' was not computed%s",
            subject.function, outcome.index, subject.output,
            reader == Reader::c_api ? " (nothing was written)" : "");
      break;
    case Outcome::Kind::overflow:
      add_overflow(w, subject, reader);
      break;
    case Outcome::Kind::step_overflow:
      w.add(
          "%s: argument 'h' = %g overflowed the step: forward dynamics is finite at the input "
          "state, but the states the step reaches are not (positions or velocities beyond "
          "~1e150); take a smaller h; '%s' was not computed%s",
          subject.function, outcome.h, subject.output,
          reader == Reader::c_api ? " (nothing was written)" : "");
      break;
  }
  return w.length();
}

}  // namespace geolin
