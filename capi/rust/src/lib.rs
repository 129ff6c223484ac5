//! Safe Rust bindings of the geolin C API (`geolin.h`): forward dynamics of moving-base robots
//! loaded from URDF and its exact left-trivialized linearization.
//!
//! [`sys`] holds the raw `extern "C"` declarations; the rest is a safe wrapper:
//! [`Model`] (immutable, `Send + Sync`: share it between threads by reference) and
//! [`Workspace`] (the scratch memory of one thread, borrowing its model, so it cannot outlive
//! it). Every fallible call returns a [`Result`] whose [`Error`] carries the status code and
//! the library's message. Slice lengths are checked before calling into C.
//!
//! Besides the dynamics and its linearization, the crate wraps the frames of version 0.2:
//! [`Model::num_frames`], [`Model::frame_name`], [`Model::frame_index`],
//! [`Workspace::frame_pose`], [`Workspace::frame_jacobian`], external wrenches
//! ([`Workspace::forward_dynamics_ext`], [`Workspace::linearize_ext`], with
//! [`WrenchCoordinates`]) and discrete time ([`Workspace::step`], [`Workspace::step_in_place`],
//! [`Workspace::step_linearize`], with [`StepMethod`]), and the contacts and workspace features
//! of version 0.3: [`Workspace::contact_dynamics`], [`Workspace::contact_linearize`] (with
//! [`ContactType`]), [`Model::workspace_with`] and [`Model::workspace_bytes`] (with the
//! `WORKSPACE_*` feature bits), and the steps with joint PD feedback inside the step
//! ([`Workspace::step_feedback`], [`Workspace::contact_step_feedback`] and their linearizations,
//! with [`StepMethod::ImplicitEuler`]), and the constraint sets of issue #39: [`Constraints`]
//! (contacts, closed loops with [`LoopType`], joint couplings, rolling wheels) held by
//! [`Workspace::constrained_dynamics`] and the other `Workspace::constrained_*` methods.
//!
//! Linking: the build script finds `libgeolin.so` through `GEOLIN_LIB_DIR` or `pkg-config` and
//! passes its directory to dependent build scripts as `DEP_GEOLIN_LIBDIR`; a binary crate puts
//! it into its rpath with a two-line `build.rs`, or runs with `LD_LIBRARY_PATH` (capi/README.md,
//! "Rust").
//!
//! Layouts follow the C API: matrices are column-major, `H` is the 4x4 base pose (16 values,
//! column-major), `v` the base twist (linear first), joint vectors have `n_J` entries,
//! generalized vectors `n`, the linearization state `N = 2 n`.
//!
//! ```no_run
//! use geolin::{Model, MOVING_BASE};
//! let model = Model::from_urdf_file("robot.urdf", MOVING_BASE)?;
//! let mut ws = model.workspace()?;
//! let (nj, nn) = (model.num_joints(), model.state_dim());
//! let h = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 1., 1.];
//! let (s, r, tau, v) = (vec![0.0; nj], vec![0.0; nj], vec![0.0; nj], [0.0; 6]);
//! let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
//! ws.linearize(Some(&h), &s, Some(&v), &r, &tau, &mut a, &mut b)?;
//! # Ok::<(), geolin::Error>(())
//! ```
//!
//! A workspace cannot outlive its model:
//!
//! ```compile_fail
//! let ws = {
//!     let model = geolin::Model::from_urdf_file("robot.urdf", 0).unwrap();
//!     model.workspace().unwrap()
//! };
//! ```

use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_int, c_uint};
use std::ptr::{self, NonNull};

/// The raw C API, one declaration per function of `geolin.h`.
#[allow(non_camel_case_types)]
pub mod sys {
    use std::os::raw::{c_char, c_double, c_int, c_uint};

    /// Opaque `geolin_model`.
    #[repr(C)]
    pub struct geolin_model {
        _private: [u8; 0],
    }
    /// Opaque `geolin_workspace`.
    #[repr(C)]
    pub struct geolin_workspace {
        _private: [u8; 0],
    }
    /// Opaque `geolin_constraints` (a constraint set).
    #[repr(C)]
    pub struct geolin_constraints {
        _private: [u8; 0],
    }

    pub const GEOLIN_OK: c_int = 0;
    pub const GEOLIN_ERR_INVALID_ARGUMENT: c_int = 1;
    pub const GEOLIN_ERR_IO: c_int = 2;
    pub const GEOLIN_ERR_PARSE: c_int = 3;
    pub const GEOLIN_ERR_MODEL: c_int = 4;
    pub const GEOLIN_ERR_UNSUPPORTED: c_int = 5;
    pub const GEOLIN_ERR_NONFINITE: c_int = 6;
    pub const GEOLIN_ERR_NUMERIC: c_int = 7;
    pub const GEOLIN_ERR_INTERNAL: c_int = 8;
    pub const GEOLIN_ERR_MEMORY: c_int = 9;

    pub const GEOLIN_FIXED_BASE: c_uint = 1;
    pub const GEOLIN_JOINT_DAMPING: c_uint = 2;

    /// The version of the header these declarations were written for (the library at run
    /// time may be newer: see [`crate::version`]).
    pub const GEOLIN_VERSION_MAJOR: c_int = 0;
    pub const GEOLIN_VERSION_MINOR: c_int = 5;
    pub const GEOLIN_VERSION_PATCH: c_int = 0;

    pub const GEOLIN_WRENCH_LOCAL: c_uint = 0;
    pub const GEOLIN_WRENCH_MIXED: c_uint = 1;

    pub const GEOLIN_STEP_SEMI_IMPLICIT_EULER: c_int = 0;
    pub const GEOLIN_STEP_RK4: c_int = 1;
    pub const GEOLIN_STEP_IMPLICIT_EULER: c_int = 2;

    pub const GEOLIN_WORKSPACE_DYNAMICS: c_uint = 0;
    pub const GEOLIN_WORKSPACE_MASS_MATRIX: c_uint = 1;
    pub const GEOLIN_WORKSPACE_LINEARIZE: c_uint = 2;
    pub const GEOLIN_WORKSPACE_FINITE_DIFFERENCE: c_uint = 4;
    pub const GEOLIN_WORKSPACE_STEP_LINEARIZE: c_uint = 8;
    pub const GEOLIN_WORKSPACE_CONTACTS: c_uint = 16;
    pub const GEOLIN_WORKSPACE_ALL: c_uint = 31;

    pub const GEOLIN_CONTACT_POINT: c_int = 3;
    pub const GEOLIN_CONTACT_RIGID: c_int = 6;

    pub const GEOLIN_LOOP_POINT: c_int = 3;
    pub const GEOLIN_LOOP_HINGE: c_int = 5;
    pub const GEOLIN_LOOP_RIGID: c_int = 6;

