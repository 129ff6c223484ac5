// The rows of a constraint set and their exact derivatives (docs/constraints.md §2, §4).
//
// Every row is a function c(x, ν, ν̇) of the world motion of one or two frames (their pose,
// velocity [ṗ; ω] and classical acceleration [p̈; ω̇], from frame_velocity and frame_acceleration
// in Mixed axes, with their derivatives in z) or of the joint coordinates. Each type is written
// once, as a map from the frames' motion changes δ = (δp, δθ, δṗ, δω, δp̈, δω̇) to the change of
// its rows, linear in δ at the current motion: applied to the columns of z it gives ∂c/∂z, and
// applied to δp̈ = J_l e_k, δω̇ = J_a e_k (nothing else moves) the columns of J_c = ∂c/∂ν̇.
// The generalized force of λ, J_cᵀ λ, is a sum of world wrenches at the frames (K13); its
// derivative at fixed λ is that of each wrench at fixed world values (world_wrench_derivative)
// plus the change of the world values with the state.
#include "constraint_rows.hpp"

#include <cmath>

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
// δρ and δρ̇ for the frame's change (the derivatives of (K9) in a and ω).
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

// ---- the generalized force of world wrenches ------------------------------------------------

// ∂(J_Fᵀ [f; τ])/∂z at fixed world f, τ applied at frame F's origin (K13), added to the pose
// columns of dQ (n x N). In frame 0 the wrench is F₀ = [f₀; R₀ᵀ τ + p₀ × f₀] (f₀ = R₀ᵀ f, p₀
// the origin in frame 0) and J_Fᵀ F = [F₀; S_jᵀ F₀ (j on the path)]. Moving joint k (on the
// path) moves the origin by δp₀ = S_k,l + S_k,a × p₀ (F₀ += [0; δp₀ × f₀]) and turns the S_j
// below it (δS_j = S_k × S_j); turning the base by θ turns f₀ and R₀ᵀ τ (δx = x × θ).
// (ws.S0, ws.H0 of this s) => (dQ += the derivative)
void world_wrench_derivative(const Model &model, const Workspace &ws, const Transform &H, int frame,
                             const Vec3 &f, const Vec3 &tau, RefMat dQ) {
  const bool moving = !model.fixed_base;
  const Mat3 R0 = moving ? H.R : model.H_A_0.R;
  const Vec3 p0 = frame_pose0(model, ws, frame).o;
  const Vec3 f0 = R0.transpose() * f, t0 = R0.transpose() * tau;
  Vec6 F0;
  F0 << f0, t0 + p0.cross(f0);
  const int b = model.frames[frame].body;
  for (int k = b; k >= 1; k = model.parent[k]) {
    const Vec6 &Sk = ws.S0[k];
    const Vec3 dp = Sk.head<3>() + Sk.tail<3>().cross(p0);
    Vec6 dF;
    dF << Vec3::Zero(), dp.cross(f0);
    const int ck = model.dof(k);
    if (moving) dQ.col(ck).head<6>() += dF;
    for (int j = b; j >= 1; j = model.parent[j]) {
      double val = ws.S0[j].dot(dF);
      if (model.depth[j] > model.depth[k]) val += cross_motion(Sk, ws.S0[j]).dot(F0);
      dQ(model.dof(j), ck) += val;
    }
  }
  if (!moving) return;
  for (int e = 0; e < 3; ++e) {
    const Vec3 th = Vec3::Unit(e);
    const Vec3 df = f0.cross(th);
    Vec6 dF;
    dF << df, t0.cross(th) + p0.cross(df);
    dQ.col(3 + e).head<6>() += dF;
    for (int j = b; j >= 1; j = model.parent[j]) dQ(model.dof(j), 3 + e) += ws.S0[j].dot(dF);
  }
}

