// Every fast function of include/geolin/algorithms.hpp against the dense, readable twin of
// tests/twin/dense_model.hpp (docs/dynamics.md §3, §4, §7, §8 and docs/contacts.md written out
// with dense matrices): crba, rnea, rnea_derivatives, aba (with and without external wrenches),
// linearize (without wrenches, Local, Mixed), step and step_linearize (both methods),
// contact_dynamics and contact_linearize (points and rigid frames, Local and Mixed, with and
// without gains). The twin itself is checked against its own geometric finite differences and
// the closed form of the gravity block (TwinSelfCheck), so that a disagreement points at geolin.
//
// Tolerance: kTwinTol = 1e-9 of the largest entry of the twin's matrix. The two compute the same
// exact quantities in double precision by different operations (O(n) recursions in frame 0
// against dense products in body frames and a dense Cholesky factorization of M), so they
// differ by round-off amplified by the conditioning of M and of Λ⁻¹. Measured
// worst cases (printed at the end of a run, "[ twin ]") are 3e-15 (rnea, crba) to 1.4e-12
// (linearize) and 4e-12 (the RK4 step's A_d), three orders of magnitude below the tolerance.
// A wrong term of the method (a sign, a missing bracket, a frame mix-up) is of the size of the
// entries it enters, far above this.
#include <functional>
#include <map>
#include <memory>
#include <random>

#include "geolin/generate.hpp"
#include "test_util.hpp"
#include "twin/dense_model.hpp"

