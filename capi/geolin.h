/* geolin.h -- the C API of geolin: forward dynamics of moving-base robots loaded from URDF and
 * its exact left-trivialized linearization (Bos, Traversaro, Pucci, Saccon 2022).
 *
 * This is the only public header of the shared library libgeolin.so.0. It is plain C99 (and
 * valid C++), includes nothing beyond <stddef.h>, and passes only scalars, pointers to double,
 * int, const char* and opaque handles, so that C, C++, Fortran (bind(c)), Julia (ccall), Rust
 * (extern "C") and Python (ctypes) call it without glue.
 *
 * Conventions (used by every function below):
 *   - Every function that can fail returns an int status: GEOLIN_OK (0) or a GEOLIN_ERR_* code.
 *     No exception ever leaves the library. geolin_last_error() is the message of the last
 *     failure on the calling thread; geolin_status_string() names a code.
 *   - Matrices are dense and COLUMN-MAJOR with leading dimension = number of rows
 *     (Fortran, Julia, Eigen default): entry (i, j) of an m x n matrix X is X[i + m * j].
 *   - H is the 4x4 homogeneous transform ^A H_0 of the base, 16 doubles, column-major, so
 *     H[12], H[13], H[14] is the base position. It must be a rigid transform within 1e-6.
 *   - v is the base twist in the base (body) frame, 6 doubles, linear velocity first.
 *   - Joint vectors (s, r, tau) have n_J entries; joint k (0-based) is the joint whose child
 *     (successor) is body k + 1.
 *   - Generalized vectors have n entries: n = 6 + n_J, [base; joints] (moving base), or
 *     n = n_J (fixed base).
 *   - The linearization state is z = [z_H; z_s; z_v; z_r] with N = 2 n entries
 *     (fixed base: z = [z_s; z_r]).
 *   - A pointer to an array of length 0 (e.g. s for a model without joints) may be NULL.
 *   - Evaluation functions check their inputs (NULL, NaN/Inf, H rigid) and on any failure
 *     write nothing to their outputs. They neither allocate memory nor take locks. Outputs may
 *     alias inputs, but the outputs of one call must not overlap each other
 *     (GEOLIN_ERR_INVALID_ARGUMENT).
 *   - GEOLIN_ERR_NUMERIC means the result cannot be trusted and was not written: either the mass
 *     matrix is singular to working precision at this state (an articulated-body pivot of a
 *     joint, or of the base, is below 1e-10 of its round-off scale; the message names the
 *     joint), or a result overflowed although every input was finite (the message says which).
 *   - Units are SI; angles are in radians.
 *
 * Threads: a geolin_model is immutable after loading and may be shared by any number of
 * threads. A geolin_workspace holds the scratch memory (and the gravity setting) of one thread
 * at a time: give every thread its own workspace.
 */
#ifndef GEOLIN_H_
#define GEOLIN_H_

#include <stddef.h>

/* Marks the functions of the library's ABI (only these are exported from libgeolin.so). */
#if defined(__GNUC__) || defined(__clang__)
#define GEOLIN_API __attribute__((visibility("default")))
#else
#define GEOLIN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Errors
 * ========================================================================================= */

enum {
  GEOLIN_OK = 0,
  GEOLIN_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, index out of range, bad H, bad size      */
  GEOLIN_ERR_IO = 2,               /* file missing or unreadable                              */
  GEOLIN_ERR_PARSE = 3,            /* not well-formed XML / not URDF                          */
  GEOLIN_ERR_MODEL = 4,            /* valid URDF but not a valid dynamics model (cycle,       */
                                   /* several roots, negative mass, inertia not positive,     */
                                   /* singular mass matrix, zero joint axis, ...)             */
  GEOLIN_ERR_UNSUPPORTED = 5,      /* a URDF feature the library does not model (planar and   */
                                   /* floating joints)                                        */
  GEOLIN_ERR_NONFINITE = 6,        /* NaN or Inf in an input                                  */
  GEOLIN_ERR_NUMERIC = 7,          /* numerically singular at this state                      */
  GEOLIN_ERR_INTERNAL = 8,         /* a bug: please report                                    */
  GEOLIN_ERR_MEMORY = 9            /* out of memory; the message says how many bytes          */
};

/* The message of the last failure on the calling thread: what went wrong and where (argument
 * name and index, URDF element, joint or link name). Never NULL; "" if nothing failed yet on
 * this thread. Valid until the next failing geolin_* call on the same thread. */
GEOLIN_API const char *geolin_last_error(void);

/* The name and meaning of a status code, starting with the name of its constant, e.g.
 * "GEOLIN_ERR_IO: file missing or unreadable"; "unknown status" for any other value.
 * Never NULL; a static string. */
GEOLIN_API const char *geolin_status_string(int status);

/* ============================================================================================
 * Versions
 * ========================================================================================= */

/* The version of this header. */
#define GEOLIN_VERSION_MAJOR 0
#define GEOLIN_VERSION_MINOR 5
#define GEOLIN_VERSION_PATCH 0

/* The version of the library at run time. Any of the three pointers may be NULL. */
GEOLIN_API void geolin_version(int *major, int *minor, int *patch);

/* ============================================================================================
 * Models
 * ========================================================================================= */

/* An immutable multibody tree loaded from URDF. Bodies are numbered 0 .. n_B: body 0 is the
 * base (the URDF root link, with every link attached to it by fixed joints), and every body's
 * number is higher than its parent's. Joint k (0-based) moves body k + 1; n_J = n_B. */
typedef struct geolin_model geolin_model;

/* Flags for loading (bitwise or; 0 = moving base, no damping). Other bits are rejected. */
#define GEOLIN_FIXED_BASE 1u /* weld the root link to the inertial frame (default: moving base) */
#define GEOLIN_JOINT_DAMPING 2u /* use URDF <dynamics damping> as viscous joint friction */

/* Load a URDF file. path: a NUL-terminated file name. out: receives the new model (free it with
 * geolin_model_free); set to NULL on failure. Neither pointer may be NULL.
 * The file must be a regular file of at most 64 MiB (67108864 bytes); it is read as UTF-8 XML.
 * Errors (the message names the file, the element or joint/link at fault, and its line):
 *   INVALID_ARGUMENT  NULL, unknown flag;
 *   IO           missing or unreadable file, not a regular file (a FIFO, device or directory
 *                is refused without blocking or reading), larger than 64 MiB;
 *   PARSE        not well-formed XML, or XML the loader does not read (DTD entities or
 *                attribute defaults); names or values not valid UTF-8; elements nested more
 *                than 256 levels; a root other than <robot>, a second or nested <robot>;
 *                unexpanded xacro (xacro: elements or attributes, "${" or "$(" in values); a
 *                number that is not decimal (e.g. "0x10"); a missing required element or
 *                attribute (including <mimic> without joint=);
 *   MODEL        valid URDF but not a valid tree or dynamics model: duplicate names, unknown
 *                links, several or no root links, cycles, NaN/Inf or magnitudes above 1e100
 *                (masses, inertias, lengths, damping), limit lower > upper, negative effort or
 *                velocity, a <mimic> of itself, of an unknown or a fixed joint, or mimics in a
 *                cycle, negative mass, inertia not positive semidefinite, singular mass matrix;
 *   UNSUPPORTED  planar and floating joints;
 *   MEMORY       out of memory while loading (the message gives the document's size).
 * Mimic joints: a valid <mimic joint="x"/> is reported (geolin info marks it), but the joint is
 * modelled as an independent joint with its own position, velocity and torque, not as a
 * constraint; impose the coupling on the inputs if it is wanted. */
GEOLIN_API int geolin_model_load_urdf(const char *path, unsigned flags, geolin_model **out);

/* Load a URDF document held in memory. xml: the NUL-terminated XML text (no size limit).
 * Otherwise as geolin_model_load_urdf (no IO error). */
