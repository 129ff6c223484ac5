// The state algebra of G = SE(3) × R^nJ × R^6 × R^nJ (docs/dynamics.md §4): x exp(z), log(x0⁻¹ x1)
// and their Jacobians. Only the SE(3) factor is not Euclidean: its Jacobians are the adjoint of
// exp(z_H) and the right Jacobian of the SE(3) exponential (D40) and its inverse (D41).
#include "geolin/state.hpp"

namespace geolin {

State State::zero(const Model &model) {
  State x;
  x.s.setZero(model.num_joints());
  x.r.setZero(model.num_joints());
  return x;
}

Transform pose_integrate(const Transform &H, const Vec6 &z_H) {
  return H * exp_se3(z_H);  // docs/dynamics.md (D15)
}

Vec6 pose_difference(const Transform &H0, const Transform &H1) {
  return log_se3(H0.inverse() * H1);  // docs/dynamics.md (D42)
}

// (x exp(dx)) exp(z) = x exp(z) exp(Ad_{exp(−z)} dx): docs/dynamics.md (D43).
Mat6 pose_integrate_dx(const Vec6 &z_H) {
  return motion_transform(exp_se3(z_H).inverse());
}

// exp(z + dz) = exp(z) exp(J_r(z) dz): docs/dynamics.md (D43), J_r of (D40).
Mat6 pose_integrate_dz(const Vec6 &z_H) {
  return right_jacobian_se3(z_H);
}

// log(exp(−dx0) exp(z)) = z − J_l(z)⁻¹ dx0, J_l(z)⁻¹ = J_r(−z)⁻¹: docs/dynamics.md (D44), (D41).
Mat6 pose_difference_dx0(const Vec6 &z_H) {
  return -inverse_right_jacobian_se3(-z_H);
}

// log(exp(z) exp(dx1)) = z + J_r(z)⁻¹ dx1: docs/dynamics.md (D44), (D41).
Mat6 pose_difference_dx1(const Vec6 &z_H) {
  return inverse_right_jacobian_se3(z_H);
}

void state_jacobian(const Model &model, const Mat6 &pose, double sign, RefMat D) {
  if (D.size() == 0) return;
  D.setZero();
  D.diagonal().setConstant(sign);
  if (!model.fixed_base) D.topLeftCorner<6, 6>() = pose;
}

void state_integrate(const Model &model, const Transform &H, CRefVec s, const Vec6 &v, CRefVec r,
                     CRefVec z, Transform &H_out, RefVec s_out, Vec6 &v_out, RefVec r_out) {
  const int nj = model.num_joints(), n = model.num_dofs(), o = model.joint_offset();
  // The pose and the twist first, on the stack: every input is read before its output is written.
  Transform Hn;
  Vec6 vn = Vec6::Zero();
  if (!model.fixed_base) {
    Hn = pose_integrate(H, z.head<6>());
    vn = v + z.segment<6>(n);
  }
  s_out = s + z.segment(o, nj);  // entrywise: s_out may be s
  r_out = r + z.segment(n + o, nj);
  if (!model.fixed_base) {
    H_out = Hn;
    v_out = vn;
  }
}

bool state_integrate_finite(const Model &model, const Transform &H, CRefVec s, const Vec6 &v,
                            CRefVec r, CRefVec z) {
  const int nj = model.num_joints(), n = model.num_dofs(), o = model.joint_offset();
  if (!model.fixed_base) {
    const Transform Hn = pose_integrate(H, z.head<6>());
    if (!Hn.R.allFinite() || !Hn.o.allFinite() || !(v + z.segment<6>(n)).allFinite()) return false;
  }
  return (s + z.segment(o, nj)).allFinite() && (r + z.segment(n + o, nj)).allFinite();
}

void state_integrate_coordinate(const Model &model, int k, double e, Transform &H, RefVec s,
                                Vec6 &v, RefVec r) {
  const int n = model.num_dofs(), o = model.joint_offset();
  const bool moving = !model.fixed_base;
  if (moving && k < 6) {
    Vec6 z = Vec6::Zero();
    z[k] = e;
    H = pose_integrate(H, z);
  } else if (k < n) {
    s[k - o] += e;
  } else if (moving && k < n + 6) {
    v[k - n] += e;
  } else {
    r[k - n - o] += e;
  }
}

void state_difference(const Model &model, const Transform &H0, CRefVec s0, const Vec6 &v0,
                      CRefVec r0, const Transform &H1, CRefVec s1, const Vec6 &v1, CRefVec r1,
                      RefVec z) {
  const int nj = model.num_joints(), n = model.num_dofs(), o = model.joint_offset();
  Vec6 zH = Vec6::Zero(), zv = Vec6::Zero();
  if (!model.fixed_base) {
    zH = pose_difference(H0, H1);
    zv = v1 - v0;
  }
  z.segment(o, nj) = s1 - s0;
  z.segment(n + o, nj) = r1 - r0;
  if (!model.fixed_base) {
    z.head<6>() = zH;
    z.segment<6>(n) = zv;
  }
}

bool state_difference_finite(const Model &model, const Transform &H0, CRefVec s0, const Vec6 &v0,
                             CRefVec r0, const Transform &H1, CRefVec s1, const Vec6 &v1,
                             CRefVec r1) {
  if (!model.fixed_base && (!pose_difference(H0, H1).allFinite() || !(v1 - v0).allFinite()))
    return false;
  return (s1 - s0).allFinite() && (r1 - r0).allFinite();
}

// A fixed base has no pose block: z_H = 0 there (its block is computed but not used).
void state_integrate_derivatives(const Model &model, CRefVec z, RefMat d_dx, RefMat d_dz) {
  const Vec6 zH = model.fixed_base ? Vec6(Vec6::Zero()) : Vec6(z.head<6>());
  if (d_dx.size() > 0) state_jacobian(model, pose_integrate_dx(zH), 1.0, d_dx);
  if (d_dz.size() > 0) state_jacobian(model, pose_integrate_dz(zH), 1.0, d_dz);
}

void state_difference_derivatives(const Model &model, const Transform &H0, const Transform &H1,
                                  RefMat dz_dx0, RefMat dz_dx1) {
  const Vec6 zH = model.fixed_base ? Vec6(Vec6::Zero()) : pose_difference(H0, H1);
  if (dz_dx0.size() > 0) state_jacobian(model, pose_difference_dx0(zH), -1.0, dz_dx0);
  if (dz_dx1.size() > 0) state_jacobian(model, pose_difference_dx1(zH), 1.0, dz_dx1);
}

void state_integrate(const Model &model, const State &x, CRefVec z, State &out) {
  out.s.resize(model.num_joints());
  out.r.resize(model.num_joints());
  state_integrate(model, x.H, x.s, x.v, x.r, z, out.H, out.s, out.v, out.r);
}

State state_integrate(const Model &model, const State &x, CRefVec z) {
  State out = x;
  state_integrate(model, x, z, out);
  return out;
}

void state_integrate_coordinate(const Model &model, int k, double e, State &x) {
  state_integrate_coordinate(model, k, e, x.H, x.s, x.v, x.r);
}

void state_difference(const Model &model, const State &x0, const State &x1, RefVec z) {
  state_difference(model, x0.H, x0.s, x0.v, x0.r, x1.H, x1.s, x1.v, x1.r, z);
}

VecX state_difference(const Model &model, const State &x0, const State &x1) {
  VecX z(model.state_dim());
  state_difference(model, x0, x1, z);
  return z;
}

}  // namespace geolin