namespace geolin::test {
namespace {

constexpr double kTwinTol = 1e-9;

/// max |fast − twin| / max |twin|; a matrix that vanishes analytically (∂ID/∂ν of one joint on
/// a fixed base: no velocity product) is round-off in both, compared absolutely below 1e-6.
double twin_err(const MatX &fast, const MatX &twin) {
  EXPECT_EQ(fast.rows(), twin.rows());
  EXPECT_EQ(fast.cols(), twin.cols());
  if (fast.rows() != twin.rows() || fast.cols() != twin.cols()) return 1.0;
  if (twin.size() == 0) return 0.0;
  const double scale = std::max(twin.cwiseAbs().maxCoeff(), 1e-6);
  return (fast - twin).cwiseAbs().maxCoeff() / scale;
}

/// The worst error per compared quantity over the whole run, printed at the end.
std::map<std::string, double> &worst_errors() {
  static std::map<std::string, double> worst;
  return worst;
}

void expect_twin(const std::string &what, const MatX &fast, const MatX &twin) {
  const double e = twin_err(fast, twin);
  double &w = worst_errors()[what];
  w = std::max(w, e);
  EXPECT_LT(e, kTwinTol) << what;
}

class WorstErrorReport : public testing::Environment {
 public:
  void TearDown() override {
    if (worst_errors().empty()) return;
    std::printf("[ twin     ] worst relative error against the dense twin:\n");
    for (const auto &[what, e] : worst_errors())
      std::printf("[ twin     ]   %-28s %.2e\n", what.c_str(), e);
  }
};
const auto *const kReport = testing::AddGlobalTestEnvironment(new WorstErrorReport);

const Vec3 kGravity(0.4, -0.3, -9.81);  // tilted: a transposed rotation would show

twin::DenseModel dense(const Model &m, const State &x) {
  VecX nu(m.num_dofs());
  if (!m.fixed_base) nu.head<6>() = x.v;
  nu.tail(m.n_B) = x.r;
  return twin::DenseModel(m, kGravity, x.H, x.s, nu);
}

twin::GroupState group_state(const State &x) {
  twin::GroupState g;
  g.H = x.H;
  g.s = x.s;
  g.v = x.v;
  g.r = x.r;
  return g;
}

// Random states, two of them with the base pitched ±90° (where Euler angles are singular) and
// larger velocities.
std::vector<State> twin_states(const Model &m, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<State> xs;
  for (int k = 0; k < 2; ++k) xs.push_back(random_state(m, rng));
  for (double pitch : {M_PI / 2, -M_PI / 2}) {
    State x = random_state(m, rng, 2.0);
    x.H.R = rot_z(0.7) * rot_y(pitch) * rot_x(-0.4);
    xs.push_back(x);
  }
  return xs;
}

struct TwinCase {
  std::string name;
  std::function<Model()> load;
};

void PrintTo(const TwinCase &c, std::ostream *os) {
  *os << c.name;
}

std::vector<TwinCase> twin_cases() {
  std::vector<TwinCase> cases;
  for (const ModelCase &c : all_model_cases()) cases.push_back({c.name, [c] { return c.load(); }});
  for (const char *f : {"humanoid.urdf", "arm7.urdf"})  // the models with URDF damping
    cases.push_back({std::string(f).substr(0, std::string(f).find('.')) + "_damped",
                     [f] { return load_urdf_file(model_path(f), kJointDamping); }});
  for (unsigned flags : {0u, unsigned(kFixedBase)})  // geolin/generate.hpp trees
    cases.push_back({flags ? "generated_tree_15_fixed" : "generated_tree_15_moving",
                     [flags] { return load_urdf_string(make_random_tree_urdf(15, 21u), flags); }});
  return cases;
}

class Twin : public testing::TestWithParam<TwinCase> {
 protected:
  void SetUp() override {
    model_ = GetParam().load();
    ws_ = std::make_unique<Workspace>(model_);
    ws_->gravity = kGravity;
  }
  // External wrenches on up to three frames: the last link, one in the middle, the root link.
  twin::Wrenches some_wrenches(bool mixed, std::mt19937 &rng) const {
    std::uniform_real_distribution<double> u(-5.0, 5.0);
    const int nf = static_cast<int>(model_.frames.size());
    twin::Wrenches W;
    W.mixed = mixed;
    for (int f : {nf - 1, nf / 2, 0}) {
      if (std::find(W.frames.begin(), W.frames.end(), f) != W.frames.end()) continue;
      W.frames.push_back(f);
      W.values.push_back(Vec6(u(rng), u(rng), u(rng), u(rng), u(rng), u(rng)));
    }
    return W;
  }
  Model model_;
  std::unique_ptr<Workspace> ws_;
};

/// geolin's view of the twin's wrenches (the arrays must outlive the returned struct).
ExternalWrenches fast_wrenches(const twin::Wrenches &W, VecX &values) {
  values.resize(6 * W.frames.size());
  for (size_t w = 0; w < W.frames.size(); ++w) values.segment<6>(6 * w) = W.values[w];
  return ExternalWrenches{static_cast<int>(W.frames.size()), W.frames.data(), values.data(),
                          W.mixed ? kWrenchMixed : kWrenchLocal};
}

TEST_P(Twin, CrbaMatchesTheDenseMassMatrix) {
  for (const State &x : twin_states(model_, 1u)) {
    MatX M(model_.num_dofs(), model_.num_dofs());
    crba(model_, *ws_, x.s, M);
    expect_twin("crba", M, dense(model_, x).mass_matrix());
  }
}

VecX random_vector(int n, std::mt19937 &rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VecX a(n);
  for (int k = 0; k < n; ++k) a[k] = u(rng);
  return a;
}

TEST_P(Twin, RneaMatchesTheDenseInverseDynamics) {
  std::mt19937 rng(2u);
  for (const State &x : twin_states(model_, 2u)) {
    const VecX nu_dot = random_vector(model_.num_dofs(), rng);
    VecX id(model_.num_dofs());
    rnea(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, id);
    expect_twin("rnea", id, dense(model_, x).inverse_dynamics(nu_dot));
  }
}

TEST_P(Twin, RneaDerivativesMatchTheDenseDerivativesOfInverseDynamics) {
  std::mt19937 rng(3u);
  for (const State &x : twin_states(model_, 3u)) {
    const int n = model_.num_dofs();
    const VecX nu_dot = random_vector(n, rng);
    MatX ds(n, model_.n_B), dnu(n, n);
    rnea_derivatives(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, ds, dnu);
    const twin::IdDerivatives D = dense(model_, x).id_derivatives(nu_dot);
    expect_twin("rnea_derivatives ds", ds, D.ds);
    expect_twin("rnea_derivatives dnu", dnu, D.dnu);
  }
}

TEST_P(Twin, AbaMatchesTheDenseForwardDynamics) {
  std::mt19937 rng(4u);
  for (const State &x : twin_states(model_, 4u)) {
    const twin::DenseModel d = dense(model_, x);
    VecX nu_dot(model_.num_dofs());
    aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, nu_dot);
    expect_twin("aba", nu_dot, d.forward_dynamics(x.tau));
    for (bool mixed : {false, true}) {
      const twin::Wrenches W = some_wrenches(mixed, rng);
      VecX values;
      aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, fast_wrenches(W, values), nu_dot);
      expect_twin(mixed ? "aba mixed wrenches" : "aba local wrenches", nu_dot,
                  d.forward_dynamics(x.tau, W));
    }
  }
}