GEOLIN_API int geolin_model_load_urdf_string(const char *xml, unsigned flags, geolin_model **out);

/* Free a model. NULL is a no-op. Every workspace of the model must be freed first (a workspace
 * keeps a pointer to its model). */
GEOLIN_API void geolin_model_free(geolin_model *model);

/* n_J, the number of (non-fixed) joints = number of moving bodies n_B. -1 if model is NULL. */
GEOLIN_API int geolin_model_num_joints(const geolin_model *model);

/* n, the number of generalized velocities: 6 + n_J (moving base) or n_J (fixed base).
 * -1 if model is NULL. */
GEOLIN_API int geolin_model_num_dofs(const geolin_model *model);

/* N = 2 n, the dimension of the linearization state z. -1 if model is NULL. */
GEOLIN_API int geolin_model_state_dim(const geolin_model *model);

/* n_B + 1, the number of bodies including the base. -1 if model is NULL. */
GEOLIN_API int geolin_model_num_bodies(const geolin_model *model);

/* 1 if the model was loaded with GEOLIN_FIXED_BASE, 0 if not, -1 if model is NULL. */
GEOLIN_API int geolin_model_is_fixed_base(const geolin_model *model);

/* The parent λ(body) of a body, 0 <= body < n_B + 1. -1 for body 0, and -1 (with the last error
 * set) if model is NULL or body is out of range. */
GEOLIN_API int geolin_model_parent(const geolin_model *model, int body);

/* The number of children |μ(body)| of a body. -1 if model is NULL or body is out of range. */
GEOLIN_API int geolin_model_num_children(const geolin_model *model, int body);

/* The k-th child of a body (0 <= k < num_children), in URDF order. -1 if model is NULL or body
 * or k is out of range. */
GEOLIN_API int geolin_model_child(const geolin_model *model, int body, int k);

/* The URDF link name of a body (the root link for body 0). The string belongs to the model and
 * lives as long as it. NULL if model is NULL or body is out of range. */
GEOLIN_API const char *geolin_model_body_name(const geolin_model *model, int body);

/* The URDF name of joint k, 0 <= k < n_J (the joint of body k + 1). The string belongs to the
 * model. NULL if model is NULL or joint is out of range. */
GEOLIN_API const char *geolin_model_joint_name(const geolin_model *model, int joint);

/* The index k of the joint called name (only non-fixed joints have one). -1 if there is no such
 * joint, or if model or name is NULL. */
GEOLIN_API int geolin_model_joint_index(const geolin_model *model, const char *name);

/* The total mass of the robot in kg (including the base). NaN if model is NULL. */
GEOLIN_API double geolin_model_total_mass(const geolin_model *model);

/* A copy of model whose joints carry reflected rotor inertias: armature[n_J] (finite, >= 0; kg m^2
 * for a revolute or continuous joint, kg for a prismatic one; joint order). Every function of the
 * copy uses M(s) + diag(0_6, armature) (fixed base: M(s) + diag(armature)) in place of M(s): the
 * inverse dynamics gains armature[j] * r_dot[j] on joint j, and so on through every algorithm and
 * derivative. The vector replaces any armature model already had. out receives the new model
 * (free it with geolin_model_free; it stays valid after model is freed), NULL on failure; model
 * is unchanged (models stay immutable and shareable).
 * The armature is Pinocchio's model.armature (MuJoCo's joint armature): I_rotor * N^2 for a rotor
 * of inertia I_rotor about its axis behind a gear of ratio N. It enters the forward and inverse
 * dynamics, the mass matrix and its inverse, every linearization, the contact functions, steps
 * and impulses, and the kinetic energy (+ 1/2 sum armature[j] r[j]^2); the centre of mass, the
 * centroidal momentum and the frames do not change (a rotor spinning inside its link is not in
 * the links' momentum). A workspace belongs to the model it was created from: create one from
 * the copy to compute with the armature.
 * Returns OK, or (with *out = NULL, nothing allocated):
 *   INVALID_ARGUMENT  model or out is NULL, armature is NULL (n_J > 0), or an entry is negative
 *                     (the message names armature[j] and joint j);
 *   NONFINITE         an entry is NaN or infinite (named likewise);
 *   MEMORY            out of memory. */
GEOLIN_API int geolin_model_with_armature(const geolin_model *model, const double *armature,
                                          geolin_model **out);

/* The model's armature[n_J] (zeros for a model loaded from URDF), joint order, into armature.
 * Returns OK, or INVALID_ARGUMENT when model or armature (for n_J > 0) is NULL. */
GEOLIN_API int geolin_model_armature(const geolin_model *model, double *armature);

/* As geolin_model_with_armature, with the armature read from an SRDF file in Pinocchio's
 * <rotor_params> format:
 *   <robot name="..."><rotor_params><joint name="J" mass="I_rotor" gear_ratio="N"/>...</robot>
 * joint J gets armature I_rotor * N^2; the joints not named keep model's armature. path: a
 * NUL-terminated file name. out receives the new model, NULL on failure (nothing allocated).
 * Returns OK, or INVALID_ARGUMENT (a NULL argument), IO (not a readable regular file of at most
 * 64 MiB), PARSE (not well-formed XML, a root other than <robot>, a <joint> without name, mass or
 * gear_ratio, a value that is not a number), MODEL (a joint model does not have, a negative or
 * infinite value), MEMORY; the message names the file, the line and the joint. */
GEOLIN_API int geolin_model_with_srdf_rotor_params(const geolin_model *model, const char *path,
                                                   geolin_model **out);

/* Frames: every URDF link is a frame, also the links merged into a body by fixed joints.
 * Frames are numbered 0 .. num_frames - 1 in the order of the URDF traversal. */
GEOLIN_API int geolin_model_num_frames(const geolin_model *model); /* -1 if model is NULL */
/* The name of a frame (its URDF link). NULL if model is NULL or frame out of range. */
GEOLIN_API const char *geolin_model_frame_name(const geolin_model *model, int frame);
/* The index of the frame called name. -1 if absent, or if model or name is NULL. */
GEOLIN_API int geolin_model_frame_index(const geolin_model *model, const char *name);

/* ============================================================================================
 * Workspaces
 * ========================================================================================= */

/* The scratch memory of one thread for one model, plus the gravity setting. All memory the
 * evaluation functions need is allocated here. It keeps a pointer to its model: the model must
 * outlive the workspace. */
typedef struct geolin_workspace geolin_workspace;

/* What a workspace is sized for (bitwise or). Forward and inverse dynamics, frames and Jacobians,
 * geolin_forward_dynamics_ext and geolin_step need only O(n) memory and always work; each
 * feature below adds the buffers of its functions (N = 2 n):
 *   MASS_MATRIX        geolin_mass_matrix, geolin_mass_matrix_inverse       ~2 n^2 doubles
 *   LINEARIZE          geolin_linearize, geolin_linearize_ext               ~3 n^2 doubles
 *   FINITE_DIFFERENCE  geolin_linearize_finite_difference                   ~N^2 doubles
 *   STEP_LINEARIZE     geolin_step_linearize (includes LINEARIZE)           ~13 N^2 doubles
 *   CONTACTS           geolin_contact_dynamics, geolin_impulse, geolin_contact_step; with
 *                      LINEARIZE also geolin_contact_linearize, geolin_impulse_linearize; with
 *                      STEP_LINEARIZE also geolin_contact_step_linearize
 * A function whose feature the workspace lacks returns GEOLIN_ERR_INVALID_ARGUMENT. */
#define GEOLIN_WORKSPACE_DYNAMICS 0u
#define GEOLIN_WORKSPACE_MASS_MATRIX 1u
#define GEOLIN_WORKSPACE_LINEARIZE 2u
#define GEOLIN_WORKSPACE_FINITE_DIFFERENCE 4u
#define GEOLIN_WORKSPACE_STEP_LINEARIZE 8u
#define GEOLIN_WORKSPACE_CONTACTS 16u
#define GEOLIN_WORKSPACE_ALL 31u

