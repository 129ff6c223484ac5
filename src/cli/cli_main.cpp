// geolin: the command-line tool. Dispatches to one function per subcommand and turns errors into
// messages on stderr and exit codes (0 ok, 1 failure, 2 usage).
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "model_load.hpp"

#ifndef GEOLIN_CLI_VERSION
#define GEOLIN_CLI_VERSION "unknown"
#endif

namespace {

using geolin::cli::UsageError;

struct Command {
  const char *name;
  int (*run)(const std::vector<std::string> &);
  const char *summary;
  const char *usage;
};

// The help of the contact options, shared by dynamics and linearize.
#define CONTACT_OPTIONS_HELP                                                                     \
  "  --contacts FRAME,FRAME,...\n"                                                               \
  "                  contact constraints: hold these frames (URDF links; one may repeat) and\n"  \
  "                  solve for the contact forces lambda on the robot at the frame origins\n"    \
  "                  (geolin::contact_dynamics); a frame the model lacks is an error (exit 1)\n" \
  "                  naming it and the closest frames; redundant contacts (e.g. two rigid\n"     \
  "                  contacts on one body) are GEOLIN_ERR_NUMERIC naming the contact (exit 1)\n" \
  "  --contact-type point|rigid[,...]\n"                                                         \
  "                  point (default): the frame origin is held, 3 rows fx fy fz; rigid: the\n"   \
  "                  whole frame, 6 rows fx fy fz tx ty tz; one type, or one per contact\n"      \
  "  --gains KP,KD   Baumgarte gains (default 0,0): p_ddot = -KD p_dot - KP (p - p_ref); the\n"  \
  "                  references are the frames' poses at this state, so the constraint error\n"  \
  "                  is zero and KP acts only through the derivatives, KD through p_dot\n"       \
  "  --regularization MU\n"                                                                      \
  "                  solve redundant contacts softly: (J_c M^-1 J_c^T + MU 1) lambda = -c,\n"    \
  "                  error -MU lambda (docs/contacts.md section 4); default 0: refused\n"        \
  "  --mixed         lambda (or the wrenches) in axes aligned with the inertial frame, at the\n" \
  "                  frame origin (default LOCAL: the frame's own axes)\n"

// The help of the other constraints (docs/constraints.md), shared by dynamics, linearize, check,
// simulate and bench.
#define CONSTRAINT_OPTIONS_HELP                                                                   \
  "  --loops A:B[:point|hinge|rigid],...\n"                                                       \
  "                  loop closures between frames A and B of the robot (point, the default:\n"    \
  "                  their origins meet, 3 rows; hinge: and their z axes stay parallel, 5;\n"     \
  "                  rigid: the frames coincide, 6); lambda: the force (torque) of B's body on\n" \
  "                  A's body at A's origin\n"                                                    \
  "  --couplings mimic|J=RATIO*S+OFFSET,...\n"                                                    \
  "                  joint couplings s[J] = RATIO s[S] + OFFSET (joint names; RATIO* and\n"       \
  "                  +OFFSET optional); mimic: every URDF <mimic> of the model\n"                 \
  "  --wheels FRAME:RADIUS[:AXIS],...\n"                                                          \
  "                  wheels rolling without slipping on the ground z = 0: the frame's origin\n"   \
  "                  is the wheel centre, AXIS its spin axis in the frame's axes: x, y (the\n"    \
  "                  default), z, -x, -y, -z or AX/AY/AZ; lambda: the ground's force, world\n"    \
  "                  axes. Two wheels on one axle are redundant: --regularization 1e-12\n"        \
  "                  With any of these the set (with --contacts, --gains, --regularization,\n"    \
  "                  --mixed) is evaluated by geolin::constrained_dynamics and its kin\n"

const Command kCommands[] = {
    {"info", geolin::cli::cmd_info, "print the tree, joints, masses and frames of a model",
     "usage: geolin info [URDF|-] [--fixed-base] [--joint-damping] [--armature A] [--dot]\n"
     "                   [--format text|json]\n"
     "\n"
     "Prints the bodies (index, name, parent λ(i), children μ(i), joint, type, mass, armature),\n"
     "the totals (n_B, n_J, n, N, total mass) and the frames (every URDF link: body and\n"
     "offset).\n"
     "  --dot          print the tree as a Graphviz graph instead (geolin info --dot | dot "
     "-Tsvg)\n"},
    {"dynamics", geolin::cli::cmd_dynamics, "forward dynamics nu_dot (ABA), optionally M and M^-1",
     "usage: geolin dynamics [URDF|-] [--state FILE | --random SEED] [--fixed-base]\n"
     "                       [--contacts FRAME,... [--contact-type point|rigid[,...]]\n"
     "                        [--gains KP,KD] [--regularization MU] | --wrenches FRAME,...] "
     "[--mixed]\n"
     "                       [--format text|json|csv] [--mass-matrix] [--com] [--centroidal]\n"
     "                       [--only NAMES]\n"
     "\n"
     "Prints nu_dot = FD(H, s, v, r, tau) (base twist derivative, then joint accelerations).\n"
     "With --contacts, nu_dot of the contact-constrained dynamics and lambda, the contact force\n"
     "(point: fx fy fz) or wrench (rigid: fx fy fz tx ty tz) per contact, labelled by frame and\n"
     "axes, with their sum in world axes against the weight (json: \"lambda\", \"contacts\").\n"
     "  --state FILE    the state as a JSON file (docs/state-file.md)\n"
     "  --random SEED   a reproducible random state\n"
     "                  default: base at z = 1 m pitched 90 deg, s_k = 0.5 sin(k+1),\n"
     "                  v = [0.3 0 0 0 0.5 0.2], r_k = 0.4 cos(k+1), tau_k = 2 "
     "sin(2k+1)\n" CONTACT_OPTIONS_HELP CONSTRAINT_OPTIONS_HELP "  --wrenches FRAME,FRAME,...\n"
     "                  given external wrenches [fx fy fz tx ty tz] at these frames, taken from\n"
     "                  the state file's \"wrenches\" (zero for frames it omits); not with\n"
     "                  --contacts\n"
     "  --mass-matrix   also print M(s) (CRBA) and M(s)^-1 (direct recursion)\n"
     "  --com           also print the centre of mass, its velocity and J_com\n"
     "  --centroidal    also print the centroidal momentum h_G (about the centre of mass,\n"
     "                  inertial axes, linear first) and A_G (h_G = A_G nu)\n"
     "  --only NAMES    comma-separated subset of nu_dot, lambda, M, Minv, com, com_velocity,\n"
     "                  J_com, h_G, A_G\n"},
    {"linearize", geolin::cli::cmd_linearize,
     "the exact left-trivialized linearization z_dot = A z + B tau",
     "usage: geolin linearize [URDF|-] [--state FILE | --random SEED] [--fixed-base]\n"
     "                        [--contacts FRAME,... [--contact-type point|rigid[,...]]\n"
     "                         [--gains KP,KD] [--regularization MU] | --wrenches FRAME,...] "
     "[--mixed]\n"
     "                        [--format text|json|csv] [--fd EPS] [--full] [--only NAMES]\n"
     "                        [--frame F [--mixed]]\n"
     "\n"
     "Prints A (N x N) and B (N x n_J) of z_dot = A z + B w at the state, with\n"
     "z = [z_H; z_s; z_v; z_r] acting on the right (H exp(z_H^), s + z_s, v + z_v, r + z_r).\n"
     "Text output is a summary (block norms, the gravity block F_H); --full prints A and B in\n"
     "full. json and csv always carry the full matrices.\n"
     "With --contacts, A and B of the contact-constrained dynamics (geolin::contact_linearize,\n"
     "the same z and w = tau) and the derivatives of the contact forces: dlambda_dz (m x N) and\n"
     "dlambda_dw (m x n_J), m = 3 per point and 6 per rigid contact; text: their norms, the\n"
     "largest entry per contact and block, the largest entries; --only A,B,dlambda_dz,dlambda_dw.\n"
     "  --state FILE    the state as a JSON file (docs/state-file.md)\n"
     "  --random SEED   a reproducible random state\n" CONTACT_OPTIONS_HELP CONSTRAINT_OPTIONS_HELP
     "  --wrenches FRAME,FRAME,...\n"
     "                  given external wrenches [fx fy fz tx ty tz] at these frames, taken from\n"
     "                  the state file's \"wrenches\" (zero for frames it omits); not with\n"
     "                  --contacts; they become inputs too: B gets 6 columns\n"
     "                  f[frame][fx..tz] per frame after tau[joint], and they enter A\n"
     "  --fd EPS        geometric central finite differences with step EPS instead (a check)\n"
     "  --frame F       also print frame F's velocity and classical acceleration (at the\n"
     "                  state's nu_dot) and their derivatives dtwist_dz, dacc_dz (6 x N) and\n"
     "                  dacc_dnudot (6 x n); LOCAL (frame) axes, or inertial with --mixed\n"},
    {"check", geolin::cli::cmd_check,
     "compare the analytical linearization with finite differences",
     "usage: geolin check [URDF|-] [--samples K] [--fixed-base] [--tol T] [--eps EPS]\n"
     "                    [--fd richardson|central] [--seed SEED] [--format text|json]\n"
     "                    [--contacts FRAME,... [--contact-type point|rigid[,...]]\n"
     "                     [--gains KP,KD] [--regularization MU] [--mixed]]\n"
     "                    [--step H [--method euler|rk4|implicit] |\n"
     "                     --impulse [--restitution E]]\n"
     "       geolin check [URDF|-] --costs [--samples K] [--tol T] [--eps EPS] [--fd ...]\n"
     "\n"
     "Compares the analytical A, B with geometric finite differences over exactly K states\n"
     "(default 20): pitch +90 deg, pitch -90 deg, large velocities (|v| = 10, r in [-10, 10]),\n"
     "then random states (the first K of that list). Per block X, the relative error is\n"
     "    max|X_an - X_fd| / max(1, max|X_an|)\n"
     "Prints cond(M) of the mass matrix at each state. The tolerance at a state is T (default\n"
     "1e-5), or 10 u cond(M) if larger (u = 2^-53; at most max(T, 1e-3)): A and the finite\n"
     "differences both go through M^-1, known to about u cond(M) only. Exit status 1 if an error\n"
     "exceeds its tolerance.\n"
     "  --fd richardson (default) Richardson extrapolation (4 D(eps/2) - D(eps)) / 3 of central\n"
     "                  differences D: truncation O(eps^4), so a larger step, less round-off\n"
     "  --fd central    plain central differences D(eps): truncation O(eps^2)\n"
     "  --eps EPS       finite-difference step (default 2e-4 for richardson, 1e-5 for central)\n"
     "  --seed SEED     seed of the first random state (default 1)\n"
     "  --contacts FRAME,...  check the contact-constrained linearization instead\n"
     "                  (contact_linearize against contact_linearize_finite_difference): A, B,\n"
     "                  dlambda/dz and dlambda/dw, with the same tolerances; the references\n"
     "                  are the frames' poses at each state; --contact-type, --gains, --mixed\n"
     "                  as for dynamics. Redundant contacts at a state: GEOLIN_ERR_NUMERIC\n"
     "  --loops, --couplings, --wheels  (as for dynamics) check constrained_linearize against\n"
     "                  central differences of constrained_dynamics (with --step: of\n"
     "                  constrained_step; --impulse: of constrained_impulse)\n"
     "  --step H        check the discrete step with the contacts held instead\n"
     "                  (contact_step_linearize: A_d, B_d, dlambda/dz, dlambda/dw against\n"
     "                  central differences of contact_step through x exp(z)); --method euler\n"
     "                  (semi-implicit, the default), rk4 or implicit (the joint damping\n"
     "                  implicit)\n"
     "  --impulse       check the impact map at touchdown instead (impulse_linearize: A_imp,\n"
     "                  dimpulse/dz against central differences of impulse); --restitution E\n"
     "                  in [0, 1] (default 0: the contacts stop)\n"
     "  --costs         check the derivatives of the cost-side functions instead (at the same\n"
     "                  states, tolerance T): inverse_dynamics_linearize's dtau/dz per block\n"
     "                  of z, at a random nu_dot, and M = dtau/dnu_dot; center_of_mass,\n"
     "                  centroidal_momentum, frame_pose_error, frame_velocity and\n"
     "                  frame_acceleration at every frame, LOCAL and MIXED (worst error)\n"},
    {"generate", geolin::cli::cmd_generate, "print a synthetic URDF (chain or random tree)",
     "usage: geolin generate chain N\n"
     "       geolin generate tree N SEED\n"
     "\n"
     "Prints a URDF with N moving bodies: a serial chain, or a random tree (deterministic for a\n"
     "given seed). Example: geolin generate tree 20 7 | geolin check -\n"},
    {"simulate", geolin::cli::cmd_simulate,
     "integrate the dynamics (tau held constant), a CSV trajectory and energy plot",
     "usage: geolin simulate [URDF|-] [--steps K] [--dt H] [--method euler|rk4|implicit]\n"
     "                       [--state FILE | --random SEED] [--passive] [--fixed-base]\n"
     "                       [--output FILE.csv] [--plot FILE.svg]\n"
     "                       [--contacts FRAME,... [--contact-type point|rigid[,...]]\n"
     "                        [--gains KP,KD] [--regularization MU] [--mixed]]\n"
     "                       [--loops A:B[:TYPE],...] [--couplings mimic|J=R*S+O,...]\n"
     "                       [--wheels FRAME:RADIUS[:AXIS],... [--path-plot FILE.svg]]\n"
     "       geolin simulate [URDF|-] --drop HEIGHT [--contacts FEET] [--gains KP,KD]\n"
     "                       [--joint-gains KP,KD] [--steps K] [--dt H]\n"
     "                       [--method implicit|euler|rk4]\n"
     "                       [--output FILE.csv] [--plot FILE.svg]\n"
     "\n"
     "Integrates K steps (default 1000) of length H (default 1e-3 s) with geolin::step from the\n"
     "state (the default state unless --state or --random), with its tau held constant, and\n"
     "writes the trajectory as CSV (standard output, or --output FILE), one row per step:\n"
     "  t, x y z (base position), R00..R22 (base rotation, row by row), s[joint], v[vx..wz],\n"
     "  r[joint], kinetic, potential, total (energies [J]), h_A[px..Lz] (the total spatial\n"
     "  momentum, linear then angular about the inertial origin, in inertial axes).\n"
     "A fixed base has no x..R22 and v columns. A summary goes to stderr (stdout with --output).\n"
     "  --method M      euler (semi-implicit), rk4 (Runge-Kutta-Munthe-Kaas, the default) or\n"
     "                  implicit (euler with the joint damping, and the drop test's PD damping,\n"
     "                  implicit; the drop test's default)\n"
     "  --passive       tau = 0, so that the total energy is conserved\n"
     "  --plot FILE.svg the energy error |E(t) - E(0)| against t on a log axis, for H and for\n"
     "                  H/2 (a second run over the same duration)\n"
     "  --contacts FRAME,...  step with the contacts held (geolin::contact_step; references:\n"
     "                  the frames' initial poses; --contact-type, --gains, --mixed as for\n"
     "                  dynamics); the CSV gains the step's lambda[frame][fx..] columns\n"
     "  --loops, --couplings, --wheels  (as for dynamics) step with those constraints held\n"
     "                  (geolin::constrained_step); the CSV gains their lambda columns\n"
     "  --path-plot FILE.svg  with --wheels: the wheels' contact paths on the ground (x-y)\n"
     "  --drop HEIGHT   the drop test: the robot at rest, upright, s = 0 (or --state), its\n"
     "                  lowest foot HEIGHT m above the ground z = 0; flight (geolin::step),\n"
     "                  an impact (geolin::impulse, e = 0) on the feet that reach the ground,\n"
     "                  then stance with them held (point contacts at the touchdown points,\n"
     "                  Baumgarte --gains, default 100,20); feet never lift off. The feet:\n"
     "                  --contacts, default every frame named '...foot'. The joints: a PD\n"
     "                  about their initial angles, --joint-gains (default 200,10), inside\n"
     "                  the step. The summary says 'at rest' only when the final vertical\n"
     "                  forces are the weight (1 %), the feet on the ground (1 mm) and nothing\n"
     "                  moves, else which fails. The CSV gains z[foot], vz[foot],\n"
     "                  lambda[foot][fz] (world axes); --plot draws the base height and the\n"
     "                  vertical foot forces\n"
     "A run that diverges (state or forces not finite, the energy rising with nothing doing\n"
     "work, contact forces oscillating with growing amplitude; drop test: also forces beyond\n"
     "10 x the weight, feet 1 cm below the ground, runaway speeds) stops with exit status 1:\n"
     "'the simulation diverged at step K (t, h): what. Change: --dt, --method implicit, gains'.\n"},
    {"bench", geolin::cli::cmd_bench, "time the algorithms (ns per call), and their scaling",
     "usage: geolin bench [URDF...] [--seconds T] [--json] [--fixed-base]\n"
     "                    [--contacts FRAME,... [--contact-type point|rigid[,...]] [--mixed]]\n"
     "                    [--isa baseline|avx2+fma|avx512]\n"
     "       geolin bench --scaling [--seconds T] [--json] [--plot FILE.svg]\n"
     "\n"
     "Times forward dynamics (aba), inverse dynamics (rnea), the mass matrix (crba),\n"
     "mass_matrix_inverse, linearize, linearize_finite_difference (eps 1e-5) and\n"
     "inverse_dynamics_linearize at the default state of each model (default: the bundled\n"
     "model): batches of about 1 ms, repeated for T seconds per function (default 0.3, at least\n"
     "3 batches); prints the median ns per call, the interquartile range and min..max over the\n"
     "batches, and the ratios linearize / forward dynamics, linearize_fd / linearize, forward /\n"
     "inverse dynamics, inverse and mass matrix / forward dynamics, inverse_dynamics_linearize /\n"
     "inverse dynamics.\n"
     "On a model with contacts, also contact_dynamics and contact_linearize and their ratios\n"
     "to forward dynamics (the same run): feet known by name, compared without regard to case\n"
     "(FL_foot FR_foot HL_foot HR_foot, as on the bundled quadruped and solo12, or LF_foot\n"
     "RF_foot LH_foot RH_foot, as on ANYmal and HyQ: points; L_sole R_sole, as on the bundled\n"
     "humanoid, or left_sole_link right_sole_link, as on TALOS: rigid), or those of\n"
     "  --contacts FRAME,...  (and --contact-type, --mixed) for every model given\n"
     "  --loops, --couplings, --wheels  (as for dynamics; with --gains, --regularization)\n"
     "                  also constrained_dynamics and constrained_linearize of the whole set\n"
     "                  and their ratios to forward dynamics\n"
     "  --isa NAME      run the solver's loops with this instruction set: baseline (SSE2),\n"
     "                  avx2+fma or avx512 (default: the widest this processor has; printed)\n"
     "  --json          a machine-readable result\n"
     "  --scaling       chains and random trees of 8, 16, 32, 64, 128 bodies: time per call\n"
     "                  against n and the fitted exponent (slope of log time against log n);\n"
     "                  linearize_finite_difference is skipped above 64 bodies\n"
     "  --plot FILE.svg (--scaling) every function's time against n, log-log; chains solid,\n"
     "                  random trees dashed\n"
     "Build in Release for meaningful numbers; a progress line shows on a terminal (stderr).\n"},
};

// The options of every command that reads a model.
const char *const kModelOptionsHelp =
    "\nmodel options:\n"
    "  URDF               a URDF file, '-' for standard input; default: the bundled model\n"
    "  --fixed-base       weld the root link to the inertial frame (a manipulator)\n"
    "  --joint-damping    use URDF <dynamics damping> as viscous joint friction\n"
    "  --strict-inertia   also refuse link inertias violating the triangle inequality\n"
    "  --armature VALUE | JOINT=VALUE,...\n"
    "                     reflected rotor inertias I_rotor N^2 (kg m^2; kg for a prismatic\n"
    "                     joint): VALUE on every joint, or on the joints named (the others 0);\n"
    "                     M becomes M + diag(0_6, armature) everywhere (docs/conventions.md)\n";

void print_command_usage(std::FILE *out, const Command &c) {
  fmt::print(out, "{}", c.usage);
  if (std::string(c.name) != "generate") fmt::print(out, "{}", kModelOptionsHelp);
}

void print_main_usage(std::FILE *out) {
  fmt::print(out,
             "geolin {}: forward dynamics and its exact left-trivialized linearization for\n"
             "moving-base robots described in URDF.\n\n"
             "usage: geolin COMMAND [ARGS...]     (geolin COMMAND --help for details)\n\n"
             "commands:\n",
             GEOLIN_CLI_VERSION);
  for (const auto &c : kCommands) fmt::print(out, "  {:<10} {}\n", c.name, c.summary);
  fmt::print(
      out,
      "\nWith no URDF, commands use the bundled {} model.\n"
      "Exit status: 0 success, 1 failure (library error, bad input, check above tolerance),\n"
      "2 bad command line.\n",
      geolin::cli::kDefaultModelName);
}

// Runs a command, turning its exceptions into a message on stderr and an exit code.
int run_command(const Command &command, const std::string &name,
                const std::vector<std::string> &args) {
  try {
    return command.run(args);
  } catch (const UsageError &e) {
    fmt::print(stderr, "geolin {}: {}\n\n", name, e.what());
    print_command_usage(stderr, command);
    return geolin::cli::kExitUsage;
  } catch (const geolin::Error &e) {
    fmt::print(stderr, "geolin {}: error ({}): {}\n", name, geolin::cli::status_name(e.status()),
               e.what());
    return geolin::cli::kExitFailure;
  } catch (const std::bad_alloc &) {
    // An allocation failed (the model, or a matrix of N x N for it, is too large for this
    // machine's memory): the status of GEOLIN_ERR_MEMORY, never "std::bad_alloc".
    fmt::print(stderr,
               "geolin {}: error ({}): out of memory: an allocation failed (the model or its "
               "N x N matrices may be too large for this machine)\n",
               name, geolin::cli::status_name(geolin::Status::Memory));
    return geolin::cli::kExitFailure;
  } catch (const std::exception &e) {
    fmt::print(stderr, "geolin {}: error: {}\n", name, e.what());
    return geolin::cli::kExitFailure;
  }
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_main_usage(stderr);
    return geolin::cli::kExitUsage;
  }
  const std::string name = args[0];
  if (name == "-h" || name == "--help" || name == "help") {
    print_main_usage(stdout);
    return geolin::cli::kExitOk;
  }
  if (name == "--version" || name == "version") {
    fmt::print("geolin {}\n", GEOLIN_CLI_VERSION);
    return geolin::cli::kExitOk;
  }
  const Command *command = nullptr;
  for (const auto &c : kCommands) {
    if (name == c.name) command = &c;
  }
  if (command == nullptr) {
    fmt::print(stderr, "geolin: unknown command '{}'\n\n", name);
    print_main_usage(stderr);
    return geolin::cli::kExitUsage;
  }
  args.erase(args.begin());
  for (const auto &a : args) {
    if (a == "-h" || a == "--help") {
      print_command_usage(stdout, *command);
      return geolin::cli::kExitOk;
    }
  }
  return run_command(*command, name, args);
}