TEST_P(Twin, LinearizeMatchesTheDenseTwin) {
  const int N = model_.state_dim();
  for (const State &x : twin_states(model_, 5u)) {
    MatX A(N, N), B(N, model_.n_B);
    linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, A, B);
    const twin::Linearization L = dense(model_, x).linearize(x.tau);
    expect_twin("linearize A", A, L.A);
    expect_twin("linearize B", B, L.B);
  }
}

TEST_P(Twin, LinearizeWithExternalWrenchesMatchesTheDenseTwin) {
  std::mt19937 rng(6u);
  const int N = model_.state_dim();
  for (const State &x : twin_states(model_, 6u)) {
    for (bool mixed : {false, true}) {
      const twin::Wrenches W = some_wrenches(mixed, rng);
      VecX values;
      const ExternalWrenches ext = fast_wrenches(W, values);
      MatX A(N, N), B(N, model_.n_B + 6 * ext.count);
      linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ext, A, B);
      const twin::Linearization L = dense(model_, x).linearize(x.tau, W);
      const std::string what = mixed ? "linearize mixed" : "linearize local";
      expect_twin(what + " A", A, L.A);
      expect_twin(what + " B", B, L.B);
    }
  }
}

TEST_P(Twin, StepMatchesTheDenseTwin) {
  const double h = 0.02;
  for (const State &x : twin_states(model_, 7u)) {
    for (StepMethod method : {StepMethod::SemiImplicitEuler, StepMethod::Rk4}) {
      State y = x;
      step(model_, *ws_, method, h, x.H, x.s, x.v, x.r, x.tau, y.H, y.s, y.v, y.r);
      const auto tm =
          method == StepMethod::Rk4 ? twin::Method::Rk4 : twin::Method::SemiImplicitEuler;
      const twin::GroupState t = twin::step(model_, kGravity, tm, h, group_state(x), x.tau);
      const std::string what = method == StepMethod::Rk4 ? "step rk4" : "step euler";
      if (!model_.fixed_base) {
        expect_twin(what + " H", y.H.matrix(), t.H.matrix());
        expect_twin(what + " v", y.v, t.v);
      }
      expect_twin(what + " s", y.s, t.s);
      if (model_.n_B > 0) expect_twin(what + " r", y.r, t.r);
    }
  }
}