/* Create a workspace for model with every feature (GEOLIN_WORKSPACE_ALL) and room for one
 * external wrench or contact per frame, gravity [0, 0, -9.81]. out receives it (free it with
 * geolin_workspace_free); set to NULL on failure. Neither pointer may be NULL.
 * Errors: INVALID_ARGUMENT; MEMORY when the memory is not there (the message says how many
 * bytes were needed; a workspace larger than the machine's physical memory is refused before
 * anything is allocated): for large models use geolin_workspace_new_ex. */
GEOLIN_API int geolin_workspace_new(const geolin_model *model, geolin_workspace **out);

/* Create a workspace sized for the given features only (GEOLIN_WORKSPACE_* bits; 0 = dynamics
 * only) and for at most max_wrenches wrenches per geolin_linearize_ext call and contacts per
 * geolin_contact_* call (0 <= max_wrenches <= 2^20). Otherwise as geolin_workspace_new. */
GEOLIN_API int geolin_workspace_new_ex(const geolin_model *model, unsigned features,
                                       int max_wrenches, geolin_workspace **out);

/* The bytes of memory geolin_workspace_new_ex(model, features, max_wrenches, ...) would
 * allocate (to within a few kilobytes; SIZE_MAX if that does not fit in a size_t). 0, with the
 * last error set, if model is NULL or an argument is out of range. */
GEOLIN_API size_t geolin_workspace_bytes(const geolin_model *model, unsigned features,
                                         int max_wrenches);

/* Free a workspace. NULL is a no-op. */
GEOLIN_API void geolin_workspace_free(geolin_workspace *ws);

/* Set the gravity acceleration g (3 doubles, m/s^2, in the inertial frame A) used by the
 * evaluations with this workspace. ws, g not NULL; g finite. */
GEOLIN_API int geolin_workspace_set_gravity(geolin_workspace *ws, const double g[3]);

/* Contact regularization of this workspace (default 0: redundant sets are refused).
 * With mu = 0 every contact function (geolin_contact_dynamics, geolin_contact_linearize,
 * geolin_contact_step, geolin_contact_step_linearize, geolin_impulse, geolin_impulse_linearize)
 * solves the contacts exactly and returns GEOLIN_ERR_NUMERIC for a set whose rows depend on each
 * other (a sole held by its four corner points, a rigid foot plus a point, ...). With mu > 0 they
 * solve the regularized (damped least-squares) problem instead, docs/contacts.md (C14):
 *   (J_c M^-1 J_c^T + mu I) lambda = -c(nu_dot_free),  i.e.  c(nu_dot) = -mu lambda:
 * a soft constraint whose acceleration error is mu times the force, mu in (m/s^2)/N on force
 * rows and (rad/s^2)/(N m) on torque rows (an impulse's velocity error is mu times the impulse,
 * (m/s)/(N s)). The forces tend to the minimum-norm ones as mu -> 0, and the linearizations are
 * the exact derivatives of the regularized problem. mu is small against the diagonal of
 * J_c M^-1 J_c^T (about 1 / the robot's mass): 1e-8 .. 1e-4 for a robot of tens of kg.
 * mu finite (else GEOLIN_ERR_NONFINITE) and in [0, GEOLIN_CONTACT_REGULARIZATION_MAX] (else
 * GEOLIN_ERR_INVALID_ARGUMENT); errors name 'mu' and leave the setting unchanged. The bound is
 * absolute, as mu is: at mu = (J_c M^-1 J_c^T)_kk a contact carries half its force and beyond
 * it the forces vanish like 1 / mu (lambda ~ -c / mu, 1e-300 at mu = 1e300, with the call
 * returning OK); 1e12 is that diagonal for the lightest parts the library is made for (an
 * insect-scale link of 5 mg and 1e-12 kg m^2), so no useful mu of any model is refused
 * (docs/contacts.md section 4.2). Not concurrently with an evaluation on the same workspace. */
#define GEOLIN_CONTACT_REGULARIZATION_MAX 1e12 /* (m/s^2)/N, the largest accepted mu */
GEOLIN_API int geolin_workspace_set_contact_regularization(geolin_workspace *ws, double mu);

/* ============================================================================================
 * Dynamics
 * ========================================================================================= */

/* Forward dynamics: the generalized acceleration nu_dot = [v_dot; r_dot] for joint torques tau.
 *   in:  H[16] (4x4, column-major), s[n_J], v[6], r[n_J], tau[n_J]
 *   out: nu_dot[n] (moving base: 6 base-acceleration entries, linear first, then n_J)
 * H and v may be NULL for a fixed-base model (they are ignored). */
GEOLIN_API int geolin_forward_dynamics(geolin_workspace *ws, const double *H, const double *s,
                                       const double *v, const double *r, const double *tau,
                                       double *nu_dot);

/* Inverse dynamics (RNEA): the generalized force that produces the acceleration nu_dot.
 *   in:  H[16] (4x4, column-major), s[n_J], v[6], r[n_J], nu_dot[n]
 *   out: generalized_force[n] = [base wrench (force first, base frame); joint torques]
 *        (fixed base: the n_J joint torques only)
 * H and v may be NULL for a fixed-base model (they are ignored). */
GEOLIN_API int geolin_inverse_dynamics(geolin_workspace *ws, const double *H, const double *s,
                                       const double *v, const double *r, const double *nu_dot,
                                       double *generalized_force);

/* The mass matrix M(s) (CRBA), symmetric positive definite. Needs GEOLIN_WORKSPACE_MASS_MATRIX.
 *   in:  s[n_J]
 *   out: M[n * n], column-major */
GEOLIN_API int geolin_mass_matrix(geolin_workspace *ws, const double *s, double *M);

/* The inverse mass matrix M(s)^-1, computed directly by a recursion (no factorization). Needs
 * GEOLIN_WORKSPACE_MASS_MATRIX.
 *   in:  s[n_J]
 *   out: Minv[n * n], column-major */
GEOLIN_API int geolin_mass_matrix_inverse(geolin_workspace *ws, const double *s, double *Minv);

/* ============================================================================================
 * Frames and Jacobians
 * ========================================================================================= */

/* The world pose ^A H_F of a frame.
 *   in:  H[16] (4x4, column-major), s[n_J], frame in [0, num_frames)
 *   out: H_frame[16] (4x4, column-major; H_frame[12..14] is the frame origin)
 * H may be NULL for a fixed-base model (ignored). */
GEOLIN_API int geolin_frame_pose(geolin_workspace *ws, const double *H, const double *s, int frame,
                                 double *H_frame);

/* The frame Jacobian J: ^F v_{A,F} = J nu, the body twist of frame F (linear first, in F's own
 * axes) produced by the generalized velocity nu = [v; r].
 *   in:  H[16] (4x4, column-major), s[n_J], frame in [0, num_frames)
 *   out: J[6 * n], column-major (6 rows)
 * The body twist does not depend on H; H may be NULL for a fixed-base model. */
GEOLIN_API int geolin_frame_jacobian(geolin_workspace *ws, const double *H, const double *s,
                                     int frame, double *J);

/* ============================================================================================
 * External wrenches as inputs
 * ========================================================================================= */

/* wrench_flags: the coordinates of all the wrenches of one call. Each wrench is 6 doubles,
 * [force; torque], applied at the origin of its frame. */
#define GEOLIN_WRENCH_LOCAL 0u /* in the frame's own axes                                   */
#define GEOLIN_WRENCH_MIXED 1u /* in axes parallel to the inertial frame A (contact forces) */

/* Forward dynamics with nf external wrenches: M nu_dot + C nu + G = S tau + sum_F J_F^T f_F.
 *   in:  H[16], s[n_J], v[6], r[n_J], tau[n_J] as geolin_forward_dynamics;
 *        nf in [0, num_frames], frames[nf] (frame indices), wrenches[6 * nf] (wrench k at
 *        wrenches[6k .. 6k+5]), wrench_flags GEOLIN_WRENCH_LOCAL or GEOLIN_WRENCH_MIXED
 *   out: nu_dot[n]
 * With nf = 0, frames and wrenches may be NULL and the result equals geolin_forward_dynamics.
 * Several wrenches at one frame are allowed (they add). */