    extern "C" {
        pub fn geolin_last_error() -> *const c_char;
        pub fn geolin_status_string(status: c_int) -> *const c_char;
        pub fn geolin_version(major: *mut c_int, minor: *mut c_int, patch: *mut c_int);

        pub fn geolin_model_load_urdf(
            path: *const c_char,
            flags: c_uint,
            out: *mut *mut geolin_model,
        ) -> c_int;
        pub fn geolin_model_load_urdf_string(
            xml: *const c_char,
            flags: c_uint,
            out: *mut *mut geolin_model,
        ) -> c_int;
        pub fn geolin_model_free(model: *mut geolin_model);
        pub fn geolin_model_num_joints(model: *const geolin_model) -> c_int;
        pub fn geolin_model_num_dofs(model: *const geolin_model) -> c_int;
        pub fn geolin_model_state_dim(model: *const geolin_model) -> c_int;
        pub fn geolin_model_num_bodies(model: *const geolin_model) -> c_int;
        pub fn geolin_model_is_fixed_base(model: *const geolin_model) -> c_int;
        pub fn geolin_model_parent(model: *const geolin_model, body: c_int) -> c_int;
        pub fn geolin_model_num_children(model: *const geolin_model, body: c_int) -> c_int;
        pub fn geolin_model_child(model: *const geolin_model, body: c_int, k: c_int) -> c_int;
        pub fn geolin_model_body_name(model: *const geolin_model, body: c_int) -> *const c_char;
        pub fn geolin_model_joint_name(model: *const geolin_model, joint: c_int) -> *const c_char;
        pub fn geolin_model_joint_index(model: *const geolin_model, name: *const c_char) -> c_int;
        pub fn geolin_model_total_mass(model: *const geolin_model) -> c_double;
        pub fn geolin_model_with_armature(
            model: *const geolin_model,
            armature: *const c_double,
            out: *mut *mut geolin_model,
        ) -> c_int;
        pub fn geolin_model_armature(model: *const geolin_model, armature: *mut c_double) -> c_int;
        pub fn geolin_model_with_srdf_rotor_params(
            model: *const geolin_model,
            path: *const c_char,
            out: *mut *mut geolin_model,
        ) -> c_int;
        pub fn geolin_model_num_frames(model: *const geolin_model) -> c_int;
        pub fn geolin_model_frame_name(model: *const geolin_model, frame: c_int) -> *const c_char;
        pub fn geolin_model_frame_index(model: *const geolin_model, name: *const c_char) -> c_int;

        pub fn geolin_workspace_new(
            model: *const geolin_model,
            out: *mut *mut geolin_workspace,
        ) -> c_int;
        pub fn geolin_workspace_new_ex(
            model: *const geolin_model,
            features: c_uint,
            max_wrenches: c_int,
            out: *mut *mut geolin_workspace,
        ) -> c_int;
        pub fn geolin_workspace_bytes(
            model: *const geolin_model,
            features: c_uint,
            max_wrenches: c_int,
        ) -> usize;
        pub fn geolin_workspace_free(ws: *mut geolin_workspace);
        pub fn geolin_workspace_set_gravity(ws: *mut geolin_workspace, g: *const c_double)
            -> c_int;
        pub fn geolin_workspace_set_contact_regularization(
            ws: *mut geolin_workspace,
            mu: c_double,
        ) -> c_int;

        pub fn geolin_forward_dynamics(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            nu_dot: *mut c_double,
        ) -> c_int;
        pub fn geolin_inverse_dynamics(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            nu_dot: *const c_double,
            generalized_force: *mut c_double,
        ) -> c_int;
        pub fn geolin_inverse_dynamics_linearize(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            nu_dot: *const c_double,
            generalized_force: *mut c_double,
            dtau_dz: *mut c_double,
            m: *mut c_double,
        ) -> c_int;
        pub fn geolin_mass_matrix(
            ws: *mut geolin_workspace,
            s: *const c_double,
            m: *mut c_double,
        ) -> c_int;
        pub fn geolin_mass_matrix_inverse(
            ws: *mut geolin_workspace,
            s: *const c_double,
            minv: *mut c_double,
        ) -> c_int;
        pub fn geolin_linearize(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            a: *mut c_double,
            b: *mut c_double,
        ) -> c_int;
        pub fn geolin_linearize_finite_difference(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            eps: c_double,
            a: *mut c_double,
            b: *mut c_double,
        ) -> c_int;

        pub fn geolin_frame_pose(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            frame: c_int,
            h_frame: *mut c_double,
        ) -> c_int;
        pub fn geolin_frame_jacobian(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            frame: c_int,
            j: *mut c_double,
        ) -> c_int;
        pub fn geolin_center_of_mass(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            com: *mut c_double,
            com_velocity: *mut c_double,
            j_com: *mut c_double,
        ) -> c_int;
        pub fn geolin_centroidal_momentum(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            h_g: *mut c_double,
            a_g: *mut c_double,
            dh_dz: *mut c_double,
        ) -> c_int;
        pub fn geolin_frame_pose_error(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            frame: c_int,
            h_ref: *const c_double,
            error: *mut c_double,
            de_dz: *mut c_double,
        ) -> c_int;
        pub fn geolin_frame_velocity(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            frame: c_int,
            flags: c_uint,
            twist: *mut c_double,
            dtwist_dz: *mut c_double,
        ) -> c_int;
        pub fn geolin_frame_acceleration(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            nu_dot: *const c_double,
            frame: c_int,
            flags: c_uint,
            acc: *mut c_double,
            dacc_dz: *mut c_double,
            dacc_dnudot: *mut c_double,
        ) -> c_int;
        pub fn geolin_forward_dynamics_ext(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            nf: c_int,
            frames: *const c_int,
            wrenches: *const c_double,
            wrench_flags: c_uint,
            nu_dot: *mut c_double,
        ) -> c_int;
        pub fn geolin_linearize_ext(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            nf: c_int,
            frames: *const c_int,
            wrenches: *const c_double,
            wrench_flags: c_uint,
            a: *mut c_double,
            b: *mut c_double,
        ) -> c_int;
        pub fn geolin_contact_dynamics(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            nc: c_int,
            frames: *const c_int,
            types: *const c_int,
            wrench_flags: c_uint,
            gains: *const c_double,
            refs: *const c_double,
            nu_dot: *mut c_double,
            lambda: *mut c_double,
        ) -> c_int;
        pub fn geolin_contact_linearize(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            nc: c_int,
            frames: *const c_int,
            types: *const c_int,
            wrench_flags: c_uint,
            gains: *const c_double,
            refs: *const c_double,
            a: *mut c_double,
            b: *mut c_double,
            dlambda_dz: *mut c_double,
            dlambda_dw: *mut c_double,
        ) -> c_int;
        pub fn geolin_step(
            ws: *mut geolin_workspace,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            h_next: *mut c_double,
            s_next: *mut c_double,
            v_next: *mut c_double,
            r_next: *mut c_double,
        ) -> c_int;
        pub fn geolin_step_linearize(
            ws: *mut geolin_workspace,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            a_d: *mut c_double,
            b_d: *mut c_double,
        ) -> c_int;
        pub fn geolin_impulse(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            nc: c_int,
            frames: *const c_int,
            types: *const c_int,
            wrench_flags: c_uint,
            restitution: c_double,
            v_next: *mut c_double,
            r_next: *mut c_double,
            impulse: *mut c_double,
        ) -> c_int;
        pub fn geolin_impulse_linearize(
            ws: *mut geolin_workspace,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            nc: c_int,
            frames: *const c_int,
            types: *const c_int,
            wrench_flags: c_uint,
            restitution: c_double,
            a_imp: *mut c_double,
            dimpulse_dz: *mut c_double,
        ) -> c_int;
        pub fn geolin_contact_step(
            ws: *mut geolin_workspace,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            nc: c_int,
            frames: *const c_int,
            types: *const c_int,
            wrench_flags: c_uint,
            gains: *const c_double,
            refs: *const c_double,
            h_next: *mut c_double,
            s_next: *mut c_double,
            v_next: *mut c_double,
            r_next: *mut c_double,
            lambda: *mut c_double,
        ) -> c_int;
        pub fn geolin_contact_step_linearize(
            ws: *mut geolin_workspace,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            nc: c_int,
            frames: *const c_int,
            types: *const c_int,
            wrench_flags: c_uint,
            gains: *const c_double,
            refs: *const c_double,
            a_d: *mut c_double,
            b_d: *mut c_double,
            dlambda_dz: *mut c_double,
            dlambda_dw: *mut c_double,
        ) -> c_int;
        pub fn geolin_step_feedback(
            ws: *mut geolin_workspace,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            kp: *const c_double,
            kd: *const c_double,
            s_ref: *const c_double,
            r_ref: *const c_double,
            h_next: *mut c_double,
            s_next: *mut c_double,
            v_next: *mut c_double,
            r_next: *mut c_double,
        ) -> c_int;
        pub fn geolin_step_feedback_linearize(
            ws: *mut geolin_workspace,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            kp: *const c_double,
            kd: *const c_double,
            s_ref: *const c_double,
            r_ref: *const c_double,
            a_d: *mut c_double,
            b_d: *mut c_double,
        ) -> c_int;
        pub fn geolin_contact_step_feedback(
            ws: *mut geolin_workspace,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            kp: *const c_double,
            kd: *const c_double,
            s_ref: *const c_double,
            r_ref: *const c_double,
            nc: c_int,
            frames: *const c_int,
            types: *const c_int,
            wrench_flags: c_uint,
            gains: *const c_double,
            refs: *const c_double,
            h_next: *mut c_double,
            s_next: *mut c_double,
            v_next: *mut c_double,
            r_next: *mut c_double,
            lambda: *mut c_double,
        ) -> c_int;
        pub fn geolin_contact_step_feedback_linearize(
            ws: *mut geolin_workspace,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            kp: *const c_double,
            kd: *const c_double,
            s_ref: *const c_double,
            r_ref: *const c_double,
            nc: c_int,
            frames: *const c_int,
            types: *const c_int,
            wrench_flags: c_uint,
            gains: *const c_double,
            refs: *const c_double,
            a_d: *mut c_double,
            b_d: *mut c_double,
            dlambda_dz: *mut c_double,
            dlambda_dw: *mut c_double,
        ) -> c_int;
        pub fn geolin_constraints_new(
            model: *const geolin_model,
            out: *mut *mut geolin_constraints,
        ) -> c_int;
        pub fn geolin_constraints_free(set: *mut geolin_constraints);
        pub fn geolin_constraints_add_contact(
            set: *mut geolin_constraints,
            frame: c_int,
            type_: c_int,
            reference: *const c_double,
        ) -> c_int;
        pub fn geolin_constraints_add_loop(
            set: *mut geolin_constraints,
            frame_a: c_int,
            frame_b: c_int,
            type_: c_int,
        ) -> c_int;
        pub fn geolin_constraints_add_coupling(
            set: *mut geolin_constraints,
            joint: c_int,
            source: c_int,
            ratio: c_double,
            offset: c_double,
        ) -> c_int;
        pub fn geolin_constraints_add_mimic_joints(set: *mut geolin_constraints) -> c_int;
        pub fn geolin_constraints_add_wheel(
            set: *mut geolin_constraints,
            frame: c_int,
            axis: *const c_double,
            radius: c_double,
        ) -> c_int;
        pub fn geolin_constraints_set_gains(
            set: *mut geolin_constraints,
            kp: c_double,
            kd: c_double,
        ) -> c_int;
        pub fn geolin_constraints_set_axes(
            set: *mut geolin_constraints,
            wrench_flags: c_uint,
        ) -> c_int;
        pub fn geolin_constraints_set_ref(
            set: *mut geolin_constraints,
            k: c_int,
            reference: *const c_double,
        ) -> c_int;
        pub fn geolin_constraints_num_rows(set: *const geolin_constraints) -> c_int;
        pub fn geolin_constrained_dynamics(
            ws: *mut geolin_workspace,
            set: *const geolin_constraints,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            nu_dot: *mut c_double,
            lambda: *mut c_double,
        ) -> c_int;
        pub fn geolin_constrained_linearize(
            ws: *mut geolin_workspace,
            set: *const geolin_constraints,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            a: *mut c_double,
            b: *mut c_double,
            dlambda_dz: *mut c_double,
            dlambda_dw: *mut c_double,
        ) -> c_int;
        pub fn geolin_constrained_step(
            ws: *mut geolin_workspace,
            set: *const geolin_constraints,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            h_next: *mut c_double,
            s_next: *mut c_double,
            v_next: *mut c_double,
            r_next: *mut c_double,
            lambda: *mut c_double,
        ) -> c_int;
        pub fn geolin_constrained_step_linearize(
            ws: *mut geolin_workspace,
            set: *const geolin_constraints,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            a_d: *mut c_double,
            b_d: *mut c_double,
            dlambda_dz: *mut c_double,
            dlambda_dw: *mut c_double,
        ) -> c_int;
        pub fn geolin_constrained_step_feedback(
            ws: *mut geolin_workspace,
            set: *const geolin_constraints,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            kp: *const c_double,
            kd: *const c_double,
            s_ref: *const c_double,
            r_ref: *const c_double,
            h_next: *mut c_double,
            s_next: *mut c_double,
            v_next: *mut c_double,
            r_next: *mut c_double,
            lambda: *mut c_double,
        ) -> c_int;
        pub fn geolin_constrained_step_feedback_linearize(
            ws: *mut geolin_workspace,
            set: *const geolin_constraints,
            method: c_int,
            dt: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            tau: *const c_double,
            kp: *const c_double,
            kd: *const c_double,
            s_ref: *const c_double,
            r_ref: *const c_double,
            a_d: *mut c_double,
            b_d: *mut c_double,
            dlambda_dz: *mut c_double,
            dlambda_dw: *mut c_double,
        ) -> c_int;
        pub fn geolin_constrained_impulse(
            ws: *mut geolin_workspace,
            set: *const geolin_constraints,
            restitution: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            v_next: *mut c_double,
            r_next: *mut c_double,
            impulse: *mut c_double,
        ) -> c_int;
        pub fn geolin_constrained_impulse_linearize(
            ws: *mut geolin_workspace,
            set: *const geolin_constraints,
            restitution: c_double,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            a_imp: *mut c_double,
            dimpulse_dz: *mut c_double,
        ) -> c_int;
        pub fn geolin_state_integrate(
            model: *const geolin_model,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            z: *const c_double,
            h_out: *mut c_double,
            s_out: *mut c_double,
            v_out: *mut c_double,
            r_out: *mut c_double,
        ) -> c_int;
        pub fn geolin_state_difference(
            model: *const geolin_model,
            h0: *const c_double,
            s0: *const c_double,
            v0: *const c_double,
            r0: *const c_double,
            h1: *const c_double,
            s1: *const c_double,
            v1: *const c_double,
            r1: *const c_double,
            z: *mut c_double,
        ) -> c_int;
        pub fn geolin_state_integrate_derivatives(
            model: *const geolin_model,
            h: *const c_double,
            s: *const c_double,
            v: *const c_double,
            r: *const c_double,
            z: *const c_double,
            d_dx: *mut c_double,
            d_dz: *mut c_double,
        ) -> c_int;
        pub fn geolin_state_difference_derivatives(
            model: *const geolin_model,
            h0: *const c_double,
            s0: *const c_double,
            v0: *const c_double,
            r0: *const c_double,
            h1: *const c_double,
            s1: *const c_double,
            v1: *const c_double,
            r1: *const c_double,
            dz_dx0: *mut c_double,
            dz_dx1: *mut c_double,
        ) -> c_int;
    }
}

/// Load flag: a moving base (no flag).
pub const MOVING_BASE: u32 = 0;
/// Load flag: weld the root link to the inertial frame.
pub const FIXED_BASE: u32 = sys::GEOLIN_FIXED_BASE;
/// Load flag: use URDF `<dynamics damping>` as viscous joint friction.
pub const JOINT_DAMPING: u32 = sys::GEOLIN_JOINT_DAMPING;

/// Workspace feature (bitwise or, [`Model::workspace_with`]): forward and inverse dynamics,
/// frames, [`Workspace::forward_dynamics_ext`] and [`Workspace::step`] only; they always work.
pub const WORKSPACE_DYNAMICS: u32 = sys::GEOLIN_WORKSPACE_DYNAMICS;
/// Workspace feature: [`Workspace::mass_matrix`], [`Workspace::mass_matrix_inverse`].
pub const WORKSPACE_MASS_MATRIX: u32 = sys::GEOLIN_WORKSPACE_MASS_MATRIX;
/// Workspace feature: [`Workspace::linearize`], [`Workspace::linearize_ext`].
pub const WORKSPACE_LINEARIZE: u32 = sys::GEOLIN_WORKSPACE_LINEARIZE;
/// Workspace feature: [`Workspace::linearize_finite_difference`].
pub const WORKSPACE_FINITE_DIFFERENCE: u32 = sys::GEOLIN_WORKSPACE_FINITE_DIFFERENCE;
/// Workspace feature: [`Workspace::step_linearize`] (includes `WORKSPACE_LINEARIZE`).
pub const WORKSPACE_STEP_LINEARIZE: u32 = sys::GEOLIN_WORKSPACE_STEP_LINEARIZE;
/// Workspace feature: [`Workspace::contact_dynamics`]; with `WORKSPACE_LINEARIZE` also
/// [`Workspace::contact_linearize`].
pub const WORKSPACE_CONTACTS: u32 = sys::GEOLIN_WORKSPACE_CONTACTS;
/// Every workspace feature (what [`Model::workspace`] creates).
pub const WORKSPACE_ALL: u32 = sys::GEOLIN_WORKSPACE_ALL;

/// How a contact of [`Workspace::contact_dynamics`] holds its frame (`types` of the C API).
/// The discriminant is the C value and the contact's number of rows of `lambda`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum ContactType {
    /// The frame origin is held: 3 rows, `lambda` a force (`GEOLIN_CONTACT_POINT`).
    Point = sys::GEOLIN_CONTACT_POINT,
    /// The whole frame is held: 6 rows, `lambda` a wrench `[force; torque]`
    /// (`GEOLIN_CONTACT_RIGID`).
    Rigid = sys::GEOLIN_CONTACT_RIGID,
}

impl ContactType {
    /// The C value (`GEOLIN_CONTACT_*`).
    pub fn raw(self) -> i32 {
        self as i32
    }

    /// The contact's rows of `lambda`: 3 for a point, 6 for a rigid contact.
    pub fn rows(self) -> usize {
        self as usize
    }
}

/// What a loop closure of [`Constraints::add_loop`] holds between its frames a and b
/// (`GEOLIN_LOOP_*`). The discriminant is the C value and the loop's number of rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum LoopType {
    /// Their origins coincide: 3 rows (`GEOLIN_LOOP_POINT`).
    Point = sys::GEOLIN_LOOP_POINT,
    /// Their origins coincide and their z axes stay parallel: 5 rows (`GEOLIN_LOOP_HINGE`).
    Hinge = sys::GEOLIN_LOOP_HINGE,
    /// The two frames coincide: 6 rows (`GEOLIN_LOOP_RIGID`).
    Rigid = sys::GEOLIN_LOOP_RIGID,
}

impl LoopType {
    /// The C value (`GEOLIN_LOOP_*`).
    pub fn raw(self) -> i32 {
        self as i32
    }

    /// The loop's rows of `lambda`: 3, 5 or 6.
    pub fn rows(self) -> usize {
        self as usize
    }
}

/// The coordinates of the external wrenches of one call (`wrench_flags` of the C API). Each
/// wrench is `[force; torque]`, applied at the origin of its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WrenchCoordinates {
    /// In the frame's own axes (`GEOLIN_WRENCH_LOCAL`).
    Local,
    /// In axes parallel to the inertial frame A, e.g. contact forces (`GEOLIN_WRENCH_MIXED`).
    Mixed,
}

impl WrenchCoordinates {
    /// The C value (`GEOLIN_WRENCH_*`).
    pub fn raw(self) -> u32 {
        match self {
            WrenchCoordinates::Local => sys::GEOLIN_WRENCH_LOCAL,
            WrenchCoordinates::Mixed => sys::GEOLIN_WRENCH_MIXED,
        }
    }
}