TEST_P(Twin, StepLinearizeMatchesTheDenseProductsOfStageMatrices) {
  const double h = 0.02;
  const int N = model_.state_dim(), nj = model_.n_B;
  for (const State &x : twin_states(model_, 8u)) {
    for (StepMethod method : {StepMethod::SemiImplicitEuler, StepMethod::Rk4}) {
      MatX A_d(N, N), B_d(N, nj);
      step_linearize(model_, *ws_, method, h, x.H, x.s, x.v, x.r, x.tau, A_d, B_d);
      const auto tm =
          method == StepMethod::Rk4 ? twin::Method::Rk4 : twin::Method::SemiImplicitEuler;
      const MatX Z = twin::step_linearize(model_, kGravity, tm, h, group_state(x), x.tau);
      const std::string what =
          method == StepMethod::Rk4 ? "step_linearize rk4" : "step_linearize euler";
      expect_twin(what + " A_d", A_d, Z.leftCols(N));
      expect_twin(what + " B_d", B_d, Z.rightCols(nj));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, Twin, testing::ValuesIn(twin_cases()),
                         [](const testing::TestParamInfo<TwinCase> &info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------------------------
// Contacts: the quadruped on its four feet (points), the humanoid on its two soles (rigid).
// ---------------------------------------------------------------------------------------------

struct ContactCase {
  const char *name, *file;
  std::vector<std::pair<const char *, int>> frames;
};

std::vector<ContactCase> contact_cases() {
  return {{"quadruped_feet_points",
           "quadruped.urdf",
           {{"FL_foot", 3}, {"FR_foot", 3}, {"HL_foot", 3}, {"HR_foot", 3}}},
          {"humanoid_soles_rigid", "humanoid.urdf", {{"L_sole", 6}, {"R_sole", 6}}}};
}

/// The contacts at state x, with references a little away from the frames' poses, in the
/// twin's form and in geolin's (frames, types, refs arrays kept in `keep`).
struct BothContacts {
  twin::Contacts dense;
  std::vector<int> frames, types;
  std::vector<double> refs;
  Contacts fast() const {
    Contacts c;
    c.count = static_cast<int>(frames.size());
    c.frames = frames.data();
    c.types = types.data();
    c.flags = dense.mixed ? kWrenchMixed : kWrenchLocal;
    c.Kp = dense.Kp;
    c.Kd = dense.Kd;
    c.refs = refs.data();
    return c;
  }
};

BothContacts make_both(const Model &m, const State &x, const ContactCase &cc, bool mixed, double Kp,
                       double Kd) {
  BothContacts b;
  b.dense.mixed = mixed;
  b.dense.Kp = Kp;
  b.dense.Kd = Kd;
  const twin::DenseModel d = dense(m, x);
  for (const auto &[name, rows] : cc.frames) {
    const int f = m.frame_index(name);
    EXPECT_GE(f, 0) << name;
    Transform ref = d.frame_world_pose(f);
    ref.o += Vec3(0.01, -0.02, 0.015);
    ref.R = ref.R * rot_x(0.05) * rot_z(-0.03);
    b.dense.list.push_back({f, rows, ref});
    b.frames.push_back(f);
    b.types.push_back(rows);
    const Mat4 Hm = ref.matrix();
    for (int k = 0; k < 16; ++k) b.refs.push_back(Hm(k % 4, k / 4));
  }
  return b;
}

template <class Check>
void for_each_contact_setting(Check check) {
  for (const ContactCase &cc : contact_cases()) {
    const Model m = load_urdf_file(model_path(cc.file));
    Workspace ws(m);
    ws.gravity = kGravity;
    for (const State &x : twin_states(m, 11u)) {
      for (bool mixed : {false, true}) {
        for (const auto &[Kp, Kd] : {std::pair{0.0, 0.0}, std::pair{40.0, 9.0}}) {
          SCOPED_TRACE(std::string(cc.name) + (mixed ? " mixed" : " local") + " Kp " +
                       std::to_string(Kp));
          check(m, ws, x, make_both(m, x, cc, mixed, Kp, Kd));
        }
      }
    }
  }
}

TEST(TwinContacts, ContactDynamicsMatchesTheDenseTwin) {
  for_each_contact_setting(
      [](const Model &m, Workspace &ws, const State &x, const BothContacts &c) {
        VecX nu_dot(m.num_dofs()), lambda(c.dense.rows());
        ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c.fast(), nu_dot, lambda));
        const twin::ContactSolution sol = dense(m, x).contact_dynamics(x.tau, c.dense);
        expect_twin("contact_dynamics nu_dot", nu_dot, sol.nu_dot);
        expect_twin("contact_dynamics lambda", lambda, sol.lambda);
      });
}

TEST(TwinContacts, ContactLinearizeMatchesTheDenseTwin) {
  for_each_contact_setting(
      [](const Model &m, Workspace &ws, const State &x, const BothContacts &c) {
        const int N = m.state_dim(), nj = m.n_B, rows = c.dense.rows();
        MatX A(N, N), B(N, nj), dlz(rows, N), dlw(rows, nj);
        ASSERT_TRUE(contact_linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, c.fast(), A, B, dlz, dlw));
        const twin::ContactLinearization L = dense(m, x).contact_linearize(x.tau, c.dense);
        expect_twin("contact_linearize A", A, L.A);
        expect_twin("contact_linearize B", B, L.B);
        expect_twin("contact_linearize dlambda_dz", dlz, L.dlambda_dz);
        expect_twin("contact_linearize dlambda_dw", dlw, L.dlambda_dw);
      });
}

// ---------------------------------------------------------------------------------------------
// The twin checked on its own: its derivatives against its own geometric finite differences
// (docs/dynamics.md §5), and the gravity block against the closed form of docs/dynamics.md §4.
// ---------------------------------------------------------------------------------------------

/// x exp(ε e_k) as a twin state (docs/dynamics.md §5, step 1).
twin::DenseModel twin_at_perturbed(const Model &m, const State &x, int k, double eps) {
  VecX u = VecX::Zero(m.state_dim());
  u[k] = eps;
  const twin::GroupState y = twin::retract(m, group_state(x), u);
  return twin::DenseModel(m, kGravity, y.H, y.s, twin::nu_of(m, y));
}

/// Central differences of `f` (ν̇, or [ν̇; λ]) along the group; A's −v× block added (§5 step 2).
template <class Eval>
MatX central_differences(const Model &m, const State &x, Eval f) {
  const int N = m.state_dim();
  MatX D;
  for (int k = 0; k < N; ++k) {
    const VecX d =
        (f(twin_at_perturbed(m, x, k, kFdEps)) - f(twin_at_perturbed(m, x, k, -kFdEps))) /
        (2 * kFdEps);
    if (k == 0) D.resize(d.size(), N);
    D.col(k) = d;
  }
  return D;
}

TEST(TwinSelfCheck, LinearizationMatchesItsOwnFiniteDifferences) {
  for (const char *file : {"humanoid.urdf", "arm7.urdf"}) {
    for (unsigned flags : {0u, unsigned(kFixedBase)}) {
      const Model m = load_urdf_file(model_path(file), flags);
      const State x = twin_states(m, 12u)[2];  // pitched +90°
      twin::Wrenches W;
      W.mixed = true;
      W.frames = {static_cast<int>(m.frames.size()) - 1};
      W.values = {Vec6(3, -2, 1, 0.5, 0.2, -0.4)};
      const twin::Linearization L = dense(m, x).linearize(x.tau, W);
      const int n = m.num_dofs();
      const MatX F = central_differences(
          m, x, [&](const twin::DenseModel &d) { return VecX(d.forward_dynamics(x.tau, W)); });
      EXPECT_LT(rel_err(L.A.bottomRows(n), F), 1e-6) << file << " " << flags;
    }
  }
}

TEST(TwinSelfCheck, ContactLinearizationMatchesItsOwnFiniteDifferences) {
  for (const ContactCase &cc : contact_cases()) {
    const Model m = load_urdf_file(model_path(cc.file));
    const State x = twin_states(m, 13u)[3];  // pitched −90°
    for (bool mixed : {false, true}) {
      const twin::Contacts C = make_both(m, x, cc, mixed, 40.0, 9.0).dense;
      const twin::ContactLinearization L = dense(m, x).contact_linearize(x.tau, C);
      const int n = m.num_dofs();
      const MatX D = central_differences(m, x, [&](const twin::DenseModel &d) {
        const twin::ContactSolution s = d.contact_dynamics(x.tau, C);
        VecX out(n + s.lambda.size());
        out << s.nu_dot, s.lambda;
        return out;
      });
      EXPECT_LT(rel_err(L.A.bottomRows(n), D.topRows(n)), 1e-6) << cc.name << mixed;
      EXPECT_LT(rel_err(L.dlambda_dz, D.bottomRows(C.rows())), 1e-6) << cc.name << mixed;
    }
  }
}

TEST(TwinSelfCheck, GravityBlockIsTheClosedFormOfTheDocs) {
  const Model m = load_urdf_file(model_path("quadruped.urdf"));
  for (const State &x : twin_states(m, 14u)) {
    const twin::Linearization L = dense(m, x).linearize(x.tau);
    MatX F_H = MatX::Zero(m.num_dofs(), 6);  // docs/dynamics.md §4: [[0, (Rᵀg)^], [0, 0]]
    F_H.block<3, 3>(0, 3) = twin::skew(x.H.R.transpose() * kGravity);
    EXPECT_LT(rel_err(L.A.block(m.num_dofs(), 0, m.num_dofs(), 6), F_H), 1e-12);
  }
}

}  // namespace
}  // namespace geolin::test
