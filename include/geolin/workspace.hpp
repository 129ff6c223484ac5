// The per-thread workspace (as Pinocchio's Data, MuJoCo's mjData): every buffer an algorithm
// needs, sized once from the model. Algorithms never allocate. Gravity lives here.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "geolin/model.hpp"
#include "geolin/spatial.hpp"

namespace geolin {

using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

/// Where the generalized forces of a block of right-hand-side columns can be non-zero, so that
/// articulated_solve skips the columns that are zero on a branch.
struct RhsBlock {
  enum Kind {
    kDense,     // any row
    kPerJoint,  // `width` columns per joint j, at begin + width (j − 1): rows of the base,
                // of j's ancestors and of j's subtree (count = width · n_B)
    kAtBody,    // the base rows and those of the joints on the path to `body`
  };
  Kind kind;
  int begin, count;
  int width = 1;  // kPerJoint
  int body = 0;   // kAtBody
};

/// Scratch doubles starting on a 64-byte boundary (a cache line, one AVX-512 vector): the solver's
/// column loops load and store whole vectors, and a vector straddling two lines costs two
/// accesses. Contents are scratch: a copy keeps the size, not the values.
class LineAlignedBuffer {
 public:
  LineAlignedBuffer() = default;
  LineAlignedBuffer(const LineAlignedBuffer &other) { assign(other.size()); }
  LineAlignedBuffer &operator=(const LineAlignedBuffer &other) {
    if (this != &other) assign(other.size());
    return *this;
  }
  LineAlignedBuffer(LineAlignedBuffer &&) = default;
  LineAlignedBuffer &operator=(LineAlignedBuffer &&) = default;

  void assign(std::size_t n) { store_.assign(n + kPad, 0.0); }
  std::size_t size() const { return store_.empty() ? 0 : store_.size() - kPad; }
  double *data() { return aligned(store_.data()); }
  const double *data() const { return aligned(const_cast<double *>(store_.data())); }

 private:
  static constexpr std::size_t kPad = 7;  // malloc gives 16-byte alignment at least
  static double *aligned(double *p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return reinterpret_cast<double *>((a + 63) & ~std::uintptr_t{63});
  }
  std::vector<double> store_;
};

/// Columns [lo, hi) of the solver's panels.
struct ColumnRange {
  int lo, hi;
};

/// What a workspace is sized for (the values of GEOLIN_WORKSPACE_*). Forward and inverse
/// dynamics, frames, external wrenches in forward dynamics and geolin_step need only O(n_B)
/// memory and are always available; each feature adds the buffers of its functions.
enum WorkspaceFeatures : unsigned {
  kWorkspaceDynamics = 0u,          // the O(n_B) core, always present
  kWorkspaceMassMatrix = 1u,        // crba, mass_matrix_inverse: n x n
  kWorkspaceLinearize = 2u,         // linearize (with up to max_wrenches wrenches): ~3 n² doubles
  kWorkspaceFiniteDifference = 4u,  // linearize_finite_difference (C API staging): N x N
  kWorkspaceStepLinearize = 8u,     // step_linearize: ~5 N² doubles (implies kWorkspaceLinearize)
  kWorkspaceContacts = 16u,         // contact_dynamics (with up to max_wrenches contacts)
  kWorkspaceAll = 31u,
};

/// The sizes a workspace allocates for a model, features and a wrench/contact capacity
/// (workspace.cpp); also what workspace_bytes() adds up.
struct WorkspaceDims {
  unsigned features = kWorkspaceAll;
  int max_wrenches = 0;         // external wrenches of linearize and contacts of contact_* per call
  int max_rows = 0;             // contact constraint rows: min(6 max_wrenches, n)
  int max_contacts = 0;         // contacts of contact_*: min(max_wrenches, n / 3) (3 rows each)
  int rhs_cols = 0;             // columns of the solver's right-hand sides (a multiple of 8)
  int contact_cols = 0;         // columns of the contact buffers: a contact linearization's
  int panel_slots = 0;          // 6-row blocks of the solver's panels
  int rhs_blocks = 0;           // block layouts of the right-hand sides
  std::size_t plan_ranges = 0;  // column ranges reserved per solver plan
};

/// The dimensions of a workspace for `model` with `features` (WorkspaceFeatures bits) and up to
/// `max_wrenches` wrenches or contacts per call (-1: one per frame).
WorkspaceDims workspace_dims(const Model &model, unsigned features, int max_wrenches);

/// The heap memory, in bytes, of a Workspace with these dimensions (to within a few kilobytes);
/// saturates at SIZE_MAX instead of overflowing.
std::size_t workspace_bytes(const Model &model, const WorkspaceDims &dims);

struct Workspace {
  /// Sized for `features` and `max_wrenches` (see workspace_dims); the default serves every
  /// algorithm with up to one wrench per frame. Throws std::bad_alloc when memory runs out.
  explicit Workspace(const Model &model, unsigned features = kWorkspaceAll, int max_wrenches = -1);

