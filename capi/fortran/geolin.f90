! Fortran 2018 bindings of the geolin C API (geolin.h), through iso_c_binding.
!
! Standard: Fortran 2018 (compile with gfortran -std=f2018 or without -std). The only feature
! beyond Fortran 2008 is OPTIONAL dummy arguments of BIND(C) interfaces, which pass NULL when
! absent (Fortran 2018, before that ISO/IEC TS 29113); `gfortran -std=f2008` refuses them.
!
! Every C function has an interface of the same name. Matrices are column-major on both sides,
! so a Fortran array A(N, N) is passed as is. Handles are type(c_ptr). Strings going in must be
! NUL-terminated: use geolin_c_string('file.urdf'); strings coming back (type(c_ptr)) are
! converted with geolin_f_string. Arguments that the C API allows to be NULL (H and v for a
! fixed-base model, H_next and v_next of geolin_step and geolin_contact_step for a fixed-base
! model, v and v_next of geolin_impulse for a fixed-base model, frames and wrenches when nf = 0,
! frames, types, gains, refs and lambda of the contact functions, dlambda_dz and dlambda_dw,
! kp, kd, s_ref and r_ref of the *_step_feedback functions, ref of geolin_constraints_add_contact
! and _set_ref, lambda, H_next, v_next (fixed base) of the geolin_constrained_* functions,
! impulse and dimpulse_dz, the outputs of geolin_version, H, v, H_out, v_out of the state
! algebra for a fixed-base model, the velocities and either Jacobian of its derivatives) are
! optional: leave them out. Frame,
! joint and body indices are 0-based, as in C. C unsigned arguments (flags, features) are
! integer(c_int) here, with the same bits.
!
!   use geolin
!   type(c_ptr) :: model, ws
!   integer(c_int) :: st
!   st = geolin_model_load_urdf(geolin_c_string('robot.urdf'), 0_c_int, model)
!   if (st /= GEOLIN_OK) print *, geolin_error_message(st)
module geolin
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_char, c_ptr, c_null_ptr, &
                                         c_null_char, c_associated, c_f_pointer, c_size_t
  implicit none
  private :: c_int, c_double, c_char, c_ptr, c_null_ptr, c_null_char, c_associated, &
             c_f_pointer, c_size_t

  ! Status codes
  integer(c_int), parameter, public :: GEOLIN_OK = 0
  integer(c_int), parameter, public :: GEOLIN_ERR_INVALID_ARGUMENT = 1
  integer(c_int), parameter, public :: GEOLIN_ERR_IO = 2
  integer(c_int), parameter, public :: GEOLIN_ERR_PARSE = 3
  integer(c_int), parameter, public :: GEOLIN_ERR_MODEL = 4
  integer(c_int), parameter, public :: GEOLIN_ERR_UNSUPPORTED = 5
  integer(c_int), parameter, public :: GEOLIN_ERR_NONFINITE = 6
  integer(c_int), parameter, public :: GEOLIN_ERR_NUMERIC = 7
  integer(c_int), parameter, public :: GEOLIN_ERR_INTERNAL = 8
  integer(c_int), parameter, public :: GEOLIN_ERR_MEMORY = 9

  ! Load flags (C: unsigned; the same bits in a C int)
  integer(c_int), parameter, public :: GEOLIN_FIXED_BASE = 1
  integer(c_int), parameter, public :: GEOLIN_JOINT_DAMPING = 2

  ! Version of the header these bindings were written for
  integer, parameter, public :: GEOLIN_VERSION_MAJOR = 0
  integer, parameter, public :: GEOLIN_VERSION_MINOR = 5
  integer, parameter, public :: GEOLIN_VERSION_PATCH = 0

  ! wrench_flags of geolin_forward_dynamics_ext / geolin_linearize_ext (C: unsigned)
  integer(c_int), parameter, public :: GEOLIN_WRENCH_LOCAL = 0 ! in the frame's own axes
  integer(c_int), parameter, public :: GEOLIN_WRENCH_MIXED = 1 ! axes parallel to the inertial frame

  ! Integration methods of geolin_step / geolin_step_linearize
  integer(c_int), parameter, public :: GEOLIN_STEP_SEMI_IMPLICIT_EULER = 0
  integer(c_int), parameter, public :: GEOLIN_STEP_RK4 = 1
  ! semi-implicit Euler with the joint damping implicit: nu+ = nu + h (M + h D)^-1 f, D =
  ! diag(0_6, d), d = the model's damping (GEOLIN_JOINT_DAMPING) + kd of the *_step_feedback
  ! functions
  integer(c_int), parameter, public :: GEOLIN_STEP_IMPLICIT_EULER = 2

  ! Features of geolin_workspace_new_ex / geolin_workspace_bytes (bitwise or, e.g. with ior;
  ! C: unsigned)
  integer(c_int), parameter, public :: GEOLIN_WORKSPACE_DYNAMICS = 0
  integer(c_int), parameter, public :: GEOLIN_WORKSPACE_MASS_MATRIX = 1
  integer(c_int), parameter, public :: GEOLIN_WORKSPACE_LINEARIZE = 2
  integer(c_int), parameter, public :: GEOLIN_WORKSPACE_FINITE_DIFFERENCE = 4
  integer(c_int), parameter, public :: GEOLIN_WORKSPACE_STEP_LINEARIZE = 8
  integer(c_int), parameter, public :: GEOLIN_WORKSPACE_CONTACTS = 16
  integer(c_int), parameter, public :: GEOLIN_WORKSPACE_ALL = 31

  ! Contact types of geolin_contact_dynamics / geolin_contact_linearize (= rows of lambda)
  integer(c_int), parameter, public :: GEOLIN_CONTACT_POINT = 3 ! the frame origin is held
  integer(c_int), parameter, public :: GEOLIN_CONTACT_RIGID = 6 ! the whole frame is held

  ! Loop types of geolin_constraints_add_loop (= rows of lambda)
  integer(c_int), parameter, public :: GEOLIN_LOOP_POINT = 3 ! the origins of frames a, b coincide
  integer(c_int), parameter, public :: GEOLIN_LOOP_HINGE = 5 ! ... and their z axes stay parallel
  integer(c_int), parameter, public :: GEOLIN_LOOP_RIGID = 6 ! the two frames coincide

  interface
    ! ---------------------------------------------------------------- errors
    function geolin_last_error() bind(c, name='geolin_last_error')
      import :: c_ptr
      type(c_ptr) :: geolin_last_error
    end function

    function geolin_status_string(status) bind(c, name='geolin_status_string')
      import :: c_ptr, c_int
      integer(c_int), value :: status
      type(c_ptr) :: geolin_status_string
    end function

    ! ---------------------------------------------------------------- versions
    subroutine geolin_version(major, minor, patch) bind(c, name='geolin_version')
      import :: c_int
      integer(c_int), intent(out), optional :: major, minor, patch
    end subroutine

    ! ---------------------------------------------------------------- models
    function geolin_model_load_urdf(path, flags, out) bind(c, name='geolin_model_load_urdf')
      import :: c_int, c_char, c_ptr
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: flags
      type(c_ptr), intent(out) :: out
      integer(c_int) :: geolin_model_load_urdf
    end function

    function geolin_model_load_urdf_string(xml, flags, out) &
        bind(c, name='geolin_model_load_urdf_string')
      import :: c_int, c_char, c_ptr
      character(kind=c_char), intent(in) :: xml(*)
      integer(c_int), value :: flags
      type(c_ptr), intent(out) :: out
      integer(c_int) :: geolin_model_load_urdf_string
    end function

    subroutine geolin_model_free(model) bind(c, name='geolin_model_free')
      import :: c_ptr
      type(c_ptr), value :: model
    end subroutine

    function geolin_model_num_joints(model) bind(c, name='geolin_model_num_joints')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int) :: geolin_model_num_joints
    end function

    function geolin_model_num_dofs(model) bind(c, name='geolin_model_num_dofs')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int) :: geolin_model_num_dofs
    end function

    function geolin_model_state_dim(model) bind(c, name='geolin_model_state_dim')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int) :: geolin_model_state_dim
    end function

    function geolin_model_num_bodies(model) bind(c, name='geolin_model_num_bodies')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int) :: geolin_model_num_bodies
    end function

    function geolin_model_is_fixed_base(model) bind(c, name='geolin_model_is_fixed_base')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int) :: geolin_model_is_fixed_base
    end function

    function geolin_model_parent(model, body) bind(c, name='geolin_model_parent')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: body
      integer(c_int) :: geolin_model_parent
    end function

    function geolin_model_num_children(model, body) bind(c, name='geolin_model_num_children')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: body
      integer(c_int) :: geolin_model_num_children
    end function

    function geolin_model_child(model, body, k) bind(c, name='geolin_model_child')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: body, k
      integer(c_int) :: geolin_model_child
    end function

    function geolin_model_body_name(model, body) bind(c, name='geolin_model_body_name')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: body
      type(c_ptr) :: geolin_model_body_name
    end function

    function geolin_model_joint_name(model, joint) bind(c, name='geolin_model_joint_name')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: joint
      type(c_ptr) :: geolin_model_joint_name
    end function

    function geolin_model_joint_index(model, name) bind(c, name='geolin_model_joint_index')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: model
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: geolin_model_joint_index
    end function

    function geolin_model_total_mass(model) bind(c, name='geolin_model_total_mass')
      import :: c_double, c_ptr
      type(c_ptr), value :: model
      real(c_double) :: geolin_model_total_mass
    end function

    ! A copy of model whose joints carry reflected rotor inertias armature(n_J) (finite, >= 0;
    ! kg m^2, kg for a prismatic joint): every function of it uses M(s) + diag(0_6, armature).
    ! out receives the new model (free it with geolin_model_free), c_null_ptr on failure.
    function geolin_model_with_armature(model, armature, out) &
      bind(c, name='geolin_model_with_armature')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: model
      real(c_double), intent(in) :: armature(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: geolin_model_with_armature
    end function

    ! As geolin_model_with_armature, from an SRDF's <rotor_params> (Pinocchio's format): the joints
    ! named get I_rotor * gear_ratio^2. path: a NUL-terminated string (geolin_c_string).
    function geolin_model_with_srdf_rotor_params(model, path, out) &
      bind(c, name='geolin_model_with_srdf_rotor_params')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: model
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: geolin_model_with_srdf_rotor_params
    end function

    ! The model's armature(n_J) (zeros for a model loaded from URDF).
    function geolin_model_armature(model, armature) bind(c, name='geolin_model_armature')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: model
      real(c_double), intent(inout) :: armature(*)
      integer(c_int) :: geolin_model_armature
    end function

    function geolin_model_num_frames(model) bind(c, name='geolin_model_num_frames')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int) :: geolin_model_num_frames
    end function

    function geolin_model_frame_name(model, frame) bind(c, name='geolin_model_frame_name')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: frame
      type(c_ptr) :: geolin_model_frame_name
    end function

    function geolin_model_frame_index(model, name) bind(c, name='geolin_model_frame_index')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: model
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: geolin_model_frame_index
    end function

    ! ---------------------------------------------------------------- workspaces
    function geolin_workspace_new(model, out) bind(c, name='geolin_workspace_new')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      type(c_ptr), intent(out) :: out
      integer(c_int) :: geolin_workspace_new
    end function

    ! A workspace sized for features (GEOLIN_WORKSPACE_* bits) and max_wrenches wrenches or
    ! contacts per call
    function geolin_workspace_new_ex(model, features, max_wrenches, out) &
        bind(c, name='geolin_workspace_new_ex')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: features, max_wrenches
      type(c_ptr), intent(out) :: out
      integer(c_int) :: geolin_workspace_new_ex
    end function

    ! The bytes geolin_workspace_new_ex would allocate (0 on a bad argument)
    function geolin_workspace_bytes(model, features, max_wrenches) &
        bind(c, name='geolin_workspace_bytes')
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: model
      integer(c_int), value :: features, max_wrenches
      integer(c_size_t) :: geolin_workspace_bytes
    end function

    subroutine geolin_workspace_free(ws) bind(c, name='geolin_workspace_free')
      import :: c_ptr
      type(c_ptr), value :: ws
    end subroutine

    function geolin_workspace_set_gravity(ws, g) bind(c, name='geolin_workspace_set_gravity')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in) :: g(3)
      integer(c_int) :: geolin_workspace_set_gravity
    end function

    ! Contact regularization mu >= 0 of this workspace (default 0: redundant sets are refused).
    function geolin_workspace_set_contact_regularization(ws, mu) &
        bind(c, name='geolin_workspace_set_contact_regularization')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), value :: mu
      integer(c_int) :: geolin_workspace_set_contact_regularization
    end function

    ! ---------------------------------------------------------------- dynamics
    ! H(16) (4x4 column-major, i.e. H(4,4)), s(n_J), v(6), r(n_J), tau(n_J) -> nu_dot(n)
    function geolin_forward_dynamics(ws, H, s, v, r, tau, nu_dot) &
        bind(c, name='geolin_forward_dynamics')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(inout) :: nu_dot(*)
      integer(c_int) :: geolin_forward_dynamics
    end function

    ! -> generalized_force(n) = [base wrench; joint torques]
    function geolin_inverse_dynamics(ws, H, s, v, r, nu_dot, generalized_force) &
        bind(c, name='geolin_inverse_dynamics')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), nu_dot(*)
      real(c_double), intent(inout) :: generalized_force(*)
      integer(c_int) :: geolin_inverse_dynamics
    end function

    ! s(n_J) -> M(n, n)
    function geolin_mass_matrix(ws, s, M) bind(c, name='geolin_mass_matrix')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in) :: s(*)
      real(c_double), intent(inout) :: M(*)
      integer(c_int) :: geolin_mass_matrix
    end function

    ! s(n_J) -> Minv(n, n)
    function geolin_mass_matrix_inverse(ws, s, Minv) bind(c, name='geolin_mass_matrix_inverse')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in) :: s(*)
      real(c_double), intent(inout) :: Minv(*)
      integer(c_int) :: geolin_mass_matrix_inverse
    end function

    ! ---------------------------------------------------------------- linearization
    ! -> generalized_force(n) as geolin_inverse_dynamics, dtau_dz(n, N) its derivative in
    !    z = [z_H; z_s; z_v; z_r] at fixed nu_dot, M(n, n) its derivative in nu_dot (the mass
    !    matrix); dtau_dz and M are optional (absent: not computed), N = 2 n
    function geolin_inverse_dynamics_linearize(ws, H, s, v, r, nu_dot, generalized_force, &
        dtau_dz, M) bind(c, name='geolin_inverse_dynamics_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), nu_dot(*)
      real(c_double), intent(inout) :: generalized_force(*)
      real(c_double), intent(inout), optional :: dtau_dz(*), M(*)
      integer(c_int) :: geolin_inverse_dynamics_linearize
    end function

    ! -> A(N, N), B(N, n_J), N = 2 n
    function geolin_linearize(ws, H, s, v, r, tau, A, B) bind(c, name='geolin_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(inout) :: A(*), B(*)
      integer(c_int) :: geolin_linearize
    end function

    function geolin_linearize_finite_difference(ws, H, s, v, r, tau, eps, A, B) &
        bind(c, name='geolin_linearize_finite_difference')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), value :: eps
      real(c_double), intent(inout) :: A(*), B(*)
      integer(c_int) :: geolin_linearize_finite_difference
    end function

    ! ---------------------------------------------------------------- frames and Jacobians
    ! H(16), s(n_J), frame (0-based) -> H_frame(16) (4x4 column-major)
    function geolin_frame_pose(ws, H, s, frame, H_frame) bind(c, name='geolin_frame_pose')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*)
      real(c_double), intent(in) :: s(*)
      integer(c_int), value :: frame
      real(c_double), intent(inout) :: H_frame(*)
      integer(c_int) :: geolin_frame_pose
    end function

    ! -> J(6, n): the body twist of the frame (linear first, frame axes) is J nu
    function geolin_frame_jacobian(ws, H, s, frame, J) bind(c, name='geolin_frame_jacobian')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*)
      real(c_double), intent(in) :: s(*)
      integer(c_int), value :: frame
      real(c_double), intent(inout) :: J(*)
      integer(c_int) :: geolin_frame_jacobian
    end function

    ! ---------------------------------------------------------------- external wrenches
    ! nf wrenches: frames(nf) (0-based frame indices), wrenches(6, nf) ([force; torque] each),
    ! wrench_flags GEOLIN_WRENCH_LOCAL or GEOLIN_WRENCH_MIXED -> nu_dot(n)
    function geolin_forward_dynamics_ext(ws, H, s, v, r, tau, nf, frames, wrenches, &
                                         wrench_flags, nu_dot) &
        bind(c, name='geolin_forward_dynamics_ext')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      integer(c_int), value :: nf
      integer(c_int), intent(in), optional :: frames(*)
      real(c_double), intent(in), optional :: wrenches(*)
      integer(c_int), value :: wrench_flags
      real(c_double), intent(inout) :: nu_dot(*)
      integer(c_int) :: geolin_forward_dynamics_ext
    end function

    ! -> A(N, N), B(N, n_J + 6 nf): the torque columns, then 6 per wrench
    function geolin_linearize_ext(ws, H, s, v, r, tau, nf, frames, wrenches, wrench_flags, A, B) &
        bind(c, name='geolin_linearize_ext')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      integer(c_int), value :: nf
      integer(c_int), intent(in), optional :: frames(*)
      real(c_double), intent(in), optional :: wrenches(*)
      integer(c_int), value :: wrench_flags
      real(c_double), intent(inout) :: A(*), B(*)
      integer(c_int) :: geolin_linearize_ext
    end function

    ! ---------------------------------------------------------------- contacts
    ! nc contacts: frames(nc) (0-based frame indices), types(nc) (GEOLIN_CONTACT_POINT or
    ! GEOLIN_CONTACT_RIGID), wrench_flags (the axes of lambda), gains(2) = [Kp, Kd] (absent: 0),
    ! refs(16, nc) (reference poses, needed when Kp /= 0) -> nu_dot(n), lambda(m),
    ! m = sum(types)
    function geolin_contact_dynamics(ws, H, s, v, r, tau, nc, frames, types, wrench_flags, &
                                     gains, refs, nu_dot, lambda) &
        bind(c, name='geolin_contact_dynamics')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      integer(c_int), value :: nc
      integer(c_int), intent(in), optional :: frames(*), types(*)
      integer(c_int), value :: wrench_flags
      real(c_double), intent(in), optional :: gains(*), refs(*)
      real(c_double), intent(inout) :: nu_dot(*)
      real(c_double), intent(inout), optional :: lambda(*)
      integer(c_int) :: geolin_contact_dynamics
    end function

    ! -> A(N, N), B(N, n_J), dlambda_dz(m, N), dlambda_dw(m, n_J) (the last two optional)
    function geolin_contact_linearize(ws, H, s, v, r, tau, nc, frames, types, wrench_flags, &
                                      gains, refs, A, B, dlambda_dz, dlambda_dw) &
        bind(c, name='geolin_contact_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      integer(c_int), value :: nc
      integer(c_int), intent(in), optional :: frames(*), types(*)
      integer(c_int), value :: wrench_flags
      real(c_double), intent(in), optional :: gains(*), refs(*)
      real(c_double), intent(inout) :: A(*), B(*)
      real(c_double), intent(inout), optional :: dlambda_dz(*), dlambda_dw(*)
      integer(c_int) :: geolin_contact_linearize
    end function

    ! ---------------------------------------------------------------- costs and constraints
    ! Derivatives in z = [z_H; z_s; z_v; z_r] (fixed base [z_s; z_r]), N columns, column-major.
    ! -> com(3), com_velocity(3), J_com(3, n); every output optional
    function geolin_center_of_mass(ws, H, s, v, r, com, com_velocity, J_com) &
        bind(c, name='geolin_center_of_mass')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*)
      real(c_double), intent(inout), optional :: com(*), com_velocity(*), J_com(*)
      integer(c_int) :: geolin_center_of_mass
    end function

    ! -> h_G(6) (about the centre of mass, inertial axes), A_G(6, n), dh_dz(6, N) (optional)
    function geolin_centroidal_momentum(ws, H, s, v, r, h_G, A_G, dh_dz) &
        bind(c, name='geolin_centroidal_momentum')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*)
      real(c_double), intent(inout) :: h_G(*)
      real(c_double), intent(inout), optional :: A_G(*), dh_dz(*)
      integer(c_int) :: geolin_centroidal_momentum
    end function

    ! H_ref(16) -> error(6) = log(H_ref^-1 H_F), de_dz(6, N) (optional)
    function geolin_frame_pose_error(ws, H, s, frame, H_ref, error, de_dz) &
        bind(c, name='geolin_frame_pose_error')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*)
      real(c_double), intent(in) :: s(*), H_ref(*)
      integer(c_int), value :: frame
      real(c_double), intent(inout) :: error(*)
      real(c_double), intent(inout), optional :: de_dz(*)
      integer(c_int) :: geolin_frame_pose_error
    end function

    ! flags GEOLIN_WRENCH_LOCAL or GEOLIN_WRENCH_MIXED -> twist(6), dtwist_dz(6, N) (optional)
    function geolin_frame_velocity(ws, H, s, v, r, frame, flags, twist, dtwist_dz) &
        bind(c, name='geolin_frame_velocity')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*)
      integer(c_int), value :: frame, flags
      real(c_double), intent(inout) :: twist(*)
      real(c_double), intent(inout), optional :: dtwist_dz(*)
      integer(c_int) :: geolin_frame_velocity
    end function

    ! nu_dot(n) -> acc(6) (classical), dacc_dz(6, N), dacc_dnudot(6, n) (both optional)
    function geolin_frame_acceleration(ws, H, s, v, r, nu_dot, frame, flags, acc, dacc_dz, &
                                       dacc_dnudot) bind(c, name='geolin_frame_acceleration')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), nu_dot(*)
      integer(c_int), value :: frame, flags
      real(c_double), intent(inout) :: acc(*)
      real(c_double), intent(inout), optional :: dacc_dz(*), dacc_dnudot(*)
      integer(c_int) :: geolin_frame_acceleration
    end function

    ! The impact map at touchdown: nc contacts as geolin_contact_dynamics (no gains), the
    ! restitution e in [0, 1] -> v_next(6), r_next(n_J) (nu+), impulse(m) (Lambda, N s, on the
    ! robot; optional). v and v_next are optional for a fixed-base model.
    function geolin_impulse(ws, H, s, v, r, nc, frames, types, wrench_flags, restitution, &
                            v_next, r_next, impulse) &
        bind(c, name='geolin_impulse')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*)
      integer(c_int), value :: nc
      integer(c_int), intent(in), optional :: frames(*), types(*)
      integer(c_int), value :: wrench_flags
      real(c_double), value :: restitution
      real(c_double), intent(inout), optional :: v_next(*)
      real(c_double), intent(inout) :: r_next(*)
      real(c_double), intent(inout), optional :: impulse(*)
      integer(c_int) :: geolin_impulse
    end function

    ! -> A_imp(N, N) (x- exp(z) -> x+ exp(A_imp z)), dimpulse_dz(m, N) (optional)
    function geolin_impulse_linearize(ws, H, s, v, r, nc, frames, types, wrench_flags, &
                                      restitution, A_imp, dimpulse_dz) &
        bind(c, name='geolin_impulse_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*)
      integer(c_int), value :: nc
      integer(c_int), intent(in), optional :: frames(*), types(*)
      integer(c_int), value :: wrench_flags
      real(c_double), value :: restitution
      real(c_double), intent(inout) :: A_imp(*)
      real(c_double), intent(inout), optional :: dimpulse_dz(*)
      integer(c_int) :: geolin_impulse_linearize
    end function

    ! ---------------------------------------------------------------- discrete time
    ! One step of length dt (the C API's h; Fortran names are case-insensitive, and H is the
    ! pose): -> H_next(16), s_next(n_J), v_next(6), r_next(n_J). The C function
    ! accepts outputs that alias its inputs, but Fortran forbids passing one array to two dummy
    ! arguments that are modified: step in place through a copy (H_next = H, ...).
    function geolin_step(ws, method, dt, H, s, v, r, tau, H_next, s_next, v_next, r_next) &
        bind(c, name='geolin_step')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(inout), optional :: H_next(*), v_next(*)
      real(c_double), intent(inout) :: s_next(*), r_next(*)
      integer(c_int) :: geolin_step
    end function

    ! dt (the C API's h) -> A_d(N, N), B_d(N, n_J): z+ = A_d z + B_d w
    function geolin_step_linearize(ws, method, dt, H, s, v, r, tau, A_d, B_d) &
        bind(c, name='geolin_step_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(inout) :: A_d(*), B_d(*)
      integer(c_int) :: geolin_step_linearize
    end function

    ! One step of length dt of geolin_contact_dynamics with the contacts, gains and refs held
    ! (arguments as geolin_step and geolin_contact_dynamics) -> H_next(16), s_next(n_J),
    ! v_next(6), r_next(n_J), lambda(m) (optional: Euler's forces at (x, tau), RK4's weighted
    ! mean of its stages). With nc = 0 it is geolin_step exactly.
    function geolin_contact_step(ws, method, dt, H, s, v, r, tau, nc, frames, types, &
                                 wrench_flags, gains, refs, H_next, s_next, v_next, r_next, &
                                 lambda) &
        bind(c, name='geolin_contact_step')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      integer(c_int), value :: nc
      integer(c_int), intent(in), optional :: frames(*), types(*)
      integer(c_int), value :: wrench_flags
      real(c_double), intent(in), optional :: gains(*), refs(*)
      real(c_double), intent(inout), optional :: H_next(*), v_next(*)
      real(c_double), intent(inout) :: s_next(*), r_next(*)
      real(c_double), intent(inout), optional :: lambda(*)
      integer(c_int) :: geolin_contact_step
    end function

    ! -> A_d(N, N), B_d(N, n_J), dlambda_dz(m, N), dlambda_dw(m, n_J) (the last two optional)
    function geolin_contact_step_linearize(ws, method, dt, H, s, v, r, tau, nc, frames, types, &
                                           wrench_flags, gains, refs, A_d, B_d, dlambda_dz, &
                                           dlambda_dw) &
        bind(c, name='geolin_contact_step_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      integer(c_int), value :: nc
      integer(c_int), intent(in), optional :: frames(*), types(*)
      integer(c_int), value :: wrench_flags
      real(c_double), intent(in), optional :: gains(*), refs(*)
      real(c_double), intent(inout) :: A_d(*), B_d(*)
      real(c_double), intent(inout), optional :: dlambda_dz(*), dlambda_dw(*)
      integer(c_int) :: geolin_contact_step_linearize
    end function

    ! The steps with joint PD feedback inside the step: tau + kp*(s_ref - s) + kd*(r_ref - r)
    ! (elementwise) at every stage. kp, kd (finite, >= 0), s_ref, r_ref (finite; n_J each) are
    ! optional (absent: zeros); with all four absent each is its function without _feedback
    ! exactly. Every argument after an absent one is passed by keyword (H_next=..., nc=...).
    ! With GEOLIN_STEP_IMPLICIT_EULER the kd term is implicit, the kp term explicit.
    function geolin_step_feedback(ws, method, dt, H, s, v, r, tau, kp, kd, s_ref, r_ref, &
                                  H_next, s_next, v_next, r_next) &
        bind(c, name='geolin_step_feedback')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(in), optional :: kp(*), kd(*), s_ref(*), r_ref(*)
      real(c_double), intent(inout), optional :: H_next(*), v_next(*)
      real(c_double), intent(inout) :: s_next(*), r_next(*)
      integer(c_int) :: geolin_step_feedback
    end function

    ! -> A_d(N, N), B_d(N, n_J) of geolin_step_feedback (the feedback is part of z -> z+; w
    ! perturbs tau)
    function geolin_step_feedback_linearize(ws, method, dt, H, s, v, r, tau, kp, kd, s_ref, &
                                            r_ref, A_d, B_d) &
        bind(c, name='geolin_step_feedback_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(in), optional :: kp(*), kd(*), s_ref(*), r_ref(*)
      real(c_double), intent(inout) :: A_d(*), B_d(*)
      integer(c_int) :: geolin_step_feedback_linearize
    end function

    ! geolin_contact_step with the joint feedback of geolin_step_feedback
    function geolin_contact_step_feedback(ws, method, dt, H, s, v, r, tau, kp, kd, s_ref, r_ref, &
                                          nc, frames, types, wrench_flags, gains, refs, H_next, &
                                          s_next, v_next, r_next, lambda) &
        bind(c, name='geolin_contact_step_feedback')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(in), optional :: kp(*), kd(*), s_ref(*), r_ref(*)
      integer(c_int), value :: nc
      integer(c_int), intent(in), optional :: frames(*), types(*)
      integer(c_int), value :: wrench_flags
      real(c_double), intent(in), optional :: gains(*), refs(*)
      real(c_double), intent(inout), optional :: H_next(*), v_next(*)
      real(c_double), intent(inout) :: s_next(*), r_next(*)
      real(c_double), intent(inout), optional :: lambda(*)
      integer(c_int) :: geolin_contact_step_feedback
    end function

    ! -> A_d(N, N), B_d(N, n_J), dlambda_dz(m, N), dlambda_dw(m, n_J) (the last two optional) of
    ! geolin_contact_step_feedback
    function geolin_contact_step_feedback_linearize(ws, method, dt, H, s, v, r, tau, kp, kd, &
                                                    s_ref, r_ref, nc, frames, types, &
                                                    wrench_flags, gains, refs, A_d, B_d, &
                                                    dlambda_dz, dlambda_dw) &
        bind(c, name='geolin_contact_step_feedback_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(in), optional :: kp(*), kd(*), s_ref(*), r_ref(*)
      integer(c_int), value :: nc
      integer(c_int), intent(in), optional :: frames(*), types(*)
      integer(c_int), value :: wrench_flags
      real(c_double), intent(in), optional :: gains(*), refs(*)
      real(c_double), intent(inout) :: A_d(*), B_d(*)
      real(c_double), intent(inout), optional :: dlambda_dz(*), dlambda_dw(*)
      integer(c_int) :: geolin_contact_step_feedback_linearize
    end function

    ! ---------------------------------------------------------------- constraint sets
    ! A set (type(c_ptr)) of one model: contacts, loops, couplings and wheels, in the order added
    ! (their rows, m = geolin_constraints_num_rows, are those of lambda). Free it with
    ! geolin_constraints_free before its model. Indices (frame, joint, k) are 0-based.
    function geolin_constraints_new(model, out) bind(c, name='geolin_constraints_new')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      type(c_ptr), intent(out) :: out
      integer(c_int) :: geolin_constraints_new
    end function

    subroutine geolin_constraints_free(set) bind(c, name='geolin_constraints_free')
      import :: c_ptr
      type(c_ptr), value :: set
    end subroutine

    ! contact_type GEOLIN_CONTACT_POINT or _RIGID; ref(16) (the held pose) optional
    function geolin_constraints_add_contact(set, frame, contact_type, ref) &
        bind(c, name='geolin_constraints_add_contact')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: set
      integer(c_int), value :: frame, contact_type
      real(c_double), intent(in), optional :: ref(*)
      integer(c_int) :: geolin_constraints_add_contact
    end function

    ! loop_type GEOLIN_LOOP_POINT, _HINGE or _RIGID
    function geolin_constraints_add_loop(set, frame_a, frame_b, loop_type) &
        bind(c, name='geolin_constraints_add_loop')
      import :: c_int, c_ptr
      type(c_ptr), value :: set
      integer(c_int), value :: frame_a, frame_b, loop_type
      integer(c_int) :: geolin_constraints_add_loop
    end function

    ! s(joint) = ratio * s(source) + offset
    function geolin_constraints_add_coupling(set, joint, source, ratio, offset) &
        bind(c, name='geolin_constraints_add_coupling')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: set
      integer(c_int), value :: joint, source
      real(c_double), value :: ratio, offset
      integer(c_int) :: geolin_constraints_add_coupling
    end function

    ! -> the number of couplings added (>= 0), or a negative status
    function geolin_constraints_add_mimic_joints(set) &
        bind(c, name='geolin_constraints_add_mimic_joints')
      import :: c_int, c_ptr
      type(c_ptr), value :: set
      integer(c_int) :: geolin_constraints_add_mimic_joints
    end function

    ! axis(3): the spin axis in frame coordinates; radius > 0 (m)
    function geolin_constraints_add_wheel(set, frame, axis, radius) &
        bind(c, name='geolin_constraints_add_wheel')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: set
      integer(c_int), value :: frame
      real(c_double), intent(in) :: axis(*)
      real(c_double), value :: radius
      integer(c_int) :: geolin_constraints_add_wheel
    end function

    function geolin_constraints_set_gains(set, kp, kd) bind(c, name='geolin_constraints_set_gains')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: set
      real(c_double), value :: kp, kd
      integer(c_int) :: geolin_constraints_set_gains
    end function

    ! wrench_flags GEOLIN_WRENCH_LOCAL or GEOLIN_WRENCH_MIXED (C: unsigned)
    function geolin_constraints_set_axes(set, wrench_flags) &
        bind(c, name='geolin_constraints_set_axes')
      import :: c_int, c_ptr
      type(c_ptr), value :: set
      integer(c_int), value :: wrench_flags
      integer(c_int) :: geolin_constraints_set_axes
    end function

    ! ref(16) of contact k; absent: cleared
    function geolin_constraints_set_ref(set, k, ref) bind(c, name='geolin_constraints_set_ref')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: set
      integer(c_int), value :: k
      real(c_double), intent(in), optional :: ref(*)
      integer(c_int) :: geolin_constraints_set_ref
    end function

    function geolin_constraints_num_rows(set) bind(c, name='geolin_constraints_num_rows')
      import :: c_int, c_ptr
      type(c_ptr), value :: set
      integer(c_int) :: geolin_constraints_num_rows
    end function

    ! The geolin_constrained_* functions: as geolin_contact_dynamics, _linearize,
    ! geolin_contact_step(_feedback)(_linearize), geolin_impulse(_linearize), with the set in
    ! place of (nc, frames, types, wrench_flags, gains, refs); lambda(m) (and the m rows of the
    ! derivatives) in the set's order.
    function geolin_constrained_dynamics(ws, set, H, s, v, r, tau, nu_dot, lambda) &
        bind(c, name='geolin_constrained_dynamics')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws, set
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(inout) :: nu_dot(*)
      real(c_double), intent(inout), optional :: lambda(*)
      integer(c_int) :: geolin_constrained_dynamics
    end function

    function geolin_constrained_linearize(ws, set, H, s, v, r, tau, A, B, dlambda_dz, &
                                          dlambda_dw) &
        bind(c, name='geolin_constrained_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws, set
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(inout) :: A(*), B(*)
      real(c_double), intent(inout), optional :: dlambda_dz(*), dlambda_dw(*)
      integer(c_int) :: geolin_constrained_linearize
    end function

    function geolin_constrained_step(ws, set, method, dt, H, s, v, r, tau, H_next, s_next, &
                                     v_next, r_next, lambda) &
        bind(c, name='geolin_constrained_step')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws, set
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(inout), optional :: H_next(*), v_next(*)
      real(c_double), intent(inout) :: s_next(*), r_next(*)
      real(c_double), intent(inout), optional :: lambda(*)
      integer(c_int) :: geolin_constrained_step
    end function

    function geolin_constrained_step_linearize(ws, set, method, dt, H, s, v, r, tau, A_d, B_d, &
                                               dlambda_dz, dlambda_dw) &
        bind(c, name='geolin_constrained_step_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws, set
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(inout) :: A_d(*), B_d(*)
      real(c_double), intent(inout), optional :: dlambda_dz(*), dlambda_dw(*)
      integer(c_int) :: geolin_constrained_step_linearize
    end function

    ! kp, kd, s_ref, r_ref as geolin_step_feedback (optional; pass what follows by keyword)
    function geolin_constrained_step_feedback(ws, set, method, dt, H, s, v, r, tau, kp, kd, &
                                              s_ref, r_ref, H_next, s_next, v_next, r_next, &
                                              lambda) &
        bind(c, name='geolin_constrained_step_feedback')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws, set
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(in), optional :: kp(*), kd(*), s_ref(*), r_ref(*)
      real(c_double), intent(inout), optional :: H_next(*), v_next(*)
      real(c_double), intent(inout) :: s_next(*), r_next(*)
      real(c_double), intent(inout), optional :: lambda(*)
      integer(c_int) :: geolin_constrained_step_feedback
    end function

    function geolin_constrained_step_feedback_linearize(ws, set, method, dt, H, s, v, r, tau, &
                                                        kp, kd, s_ref, r_ref, A_d, B_d, &
                                                        dlambda_dz, dlambda_dw) &
        bind(c, name='geolin_constrained_step_feedback_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws, set
      integer(c_int), value :: method
      real(c_double), value :: dt
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), tau(*)
      real(c_double), intent(in), optional :: kp(*), kd(*), s_ref(*), r_ref(*)
      real(c_double), intent(inout) :: A_d(*), B_d(*)
      real(c_double), intent(inout), optional :: dlambda_dz(*), dlambda_dw(*)
      integer(c_int) :: geolin_constrained_step_feedback_linearize
    end function

    ! loops and couplings are plastic; restitution applies to contacts and wheels' normal rows
    function geolin_constrained_impulse(ws, set, restitution, H, s, v, r, v_next, r_next, &
                                        impulse) &
        bind(c, name='geolin_constrained_impulse')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws, set
      real(c_double), value :: restitution
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*)
      real(c_double), intent(inout), optional :: v_next(*)
      real(c_double), intent(inout) :: r_next(*)
      real(c_double), intent(inout), optional :: impulse(*)
      integer(c_int) :: geolin_constrained_impulse
    end function

    function geolin_constrained_impulse_linearize(ws, set, restitution, H, s, v, r, A_imp, &
                                                  dimpulse_dz) &
        bind(c, name='geolin_constrained_impulse_linearize')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ws, set
      real(c_double), value :: restitution
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*)
      real(c_double), intent(inout) :: A_imp(*)
      real(c_double), intent(inout), optional :: dimpulse_dz(*)
      integer(c_int) :: geolin_constrained_impulse_linearize
    end function

    ! ---------------------------------------------------------------- state algebra
    ! The group operations on x = (H, s, v, r) and their Jacobians, in the coordinates z(N) =
    ! [z_H; z_s; z_v; z_r] of geolin_linearize (fixed base: [z_s; z_r]); they take the model, no
    ! workspace. x_out = x exp(z): H_out(16) = H exp(z_H^), s_out = s + z_s, v_out = v + z_v,
    ! r_out = r + z_r. H, v, H_out, v_out are optional (fixed base). The C function accepts
    ! outputs aliasing its inputs, but Fortran forbids passing one array to two dummy arguments
    ! that are modified: integrate in place through a copy.
    function geolin_state_integrate(model, H, s, v, r, z, H_out, s_out, v_out, r_out) &
        bind(c, name='geolin_state_integrate')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: model
      real(c_double), intent(in), optional :: H(*), v(*)
      real(c_double), intent(in) :: s(*), r(*), z(*)
      real(c_double), intent(inout), optional :: H_out(*), v_out(*)
      real(c_double), intent(inout) :: s_out(*), r_out(*)
      integer(c_int) :: geolin_state_integrate
    end function

    ! z(N) = log(x0^-1 x1), the z with x0 exp(z) = x1 (rotation angle in [0, pi]; at exactly pi
    ! the first largest component of the rotation vector is positive). H0, v0, H1, v1 optional
    ! (fixed base).
    function geolin_state_difference(model, H0, s0, v0, r0, H1, s1, v1, r1, z) &
        bind(c, name='geolin_state_difference')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: model
      real(c_double), intent(in), optional :: H0(*), v0(*), H1(*), v1(*)
      real(c_double), intent(in) :: s0(*), r0(*), s1(*), r1(*)
      real(c_double), intent(inout) :: z(*)
      integer(c_int) :: geolin_state_difference
    end function

    ! -> d_dx(N, N), d_dz(N, N) (optional): (x exp(dx)) exp(z + dz) = x exp(z) exp(d_dx dx +
    ! d_dz dz) to first order. v and r are not read (optional).
    function geolin_state_integrate_derivatives(model, H, s, v, r, z, d_dx, d_dz) &
        bind(c, name='geolin_state_integrate_derivatives')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: model
      real(c_double), intent(in), optional :: H(*), v(*), r(*)
      real(c_double), intent(in) :: s(*), z(*)
      real(c_double), intent(inout), optional :: d_dx(*), d_dz(*)
      integer(c_int) :: geolin_state_integrate_derivatives
    end function

    ! -> dz_dx0(N, N), dz_dx1(N, N) (optional): z' = z + dz_dx0 dx0 + dz_dx1 dx1 to first order
    ! for x0 exp(dx0), x1 exp(dx1). v0, r0, v1, r1 are not read (optional).
    function geolin_state_difference_derivatives(model, H0, s0, v0, r0, H1, s1, v1, r1, dz_dx0, &
                                                 dz_dx1) &
        bind(c, name='geolin_state_difference_derivatives')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: model
      real(c_double), intent(in), optional :: H0(*), v0(*), r0(*), H1(*), v1(*), r1(*)
      real(c_double), intent(in) :: s0(*), s1(*)
      real(c_double), intent(inout), optional :: dz_dx0(*), dz_dx1(*)
      integer(c_int) :: geolin_state_difference_derivatives
    end function

    ! strlen of the C library (used by geolin_f_string)
    function geolin_c_strlen(s) bind(c, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: geolin_c_strlen
    end function
  end interface

contains

  !> A Fortran string as a NUL-terminated C string (trailing blanks removed).
  pure function geolin_c_string(f) result(c)
    character(len=*), intent(in) :: f
    character(kind=c_char, len=len_trim(f) + 1) :: c
    c = trim(f)//c_null_char
  end function

  !> A C string (const char*) as a Fortran string; '' for NULL.
  function geolin_f_string(p) result(f)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: f
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      f = ''
      return
    end if
    n = int(geolin_c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: f)
    do i = 1, n
      f(i:i) = chars(i)
    end do
  end function

  !> "status name: last error message" for a status returned by a geolin function.
  function geolin_error_message(status) result(msg)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: msg
    msg = geolin_f_string(geolin_status_string(status))
    if (status /= GEOLIN_OK) msg = msg//': '//geolin_f_string(geolin_last_error())
  end function

  !> Whether a library of version library(1:3) (major, minor, patch) serves bindings written
  !> for header(1:3) (docs/c-api.md, "Versioning policy"): the same major (ABI, SONAME) version
  !> and a minor version at least the header's (a minor version adds functions).
  pure function geolin_versions_compatible(library, header) result(ok)
    integer, intent(in) :: library(3), header(3)
    logical :: ok
    ok = library(1) == header(1) .and. library(2) >= header(2)
  end function

  !> The run-time check of MuJoCo's mjVERSION_HEADER == mj_version(): geolin_version() against
  !> GEOLIN_VERSION_MAJOR/MINOR of these bindings. Call it once before anything else; on
  !> .false., message (if present) says both versions.
  function geolin_check_version(message) result(ok)
    character(len=:), allocatable, intent(out), optional :: message
    logical :: ok
    integer(c_int) :: major, minor, patch
    integer :: header(3)
    character(len=320) :: text
    call geolin_version(major, minor, patch)
    header = [GEOLIN_VERSION_MAJOR, GEOLIN_VERSION_MINOR, GEOLIN_VERSION_PATCH]
    ok = geolin_versions_compatible([integer :: major, minor, patch], header)
    if (.not. present(message)) return
    write (text, '(a, 3(i0, a), 3(i0, a))') 'geolin: the library is version ', major, '.', &
      minor, '.', patch, ', but these bindings were written for geolin.h ', header(1), '.', &
      header(2), '.', header(3), ': the major (ABI) version must be equal and the minor version'
    message = trim(text)//' of the library at least that of the bindings; link a matching libgeolin'
    if (ok) message = ''
  end function

  !> Convenience: load a URDF file given as a Fortran string.
  function geolin_load(path, flags, model) result(status)
    character(len=*), intent(in) :: path
    integer(c_int), intent(in) :: flags
    type(c_ptr), intent(out) :: model
    integer(c_int) :: status
    status = geolin_model_load_urdf(geolin_c_string(path), flags, model)
  end function

  !> Convenience: the name of frame k (0-based) as a Fortran string.
  function geolin_frame_name(model, k) result(name)
    type(c_ptr), intent(in) :: model
    integer, intent(in) :: k
    character(len=:), allocatable :: name
    name = geolin_f_string(geolin_model_frame_name(model, int(k, c_int)))
  end function

  !> Convenience: the index of the frame called name (a Fortran string); -1 if absent.
  function geolin_frame_index(model, name) result(k)
    type(c_ptr), intent(in) :: model
    character(len=*), intent(in) :: name
    integer(c_int) :: k
    k = geolin_model_frame_index(model, geolin_c_string(name))
  end function

  !> Convenience: the name of joint k (0-based) as a Fortran string.
  function geolin_joint_name(model, k) result(name)
    type(c_ptr), intent(in) :: model
    integer, intent(in) :: k
    character(len=:), allocatable :: name
    name = geolin_f_string(geolin_model_joint_name(model, int(k, c_int)))
  end function
end module geolin