GEOLIN_API int geolin_forward_dynamics_ext(geolin_workspace *ws, const double *H, const double *s,
                                           const double *v, const double *r, const double *tau,
                                           int nf, const int *frames, const double *wrenches,
                                           unsigned wrench_flags, double *nu_dot);

/* ============================================================================================
 * Linearization
 * ========================================================================================= */

/* The exact left-trivialized linearization dz/dt = A z + B w of the dynamics at the state
 * (H, s, v, r) and torque tau, with z = [z_H; z_s; z_v; z_r] (fixed base: [z_s; z_r]). Needs
 * GEOLIN_WORKSPACE_LINEARIZE.
 *   in:  H[16] (4x4, column-major), s[n_J], v[6], r[n_J], tau[n_J]
 *   out: A[N * N], B[N * n_J], both column-major (N = 2 n)
 * H and v may be NULL for a fixed-base model (they are ignored). */
GEOLIN_API int geolin_linearize(geolin_workspace *ws, const double *H, const double *s,
                                const double *v, const double *r, const double *tau, double *A,
                                double *B);

/* The same A and B by geometric central finite differences with step eps (1e-10 <= eps <= 1e-2,
 * where central differences keep several correct digits; about 1e-6 is a good choice): the
 * independent check of geolin_linearize, for validating models. Needs
 * GEOLIN_WORKSPACE_FINITE_DIFFERENCE.
 *   in:  H[16] (4x4, column-major), s[n_J], v[6], r[n_J], tau[n_J], eps
 *   out: A[N * N], B[N * n_J], both column-major (N = 2 n)
 * H and v may be NULL for a fixed-base model (they are ignored). */
GEOLIN_API int geolin_linearize_finite_difference(geolin_workspace *ws, const double *H,
                                                  const double *s, const double *v, const double *r,
                                                  const double *tau, double eps, double *A,
                                                  double *B);

/* Inverse dynamics and its exact linearization, for inverse-dynamics formulations and torque
 * limits in an MPC: generalized_force = ID(x, nu_dot) as geolin_inverse_dynamics, and
 *   ID(x exp(z), nu_dot + d) = generalized_force + dtau_dz z + M d + O(|z|^2)
 * in the coordinates z = [z_H; z_s; z_v; z_r] of geolin_linearize: dtau_dz is the derivative
 * in z at fixed nu_dot, M = the derivative in nu_dot, the mass matrix (as geolin_mass_matrix).
 * At nu_dot = geolin_forward_dynamics, -M^-1 dtau_dz is the nu_dot rows of geolin_linearize's A.
 * dtau_dz needs GEOLIN_WORKSPACE_LINEARIZE, M needs GEOLIN_WORKSPACE_MASS_MATRIX; with both NULL
 * this is geolin_inverse_dynamics.
 *   in:  H[16] (4x4, column-major), s[n_J], v[6], r[n_J], nu_dot[n]
 *   out: generalized_force[n]; dtau_dz[n * N] (N = 2 n), M[n * n], both column-major, either
 *        may be NULL (not computed)
 * H and v may be NULL for a fixed-base model (ignored); there N = 2 n_J (no z_H, z_v columns). */
GEOLIN_API int geolin_inverse_dynamics_linearize(geolin_workspace *ws, const double *H,
                                                 const double *s, const double *v, const double *r,
                                                 const double *nu_dot, double *generalized_force,
                                                 double *dtau_dz, double *M);

/* The exact linearization with the external wrenches as inputs too: w = [tau; f_1; ...; f_nf].
 * The wrenches enter through J_F^T, which depends on s and, for GEOLIN_WRENCH_MIXED, on the base
 * attitude: A contains those terms exactly.
 *   in:  as geolin_forward_dynamics_ext
 *   out: A[N * N], B[N * (n_J + 6 nf)], column-major; B's columns: the n_J torques, then the 6
 *        components of each wrench in turn
 * With nf = 0 the result equals geolin_linearize. Needs GEOLIN_WORKSPACE_LINEARIZE and
 * nf <= the workspace's max_wrenches (one per frame for geolin_workspace_new). */
GEOLIN_API int geolin_linearize_ext(geolin_workspace *ws, const double *H, const double *s,
                                    const double *v, const double *r, const double *tau, int nf,
                                    const int *frames, const double *wrenches,
                                    unsigned wrench_flags, double *A, double *B);

/* ============================================================================================
 * Contact-constrained dynamics (legged robots on their feet)
 * ========================================================================================= */

/* Contact types: how a frame is held, and its number of constraint rows. */
#define GEOLIN_CONTACT_POINT 3 /* the frame origin is held: 3 rows, lambda a force     */
#define GEOLIN_CONTACT_RIGID 6 /* the whole frame is held: 6 rows, lambda a wrench     */

/* Contact-constrained forward dynamics: nu_dot and the contact forces lambda of
 *   M nu_dot + C nu + G = S tau + J_c^T lambda,
 * with contact k holding frame frames[k] as types[k] prescribes:
 *   GEOLIN_CONTACT_POINT: the world acceleration of the frame origin
 *                         p_ddot = -Kd p_dot - Kp (p - p_ref);
 *   GEOLIN_CONTACT_RIGID: the derivative of the frame's body twist (linear first)
 *                         d/dt(^F v_F) = -Kd ^F v_F - Kp log_SE3(H_ref^-1 H_F).
 * lambda is the force (point) or wrench [force; torque] (rigid) that the environment applies ON
 * the robot at the frame origin, in the frame's axes (GEOLIN_WRENCH_LOCAL) or in axes parallel
 * to the inertial frame (GEOLIN_WRENCH_MIXED), contact after contact: m = sum of types[k] rows.
 * Fed to geolin_forward_dynamics_ext (a point's wrench with zero torque), lambda reproduces
 * nu_dot.
 *   in:  H[16], s[n_J], v[6], r[n_J], tau[n_J] as geolin_forward_dynamics;
 *        nc in [0, max_wrenches of the workspace], frames[nc] (frame indices, repeats allowed),
 *        types[nc] (GEOLIN_CONTACT_POINT or GEOLIN_CONTACT_RIGID), wrench_flags
 *        (GEOLIN_WRENCH_LOCAL or GEOLIN_WRENCH_MIXED);
 *        gains: NULL (Kp = Kd = 0) or [Kp, Kd], both finite and >= 0;
 *        refs: NULL, or 16 doubles per contact (H_ref, 4x4 column-major; a point uses only its
 *        translation refs[16k + 12 .. 14]); required when Kp != 0, not read when Kp = 0
 *   out: nu_dot[n], lambda[m]
 * With nc = 0 (frames, types, lambda may be NULL) the result equals geolin_forward_dynamics.
 * Errors: INVALID_ARGUMENT / NONFINITE naming the argument and index; NUMERIC when the contact
 * Jacobian is rank-deficient at this state (redundant contacts such as two rigid contacts on one
 * body, more rows than degrees of freedom, a leg at full stretch; the message names the
 * contacts) or the mass matrix is singular. Dependent rows (not more rows than n) are solved,
 * softly, with geolin_workspace_set_contact_regularization(ws, mu > 0).
 * Needs GEOLIN_WORKSPACE_CONTACTS. */
GEOLIN_API int geolin_contact_dynamics(geolin_workspace *ws, const double *H, const double *s,
                                       const double *v, const double *r, const double *tau, int nc,
                                       const int *frames, const int *types, unsigned wrench_flags,
                                       const double *gains, const double *refs, double *nu_dot,
                                       double *lambda);