  WorkspaceDims dims;  // what this workspace was sized for
  bool has(unsigned feature) const { return (dims.features & feature) == feature; }

  Vec3 gravity = Vec3(0.0, 0.0, -9.81);  // g in the inertial frame A

  // Kinematics in base-frame coordinates (all recursions below run in frame 0: M and C depend
  // on s only, H enters through gravity alone; docs/dynamics.md §3). Size n_B + 1.
  // H0 and S0 after forward_poses_in_axes (centre of mass, A_G and dh_dz): the same in the
  // inertial axes about frame 0's origin, (R, 0) ^0 H_i and R S_i.
  std::vector<Transform> H0;                 // ^0 H_i
  std::vector<Vec6> S0;                      // S_i expressed in frame 0
  std::vector<double> joint_cos, joint_sin;  // cos s_i, sin s_i, written with the poses H0[i]
  std::vector<Mat6> I0;                      // M_i expressed in frame 0

  // Recursion buffers (frame 0), size n_B + 1; the symbols of docs/dynamics.md (D5)-(D13).
  std::vector<Vec6> v;         // body twists v_i (RNEA, ABA, RNEA derivatives)
  std::vector<Vec6> a;         // body accelerations a_i, gravity included (RNEA, ABA)
  std::vector<Vec6> f;         // body forces f_i = M_i a_i + v_i ×* M_i v_i (RNEA)
  std::vector<Vec6> F;         // subtree sums F_i of f_i − f^x_i (RNEA, RNEA derivatives)
  std::vector<Vec6> Psi_dot;   // Ψ̇_i = v_λ(i) × S_i (ABA, RNEA derivatives)
  std::vector<Vec6> Psi_ddot;  // Ψ̈_i = a_λ(i) × S_i + v_λ(i) × Ψ̇_i (RNEA derivatives)
  std::vector<Vec6> c;         // velocity-product accelerations c_i = Ψ̇_i r_i (ABA)
  std::vector<Vec6> p;         // articulated bias forces p_i (ABA)
  std::vector<Vec6> U;         // U_i = I^A_i S_i (ABA, the solver)
  std::vector<Vec6> h;         // momenta h_i = M_i v_i (ABA, RNEA derivatives)
  std::vector<Mat6> IC;        // composite inertias I^C_i (CRBA, RNEA derivatives: I^C_0 only)
  // Composite inertias in 10 numbers (CRBA, RNEA derivatives): mass m, first moment h = m p_c and
  // rotational inertia Ī about the frame-0 origin, I^C_i = [[m 1, −h^], [h^, Ī]].
  struct CompactInertia {
    double m = 0.0;
    Vec3 h = Vec3::Zero();
    Mat3 I = Mat3::Zero();
  };
  std::vector<CompactInertia> IC_compact;
  std::vector<Eigen::Matrix<double, 6, 3>> BC;  // composite B_i, right half (its left is 0)
  std::vector<Mat6> IA;                         // articulated inertias I^A_i (ABA, M^-1)
  // The costs' kinematics (center_of_mass.cpp, centroidal_momentum.cpp, frame_derivatives.cpp).
  std::vector<int> path;      // the bodies from the base to a frame's body, root first
  std::vector<double> m_sub;  // subtree masses m^C_i = Σ_{k in subtree(i)} m_k
  std::vector<Vec3> mc_sub;   // subtree first moments Σ m_k c_k (frame 0; c_k body k's COM)
  std::vector<Vec6> h_sub;    // subtree momenta h^C_i = Σ_{k in subtree(i)} M_k v_k (frame 0)
  Eigen::LLT<Mat6> IA0_llt;   // Cholesky factor of I^A_0 (moving base), by aba_pass
  Mat6 IA0_inv;               // (I^A_0)⁻¹ from it, formed by the first solve that needs it
  bool IA0_inv_valid = false;
  std::vector<Vec6> SI_row;      // S_iᵀ I^C_i (transposed)
  std::vector<Vec3> SB_row;      // S_iᵀ B^C_i, its last 3 entries (the first are 0)
  std::vector<double> D, D_inv;  // D_i = S_iᵀ I^A_i S_i and its inverse (ABA, the solver)
  std::vector<double> u;         // u_i = τ_i − S_iᵀ p_i (ABA)

