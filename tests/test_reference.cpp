// Comparison with values from an independent implementation (Pinocchio 3.7, tests/data/reference:
// the two robots' URDFs and five random states each, see its README.md): catches
// URDF-interpretation and convention mistakes that a finite-difference check cannot see. The data
// ship with the repository, so this runs on every clone and in CI.
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace geolin::test {
namespace {

MatX rows_to_matrix(const nlohmann::json &rows) {
  MatX M(rows.size(), rows[0].size());
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < rows[i].size(); ++j) M(i, j) = rows[i][j].get<double>();
  return M;
}

VecX to_vector(const nlohmann::json &a) {
  VecX v(a.size());
  for (size_t i = 0; i < a.size(); ++i) v[i] = a[i].get<double>();
  return v;
}

void compare_with_reference(const std::string &name) {
  const std::string dir = std::string(GEOLIN_TEST_DATA_DIR) + "/reference/";
  std::ifstream in(dir + name + ".json");
  ASSERT_TRUE(in) << "reference values not found: " << dir << name << ".json";
  const nlohmann::json ref = nlohmann::json::parse(in);
  const bool floating = ref["floating"].get<bool>();
  const Model m = load_urdf_file(dir + name + ".urdf", floating ? 0u : kFixedBase);
  Workspace ws(m);
  ws.gravity = Vec3(ref["gravity"][0], ref["gravity"][1], ref["gravity"][2]);
  const int nj = m.num_joints(), n = m.num_dofs(), N = m.state_dim(), o = m.joint_offset();
  ASSERT_EQ(nj, ref["nJ"].get<int>());
  // Reference joint k -> our joint index.
  std::vector<int> ours;
  for (const auto &jn : ref["joint_names"]) {
    ours.push_back(m.joint_index(jn.get<std::string>()));
    ASSERT_GE(ours.back(), 0) << jn;
  }
  // Permutation P: ν_ref = P ν_ours.
  MatX P = MatX::Zero(n, n);
  if (floating) P.topLeftCorner(6, 6).setIdentity();
  for (int k = 0; k < nj; ++k) P(o + k, o + ours[k]) = 1.0;
  double worst_ddq = 0, worst_dq = 0, worst_dv = 0, worst_minv = 0;
  for (const auto &sample : ref["samples"]) {
    State x;
    x.H.o = to_vector(sample["p"]);
    x.H.R = rows_to_matrix(sample["R"]);
    const VecX s_ref = to_vector(sample["s"]), r_ref = to_vector(sample["r"]);
    const VecX tau_ref = to_vector(sample["tau"]);
    x.s.resize(nj);
    x.r.resize(nj);
    x.tau.resize(nj);
    for (int k = 0; k < nj; ++k) {
      x.s[ours[k]] = s_ref[k];
      x.r[ours[k]] = r_ref[k];
      x.tau[ours[k]] = tau_ref[k];
    }
    if (floating) x.v = to_vector(sample["v_base"]);
    const double cond = sample["diagnostics"]["cond_M"].get<double>();
    const double tol = 1e-13 * std::max(1.0, cond);
    VecX nu_dot(n);
    aba(m, ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);
    MatX A(N, N), B(N, nj), Minv(n, n);
    linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, A, B);
    mass_matrix_inverse(m, ws, x.s, Minv);
    // Reference: ddq_dq = [F_H F_s], ddq_dv = [F_v F_r], rows and columns in its ν order.
    const MatX dq = P * A.block(n, 0, n, n) * P.transpose();
    const MatX dv = P * A.block(n, n, n, n) * P.transpose();
    worst_ddq = std::max(worst_ddq, rel_err(P * nu_dot, to_vector(sample["ddq"])) / tol);
    worst_dq = std::max(worst_dq, rel_err(dq, rows_to_matrix(sample["ddq_dq"])) / tol);
    worst_dv = std::max(worst_dv, rel_err(dv, rows_to_matrix(sample["ddq_dv"])) / tol);
    worst_minv = std::max(worst_minv,
                          rel_err(P * Minv * P.transpose(), rows_to_matrix(sample["Minv"])) / tol);
  }
  // Errors are reported in units of 1e-13 cond(M) (the reference README expects ~1e-15 cond(M)).
  testing::Test::RecordProperty("ddq", sci(worst_ddq));
  testing::Test::RecordProperty("ddq_dq", sci(worst_dq));
  testing::Test::RecordProperty("ddq_dv", sci(worst_dv));
  testing::Test::RecordProperty("Minv", sci(worst_minv));
  EXPECT_LT(worst_ddq, 1.0);
  EXPECT_LT(worst_dq, 1.0);
  EXPECT_LT(worst_dv, 1.0);
  EXPECT_LT(worst_minv, 1.0);
}

TEST(Reference, Solo12MovingBaseAgreesWithAnIndependentImplementation) {
  compare_with_reference("solo12");
}

TEST(Reference, PandaFixedBaseAgreesWithAnIndependentImplementation) {
  compare_with_reference("panda");
}

}  // namespace
}  // namespace geolin::test
