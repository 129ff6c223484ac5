// The rows of a constraint set and their exact derivatives (docs/constraints.md §2, §4).
//
// Every row is a function c(x, ν, ν̇) of the world motion of one or two frames (their pose,
// velocity [ṗ; ω] and classical acceleration [p̈; ω̇], from frame_velocity and frame_acceleration
// in Mixed axes, with their derivatives in z) or of the joint coordinates. Each type is written
// once, as a map from the frames' motion changes δ = (δp, δθ, δṗ, δω, δp̈, δω̇) to the change of
// its rows, linear in δ at the current motion: applied to the columns of z it gives ∂c/∂z, and
// applied to δp̈ = J_l e_k, δω̇ = J_a e_k (nothing else moves) the columns of J_c = ∂c/∂ν̇.
// The generalized force of λ, J_cᵀ λ, is a sum of world wrenches at the frames (K13), handed to
// linearize's external wrenches (Mixed: their derivative at fixed world values is linearize's),
// with the change of their world values with the state (a Local λ turned by R_a, a loop's lever,
// a wheel's ρ) beside them in ws.cs_Dw.
// That is the written-out form (constrained_linearize_reference). With RowPoint::terms the same
// maps give J_c's terms (K16) from the passes' motion instead, with derivatives their rows in
// the body's own perturbations (K17) and the wrenches' turning as maps of a body's displacement
// (K18), for the solves along the paths (constraint_factor.cpp, constrained_linearize.cpp).
#include "constraint_rows.hpp"

#include <fmt/format.h>

#include <cmath>