/* The exact left-trivialized linearization of geolin_contact_dynamics, in the coordinates of
 * geolin_linearize (z = [z_H; z_s; z_v; z_r], w = the torque perturbation), and the derivatives
 * of the contact forces.
 *   in:  as geolin_contact_dynamics
 *   out: A[N * N], B[N * n_J], dlambda_dz[m * N], dlambda_dw[m * n_J], all column-major;
 *        dlambda_dz and dlambda_dw may be NULL (not computed)
 * With nc = 0 the result equals geolin_linearize. Fixed base: H and v may be NULL. Needs
 * GEOLIN_WORKSPACE_CONTACTS and GEOLIN_WORKSPACE_LINEARIZE. */
GEOLIN_API int geolin_contact_linearize(geolin_workspace *ws, const double *H, const double *s,
                                        const double *v, const double *r, const double *tau, int nc,
                                        const int *frames, const int *types, unsigned wrench_flags,
                                        const double *gains, const double *refs, double *A,
                                        double *B, double *dlambda_dz, double *dlambda_dw);

/* The impact map at touchdown: the contacts stop within an instant (point: the frame origin's
 * velocity; rigid: the frame's twist), scaled by the restitution e:
 *   M (nu+ - nu-) = J_c^T Lambda,   J_c nu+ = -e J_c nu-,
 * the pose and the joint positions unchanged (RBDA ch. 11; docs/contacts.md section 9).
 *   in:  H[16], s[n_J], v[6], r[n_J] (the state just before the impact, nu- = [v; r]); nc,
 *        frames, types, wrench_flags as geolin_contact_dynamics (an impact has no gains);
 *        restitution e in [0, 1] (0: the contacts stop, a plastic impact; 1: their velocity
 *        reverses and the kinetic energy is kept)
 *   out: v_next[6], r_next[n_J] (nu+), impulse[m] (Lambda, N s: the impulse the environment
 *        applies ON the robot, in the axes of wrench_flags; may be NULL)
 * With nc = 0, nu+ = nu- exactly. Fixed base: H, v and v_next may be NULL. Outputs may alias the
 * inputs. Errors as geolin_contact_dynamics. Needs GEOLIN_WORKSPACE_CONTACTS. */
GEOLIN_API int geolin_impulse(geolin_workspace *ws, const double *H, const double *s,
                              const double *v, const double *r, int nc, const int *frames,
                              const int *types, unsigned wrench_flags, double restitution,
                              double *v_next, double *r_next, double *impulse);

/* The exact Jacobian of geolin_impulse in the left-trivialized coordinates of geolin_linearize:
 * x- exp(z) -> x+ exp(A_imp z).
 *   in:  as geolin_impulse
 *   out: A_imp[N * N] (the identity in the pose rows z_H, z_s), dimpulse_dz[m * N] (may be
 *        NULL), column-major
 * With nc = 0, A_imp = I exactly. Fixed base: H and v may be NULL. Needs
 * GEOLIN_WORKSPACE_CONTACTS and GEOLIN_WORKSPACE_LINEARIZE. */
GEOLIN_API int geolin_impulse_linearize(geolin_workspace *ws, const double *H, const double *s,
                                        const double *v, const double *r, int nc, const int *frames,
                                        const int *types, unsigned wrench_flags, double restitution,
                                        double *A_imp, double *dimpulse_dz);

/* ============================================================================================
 * Discrete time
 * ========================================================================================= */

/* Integration methods of geolin_step. */
#define GEOLIN_STEP_SEMI_IMPLICIT_EULER 0 /* nu+ = nu + h FD; H+ = H exp(h v+); s+ = s + h r+ */
#define GEOLIN_STEP_RK4                                              \
  1 /* Runge-Kutta-Munthe-Kaas of order 4: classical RK4 on the Lie  \
       algebra with dexp^-1 to second order, x+ = x exp(Theta); one  \
       exponential per stage and an exact linearization (chosen over \
       Crouch-Grossman for that reason) */
/* GEOLIN_STEP_IMPLICIT_EULER: the semi-implicit Euler step with the joint damping implicit
 * (as MuJoCo's Euler integrator; docs/dynamics.md (D55), (D56)):
 *   nu+ = nu + h a,   (M + h D) a = f(x, nu, tau),   D = blockdiag(0_6, diag(d)),
 *   d_j = the model's joint damping (only if loaded with GEOLIN_JOINT_DAMPING) + kd_j (the
 *   _feedback functions' kd; 0 for the others);
 * f is forward dynamics' right-hand side at the current state: tau + the feedback torque - the
 * bias (velocity products, gravity) - the damping force d_model o r, all at (x, nu). Implicit,
 * i.e. taken at nu+, are exactly the damping terms: the step solves
 * M (nu+ - nu) / h = (f + D nu) - D nu+, so -d_model o r and -kd o r act at r+ (backward Euler);
 * the bias, the kp term and everything else are explicit. With contacts the constraint is
 * solved with M + h D in place of M (lambda: that solve's, at (x, tau)). Positions as the
 * semi-implicit Euler step: H+ = H exp(h v+), s+ = s + h r+. Stable for any damping: a joint
 * with effective inertia I and damping d has r+ = (I r + h f0)/(I + h d), f0 the forces other
 * than the damping, where the explicit step grows once h d / I > 2. Equals
 * GEOLIN_STEP_SEMI_IMPLICIT_EULER when d = 0. It is the semi- implicit Euler step of the model
 * whose armature is armature + h d; the energies and every other function keep the model's own
 * armature. */
#define GEOLIN_STEP_IMPLICIT_EULER 2

/* One step x+ = Phi_h(x, tau) of length h (finite, > 0) with tau held constant.
 *   in:  method (GEOLIN_STEP_*), h, H[16], s[n_J], v[6], r[n_J], tau[n_J]
 *   out: H_next[16] (column-major), s_next[n_J], v_next[6], r_next[n_J]
 * Fixed base: H, v, H_next and v_next may be NULL; H_next and v_next are not written.
 * Outputs may alias the inputs (in-place stepping). */
GEOLIN_API int geolin_step(geolin_workspace *ws, int method, double h, const double *H,
                           const double *s, const double *v, const double *r, const double *tau,
                           double *H_next, double *s_next, double *v_next, double *r_next);

/* The exact linearization of geolin_step in the same left-trivialized coordinates (needs
 * GEOLIN_WORKSPACE_STEP_LINEARIZE):
 * x exp(z) -> x+ exp(z+), z+ = A_d z + B_d w (tau -> tau + w). Computed from the continuous A, B
 * at each stage and the closed-form right Jacobian of the SE(3) exponential; no finite
 * differences.
 *   in:  method, h, H[16], s[n_J], v[6], r[n_J], tau[n_J]
 *   out: A_d[N * N], B_d[N * n_J], column-major
 * H and v may be NULL for a fixed-base model. */
GEOLIN_API int geolin_step_linearize(geolin_workspace *ws, int method, double h, const double *H,
                                     const double *s, const double *v, const double *r,
                                     const double *tau, double *A_d, double *B_d);

/* One step of length h of the contact-constrained dynamics of geolin_contact_dynamics (the same
 * contact set, gains and refs held during the step), method and outputs as geolin_step.
 *   in:  method, h as geolin_step; H, s, v, r, tau, nc, frames, types, wrench_flags, gains, refs
 *        as geolin_contact_dynamics
 *   out: H_next[16], s_next[n_J], v_next[6], r_next[n_J] as geolin_step; lambda[m]: the contact
 *        forces of the step: the semi-implicit Euler step's at (x, tau), RK4's weighted mean
 *        (lambda_1 + 2 lambda_2 + 2 lambda_3 + lambda_4) / 6 of its stages. May be NULL.
 * With nc = 0 the result equals geolin_step exactly. Fixed base: H, v, H_next, v_next may be
 * NULL. Outputs may alias the inputs. Errors as geolin_contact_dynamics (at any stage) and
 * geolin_step. Needs GEOLIN_WORKSPACE_CONTACTS. */
