! capi_fortran_constraints: the constraint sets of capi/fortran/geolin.f90 against the library,
! on the bundled quadruped standing on its four point feet:
!   - a set of the four feet equals the geolin_contact_* / geolin_impulse* calls with the same
!     arguments exactly (every geolin_constrained_* function, with gains, refs, world axes);
!   - an empty set is geolin_forward_dynamics exactly;
!   - a joint coupling holds nu_dot(joint) = ratio * nu_dot(source) (gains 0, the velocity
!     satisfying it), which the free dynamics does not;
!   - misuse (a loop of a frame with itself, a coupling of a joint with itself, a wheel of
!     radius <= 0) is refused naming the argument, adding nothing.
!
! usage: test_fortran_constraints quadruped.urdf       (exits with status 1 on failure)
program test_fortran_constraints
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_ptr
  use geolin
  implicit none

  type(c_ptr) :: model, ws, set, empty, coupled
  integer(c_int) :: st, feet(4), types(4), joint, source
  integer :: nj, n, nn, i, k, failures
  real(c_double) :: H(4, 4), v(6), refs(4, 4, 4), gains(2), ratio, scale
  real(c_double), allocatable :: s(:), r(:), tau(:), nu(:), nu2(:), lam(:), lam2(:), &
                                 A(:, :), B(:, :), dz(:, :), dw(:, :), A2(:, :), B2(:, :), &
                                 dz2(:, :), dw2(:, :), kp(:), kd(:), s_ref(:), r_ref(:), &
                                 s1(:), r1(:), s2(:), r2(:), lam3(:)
  real(c_double) :: H1(4, 4), H2(4, 4), v1(6), v2(6)
  character(len=1024) :: path
  character(len=4), parameter :: names(4) = ['FL_f', 'FR_f', 'HL_f', 'HR_f']
  real(c_double), parameter :: leg(3) = [0.05_c_double, 0.7_c_double, -1.4_c_double]
  integer :: method

  failures = 0
  if (command_argument_count() < 1) then
    print '(a)', 'usage: test_fortran_constraints quadruped.urdf'
    stop 2
  end if
  call get_command_argument(1, path)
  call check(geolin_load(trim(path), 0_c_int, model), 'load')
  call check(geolin_workspace_new(model, ws), 'workspace_new')
  nj = geolin_model_num_joints(model)
  n = geolin_model_num_dofs(model)
  nn = geolin_model_state_dim(model)
  allocate (s(nj), r(nj), tau(nj), nu(n), nu2(n), lam(12), lam2(12), lam3(12), A(nn, nn), &
            B(nn, nj), dz(12, nn), dw(12, nj), A2(nn, nn), B2(nn, nj), dz2(12, nn), &
            dw2(12, nj), kp(nj), kd(nj), s_ref(nj), r_ref(nj), s1(nj), r1(nj), s2(nj), r2(nj))

  ! the state of the contact tests of the other bindings
  H = 0
  H(1, 1) = cos(0.3_c_double); H(2, 1) = sin(0.3_c_double)
  H(1, 2) = -sin(0.3_c_double); H(2, 2) = cos(0.3_c_double)
  H(3, 3) = 1; H(4, 4) = 1
  H(1:3, 4) = [0.05_c_double, -0.02_c_double, 0.45_c_double]
  v = [0.1_c_double, -0.05_c_double, 0.02_c_double, 0.03_c_double, -0.04_c_double, 0.05_c_double]
  do i = 1, nj
    s(i) = leg(mod(i - 1, 3) + 1) + 0.03_c_double * sin(real(i - 1, c_double))
    r(i) = 0.2_c_double * cos(real(i - 1, c_double))
    tau(i) = 0.5_c_double * sin(1.0_c_double + real(i - 1, c_double))
    kp(i) = 60; kd(i) = 3; s_ref(i) = s(i) + 0.1_c_double; r_ref(i) = 0
  end do
  do k = 1, 4
    feet(k) = geolin_frame_index(model, names(k)//'oot')
    if (feet(k) < 0) call fail('no frame '//names(k)//'oot')
  end do
  types = GEOLIN_CONTACT_POINT

  ! --- a set of contacts only is the contact functions exactly -----------------------------
  call check(geolin_constraints_new(model, set), 'constraints_new')
  do k = 1, 4
    call check(geolin_constraints_add_contact(set, feet(k), GEOLIN_CONTACT_POINT), 'add_contact')
    call check(geolin_frame_pose(ws, H, s, feet(k), refs(:, :, k)), 'frame_pose')
    refs(1:3, 4, k) = refs(1:3, 4, k) + [0.01_c_double, -0.02_c_double, 0.005_c_double]
    call check(geolin_constraints_set_ref(set, int(k - 1, c_int), refs(:, :, k)), 'set_ref')
  end do
  if (geolin_constraints_num_rows(set) /= 12) call fail('num_rows of 4 point feet /= 12')
  gains = [40.0_c_double, 9.0_c_double]
  call check(geolin_constraints_set_gains(set, gains(1), gains(2)), 'set_gains')
  call check(geolin_constraints_set_axes(set, GEOLIN_WRENCH_MIXED), 'set_axes')

  call check(geolin_constrained_dynamics(ws, set, H, s, v, r, tau, nu, lam), 'constrained_dynamics')
  call check(geolin_contact_dynamics(ws, H, s, v, r, tau, 4_c_int, feet, types, &
                                     GEOLIN_WRENCH_MIXED, gains, refs, nu2, lam2), &
             'contact_dynamics')
  call expect(all(nu == nu2) .and. all(lam == lam2), 'constrained_dynamics = contact_dynamics')
  call expect(any(lam /= 0), 'the feet carry the robot')

  call check(geolin_constrained_linearize(ws, set, H, s, v, r, tau, A, B, dz, dw), &
             'constrained_linearize')
  call check(geolin_contact_linearize(ws, H, s, v, r, tau, 4_c_int, feet, types, &
                                      GEOLIN_WRENCH_MIXED, gains, refs, A2, B2, dz2, dw2), &
             'contact_linearize')
  call expect(all(A == A2) .and. all(B == B2) .and. all(dz == dz2) .and. all(dw == dw2), &
              'constrained_linearize = contact_linearize')

  do method = GEOLIN_STEP_SEMI_IMPLICIT_EULER, GEOLIN_STEP_RK4
    call check(geolin_constrained_step(ws, set, int(method, c_int), 1e-3_c_double, H, s, v, r, &
                                       tau, H1, s1, v1, r1, lam), 'constrained_step')
    call check(geolin_contact_step(ws, int(method, c_int), 1e-3_c_double, H, s, v, r, tau, &
                                   4_c_int, feet, types, GEOLIN_WRENCH_MIXED, gains, refs, H2, &
                                   s2, v2, r2, lam2), 'contact_step')
    call expect(all(H1 == H2) .and. all(s1 == s2) .and. all(v1 == v2) .and. all(r1 == r2) &
                .and. all(lam == lam2), 'constrained_step = contact_step')
    call check(geolin_constrained_step_feedback(ws, set, int(method, c_int), 1e-3_c_double, H, &
                                                s, v, r, tau, kp, kd, s_ref, r_ref, H1, s1, &
                                                v1, r1, lam3), 'constrained_step_feedback')
    call check(geolin_contact_step_feedback(ws, int(method, c_int), 1e-3_c_double, H, s, v, r, &
                                            tau, kp, kd, s_ref, r_ref, 4_c_int, feet, types, &
                                            GEOLIN_WRENCH_MIXED, gains, refs, H2, s2, v2, r2, &
                                            lam2), 'contact_step_feedback')
    call expect(all(H1 == H2) .and. all(s1 == s2) .and. all(v1 == v2) .and. all(r1 == r2) &
                .and. all(lam3 == lam2), 'constrained_step_feedback = contact_step_feedback')
    call expect(any(lam3 /= lam), 'the feedback acts')
  end do

  call check(geolin_constrained_step_linearize(ws, set, GEOLIN_STEP_RK4, 1e-3_c_double, H, s, &
                                               v, r, tau, A, B, dz, dw), &
             'constrained_step_linearize')
  call check(geolin_contact_step_linearize(ws, GEOLIN_STEP_RK4, 1e-3_c_double, H, s, v, r, tau, &
                                           4_c_int, feet, types, GEOLIN_WRENCH_MIXED, gains, &
                                           refs, A2, B2, dz2, dw2), 'contact_step_linearize')
  call expect(all(A == A2) .and. all(B == B2) .and. all(dz == dz2) .and. all(dw == dw2), &
              'constrained_step_linearize = contact_step_linearize')
  call check(geolin_constrained_step_feedback_linearize(ws, set, GEOLIN_STEP_RK4, &
                                                        1e-3_c_double, H, s, v, r, tau, kp, &
                                                        kd, s_ref, r_ref, A, B, dz, dw), &
             'constrained_step_feedback_linearize')
  call check(geolin_contact_step_feedback_linearize(ws, GEOLIN_STEP_RK4, 1e-3_c_double, H, s, &
                                                    v, r, tau, kp, kd, s_ref, r_ref, 4_c_int, &
                                                    feet, types, GEOLIN_WRENCH_MIXED, gains, &
                                                    refs, A2, B2, dz2, dw2), &
             'contact_step_feedback_linearize')
  call expect(all(A == A2) .and. all(B == B2) .and. all(dz == dz2) .and. all(dw == dw2), &
              'constrained_step_feedback_linearize = contact_step_feedback_linearize')

  call check(geolin_constrained_impulse(ws, set, 0.5_c_double, H, s, v, r, v1, r1, lam), &
             'constrained_impulse')
  call check(geolin_impulse(ws, H, s, v, r, 4_c_int, feet, types, GEOLIN_WRENCH_MIXED, &
                            0.5_c_double, v2, r2, lam2), 'impulse')
  call expect(all(v1 == v2) .and. all(r1 == r2) .and. all(lam == lam2), &
              'constrained_impulse = impulse')
  call check(geolin_constrained_impulse_linearize(ws, set, 0.5_c_double, H, s, v, r, A, dz), &
             'constrained_impulse_linearize')
  call check(geolin_impulse_linearize(ws, H, s, v, r, 4_c_int, feet, types, &
                                      GEOLIN_WRENCH_MIXED, 0.5_c_double, A2, dz2), &
             'impulse_linearize')
  call expect(all(A == A2) .and. all(dz == dz2), &
              'constrained_impulse_linearize = impulse_linearize')

  ! --- an empty set is the unconstrained dynamics ------------------------------------------
  call check(geolin_constraints_new(model, empty), 'constraints_new')
  if (geolin_constraints_num_rows(empty) /= 0) call fail('an empty set has rows')
  call check(geolin_constrained_dynamics(ws, empty, H, s, v, r, tau, nu), 'constrained_dynamics')
  call check(geolin_forward_dynamics(ws, H, s, v, r, tau, nu2), 'forward_dynamics')
  call expect(all(nu == nu2), 'an empty set is forward dynamics')

  ! --- a coupling holds nu_dot(joint) = ratio * nu_dot(source) -----------------------------
  joint = 4; source = 1; ratio = -0.7_c_double
  call check(geolin_constraints_new(model, coupled), 'constraints_new')
  call check(geolin_constraints_add_coupling(coupled, joint, source, ratio, 0.05_c_double), &
             'add_coupling')
  st = geolin_constraints_add_mimic_joints(coupled)
  call expect(st == 0, 'the quadruped has no <mimic>')
  call expect(geolin_constraints_num_rows(coupled) == 1, 'a coupling has 1 row')
  r(joint + 1) = ratio * r(source + 1)  ! the velocity satisfies it; gains are 0
  call check(geolin_constrained_dynamics(ws, coupled, H, s, v, r, tau, nu, lam), &
             'constrained_dynamics')
  scale = max(1.0_c_double, maxval(abs(nu)))
  call expect(abs(nu(n - nj + joint + 1) - ratio * nu(n - nj + source + 1)) &
              < 1e-9_c_double * scale, &
              'the coupling holds the accelerations in ratio')
  call check(geolin_forward_dynamics(ws, H, s, v, r, tau, nu2), 'forward_dynamics')
  call expect(abs(nu2(n - nj + joint + 1) - ratio * nu2(n - nj + source + 1)) > 1e-3_c_double, &
              'the free dynamics does not hold it')

  ! --- misuse is refused naming the argument, adding nothing -------------------------------
  call refused(geolin_constraints_add_loop(set, feet(1), feet(1), GEOLIN_LOOP_POINT), "'frame_b'")
  call refused(geolin_constraints_add_coupling(set, 2_c_int, 2_c_int, 1.0_c_double, &
                                               0.0_c_double), "'source'")
  v1(1:3) = [0.0_c_double, 1.0_c_double, 0.0_c_double]  ! a wheel's spin axis
  call refused(geolin_constraints_add_wheel(set, feet(1), v1(1:3), -0.1_c_double), "'radius'")
  call expect(geolin_constraints_num_rows(set) == 12, 'a refused constraint adds nothing')

  call geolin_constraints_free(coupled)
  call geolin_constraints_free(empty)
  call geolin_constraints_free(set)
  call geolin_workspace_free(ws)
  call geolin_model_free(model)
  if (failures > 0) then
    print '(i0, a)', failures, ' failed'
    stop 1
  end if
  print '(a)', 'capi_fortran_constraints: all checks passed'

contains

  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= GEOLIN_OK) call fail(what//': '//geolin_error_message(status))
  end subroutine

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(2a)', 'FAIL: ', what
    stop 1
  end subroutine

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(2a)', 'FAIL: ', what
      failures = failures + 1
    end if
  end subroutine

  !> A call refused with GEOLIN_ERR_INVALID_ARGUMENT whose message names the argument.
  subroutine refused(status, argument)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: argument
    character(len=:), allocatable :: message
    message = geolin_error_message(status)
    call expect(status == GEOLIN_ERR_INVALID_ARGUMENT .and. index(message, argument) > 0, &
                'refused naming '//argument//': '//message)
  end subroutine
end program