#include "geolin/status.hpp"
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin::detail {
namespace {

// A frame's world motion: attitude R, origin p, ṗ, ω, p̈, ω̇ (a static frame: all but R, p zero).
struct Motion {
  Mat3 R = Mat3::Identity();
  Vec3 p = Vec3::Zero(), pd = Vec3::Zero(), w = Vec3::Zero(), pdd = Vec3::Zero(), wd = Vec3::Zero();
};

// A change of a frame's motion (world): δp, δθ (δR = δθ^ R), δṗ, δω, δp̈, δω̇.
struct Delta {
  Vec3 p = Vec3::Zero(), th = Vec3::Zero(), pd = Vec3::Zero(), w = Vec3::Zero(), pdd = Vec3::Zero(),
       wd = Vec3::Zero();
};

Motion motion_of(const Workspace::FrameMotion &f) {
  Motion m;
  m.R = f.HF.R;
  m.p = f.HF.o;
  m.pd = f.vel.head<3>();
  m.w = f.vel.tail<3>();
  m.pdd = f.acc.head<3>();
  m.wd = f.acc.tail<3>();
  return m;
}

Motion static_motion(const Transform &T) {
  Motion m;
  m.R = T.R;
  m.p = T.o;
  return m;
}

// Column c of z (c < N): the frame's motion change; its pose moves only on the first n columns
// ([δp; δθ] = J z_pose).
Delta column_delta(const Workspace::FrameMotion &f, int c, int n) {
  Delta d;
  if (c < n) {
    d.p = f.J.col(c).head<3>();
    d.th = f.J.col(c).tail<3>();
  }
  d.pd = f.dvel.col(c).head<3>();
  d.w = f.dvel.col(c).tail<3>();
  d.pdd = f.dacc.col(c).head<3>();
  d.wd = f.dacc.col(c).tail<3>();
  return d;
}

// Column k of ν̇ (k < n): only the acceleration moves, by the frame's Jacobian.
Delta acceleration_delta(const Workspace::FrameMotion &f, int k) {
  Delta d;
  d.pdd = f.J.col(k).head<3>();
  d.wd = f.J.col(k).tail<3>();
  return d;
}

// The frame's world change for unit k of its body's (δa_b, δv_b, ξ_b) (frame 0; k < 6, < 12,
// < 18), with ^F X_0 held as in contact_linearize's derivation (K17): δa gives [δp̈; δω̇] = G0 δa;
// δv gives [δṗ; δω] = G0 δv and δp̈ = δω × ṗ + ω × δṗ (the origin's classical acceleration);
// ξ gives [δp; δθ] = G0 ξ, and the world motion turns with the frame (δṗ = δθ × ṗ, ...).
Delta body_delta(const Workspace::FrameMotion &f, const Motion &m, int k) {
  Delta d;
  const Vec3 gl = f.G0.col(k % 6).head<3>(), ga = f.G0.col(k % 6).tail<3>();
  if (k < 6) {
    d.pdd = gl;
    d.wd = ga;
  } else if (k < 12) {
    d.pd = gl;
    d.w = ga;
    d.pdd = ga.cross(m.pd) + m.w.cross(gl);
  } else {
    d.p = gl;
    d.th = ga;
    d.pd = ga.cross(m.pd);
    d.w = ga.cross(m.w);
    d.pdd = ga.cross(m.pdd);
    d.wd = ga.cross(m.wd);
  }
  return d;
}

// The rows of one constraint between frames a and b (b static for a contact) and their change.
struct Pair {
  Motion a, b;
  double Kp = 0.0, Kd = 0.0;
  bool local = true;  // forces in frame a's axes (else world axes)
};

// POINT rows (K5): c_w = (p̈_a − p̈_b) + Kd (ṗ_a − ṗ_b) + Kp (p_a − p_b), c = R_aᵀ c_w (Local)
// or c_w (Mixed); δ(R_aᵀ x) = R_aᵀ (δx + x × δθ_a).
Vec3 point_value(const Pair &q) {
  const Vec3 cw = (q.a.pdd - q.b.pdd) + q.Kd * (q.a.pd - q.b.pd) + q.Kp * (q.a.p - q.b.p);
  return q.local ? Vec3(q.a.R.transpose() * cw) : cw;
}
Vec3 point_change(const Pair &q, const Vec3 &cw, const Delta &da, const Delta &db) {
  const Vec3 dcw = (da.pdd - db.pdd) + q.Kd * (da.pd - db.pd) + q.Kp * (da.p - db.p);
  return q.local ? Vec3(q.a.R.transpose() * (dcw + cw.cross(da.th))) : dcw;
}
Vec3 point_world(const Pair &q) {
  return (q.a.pdd - q.b.pdd) + q.Kd * (q.a.pd - q.b.pd) + q.Kp * (q.a.p - q.b.p);
}

// The relative motion of a RIGID pair in world axes (K7): d = p_a − p_b,
// u = ṗ_a − ṗ_b − ω_b × d (the relative twist's linear part), ω_r = ω_a − ω_b, and the world
// rows c_l = u̇ − ω_a × u + Kd u, c_a = ω̇_r − ω_a × ω_r + Kd ω_r.
struct Relative {
  Vec3 d, dv, u, wr, cl, ca;
};
Relative relative(const Pair &q) {
  Relative x;
  x.d = q.a.p - q.b.p;
  x.dv = q.a.pd - q.b.pd;
  x.u = x.dv - q.b.w.cross(x.d);
  x.wr = q.a.w - q.b.w;
  const Vec3 udot = q.a.pdd - q.b.pdd - q.b.wd.cross(x.d) - q.b.w.cross(x.dv);
  x.cl = udot - q.a.w.cross(x.u) + q.Kd * x.u;
  x.ca = (q.a.wd - q.b.wd) - q.a.w.cross(x.wr) + q.Kd * x.wr;
  return x;
}
// Their change (δc_l, δc_a) for the frames' changes.
void relative_change(const Pair &q, const Relative &x, const Delta &da, const Delta &db, Vec3 &dcl,
                     Vec3 &dca) {
  const Vec3 dd = da.p - db.p, ddv = da.pd - db.pd;
  const Vec3 du = ddv - db.w.cross(x.d) - q.b.w.cross(dd);
  const Vec3 dwr = da.w - db.w;
  const Vec3 dudot =
      (da.pdd - db.pdd) - db.wd.cross(x.d) - q.b.wd.cross(dd) - db.w.cross(x.dv) - q.b.w.cross(ddv);
  dcl = dudot - da.w.cross(x.u) - q.a.w.cross(du) + q.Kd * du;
  dca = (da.wd - db.wd) - da.w.cross(x.wr) - q.a.w.cross(dwr) + q.Kd * dwr;
}

// ξ of a frame in its own axes (the left-trivialized change of its pose): [R ᵀ δp; Rᵀ δθ].
Vec6 local_displacement(const Motion &m, const Delta &d) {
  Vec6 xi;
  xi << m.R.transpose() * d.p, m.R.transpose() * d.th;
  return xi;
}

// The wheel's rim geometry (K9): a = R â, w_v = e_z − a_z a, u = −w_v / |w_v| (the unit vector
// from the centre to the rim point nearest the plane), ρ = R_w u, and its motion around the rim:
// ȧ = ω × a, ẇ_v = −ȧ_z a − a_z ȧ, u̇ = −P ẇ_v / |w_v| (P = 1 − u uᵀ), ρ̇ = R_w u̇.
struct Rim {
  Vec3 a, wv, u, rho, adot, wvdot, udot, rhodot;
  double nw = 0.0, radius = 0.0;
};
bool rim_of(const Motion &m, const Constraint &c, Rim &g) {
  g.radius = c.radius;
  g.a = m.R * c.axis;
  g.wv = Vec3::UnitZ() - g.a.z() * g.a;
  g.nw = g.wv.norm();
  if (!(g.nw > 1e-6)) return false;  // the axis is normal to the plane
  g.u = -g.wv / g.nw;
  g.rho = g.radius * g.u;
  g.adot = m.w.cross(g.a);
  g.wvdot = -g.adot.z() * g.a - g.a.z() * g.adot;
  g.udot = -(g.wvdot - g.u * g.u.dot(g.wvdot)) / g.nw;
  g.rhodot = g.radius * g.udot;
  return true;
}
// δρ and δρ̇ for the frame's change: (K12), the derivatives of (K9) in a and ω.
void rim_change(const Motion &m, const Rim &g, const Delta &d, Vec3 &drho, Vec3 &drhodot) {
  const Vec3 da = d.th.cross(g.a);
  const double daz = da.z();
  const Vec3 dwv = -daz * g.a - g.a.z() * da;
  const double dnw = -g.u.dot(dwv);
  const Vec3 du = -(dwv + g.u * dnw) / g.nw;
  const Vec3 dadot = d.w.cross(g.a) + m.w.cross(da);
  const Vec3 dwvdot = -dadot.z() * g.a - g.adot.z() * da - daz * g.adot - g.a.z() * dadot;
  const Vec3 Pwvdot = g.wvdot - g.u * g.u.dot(g.wvdot);
  const Vec3 dP_wvdot = -(du * g.u.dot(g.wvdot) + g.u * du.dot(g.wvdot));
  const Vec3 P_dwvdot = dwvdot - g.u * g.u.dot(dwvdot);
  const Vec3 dudot = -dP_wvdot / g.nw - P_dwvdot / g.nw + Pwvdot * dnw / (g.nw * g.nw);
  drho = g.radius * du;
  drhodot = g.radius * dudot;
}

// The wheel's rows (K10): c = p̈ + ω̇ × ρ + ω × ρ̇ (d/dt of the material point's velocity
// v_P = ṗ + ω × ρ), the z row plus Kd v_P,z + Kp P_z with P_z = p_z + ρ_z.
Vec3 wheel_value(const Motion &m, const Rim &g, double Kp, double Kd) {
  Vec3 c = m.pdd + m.wd.cross(g.rho) + m.w.cross(g.rhodot);
  const Vec3 vP = m.pd + m.w.cross(g.rho);
  c.z() += Kd * vP.z() + Kp * (m.p.z() + g.rho.z());
  return c;
}
Vec3 wheel_change(const Motion &m, const Rim &g, double Kp, double Kd, const Delta &d) {
  Vec3 drho, drhodot;
  rim_change(m, g, d, drho, drhodot);
  Vec3 dc = d.pdd + d.wd.cross(g.rho) + m.wd.cross(drho) + d.w.cross(g.rhodot) + m.w.cross(drhodot);
  const Vec3 dvP = d.pd + d.w.cross(g.rho) + m.w.cross(drho);
  dc.z() += Kd * dvP.z() + Kp * (d.p.z() + drho.z());
  return dc;
}

// ---- the generalized force of λ as external wrenches --------------------------------------------

// Appends a world wrench (f, τ) at frame's origin to the pass's external wrenches (K13), with a
// zero change along z (ws.cs_Dw's rows 6w..6w+5); returns w.
int add_wrench(Workspace &ws, int frame, const Vec3 &f, const Vec3 &tau) {
  const int w = ws.cs_wrench_count++;
  if (w >= static_cast<int>(ws.cs_wrench_frames.size()))
    throw Error(Status::InvalidArgument,
                fmt::format("constraints: more than the workspace's {} wrenches (a loop counts 2)",
                            ws.cs_wrench_frames.size()));
  ws.cs_wrench_frames[w] = frame;
  ws.cs_wrenches.segment<3>(6 * w) = f;
  ws.cs_wrenches.segment<3>(6 * w + 3) = tau;
  ws.cs_Dw.middleRows<6>(6 * w).setZero();
  return w;
}

// ---- one constraint ---------------------------------------------------------------------------

// What the rows of one constraint need: the set, the point, and where the rows go.
struct Target {
  const Model &model;
  Workspace &ws;
  const ConstraintSet &set;
  const RowPoint &at;
  int row0, n, N;
};

// The motion of frame F from the body twist and acceleration the passes left (ws.v, ws.a, frame
// 0, with the fictitious gravity a_g in ws.a), as contact_rows does: ^F v_F = ^F X_0 v_b,
// ^F a_F = ^F X_0 (a_b − a_g), turned to world axes; and G0, which takes b's frame-0 twist to
// [ṗ; ω] (world): [[R_b, −R_b p̂], [0, R_b]] for the frame's origin p in frame 0 (K16).
void frame_motion_from_passes(const Target &t, int frame, Workspace::FrameMotion &f) {
  const Model &model = t.model;
  const Workspace &ws = t.ws;
  const Transform &Hb = model.fixed_base ? model.H_A_0 : t.at.H;
  f.body = model.frames[frame].body;
  const Transform H0F = frame_pose0(model, ws, frame);
  f.HF = Hb * H0F;
  const Vec6 vF = inverse_transform_motion(H0F, ws.v[f.body]);
  const Vec6 aF =
      inverse_transform_motion(H0F, ws.a[f.body] - gravity_base_acceleration(model, ws, t.at.H));
  const Mat3 &R = f.HF.R;
  f.vel << R * vF.head<3>(), R * vF.tail<3>();
  f.acc << R * origin_acceleration(vF, aF), R * aF.tail<3>();
  f.G0.topLeftCorner<3, 3>() = Hb.R;
  f.G0.topRightCorner<3, 3>().noalias() = -Hb.R * hat(H0F.o);
  f.G0.bottomLeftCorner<3, 3>().setZero();
  f.G0.bottomRightCorner<3, 3>() = Hb.R;
}

// The motion of frame F at the point into ws.cs_frame[slot] (Mixed axes; derivatives optional).
void frame_motion(const Target &t, int frame, int slot) {
  Workspace::FrameMotion &f = t.ws.cs_frame[slot];
  if (t.at.terms) return frame_motion_from_passes(t, frame, f);
  f.HF = frame_pose(t.model, t.ws, t.at.H, t.at.s, frame);
  MatX none;
  frame_velocity(t.model, t.ws, t.at.H, t.at.s, t.at.v, t.at.r, frame, kWrenchMixed, f.vel,
                 t.at.derivatives ? RefMat(f.dvel) : RefMat(none));
  frame_acceleration(t.model, t.ws, t.at.H, t.at.s, t.at.v, t.at.r, t.at.nu_dot, frame,
                     kWrenchMixed, f.acc, t.at.derivatives ? RefMat(f.dacc) : RefMat(none), f.J);
}

// Records how wrench w's world value turns along z at fixed λ with the change of the frame in
// `slot` (K13), `turn` giving the wrench's change (6) for the frame's change (linear in its δp,
// δθ): as ws.cs_Dw's columns of z's pose part (from the frame's J), or with at.terms as the map
// T of its body's displacement ξ (ws.cs_turns, (K18)).
template <class Turn>
void add_turning(const Target &t, int w, int slot, Turn &&turn) {
  Workspace &ws = t.ws;
  const Workspace::FrameMotion &F = ws.cs_frame[slot];
  if (!t.at.terms) {
    for (int col = 0; col < t.n; ++col)
      ws.cs_Dw.block<6, 1>(6 * w, col) += turn(column_delta(F, col, t.n));
    return;
  }
  Workspace::ConstraintTurn &tr = next_turn(ws, w, F.body);
  const Motion m = motion_of(F);
  for (int k = 0; k < 6; ++k) tr.T.col(k) = turn(body_delta(F, m, 12 + k));
}

// A force change df (and torque change dt) as a wrench change.
Vec6 wrench6(const Vec3 &df, const Vec3 &dt) {
  Vec6 out;
  out << df, dt;
  return out;
}

// The next term of J_c (ws.cs_terms): two per constraint, so a set within the workspace's rows
// has room (the check guards the arithmetic, not the user).
Workspace::ConstraintTerm &next_term(Workspace &ws) {
  if (ws.cs_term_count >= static_cast<int>(ws.cs_terms.size()))
    throw Error(
        Status::InvalidArgument,
        fmt::format("constraints: more than the workspace's {} terms of J_c", ws.cs_terms.size()));
  return ws.cs_terms[ws.cs_term_count++];
}

// Appends a term of J_c (K16): rows [row0, row0 + rows) get C G0 J_b for the rows' change C per
// the frame's classical acceleration [δp̈; δω̇] (rows x 6) and the frame's G0.
template <int kRows>
Workspace::ConstraintTerm &add_frame_term(Workspace &ws, int row0,
                                          const Eigen::Matrix<double, kRows, 6> &C,
                                          const Workspace::FrameMotion &f) {
  Workspace::ConstraintTerm &term = next_term(ws);
  term.row0 = row0;
  term.rows = kRows;
  term.body = f.body;
  term.joint = false;
  term.G.topRows<kRows>().noalias() = C * f.G0;
  return term;
}

// The term's derivative rows Gv, Gx (K17): `change_of` (the rows' change for this frame's world
// change, linear) at the units of the body's twist and displacement.
template <int kRows, class Change>
void add_term_derivatives(Workspace::ConstraintTerm &term, const Workspace::FrameMotion &f,
                          Change &&change_of) {
  const Motion m = motion_of(f);
  for (int k = 0; k < 6; ++k) {
    term.Gv.block<kRows, 1>(0, k) = change_of(body_delta(f, m, 6 + k));
    term.Gx.block<kRows, 1>(0, k) = change_of(body_delta(f, m, 12 + k));
  }
}

// The rows' change per unit classical acceleration of one frame, [δp̈; δω̇] = e_0..e_5 (the
// change is linear in it and nothing else moves): C with J_c = C_a J_a + C_b J_b.
template <int kRows, class Change>
Eigen::Matrix<double, kRows, 6> acceleration_map(Change &&change_of) {
  Eigen::Matrix<double, kRows, 6> C;
  for (int e = 0; e < 6; ++e) {
    Delta d;
    if (e < 3)
      d.pdd[e] = 1.0;
    else
      d.wd[e - 3] = 1.0;
    C.col(e) = change_of(d);
  }
  return C;
}

// Writes rows [row0, row0 + rows) of J_c, c and ∂c/∂z from `value` (the rows) and `change`
// (their change for the frames' changes (δa, δb)); b static when has_b is false. With at.terms,
// J_c's terms instead of J_c.
template <int kRows, class Change>
void write_rows(const Target &t, bool has_b, const Eigen::Matrix<double, kRows, 1> &value,
                Change &&change) {
  Workspace &ws = t.ws;
  const Workspace::FrameMotion &A = ws.cs_frame[0], &B = ws.cs_frame[1];
  ws.cs_c.segment<kRows>(t.row0) = value;
  const Delta zero;
  if (t.at.terms) {
    const auto of_a = [&](const Delta &d) { return change(d, zero); };
    const auto of_b = [&](const Delta &d) { return change(zero, d); };
    Workspace::ConstraintTerm &ta =
        add_frame_term<kRows>(ws, t.row0, acceleration_map<kRows>(of_a), A);
    if (t.at.derivatives) add_term_derivatives<kRows>(ta, A, of_a);
    if (!has_b) return;
    Workspace::ConstraintTerm &tb =
        add_frame_term<kRows>(ws, t.row0, acceleration_map<kRows>(of_b), B);
    if (t.at.derivatives) add_term_derivatives<kRows>(tb, B, of_b);
    return;
  }
  for (int k = 0; k < t.n; ++k)
    ws.cs_J.block<kRows, 1>(t.row0, k) =
        change(acceleration_delta(A, k), has_b ? acceleration_delta(B, k) : zero);
  if (!t.at.derivatives) return;
  for (int c = 0; c < t.N; ++c)
    ws.cs_Dc.block<kRows, 1>(t.row0, c) =
        change(column_delta(A, c, t.n), has_b ? column_delta(B, c, t.n) : zero);
}

Pair pair_of(const Target &t, const Constraint &c, bool has_b) {
  Pair q;
  q.a = motion_of(t.ws.cs_frame[0]);
  q.b = has_b ? motion_of(t.ws.cs_frame[1])
              : static_motion(c.has_ref ? c.ref : Transform::identity());
  q.Kp = t.at.Kp;
  q.Kd = t.at.Kd;
  q.local = (t.set.flags & kWrenchMixed) == 0;
  return q;
}

// The wrench records of a pair's frames (a, and b unless static).
struct PairWrenches {
  int a = -1, b = -1;
};

// (K17) of (K5) in closed form for one frame of a point pair (sign +1 for a, −1 for b), with
// G0 = [G_t; G_b] (its [ṗ; ω] per body twist) and m its motion: a unit δv_b moves ṗ by G_t δv_b, ω
// by G_b δv_b and p̈ by δω × ṗ + ω × δṗ, a unit ξ_b turns ṗ, p̈ by δθ = G_b ξ_b and moves p by
// G_t ξ_b, so Gv = σ Q ((ω̂ + Kd) G_t − ṗ̂ G_b), Gx = σ Q (Kp G_t − (p̈ + Kd ṗ)^ G_b), plus for a
// Local pair's frame a Q ĉ_w G_b (δ(R_aᵀ c_w) = R_aᵀ (δc_w + c_w × δθ_a)): point_change at
// body_delta's units, written out.
void point_term_derivatives(Workspace::ConstraintTerm &term, const Workspace::FrameMotion &f,
                            const Motion &m, const Mat3 &Q, double sign, const Pair &q,
                            const Vec3 *cw) {
  const Eigen::Matrix<double, 3, 6> Gt = f.G0.topRows<3>(), Gb = f.G0.bottomRows<3>();
  const Mat3 SQ = sign * Q;
  const Mat3 Wv = hat(m.w) + q.Kd * Mat3::Identity();
  term.Gv.topRows<3>().noalias() = SQ * (Wv * Gt - hat(m.pd) * Gb);
  term.Gx.topRows<3>().noalias() = SQ * (q.Kp * Gt - hat(m.pdd + q.Kd * m.pd) * Gb);
  if (cw != nullptr) term.Gx.topRows<3>().noalias() += Q * (hat(*cw) * Gb);
}

// A point contact or POINT loop (and a HINGE's first rows): (K5), force (K13) f on a at p_a, −f
// on b at p_b, f = R_a λ (Local) or λ (Mixed).
void point_rows(const Target &t, const Constraint &c, bool has_b, PairWrenches &w) {
  const Pair q = pair_of(t, c, has_b);
  const Vec3 cw = point_world(q);
  if (t.at.terms) {  // (K16) of (K5) in closed form: C_a = [Q, 0], C_b = −C_a (Q = R_aᵀ or 1)
    t.ws.cs_c.segment<3>(t.row0) = point_value(q);
    const Mat3 Q = q.local ? Mat3(q.a.R.transpose()) : Mat3::Identity();
    Eigen::Matrix<double, 3, 6> C = Eigen::Matrix<double, 3, 6>::Zero();
    C.leftCols<3>() = Q;
    const Workspace::FrameMotion &A = t.ws.cs_frame[0], &B = t.ws.cs_frame[1];
    Workspace::ConstraintTerm &ta = add_frame_term<3>(t.ws, t.row0, C, A);
    if (t.at.derivatives) point_term_derivatives(ta, A, q.a, Q, 1.0, q, q.local ? &cw : nullptr);
    if (has_b) {
      Workspace::ConstraintTerm &tb = add_frame_term<3>(t.ws, t.row0, -C, B);
      if (t.at.derivatives) point_term_derivatives(tb, B, q.b, Q, -1.0, q, nullptr);
    }
  } else {
    write_rows<3>(t, has_b, point_value(q),
                  [&](const Delta &da, const Delta &db) { return point_change(q, cw, da, db); });
  }
  if (!t.at.derivatives || t.at.lambda == nullptr) return;
  const Vec3 l = Eigen::Map<const Vec3>(t.at.lambda + t.row0);
  const Vec3 f = q.local ? Vec3(q.a.R * l) : l;
  w.a = add_wrench(t.ws, c.frame, f, Vec3::Zero());
  if (has_b) w.b = add_wrench(t.ws, c.frame_b, -f, Vec3::Zero());
  if (!q.local) return;  // f = R_a λ turns with frame a
  add_turning(t, w.a, 0, [&](const Delta &da) { return wrench6(da.th.cross(f), Vec3::Zero()); });
  if (has_b)
    add_turning(t, w.b, 0, [&](const Delta &da) { return wrench6(-da.th.cross(f), Vec3::Zero()); });
}

// A rigid contact or RIGID loop (K7), (K8): c = blockdiag(R_aᵀ) [c_l; c_a] + Kp log(H_b⁻¹ H_a)
// (Local) or [c_l; c_a] + Kp blockdiag(R_a) log(...) (Mixed).
void rigid_rows(const Target &t, const Constraint &c, bool has_b) {
  const Pair q = pair_of(t, c, has_b);
  const Relative x = relative(q);
  const Transform Hb{q.b.R, q.b.p}, Ha{q.a.R, q.a.p};
  const Vec6 ell = q.Kp != 0.0 ? log_se3(Hb.inverse() * Ha) : Vec6::Zero();
  const Mat6 Jr_inv = q.Kp != 0.0 ? inverse_right_jacobian_se3(ell) : Mat6::Zero();
  const Mat6 Ad_ab = motion_transform(Ha.inverse() * Hb);
  const Mat3 Rt = q.a.R.transpose();
  Vec6 value;
  if (q.local)
    value << Rt * x.cl + q.Kp * ell.head<3>(), Rt * x.ca + q.Kp * ell.tail<3>();
  else
    value << x.cl + q.Kp * (q.a.R * ell.head<3>()), x.ca + q.Kp * (q.a.R * ell.tail<3>());
  const auto change = [&](const Delta &da, const Delta &db) {
    Vec3 dcl, dca;
    relative_change(q, x, da, db, dcl, dca);
    Vec6 dl = Vec6::Zero();
    if (q.Kp != 0.0)  // δ log = J_r⁻¹ (ξ_a − Ad(H_a⁻¹ H_b) ξ_b)
      dl = Jr_inv * (local_displacement(q.a, da) - Ad_ab * local_displacement(q.b, db));
    Vec6 out;
    if (q.local) {
      out << Rt * (dcl + x.cl.cross(da.th)) + q.Kp * dl.head<3>(),
          Rt * (dca + x.ca.cross(da.th)) + q.Kp * dl.tail<3>();
    } else {
      const Vec3 el = q.a.R * ell.head<3>(), ea = q.a.R * ell.tail<3>();
      out << dcl + q.Kp * (q.a.R * dl.head<3>() + da.th.cross(el)),
          dca + q.Kp * (q.a.R * dl.tail<3>() + da.th.cross(ea));
    }
    return out;
  };
  write_rows<6>(t, has_b, value, change);
  if (!t.at.derivatives || t.at.lambda == nullptr) return;
  // (K13): (f, τ) on a at p_a; (−f, −τ − d × f) on b at p_b.
  const Eigen::Map<const Vec6> l(t.at.lambda + t.row0);
  const Vec3 f = q.local ? Vec3(q.a.R * l.head<3>()) : Vec3(l.head<3>());
  const Vec3 tau = q.local ? Vec3(q.a.R * l.tail<3>()) : Vec3(l.tail<3>());
  const int wa = add_wrench(t.ws, c.frame, f, tau);
  const int wb = has_b ? add_wrench(t.ws, c.frame_b, -f, -tau - x.d.cross(f)) : -1;
  // Local: f, τ turn with a; b's lever d = p_a − p_b moves with both frames.
  const auto turn_a = [&](const Delta &da) {
    const Vec3 df = q.local ? Vec3(da.th.cross(f)) : Vec3::Zero();
    const Vec3 dt = q.local ? Vec3(da.th.cross(tau)) : Vec3::Zero();
    return wrench6(df, dt);
  };
  if (q.local) add_turning(t, wa, 0, turn_a);
  if (!has_b) return;
  add_turning(t, wb, 0, [&](const Delta &da) {
    const Vec6 d = turn_a(da);
    return wrench6(-d.head<3>(), -d.tail<3>() - da.p.cross(f) - x.d.cross(d.head<3>()));
  });
  add_turning(t, wb, 1, [&](const Delta &db) { return wrench6(Vec3::Zero(), db.p.cross(f)); });
}

// A HINGE loop (K6): the POINT rows, then rows e_x, e_y of R_aᵀ c_a + Kp [n_y, −n_x],
// n = R_aᵀ R_b e_z; torque τ = R_a [λ₃, λ₄, 0] on a, −τ on b.
void hinge_rows(const Target &t, const Constraint &c) {
  PairWrenches w;
  point_rows(t, c, true, w);
  const Target t2{t.model, t.ws, t.set, t.at, t.row0 + 3, t.n, t.N};
  const Pair q = pair_of(t, c, true);
  const Relative x = relative(q);
  const Mat3 Rt = q.a.R.transpose();
  const Vec3 zb = q.b.R.col(2), nvec = Rt * zb;
  const Vec3 ca = Rt * x.ca;
  const Eigen::Matrix<double, 2, 1> value(ca.x() + t.at.Kp * nvec.y(), ca.y() - t.at.Kp * nvec.x());
  const auto change = [&](const Delta &da, const Delta &db) {
    Vec3 dcl, dca;
    relative_change(q, x, da, db, dcl, dca);
    const Vec3 d = Rt * (dca + x.ca.cross(da.th));
    const Vec3 dn = Rt * zb.cross(da.th - db.th);
    return Eigen::Matrix<double, 2, 1>(d.x() + t.at.Kp * dn.y(), d.y() - t.at.Kp * dn.x());
  };
  write_rows<2>(t2, true, value, change);
  if (!t.at.derivatives || t.at.lambda == nullptr) return;
  const Vec3 tau = q.a.R * Vec3(t.at.lambda[t2.row0], t.at.lambda[t2.row0 + 1], 0.0);
  t.ws.cs_wrenches.segment<3>(6 * w.a + 3) += tau;
  t.ws.cs_wrenches.segment<3>(6 * w.b + 3) -= tau;
  // τ = R_a [λ₃, λ₄, 0] turns with a
  add_turning(t, w.a, 0, [&](const Delta &da) { return wrench6(Vec3::Zero(), da.th.cross(tau)); });
  add_turning(t, w.b, 0, [&](const Delta &da) { return wrench6(Vec3::Zero(), -da.th.cross(tau)); });
}

// A coupling (K11): c = ν̇_j − ρ ν̇_i + Kd (r_j − ρ r_i) + Kp (s_j − ρ s_i − offset); constant
// J_c, so J_cᵀ λ has no derivative.
void coupling_row(const Target &t, const Constraint &c) {
  Workspace &ws = t.ws;
  const int nv = t.model.joint_offset(), dj = nv + c.joint, di = nv + c.source;
  CRefVec s = t.at.s, r = t.at.r, a = t.at.nu_dot;
  ws.cs_c[t.row0] = a[dj] - c.ratio * a[di] + t.at.Kd * (r[c.joint] - c.ratio * r[c.source]) +
                    t.at.Kp * (s[c.joint] - c.ratio * s[c.source] - c.offset);
  if (t.at.terms) {  // (K16): 1 on the joint's column, −ρ on the source's
    for (const auto &[joint, coef] : {std::pair{c.joint, 1.0}, std::pair{c.source, -c.ratio}}) {
      Workspace::ConstraintTerm &term = next_term(ws);
      term.row0 = t.row0;
      term.rows = 1;
      term.body = joint + 1;
      term.joint = true;
      term.coef = coef;
    }
    return;
  }
  ws.cs_J.row(t.row0).head(t.n).setZero();
  ws.cs_J(t.row0, dj) = 1.0;
  ws.cs_J(t.row0, di) -= c.ratio;
  if (!t.at.derivatives) return;
  ws.cs_Dc.row(t.row0).head(t.N).setZero();
  ws.cs_Dc(t.row0, dj) = t.at.Kp;
  ws.cs_Dc(t.row0, di) -= t.at.Kp * c.ratio;
  ws.cs_Dc(t.row0, t.n + dj) = t.at.Kd;
  ws.cs_Dc(t.row0, t.n + di) -= t.at.Kd * c.ratio;
}

// A wheel (K9), (K10): force f = λ (world) at the rim point, the wrench (f, ρ × f) at the centre.
Outcome wheel_rows(const Target &t, const Constraint &c, int k) {
  const Motion m = motion_of(t.ws.cs_frame[0]);
  Rim g;
  if (!rim_of(m, c, g)) return Outcome::wheel_normal(k);
  const double Kp = t.at.Kp, Kd = t.at.Kd;
  write_rows<3>(t, false, wheel_value(m, g, Kp, Kd),
                [&](const Delta &d, const Delta &) { return wheel_change(m, g, Kp, Kd, d); });
  if (!t.at.derivatives || t.at.lambda == nullptr) return Outcome();
  const Vec3 f = Eigen::Map<const Vec3>(t.at.lambda + t.row0);
  const int w = add_wrench(t.ws, c.frame, f, g.rho.cross(f));
  add_turning(t, w, 0, [&](const Delta &d) {  // the lever ρ moves with the axis
    Vec3 drho, drhodot;
    rim_change(m, g, d, drho, drhodot);
    return wrench6(Vec3::Zero(), drho.cross(f));
  });
  return Outcome();
}

}  // namespace

void add_coupling_forces(const ConstraintSet &set, const double *lambda, RefVec tau) {
  int row0 = 0;
  for (const Constraint &c : set.items) {
    if (c.kind == Constraint::Kind::coupling) {  // (K11): λ on the joint, −ρ λ on its source
      tau[c.joint] += lambda[row0];
      tau[c.source] -= c.ratio * lambda[row0];
    }
    row0 += c.rows();
  }
}

void constraint_of_row(const ConstraintSet &set, int row, int &k, int &k_row) {
  k = 0;
  int row0 = 0;
  const int count = static_cast<int>(set.items.size());
  while (k + 1 < count && row0 + set.items[k].rows() <= row) row0 += set.items[k++].rows();
  k_row = row - row0;
}

double row_restitution(const ConstraintSet &set, int row, double e) {
  int k, k_row;
  constraint_of_row(set, row, k, k_row);
  const Constraint &c = set.items[k];
  if (c.kind == Constraint::Kind::contact) return e;
  if (c.kind == Constraint::Kind::wheel && k_row == 2) return e;
  return 0.0;
}

Workspace::ConstraintTurn &next_turn(Workspace &ws, int w, int body) {
  if (ws.cs_turn_count >= static_cast<int>(ws.cs_turns.size()))
    throw Error(
        Status::InvalidArgument,
        fmt::format("constraints: more than the workspace's {} wrench turns (a loop counts 2)",
                    ws.cs_turns.size()));
  Workspace::ConstraintTurn &tr = ws.cs_turns[ws.cs_turn_count++];
  tr.wrench = w;
  tr.body = body;
  tr.T.setZero();
  return tr;
}

// (the point, the set) => (ws.cs_J, ws.cs_c; ws.cs_Dc and with λ the wrenches ws.cs_wrench_*,
// ws.cs_Dw), ws.cs_frame as scratch
Outcome constraint_rows(const Model &model, Workspace &ws, const ConstraintSet &set,
                        const RowPoint &at) {
  const int n = model.num_dofs(), N = model.state_dim();
  ws.cs_wrench_count = 0;
  ws.cs_term_count = 0;
  ws.cs_turn_count = 0;
  int row0 = 0;
  for (int k = 0; k < static_cast<int>(set.items.size()); ++k) {
    const Constraint &c = set.items[k];
    const Target t{model, ws, set, at, row0, n, N};
    using Kind = Constraint::Kind;
    PairWrenches pw;
    if (c.kind != Kind::coupling) frame_motion(t, c.frame, 0);
    if (c.kind == Kind::loop) frame_motion(t, c.frame_b, 1);
    switch (c.kind) {
      case Kind::contact:
        if (c.type == kContactRigid)
          rigid_rows(t, c, false);
        else
          point_rows(t, c, false, pw);
        break;
      case Kind::loop:
        if (c.type == kLoopRigid)
          rigid_rows(t, c, true);
        else if (c.type == kLoopHinge)
          hinge_rows(t, c);
        else
          point_rows(t, c, true, pw);
        break;
      case Kind::coupling:
        coupling_row(t, c);
        break;
      case Kind::wheel:
        if (Outcome o = wheel_rows(t, c, k); !o) return o;
        break;
    }
    row0 += c.rows();
  }
  return Outcome();
}

}  // namespace geolin::detail