/// The integration method of [`Workspace::step`], [`Workspace::step_feedback`] and their
/// linearizations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepMethod {
    /// `nu+ = nu + h FD; H+ = H exp(h v+); s+ = s + h r+` (`GEOLIN_STEP_SEMI_IMPLICIT_EULER`).
    SemiImplicitEuler,
    /// Runge-Kutta-Munthe-Kaas of order 4 (`GEOLIN_STEP_RK4`).
    Rk4,
    /// Semi-implicit Euler with the joint damping implicit (`GEOLIN_STEP_IMPLICIT_EULER`):
    /// `nu+ = nu + h (M + h D)^-1 f`, `D = diag(0_6, d)`, `d` = the model's damping (loaded
    /// with [`JOINT_DAMPING`]) + the `kd` of [`Workspace::step_feedback`]; stable for any
    /// damping, equal to `SemiImplicitEuler` when `d = 0`.
    ImplicitEuler,
}

impl StepMethod {
    /// The C value (`GEOLIN_STEP_*`).
    pub fn raw(self) -> i32 {
        match self {
            StepMethod::SemiImplicitEuler => sys::GEOLIN_STEP_SEMI_IMPLICIT_EULER,
            StepMethod::Rk4 => sys::GEOLIN_STEP_RK4,
            StepMethod::ImplicitEuler => sys::GEOLIN_STEP_IMPLICIT_EULER,
        }
    }
}

/// The status codes of the C API.
pub mod status {
    pub use super::sys::{
        GEOLIN_ERR_INTERNAL as INTERNAL, GEOLIN_ERR_INVALID_ARGUMENT as INVALID_ARGUMENT,
        GEOLIN_ERR_IO as IO, GEOLIN_ERR_MEMORY as MEMORY, GEOLIN_ERR_MODEL as MODEL,
        GEOLIN_ERR_NONFINITE as NONFINITE, GEOLIN_ERR_NUMERIC as NUMERIC,
        GEOLIN_ERR_PARSE as PARSE, GEOLIN_ERR_UNSUPPORTED as UNSUPPORTED, GEOLIN_OK as OK,
    };
}

/// A failed call: the C status code and the message of `geolin_last_error`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    status: i32,
    message: String,
}

impl Error {
    /// The `GEOLIN_ERR_*` code (see [`status`]).
    pub fn status(&self) -> i32 {
        self.status
    }
    /// What went wrong and where.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The name of the status code (`geolin_status_string`).
    pub fn status_name(&self) -> &'static str {
        status_string(self.status)
    }

    fn from_last(status: c_int) -> Error {
        // SAFETY: geolin_last_error never returns NULL; the string is thread-local and is
        // copied before any other call on this thread.
        let message = unsafe { CStr::from_ptr(sys::geolin_last_error()) }
            .to_string_lossy()
            .into_owned();
        Error { status, message }
    }

    fn invalid(message: String) -> Error {
        Error {
            status: sys::GEOLIN_ERR_INVALID_ARGUMENT,
            message,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.status_name(),
            self.status,
            self.message
        )
    }
}

impl std::error::Error for Error {}

/// `Result` with the geolin [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

fn check(status: c_int) -> Result<()> {
    if status == sys::GEOLIN_OK {
        Ok(())
    } else {
        Err(Error::from_last(status))
    }
}

/// The run-time version of the library (major, minor, patch).
pub fn version() -> (i32, i32, i32) {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: three valid pointers.
    unsafe { sys::geolin_version(&mut a, &mut b, &mut c) };
    (a, b, c)
}

/// Whether a library of version `library` serves declarations written for `header` (docs/c-api.md,
/// "Versioning policy"): the same major (ABI, SONAME) version, and a minor version at least the
/// header's (a minor version adds functions). An error names both versions.
pub fn check_version_compatible(library: (i32, i32, i32), header: (i32, i32, i32)) -> Result<()> {
    if library.0 == header.0 && library.1 >= header.1 {
        return Ok(());
    }
    Err(Error {
        status: sys::GEOLIN_ERR_UNSUPPORTED,
        message: format!(
            "the geolin library at run time is version {}.{}.{}, but this crate was written for \
             geolin.h {}.{}.{}: the major (ABI) version must be equal and the library's minor \
             version at least the crate's; link a matching libgeolin",
            library.0, library.1, library.2, header.0, header.1, header.2
        ),
    })
}

/// The run-time check of MuJoCo's `mjVERSION_HEADER == mj_version()`: [`version`] against this
/// crate's [`sys::GEOLIN_VERSION_MAJOR`] and [`sys::GEOLIN_VERSION_MINOR`]. The model loaders
/// call it, so a mismatched library fails there with this message.
pub fn check_version() -> Result<()> {
    use sys::{GEOLIN_VERSION_MAJOR, GEOLIN_VERSION_MINOR, GEOLIN_VERSION_PATCH};
    check_version_compatible(
        version(),
        (
            GEOLIN_VERSION_MAJOR,
            GEOLIN_VERSION_MINOR,
            GEOLIN_VERSION_PATCH,
        ),
    )
}

/// The name of a status code.
pub fn status_string(status: i32) -> &'static str {
    // SAFETY: returns a static NUL-terminated string, never NULL.
    unsafe { CStr::from_ptr(sys::geolin_status_string(status)) }
        .to_str()
        .unwrap_or("unknown status")
}

fn c_string(what: &str, text: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::invalid(format!("{what} contains a NUL byte")))
}

/// An immutable robot model loaded from URDF. It may be shared by many threads.
pub struct Model {
    ptr: NonNull<sys::geolin_model>,
}

// SAFETY: the C API guarantees that a model is immutable after loading and may be used from
// many threads at once (docs/c-api.md rule 2).
unsafe impl Send for Model {}
unsafe impl Sync for Model {}

impl Model {
    fn from_raw(status: c_int, out: *mut sys::geolin_model) -> Result<Model> {
        check(status)?;
        NonNull::new(out)
            .map(|ptr| Model { ptr })
            .ok_or_else(|| Error {
                status: sys::GEOLIN_ERR_INTERNAL,
                message: "model loader returned NULL".into(),
            })
    }

    /// Load a URDF file. `flags`: [`MOVING_BASE`], or [`FIXED_BASE`] | [`JOINT_DAMPING`].
    pub fn from_urdf_file(path: impl AsRef<std::path::Path>, flags: u32) -> Result<Model> {
        let path = path.as_ref();
        let text = path
            .to_str()
            .ok_or_else(|| Error::invalid(format!("path {path:?} is not UTF-8")))?;
        let c_path = c_string("path", text)?;
        check_version()?;
        let mut out = ptr::null_mut();
        // SAFETY: valid NUL-terminated string and out pointer.
        let st = unsafe { sys::geolin_model_load_urdf(c_path.as_ptr(), flags as c_uint, &mut out) };
        Model::from_raw(st, out)
    }

    /// Load a URDF document from a string.
    pub fn from_urdf_str(xml: &str, flags: u32) -> Result<Model> {
        let c_xml = c_string("xml", xml)?;
        check_version()?;
        let mut out = ptr::null_mut();
        // SAFETY: valid NUL-terminated string and out pointer.
        let st = unsafe {
            sys::geolin_model_load_urdf_string(c_xml.as_ptr(), flags as c_uint, &mut out)
        };
        Model::from_raw(st, out)
    }

    /// The raw handle, for calls through [`sys`].
    pub fn as_ptr(&self) -> *const sys::geolin_model {
        self.ptr.as_ptr()
    }

    fn count(value: c_int) -> usize {
        // Non-negative for a valid handle.
        usize::try_from(value).unwrap_or(0)
    }

