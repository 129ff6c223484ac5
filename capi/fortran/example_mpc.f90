! An MPC-style use of geolin from Fortran: load a robot, linearize its dynamics at a state
! (the matrices A and B of dz/dt = A z + B w that a linear MPC discretizes), discretize it with
! geolin_step_linearize (A_d, B_d of z+ = A_d z + B_d w), and check them. Given a legged robot
! too, stand it on its feet with geolin_contact_dynamics and check the contact forces, the impact
! at touchdown (geolin_impulse) and the step with the feet held (geolin_contact_step).
!
! usage: example_mpc robot.urdf [quadruped.urdf]     (exits with status 1 on failure)
program example_mpc
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_ptr, c_associated
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_positive_inf, ieee_quiet_nan
  use geolin
  implicit none

  type(c_ptr) :: model, ws
  integer(c_int) :: st
  integer :: nj, n, nn, i, k, off, failures, major, minor, patch
  real(c_double) :: H(4, 4), v(6), g(3)
  real(c_double), allocatable :: s(:), r(:), tau(:), A(:, :), B(:, :), Minv(:, :), &
                                 Afd(:, :), Bfd(:, :), Ad(:, :), Bd(:, :), s1(:), r1(:), &
                                 acc(:), force(:), dtau(:, :), Mass(:, :)
  real(c_double) :: Hf(4, 4), H1(4, 4), v1(6), hs
  integer(c_int) :: root
  character(len=1024) :: path
  character(len=:), allocatable :: version_message
  real(c_double) :: err, scale

  failures = 0
  if (command_argument_count() < 1) then
    print '(a)', 'usage: example_mpc robot.urdf [quadruped.urdf]'
    stop 2
  end if
  call get_command_argument(1, path)

  ! As MuJoCo's mjVERSION_HEADER check: the library must fit the bindings, before any call.
  if (.not. geolin_check_version(version_message)) then
    print '(a)', version_message
    stop 1
  end if
  call geolin_version(major, minor, patch)
  print '(a, i0, a, i0, a, i0)', 'geolin ', major, '.', minor, '.', patch
  ! The rule itself: another major version, or an older minor one, is refused.
  if (geolin_versions_compatible([major + 1, 0, 0], [major, minor, patch]) .or. &
      geolin_versions_compatible([major, minor, patch], [major, minor + 1, 0]) .or. &
      .not. geolin_versions_compatible([major, minor + 1, 0], [major, minor, patch + 1])) then
    print '(a)', 'FAIL: geolin_versions_compatible'
    failures = failures + 1
  end if

  st = geolin_load(trim(path), 0_c_int, model)
  call check(st, 'load')
  nj = geolin_model_num_joints(model)
  n = geolin_model_num_dofs(model)
  nn = geolin_model_state_dim(model)
  off = n - nj
  print '(a, a, a, i0, a, i0)', 'model ', trim(path), ': n_J = ', nj, ', N = ', nn
  if (nj > 0) print '(a, a)', 'first joint: ', geolin_joint_name(model, 0)

  st = geolin_workspace_new(model, ws)
  call check(st, 'workspace_new')
  g = [0.0_c_double, 0.0_c_double, -9.81_c_double]
  call check(geolin_workspace_set_gravity(ws, g), 'set_gravity')

  ! The state: base rotated 90 degrees about y (Euler angles would be singular here).
  H = 0
  H(1, 3) = 1
  H(2, 2) = 1
  H(3, 1) = -1
  H(4, 4) = 1
  H(1:3, 4) = [0.1_c_double, 0.2_c_double, 0.9_c_double]
  v = [0.1_c_double, -0.2_c_double, 0.05_c_double, 0.3_c_double, 0.1_c_double, -0.4_c_double]
  allocate (s(max(nj, 1)), r(max(nj, 1)), tau(max(nj, 1)))
  allocate (A(nn, nn), B(nn, max(nj, 1)), Minv(n, n), Afd(nn, nn), Bfd(nn, max(nj, 1)))
  allocate (Ad(nn, nn), Bd(nn, max(nj, 1)), s1(max(nj, 1)), r1(max(nj, 1)))
  do k = 1, nj
    s(k) = 0.2_c_double*sin(real(k, c_double))
    r(k) = 0.1_c_double*cos(real(k, c_double))
    tau(k) = 0.5_c_double
  end do

  call check(geolin_linearize(ws, H, s, v, r, tau, A, B), 'linearize')
  call check(geolin_mass_matrix_inverse(ws, s, Minv), 'mass_matrix_inverse')
  call check(geolin_linearize_finite_difference(ws, H, s, v, r, tau, 1e-6_c_double, Afd, Bfd), &
             'linearize_finite_difference')

  ! 1. B = [0; Minv S]: its velocity rows are the joint columns of Minv.
  err = 0
  do k = 1, nj
    err = max(err, maxval(abs(B(1:n, k))))
    err = max(err, maxval(abs(B(n + 1:nn, k) - Minv(:, off + k))))
  end do
  call expect(err < 1e-10_c_double*(1 + maxval(abs(Minv))), 'B = [0; Minv S]', err)

  ! 2. The identity blocks of A: d(z_H)/dt contains z_v, d(z_s)/dt = z_r.
  err = 0
  do i = 1, n
    err = max(err, abs(A(i, n + i) - 1))
  end do
  call expect(err < 1e-300_c_double, 'identity blocks of A', err)

  ! 3. The analytical A, B agree with geometric finite differences.
  scale = 1 + maxval(abs(A))
  err = maxval(abs(A - Afd))
  call expect(err < 1e-5_c_double*scale, 'A = finite differences', err)
  if (nj > 0) then
    err = maxval(abs(B(:, 1:nj) - Bfd(:, 1:nj)))
    call expect(err < 1e-5_c_double*(1 + maxval(abs(B))), 'B = finite differences', err)
  end if

  ! 3b. Inverse dynamics' linearization at nu_dot = forward dynamics: the implicit function
  !     theorem gives M F + dtau_dz = 0 for the nu_dot rows F of A (an inverse-dynamics MPC's
  !     torque constraint linearized in the same coordinates as A).
  allocate (acc(n), force(n), dtau(n, nn), Mass(n, n))
  call check(geolin_forward_dynamics(ws, H, s, v, r, tau, acc), 'forward_dynamics')
  call check(geolin_inverse_dynamics_linearize(ws, H, s, v, r, acc, force, dtau, Mass), &
             'inverse_dynamics_linearize')
  err = maxval(abs(matmul(Mass, A(n + 1:nn, :)) + dtau))
  call expect(err < 1e-8_c_double*(1 + maxval(abs(dtau))), 'M A(nu_dot rows) + dtau_dz = 0', err)
  call check(geolin_inverse_dynamics_linearize(ws, H, s, v, r, acc, force), &
             'inverse_dynamics_linearize without derivatives')
  deallocate (acc, force, dtau, Mass)

  ! 4. The discretization of one RK4 step of length hs: A_d = 1 + hs A + O(hs^2), the velocity
  !    rows of B_d are hs B + O(hs^2), and its configuration rows (top block) are O(hs^2): a
  !    torque reaches the configuration only through the velocity.
  hs = 1e-4_c_double
  call check(geolin_step_linearize(ws, GEOLIN_STEP_RK4, hs, H, s, v, r, tau, Ad, Bd), &
             'step_linearize')
  do i = 1, nn
    Ad(i, i) = Ad(i, i) - 1
  end do
  err = maxval(abs(Ad/hs - A))
  call expect(err < 1e-2_c_double*(1 + maxval(abs(A)))**2, '(A_d - 1)/h = A + O(h)', err)
  if (nj > 0) then
    err = maxval(abs(Bd(n + 1:nn, 1:nj)/hs - B(n + 1:nn, 1:nj)))
    call expect(err < 1e-2_c_double*(1 + maxval(abs(B)))*(1 + maxval(abs(A))), &
                'B_d velocity rows = h B + O(h^2)', err)
    err = maxval(abs(Bd(1:n, 1:nj)))
    call expect(err <= hs**2*maxval(abs(B(n + 1:nn, 1:nj))), 'B_d top block is O(h^2)', err)
  end if

  ! 5. One semi-implicit Euler step, and the frame of the root link (which is the base pose H).
  call check(geolin_step(ws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, 1e-3_c_double, H, s, v, r, tau, &
                         H1, s1, v1, r1), 'step')
  err = maxval(abs(H1(1:3, 4) - H(1:3, 4)))
  call expect(err < 1e-2_c_double, 'one step of 1 ms moves the base a little', err)
  err = maxval(abs(H1(4, :) - [0._c_double, 0._c_double, 0._c_double, 1._c_double]))
  call expect(err < epsilon(1._c_double), 'the stepped pose is homogeneous ([0 0 0 1] below)', err)
  root = geolin_frame_index(model, geolin_f_string(geolin_model_body_name(model, 0_c_int)))
  print '(a, i0, a, i0, a, a)', 'frames: ', geolin_model_num_frames(model), ', root link: ', &
    root, ' = ', geolin_frame_name(model, int(root))
  call check(geolin_frame_pose(ws, H, s, root, Hf), 'frame_pose')
  err = maxval(abs(Hf - H))
  call expect(err < 1e-12_c_double, 'the root link frame is H', err)

  ! 5b. The state algebra: z = log(x^-1 x+) of that step integrates back to x+, and the
  !     Jacobians match central differences of the two operations.
  call state_algebra(model, H, s, v, r, H1, s1, v1, r1)

  ! 5c. The step with joint feedback: without it geolin_step exactly; with it (Euler) geolin_step
  !     of the fed-back torque; the implicit Euler step solves (M + dt diag(0, kd)) dnu = dt M a.
  call feedback_step(ws, H, s(1:nj), v, r(1:nj), tau(1:nj), n, nn)

  ! 6. Misuse gives a status and a message, not a crash.
  g(3) = ieee_value(g(3), ieee_positive_inf)
  st = geolin_workspace_set_gravity(ws, g)
  call expect(st == GEOLIN_ERR_NONFINITE, 'non-finite gravity is refused', real(st, c_double))
  print '(a, a)', 'expected error: ', geolin_error_message(st)

  st = geolin_step(ws, GEOLIN_STEP_RK4, 0.0_c_double, H, s, v, r, tau, H1, s1, v1, r1)
  call expect(st == GEOLIN_ERR_INVALID_ARGUMENT, 'step with h = 0 is refused', real(st, c_double))
  print '(a, a)', 'expected error: ', geolin_error_message(st)
  st = geolin_workspace_set_contact_regularization(ws, -1.0_c_double)
  call expect(st == GEOLIN_ERR_INVALID_ARGUMENT, 'a negative contact regularization is refused', &
              real(st, c_double))
  ! The status constants of the module are the library's codes.
  k = index(geolin_f_string(geolin_status_string(GEOLIN_ERR_MEMORY)), 'GEOLIN_ERR_MEMORY:')
  i = index(geolin_f_string(geolin_status_string(GEOLIN_ERR_INTERNAL)), 'GEOLIN_ERR_INTERNAL:')
  call expect(k == 1 .and. i == 1, 'status constants name the codes', &
              real(GEOLIN_ERR_MEMORY, c_double))

  ! 6b. A geared copy (armature 0.01 kg m^2 per joint): its mass matrix is M + diag(0_6, 0.01),
  !     a bad entry is refused with a null model, and the copy outlives the original.
  if (nj > 0) then
    block
      type(c_ptr) :: geared, gws, rotors
      integer :: u
      real(c_double), allocatable :: arm(:), M0(:, :), M1(:, :)
      allocate (arm(nj), M0(n, n), M1(n, n))
      arm = 0.01_c_double
      arm(nj) = -1
      st = geolin_model_with_armature(model, arm, geared)
      call expect(st == GEOLIN_ERR_INVALID_ARGUMENT .and. .not. c_associated(geared), &
                  'a negative armature is refused', real(st, c_double))
      print '(a, a)', 'expected error: ', geolin_error_message(st)
      arm = 0.01_c_double
      call check(geolin_model_with_armature(model, arm, geared), 'model_with_armature')
      call check(geolin_mass_matrix(ws, s, M0), 'mass_matrix')
      call check(geolin_workspace_new(geared, gws), 'workspace_new (geared)')
      call check(geolin_mass_matrix(gws, s, M1), 'mass_matrix (geared)')
      do i = 1, nj
        M1(n - nj + i, n - nj + i) = M1(n - nj + i, n - nj + i) - arm(i)
      end do
      err = maxval(abs(M1 - M0))
      call expect(err < 1e-14_c_double*maxval(abs(M0)), 'M(geared) = M + diag(0, armature)', err)
      arm = 0
      call check(geolin_model_armature(geared, arm), 'model_armature')
      call expect(all(arm == 0.01_c_double), 'the copy reports its armature', arm(1))
      call geolin_workspace_free(gws)
      call geolin_model_free(geared)
      ! Pinocchio's SRDF <rotor_params>: armature = I_rotor * gear_ratio^2 on the joint named.
      open (newunit=u, file='example_mpc_rotors.srdf', status='replace', action='write')
      write (u, '(a)') '<robot name="r"><rotor_params><joint name="'// &
        geolin_f_string(geolin_model_joint_name(model, 0_c_int))// &
        '" mass="2e-4" gear_ratio="5"/></rotor_params></robot>'
      close (u)
      call check(geolin_model_with_srdf_rotor_params(model, &
                                                     geolin_c_string('example_mpc_rotors.srdf'), &
                                                     rotors), 'model_with_srdf_rotor_params')
      open (newunit=u, file='example_mpc_rotors.srdf', status='old')
      close (u, status='delete')
      arm = -1
      call check(geolin_model_armature(rotors, arm), 'model_armature (SRDF)')
      call expect(abs(arm(1) - 2e-4_c_double*25) < 1e-18_c_double .and. all(arm(2:) == 0), &
                  'SRDF armature = I_rotor N^2', arm(1))
      call geolin_model_free(rotors)
    end block
  end if

  ! The workspace goes before its model (it keeps a pointer to the model).
  call geolin_workspace_free(ws)
  call geolin_model_free(model)

  deallocate (s, r, tau, A, B, Minv, Afd, Bfd, Ad, Bd, s1, r1)
  if (command_argument_count() >= 2) then
    call get_command_argument(2, path)
    call contacts(trim(path))
  end if
  if (failures > 0) then
    print '(i0, a)', failures, ' check(s) FAILED'
    error stop 1
  end if
  print '(a)', 'example_mpc: all checks passed'