  // The storage of the external wrenches of one evaluation (frames.cpp,
  // load_external_wrenches, which hands the passes views of it), frame 0, per body.
  std::vector<Vec6> f_ext;
  std::vector<Eigen::Matrix<double, 6, 3>> E_ext;  // Mixed: ∂φ/∂ω
  // Mixed wrenches' terms of the RNEA derivatives (rnea_derivatives_pass, read by linearize_solve).
  std::vector<Eigen::Matrix<double, 6, 3>> EC_ext;  // subtree sums of E
  std::vector<Vec3> SE_row;                         // S_iᵀ EC_i

  // M⁻¹ applied to many right-hand sides at once (articulated_solve.cpp): row-major
  // panels, 6 rows per body slot, one column per right-hand side.
  using RowMajorMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  LineAlignedBuffer rhs;             // n x max_rhs: right-hand sides, overwritten by the solution
  LineAlignedBuffer P_panel;         // 6 rows per slot x max_rhs: articulated bias forces
  LineAlignedBuffer A_panel;         // 6 rows per slot x max_rhs: accelerations
  std::vector<char> touched;         // P_panel block of a body initialized in this pass
  std::vector<int> limb_root;        // first joint on the path from the base to body i
  std::vector<int> panel_slot;       // 6-row block of P_panel and A_panel used by body i
  std::vector<RhsBlock> rhs_blocks;  // sparsity of the right-hand sides, per block
  // The column ranges of each body for the last two block layouts solved (articulated_solve.cpp:
  // linearize's, and mass_matrix_inverse's when a caller alternates them).
  struct SolvePlan {
    std::vector<RhsBlock> blocks;
    int cols = -1;
    std::vector<ColumnRange> ranges;
    std::vector<int> offsets;  // 3 per body and 1: backward, fill, forward ranges
    std::vector<char> link;    // body and its only child solved as one step (bit flags)
  };
  SolvePlan plans[2];
  int last_plan = 0;
  int max_rhs = 0;
  /// The panel `rhs` lent whole (n x max_rhs doubles) to a caller that runs no solve while it
  /// uses it: the C API stages inverse_dynamics_linearize's n x N dtau_dz there beyond the term
  /// bound (N <= max_rhs with kWorkspaceLinearize). Any solve overwrites it.
  double *scratch_panel() { return rhs.data(); }

  // Vectors of the finite differences and of the steps (O(n)).
  VecX nu_dot;                     // n
  VecX s_pert, r_pert, tau_pert;   // n_J
  VecX lambda_plus, lambda_minus;  // N
  MatX stage_k;                    // N x 4: RK stage increments (step.cpp)
  VecX rk4_theta;         // N: RKMK4's θᵢ = cᵢ k̃ᵢ₋₁, where stage i is evaluated
  VecX rk4_Theta;         // N: RKMK4's Θ = Σ bᵢ k̃ᵢ, x⁺ = x exp(Θ)
  VecX stage_s, stage_r;  // n_J, n_J: s and r of x exp(θᵢ)
  VecX step_tau;  // n_J: a stage's τ + kp∘(s_ref − s) + kd∘(r_ref − r) (step.cpp, (D57))
  // The model of StepMethod::ImplicitEuler (step.cpp, (D56)): each such call assigns it the
  // caller's model (no allocation when the model is the one the workspace was made for) with
  // armature + h d. A copy of the workspace's model until then.
  Model step_model;