GEOLIN_API int geolin_contact_step(geolin_workspace *ws, int method, double h, const double *H,
                                   const double *s, const double *v, const double *r,
                                   const double *tau, int nc, const int *frames, const int *types,
                                   unsigned wrench_flags, const double *gains, const double *refs,
                                   double *H_next, double *s_next, double *v_next, double *r_next,
                                   double *lambda);

/* Its exact linearization: x exp(z) -> x+ exp(A_d z + B_d w), and the derivatives of the step's
 * lambda. A_d[N*N], B_d[N*n_J], dlambda_dz[m*N], dlambda_dw[m*n_J], column-major; the last two
 * may be NULL. With nc = 0 the result equals geolin_step_linearize exactly. Fixed base: H and v
 * may be NULL. Needs GEOLIN_WORKSPACE_CONTACTS and GEOLIN_WORKSPACE_STEP_LINEARIZE. */
GEOLIN_API int geolin_contact_step_linearize(geolin_workspace *ws, int method, double h,
                                             const double *H, const double *s, const double *v,
                                             const double *r, const double *tau, int nc,
                                             const int *frames, const int *types,
                                             unsigned wrench_flags, const double *gains,
                                             const double *refs, double *A_d, double *B_d,
                                             double *dlambda_dz, double *dlambda_dw);

/* The steps with a joint-space feedback held during the step (docs/dynamics.md (D57)): every
 * stage (RK4's four, Euler's one) uses the joint torques
 *   tau + kp o (s_ref - s) + kd o (r_ref - r)      (o: entrywise)
 * at that stage's s and r, as a PD controller running inside the integrator. With
 * GEOLIN_STEP_IMPLICIT_EULER the kd term (with the model's damping) is implicit, the kp term
 * explicit (see GEOLIN_STEP_IMPLICIT_EULER). Otherwise as geolin_step, geolin_step_linearize,
 * geolin_contact_step and geolin_contact_step_linearize, whose arguments they take in the same
 * order with kp, kd, s_ref, r_ref after tau.
 *   kp[n_J], kd[n_J]: finite, >= 0, or NULL (zeros); s_ref[n_J], r_ref[n_J]: finite, or NULL
 *   (zeros). A bad entry is refused naming it ("kd[3] = -1 ..."), nothing written.
 * With all four NULL each equals its plain function exactly. For the explicit methods the step
 * equals the plain step with tau + kp o (s_ref - s) + kd o (r_ref - r) for Euler (one stage);
 * RK4 re-evaluates the feedback at each stage.
 * Linearization: A_d includes the feedback's dependence on the state; B_d is the derivative with
 * respect to w with tau -> tau + w (the feedback torque added to it), so the derivatives with
 * respect to the references are d x+ / d s_ref = B_d diag(kp) and d x+ / d r_ref =
 * B_d diag(kd) (the same with dlambda_dw for lambda), e.g. for an MPC optimizing references. */
GEOLIN_API int geolin_step_feedback(geolin_workspace *ws, int method, double h, const double *H,
                                    const double *s, const double *v, const double *r,
                                    const double *tau, const double *kp, const double *kd,
                                    const double *s_ref, const double *r_ref, double *H_next,
                                    double *s_next, double *v_next, double *r_next);
GEOLIN_API int geolin_step_feedback_linearize(geolin_workspace *ws, int method, double h,
                                              const double *H, const double *s, const double *v,
                                              const double *r, const double *tau, const double *kp,
                                              const double *kd, const double *s_ref,
                                              const double *r_ref, double *A_d, double *B_d);
GEOLIN_API int geolin_contact_step_feedback(
    geolin_workspace *ws, int method, double h, const double *H, const double *s, const double *v,
    const double *r, const double *tau, const double *kp, const double *kd, const double *s_ref,
    const double *r_ref, int nc, const int *frames, const int *types, unsigned wrench_flags,
    const double *gains, const double *refs, double *H_next, double *s_next, double *v_next,
    double *r_next, double *lambda);
GEOLIN_API int geolin_contact_step_feedback_linearize(
    geolin_workspace *ws, int method, double h, const double *H, const double *s, const double *v,
    const double *r, const double *tau, const double *kp, const double *kd, const double *s_ref,
    const double *r_ref, int nc, const int *frames, const int *types, unsigned wrench_flags,
    const double *gains, const double *refs, double *A_d, double *B_d, double *dlambda_dz,
    double *dlambda_dw);

/* ============================================================================================
 * Constraint sets: contacts, closed kinematic loops, coupled joints and rolling wheels
 * (docs/constraints.md)
 * ========================================================================================= */

/* An ordered set of constraints of one model, held during the geolin_constrained_* evaluations.
 * Its rows, and the entries of lambda, come constraint after constraint in the order added
 * (m = geolin_constraints_num_rows). A set is read-only during evaluations: many threads may
 * share one set, but its setters must not run concurrently with an evaluation that uses it. It
 * keeps a pointer to its model: the model must outlive the set. */
typedef struct geolin_constraints geolin_constraints;

/* Loop types: what a loop closure between frames a and b holds, and its number of rows. */
#define GEOLIN_LOOP_POINT 3 /* their origins coincide                                  */
#define GEOLIN_LOOP_HINGE 5 /* their origins coincide and their z axes stay parallel    */
#define GEOLIN_LOOP_RIGID 6 /* the two frames coincide                                  */

/* Create an empty set for model (gains 0, 0; GEOLIN_WRENCH_LOCAL). out receives it (free it with
 * geolin_constraints_free); set to NULL on failure. Errors: INVALID_ARGUMENT (NULL), MEMORY. */
GEOLIN_API int geolin_constraints_new(const geolin_model *model, geolin_constraints **out);

/* Free a set. NULL is a no-op. */
GEOLIN_API void geolin_constraints_free(geolin_constraints *set);

/* Add a frame held by the world, as geolin_contact_dynamics holds it: type GEOLIN_CONTACT_POINT
 * (3 rows: the frame origin's world acceleration p_ddot = -Kd p_dot - Kp (p - p_ref)) or
 * GEOLIN_CONTACT_RIGID (6 rows: d/dt(^F v_F) = -Kd ^F v_F - Kp log(H_ref^-1 H_F)); ref: NULL or
 * H_ref[16] (column-major; a point uses its translation), required when the set's Kp != 0 (the
 * evaluation refuses a set whose contact has none). lambda: the force (wrench) the environment
 * applies ON the robot at the frame origin, in the set's axes. */
GEOLIN_API int geolin_constraints_add_contact(geolin_constraints *set, int frame, int type,
                                              const double *ref);

/* Add a loop closure between two distinct frames of the robot (on distinct bodies):
 *   GEOLIN_LOOP_POINT: e = p_a - p_b = 0, held as e_ddot = -Kd e_dot - Kp e (3 rows);
 *   GEOLIN_LOOP_HINGE: the POINT rows, then two rows that keep frame b's z axis parallel to
 *                      frame a's: the relative angular acceleration about frame a's x and y axes
 *                      (always in frame a's axes), with the error n_y, -n_x of n = z_b in a's
 *                      axes (5 rows);
 *   GEOLIN_LOOP_RIGID: as a rigid contact with H_ref = H_b: the relative twist is the body twist
 *                      of H_b^-1 H_a, held as d/dt v = -Kd v - Kp log(H_b^-1 H_a) (6 rows).
 * lambda: the force (and torque) that frame_b's body applies ON frame_a's body at frame_a's
 * origin, in frame a's axes (GEOLIN_WRENCH_LOCAL) or world axes (GEOLIN_WRENCH_MIXED); the
 * opposite acts on frame_b's body (a POINT loop's force at frame_b's origin, where e = 0 puts
 * frame a's). A loop counts as two wrenches of the workspace's max_wrenches. */
GEOLIN_API int geolin_constraints_add_loop(geolin_constraints *set, int frame_a, int frame_b,
                                           int type);