    /// `n_J`, the number of joints.
    pub fn num_joints(&self) -> usize {
        Model::count(unsafe { sys::geolin_model_num_joints(self.as_ptr()) })
    }
    /// `n`, the number of generalized velocities (6 + n_J, or n_J for a fixed base).
    pub fn num_dofs(&self) -> usize {
        Model::count(unsafe { sys::geolin_model_num_dofs(self.as_ptr()) })
    }
    /// `N = 2 n`, the dimension of the linearization state.
    pub fn state_dim(&self) -> usize {
        Model::count(unsafe { sys::geolin_model_state_dim(self.as_ptr()) })
    }
    /// `n_B + 1`, the number of bodies including the base.
    pub fn num_bodies(&self) -> usize {
        Model::count(unsafe { sys::geolin_model_num_bodies(self.as_ptr()) })
    }
    /// Whether the model was loaded with [`FIXED_BASE`].
    pub fn is_fixed_base(&self) -> bool {
        unsafe { sys::geolin_model_is_fixed_base(self.as_ptr()) == 1 }
    }
    /// The parent of a body; `None` for the base or a body out of range.
    pub fn parent(&self, body: usize) -> Option<usize> {
        let body = c_int::try_from(body).ok()?;
        usize::try_from(unsafe { sys::geolin_model_parent(self.as_ptr(), body) }).ok()
    }
    /// The children of a body, in URDF order (empty if out of range).
    pub fn children(&self, body: usize) -> Vec<usize> {
        let Ok(b) = c_int::try_from(body) else {
            return Vec::new();
        };
        let count = unsafe { sys::geolin_model_num_children(self.as_ptr(), b) };
        (0..count.max(0))
            .filter_map(|k| {
                usize::try_from(unsafe { sys::geolin_model_child(self.as_ptr(), b, k) }).ok()
            })
            .collect()
    }
    /// The URDF link name of a body.
    pub fn body_name(&self, body: usize) -> Option<&str> {
        let body = c_int::try_from(body).ok()?;
        // SAFETY: the string belongs to the model and lives as long as &self.
        let p = unsafe { sys::geolin_model_body_name(self.as_ptr(), body) };
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().ok())?
    }
    /// The URDF name of joint k (0-based; the joint of body k + 1).
    pub fn joint_name(&self, joint: usize) -> Option<&str> {
        let joint = c_int::try_from(joint).ok()?;
        // SAFETY: the string belongs to the model and lives as long as &self.
        let p = unsafe { sys::geolin_model_joint_name(self.as_ptr(), joint) };
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().ok())?
    }
    /// The index of the joint called `name`.
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        let c_name = CString::new(name).ok()?;
        usize::try_from(unsafe { sys::geolin_model_joint_index(self.as_ptr(), c_name.as_ptr()) })
            .ok()
    }
    /// The total mass in kg.
    pub fn total_mass(&self) -> f64 {
        unsafe { sys::geolin_model_total_mass(self.as_ptr()) }
    }
    /// A new model whose joints carry the reflected rotor inertias `armature` (n_J values, joint
    /// order; kg m², kg for a prismatic joint; finite, >= 0): every function of it uses
    /// `M(s) + diag(0_6, armature)`. Replaces any armature `self` had; `self` is unchanged and the
    /// new model is independent of it. Errors name `armature[j]` and the joint.
    pub fn with_armature(&self, armature: &[f64]) -> Result<Model> {
        check_len(
            "with_armature",
            "armature",
            armature.len(),
            self.num_joints(),
        )?;
        let mut out = ptr::null_mut();
        // SAFETY: armature holds n_J doubles (checked), out is a valid pointer.
        let st =
            unsafe { sys::geolin_model_with_armature(self.as_ptr(), armature.as_ptr(), &mut out) };
        Model::from_raw(st, out)
    }
    /// A new model whose joints named in the SRDF's `<rotor_params>` (Pinocchio's format,
    /// `<joint name="J" mass="I_rotor" gear_ratio="N"/>`) carry `I_rotor N²`; the others keep
    /// `self`'s armature.
    pub fn with_srdf_rotor_params(&self, path: impl AsRef<std::path::Path>) -> Result<Model> {
        let path = path.as_ref();
        let text = path
            .to_str()
            .ok_or_else(|| Error::invalid(format!("path {path:?} is not UTF-8")))?;
        let c_path = c_string("path", text)?;
        let mut out = ptr::null_mut();
        // SAFETY: valid NUL-terminated string and out pointer.
        let st = unsafe {
            sys::geolin_model_with_srdf_rotor_params(self.as_ptr(), c_path.as_ptr(), &mut out)
        };
        Model::from_raw(st, out)
    }
    /// The reflected rotor inertias of the joints (zeros for a model loaded from URDF).
    pub fn armature(&self) -> Vec<f64> {
        let mut a = vec![0.0; self.num_joints()];
        // SAFETY: a holds n_J doubles.
        let st = unsafe { sys::geolin_model_armature(self.as_ptr(), a.as_mut_ptr()) };
        debug_assert_eq!(st, sys::GEOLIN_OK);
        a
    }
    /// The number of frames (every URDF link, also those merged by fixed joints).
    pub fn num_frames(&self) -> usize {
        Model::count(unsafe { sys::geolin_model_num_frames(self.as_ptr()) })
    }
    /// The name (URDF link) of a frame; `None` if out of range.
    pub fn frame_name(&self, frame: usize) -> Option<&str> {
        let frame = c_int::try_from(frame).ok()?;
        // SAFETY: the string belongs to the model and lives as long as &self.
        let p = unsafe { sys::geolin_model_frame_name(self.as_ptr(), frame) };
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().ok())?
    }
    /// The index of the frame called `name`.
    pub fn frame_index(&self, name: &str) -> Option<usize> {
        let c_name = CString::new(name).ok()?;
        usize::try_from(unsafe { sys::geolin_model_frame_index(self.as_ptr(), c_name.as_ptr()) })
            .ok()
    }

    /// A new, empty [`Constraints`] set of this model.
    pub fn constraints(&self) -> Result<Constraints<'_>> {
        Constraints::new(self)
    }

    /// A new workspace (gravity [0, 0, -9.81]) for evaluations on one thread, with every
    /// feature and room for one wrench or contact per frame.
    pub fn workspace(&self) -> Result<Workspace<'_>> {
        let mut out = ptr::null_mut();
        // SAFETY: valid model handle and out pointer.
        check(unsafe { sys::geolin_workspace_new(self.as_ptr(), &mut out) })?;
        self.wrap_workspace("geolin_workspace_new", out)
    }

    /// A new workspace sized for `features` only (`WORKSPACE_*` bits, or-ed; 0 =
    /// [`WORKSPACE_DYNAMICS`]) and for at most `max_wrenches` wrenches per
    /// [`Workspace::linearize_ext`] and contacts per `contact_*` call (at most 2^20). For large
    /// models, where a workspace with every feature would not fit in memory
    /// ([`status::MEMORY`]).
    pub fn workspace_with(&self, features: u32, max_wrenches: usize) -> Result<Workspace<'_>> {
        let max = c_index("workspace_with", "max_wrenches", max_wrenches)?;
        let mut out = ptr::null_mut();
        // SAFETY: valid model handle and out pointer; the library checks features and max.
        check(unsafe { sys::geolin_workspace_new_ex(self.as_ptr(), features, max, &mut out) })?;
        self.wrap_workspace("geolin_workspace_new_ex", out)
    }

    /// The bytes of memory [`Model::workspace_with`]`(features, max_wrenches)` would allocate
    /// (to within a few kilobytes; `usize::MAX` if that does not fit).
    pub fn workspace_bytes(&self, features: u32, max_wrenches: usize) -> Result<usize> {
        let max = c_index("workspace_bytes", "max_wrenches", max_wrenches)?;
        // SAFETY: valid model handle.
        match unsafe { sys::geolin_workspace_bytes(self.as_ptr(), features, max) } {
            0 => Err(Error::from_last(sys::GEOLIN_ERR_INVALID_ARGUMENT)),
            bytes => Ok(bytes),
        }
    }

    // --- the state algebra (docs/conventions.md): x exp(z), log(x0^-1 x1), their Jacobians --

    fn check_joints(&self, function: &str, names: [&str; 2], s: &[f64], r: &[f64]) -> Result<()> {
        let nj = self.num_joints();
        check_len(function, names[0], s.len(), nj)?;
        check_len(function, names[1], r.len(), nj)
    }

    /// x exp(z): `h_out` = `h` exp(z_H^), `s_out` = `s` + z_s, `v_out` = `v` + z_v, `r_out` =
    /// `r` + z_r, with z = [z_H; z_s; z_v; z_r] (N entries). For a fixed base `h`, `v`, `h_out`,
    /// `v_out` may be `None` (ignored).
    #[allow(clippy::too_many_arguments)]
    pub fn state_integrate(
        &self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        z: &[f64],
        h_out: Option<&mut [f64; 16]>,
        s_out: &mut [f64],
        v_out: Option<&mut [f64; 6]>,
        r_out: &mut [f64],
    ) -> Result<()> {
        const F: &str = "state_integrate";
        self.check_joints(F, ["s", "r"], s, r)?;
        self.check_joints(F, ["s_out", "r_out"], s_out, r_out)?;
        check_len(F, "z", z.len(), self.state_dim())?;
        // SAFETY: lengths checked; the outputs are distinct from the inputs (borrows).
        check(unsafe {
            sys::geolin_state_integrate(
                self.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                z.as_ptr(),
                opt_mut_ptr(h_out),
                s_out.as_mut_ptr(),
                opt_mut_ptr(v_out),
                r_out.as_mut_ptr(),
            )
        })
    }

    /// x <- x exp(z) in place (the C function allows outputs aliasing inputs). On failure the
    /// state is unchanged.
    pub fn state_integrate_in_place(
        &self,
        h: Option<&mut [f64; 16]>,
        s: &mut [f64],
        v: Option<&mut [f64; 6]>,
        r: &mut [f64],
        z: &[f64],
    ) -> Result<()> {
        const F: &str = "state_integrate_in_place";
        self.check_joints(F, ["s", "r"], s, r)?;
        check_len(F, "z", z.len(), self.state_dim())?;
        let (hp, vp) = (opt_mut_ptr(h), opt_mut_ptr(v));
        let (sp, rp) = (s.as_mut_ptr(), r.as_mut_ptr());
        // SAFETY: lengths checked; the C function supports outputs aliasing its inputs.
        check(unsafe {
            sys::geolin_state_integrate(self.as_ptr(), hp, sp, vp, rp, z.as_ptr(), hp, sp, vp, rp)
        })
    }

    /// z = log(x0^-1 x1) (N entries), the z with x0 exp(z) = x1 (rotation angle in [0, pi]; at
    /// exactly pi, the first largest component of the rotation vector is positive). For a fixed
    /// base `h0`, `v0`, `h1`, `v1` may be `None`.
    #[allow(clippy::too_many_arguments)]
    pub fn state_difference(
        &self,
        h0: Option<&[f64; 16]>,
        s0: &[f64],
        v0: Option<&[f64; 6]>,
        r0: &[f64],
        h1: Option<&[f64; 16]>,
        s1: &[f64],
        v1: Option<&[f64; 6]>,
        r1: &[f64],
        z: &mut [f64],
    ) -> Result<()> {
        const F: &str = "state_difference";
        self.check_joints(F, ["s0", "r0"], s0, r0)?;
        self.check_joints(F, ["s1", "r1"], s1, r1)?;
        check_len(F, "z", z.len(), self.state_dim())?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_state_difference(
                self.as_ptr(),
                opt_ptr(h0),
                s0.as_ptr(),
                opt_ptr(v0),
                r0.as_ptr(),
                opt_ptr(h1),
                s1.as_ptr(),
                opt_ptr(v1),
                r1.as_ptr(),
                z.as_mut_ptr(),
            )
        })
    }

    /// The Jacobians of x exp(z) (N x N, column-major; either may be `None`):
    /// (x exp(dx)) exp(z + dz) = x exp(z) exp(d_dx dx + d_dz dz) to first order. They depend on
    /// `z` only (`h`, `s` are checked; the velocities are not read).
    pub fn state_integrate_derivatives(
        &self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        z: &[f64],
        d_dx: Option<&mut [f64]>,
        d_dz: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "state_integrate_derivatives";
        let n = self.state_dim();
        check_len(F, "s", s.len(), self.num_joints())?;
        check_len(F, "z", z.len(), n)?;
        let a = opt_out(F, "d_dx", d_dx, n * n)?;
        let b = opt_out(F, "d_dz", d_dz, n * n)?;
        // SAFETY: lengths checked; v and r are not read (NULL).
        check(unsafe {
            sys::geolin_state_integrate_derivatives(
                self.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                ptr::null(),
                ptr::null(),
                z.as_ptr(),
                a,
                b,
            )
        })
    }

    /// The Jacobians of z = log(x0^-1 x1) for x0 exp(dx0), x1 exp(dx1) (N x N, column-major;
    /// either may be `None`): z' = z + dz_dx0 dx0 + dz_dx1 dx1 to first order. The velocities
    /// are not read.
    pub fn state_difference_derivatives(
        &self,
        h0: Option<&[f64; 16]>,
        s0: &[f64],
        h1: Option<&[f64; 16]>,
        s1: &[f64],
        dz_dx0: Option<&mut [f64]>,
        dz_dx1: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "state_difference_derivatives";
        let n = self.state_dim();
        check_len(F, "s0", s0.len(), self.num_joints())?;
        check_len(F, "s1", s1.len(), self.num_joints())?;
        let a = opt_out(F, "dz_dx0", dz_dx0, n * n)?;
        let b = opt_out(F, "dz_dx1", dz_dx1, n * n)?;
        // SAFETY: lengths checked; v0, r0, v1, r1 are not read (NULL).
        check(unsafe {
            sys::geolin_state_difference_derivatives(
                self.as_ptr(),
                opt_ptr(h0),
                s0.as_ptr(),
                ptr::null(),
                ptr::null(),
                opt_ptr(h1),
                s1.as_ptr(),
                ptr::null(),
                ptr::null(),
                a,
                b,
            )
        })
    }

    fn wrap_workspace(
        &self,
        function: &str,
        out: *mut sys::geolin_workspace,
    ) -> Result<Workspace<'_>> {
        let ptr = NonNull::new(out).ok_or_else(|| Error {
            status: sys::GEOLIN_ERR_INTERNAL,
            message: format!("{function} returned NULL"),
        })?;
        Ok(Workspace { ptr, model: self })
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: owned handle; every workspace borrows the model, so none is alive here.
        unsafe { sys::geolin_model_free(self.ptr.as_ptr()) }
    }
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("num_joints", &self.num_joints())
            .field("fixed_base", &self.is_fixed_base())
            .finish()
    }
}

/// An ordered set of constraints of one model (geolin.h "Constraint sets",
/// docs/constraints.md): contacts, closed kinematic loops, joint couplings (URDF `<mimic>`)
/// and rolling wheels, held by the `Workspace::constrained_*` functions. Its rows, and the
/// entries of `lambda`, come constraint after constraint in the order added
/// ([`Constraints::num_rows`] of them). It borrows its model, so the model outlives it.
/// Evaluations read it through `&self` (threads may share one set); the `add_*` and `set_*`
/// methods take `&mut self`, so none runs during an evaluation. Each `add_*` method returns the
/// index of the constraint it added (the `k` of [`Constraints::set_ref`]).
pub struct Constraints<'m> {
    ptr: NonNull<sys::geolin_constraints>,
    model: &'m Model,
    len: usize,
}

// SAFETY: the C API lets many threads evaluate with one set at once (it is only read there);
// its setters need &mut self, so they cannot run concurrently with an evaluation.
unsafe impl Send for Constraints<'_> {}
unsafe impl Sync for Constraints<'_> {}

impl<'m> Constraints<'m> {
    /// An empty set of `model` (gains 0, 0; [`WrenchCoordinates::Local`]).
    pub fn new(model: &'m Model) -> Result<Constraints<'m>> {
        let mut out = ptr::null_mut();
        // SAFETY: valid model handle and out pointer.
        check(unsafe { sys::geolin_constraints_new(model.as_ptr(), &mut out) })?;
        let ptr = NonNull::new(out).ok_or_else(|| Error {
            status: sys::GEOLIN_ERR_INTERNAL,
            message: "geolin_constraints_new returned NULL".into(),
        })?;
        Ok(Constraints { ptr, model, len: 0 })
    }

    /// The model of this set.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The raw handle, for calls through [`sys`].
    pub fn as_ptr(&self) -> *const sys::geolin_constraints {
        self.ptr.as_ptr()
    }

    /// The number of constraints added through this value.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no constraint was added.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// m, the number of rows (the length of `lambda`).
    pub fn num_rows(&self) -> usize {
        // SAFETY: valid handle.
        Model::count(unsafe { sys::geolin_constraints_num_rows(self.as_ptr()) })
    }

    fn added(&mut self, status: c_int) -> Result<usize> {
        check(status)?;
        self.len += 1;
        Ok(self.len - 1)
    }

    /// A frame held by the world as [`Workspace::contact_dynamics`] holds it; `reference`:
    /// `None` or the held pose H_ref (4x4 column-major; a point uses its translation), required
    /// when the set's Kp != 0.
    pub fn add_contact(
        &mut self,
        frame: usize,
        kind: ContactType,
        reference: Option<&[f64; 16]>,
    ) -> Result<usize> {
        let frame = c_index("add_contact", "frame", frame)?;
        // SAFETY: valid handle; reference has 16 entries or is NULL.
        self.added(unsafe {
            sys::geolin_constraints_add_contact(
                self.ptr.as_ptr(),
                frame,
                kind.raw(),
                opt_ptr(reference),
            )
        })
    }

    /// A loop closure between two frames of the robot (on distinct bodies). `lambda`: what
    /// frame b's body applies on frame a's at frame a's origin, in the set's axes.
    pub fn add_loop(&mut self, frame_a: usize, frame_b: usize, kind: LoopType) -> Result<usize> {
        let a = c_index("add_loop", "frame_a", frame_a)?;
        let b = c_index("add_loop", "frame_b", frame_b)?;
        // SAFETY: valid handle.
        self.added(unsafe { sys::geolin_constraints_add_loop(self.ptr.as_ptr(), a, b, kind.raw()) })
    }

    /// A joint coupling `s[joint] = ratio * s[source] + offset` (1 row; `lambda`: the
    /// generalized force on `joint`, `-ratio` times it on `source`).
    pub fn add_coupling(
        &mut self,
        joint: usize,
        source: usize,
        ratio: f64,
        offset: f64,
    ) -> Result<usize> {
        let j = c_index("add_coupling", "joint", joint)?;
        let i = c_index("add_coupling", "source", source)?;
        // SAFETY: valid handle.
        self.added(unsafe {
            sys::geolin_constraints_add_coupling(self.ptr.as_ptr(), j, i, ratio, offset)
        })
    }

    /// Every URDF `<mimic>` of the model as a coupling; the number added.
    pub fn add_mimic_joints(&mut self) -> Result<usize> {
        // SAFETY: valid handle.
        let count = unsafe { sys::geolin_constraints_add_mimic_joints(self.ptr.as_ptr()) };
        check(count.min(0))?;
        self.len += Model::count(count);
        Ok(Model::count(count))
    }

    /// A thin wheel rolling without slipping on the plane z = 0: the frame's origin is its
    /// centre, `axis` its spin axis in frame coordinates, `radius` > 0 (m). 3 rows; `lambda`:
    /// the ground's force on the wheel at the contact point, world axes.
    pub fn add_wheel(&mut self, frame: usize, axis: &[f64; 3], radius: f64) -> Result<usize> {
        let frame = c_index("add_wheel", "frame", frame)?;
        // SAFETY: valid handle; axis has 3 entries.
        self.added(unsafe {
            sys::geolin_constraints_add_wheel(self.ptr.as_ptr(), frame, axis.as_ptr(), radius)
        })
    }

    /// The Baumgarte gains of every holonomic row (default 0, 0).
    pub fn set_gains(&mut self, kp: f64, kd: f64) -> Result<()> {
        // SAFETY: valid handle.
        check(unsafe { sys::geolin_constraints_set_gains(self.ptr.as_ptr(), kp, kd) })
    }

    /// The axes of contact and loop forces (default [`WrenchCoordinates::Local`]).
    pub fn set_axes(&mut self, coords: WrenchCoordinates) -> Result<()> {
        // SAFETY: valid handle.
        check(unsafe { sys::geolin_constraints_set_axes(self.ptr.as_ptr(), coords.raw()) })
    }

    /// Set (`Some`) or clear (`None`) the held pose of contact `k` (its index in the set).
    pub fn set_ref(&mut self, k: usize, reference: Option<&[f64; 16]>) -> Result<()> {
        let k = c_index("set_ref", "k", k)?;
        // SAFETY: valid handle; reference has 16 entries or is NULL.
        check(unsafe { sys::geolin_constraints_set_ref(self.ptr.as_ptr(), k, opt_ptr(reference)) })
    }
}

impl Drop for Constraints<'_> {
    fn drop(&mut self) {
        // SAFETY: owned handle.
        unsafe { sys::geolin_constraints_free(self.ptr.as_ptr()) }
    }
}