// dQ += J_Fᵀ [δf; δτ] over the columns of z, δf = Df(c), δτ = Dt(c) given per column.
template <class ForceChange>
void add_jacobian_transpose(const Workspace::FrameMotion &F, int N, RefMat dQ,
                            ForceChange &&change) {
  for (int c = 0; c < N; ++c) {
    Vec6 g;
    change(c, g);
    if (g.isZero(0.0)) continue;
    dQ.col(c).noalias() += F.J.transpose() * g;
  }
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

// The motion of frame F at the point into ws.cs_frame[slot] (Mixed axes; derivatives optional).
void frame_motion(const Target &t, int frame, int slot) {
  Workspace::FrameMotion &f = t.ws.cs_frame[slot];
  f.HF = frame_pose(t.model, t.ws, t.at.H, t.at.s, frame);
  MatX none;
  frame_velocity(t.model, t.ws, t.at.H, t.at.s, t.at.v, t.at.r, frame, kWrenchMixed, f.vel,
                 t.at.derivatives ? RefMat(f.dvel) : RefMat(none));
  frame_acceleration(t.model, t.ws, t.at.H, t.at.s, t.at.v, t.at.r, t.at.nu_dot, frame,
                     kWrenchMixed, f.acc, t.at.derivatives ? RefMat(f.dacc) : RefMat(none), f.J);
}

// Writes rows [row0, row0 + rows) of J_c, c and ∂c/∂z from `value` (the rows) and `change`
// (their change for the frames' changes (δa, δb)); b static when has_b is false.
template <int kRows, class Change>
void write_rows(const Target &t, bool has_b, const Eigen::Matrix<double, kRows, 1> &value,
                Change &&change) {
  Workspace &ws = t.ws;
  const Workspace::FrameMotion &A = ws.cs_frame[0], &B = ws.cs_frame[1];
  ws.cs_c.segment<kRows>(t.row0) = value;
  const Delta zero;
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

// A point contact or POINT loop (and a HINGE's first rows): (K5), force (K13) f on a at p_a, −f
// on b at p_b, f = R_a λ (Local) or λ (Mixed).
void point_rows(const Target &t, const Constraint &c, bool has_b) {
  const Pair q = pair_of(t, c, has_b);
  const Vec3 cw = point_world(q);
  write_rows<3>(t, has_b, point_value(q),
                [&](const Delta &da, const Delta &db) { return point_change(q, cw, da, db); });
  if (!t.at.derivatives || t.at.lambda == nullptr) return;
  const Vec3 l = Eigen::Map<const Vec3>(t.at.lambda + t.row0);
  const Vec3 f = q.local ? Vec3(q.a.R * l) : l;
  const int fa = c.frame, fb = c.frame_b;
  world_wrench_derivative(t.model, t.ws, t.at.H, fa, f, Vec3::Zero(), t.ws.cs_dQ);
  if (has_b) world_wrench_derivative(t.model, t.ws, t.at.H, fb, -f, Vec3::Zero(), t.ws.cs_dQ);
  if (!q.local) return;
  const Workspace::FrameMotion &A = t.ws.cs_frame[0];
  const auto df = [&](int col, Vec6 &g) {
    g.setZero();
    if (col < t.n) g.head<3>() = Vec3(A.J.col(col).tail<3>()).cross(f);
  };
  add_jacobian_transpose(A, t.N, t.ws.cs_dQ, df);
  if (has_b)
    add_jacobian_transpose(t.ws.cs_frame[1], t.N, t.ws.cs_dQ, [&](int col, Vec6 &g) {
      df(col, g);
      g = -g;
    });
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
  world_wrench_derivative(t.model, t.ws, t.at.H, c.frame, f, tau, t.ws.cs_dQ);
  if (has_b)
    world_wrench_derivative(t.model, t.ws, t.at.H, c.frame_b, -f, -tau - x.d.cross(f), t.ws.cs_dQ);
  const Workspace::FrameMotion &A = t.ws.cs_frame[0], &B = t.ws.cs_frame[1];
  const auto dft = [&](int col, Vec3 &df, Vec3 &dt) {
    const Vec3 th = col < t.n ? Vec3(A.J.col(col).tail<3>()) : Vec3::Zero();
    df = q.local ? Vec3(th.cross(f)) : Vec3::Zero();
    dt = q.local ? Vec3(th.cross(tau)) : Vec3::Zero();
  };
  add_jacobian_transpose(A, t.N, t.ws.cs_dQ, [&](int col, Vec6 &g) {
    Vec3 df, dt;
    dft(col, df, dt);
    g << df, dt;
  });
  if (!has_b) return;
  add_jacobian_transpose(B, t.N, t.ws.cs_dQ, [&](int col, Vec6 &g) {
    Vec3 df, dt;
    dft(col, df, dt);
    const Vec3 dd =
        col < t.n ? Vec3(A.J.col(col).head<3>() - B.J.col(col).head<3>()) : Vec3::Zero();
    g << -df, -dt - dd.cross(f) - x.d.cross(df);
  });
}

// A HINGE loop (K6): the POINT rows, then rows e_x, e_y of R_aᵀ c_a + Kp [n_y, −n_x],
// n = R_aᵀ R_b e_z; torque τ = R_a [λ₃, λ₄, 0] on a, −τ on b.
void hinge_rows(const Target &t, const Constraint &c) {
  point_rows(t, c, true);
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
  world_wrench_derivative(t.model, t.ws, t.at.H, c.frame, Vec3::Zero(), tau, t.ws.cs_dQ);
  world_wrench_derivative(t.model, t.ws, t.at.H, c.frame_b, Vec3::Zero(), -tau, t.ws.cs_dQ);
  const Workspace::FrameMotion &A = t.ws.cs_frame[0];
  const auto dt = [&](int col, Vec6 &g) {
    g.setZero();
    if (col < t.n) g.tail<3>() = Vec3(A.J.col(col).tail<3>()).cross(tau);
  };
  add_jacobian_transpose(A, t.N, t.ws.cs_dQ, dt);
  add_jacobian_transpose(t.ws.cs_frame[1], t.N, t.ws.cs_dQ, [&](int col, Vec6 &g) {
    dt(col, g);
    g = -g;
  });
}

// A coupling (K11): c = ν̇_j − ρ ν̇_i + Kd (r_j − ρ r_i) + Kp (s_j − ρ s_i − offset); constant
// J_c, so J_cᵀ λ has no derivative.
void coupling_row(const Target &t, const Constraint &c) {
  Workspace &ws = t.ws;
  const int nv = t.model.joint_offset(), dj = nv + c.joint, di = nv + c.source;
  const CRefVec s = t.at.s, r = t.at.r, a = t.at.nu_dot;
  ws.cs_c[t.row0] = a[dj] - c.ratio * a[di] + t.at.Kd * (r[c.joint] - c.ratio * r[c.source]) +
                    t.at.Kp * (s[c.joint] - c.ratio * s[c.source] - c.offset);
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
  world_wrench_derivative(t.model, t.ws, t.at.H, c.frame, f, g.rho.cross(f), t.ws.cs_dQ);
  const Workspace::FrameMotion &A = t.ws.cs_frame[0];
  add_jacobian_transpose(A, t.N, t.ws.cs_dQ, [&](int col, Vec6 &out) {
    out.setZero();
    if (col >= t.n) return;
    Vec3 drho, drhodot;
    rim_change(m, g, column_delta(A, col, t.n), drho, drhodot);
    out.tail<3>() = drho.cross(f);
  });
  return Outcome();
}

}  // namespace

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

// (the point, the set) => (ws.cs_J, ws.cs_c; ws.cs_Dc, ws.cs_dQ), ws.cs_frame as scratch
Outcome constraint_rows(const Model &model, Workspace &ws, const ConstraintSet &set,
                        const RowPoint &at) {
  const int n = model.num_dofs(), N = model.state_dim();
  if (at.derivatives) ws.cs_dQ.setZero();
  int row0 = 0;
  for (int k = 0; k < static_cast<int>(set.items.size()); ++k) {
    const Constraint &c = set.items[k];
    const Target t{model, ws, set, at, row0, n, N};
    using Kind = Constraint::Kind;
    if (c.kind != Kind::coupling) frame_motion(t, c.frame, 0);
    if (c.kind == Kind::loop) frame_motion(t, c.frame_b, 1);
    // world_wrench_derivative reads frame-0 kinematics of the frames' paths, which the frame
    // motions have just written for this s.
    switch (c.kind) {
      case Kind::contact:
        if (c.type == kContactRigid)
          rigid_rows(t, c, false);
        else
          point_rows(t, c, false);
        break;
      case Kind::loop:
        if (c.type == kLoopRigid)
          rigid_rows(t, c, true);
        else if (c.type == kLoopHinge)
          hinge_rows(t, c);
        else
          point_rows(t, c, true);
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