  // kWorkspaceStepLinearize (step.cpp).
  MatX A_stage, B_stage;                          // N x N, N x n_J: A, B at a stage
  Eigen::Matrix<double, 6, Eigen::Dynamic> tmp6;  // 6 x (N + n_J)
  MatX D_k, D_theta, D_Theta, Z;                  // N x (N + n_J): derivatives w.r.t. (z, w)

  // kWorkspaceContacts (contact_dynamics.cpp, contact_linearize.cpp): up to max_rows constraint
  // rows; row-major buffers with rows of stride contact_cols (or solve_stride(max_rows)).
  struct ContactFrame {
    int frame = -1, body = 0, rows = 0, row0 = 0;  // rows: 3 (point) or 6 (rigid)
    Transform H0F;                                 // ^0 H_F
    Mat3 R_F;                                      // world rotation of F (^A R_F)
    Vec6 vF;                                       // ^F v_F, the body twist of F
    Vec6 aF;                                       // ^F a_F, its derivative at the solution
    Mat6 Jr_inv;  // J_r⁻¹(log(H_ref⁻¹ H_F)) (rigid, Kp ≠ 0)
    // The constraint rows (the first `rows`, in λ's axes) as a linear map of the frame-0
    // acceleration of the body: J_c = G_a J_b (contact_dynamics.cpp, contact_linearize.cpp).
    Mat6 Ga;
  };
  std::vector<ContactFrame> contacts;  // max_contacts
  std::vector<int> contact_frames;     // max_contacts: the frames, as external wrenches
  VecX contact_wrenches;               // 6 max_contacts: λ as external wrenches
  LineAlignedBuffer contact_G;         // max_rows x 6: scratch for the base rows' products
  LineAlignedBuffer contact_Y;         // n x max_rows: the innovations of J_cᵀ
  LineAlignedBuffer contact_L;         // max_rows x max_rows: Λ⁻¹ and its Cholesky factor
  LineAlignedBuffer contact_K;         // max_rows x contact_cols: ∂c/∂z − J_c X, then Λ K
  LineAlignedBuffer contact_W;         // 6 x max_rows: I^A_0 times the base rows of contact_Y
  VecX contact_gamma, contact_lambda;  // max_rows: −c(ν̇_free), then λ
  VecX contact_dinv;                   // max_rows: 1 / L_kk of Λ⁻¹'s Cholesky factor
  // M⁻¹ J_cᵀ λ by ABA's third pass (contact_dynamics.cpp), n_B + 1 each:
  std::vector<double> contact_x;  // its innovations x_i = Σ_p X_ip λ_p (joint rows)
  std::vector<Vec6> contact_a;    // its accelerations a_i
  // contact_linearize_finite_difference (linearize_fd.cpp): λ at x exp(±ε e_k), max_rows each.
  VecX fd_contact_lambda_plus, fd_contact_lambda_minus;
  // impulse.cpp: the body twists of ν⁻ (impulse_solve) and of u = ν⁺ + e ν⁻ (its C_z), n_B + 1,
  // and n_J zeros: the joint rates of its pass at rest (ID₀ has no velocity products).
  std::vector<Vec6> impulse_twists;
  VecX impulse_rest_rates;
  // contact_step_linearize (step.cpp), with kWorkspaceStepLinearize: a stage's ∂λ/∂z
  // (max_rows x N) and ∂λ/∂w (max_rows x n_J); the step's Dλ is summed into the caller's outputs.
  MatX step_dlambda_dz, step_dlambda_dw;