impl fmt::Debug for Constraints<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Constraints")
            .field("len", &self.len)
            .field("num_rows", &self.num_rows())
            .finish()
    }
}

/// The scratch memory of one thread for one model (and the gravity setting). It borrows the
/// model, so the model outlives it. It may move to another thread but is used by one at a time
/// (every evaluation takes `&mut self`).
pub struct Workspace<'m> {
    ptr: NonNull<sys::geolin_workspace>,
    model: &'m Model,
}

// SAFETY: a workspace is plain memory owned by this value; the C API only forbids concurrent
// use, which &mut self prevents.
unsafe impl Send for Workspace<'_> {}

fn check_len(function: &str, name: &str, len: usize, expected: usize) -> Result<()> {
    if len == expected {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{function}: '{name}' has {len} entries, expected {expected}"
        )))
    }
}

fn opt_ptr<const K: usize>(x: Option<&[f64; K]>) -> *const f64 {
    x.map_or(ptr::null(), |a| a.as_ptr())
}

fn opt_mut_ptr<const K: usize>(x: Option<&mut [f64; K]>) -> *mut f64 {
    x.map_or(ptr::null_mut(), |a| a.as_mut_ptr())
}

/// An optional output slice of `expected` entries: its pointer (NULL for `None`).
fn opt_out(function: &str, name: &str, x: Option<&mut [f64]>, expected: usize) -> Result<*mut f64> {
    match x {
        None => Ok(ptr::null_mut()),
        Some(a) => {
            check_len(function, name, a.len(), expected)?;
            Ok(a.as_mut_ptr())
        }
    }
}

fn c_index(function: &str, name: &str, value: usize) -> Result<c_int> {
    c_int::try_from(value).map_err(|_| {
        Error::invalid(format!(
            "{function}: '{name}' = {value} does not fit in a C int"
        ))
    })
}

/// Checks the wrench arguments of the *_ext functions: 6 values per frame; returns nf.
fn check_wrenches(function: &str, frames: &[i32], wrenches: &[f64]) -> Result<c_int> {
    check_len(function, "wrenches", wrenches.len(), 6 * frames.len())?;
    c_index(function, "nf", frames.len())
}

/// Checks the contact arguments of the contact_* functions: one type per frame, 16 values per
/// reference pose; returns (nc, m = the rows of lambda).
fn check_contacts(
    function: &str,
    frames: &[i32],
    types: &[ContactType],
    refs: Option<&[f64]>,
) -> Result<(c_int, usize)> {
    check_len(function, "types", types.len(), frames.len())?;
    if let Some(refs) = refs {
        check_len(function, "refs", refs.len(), 16 * frames.len())?;
    }
    let nc = c_index(function, "nc", frames.len())?;
    Ok((nc, types.iter().map(|t| t.rows()).sum()))
}

/// Checks the joint feedback `[kp, kd, s_ref, r_ref]` of the *_feedback functions: each given
/// one has n_J entries.
fn check_feedback(function: &str, nj: usize, feedback: [Option<&[f64]>; 4]) -> Result<()> {
    for (name, x) in ["kp", "kd", "s_ref", "r_ref"].iter().zip(feedback) {
        if let Some(x) = x {
            check_len(function, name, x.len(), nj)?;
        }
    }
    Ok(())
}

fn types_ptr(types: &[ContactType]) -> *const c_int {
    // ContactType is repr(i32) with the C values as discriminants: a slice of it is an array of
    // valid GEOLIN_CONTACT_* ints.
    slice_ptr(types).cast::<c_int>()
}

fn opt_slice_ptr(x: Option<&[f64]>) -> *const f64 {
    x.map_or(ptr::null(), slice_ptr)
}

fn opt_slice_mut_ptr(x: Option<&mut [f64]>) -> *mut f64 {
    match x {
        Some(x) if !x.is_empty() => x.as_mut_ptr(),
        _ => ptr::null_mut(),
    }
}

fn slice_ptr<T>(x: &[T]) -> *const T {
    if x.is_empty() {
        ptr::null()
    } else {
        x.as_ptr()
    }
}

impl<'m> Workspace<'m> {
    /// The model of this workspace.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The raw handle, for calls through [`sys`].
    pub fn as_mut_ptr(&mut self) -> *mut sys::geolin_workspace {
        self.ptr.as_ptr()
    }

    /// Set the gravity acceleration (m/s^2, inertial frame).
    pub fn set_gravity(&mut self, g: [f64; 3]) -> Result<()> {
        check(unsafe { sys::geolin_workspace_set_gravity(self.ptr.as_ptr(), g.as_ptr()) })
    }

    /// Set the contact regularization mu >= 0 of this workspace (default 0: redundant contact
    /// sets are refused; mu > 0 solves them softly, docs/contacts.md section 4).
    pub fn set_contact_regularization(&mut self, mu: f64) -> Result<()> {
        check(unsafe { sys::geolin_workspace_set_contact_regularization(self.ptr.as_ptr(), mu) })
    }

    fn check_state(&self, function: &str, s: &[f64], r: &[f64]) -> Result<()> {
        let nj = self.model.num_joints();
        check_len(function, "s", s.len(), nj)?;
        check_len(function, "r", r.len(), nj)
    }

