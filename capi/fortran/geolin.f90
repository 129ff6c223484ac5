! Fortran 2008 bindings of the geolin C API (geolin.h), through iso_c_binding.
!
! Every C function has an interface of the same name. Matrices are column-major on both sides,
! so a Fortran array A(N, N) is passed as is. Handles are type(c_ptr). Strings going in must be
! NUL-terminated: use geolin_c_string('file.urdf'); strings coming back (type(c_ptr)) are
! converted with geolin_f_string. Arguments that the C API allows to be NULL (H and v for a
! fixed-base model, the outputs of geolin_version) are optional: leave them out.
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

  ! Load flags (C: unsigned; the same bits in a C int)
  integer(c_int), parameter, public :: GEOLIN_FIXED_BASE = 1
  integer(c_int), parameter, public :: GEOLIN_JOINT_DAMPING = 2

  ! Version of the header these bindings were written for
  integer, parameter, public :: GEOLIN_VERSION_MAJOR = 0
  integer, parameter, public :: GEOLIN_VERSION_MINOR = 1
  integer, parameter, public :: GEOLIN_VERSION_PATCH = 0

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

    ! ---------------------------------------------------------------- workspaces
    function geolin_workspace_new(model, out) bind(c, name='geolin_workspace_new')
      import :: c_int, c_ptr
      type(c_ptr), value :: model
      type(c_ptr), intent(out) :: out
      integer(c_int) :: geolin_workspace_new
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

  !> Convenience: load a URDF file given as a Fortran string.
  function geolin_load(path, flags, model) result(status)
    character(len=*), intent(in) :: path
    integer(c_int), intent(in) :: flags
    type(c_ptr), intent(out) :: model
    integer(c_int) :: status
    status = geolin_model_load_urdf(geolin_c_string(path), flags, model)
  end function

  !> Convenience: the name of joint k (0-based) as a Fortran string.
  function geolin_joint_name(model, k) result(name)
    type(c_ptr), intent(in) :: model
    integer, intent(in) :: k
    character(len=:), allocatable :: name
    name = geolin_f_string(geolin_model_joint_name(model, int(k, c_int)))
  end function
end module geolin