  // kWorkspaceContacts: the solve of a constraint set with loops, couplings or wheels
  // (src/constraints/, docs/constraints.md §3). One frame's world motion at (x, ν, ν̇):
  struct FrameMotion {
    Transform HF;     // ^A H_F
    Vec6 vel, acc;    // [ṗ; ω], [p̈; ω̇] in world axes
    MatX dvel, dacc;  // 6 x N: their derivatives in z (acc at fixed ν̇); kWorkspaceLinearize
    MatX J;           // 6 x n: ∂vel/∂ν = ∂acc/∂ν̇, and [δp; δθ] = J z_pose
    int body = 0;     // the frame's body b (the sparse solve's terms)
    Mat6 G0;          // [ṗ; ω] per frame-0 twist of b: J = G0 J_b (the sparse solve's terms)
  };
  FrameMotion cs_frame[2];  // frames a and b of the constraint at hand
  // J_c as a sum of terms (constraint_factor.cpp, docs/constraints.md §3): rows [row0, row0 +
  // rows) of J_c get G J_b, G's first `rows` rows times the Jacobian of body b's frame-0 twist
  // (a frame term), or coef on the column of joint body b (a joint term, rows = 1). Two per
  // constraint at most (2 max_rows).
  // With the linearization, a frame term also carries its rows' derivative (K17): c changes by
  // G δa_b + Gv δv_b + Gx ξ_b when body b's frame-0 acceleration changes by δa_b, its twist by
  // δv_b and the body is displaced by ξ_b (frame 0), first `rows` rows each.
  struct ConstraintTerm {
    int row0 = 0, rows = 0, body = 0;
    bool joint = false;
    double coef = 0.0;
    Mat6 G = Mat6::Zero(), Gv = Mat6::Zero(), Gx = Mat6::Zero();
  };
  std::vector<ConstraintTerm> cs_terms;
  int cs_term_count = 0;
  // The linearization's turning of λ's wrenches (K18): wrench `wrench`'s world value changes by
  // T ξ_b when body b is displaced by ξ_b (frame 0) at fixed λ; at most two per wrench slot and
  // two more per hinge (4 max_wrenches; kWorkspaceLinearize).
  struct ConstraintTurn {
    int wrench = 0, body = 0;
    Mat6 T = Mat6::Zero();
  };
  std::vector<ConstraintTurn> cs_turns;
  int cs_turn_count = 0;
  MatX cs_J;  // max_rows x n: J_c = ∂c/∂ν̇
  VecX cs_c;  // max_rows: c at the ν̇ of the pass
  MatX cs_Y;  // n x max_rows: M⁻¹ J_cᵀ
  // The factor of Λ⁻¹ + mu 1 is contact_L's and contact_dinv's (stride solve_stride(m)).
  VecX cs_nu, cs_nu2, cs_tau;  // n: ν̇_free (or ν⁻), ν̇ (or Δν), ν⁺
  VecX cs_lambda;              // max_rows: λ
  MatX cs_Dc;                  // max_rows x N: ∂c/∂z (kWorkspaceLinearize)
  // λ as linearize's external wrenches (at most max_wrenches and 2 (n / 3): a loop takes two
  // per three rows): frames, [f; τ] world values, and their change along z at fixed λ (6 rows
  // each, N columns; kWorkspaceLinearize).
  int cs_wrench_count = 0;
  std::vector<int> cs_wrench_frames;
  VecX cs_wrenches, cs_tau_ext;  // 6 max_wrenches; n_J: τ plus the couplings' forces
  MatX cs_Dw;
  MatX cs_A, cs_B;  // N x N, N x (n_J + 6 max_wrenches): linearize's at fixed λ
  MatX cs_X;        // n x N: ∂ν̇/∂z at fixed λ (kWorkspaceLinearize)
  MatX cs_K;        // max_rows x (N + n_J): an impact's E ∂(J_c ν⁻)/∂q (kWorkspaceLinearize)
  MatX cs_Bu;       // n x n_J: M⁻¹ S (kWorkspaceLinearize)
};

}  // namespace geolin