    /// Forward dynamics: `nu_dot` (n) for the joint torques `tau` (n_J). `h` (4x4 column-major)
    /// and `v` may be `None` for a fixed-base model.
    pub fn forward_dynamics(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        nu_dot: &mut [f64],
    ) -> Result<()> {
        const F: &str = "forward_dynamics";
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), self.model.num_joints())?;
        check_len(F, "nu_dot", nu_dot.len(), self.model.num_dofs())?;
        // SAFETY: lengths checked; the C function reads/writes exactly these sizes.
        check(unsafe {
            sys::geolin_forward_dynamics(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                nu_dot.as_mut_ptr(),
            )
        })
    }

    /// Inverse dynamics: the generalized force `[base wrench; joint torques]` (n) producing
    /// `nu_dot` (n).
    pub fn inverse_dynamics(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        nu_dot: &[f64],
        generalized_force: &mut [f64],
    ) -> Result<()> {
        const F: &str = "inverse_dynamics";
        self.check_state(F, s, r)?;
        let n = self.model.num_dofs();
        check_len(F, "nu_dot", nu_dot.len(), n)?;
        check_len(F, "generalized_force", generalized_force.len(), n)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_inverse_dynamics(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                nu_dot.as_ptr(),
                generalized_force.as_mut_ptr(),
            )
        })
    }

    /// Inverse dynamics and its exact linearization: `generalized_force` (n) as
    /// [`Workspace::inverse_dynamics`], `dtau_dz` (n x N, column-major) its derivative in
    /// `z = [z_H; z_s; z_v; z_r]` at fixed `nu_dot`, and `m` (n x n) its derivative in `nu_dot`,
    /// the mass matrix. Either derivative may be `None` (not computed). Fixed base: `h`, `v` may
    /// be `None` and `N = 2 n_J`.
    #[allow(clippy::too_many_arguments)]
    pub fn inverse_dynamics_linearize(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        nu_dot: &[f64],
        generalized_force: &mut [f64],
        dtau_dz: Option<&mut [f64]>,
        m: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "inverse_dynamics_linearize";
        self.check_state(F, s, r)?;
        let (n, nn) = (self.model.num_dofs(), self.model.state_dim());
        check_len(F, "nu_dot", nu_dot.len(), n)?;
        check_len(F, "generalized_force", generalized_force.len(), n)?;
        if let Some(d) = dtau_dz.as_deref() {
            check_len(F, "dtau_dz", d.len(), n * nn)?;
        }
        if let Some(mm) = m.as_deref() {
            check_len(F, "M", mm.len(), n * n)?;
        }
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_inverse_dynamics_linearize(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                nu_dot.as_ptr(),
                generalized_force.as_mut_ptr(),
                opt_slice_mut_ptr(dtau_dz),
                opt_slice_mut_ptr(m),
            )
        })
    }

    /// The mass matrix `M(s)`, n x n column-major.
    pub fn mass_matrix(&mut self, s: &[f64], m: &mut [f64]) -> Result<()> {
        const F: &str = "mass_matrix";
        let n = self.model.num_dofs();
        check_len(F, "s", s.len(), self.model.num_joints())?;
        check_len(F, "M", m.len(), n * n)?;
        check(unsafe { sys::geolin_mass_matrix(self.ptr.as_ptr(), s.as_ptr(), m.as_mut_ptr()) })
    }

    /// The inverse mass matrix, n x n column-major.
    pub fn mass_matrix_inverse(&mut self, s: &[f64], minv: &mut [f64]) -> Result<()> {
        const F: &str = "mass_matrix_inverse";
        let n = self.model.num_dofs();
        check_len(F, "s", s.len(), self.model.num_joints())?;
        check_len(F, "Minv", minv.len(), n * n)?;
        check(unsafe {
            sys::geolin_mass_matrix_inverse(self.ptr.as_ptr(), s.as_ptr(), minv.as_mut_ptr())
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn linearize_impl(
        &mut self,
        function: &str,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        eps: Option<f64>,
        a: &mut [f64],
        b: &mut [f64],
    ) -> Result<()> {
        self.check_state(function, s, r)?;
        let (nj, nn) = (self.model.num_joints(), self.model.state_dim());
        check_len(function, "tau", tau.len(), nj)?;
        check_len(function, "A", a.len(), nn * nn)?;
        check_len(function, "B", b.len(), nn * nj)?;
        let ws = self.ptr.as_ptr();
        // SAFETY: lengths checked.
        check(unsafe {
            match eps {
                None => sys::geolin_linearize(
                    ws,
                    opt_ptr(h),
                    s.as_ptr(),
                    opt_ptr(v),
                    r.as_ptr(),
                    tau.as_ptr(),
                    a.as_mut_ptr(),
                    b.as_mut_ptr(),
                ),
                Some(eps) => sys::geolin_linearize_finite_difference(
                    ws,
                    opt_ptr(h),
                    s.as_ptr(),
                    opt_ptr(v),
                    r.as_ptr(),
                    tau.as_ptr(),
                    eps,
                    a.as_mut_ptr(),
                    b.as_mut_ptr(),
                ),
            }
        })
    }

    /// The exact linearization: `A` (N x N) and `B` (N x n_J), column-major.
    #[allow(clippy::too_many_arguments)]
    pub fn linearize(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        a: &mut [f64],
        b: &mut [f64],
    ) -> Result<()> {
        self.linearize_impl("linearize", h, s, v, r, tau, None, a, b)
    }

    /// `A`, `B` by geometric central finite differences with step `eps`.
    #[allow(clippy::too_many_arguments)]
    pub fn linearize_finite_difference(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        eps: f64,
        a: &mut [f64],
        b: &mut [f64],
    ) -> Result<()> {
        self.linearize_impl(
            "linearize_finite_difference",
            h,
            s,
            v,
            r,
            tau,
            Some(eps),
            a,
            b,
        )
    }

    /// The world pose `^A H_F` of a frame (4x4 column-major). `h` may be `None` for a
    /// fixed-base model.
    pub fn frame_pose(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        frame: usize,
        h_frame: &mut [f64; 16],
    ) -> Result<()> {
        const F: &str = "frame_pose";
        check_len(F, "s", s.len(), self.model.num_joints())?;
        let frame = c_index(F, "frame", frame)?;
        // SAFETY: lengths checked; the frame index is checked by the library.
        check(unsafe {
            sys::geolin_frame_pose(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                frame,
                h_frame.as_mut_ptr(),
            )
        })
    }

    /// The frame Jacobian `J` (6 x n, column-major): the body twist of the frame (linear
    /// first, in its own axes) is `J nu`. `h` may be `None` for a fixed-base model.
    pub fn frame_jacobian(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        frame: usize,
        j: &mut [f64],
    ) -> Result<()> {
        const F: &str = "frame_jacobian";
        check_len(F, "s", s.len(), self.model.num_joints())?;
        check_len(F, "J", j.len(), 6 * self.model.num_dofs())?;
        let frame = c_index(F, "frame", frame)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_frame_jacobian(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                frame,
                j.as_mut_ptr(),
            )
        })
    }

    /// The centre of mass `com` (inertial frame), its velocity and `J_com` (3 x n,
    /// column-major; `com_velocity = J_com nu`, and `J_com` maps `[z_H; z_s]` to its
    /// displacement). Any output may be `None`.
    #[allow(clippy::too_many_arguments)]
    pub fn center_of_mass(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        com: Option<&mut [f64; 3]>,
        com_velocity: Option<&mut [f64; 3]>,
        j_com: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "center_of_mass";
        self.check_state(F, s, r)?;
        let j = opt_out(F, "J_com", j_com, 3 * self.model.num_dofs())?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_center_of_mass(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                opt_mut_ptr(com),
                opt_mut_ptr(com_velocity),
                j,
            )
        })
    }

    /// The centroidal momentum `h_g` = [linear; angular about the centre of mass] in inertial
    /// axes, `A_G` (6 x n, `h_g = A_G nu`) and its derivative in z `dh_dz` (6 x N).
    #[allow(clippy::too_many_arguments)]
    pub fn centroidal_momentum(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        h_g: &mut [f64; 6],
        a_g: Option<&mut [f64]>,
        dh_dz: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "centroidal_momentum";
        self.check_state(F, s, r)?;
        let a = opt_out(F, "A_G", a_g, 6 * self.model.num_dofs())?;
        let d = opt_out(F, "dh_dz", dh_dz, 6 * self.model.state_dim())?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_centroidal_momentum(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                h_g.as_mut_ptr(),
                a,
                d,
            )
        })
    }

    /// The pose error `log(H_ref^-1 H_F)` (6, linear first) of a frame and its derivative
    /// `de_dz` (6 x N).
    pub fn frame_pose_error(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        frame: usize,
        h_ref: &[f64; 16],
        error: &mut [f64; 6],
        de_dz: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "frame_pose_error";
        check_len(F, "s", s.len(), self.model.num_joints())?;
        let frame = c_index(F, "frame", frame)?;
        let d = opt_out(F, "de_dz", de_dz, 6 * self.model.state_dim())?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_frame_pose_error(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                frame,
                h_ref.as_ptr(),
                error.as_mut_ptr(),
                d,
            )
        })
    }

    /// A frame's twist (`Local`: its body twist; `Mixed`: origin velocity and angular velocity
    /// in inertial axes) and its derivative `dtwist_dz` (6 x N).
    #[allow(clippy::too_many_arguments)]
    pub fn frame_velocity(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        frame: usize,
        coords: WrenchCoordinates,
        twist: &mut [f64; 6],
        dtwist_dz: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "frame_velocity";
        self.check_state(F, s, r)?;
        let frame = c_index(F, "frame", frame)?;
        let d = opt_out(F, "dtwist_dz", dtwist_dz, 6 * self.model.state_dim())?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_frame_velocity(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                frame,
                coords.raw(),
                twist.as_mut_ptr(),
                d,
            )
        })
    }

    /// A frame's classical acceleration [origin acceleration; angular acceleration] in the
    /// axes of `coords` for `nu_dot`, its derivative in z at fixed `nu_dot` (6 x N) and in
    /// `nu_dot` (6 x n, the frame Jacobian in the same axes).
    #[allow(clippy::too_many_arguments)]
    pub fn frame_acceleration(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        nu_dot: &[f64],
        frame: usize,
        coords: WrenchCoordinates,
        acc: &mut [f64; 6],
        dacc_dz: Option<&mut [f64]>,
        dacc_dnudot: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "frame_acceleration";
        self.check_state(F, s, r)?;
        check_len(F, "nu_dot", nu_dot.len(), self.model.num_dofs())?;
        let frame = c_index(F, "frame", frame)?;
        let d = opt_out(F, "dacc_dz", dacc_dz, 6 * self.model.state_dim())?;
        let j = opt_out(F, "dacc_dnudot", dacc_dnudot, 6 * self.model.num_dofs())?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_frame_acceleration(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                nu_dot.as_ptr(),
                frame,
                coords.raw(),
                acc.as_mut_ptr(),
                d,
                j,
            )
        })
    }

    /// Forward dynamics with external wrenches: wrench k (`wrenches[6k..6k+6]`, `[force;
    /// torque]`) acts at frame `frames[k]`, in the coordinates `coords`. `frames.len()` may be 0.
    #[allow(clippy::too_many_arguments)]
    pub fn forward_dynamics_ext(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        frames: &[i32],
        wrenches: &[f64],
        coords: WrenchCoordinates,
        nu_dot: &mut [f64],
    ) -> Result<()> {
        const F: &str = "forward_dynamics_ext";
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), self.model.num_joints())?;
        let nf = check_wrenches(F, frames, wrenches)?;
        check_len(F, "nu_dot", nu_dot.len(), self.model.num_dofs())?;
        // SAFETY: lengths checked; frame indices are checked by the library.
        check(unsafe {
            sys::geolin_forward_dynamics_ext(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                nf,
                slice_ptr(frames),
                slice_ptr(wrenches),
                coords.raw(),
                nu_dot.as_mut_ptr(),
            )
        })
    }

    /// The exact linearization with the wrenches as inputs too: `A` (N x N) and `B`
    /// (N x (n_J + 6 nf)): the torque columns, then the 6 components of each wrench.
    #[allow(clippy::too_many_arguments)]
    pub fn linearize_ext(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        frames: &[i32],
        wrenches: &[f64],
        coords: WrenchCoordinates,
        a: &mut [f64],
        b: &mut [f64],
    ) -> Result<()> {
        const F: &str = "linearize_ext";
        self.check_state(F, s, r)?;
        let (nj, nn) = (self.model.num_joints(), self.model.state_dim());
        check_len(F, "tau", tau.len(), nj)?;
        let nf = check_wrenches(F, frames, wrenches)?;
        check_len(F, "A", a.len(), nn * nn)?;
        check_len(F, "B", b.len(), nn * (nj + 6 * frames.len()))?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_linearize_ext(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                nf,
                slice_ptr(frames),
                slice_ptr(wrenches),
                coords.raw(),
                a.as_mut_ptr(),
                b.as_mut_ptr(),
            )
        })
    }

    /// Contact-constrained forward dynamics: `nu_dot` (n) and the contact forces `lambda`
    /// (m = the sum of [`ContactType::rows`]), contact k holding frame `frames[k]` as
    /// `types[k]` prescribes. `lambda` is what the environment applies on the robot at each
    /// frame origin, in the coordinates `coords`; fed to [`Workspace::forward_dynamics_ext`] (a
    /// point's wrench with zero torque) it reproduces `nu_dot`. `gains`: `None` (Kp = Kd = 0)
    /// or `[Kp, Kd]`; `refs`: `None` or 16 values (a 4x4 column-major pose) per contact,
    /// required when Kp != 0. `frames` may be empty (then this is
    /// [`Workspace::forward_dynamics`]). Needs [`WORKSPACE_CONTACTS`].
    #[allow(clippy::too_many_arguments)]
    pub fn contact_dynamics(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        frames: &[i32],
        types: &[ContactType],
        coords: WrenchCoordinates,
        gains: Option<&[f64; 2]>,
        refs: Option<&[f64]>,
        nu_dot: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<()> {
        const F: &str = "contact_dynamics";
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), self.model.num_joints())?;
        let (nc, m) = check_contacts(F, frames, types, refs)?;
        check_len(F, "nu_dot", nu_dot.len(), self.model.num_dofs())?;
        check_len(F, "lambda", lambda.len(), m)?;
        // SAFETY: lengths checked; frame indices and gains are checked by the library.
        check(unsafe {
            sys::geolin_contact_dynamics(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                nc,
                slice_ptr(frames),
                types_ptr(types),
                coords.raw(),
                opt_ptr(gains),
                opt_slice_ptr(refs),
                nu_dot.as_mut_ptr(),
                lambda.as_mut_ptr(),
            )
        })
    }

    /// The exact linearization of [`Workspace::contact_dynamics`] (arguments as there): `A`
    /// (N x N), `B` (N x n_J), and the derivatives of `lambda`, `dlambda_dz` (m x N) and
    /// `dlambda_dw` (m x n_J), all column-major; either may be `None` (not computed). Needs
    /// [`WORKSPACE_CONTACTS`] and [`WORKSPACE_LINEARIZE`].
    #[allow(clippy::too_many_arguments)]
    pub fn contact_linearize(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        frames: &[i32],
        types: &[ContactType],
        coords: WrenchCoordinates,
        gains: Option<&[f64; 2]>,
        refs: Option<&[f64]>,
        a: &mut [f64],
        b: &mut [f64],
        dlambda_dz: Option<&mut [f64]>,
        dlambda_dw: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "contact_linearize";
        self.check_state(F, s, r)?;
        let (nj, nn) = (self.model.num_joints(), self.model.state_dim());
        check_len(F, "tau", tau.len(), nj)?;
        let (nc, m) = check_contacts(F, frames, types, refs)?;
        check_len(F, "A", a.len(), nn * nn)?;
        check_len(F, "B", b.len(), nn * nj)?;
        if let Some(dz) = dlambda_dz.as_deref() {
            check_len(F, "dlambda_dz", dz.len(), m * nn)?;
        }
        if let Some(dw) = dlambda_dw.as_deref() {
            check_len(F, "dlambda_dw", dw.len(), m * nj)?;
        }
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_contact_linearize(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                nc,
                slice_ptr(frames),
                types_ptr(types),
                coords.raw(),
                opt_ptr(gains),
                opt_slice_ptr(refs),
                a.as_mut_ptr(),
                b.as_mut_ptr(),
                opt_slice_mut_ptr(dlambda_dz),
                opt_slice_mut_ptr(dlambda_dw),
            )
        })
    }

    /// One step of length `dt` (finite, > 0) with `tau` held constant, into separate outputs.
    /// Fixed base: `h`, `v`, `h_next`, `v_next` may be `None` (`h_next`, `v_next` are not
    /// written). See [`Workspace::step_in_place`] to overwrite the state.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        h_next: Option<&mut [f64; 16]>,
        s_next: &mut [f64],
        v_next: Option<&mut [f64; 6]>,
        r_next: &mut [f64],
    ) -> Result<()> {
        const F: &str = "step";
        let nj = self.model.num_joints();
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), nj)?;
        check_len(F, "s_next", s_next.len(), nj)?;
        check_len(F, "r_next", r_next.len(), nj)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_step(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                opt_mut_ptr(h_next),
                s_next.as_mut_ptr(),
                opt_mut_ptr(v_next),
                r_next.as_mut_ptr(),
            )
        })
    }

    /// One step of length `dt` that overwrites the state (the C API allows the outputs to
    /// alias the inputs). On failure the state is unchanged.
    #[allow(clippy::too_many_arguments)]
    pub fn step_in_place(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&mut [f64; 16]>,
        s: &mut [f64],
        v: Option<&mut [f64; 6]>,
        r: &mut [f64],
        tau: &[f64],
    ) -> Result<()> {
        const F: &str = "step_in_place";
        let nj = self.model.num_joints();
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), nj)?;
        let hp = opt_mut_ptr(h);
        let vp = opt_mut_ptr(v);
        let (sp, rp) = (s.as_mut_ptr(), r.as_mut_ptr());
        // SAFETY: lengths checked; the C function supports outputs aliasing its inputs.
        check(unsafe {
            sys::geolin_step(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                hp,
                sp,
                vp,
                rp,
                tau.as_ptr(),
                hp,
                sp,
                vp,
                rp,
            )
        })
    }

    /// The exact linearization of [`Workspace::step`]: `z+ = A_d z + B_d w`, `A_d` (N x N),
    /// `B_d` (N x n_J), column-major.
    #[allow(clippy::too_many_arguments)]
    pub fn step_linearize(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        a_d: &mut [f64],
        b_d: &mut [f64],
    ) -> Result<()> {
        const F: &str = "step_linearize";
        self.check_state(F, s, r)?;
        let (nj, nn) = (self.model.num_joints(), self.model.state_dim());
        check_len(F, "tau", tau.len(), nj)?;
        check_len(F, "A_d", a_d.len(), nn * nn)?;
        check_len(F, "B_d", b_d.len(), nn * nj)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_step_linearize(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                a_d.as_mut_ptr(),
                b_d.as_mut_ptr(),
            )
        })
    }

    /// The impact map at touchdown: the contacts (as in [`Workspace::contact_dynamics`], no
    /// gains) stop, scaled by the `restitution` e in [0, 1]: `M (nu+ - nu-) = J_c^T Lambda`,
    /// `J_c nu+ = -e J_c nu-`, the pose and `s` unchanged. Writes `nu+` into `v_next` (6;
    /// `None` for a fixed base) and `r_next` (n_J), and the impulse `Lambda` (m, N s, on the
    /// robot, in the coordinates `coords`) into `impulse` if given. Needs
    /// [`WORKSPACE_CONTACTS`].
    #[allow(clippy::too_many_arguments)]
    pub fn impulse(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        frames: &[i32],
        types: &[ContactType],
        coords: WrenchCoordinates,
        restitution: f64,
        v_next: Option<&mut [f64; 6]>,
        r_next: &mut [f64],
        impulse: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "impulse";
        self.check_state(F, s, r)?;
        let (nc, m) = check_contacts(F, frames, types, None)?;
        check_len(F, "r_next", r_next.len(), self.model.num_joints())?;
        if let Some(imp) = impulse.as_deref() {
            check_len(F, "impulse", imp.len(), m)?;
        }
        // SAFETY: lengths checked; frame indices and restitution are checked by the library.
        check(unsafe {
            sys::geolin_impulse(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                nc,
                slice_ptr(frames),
                types_ptr(types),
                coords.raw(),
                restitution,
                opt_mut_ptr(v_next),
                r_next.as_mut_ptr(),
                opt_slice_mut_ptr(impulse),
            )
        })
    }

    /// The exact Jacobian of [`Workspace::impulse`] (arguments as there):
    /// `x- exp(z) -> x+ exp(A_imp z)`, `a_imp` (N x N, the identity in the pose rows) and
    /// `dimpulse_dz` (m x N; `None`: not computed), column-major. Needs [`WORKSPACE_CONTACTS`]
    /// and [`WORKSPACE_LINEARIZE`].
    #[allow(clippy::too_many_arguments)]
    pub fn impulse_linearize(
        &mut self,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        frames: &[i32],
        types: &[ContactType],
        coords: WrenchCoordinates,
        restitution: f64,
        a_imp: &mut [f64],
        dimpulse_dz: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "impulse_linearize";
        self.check_state(F, s, r)?;
        let nn = self.model.state_dim();
        let (nc, m) = check_contacts(F, frames, types, None)?;
        check_len(F, "A_imp", a_imp.len(), nn * nn)?;
        if let Some(d) = dimpulse_dz.as_deref() {
            check_len(F, "dimpulse_dz", d.len(), m * nn)?;
        }
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_impulse_linearize(
                self.ptr.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                nc,
                slice_ptr(frames),
                types_ptr(types),
                coords.raw(),
                restitution,
                a_imp.as_mut_ptr(),
                opt_slice_mut_ptr(dimpulse_dz),
            )
        })
    }

    /// One step of length `dt` of [`Workspace::contact_dynamics`] with the contacts, gains and
    /// refs held (arguments as there and as [`Workspace::step`]). `lambda` (m), if given: the
    /// semi-implicit Euler step's forces at (x, tau), RK4's weighted mean of its stages. With
    /// no contacts this is [`Workspace::step`] exactly. Needs [`WORKSPACE_CONTACTS`].
    #[allow(clippy::too_many_arguments)]
    pub fn contact_step(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        frames: &[i32],
        types: &[ContactType],
        coords: WrenchCoordinates,
        gains: Option<&[f64; 2]>,
        refs: Option<&[f64]>,
        h_next: Option<&mut [f64; 16]>,
        s_next: &mut [f64],
        v_next: Option<&mut [f64; 6]>,
        r_next: &mut [f64],
        lambda: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "contact_step";
        let nj = self.model.num_joints();
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), nj)?;
        let (nc, m) = check_contacts(F, frames, types, refs)?;
        check_len(F, "s_next", s_next.len(), nj)?;
        check_len(F, "r_next", r_next.len(), nj)?;
        if let Some(l) = lambda.as_deref() {
            check_len(F, "lambda", l.len(), m)?;
        }
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_contact_step(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                nc,
                slice_ptr(frames),
                types_ptr(types),
                coords.raw(),
                opt_ptr(gains),
                opt_slice_ptr(refs),
                opt_mut_ptr(h_next),
                s_next.as_mut_ptr(),
                opt_mut_ptr(v_next),
                r_next.as_mut_ptr(),
                opt_slice_mut_ptr(lambda),
            )
        })
    }

    /// The exact linearization of [`Workspace::contact_step`]: `A_d` (N x N), `B_d` (N x n_J)
    /// and the derivatives of the step's `lambda`, `dlambda_dz` (m x N) and `dlambda_dw`
    /// (m x n_J; either `None`: not computed), column-major. Needs [`WORKSPACE_CONTACTS`] and
    /// [`WORKSPACE_STEP_LINEARIZE`].
    #[allow(clippy::too_many_arguments)]
    pub fn contact_step_linearize(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        frames: &[i32],
        types: &[ContactType],
        coords: WrenchCoordinates,
        gains: Option<&[f64; 2]>,
        refs: Option<&[f64]>,
        a_d: &mut [f64],
        b_d: &mut [f64],
        dlambda_dz: Option<&mut [f64]>,
        dlambda_dw: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "contact_step_linearize";
        self.check_state(F, s, r)?;
        let (nj, nn) = (self.model.num_joints(), self.model.state_dim());
        check_len(F, "tau", tau.len(), nj)?;
        let (nc, m) = check_contacts(F, frames, types, refs)?;
        check_len(F, "A_d", a_d.len(), nn * nn)?;
        check_len(F, "B_d", b_d.len(), nn * nj)?;
        if let Some(dz) = dlambda_dz.as_deref() {
            check_len(F, "dlambda_dz", dz.len(), m * nn)?;
        }
        if let Some(dw) = dlambda_dw.as_deref() {
            check_len(F, "dlambda_dw", dw.len(), m * nj)?;
        }
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_contact_step_linearize(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                nc,
                slice_ptr(frames),
                types_ptr(types),
                coords.raw(),
                opt_ptr(gains),
                opt_slice_ptr(refs),
                a_d.as_mut_ptr(),
                b_d.as_mut_ptr(),
                opt_slice_mut_ptr(dlambda_dz),
                opt_slice_mut_ptr(dlambda_dw),
            )
        })
    }

    /// [`Workspace::step`] with joint PD feedback evaluated at every stage of the step:
    /// `tau + kp∘(s_ref - s) + kd∘(r_ref - r)`. `kp`, `kd` (finite, >= 0), `s_ref`, `r_ref`
    /// (finite) have n_J entries each or are `None` (zeros); with all four `None` this is
    /// [`Workspace::step`] exactly. [`StepMethod::ImplicitEuler`] takes the `kd` term (with the
    /// model's damping) implicitly, the `kp` term explicitly.
    #[allow(clippy::too_many_arguments)]
    pub fn step_feedback(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        kp: Option<&[f64]>,
        kd: Option<&[f64]>,
        s_ref: Option<&[f64]>,
        r_ref: Option<&[f64]>,
        h_next: Option<&mut [f64; 16]>,
        s_next: &mut [f64],
        v_next: Option<&mut [f64; 6]>,
        r_next: &mut [f64],
    ) -> Result<()> {
        const F: &str = "step_feedback";
        let nj = self.model.num_joints();
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), nj)?;
        check_feedback(F, nj, [kp, kd, s_ref, r_ref])?;
        check_len(F, "s_next", s_next.len(), nj)?;
        check_len(F, "r_next", r_next.len(), nj)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_step_feedback(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                opt_slice_ptr(kp),
                opt_slice_ptr(kd),
                opt_slice_ptr(s_ref),
                opt_slice_ptr(r_ref),
                opt_mut_ptr(h_next),
                s_next.as_mut_ptr(),
                opt_mut_ptr(v_next),
                r_next.as_mut_ptr(),
            )
        })
    }

    /// The exact linearization of [`Workspace::step_feedback`] (the feedback is part of the
    /// map `z -> z+`; `w` still perturbs `tau`): `A_d` (N x N), `B_d` (N x n_J), column-major.
    /// The derivatives with respect to the references are `B_d diag(kp)` (`s_ref`) and
    /// `B_d diag(kd)` (`r_ref`).
    #[allow(clippy::too_many_arguments)]
    pub fn step_feedback_linearize(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        kp: Option<&[f64]>,
        kd: Option<&[f64]>,
        s_ref: Option<&[f64]>,
        r_ref: Option<&[f64]>,
        a_d: &mut [f64],
        b_d: &mut [f64],
    ) -> Result<()> {
        const F: &str = "step_feedback_linearize";
        self.check_state(F, s, r)?;
        let (nj, nn) = (self.model.num_joints(), self.model.state_dim());
        check_len(F, "tau", tau.len(), nj)?;
        check_feedback(F, nj, [kp, kd, s_ref, r_ref])?;
        check_len(F, "A_d", a_d.len(), nn * nn)?;
        check_len(F, "B_d", b_d.len(), nn * nj)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_step_feedback_linearize(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                opt_slice_ptr(kp),
                opt_slice_ptr(kd),
                opt_slice_ptr(s_ref),
                opt_slice_ptr(r_ref),
                a_d.as_mut_ptr(),
                b_d.as_mut_ptr(),
            )
        })
    }

    /// [`Workspace::contact_step`] with the joint feedback of [`Workspace::step_feedback`]
    /// (`kp`, `kd`, `s_ref`, `r_ref`: n_J entries each or `None`). With all four `None` this
    /// is [`Workspace::contact_step`] exactly. Needs [`WORKSPACE_CONTACTS`].
    #[allow(clippy::too_many_arguments)]
    pub fn contact_step_feedback(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        kp: Option<&[f64]>,
        kd: Option<&[f64]>,
        s_ref: Option<&[f64]>,
        r_ref: Option<&[f64]>,
        frames: &[i32],
        types: &[ContactType],
        coords: WrenchCoordinates,
        gains: Option<&[f64; 2]>,
        refs: Option<&[f64]>,
        h_next: Option<&mut [f64; 16]>,
        s_next: &mut [f64],
        v_next: Option<&mut [f64; 6]>,
        r_next: &mut [f64],
        lambda: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "contact_step_feedback";
        let nj = self.model.num_joints();
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), nj)?;
        check_feedback(F, nj, [kp, kd, s_ref, r_ref])?;
        let (nc, m) = check_contacts(F, frames, types, refs)?;
        check_len(F, "s_next", s_next.len(), nj)?;
        check_len(F, "r_next", r_next.len(), nj)?;
        if let Some(l) = lambda.as_deref() {
            check_len(F, "lambda", l.len(), m)?;
        }
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_contact_step_feedback(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                opt_slice_ptr(kp),
                opt_slice_ptr(kd),
                opt_slice_ptr(s_ref),
                opt_slice_ptr(r_ref),
                nc,
                slice_ptr(frames),
                types_ptr(types),
                coords.raw(),
                opt_ptr(gains),
                opt_slice_ptr(refs),
                opt_mut_ptr(h_next),
                s_next.as_mut_ptr(),
                opt_mut_ptr(v_next),
                r_next.as_mut_ptr(),
                opt_slice_mut_ptr(lambda),
            )
        })
    }

    /// The exact linearization of [`Workspace::contact_step_feedback`]: `A_d` (N x N), `B_d`
    /// (N x n_J), `dlambda_dz` (m x N) and `dlambda_dw` (m x n_J; either `None`: not computed),
    /// column-major. Needs [`WORKSPACE_CONTACTS`] and [`WORKSPACE_STEP_LINEARIZE`].
    #[allow(clippy::too_many_arguments)]
    pub fn contact_step_feedback_linearize(
        &mut self,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        kp: Option<&[f64]>,
        kd: Option<&[f64]>,
        s_ref: Option<&[f64]>,
        r_ref: Option<&[f64]>,
        frames: &[i32],
        types: &[ContactType],
        coords: WrenchCoordinates,
        gains: Option<&[f64; 2]>,
        refs: Option<&[f64]>,
        a_d: &mut [f64],
        b_d: &mut [f64],
        dlambda_dz: Option<&mut [f64]>,
        dlambda_dw: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "contact_step_feedback_linearize";
        self.check_state(F, s, r)?;
        let (nj, nn) = (self.model.num_joints(), self.model.state_dim());
        check_len(F, "tau", tau.len(), nj)?;
        check_feedback(F, nj, [kp, kd, s_ref, r_ref])?;
        let (nc, m) = check_contacts(F, frames, types, refs)?;
        check_len(F, "A_d", a_d.len(), nn * nn)?;
        check_len(F, "B_d", b_d.len(), nn * nj)?;
        if let Some(dz) = dlambda_dz.as_deref() {
            check_len(F, "dlambda_dz", dz.len(), m * nn)?;
        }
        if let Some(dw) = dlambda_dw.as_deref() {
            check_len(F, "dlambda_dw", dw.len(), m * nj)?;
        }
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_contact_step_feedback_linearize(
                self.ptr.as_ptr(),
                method.raw(),
                dt,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                opt_slice_ptr(kp),
                opt_slice_ptr(kd),
                opt_slice_ptr(s_ref),
                opt_slice_ptr(r_ref),
                nc,
                slice_ptr(frames),
                types_ptr(types),
                coords.raw(),
                opt_ptr(gains),
                opt_slice_ptr(refs),
                a_d.as_mut_ptr(),
                b_d.as_mut_ptr(),
                opt_slice_mut_ptr(dlambda_dz),
                opt_slice_mut_ptr(dlambda_dw),
            )
        })
    }

    // --- constraint sets ([`Constraints`]): as the contact functions, with the set in place of
    // (frames, types, coords, gains, refs); `lambda` has `set.num_rows()` entries.

    /// The optional derivatives of `lambda` (m x N, m x n_J) of a linearization: their
    /// pointers, after checking `A`'s and `B`'s lengths (N x N, N x n_J) and theirs.
    fn linearization_outs(
        &self,
        function: &str,
        m: usize,
        a: &[f64],
        b: &[f64],
        dlambda_dz: Option<&mut [f64]>,
        dlambda_dw: Option<&mut [f64]>,
    ) -> Result<(*mut f64, *mut f64)> {
        let (nj, nn) = (self.model.num_joints(), self.model.state_dim());
        check_len(function, "A", a.len(), nn * nn)?;
        check_len(function, "B", b.len(), nn * nj)?;
        Ok((
            opt_out(function, "dlambda_dz", dlambda_dz, m * nn)?,
            opt_out(function, "dlambda_dw", dlambda_dw, m * nj)?,
        ))
    }

    /// Constrained forward dynamics with the constraints of `set` held: `nu_dot` (n) and
    /// `lambda` (`set.num_rows()`, in the set's order). An empty set is
    /// [`Workspace::forward_dynamics`], a set of contacts only the
    /// [`Workspace::contact_dynamics`] call with the same arguments, exactly. Needs
    /// [`WORKSPACE_CONTACTS`].
    #[allow(clippy::too_many_arguments)]
    pub fn constrained_dynamics(
        &mut self,
        set: &Constraints,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        nu_dot: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<()> {
        const F: &str = "constrained_dynamics";
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), self.model.num_joints())?;
        check_len(F, "nu_dot", nu_dot.len(), self.model.num_dofs())?;
        check_len(F, "lambda", lambda.len(), set.num_rows())?;
        // SAFETY: lengths checked; the library checks that set is of this workspace's model.
        check(unsafe {
            sys::geolin_constrained_dynamics(
                self.ptr.as_ptr(),
                set.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                nu_dot.as_mut_ptr(),
                lambda.as_mut_ptr(),
            )
        })
    }

    /// The exact linearization of [`Workspace::constrained_dynamics`], as
    /// [`Workspace::contact_linearize`]: `A` (N x N), `B` (N x n_J), `dlambda_dz` (m x N),
    /// `dlambda_dw` (m x n_J; either `None`: not computed). Needs [`WORKSPACE_CONTACTS`] and
    /// [`WORKSPACE_LINEARIZE`].
    #[allow(clippy::too_many_arguments)]
    pub fn constrained_linearize(
        &mut self,
        set: &Constraints,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        a: &mut [f64],
        b: &mut [f64],
        dlambda_dz: Option<&mut [f64]>,
        dlambda_dw: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "constrained_linearize";
        self.check_state(F, s, r)?;
        check_len(F, "tau", tau.len(), self.model.num_joints())?;
        let (dz, dw) = self.linearization_outs(F, set.num_rows(), a, b, dlambda_dz, dlambda_dw)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_constrained_linearize(
                self.ptr.as_ptr(),
                set.as_ptr(),
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                tau.as_ptr(),
                a.as_mut_ptr(),
                b.as_mut_ptr(),
                dz,
                dw,
            )
        })
    }

    /// One step of length `dt` of [`Workspace::constrained_dynamics`], as
    /// [`Workspace::contact_step`] (fixed base, `lambda` alike). Needs [`WORKSPACE_CONTACTS`].
    #[allow(clippy::too_many_arguments)]
    pub fn constrained_step(
        &mut self,
        set: &Constraints,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        h_next: Option<&mut [f64; 16]>,
        s_next: &mut [f64],
        v_next: Option<&mut [f64; 6]>,
        r_next: &mut [f64],
        lambda: Option<&mut [f64]>,
    ) -> Result<()> {
        let x = (h, s, v, r);
        let next = (h_next, s_next, v_next, r_next);
        self.constrained_step_any(
            "constrained_step",
            set,
            method,
            dt,
            x,
            tau,
            None,
            next,
            lambda,
        )
    }

    /// [`Workspace::constrained_step`] with the joint feedback of
    /// [`Workspace::step_feedback`] (`kp`, `kd`, `s_ref`, `r_ref`: n_J entries each or
    /// `None`); with all four `None` it is [`Workspace::constrained_step`] exactly.
    #[allow(clippy::too_many_arguments)]
    pub fn constrained_step_feedback(
        &mut self,
        set: &Constraints,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        kp: Option<&[f64]>,
        kd: Option<&[f64]>,
        s_ref: Option<&[f64]>,
        r_ref: Option<&[f64]>,
        h_next: Option<&mut [f64; 16]>,
        s_next: &mut [f64],
        v_next: Option<&mut [f64; 6]>,
        r_next: &mut [f64],
        lambda: Option<&mut [f64]>,
    ) -> Result<()> {
        let (x, fb) = ((h, s, v, r), Some([kp, kd, s_ref, r_ref]));
        let next = (h_next, s_next, v_next, r_next);
        self.constrained_step_any(
            "constrained_step_feedback",
            set,
            method,
            dt,
            x,
            tau,
            fb,
            next,
            lambda,
        )
    }

    /// The exact linearization of [`Workspace::constrained_step`], as
    /// [`Workspace::contact_step_linearize`]. Needs [`WORKSPACE_CONTACTS`] and
    /// [`WORKSPACE_STEP_LINEARIZE`].
    #[allow(clippy::too_many_arguments)]
    pub fn constrained_step_linearize(
        &mut self,
        set: &Constraints,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        a_d: &mut [f64],
        b_d: &mut [f64],
        dlambda_dz: Option<&mut [f64]>,
        dlambda_dw: Option<&mut [f64]>,
    ) -> Result<()> {
        let (x, outs) = ((h, s, v, r), (a_d, b_d, dlambda_dz, dlambda_dw));
        self.constrained_step_linearize_any(
            "constrained_step_linearize",
            set,
            method,
            dt,
            x,
            tau,
            None,
            outs,
        )
    }

    /// The exact linearization of [`Workspace::constrained_step_feedback`].
    #[allow(clippy::too_many_arguments)]
    pub fn constrained_step_feedback_linearize(
        &mut self,
        set: &Constraints,
        method: StepMethod,
        dt: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        tau: &[f64],
        kp: Option<&[f64]>,
        kd: Option<&[f64]>,
        s_ref: Option<&[f64]>,
        r_ref: Option<&[f64]>,
        a_d: &mut [f64],
        b_d: &mut [f64],
        dlambda_dz: Option<&mut [f64]>,
        dlambda_dw: Option<&mut [f64]>,
    ) -> Result<()> {
        let (x, fb) = ((h, s, v, r), Some([kp, kd, s_ref, r_ref]));
        let outs = (a_d, b_d, dlambda_dz, dlambda_dw);
        self.constrained_step_linearize_any(
            "constrained_step_feedback_linearize",
            set,
            method,
            dt,
            x,
            tau,
            fb,
            outs,
        )
    }

    /// The body of the constrained steps: `geolin_constrained_step`, or
    /// `geolin_constrained_step_feedback` when `feedback` is given.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn constrained_step_any(
        &mut self,
        function: &str,
        set: &Constraints,
        method: StepMethod,
        dt: f64,
        (h, s, v, r): (Option<&[f64; 16]>, &[f64], Option<&[f64; 6]>, &[f64]),
        tau: &[f64],
        feedback: Option<[Option<&[f64]>; 4]>,
        (h_next, s_next, v_next, r_next): (
            Option<&mut [f64; 16]>,
            &mut [f64],
            Option<&mut [f64; 6]>,
            &mut [f64],
        ),
        lambda: Option<&mut [f64]>,
    ) -> Result<()> {
        let nj = self.model.num_joints();
        self.check_state(function, s, r)?;
        check_len(function, "tau", tau.len(), nj)?;
        if let Some(fb) = feedback {
            check_feedback(function, nj, fb)?;
        }
        check_len(function, "s_next", s_next.len(), nj)?;
        check_len(function, "r_next", r_next.len(), nj)?;
        let lambda = opt_out(function, "lambda", lambda, set.num_rows())?;
        let (ws, cs, method) = (self.ptr.as_ptr(), set.as_ptr(), method.raw());
        let (h, v, h_next, v_next) = (
            opt_ptr(h),
            opt_ptr(v),
            opt_mut_ptr(h_next),
            opt_mut_ptr(v_next),
        );
        let (s, r, tau, s_next, r_next) = (
            s.as_ptr(),
            r.as_ptr(),
            tau.as_ptr(),
            s_next.as_mut_ptr(),
            r_next.as_mut_ptr(),
        );
        // SAFETY: lengths checked.
        check(unsafe {
            match feedback {
                None => sys::geolin_constrained_step(
                    ws, cs, method, dt, h, s, v, r, tau, h_next, s_next, v_next, r_next, lambda,
                ),
                Some([kp, kd, s_ref, r_ref]) => sys::geolin_constrained_step_feedback(
                    ws,
                    cs,
                    method,
                    dt,
                    h,
                    s,
                    v,
                    r,
                    tau,
                    opt_slice_ptr(kp),
                    opt_slice_ptr(kd),
                    opt_slice_ptr(s_ref),
                    opt_slice_ptr(r_ref),
                    h_next,
                    s_next,
                    v_next,
                    r_next,
                    lambda,
                ),
            }
        })
    }

    /// The body of the constrained step linearizations, as `constrained_step_any`.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn constrained_step_linearize_any(
        &mut self,
        function: &str,
        set: &Constraints,
        method: StepMethod,
        dt: f64,
        (h, s, v, r): (Option<&[f64; 16]>, &[f64], Option<&[f64; 6]>, &[f64]),
        tau: &[f64],
        feedback: Option<[Option<&[f64]>; 4]>,
        (a_d, b_d, dlambda_dz, dlambda_dw): (
            &mut [f64],
            &mut [f64],
            Option<&mut [f64]>,
            Option<&mut [f64]>,
        ),
    ) -> Result<()> {
        let nj = self.model.num_joints();
        self.check_state(function, s, r)?;
        check_len(function, "tau", tau.len(), nj)?;
        if let Some(fb) = feedback {
            check_feedback(function, nj, fb)?;
        }
        let m = set.num_rows();
        let (dz, dw) = self.linearization_outs(function, m, a_d, b_d, dlambda_dz, dlambda_dw)?;
        let (ws, cs, method) = (self.ptr.as_ptr(), set.as_ptr(), method.raw());
        let (h, v, s, r, tau) = (opt_ptr(h), opt_ptr(v), s.as_ptr(), r.as_ptr(), tau.as_ptr());
        let (a_d, b_d) = (a_d.as_mut_ptr(), b_d.as_mut_ptr());
        // SAFETY: lengths checked.
        check(unsafe {
            match feedback {
                None => sys::geolin_constrained_step_linearize(
                    ws, cs, method, dt, h, s, v, r, tau, a_d, b_d, dz, dw,
                ),
                Some([kp, kd, s_ref, r_ref]) => sys::geolin_constrained_step_feedback_linearize(
                    ws,
                    cs,
                    method,
                    dt,
                    h,
                    s,
                    v,
                    r,
                    tau,
                    opt_slice_ptr(kp),
                    opt_slice_ptr(kd),
                    opt_slice_ptr(s_ref),
                    opt_slice_ptr(r_ref),
                    a_d,
                    b_d,
                    dz,
                    dw,
                ),
            }
        })
    }

    /// The impact map of the set, as [`Workspace::impulse`]: loops and couplings are plastic,
    /// the `restitution` applies to contacts and to a wheel's normal row. Writes `nu+` into
    /// `v_next` (`None` for a fixed base) and `r_next`, the impulse (m) into `impulse` if
    /// given. Needs [`WORKSPACE_CONTACTS`].
    #[allow(clippy::too_many_arguments)]
    pub fn constrained_impulse(
        &mut self,
        set: &Constraints,
        restitution: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        v_next: Option<&mut [f64; 6]>,
        r_next: &mut [f64],
        impulse: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "constrained_impulse";
        self.check_state(F, s, r)?;
        check_len(F, "r_next", r_next.len(), self.model.num_joints())?;
        let impulse = opt_out(F, "impulse", impulse, set.num_rows())?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_constrained_impulse(
                self.ptr.as_ptr(),
                set.as_ptr(),
                restitution,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                opt_mut_ptr(v_next),
                r_next.as_mut_ptr(),
                impulse,
            )
        })
    }

    /// The exact Jacobian of [`Workspace::constrained_impulse`], as
    /// [`Workspace::impulse_linearize`]: `a_imp` (N x N), `dimpulse_dz` (m x N; `None`: not
    /// computed). Needs [`WORKSPACE_CONTACTS`] and [`WORKSPACE_LINEARIZE`].
    #[allow(clippy::too_many_arguments)]
    pub fn constrained_impulse_linearize(
        &mut self,
        set: &Constraints,
        restitution: f64,
        h: Option<&[f64; 16]>,
        s: &[f64],
        v: Option<&[f64; 6]>,
        r: &[f64],
        a_imp: &mut [f64],
        dimpulse_dz: Option<&mut [f64]>,
    ) -> Result<()> {
        const F: &str = "constrained_impulse_linearize";
        self.check_state(F, s, r)?;
        let nn = self.model.state_dim();
        check_len(F, "A_imp", a_imp.len(), nn * nn)?;
        let dimpulse_dz = opt_out(F, "dimpulse_dz", dimpulse_dz, set.num_rows() * nn)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::geolin_constrained_impulse_linearize(
                self.ptr.as_ptr(),
                set.as_ptr(),
                restitution,
                opt_ptr(h),
                s.as_ptr(),
                opt_ptr(v),
                r.as_ptr(),
                a_imp.as_mut_ptr(),
                dimpulse_dz,
            )
        })
    }
}

impl Drop for Workspace<'_> {
    fn drop(&mut self) {
        // SAFETY: owned handle.
        unsafe { sys::geolin_workspace_free(self.ptr.as_ptr()) }
    }
}

#[allow(dead_code)]
fn _assert_types() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Model>();
    send::<Workspace<'static>>();
    send_sync::<Constraints<'static>>();
    let _: *const c_char = ptr::null();
    let _: c_int = 0;
}