/* Add a joint coupling s[joint] = ratio * s[source] + offset (1 row, held as
 * e_ddot = -Kd e_dot - Kp e, e = s[joint] - ratio s[source] - offset; lambda: the generalized
 * force on joint, -ratio times it on source). Joint indices in [0, n_J), distinct; ratio and
 * offset finite, ratio != 0; a coupling that would close a cycle of couplings is refused. */
GEOLIN_API int geolin_constraints_add_coupling(geolin_constraints *set, int joint, int source,
                                               double ratio, double offset);

/* Add every URDF <mimic> of the model as a coupling (joint = the mimicking joint, source = the
 * joint it mimics, ratio = multiplier, offset = offset), in the model's joint order (that of
 * geolin_model_joint_name). Returns the number added (>= 0) or a negative status (nothing added
 * then: e.g. INVALID_ARGUMENT when a mimic would close a cycle with the set's couplings). */
GEOLIN_API int geolin_constraints_add_mimic_joints(geolin_constraints *set);

/* Add a thin wheel of the given radius (> 0, m) rolling without slipping on the ground plane
 * z = 0 of the world: frame's origin is the wheel centre, axis[3] its spin axis in frame
 * coordinates (normalized here; zero or non-finite refused). 3 rows, docs/constraints.md §2.4:
 * the rim point P nearest the plane lies on it (holonomic: P_z_ddot = -Kd P_z_dot - Kp P_z, the
 * set's gains), and the wheel's material point at P has zero velocity along the world's x and y
 * axes (non-holonomic: d/dt v_P = 0, no gains). lambda: the ground's force ON the wheel at P,
 * world axes [fx, fy, fz], whatever the set's axes. An impact (geolin_constrained_impulse) stops
 * P's velocity along all three axes; restitution scales the normal (z) part only. Refused
 * (INVALID_ARGUMENT, naming the wheel) when the axis is normal to the plane (|a_z| > 1 - 1e-6 in
 * world axes) at the model's neutral configuration (s = 0, the base at the origin); an
 * evaluation at a state where it is returns NUMERIC naming the wheel (the rim point nearest the
 * plane is not defined there). */
GEOLIN_API int geolin_constraints_add_wheel(geolin_constraints *set, int frame, const double *axis,
                                            double radius);

/* Baumgarte gains of every holonomic row (default 0, 0; finite, >= 0) and the axes of contact
 * and loop forces (GEOLIN_WRENCH_LOCAL, the default, or GEOLIN_WRENCH_MIXED), as
 * geolin_contact_dynamics. */
GEOLIN_API int geolin_constraints_set_gains(geolin_constraints *set, double kp, double kd);
GEOLIN_API int geolin_constraints_set_axes(geolin_constraints *set, unsigned wrench_flags);

/* Set (ref: H_ref[16], a rigid transform) or clear (ref NULL) the reference pose of a contact:
 * k is its index among the set's constraints, in the order added. */
GEOLIN_API int geolin_constraints_set_ref(geolin_constraints *set, int k, const double *ref);

/* m, the number of rows (the length of lambda); -1 if set is NULL. */
GEOLIN_API int geolin_constraints_num_rows(const geolin_constraints *set);

/* The set's functions: as geolin_contact_dynamics, geolin_contact_linearize,
 * geolin_contact_step(_feedback)(_linearize), geolin_impulse and geolin_impulse_linearize, with
 * the set in place of (nc, frames, types, wrench_flags, gains, refs); lambda, dlambda_dz,
 * dlambda_dw, impulse and dimpulse_dz have m rows in the order of the set's constraints and
 * rows. The set must be of the workspace's model (else INVALID_ARGUMENT naming 'set'); its
 * constraints count against the workspace's max_wrenches (a loop as two) and m <= n. The
 * workspace's contact regularization mu applies to every row: redundant sets (a loop that
 * repeats a coupling, a hinge plus a point, two coaxial wheels on one axle, whose lateral rows
 * are identical) are refused with mu = 0 (NUMERIC, naming the constraint and row) and solved
 * softly with mu > 0 (e.g. 1e-12). With an empty set each equals its unconstrained counterpart
 * exactly, and a set of contacts only the geolin_contact_* / geolin_impulse* call with the same
 * arguments exactly. Impacts: loops and couplings are plastic (their rows' velocity stops), a
 * wheel's contact point stops along x, y and z with restitution on z only, a contact as
 * geolin_impulse. Needs GEOLIN_WORKSPACE_CONTACTS (with LINEARIZE for the linearizations,
 * STEP_LINEARIZE for the step's). */
GEOLIN_API int geolin_constrained_dynamics(geolin_workspace *ws, const geolin_constraints *set,
                                           const double *H, const double *s, const double *v,
                                           const double *r, const double *tau, double *nu_dot,
                                           double *lambda);
GEOLIN_API int geolin_constrained_linearize(geolin_workspace *ws, const geolin_constraints *set,
                                            const double *H, const double *s, const double *v,
                                            const double *r, const double *tau, double *A,
                                            double *B, double *dlambda_dz, double *dlambda_dw);
GEOLIN_API int geolin_constrained_step(geolin_workspace *ws, const geolin_constraints *set,
                                       int method, double h, const double *H, const double *s,
                                       const double *v, const double *r, const double *tau,
                                       double *H_next, double *s_next, double *v_next,
                                       double *r_next, double *lambda);
GEOLIN_API int geolin_constrained_step_linearize(geolin_workspace *ws,
                                                 const geolin_constraints *set, int method,
                                                 double h, const double *H, const double *s,
                                                 const double *v, const double *r,
                                                 const double *tau, double *A_d, double *B_d,
                                                 double *dlambda_dz, double *dlambda_dw);
GEOLIN_API int geolin_constrained_step_feedback(geolin_workspace *ws, const geolin_constraints *set,
                                                int method, double h, const double *H,
                                                const double *s, const double *v, const double *r,
                                                const double *tau, const double *kp,
                                                const double *kd, const double *s_ref,
                                                const double *r_ref, double *H_next, double *s_next,
                                                double *v_next, double *r_next, double *lambda);
GEOLIN_API int geolin_constrained_step_feedback_linearize(
    geolin_workspace *ws, const geolin_constraints *set, int method, double h, const double *H,
    const double *s, const double *v, const double *r, const double *tau, const double *kp,
    const double *kd, const double *s_ref, const double *r_ref, double *A_d, double *B_d,
    double *dlambda_dz, double *dlambda_dw);
GEOLIN_API int geolin_constrained_impulse(geolin_workspace *ws, const geolin_constraints *set,
                                          double restitution, const double *H, const double *s,
                                          const double *v, const double *r, double *v_next,
                                          double *r_next, double *impulse);
GEOLIN_API int geolin_constrained_impulse_linearize(
    geolin_workspace *ws, const geolin_constraints *set, double restitution, const double *H,
    const double *s, const double *v, const double *r, double *A_imp, double *dimpulse_dz);

/* ============================================================================================
 * Costs and constraints (docs/dynamics.md §11): what an MPC's cost and constraint terms need,
 * each with its derivative in the coordinates of geolin_linearize. Matrices with N columns are
 * in the order of z = [z_H; z_s; z_v; z_r] (fixed base: z = [z_s; z_r], N = 2 n_J). Fixed base:
 * H and v may be NULL. Every workspace serves them (no feature needed); outputs must not
 * overlap; on any error nothing is written.
 * ========================================================================================= */

/* Centre of mass p_c of the whole robot in the inertial frame, its velocity, and its Jacobian:
 * p_c(x exp(z)) = p_c + J_com [z_H; z_s] + O(z^2) and p_c_dot = J_com nu.
 *   in:  H[16], s[n_J], v[6], r[n_J]
 *   out: com[3], com_velocity[3], J_com[3 * n] (column-major); any output may be NULL.
 * GEOLIN_ERR_NUMERIC if the model has no mass. */