contains

  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= GEOLIN_OK) then
      print '(a, a, a)', what, ' failed: ', geolin_error_message(status)
      error stop 1
    end if
  end subroutine

  ! 5b. x exp(log(x^-1 x1)) = x1; d_dz and dz_dx1 against central differences with step 1e-6,
  !     and dz_dx1 d_dz = 1 (the difference undoes the integration).
  subroutine state_algebra(model, H, s, v, r, H1, s1, v1, r1)
    type(c_ptr), intent(in) :: model
    real(c_double), intent(in) :: H(4, 4), s(:), v(6), r(:), H1(4, 4), s1(:), v1(6), r1(:)
    real(c_double), allocatable :: z(:), zp(:), zq(:), d_dx(:, :), d_dz(:, :), dz0(:, :), &
                                   dz1(:, :), sp(:), rp(:), eye(:, :)
    real(c_double) :: Hp(4, 4), vp(6), Hb(4, 4), vb(6), sb(size(s)), rb(size(r)), worst
    real(c_double), parameter :: eps = 1e-6_c_double
    integer :: nstate, j
    nstate = geolin_model_state_dim(model)
    allocate (z(nstate), zp(nstate), zq(nstate), d_dx(nstate, nstate), d_dz(nstate, nstate), &
              dz0(nstate, nstate), dz1(nstate, nstate), sp(size(s)), rp(size(r)), &
              eye(nstate, nstate))
    call check(geolin_state_difference(model, H, s, v, r, H1, s1, v1, r1, z), 'state_difference')
    call check(geolin_state_integrate(model, H, s, v, r, z, Hb, sb, vb, rb), 'state_integrate')
    worst = max(maxval(abs(Hb - H1)), maxval(abs(sb - s1)), maxval(abs(vb - v1)), &
                maxval(abs(rb - r1)))
    call expect(worst < 1e-12_c_double, 'x exp(log(x^-1 x+)) = x+', worst)
    call check(geolin_state_integrate_derivatives(model, H, s, z=z, d_dx=d_dx, d_dz=d_dz), &
               'state_integrate_derivatives')
    call check(geolin_state_difference_derivatives(model, H, s, H1=H1, s1=s1, dz_dx0=dz0, &
                                                   dz_dx1=dz1), 'state_difference_derivatives')
    worst = 0
    do j = 1, nstate
      ! d_dz: x exp(z +- eps e_j) read at x+; dz_dx1: log(x^-1 x+ exp(+- eps e_j))
      zp = z
      zp(j) = z(j) + eps
      call check(geolin_state_integrate(model, H, s, v, r, zp, Hp, sp, vp, rp), 'integrate')
      call check(geolin_state_difference(model, H1, s1, v1, r1, Hp, sp, vp, rp, zq), 'difference')
      zp(j) = z(j) - eps
      call check(geolin_state_integrate(model, H, s, v, r, zp, Hp, sp, vp, rp), 'integrate')
      call check(geolin_state_difference(model, H1, s1, v1, r1, Hp, sp, vp, rp, zp), 'difference')
      worst = max(worst, maxval(abs((zq - zp)/(2*eps) - d_dz(:, j))))
      zp = 0
      zp(j) = eps
      call check(geolin_state_integrate(model, H1, s1, v1, r1, zp, Hp, sp, vp, rp), 'integrate')
      call check(geolin_state_difference(model, H, s, v, r, Hp, sp, vp, rp, zq), 'difference')
      zp(j) = -eps
      call check(geolin_state_integrate(model, H1, s1, v1, r1, zp, Hp, sp, vp, rp), 'integrate')
      call check(geolin_state_difference(model, H, s, v, r, Hp, sp, vp, rp, zp), 'difference')
      worst = max(worst, maxval(abs((zq - zp)/(2*eps) - dz1(:, j))))
    end do
    call expect(worst < 1e-7_c_double, 'state Jacobians = central differences', worst)
    eye = 0
    do j = 1, nstate
      eye(j, j) = 1
    end do
    worst = maxval(abs(matmul(dz1, d_dz) - eye))
    call expect(worst < 1e-12_c_double, 'dz_dx1 d_dz = 1', worst)
    deallocate (z, zp, zq, d_dx, d_dz, dz0, dz1, sp, rp, eye)
  end subroutine

  ! 7. The quadruped (feet FL_foot, FR_foot, HL_foot, HR_foot) on 4 point contacts: lambda fed
  !    back to geolin_forward_dynamics_ext as wrenches reproduces nu_dot.
  subroutine contacts(quadruped)
    character(len=*), intent(in) :: quadruped
    character(len=7), parameter :: feet(4) = ['FL_foot', 'FR_foot', 'HL_foot', 'HR_foot']
    type(c_ptr) :: qmodel, qws
    integer(c_int) :: frames(4), types(4), features
    integer :: qnj, qn, qnn, c
    real(c_double), parameter :: leg(3) = [0.05_c_double, 0.7_c_double, -1.4_c_double]
    real(c_double) :: qH(4, 4), qv(6), lambda(12), wrenches(6, 4)
    real(c_double), allocatable :: qs(:), qr(:), qtau(:), nu(:), nu_ext(:), qA(:, :), qB(:, :), &
                                   dz(:, :), dw(:, :)
    call check(geolin_load(quadruped, 0_c_int, qmodel), 'load '//quadruped)
    qnj = geolin_model_num_joints(qmodel)
    qn = geolin_model_num_dofs(qmodel)
    qnn = geolin_model_state_dim(qmodel)
    features = ior(GEOLIN_WORKSPACE_CONTACTS, GEOLIN_WORKSPACE_STEP_LINEARIZE)
    call expect(geolin_workspace_bytes(qmodel, GEOLIN_WORKSPACE_DYNAMICS, 0_c_int) < &
                geolin_workspace_bytes(qmodel, GEOLIN_WORKSPACE_ALL, 4_c_int), &
                'a dynamics-only workspace is smaller', &
                real(geolin_workspace_bytes(qmodel, features, 4_c_int), c_double))
    call check(geolin_workspace_new_ex(qmodel, features, 4_c_int, qws), 'workspace_new_ex')
    do c = 1, 4
      frames(c) = geolin_frame_index(qmodel, feet(c))
      call expect(frames(c) >= 0, 'foot '//feet(c), real(frames(c), c_double))
    end do
    types = GEOLIN_CONTACT_POINT
    allocate (qs(qnj), qr(qnj), qtau(qnj), nu(qn), nu_ext(qn), qA(qnn, qnn), qB(qnn, qnj), &
              dz(12, qnn), dw(12, qnj))
    qH = 0
    do c = 1, 4
      qH(c, c) = 1
    end do
    qH(3, 4) = 0.45_c_double
    qv = [0.1_c_double, -0.05_c_double, 0.02_c_double, 0.03_c_double, -0.04_c_double, &
          0.05_c_double]
    do c = 1, qnj
      qs(c) = leg(mod(c - 1, 3) + 1)
      qr(c) = 0.2_c_double*cos(real(c, c_double))
      qtau(c) = 0.5_c_double*sin(real(c, c_double))
    end do
    call check(geolin_contact_dynamics(qws, qH, qs, qv, qr, qtau, 4_c_int, frames, types, &
                                       GEOLIN_WRENCH_MIXED, nu_dot=nu, lambda=lambda), &
               'contact_dynamics')
    wrenches = 0
    wrenches(1:3, :) = reshape(lambda, [3, 4])
    call check(geolin_forward_dynamics_ext(qws, qH, qs, qv, qr, qtau, 4_c_int, frames, &
                                           wrenches, GEOLIN_WRENCH_MIXED, nu_ext), &
               'forward_dynamics_ext')
    err = maxval(abs(nu - nu_ext))
    call expect(err < 1e-9_c_double*max(1.0_c_double, maxval(abs(nu))), &
                'contact forces as wrenches reproduce nu_dot', err)
    call check(geolin_contact_linearize(qws, qH, qs, qv, qr, qtau, 4_c_int, frames, types, &
                                        GEOLIN_WRENCH_MIXED, A=qA, B=qB, dlambda_dz=dz, &
                                        dlambda_dw=dw), 'contact_linearize')
    call expect(all(abs(dz) < huge(1.0_c_double)) .and. maxval(abs(dw)) > 0, &
                'contact_linearize gives dlambda_dz(12, N), dlambda_dw(12, n_J)', maxval(abs(dw)))
    call impact(qws, qH, qs, qv, qr, frames, types, qn, qnj)
    call contact_step(qws, qH, qs, qv, qr, qtau, frames, types, qn, qnj, qnn)
    call contact_step_feedback(qws, qH, qs, qv, qr, qtau, frames, types, qnj, qnn)
    types(3) = 4
    st = geolin_contact_dynamics(qws, qH, qs, qv, qr, qtau, 4_c_int, frames, types, &
                                 GEOLIN_WRENCH_MIXED, nu_dot=nu, lambda=lambda)
    call expect(st == GEOLIN_ERR_INVALID_ARGUMENT, 'a bad contact type is refused', &
                real(st, c_double))
    call geolin_workspace_free(qws)
    call geolin_model_free(qmodel)
  end subroutine

  ! 8. The impact at touchdown: the feet stop (J_c nu+ = 0 for e = 0, J_c = the linear rows of
  !    the feet's Jacobians in their own axes), no contacts leave nu unchanged, e > 1 is refused.
  subroutine impact(qws, qH, qs, qv, qr, frames, types, qn, qnj)
    type(c_ptr), intent(in) :: qws
    real(c_double), intent(in) :: qH(4, 4), qs(:), qv(6), qr(:)
    integer(c_int), intent(in) :: frames(4), types(4)
    integer, intent(in) :: qn, qnj
    real(c_double) :: v1(6), lam(12), J(6, qn), nu(qn), worst
    real(c_double), allocatable :: r1(:), A_imp(:, :)
    integer :: c
    allocate (r1(qnj), A_imp(2*qn, 2*qn))
    call check(geolin_impulse(qws, qH, qs, qv, qr, 4_c_int, frames, types, GEOLIN_WRENCH_LOCAL, &
                              0.0_c_double, v1, r1, lam), 'impulse')
    nu(1:6) = v1
    nu(7:qn) = r1
    worst = 0
    do c = 1, 4
      call check(geolin_frame_jacobian(qws, qH, qs, frames(c), J), 'frame_jacobian')
      worst = max(worst, maxval(abs(matmul(J(1:3, :), nu))))
    end do
    call expect(worst < 1e-10_c_double, 'impulse (e = 0) stops the feet: max |J_c nu+|', worst)
    call check(geolin_impulse(qws, qH, qs, qv, qr, 0_c_int, v_next=v1, r_next=r1, &
                              wrench_flags=GEOLIN_WRENCH_LOCAL, restitution=0.0_c_double), &
               'impulse without contacts')
    worst = max(maxval(abs(v1 - qv)), maxval(abs(r1 - qr)))  ! exactly: no == on reals
    call expect(worst <= 0, 'impulse without contacts keeps nu', worst)
    call check(geolin_impulse_linearize(qws, qH, qs, qv, qr, 4_c_int, frames, types, &
                                        GEOLIN_WRENCH_LOCAL, 0.0_c_double, A_imp), &
               'impulse_linearize')
    worst = 0
    do c = 1, qn  ! the pose rows are the identity
      worst = max(worst, abs(A_imp(c, c) - 1), maxval(abs(A_imp(c, 1:c - 1))), &
                  maxval(abs(A_imp(c, c + 1:))))
    end do
    call expect(worst <= 0, 'impulse_linearize: A_imp is the identity in the pose rows', worst)
    st = geolin_impulse(qws, qH, qs, qv, qr, 4_c_int, frames, types, GEOLIN_WRENCH_LOCAL, &
                        1.5_c_double, v1, r1)
    call expect(st == GEOLIN_ERR_INVALID_ARGUMENT, 'a restitution above 1 is refused', &
                real(st, c_double))
  end subroutine

  ! 9. The step with the contacts held: without contacts it is geolin_step exactly; the
  !    semi-implicit Euler step's nu+ is nu + dt nu_dot of geolin_contact_dynamics.
  subroutine contact_step(qws, qH, qs, qv, qr, qtau, frames, types, qn, qnj, qnn)
    type(c_ptr), intent(in) :: qws
    real(c_double), intent(in) :: qH(4, 4), qs(:), qv(6), qr(:), qtau(:)
    integer(c_int), intent(in) :: frames(4), types(4)
    integer, intent(in) :: qn, qnj, qnn
    real(c_double), parameter :: dt = 1e-3_c_double
    real(c_double) :: H1(4, 4), H2(4, 4), v1(6), v2(6), lam(12), nu_dot(qn), worst
    real(c_double), allocatable :: s1(:), s2(:), r1(:), r2(:), Ad(:, :), Bd(:, :), dz(:, :)
    allocate (s1(qnj), s2(qnj), r1(qnj), r2(qnj), Ad(qnn, qnn), Bd(qnn, qnj), dz(12, qnn))
    call check(geolin_contact_step(qws, GEOLIN_STEP_RK4, dt, qH, qs, qv, qr, qtau, 0_c_int, &
                                   wrench_flags=GEOLIN_WRENCH_LOCAL, H_next=H1, s_next=s1, &
                                   v_next=v1, r_next=r1), 'contact_step without contacts')
    call check(geolin_step(qws, GEOLIN_STEP_RK4, dt, qH, qs, qv, qr, qtau, H2, s2, v2, r2), &
               'step')
    worst = max(maxval(abs(H1 - H2)), maxval(abs(s1 - s2)), maxval(abs(v1 - v2)), &
                maxval(abs(r1 - r2)))
    call expect(worst <= 0, 'contact_step without contacts is geolin_step exactly', worst)
    call check(geolin_contact_dynamics(qws, qH, qs, qv, qr, qtau, 4_c_int, frames, types, &
                                       GEOLIN_WRENCH_MIXED, nu_dot=nu_dot, lambda=lam), &
               'contact_dynamics')
    call check(geolin_contact_step(qws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, dt, qH, qs, qv, qr, &
                                   qtau, 4_c_int, frames, types, GEOLIN_WRENCH_MIXED, &
                                   H_next=H1, s_next=s1, v_next=v1, r_next=r1, lambda=lam), &
               'contact_step')
    worst = max(maxval(abs(v1 - qv - dt*nu_dot(1:6))), maxval(abs(r1 - qr - dt*nu_dot(7:qn))))
    call expect(worst < 1e-12_c_double*max(1.0_c_double, maxval(abs(nu_dot))), &
                'Euler contact_step: nu+ = nu + dt nu_dot', worst)
    call check(geolin_contact_step_linearize(qws, GEOLIN_STEP_RK4, dt, qH, qs, qv, qr, qtau, &
                                             4_c_int, frames, types, GEOLIN_WRENCH_MIXED, &
                                             A_d=Ad, B_d=Bd, dlambda_dz=dz), &
               'contact_step_linearize')
    call expect(all(abs(Ad) < huge(1.0_c_double)) .and. maxval(abs(dz)) > 0, &
                'contact_step_linearize gives A_d(N, N), dlambda_dz(12, N)', maxval(abs(dz)))
  end subroutine

  ! 5c. geolin_step_feedback and its linearization on the first robot (no joint damping loaded).
  subroutine feedback_step(ws, H, s, v, r, tau, n, nn)
    type(c_ptr), intent(in) :: ws
    real(c_double), intent(in) :: H(4, 4), s(:), v(6), r(:), tau(:)
    integer, intent(in) :: n, nn
    real(c_double), parameter :: dt = 1e-3_c_double, big_dt = 5e-2_c_double
    real(c_double) :: H1(4, 4), H2(4, 4), v1(6), v2(6), worst, scale
    real(c_double), dimension(size(s)) :: kp, kd, s_ref, r_ref, tau_fb, s1, s2, r1, r2
    real(c_double) :: Ad(nn, nn), Ad2(nn, nn), Bd(nn, size(s)), Bd2(nn, size(s)), M(n, n), &
                      acc(n), dnu(n), res(n)
    integer :: k
    integer(c_int) :: st
    character(len=:), allocatable :: message
    do k = 1, size(s)
      kp(k) = 20 + 3*k
      kd(k) = 1.5_c_double + 0.2_c_double*k
      s_ref(k) = 0.3_c_double*cos(real(k, c_double))
      r_ref(k) = -0.1_c_double + 0.05_c_double*k
    end do
    tau_fb = tau + kp*(s_ref - s) + kd*(r_ref - r)
    call check(geolin_step_feedback(ws, GEOLIN_STEP_RK4, dt, H, s, v, r, tau, H_next=H1, &
                                    s_next=s1, v_next=v1, r_next=r1), 'step_feedback')
    call check(geolin_step(ws, GEOLIN_STEP_RK4, dt, H, s, v, r, tau, H2, s2, v2, r2), 'step')
    worst = max(maxval(abs(H1 - H2)), maxval(abs(s1 - s2)), maxval(abs(v1 - v2)), &
                maxval(abs(r1 - r2)))
    call expect(worst <= 0, 'step_feedback without feedback is geolin_step exactly', worst)
    call check(geolin_step_feedback_linearize(ws, GEOLIN_STEP_RK4, dt, H, s, v, r, tau, &
                                              A_d=Ad, B_d=Bd), 'step_feedback_linearize')
    call check(geolin_step_linearize(ws, GEOLIN_STEP_RK4, dt, H, s, v, r, tau, Ad2, Bd2), &
               'step_linearize')
    worst = max(maxval(abs(Ad - Ad2)), maxval(abs(Bd - Bd2)))
    call expect(worst <= 0, 'step_feedback_linearize without feedback is exact', worst)
    call check(geolin_step_feedback(ws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, dt, H, s, v, r, tau, &
                                    r_ref=r_ref, kd=kd, s_ref=s_ref, kp=kp, H_next=H1, &
                                    s_next=s1, v_next=v1, r_next=r1), 'step_feedback (kp, kd)')
    call check(geolin_step(ws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, dt, H, s, v, r, tau_fb, H2, s2, &
                           v2, r2), 'step (tau_fb)')
    worst = max(maxval(abs(H1 - H2)), maxval(abs(s1 - s2)), maxval(abs(v1 - v2)), &
                maxval(abs(r1 - r2)))
    call expect(worst < 1e-12_c_double*(1 + maxval(abs(r2))), &
                'Euler step_feedback = geolin_step of tau + kp(s_ref - s) + kd(r_ref - r)', worst)
    call check(geolin_step_feedback(ws, GEOLIN_STEP_IMPLICIT_EULER, big_dt, H, s, v, r, tau, &
                                    kp, kd, s_ref, r_ref, H1, s1, v1, r1), 'implicit step_feedback')
    call check(geolin_mass_matrix(ws, s, M), 'mass_matrix')
    call check(geolin_forward_dynamics(ws, H, s, v, r, tau_fb, acc), 'forward_dynamics (tau_fb)')
    dnu(1:6) = v1 - v
    dnu(7:n) = r1 - r
    res = matmul(M, dnu) - big_dt*matmul(M, acc)
    res(7:n) = res(7:n) + big_dt*kd*dnu(7:n)
    scale = 1 + big_dt*maxval(abs(matmul(M, acc)))
    worst = maxval(abs(res))
    call expect(worst < 1e-10_c_double*scale, 'implicit Euler: (M + dt D) dnu = dt M nu_dot', worst)
    worst = maxval(abs(s1 - s - big_dt*r1))
    call expect(worst < 1e-14_c_double*(1 + maxval(abs(s))), 'implicit Euler: s+ = s + dt r+', &
                worst)
    kd(1) = ieee_value(kd(1), ieee_quiet_nan)
    s2 = 7
    st = geolin_step_feedback(ws, GEOLIN_STEP_IMPLICIT_EULER, dt, H, s, v, r, tau, kd=kd, &
                              H_next=H2, s_next=s2, v_next=v2, r_next=r2)
    message = geolin_error_message(st)
    call expect(st == GEOLIN_ERR_NONFINITE .and. maxval(abs(s2 - 7)) <= 0 .and. &
                index(message, 'kd[0]') > 0, &
                'a NaN in kd is refused naming kd[0], nothing written', real(st, c_double))
  end subroutine

  ! 10. The contact step with joint feedback: without feedback geolin_contact_step exactly (and
  !     its linearization); with feedback (Euler) geolin_contact_step of the fed-back torque.
  subroutine contact_step_feedback(qws, qH, qs, qv, qr, qtau, frames, types, qnj, qnn)
    type(c_ptr), intent(in) :: qws
    real(c_double), intent(in) :: qH(4, 4), qs(:), qv(6), qr(:), qtau(:)
    integer(c_int), intent(in) :: frames(4), types(4)
    integer, intent(in) :: qnj, qnn
    real(c_double), parameter :: dt = 1e-3_c_double
    real(c_double) :: H1(4, 4), H2(4, 4), v1(6), v2(6), lam1(12), lam2(12), worst
    real(c_double), dimension(qnj) :: kp, kd, s_ref, r_ref, tau_fb, s1, s2, r1, r2
    real(c_double) :: Ad(qnn, qnn), Ad2(qnn, qnn), Bd(qnn, qnj), Bd2(qnn, qnj), dz(12, qnn), &
                      dz2(12, qnn), dw(12, qnj), dw2(12, qnj)
    integer :: k
    do k = 1, qnj
      kp(k) = 20 + 3*k
      kd(k) = 1.5_c_double + 0.2_c_double*k
      s_ref(k) = qs(k) + 0.1_c_double*sin(real(k, c_double))
      r_ref(k) = 0.05_c_double*k
    end do
    tau_fb = qtau + kp*(s_ref - qs) + kd*(r_ref - qr)
    call check(geolin_contact_step_feedback(qws, GEOLIN_STEP_RK4, dt, qH, qs, qv, qr, qtau, &
                                            nc=4_c_int, frames=frames, types=types, &
                                            wrench_flags=GEOLIN_WRENCH_MIXED, H_next=H1, &
                                            s_next=s1, v_next=v1, r_next=r1, lambda=lam1), &
               'contact_step_feedback')
    call check(geolin_contact_step(qws, GEOLIN_STEP_RK4, dt, qH, qs, qv, qr, qtau, 4_c_int, &
                                   frames, types, GEOLIN_WRENCH_MIXED, H_next=H2, s_next=s2, &
                                   v_next=v2, r_next=r2, lambda=lam2), 'contact_step')
    worst = max(maxval(abs(H1 - H2)), maxval(abs(s1 - s2)), maxval(abs(v1 - v2)), &
                maxval(abs(r1 - r2)), maxval(abs(lam1 - lam2)))
    call expect(worst <= 0, 'contact_step_feedback without feedback is contact_step exactly', &
                worst)
    call check(geolin_contact_step_feedback_linearize(qws, GEOLIN_STEP_RK4, dt, qH, qs, qv, qr, &
                                                      qtau, nc=4_c_int, frames=frames, &
                                                      types=types, &
                                                      wrench_flags=GEOLIN_WRENCH_MIXED, A_d=Ad, &
                                                      B_d=Bd, dlambda_dz=dz, dlambda_dw=dw), &
               'contact_step_feedback_linearize')
    call check(geolin_contact_step_linearize(qws, GEOLIN_STEP_RK4, dt, qH, qs, qv, qr, qtau, &
                                             4_c_int, frames, types, GEOLIN_WRENCH_MIXED, &
                                             A_d=Ad2, B_d=Bd2, dlambda_dz=dz2, dlambda_dw=dw2), &
               'contact_step_linearize')
    worst = max(maxval(abs(Ad - Ad2)), maxval(abs(Bd - Bd2)), maxval(abs(dz - dz2)), &
                maxval(abs(dw - dw2)))
    call expect(worst <= 0, 'contact_step_feedback_linearize without feedback is exact', worst)
    call check(geolin_contact_step_feedback(qws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, dt, qH, qs, &
                                            qv, qr, qtau, kp, kd, s_ref, r_ref, 4_c_int, frames, &
                                            types, GEOLIN_WRENCH_MIXED, H_next=H1, s_next=s1, &
                                            v_next=v1, r_next=r1, lambda=lam1), &
               'contact_step_feedback (kp, kd)')
    call check(geolin_contact_step(qws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, dt, qH, qs, qv, qr, &
                                   tau_fb, 4_c_int, frames, types, GEOLIN_WRENCH_MIXED, &
                                   H_next=H2, s_next=s2, v_next=v2, r_next=r2, lambda=lam2), &
               'contact_step (tau_fb)')
    worst = max(maxval(abs(H1 - H2)), maxval(abs(s1 - s2)), maxval(abs(v1 - v2)), &
                maxval(abs(r1 - r2)))
    call expect(worst < 1e-12_c_double*(1 + maxval(abs(r2))), &
                'Euler contact_step_feedback = contact_step of the fed-back torque', worst)
    worst = maxval(abs(lam1 - lam2))
    call expect(worst < 1e-10_c_double*(1 + maxval(abs(lam2))), &
                '... and its contact forces', worst)
    call check(geolin_contact_step_feedback(qws, GEOLIN_STEP_IMPLICIT_EULER, dt, qH, qs, qv, &
                                            qr, qtau, kp, kd, s_ref, r_ref, 4_c_int, frames, &
                                            types, GEOLIN_WRENCH_MIXED, H_next=H1, s_next=s1, &
                                            v_next=v1, r_next=r1), &
               'contact_step_feedback (implicit Euler)')
    call expect(all(abs(r1) < huge(1.0_c_double)), 'implicit Euler contact step: finite', &
                maxval(abs(r1)))
  end subroutine

  subroutine expect(ok, what, value)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    real(c_double), intent(in) :: value
    if (ok) then
      print '(a, a, es10.2, a)', what, ' (', value, '): ok'
    else
      print '(a, a, es10.2, a)', what, ' (', value, '): FAILED'
      failures = failures + 1
    end if
  end subroutine
end program example_mpc