GEOLIN_API int geolin_center_of_mass(geolin_workspace *ws, const double *H, const double *s,
                                     const double *v, const double *r, double *com,
                                     double *com_velocity, double *J_com);

/* Centroidal momentum h_G = [linear; angular] about the centre of mass, in inertial-frame axes,
 * h_G = A_G nu with the centroidal momentum matrix A_G (Orin, Lee & Goswami 2013); its linear
 * part is m p_c_dot.
 *   in:  H[16], s[n_J], v[6], r[n_J]
 *   out: h_G[6], A_G[6 * n], dh_dz[6 * N] (column-major); A_G and dh_dz may be NULL.
 * The z_v, z_r columns of dh_dz are A_G. GEOLIN_ERR_NUMERIC if the model has no mass. */
GEOLIN_API int geolin_centroidal_momentum(geolin_workspace *ws, const double *H, const double *s,
                                          const double *v, const double *r, double *h_G,
                                          double *A_G, double *dh_dz);

/* The pose error of a frame against a target, e = log_SE3(H_ref^-1 H_F) (6, linear first, as
 * the rigid contact's Kp term), and its derivative de_dz (zero in the velocity columns; at
 * H_ref = H_F it is the frame Jacobian on [z_H; z_s]).
 *   in:  H[16], s[n_J], frame in [0, num_frames), H_ref[16] (4x4 column-major, a rigid
 *        transform within 1e-6: else GEOLIN_ERR_INVALID_ARGUMENT naming 'H_ref')
 *   out: error[6], de_dz[6 * N]; de_dz may be NULL. */
GEOLIN_API int geolin_frame_pose_error(geolin_workspace *ws, const double *H, const double *s,
                                       int frame, const double *H_ref, double *error,
                                       double *de_dz);

/* A frame's velocity: with flags GEOLIN_WRENCH_LOCAL the body twist ^F v_F (F's axes), with
 * GEOLIN_WRENCH_MIXED the origin's velocity and the angular velocity in inertial axes; and its
 * derivative dtwist_dz.
 *   in:  H[16], s[n_J], v[6], r[n_J], frame, flags
 *   out: twist[6], dtwist_dz[6 * N]; dtwist_dz may be NULL. */
GEOLIN_API int geolin_frame_velocity(geolin_workspace *ws, const double *H, const double *s,
                                     const double *v, const double *r, int frame, unsigned flags,
                                     double *twist, double *dtwist_dz);

/* A frame's classical acceleration [p_ddot; omega_dot] (the origin's acceleration, not the
 * spatial acceleration, and the angular acceleration), in F's axes (GEOLIN_WRENCH_LOCAL) or
 * inertial axes (GEOLIN_WRENCH_MIXED), for the generalized acceleration nu_dot; its derivative
 * dacc_dz at fixed nu_dot and dacc_dnudot (the frame Jacobian in the same axes).
 *   in:  H[16], s[n_J], v[6], r[n_J], nu_dot[n], frame, flags
 *   out: acc[6], dacc_dz[6 * N], dacc_dnudot[6 * n]; either derivative may be NULL. */
GEOLIN_API int geolin_frame_acceleration(geolin_workspace *ws, const double *H, const double *s,
                                         const double *v, const double *r, const double *nu_dot,
                                         int frame, unsigned flags, double *acc, double *dacc_dz,
                                         double *dacc_dnudot);

/* ============================================================================================
 * State algebra (docs/conventions.md "The state algebra"; docs/dynamics.md (D15), (D40)-(D44)):
 * the group operations on the state x = (H, s, v, r) of G = SE(3) x R^n_J x R^6 x R^n_J and
 * their Jacobians, in the coordinates z = [z_H; z_s; z_v; z_r] (N = 2 n entries; fixed base:
 * z = [z_s; z_r], N = 2 n_J) of geolin_linearize: what a state cost and the chain rule of an MPC
 * need. They take the model, not a workspace: no allocation, no locks, callable from any number
 * of threads at once.
 * Inputs: H, H0, H1 rigid transforms within 1e-6 (else GEOLIN_ERR_INVALID_ARGUMENT naming the
 * argument), every input finite (GEOLIN_ERR_NONFINITE naming the argument and the index).
 * Outputs: GEOLIN_OK means every entry written is finite; a result that is not (an overflow,
 * inputs near 1e308) is GEOLIN_ERR_NUMERIC and nothing is written. Outputs must not overlap
 * each other. Fixed base: H, v (and H0, H1, v0, v1, H_out, v_out) may be NULL; they are ignored.
 * Rotation angle pi: log(x0^-1 x1) returns the rotation vector of angle in [0, pi]; at exactly pi
 * (R0^T R1 symmetric), where both +pi n and -pi n are logs, it returns the one whose first
 * largest-magnitude component is positive.
 * ========================================================================================= */

/* x_out = x exp(z): H_out = H exp(z_H^), s_out = s + z_s, v_out = v + z_v, r_out = r + z_r.
 * in: H[16], s[n_J], v[6], r[n_J], z[N]; out: H_out[16], s_out[n_J], v_out[6], r_out[n_J]
 * (may alias the inputs). Fixed base: H, v, H_out, v_out may be NULL; N = 2 n_J. */
GEOLIN_API int geolin_state_integrate(const geolin_model *model, const double *H, const double *s,
                                      const double *v, const double *r, const double *z,
                                      double *H_out, double *s_out, double *v_out, double *r_out);

/* z = log(x0^-1 x1), the z with x0 exp(z) = x1 (the rotation's angle in [0, pi]); out: z[N].
 * in: H0[16], s0[n_J], v0[6], r0[n_J], H1[16], s1[n_J], v1[6], r1[n_J]. z = [log_SE3(H0^-1 H1);
 * s1 - s0; v1 - v0; r1 - r0]; at an angle of exactly pi, the log of the section comment. Fixed
 * base: H0, v0, H1, v1 may be NULL. */
GEOLIN_API int geolin_state_difference(const geolin_model *model, const double *H0,
                                       const double *s0, const double *v0, const double *r0,
                                       const double *H1, const double *s1, const double *v1,
                                       const double *r1, double *z);

/* Jacobians of x_out = x exp(z) in the left-trivialized coordinates of x_out:
 *   (x exp(dx)) exp(z + dz) = x_out exp(d_dx dx + d_dz dz) + O(|dx|^2 + |dz|^2).
 * out: d_dx[N*N], d_dz[N*N], column-major, either may be NULL; v and r are not read.
 * d_dx = blockdiag(Ad_{exp(z_H)}^-1, 1), d_dz = blockdiag(J_r(z_H), 1) (J_r the right Jacobian
 * of the SE(3) exponential); both depend on z only (fixed base: the identity; H may be NULL). */
GEOLIN_API int geolin_state_integrate_derivatives(const geolin_model *model, const double *H,
                                                  const double *s, const double *v, const double *r,
                                                  const double *z, double *d_dx, double *d_dz);

/* Jacobians of z = log(x0^-1 x1) for x0 exp(dx0), x1 exp(dx1):
 *   z' = z + dz_dx0 dx0 + dz_dx1 dx1 + O(|dx|^2).
 * out: dz_dx0[N*N], dz_dx1[N*N], column-major, either may be NULL; v0, r0, v1, r1 not read.
 * dz_dx0 = blockdiag(-J_l(z_H)^-1, -1), dz_dx1 = blockdiag(J_r(z_H)^-1, 1) at z_H = log(H0^-1 H1)
 * (fixed base: -1 and 1; H0, H1 may be NULL). */
GEOLIN_API int geolin_state_difference_derivatives(const geolin_model *model, const double *H0,
                                                   const double *s0, const double *v0,
                                                   const double *r0, const double *H1,
                                                   const double *s1, const double *v1,
                                                   const double *r1, double *dz_dx0,
                                                   double *dz_dx1);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GEOLIN_H_ */
