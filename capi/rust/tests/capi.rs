// Integration tests of the safe wrapper against the real library (run by CTest as
// capi_rust_cargo_test, with GEOLIN_LIB_DIR and GEOLIN_TEST_URDF set; the contact tests load
// models/quadruped.urdf from $GEOLIN_MODELS_DIR or the source tree).
use geolin::{
    status, Constraints, ContactType, LoopType, Model, StepMethod, WrenchCoordinates, FIXED_BASE,
    MOVING_BASE, WORKSPACE_ALL, WORKSPACE_CONTACTS, WORKSPACE_DYNAMICS, WORKSPACE_LINEARIZE,
};

fn urdf_path() -> String {
    std::env::var("GEOLIN_TEST_URDF")
        .unwrap_or_else(|_| format!("{}/../../tests/capi/tree.urdf", env!("CARGO_MANIFEST_DIR")))
}

fn pose(angle: f64) -> [f64; 16] {
    let (s, c) = angle.sin_cos();
    [
        c, s, 0., 0., -s, c, 0., 0., 0., 0., 1., 0., 0.1, -0.2, 0.3, 1.,
    ]
}

/// GEOLIN_VERSION_{MAJOR,MINOR,PATCH} parsed from capi/geolin.h (the header next to the crate,
/// or $GEOLIN_HEADER).
fn header_version() -> (i32, i32, i32) {
    let path = std::env::var("GEOLIN_HEADER")
        .unwrap_or_else(|_| format!("{}/../geolin.h", env!("CARGO_MANIFEST_DIR")));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let part = |name: &str| -> i32 {
        let key = format!("#define GEOLIN_VERSION_{name}");
        let line = text
            .lines()
            .find(|l| l.starts_with(&key))
            .unwrap_or_else(|| panic!("{path}: no {key}"));
        line[key.len()..].trim().parse().unwrap()
    };
    (part("MAJOR"), part("MINOR"), part("PATCH"))
}

#[test]
fn version_matches_header() {
    // The library is the one of this source tree: its run-time version is the header's.
    assert_eq!(geolin::version(), header_version());
    // The declarations of this crate may be older than the header (functions are only added
    // within one major version), never newer.
    let (major, minor, _) = header_version();
    assert_eq!(geolin::sys::GEOLIN_VERSION_MAJOR, major);
    assert!(geolin::sys::GEOLIN_VERSION_MINOR <= minor);
    assert_eq!(geolin::status_string(99), "unknown status");
}

#[test]
fn library_of_another_major_or_older_minor_version_is_refused() {
    let lib = geolin::version();
    assert!(geolin::check_version().is_ok());
    for header in [(lib.0 + 1, 0, 0), (lib.0, lib.1 + 1, 0)] {
        let err = geolin::check_version_compatible(lib, header).unwrap_err();
        assert_eq!(err.status(), geolin::status::UNSUPPORTED);
        let msg = err.message();
        assert!(
            msg.contains(&format!("{}.{}.{}", lib.0, lib.1, lib.2)),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("{}.{}.{}", header.0, header.1, header.2)),
            "{msg}"
        );
    }
    // A newer library of the same major version serves older declarations.
    assert!(geolin::check_version_compatible((lib.0, lib.1 + 1, 0), (lib.0, lib.1, 9)).is_ok());
}

#[test]
fn status_constants_are_the_librarys_codes() {
    // Each constant of geolin::status is the code the library names that way.
    for (code, name) in [
        (status::OK, "GEOLIN_OK"),
        (status::INVALID_ARGUMENT, "GEOLIN_ERR_INVALID_ARGUMENT"),
        (status::IO, "GEOLIN_ERR_IO"),
        (status::PARSE, "GEOLIN_ERR_PARSE"),
        (status::MODEL, "GEOLIN_ERR_MODEL"),
        (status::UNSUPPORTED, "GEOLIN_ERR_UNSUPPORTED"),
        (status::NONFINITE, "GEOLIN_ERR_NONFINITE"),
        (status::NUMERIC, "GEOLIN_ERR_NUMERIC"),
        (status::INTERNAL, "GEOLIN_ERR_INTERNAL"),
        (status::MEMORY, "GEOLIN_ERR_MEMORY"),
    ] {
        let text = geolin::status_string(code);
        assert!(text.starts_with(&format!("{name}:")), "{code}: {text}");
    }
}

#[test]
fn structure() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    assert_eq!(model.num_joints(), 3);
    assert_eq!(model.num_dofs(), 9);
    assert_eq!(model.state_dim(), 18);
    assert_eq!(model.num_bodies(), 4);
    assert!(!model.is_fixed_base());
    assert!((model.total_mass() - 9.5).abs() < 1e-12);
    assert_eq!(model.parent(0), None);
    assert_eq!(model.body_name(0), Some("base"));
    assert_eq!(model.children(0).len(), 2);
    for k in 0..model.num_joints() {
        let name = model.joint_name(k).unwrap();
        assert_eq!(model.joint_index(name), Some(k));
        assert!(model.parent(k + 1).unwrap() <= k);
    }
    assert_eq!(model.joint_name(3), None);
    assert_eq!(model.joint_index("nope"), None);
}

#[test]
fn errors_carry_status_and_message() {
    let err = Model::from_urdf_file("/nonexistent/robot.urdf", MOVING_BASE).unwrap_err();
    assert_eq!(err.status(), status::IO);
    assert!(!err.message().is_empty());
    let err = Model::from_urdf_str("<robot", MOVING_BASE).unwrap_err();
    assert_eq!(err.status(), status::PARSE);
    let err = Model::from_urdf_file(urdf_path(), 8).unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.to_string().contains("flags"), "{err}");
}

#[test]
fn dynamics_round_trip_and_linearization() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (nj, n, nn) = (model.num_joints(), model.num_dofs(), model.state_dim());
    let h = pose(0.7);
    let v = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6];
    let s: Vec<f64> = (0..nj).map(|i| 0.3 * i as f64 - 0.2).collect();
    let r: Vec<f64> = (0..nj).map(|i| 0.1 + 0.2 * i as f64).collect();
    let tau: Vec<f64> = (0..nj).map(|i| 1.0 - 0.5 * i as f64).collect();

    let mut nu_dot = vec![0.0; n];
    ws.forward_dynamics(Some(&h), &s, Some(&v), &r, &tau, &mut nu_dot)
        .unwrap();
    let mut f = vec![0.0; n];
    ws.inverse_dynamics(Some(&h), &s, Some(&v), &r, &nu_dot, &mut f)
        .unwrap();
    for (i, fi) in f.iter().take(6).enumerate() {
        assert!(fi.abs() < 1e-9, "base wrench {i}: {fi}");
    }
    for k in 0..nj {
        assert!((f[6 + k] - tau[k]).abs() < 1e-9);
    }

    let mut minv = vec![0.0; n * n];
    ws.mass_matrix_inverse(&s, &mut minv).unwrap();
    let mut m = vec![0.0; n * n];
    ws.mass_matrix(&s, &mut m).unwrap();
    for i in 0..n {
        for j in 0..n {
            let p: f64 = (0..n).map(|k| m[i + n * k] * minv[k + n * j]).sum();
            assert!((p - if i == j { 1.0 } else { 0.0 }).abs() < 1e-9);
        }
    }

    let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
    ws.linearize(Some(&h), &s, Some(&v), &r, &tau, &mut a, &mut b)
        .unwrap();
    for k in 0..nj {
        for i in 0..n {
            assert_eq!(b[i + nn * k], 0.0);
            assert!((b[n + i + nn * k] - minv[i + n * (6 + k)]).abs() < 1e-10);
        }
    }
    let (mut afd, mut bfd) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
    ws.linearize_finite_difference(Some(&h), &s, Some(&v), &r, &tau, 1e-6, &mut afd, &mut bfd)
        .unwrap();
    let scale = 1.0 + a.iter().fold(0.0f64, |x, y| x.max(y.abs()));
    let err = a
        .iter()
        .zip(&afd)
        .fold(0.0f64, |x, (p, q)| x.max((p - q).abs()));
    assert!(err < 1e-5 * scale, "A vs finite differences: {err}");
}

#[test]
fn with_armature_adds_it_to_the_mass_matrix_and_the_inverse_dynamics() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let (nj, n) = (model.num_joints(), model.num_dofs());
    let arm: Vec<f64> = (0..nj).map(|k| 0.02 * (k + 1) as f64).collect();
    let geared = model.with_armature(&arm).unwrap();
    assert_eq!(model.armature(), vec![0.0; nj]);
    assert_eq!(geared.armature(), arm);
    let (mut ws0, mut ws1) = (model.workspace().unwrap(), geared.workspace().unwrap());
    let h = pose(0.2);
    let v = [0.3, 0.1, -0.2, 0.5, 0.4, -0.1];
    let s: Vec<f64> = (0..nj).map(|i| 0.4 - 0.3 * i as f64).collect();
    let r: Vec<f64> = (0..nj).map(|i| 0.2 * i as f64 - 0.1).collect();
    let (mut m0, mut m1) = (vec![0.0; n * n], vec![0.0; n * n]);
    ws0.mass_matrix(&s, &mut m0).unwrap();
    ws1.mass_matrix(&s, &mut m1).unwrap();
    for j in 0..n {
        for i in 0..n {
            let extra = if i == j && i >= 6 { arm[i - 6] } else { 0.0 };
            assert!(
                (m1[i + n * j] - m0[i + n * j] - extra).abs() < 1e-14,
                "M({i}, {j})"
            );
        }
    }
    let nu_dot: Vec<f64> = (0..n).map(|i| (i as f64 + 1.0).sin()).collect();
    let (mut f0, mut f1) = (vec![0.0; n], vec![0.0; n]);
    ws0.inverse_dynamics(Some(&h), &s, Some(&v), &r, &nu_dot, &mut f0)
        .unwrap();
    ws1.inverse_dynamics(Some(&h), &s, Some(&v), &r, &nu_dot, &mut f1)
        .unwrap();
    for i in 0..n {
        let extra = if i >= 6 { arm[i - 6] * nu_dot[i] } else { 0.0 };
        assert!((f1[i] - f0[i] - extra).abs() < 1e-12, "ID {i}");
    }
    drop(ws1);
    drop(ws0);
    drop(model); // the copy is independent of its original
    assert_eq!(geared.armature(), arm);
    let mut bad = arm.clone();
    bad[1] = -1.0;
    let err = geared.with_armature(&bad).unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("armature[1]"), "{err}");
    assert!(
        err.message().contains(geared.joint_name(1).unwrap()),
        "{err}"
    );
    bad[1] = f64::NAN;
    assert_eq!(
        geared.with_armature(&bad).unwrap_err().status(),
        status::NONFINITE
    );
    assert_eq!(
        geared.with_armature(&arm[1..]).unwrap_err().status(),
        status::INVALID_ARGUMENT
    );
}

#[test]
fn srdf_rotor_params_give_rotor_inertia_times_gear_ratio_squared() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let joint = model.joint_name(2).unwrap().to_string();
    let path = std::env::temp_dir().join(format!("geolin_rotors_{}.srdf", std::process::id()));
    std::fs::write(
        &path,
        format!(
            "<robot name=\"r\"><rotor_params><joint name=\"{joint}\" mass=\"3e-4\" \
             gear_ratio=\"7\"/></rotor_params></robot>"
        ),
    )
    .unwrap();
    let geared = model.with_srdf_rotor_params(&path);
    std::fs::remove_file(&path).unwrap();
    let arm = geared.unwrap().armature();
    assert!((arm[2] - 3e-4 * 49.0).abs() < 1e-18, "{arm:?}");
    assert_eq!(arm[0], 0.0);
    let err = model.with_srdf_rotor_params(&path).unwrap_err();
    assert_eq!(err.status(), status::IO);
}

#[test]
fn misuse_is_an_error_not_a_crash() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let nj = model.num_joints();
    let mut nu_dot = vec![7.0; model.num_dofs()];
    // wrong slice length: caught in Rust, before the call
    let err = ws
        .forward_dynamics(
            Some(&pose(0.0)),
            &[0.0],
            Some(&[0.0; 6]),
            &vec![0.0; nj],
            &vec![0.0; nj],
            &mut nu_dot,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'s'"));
    // moving base without H: the C library refuses NULL
    let err = ws
        .forward_dynamics(
            None,
            &vec![0.0; nj],
            Some(&[0.0; 6]),
            &vec![0.0; nj],
            &vec![0.0; nj],
            &mut nu_dot,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'H'"), "{err}");
    // NaN
    let err = ws
        .forward_dynamics(
            Some(&pose(0.0)),
            &vec![f64::NAN; nj],
            Some(&[0.0; 6]),
            &vec![0.0; nj],
            &vec![0.0; nj],
            &mut nu_dot,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::NONFINITE);
    assert!(nu_dot.iter().all(|&x| x == 7.0), "nothing written on error");
    assert_eq!(
        ws.set_gravity([0.0, f64::INFINITY, 0.0])
            .unwrap_err()
            .status(),
        status::NONFINITE
    );
    let err = ws.set_contact_regularization(-1.0).unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'mu'"), "{err}");
    ws.set_contact_regularization(1e-8).unwrap();
}

#[test]
fn fixed_base_without_pose() {
    let model = Model::from_urdf_file(urdf_path(), FIXED_BASE).unwrap();
    assert!(model.is_fixed_base());
    let mut ws = model.workspace().unwrap();
    let nj = model.num_joints();
    let mut nu_dot = vec![0.0; model.num_dofs()];
    ws.forward_dynamics(
        None,
        &vec![0.1; nj],
        None,
        &vec![0.0; nj],
        &vec![0.0; nj],
        &mut nu_dot,
    )
    .unwrap();
    assert!(nu_dot.iter().all(|x| x.is_finite()));
}

#[test]
fn threads_share_a_model() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let nj = model.num_joints();
    let results: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let model = &model;
                scope.spawn(move || {
                    let mut ws = model.workspace().unwrap();
                    ws.set_gravity([0.0, 0.0, -9.81 + t as f64]).unwrap();
                    let mut nu_dot = vec![0.0; model.num_dofs()];
                    ws.forward_dynamics(
                        Some(&pose(0.0)),
                        &vec![0.2; nj],
                        Some(&[0.0; 6]),
                        &vec![0.0; nj],
                        &vec![0.0; nj],
                        &mut nu_dot,
                    )
                    .unwrap();
                    nu_dot
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Gravity is per workspace: the base z acceleration differs by 1 between threads.
    for t in 1..4 {
        assert!((results[t][2] - results[0][2] - t as f64).abs() < 1e-9);
    }
}

fn mat4_mul(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
    let mut c = [0.0; 16];
    for j in 0..4 {
        for i in 0..4 {
            c[i + 4 * j] = (0..4).map(|k| a[i + 4 * k] * b[k + 4 * j]).sum();
        }
    }
    c
}

#[test]
fn frames_pose_and_jacobian() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let nf = model.num_frames();
    assert_eq!(nf, 5, "every URDF link is a frame");
    for k in 0..nf {
        let name = model.frame_name(k).unwrap();
        assert_eq!(model.frame_index(name), Some(k));
    }
    assert_eq!(model.frame_name(nf), None);
    assert_eq!(model.frame_index("nope"), None);
    let (base, link2, tool) = (
        model.frame_index("base").unwrap(),
        model.frame_index("link2").unwrap(),
        model.frame_index("tool").unwrap(),
    );

    let mut ws = model.workspace().unwrap();
    let (nj, n) = (model.num_joints(), model.num_dofs());
    let h = pose(0.7);
    let s: Vec<f64> = (0..nj).map(|i| 0.3 * i as f64 - 0.2).collect();
    // the root link's frame is the base pose itself
    let mut hf = [0.0; 16];
    ws.frame_pose(Some(&h), &s, base, &mut hf).unwrap();
    for i in 0..16 {
        assert!((hf[i] - h[i]).abs() < 1e-12, "{i}: {} vs {}", hf[i], h[i]);
    }
    // the tool is welded to link2 at x = 0.2
    let (mut h2, mut ht) = ([0.0; 16], [0.0; 16]);
    ws.frame_pose(Some(&h), &s, link2, &mut h2).unwrap();
    ws.frame_pose(Some(&h), &s, tool, &mut ht).unwrap();
    let mut offset = [0.0; 16];
    for i in 0..4 {
        offset[i + 4 * i] = 1.0;
    }
    offset[12] = 0.2;
    let expect = mat4_mul(&h2, &offset);
    for i in 0..16 {
        assert!((ht[i] - expect[i]).abs() < 1e-12);
    }
    // the base columns of the root link's Jacobian are the identity (body twist = v)
    let mut jac = vec![f64::NAN; 6 * n];
    ws.frame_jacobian(Some(&h), &s, base, &mut jac).unwrap();
    for c in 0..n {
        for i in 0..6 {
            let expect = if c == i { 1.0 } else { 0.0 };
            assert!((jac[i + 6 * c] - expect).abs() < 1e-12);
        }
    }
    // misuse
    let err = ws.frame_pose(Some(&h), &s, nf, &mut hf).unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'frame'"), "{err}");
    let err = ws
        .frame_jacobian(Some(&h), &s, 0, &mut jac[1..])
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
}

#[test]
fn external_wrenches() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (nj, n, nn) = (model.num_joints(), model.num_dofs(), model.state_dim());
    let h = pose(0.3);
    let v = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6];
    let s: Vec<f64> = (0..nj).map(|i| 0.1 * i as f64).collect();
    let r = vec![0.2; nj];
    let tau = vec![0.5; nj];
    let tool = model.frame_index("tool").unwrap() as i32;
    let (mut a0, mut a1) = (vec![0.0; n], vec![0.0; n]);
    ws.forward_dynamics(Some(&h), &s, Some(&v), &r, &tau, &mut a0)
        .unwrap();
    ws.forward_dynamics_ext(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &[],
        &[],
        WrenchCoordinates::Local,
        &mut a1,
    )
    .unwrap();
    assert_eq!(a0, a1, "no wrench: the same as forward_dynamics");
    // a local wrench: M (a_ext - a) = J^T w
    let w = [1.0, -2.0, 0.5, 0.1, 0.2, -0.3];
    ws.forward_dynamics_ext(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &[tool],
        &w,
        WrenchCoordinates::Local,
        &mut a1,
    )
    .unwrap();
    let mut m = vec![0.0; n * n];
    ws.mass_matrix(&s, &mut m).unwrap();
    let mut jac = vec![0.0; 6 * n];
    ws.frame_jacobian(Some(&h), &s, tool as usize, &mut jac)
        .unwrap();
    for i in 0..n {
        let lhs: f64 = (0..n).map(|k| m[i + n * k] * (a1[k] - a0[k])).sum();
        let rhs: f64 = (0..6).map(|k| jac[k + 6 * i] * w[k]).sum();
        assert!((lhs - rhs).abs() < 1e-9, "row {i}: {lhs} vs {rhs}");
    }
    // B has the torque columns, then 6 per wrench
    let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * (nj + 6)]);
    ws.linearize_ext(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &[tool],
        &w,
        WrenchCoordinates::Mixed,
        &mut a,
        &mut b,
    )
    .unwrap();
    assert!(a.iter().chain(&b).all(|x| x.is_finite()));
    let err = ws
        .linearize_ext(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &[tool],
            &w,
            WrenchCoordinates::Local,
            &mut a,
            &mut b[1..],
        )
        .unwrap_err();
    assert!(err.message().contains("'B'"), "{err}");
    let err = ws
        .forward_dynamics_ext(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &[-1],
            &w,
            WrenchCoordinates::Local,
            &mut a1,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'frames'"), "{err}");
}

#[test]
fn step_and_step_linearize() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (nj, n, nn) = (model.num_joints(), model.num_dofs(), model.state_dim());
    let h = pose(0.5);
    let v = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6];
    let s: Vec<f64> = (0..nj).map(|i| 0.2 * i as f64 - 0.1).collect();
    let r: Vec<f64> = (0..nj).map(|i| 0.3 - 0.1 * i as f64).collect();
    let tau = vec![0.4; nj];
    let mut nu_dot = vec![0.0; n];
    ws.forward_dynamics(Some(&h), &s, Some(&v), &r, &tau, &mut nu_dot)
        .unwrap();
    let dt = 1e-5;
    for method in [StepMethod::SemiImplicitEuler, StepMethod::Rk4] {
        let (mut h1, mut v1) = ([0.0; 16], [0.0; 6]);
        let (mut s1, mut r1) = (vec![0.0; nj], vec![0.0; nj]);
        ws.step(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            Some(&mut h1),
            &mut s1,
            Some(&mut v1),
            &mut r1,
        )
        .unwrap();
        for k in 0..nj {
            let rate = (r1[k] - r[k]) / dt;
            assert!((rate - nu_dot[6 + k]).abs() < 1e-3, "{method:?} joint {k}");
        }
        for k in 0..6 {
            assert!(
                ((v1[k] - v[k]) / dt - nu_dot[k]).abs() < 1e-3,
                "{method:?} base {k}"
            );
        }
        // in place gives the same state
        let (mut h2, mut s2, mut v2, mut r2) = (h, s.clone(), v, r.clone());
        ws.step_in_place(
            method,
            dt,
            Some(&mut h2),
            &mut s2,
            Some(&mut v2),
            &mut r2,
            &tau,
        )
        .unwrap();
        assert_eq!((h1, s1, v1, r1), (h2, s2, v2, r2));

        // (A_d - 1) / dt -> A
        let (mut ad, mut bd) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
        ws.step_linearize(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &mut ad,
            &mut bd,
        )
        .unwrap();
        let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
        ws.linearize(Some(&h), &s, Some(&v), &r, &tau, &mut a, &mut b)
            .unwrap();
        let scale = 1.0 + a.iter().fold(0.0f64, |x, y| x.max(y.abs()));
        for j in 0..nn {
            for i in 0..nn {
                let id = if i == j { 1.0 } else { 0.0 };
                let d = (ad[i + nn * j] - id) / dt - a[i + nn * j];
                assert!(d.abs() < 1e-3 * scale, "{method:?} A_d({i}, {j}): {d}");
            }
        }
    }
    // misuse
    let (mut s1, mut r1) = (vec![0.0; nj], vec![0.0; nj]);
    let err = ws
        .step(
            StepMethod::Rk4,
            0.0,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            None,
            &mut s1,
            None,
            &mut r1,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'h'"), "{err}");
    let err = ws
        .step(
            StepMethod::Rk4,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            None,
            &mut s1,
            None,
            &mut r1,
        )
        .unwrap_err();
    assert!(err.message().contains("'H_next'"), "{err}");
    assert!(s1.iter().all(|&x| x == 0.0), "nothing written on error");
    let err = ws
        .step_linearize(
            StepMethod::SemiImplicitEuler,
            f64::NAN,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &mut vec![0.0; nn * nn],
            &mut vec![0.0; nn * nj],
        )
        .unwrap_err();
    assert_eq!(err.status(), status::NONFINITE);
}

#[test]
fn fixed_base_step_without_pose() {
    let model = Model::from_urdf_file(urdf_path(), FIXED_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let nj = model.num_joints();
    let (mut s, mut r) = (vec![0.1; nj], vec![0.0; nj]);
    for _ in 0..10 {
        ws.step_in_place(
            StepMethod::Rk4,
            1e-3,
            None,
            &mut s,
            None,
            &mut r,
            &vec![0.0; nj],
        )
        .unwrap();
    }
    assert!(s.iter().chain(&r).all(|x| x.is_finite()));
    let mut hf = [0.0; 16];
    ws.frame_pose(None, &s, 0, &mut hf).unwrap();
    assert_eq!(hf[15], 1.0);
}

fn quadruped_path() -> String {
    let dir = std::env::var("GEOLIN_MODELS_DIR")
        .unwrap_or_else(|_| format!("{}/../../models", env!("CARGO_MANIFEST_DIR")));
    format!("{dir}/quadruped.urdf")
}

/// The quadruped standing on its 4 point feet: (feet, H, s, v, r, tau).
#[allow(clippy::type_complexity)]
fn quadruped_state(model: &Model) -> (Vec<i32>, [f64; 16], Vec<f64>, [f64; 6], Vec<f64>, Vec<f64>) {
    let feet = ["FL_foot", "FR_foot", "HL_foot", "HR_foot"]
        .iter()
        .map(|name| model.frame_index(name).expect(name) as i32)
        .collect();
    let nj = model.num_joints();
    let mut h = pose(0.3);
    h[14] = 0.45;
    let s = (0..nj)
        .map(|i| [0.05, 0.7, -1.4][i % 3] + 0.03 * (i as f64).sin())
        .collect();
    let v = [0.1, -0.05, 0.02, 0.03, -0.04, 0.05];
    let r = (0..nj).map(|i| 0.2 * (i as f64).cos()).collect();
    let tau = (0..nj).map(|i| 0.5 * (1.0 + i as f64).sin()).collect();
    (feet, h, s, v, r, tau)
}

#[test]
fn contact_dynamics_lambda_reproduces_nu_dot() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let (n, nn, nj) = (model.num_dofs(), model.state_dim(), model.num_joints());
    let types = [ContactType::Point; 4];
    assert_eq!(ContactType::Point.raw(), geolin::sys::GEOLIN_CONTACT_POINT);
    assert_eq!(ContactType::Rigid.rows(), 6);
    // reference points a little away from the feet, for the Kp != 0 case
    let mut refs = vec![0.0; 16 * 4];
    for (k, &f) in feet.iter().enumerate() {
        let mut hf = [0.0; 16];
        ws.frame_pose(Some(&h), &s, f as usize, &mut hf).unwrap();
        hf[12] += 0.01;
        hf[13] -= 0.02;
        refs[16 * k..16 * k + 16].copy_from_slice(&hf);
    }
    for (coords, gains, refs) in [
        (WrenchCoordinates::Local, None, None),
        (
            WrenchCoordinates::Mixed,
            Some(&[40.0, 9.0]),
            Some(&refs[..]),
        ),
    ] {
        let (mut nu, mut lambda, mut nu_ext) = (vec![0.0; n], vec![0.0; 12], vec![0.0; n]);
        ws.contact_dynamics(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            coords,
            gains,
            refs,
            &mut nu,
            &mut lambda,
        )
        .unwrap();
        let mut w = vec![0.0; 24];
        for k in 0..4 {
            w[6 * k..6 * k + 3].copy_from_slice(&lambda[3 * k..3 * k + 3]);
        }
        ws.forward_dynamics_ext(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &w,
            coords,
            &mut nu_ext,
        )
        .unwrap();
        let scale = nu.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        for i in 0..n {
            assert!((nu[i] - nu_ext[i]).abs() < 1e-9 * scale, "{coords:?} {i}");
        }
    }
    // the linearization: shapes, dlambda optional, nc = 0 is linearize
    let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
    let (mut dz, mut dw) = (vec![0.0; 12 * nn], vec![0.0; 12 * nj]);
    let local = WrenchCoordinates::Local;
    ws.contact_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        local,
        None,
        None,
        &mut a,
        &mut b,
        Some(&mut dz),
        Some(&mut dw),
    )
    .unwrap();
    assert!(dz.iter().chain(&dw).all(|x| x.is_finite()));
    assert!(dw.iter().any(|&x| x != 0.0));
    let (mut a2, mut b2) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
    ws.contact_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        local,
        None,
        None,
        &mut a2,
        &mut b2,
        None,
        None,
    )
    .unwrap();
    assert_eq!((&a, &b), (&a2, &b2));
    ws.contact_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &[],
        &[],
        local,
        None,
        None,
        &mut a2,
        &mut b2,
        None,
        None,
    )
    .unwrap();
    ws.linearize(Some(&h), &s, Some(&v), &r, &tau, &mut a, &mut b)
        .unwrap();
    assert_eq!((&a, &b), (&a2, &b2));
    // misuse: lengths checked here, the rest by the library
    let (mut nu, mut lambda) = (vec![0.0; n], vec![0.0; 11]);
    let err = ws
        .contact_dynamics(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            local,
            None,
            None,
            &mut nu,
            &mut lambda,
        )
        .unwrap_err();
    assert!(err.message().contains("'lambda'"), "{err}");
    let mut lambda = vec![0.0; 12];
    let err = ws
        .contact_dynamics(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            local,
            Some(&[1.0, 0.0]),
            None,
            &mut nu,
            &mut lambda,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("refs"), "{err}");
    // a bad contact type can only come through the raw API
    let bad_types = [3, 3, 4, 3];
    // SAFETY: every array has the size the C function reads.
    let st = unsafe {
        geolin::sys::geolin_contact_dynamics(
            ws.as_mut_ptr(),
            h.as_ptr(),
            s.as_ptr(),
            v.as_ptr(),
            r.as_ptr(),
            tau.as_ptr(),
            4,
            feet.as_ptr(),
            bad_types.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
            nu.as_mut_ptr(),
            lambda.as_mut_ptr(),
        )
    };
    assert_eq!(st, status::INVALID_ARGUMENT);
}

#[test]
fn workspace_features_and_bytes() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let frames = model.num_frames();
    let small = model.workspace_bytes(WORKSPACE_DYNAMICS, 0).unwrap();
    assert!(small > 0);
    assert!(small < model.workspace_bytes(WORKSPACE_ALL, frames).unwrap());
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let (n, nn, nj) = (model.num_dofs(), model.state_dim(), model.num_joints());
    let types = [ContactType::Point; 4];
    let local = WrenchCoordinates::Local;
    let mut ws = model.workspace_with(WORKSPACE_CONTACTS, 4).unwrap();
    let (mut nu, mut lambda) = (vec![0.0; n], vec![0.0; 12]);
    ws.contact_dynamics(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        local,
        None,
        None,
        &mut nu,
        &mut lambda,
    )
    .unwrap();
    let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
    let err = ws
        .contact_linearize(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            local,
            None,
            None,
            &mut a,
            &mut b,
            None,
            None,
        )
        .unwrap_err();
    assert_eq!(
        err.status(),
        status::INVALID_ARGUMENT,
        "no LINEARIZE: {err}"
    );
    let five = [feet[0], feet[1], feet[2], feet[3], feet[0]];
    let mut lambda5 = vec![0.0; 15];
    let err = ws
        .contact_dynamics(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &five,
            &[ContactType::Point; 5],
            local,
            None,
            None,
            &mut nu,
            &mut lambda5,
        )
        .unwrap_err();
    assert!(err.message().contains("max_wrenches"), "{err}");
    let mut ws = model
        .workspace_with(WORKSPACE_CONTACTS | WORKSPACE_LINEARIZE, 4)
        .unwrap();
    ws.contact_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        local,
        None,
        None,
        &mut a,
        &mut b,
        None,
        None,
    )
    .unwrap();
    let err = model.workspace_bytes(1 << 7, 1).unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'features'"), "{err}");
    assert!(model.workspace_with(WORKSPACE_ALL, 1 << 21).is_err());
}

#[test]
fn inverse_dynamics_linearize_identities() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (nj, n, nn) = (model.num_joints(), model.num_dofs(), model.state_dim());
    let h = pose(1.1);
    let v = [0.3, -0.1, 0.2, -0.4, 0.5, 0.2];
    let s: Vec<f64> = (0..nj).map(|i| 0.4 * i as f64 - 0.3).collect();
    let r: Vec<f64> = (0..nj).map(|i| 0.2 - 0.1 * i as f64).collect();
    let tau: Vec<f64> = (0..nj).map(|i| 0.5 + 0.3 * i as f64).collect();
    let mut nu_dot = vec![0.0; n];
    ws.forward_dynamics(Some(&h), &s, Some(&v), &r, &tau, &mut nu_dot)
        .unwrap();
    let (mut f, mut dz, mut m) = (vec![0.0; n], vec![0.0; n * nn], vec![0.0; n * n]);
    ws.inverse_dynamics_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &nu_dot,
        &mut f,
        Some(&mut dz),
        Some(&mut m),
    )
    .unwrap();
    // ID(FD(tau)) = [0; tau], M = mass_matrix, and M F + dtau_dz = 0 for the nu_dot rows F of A.
    for k in 0..nj {
        assert!((f[6 + k] - tau[k]).abs() < 1e-9);
    }
    let mut m_crba = vec![0.0; n * n];
    ws.mass_matrix(&s, &mut m_crba).unwrap();
    for k in 0..n * n {
        assert!((m[k] - m_crba[k]).abs() < 1e-12);
    }
    let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
    ws.linearize(Some(&h), &s, Some(&v), &r, &tau, &mut a, &mut b)
        .unwrap();
    for i in 0..n {
        for j in 0..nn {
            let res: f64 = dz[i + n * j]
                + (0..n)
                    .map(|k| m[i + n * k] * a[n + k + nn * j])
                    .sum::<f64>();
            assert!(res.abs() < 1e-8, "row {i}, column {j}: {res}");
        }
    }
    let mut f2 = vec![0.0; n];
    ws.inverse_dynamics_linearize(Some(&h), &s, Some(&v), &r, &nu_dot, &mut f2, None, None)
        .unwrap();
    let err = ws
        .inverse_dynamics_linearize(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &nu_dot[1..],
            &mut f2,
            None,
            None,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.to_string().contains("nu_dot"), "{err}");
}

#[test]
fn costs_identities_and_derivatives() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (nj, n, nn) = (model.num_joints(), model.num_dofs(), model.state_dim());
    let h = pose(0.3);
    let v = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6];
    let s: Vec<f64> = (0..nj).map(|i| 0.1 * i as f64 - 0.2).collect();
    let r = vec![0.2; nj];
    let nu: Vec<f64> = v.iter().chain(r.iter()).copied().collect();
    // J_com nu = com_velocity; A_G nu = h_G; h_G's linear part = m com_velocity
    let (mut c, mut cv, mut jc) = ([0.0; 3], [0.0; 3], vec![0.0; 3 * n]);
    ws.center_of_mass(
        Some(&h),
        &s,
        Some(&v),
        &r,
        Some(&mut c),
        Some(&mut cv),
        Some(&mut jc),
    )
    .unwrap();
    let (mut hg, mut ag, mut dh) = ([0.0; 6], vec![0.0; 6 * n], vec![0.0; 6 * nn]);
    ws.centroidal_momentum(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &mut hg,
        Some(&mut ag),
        Some(&mut dh),
    )
    .unwrap();
    for i in 0..3 {
        let t: f64 = (0..n).map(|k| jc[i + 3 * k] * nu[k]).sum();
        assert!((t - cv[i]).abs() < 1e-12);
        assert!((hg[i] - model.total_mass() * cv[i]).abs() < 1e-12);
    }
    for i in 0..6 {
        let t: f64 = (0..n).map(|k| ag[i + 6 * k] * nu[k]).sum();
        assert!((t - hg[i]).abs() < 1e-12);
    }
    // the frame velocity's derivative in r_0 (column n + 6) is the Jacobian's column 6
    let tool = model.frame_index("tool").unwrap();
    let (mut tw, mut dt) = ([0.0; 6], vec![0.0; 6 * nn]);
    ws.frame_velocity(
        Some(&h),
        &s,
        Some(&v),
        &r,
        tool,
        WrenchCoordinates::Local,
        &mut tw,
        Some(&mut dt),
    )
    .unwrap();
    let mut jac = vec![0.0; 6 * n];
    ws.frame_jacobian(Some(&h), &s, tool, &mut jac).unwrap();
    for i in 0..6 {
        assert!((dt[i + 6 * (n + 6)] - jac[i + 6 * 6]).abs() < 1e-12);
    }
    // acceleration: dacc_dnudot = J (Local); pose error zero at the frame's pose
    let nd = vec![0.3; n];
    let (mut acc, mut dn) = ([0.0; 6], vec![0.0; 6 * n]);
    ws.frame_acceleration(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &nd,
        tool,
        WrenchCoordinates::Local,
        &mut acc,
        None,
        Some(&mut dn),
    )
    .unwrap();
    for k in 0..6 * n {
        assert!((dn[k] - jac[k]).abs() < 1e-12);
    }
    let mut hf = [0.0; 16];
    ws.frame_pose(Some(&h), &s, tool, &mut hf).unwrap();
    let mut e = [1.0; 6];
    ws.frame_pose_error(Some(&h), &s, tool, &hf, &mut e, None)
        .unwrap();
    assert!(e.iter().all(|x| x.abs() < 1e-12));
    // misuse: a non-rigid H_ref is named; a short output slice is refused
    let mut bad = hf;
    bad[0] = 2.0;
    let err = ws
        .frame_pose_error(Some(&h), &s, tool, &bad, &mut e, None)
        .unwrap_err();
    assert!(err.message().contains("'H_ref'"), "{err}");
    let err = ws
        .centroidal_momentum(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &mut hg,
            Some(&mut ag[1..]),
            None,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
}

/// The feet's constrained velocities J_c nu (the linear rows of each frame Jacobian, in the
/// frame's own axes: what a point contact in local coordinates holds).
fn feet_velocity(
    ws: &mut geolin::Workspace,
    h: &[f64; 16],
    s: &[f64],
    feet: &[i32],
    nu: &[f64],
) -> Vec<f64> {
    let n = nu.len();
    let mut out = Vec::new();
    for &f in feet {
        let mut j = vec![0.0; 6 * n];
        ws.frame_jacobian(Some(h), s, f as usize, &mut j).unwrap();
        for row in 0..3 {
            out.push((0..n).map(|c| j[row + 6 * c] * nu[c]).sum());
        }
    }
    out
}

#[test]
fn impulse_reverses_contact_velocities_by_the_restitution() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, _) = quadruped_state(&model);
    let (n, nj) = (model.num_dofs(), model.num_joints());
    let types = [ContactType::Point; 4];
    let local = WrenchCoordinates::Local;
    let nu_minus: Vec<f64> = v.iter().chain(&r).copied().collect();
    let before = feet_velocity(&mut ws, &h, &s, &feet, &nu_minus);
    for e in [0.0, 0.5, 1.0] {
        let (mut v_next, mut r_next, mut imp) = ([0.0; 6], vec![0.0; nj], vec![0.0; 12]);
        ws.impulse(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &feet,
            &types,
            local,
            e,
            Some(&mut v_next),
            &mut r_next,
            Some(&mut imp),
        )
        .unwrap();
        let nu_plus: Vec<f64> = v_next.iter().chain(&r_next).copied().collect();
        let after = feet_velocity(&mut ws, &h, &s, &feet, &nu_plus);
        for i in 0..12 {
            assert!((after[i] + e * before[i]).abs() < 1e-10, "e = {e}, row {i}");
        }
        // M (nu+ - nu-) = J_c^T Lambda
        let mut m = vec![0.0; n * n];
        ws.mass_matrix(&s, &mut m).unwrap();
        let mut rhs = vec![0.0; n];
        for (k, &f) in feet.iter().enumerate() {
            let mut j = vec![0.0; 6 * n];
            ws.frame_jacobian(Some(&h), &s, f as usize, &mut j).unwrap();
            for c in 0..n {
                rhs[c] += (0..3)
                    .map(|row| j[row + 6 * c] * imp[3 * k + row])
                    .sum::<f64>();
            }
        }
        for i in 0..n {
            let lhs: f64 = (0..n)
                .map(|c| m[i + n * c] * (nu_plus[c] - nu_minus[c]))
                .sum();
            assert!(
                (lhs - rhs[i]).abs() < 1e-9 * (1.0 + rhs[i].abs()),
                "e = {e}, row {i}"
            );
        }
    }
    // no contacts: nu+ = nu- and A_imp = I exactly
    let (mut v_next, mut r_next) = ([0.0; 6], vec![0.0; nj]);
    ws.impulse(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &[],
        &[],
        local,
        0.0,
        Some(&mut v_next),
        &mut r_next,
        None,
    )
    .unwrap();
    assert_eq!((v_next, &r_next), (v, &r));
    let nn = model.state_dim();
    let mut a = vec![1.0; nn * nn];
    ws.impulse_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &[],
        &[],
        local,
        0.0,
        &mut a,
        None,
    )
    .unwrap();
    for i in 0..nn {
        for c in 0..nn {
            assert_eq!(a[i + nn * c], if i == c { 1.0 } else { 0.0 });
        }
    }
}

#[test]
fn impulse_linearize_velocity_columns_match_central_differences() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, _) = quadruped_state(&model);
    let (n, nn, nj) = (model.num_dofs(), model.state_dim(), model.num_joints());
    let types = [ContactType::Point; 4];
    let mixed = WrenchCoordinates::Mixed;
    let (mut a, mut d) = (vec![0.0; nn * nn], vec![0.0; 12 * nn]);
    ws.impulse_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &feet,
        &types,
        mixed,
        0.3,
        &mut a,
        Some(&mut d),
    )
    .unwrap();
    // the velocity coordinates z_v, z_r enter additively: column n + c by central differences
    let eps = 1e-6;
    for c in [0, 4, 6 + 2, 6 + nj - 1] {
        let mut plus = ([0.0; 6], vec![0.0; nj], vec![0.0; 12]);
        let mut minus = ([0.0; 6], vec![0.0; nj], vec![0.0; 12]);
        for (sign, out) in [(1.0, &mut plus), (-1.0, &mut minus)] {
            let (mut vp, mut rp) = (v, r.clone());
            if c < 6 {
                vp[c] += sign * eps
            } else {
                rp[c - 6] += sign * eps
            }
            ws.impulse(
                Some(&h),
                &s,
                Some(&vp),
                &rp,
                &feet,
                &types,
                mixed,
                0.3,
                Some(&mut out.0),
                &mut out.1,
                Some(&mut out.2),
            )
            .unwrap();
        }
        let nu_p: Vec<f64> = plus.0.iter().chain(&plus.1).copied().collect();
        let nu_m: Vec<f64> = minus.0.iter().chain(&minus.1).copied().collect();
        for i in 0..n {
            let fd = (nu_p[i] - nu_m[i]) / (2.0 * eps);
            assert!(
                (fd - a[(n + i) + nn * (n + c)]).abs() < 1e-6,
                "row {i} col {c}"
            );
        }
        for i in 0..12 {
            let fd = (plus.2[i] - minus.2[i]) / (2.0 * eps);
            assert!(
                (fd - d[i + 12 * (n + c)]).abs() < 1e-5 * (1.0 + fd.abs()),
                "dimpulse {i} {c}"
            );
        }
    }
    // misuse: a restitution outside [0, 1], a wrong output length; outputs untouched
    let (mut v_next, mut r_next) = ([7.0; 6], vec![7.0; nj]);
    let err = ws
        .impulse(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &feet,
            &types,
            mixed,
            1.5,
            Some(&mut v_next),
            &mut r_next,
            None,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("restitution"), "{err}");
    assert_eq!((v_next, &r_next), ([7.0; 6], &vec![7.0; nj]));
    let mut short = vec![0.0; 11];
    let err = ws
        .impulse_linearize(
            Some(&h),
            &s,
            Some(&v),
            &r,
            &feet,
            &types,
            mixed,
            0.0,
            &mut a,
            Some(&mut short),
        )
        .unwrap_err();
    assert!(err.message().contains("'dimpulse_dz'"), "{err}");
}

#[test]
fn contact_step_is_step_without_contacts_and_euler_follows_contact_dynamics() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let (n, nn, nj) = (model.num_dofs(), model.state_dim(), model.num_joints());
    let types = [ContactType::Point; 4];
    let local = WrenchCoordinates::Local;
    let dt = 1e-3;
    for method in [StepMethod::SemiImplicitEuler, StepMethod::Rk4] {
        let (mut h1, mut s1, mut v1, mut r1) = ([0.0; 16], vec![0.0; nj], [0.0; 6], vec![0.0; nj]);
        let (mut h2, mut s2, mut v2, mut r2) = ([0.0; 16], vec![0.0; nj], [0.0; 6], vec![0.0; nj]);
        ws.contact_step(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &[],
            &[],
            local,
            None,
            None,
            Some(&mut h1),
            &mut s1,
            Some(&mut v1),
            &mut r1,
            None,
        )
        .unwrap();
        ws.step(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            Some(&mut h2),
            &mut s2,
            Some(&mut v2),
            &mut r2,
        )
        .unwrap();
        assert_eq!((h1, &s1, v1, &r1), (h2, &s2, v2, &r2));
        let (mut a1, mut b1) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
        let (mut a2, mut b2) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
        ws.contact_step_linearize(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &[],
            &[],
            local,
            None,
            None,
            &mut a1,
            &mut b1,
            None,
            None,
        )
        .unwrap();
        ws.step_linearize(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &mut a2,
            &mut b2,
        )
        .unwrap();
        assert_eq!((&a1, &b1), (&a2, &b2));
    }
    // semi-implicit Euler: nu+ = nu + dt nu_dot, lambda = contact_dynamics' lambda at (x, tau)
    let (mut nu_dot, mut lambda) = (vec![0.0; n], vec![0.0; 12]);
    ws.contact_dynamics(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        local,
        None,
        None,
        &mut nu_dot,
        &mut lambda,
    )
    .unwrap();
    let (mut h1, mut s1, mut v1, mut r1, mut l1) = (
        [0.0; 16],
        vec![0.0; nj],
        [0.0; 6],
        vec![0.0; nj],
        vec![0.0; 12],
    );
    ws.contact_step(
        StepMethod::SemiImplicitEuler,
        dt,
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        local,
        None,
        None,
        Some(&mut h1),
        &mut s1,
        Some(&mut v1),
        &mut r1,
        Some(&mut l1),
    )
    .unwrap();
    let nu: Vec<f64> = v.iter().chain(&r).copied().collect();
    let nu1: Vec<f64> = v1.iter().chain(&r1).copied().collect();
    for i in 0..n {
        assert!(
            (nu1[i] - nu[i] - dt * nu_dot[i]).abs() < 1e-12 * (1.0 + nu_dot[i].abs()),
            "{i}"
        );
    }
    assert_eq!(l1, lambda);
    // the derivatives of lambda are optional; misuse is an error with the outputs untouched
    let (mut a, mut b, mut dz) = (vec![0.0; nn * nn], vec![0.0; nn * nj], vec![0.0; 12 * nn]);
    ws.contact_step_linearize(
        StepMethod::Rk4,
        dt,
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        local,
        None,
        None,
        &mut a,
        &mut b,
        Some(&mut dz),
        None,
    )
    .unwrap();
    assert!(a.iter().chain(&b).chain(&dz).all(|x| x.is_finite()));
    let mut s_next = vec![7.0; nj];
    let err = ws
        .contact_step(
            StepMethod::Rk4,
            -dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            local,
            None,
            None,
            None,
            &mut s_next,
            None,
            &mut r1,
            None,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert_eq!(s_next, vec![7.0; nj]);
    let mut short = vec![0.0; 11];
    let err = ws
        .contact_step(
            StepMethod::Rk4,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            local,
            None,
            None,
            None,
            &mut s_next,
            None,
            &mut r1,
            Some(&mut short),
        )
        .unwrap_err();
    assert!(err.message().contains("'lambda'"), "{err}");
}

#[test]
fn state_algebra_inverts_and_its_jacobians_match_finite_differences() {
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let (nj, n) = (model.num_joints(), model.state_dim());
    let h = pose(0.4);
    let s: Vec<f64> = (0..nj).map(|i| 0.2 * i as f64 - 0.1).collect();
    let r: Vec<f64> = (0..nj).map(|i| 0.3 - 0.1 * i as f64).collect();
    let v = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6];
    let mut z: Vec<f64> = (0..n).map(|k| 0.3 * ((k + 1) as f64).sin()).collect();
    z[3..6].copy_from_slice(&[1.2, -0.9, 0.7]);
    // y = x exp(z), and log(x^-1 y) = z
    type X = ([f64; 16], Vec<f64>, [f64; 6], Vec<f64>);
    let integrate = |x: &X, z: &[f64]| -> X {
        let mut y: X = ([0.0; 16], vec![0.0; nj], [0.0; 6], vec![0.0; nj]);
        model
            .state_integrate(
                Some(&x.0),
                &x.1,
                Some(&x.2),
                &x.3,
                z,
                Some(&mut y.0),
                &mut y.1,
                Some(&mut y.2),
                &mut y.3,
            )
            .unwrap();
        y
    };
    let difference = |a: &X, b: &X| -> Vec<f64> {
        let mut z = vec![0.0; n];
        model
            .state_difference(
                Some(&a.0),
                &a.1,
                Some(&a.2),
                &a.3,
                Some(&b.0),
                &b.1,
                Some(&b.2),
                &b.3,
                &mut z,
            )
            .unwrap();
        z
    };
    let x: X = (h, s.clone(), v, r.clone());
    let y = integrate(&x, &z);
    let back = difference(&x, &y);
    assert!(back.iter().zip(&z).all(|(a, b)| (a - b).abs() < 1e-12));
    let (mut d_dx, mut d_dz) = (vec![0.0; n * n], vec![0.0; n * n]);
    let (mut dz_dx0, mut dz_dx1) = (vec![0.0; n * n], vec![0.0; n * n]);
    model
        .state_integrate_derivatives(Some(&h), &s, &z, Some(&mut d_dx), Some(&mut d_dz))
        .unwrap();
    model
        .state_difference_derivatives(
            Some(&h),
            &s,
            Some(&y.0),
            &y.1,
            Some(&mut dz_dx0),
            Some(&mut dz_dx1),
        )
        .unwrap();
    let eps = 1e-6;
    let mut worst = 0.0f64;
    for k in 0..n {
        let unit = |e: f64| -> Vec<f64> { (0..n).map(|i| if i == k { e } else { 0.0 }).collect() };
        let shifted = |e: f64| -> Vec<f64> { z.iter().zip(unit(e)).map(|(a, b)| a + b).collect() };
        // d_dx: (x exp(dx)) exp(z) read at y; d_dz: x exp(z + dz); dz_dx0, dz_dx1
        let fd = [
            (
                difference(&y, &integrate(&integrate(&x, &unit(eps)), &z)),
                difference(&y, &integrate(&integrate(&x, &unit(-eps)), &z)),
                &d_dx,
            ),
            (
                difference(&y, &integrate(&x, &shifted(eps))),
                difference(&y, &integrate(&x, &shifted(-eps))),
                &d_dz,
            ),
            (
                difference(&integrate(&x, &unit(eps)), &y),
                difference(&integrate(&x, &unit(-eps)), &y),
                &dz_dx0,
            ),
            (
                difference(&x, &integrate(&y, &unit(eps))),
                difference(&x, &integrate(&y, &unit(-eps))),
                &dz_dx1,
            ),
        ];
        for (p, q, d) in fd.iter() {
            for i in 0..n {
                worst = worst.max(((p[i] - q[i]) / (2.0 * eps) - d[i + n * k]).abs());
            }
        }
    }
    assert!(worst < 1e-7, "worst {worst}");
    // in place equals out of place; a non-rigid H0 is named; NaN in z is named
    let (mut hi, mut si, mut vi, mut ri) = (h, s.clone(), v, r.clone());
    model
        .state_integrate_in_place(Some(&mut hi), &mut si, Some(&mut vi), &mut ri, &z)
        .unwrap();
    assert_eq!((hi, si, vi, ri), y);
    let mut bad = h;
    bad[0] = 2.0;
    let mut out = vec![-3.5; n];
    let err = model
        .state_difference(
            Some(&bad),
            &s,
            Some(&v),
            &r,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &mut out,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'H0'"), "{}", err.message());
    assert!(out.iter().all(|&a| a == -3.5));
    let mut nan_z = z.clone();
    nan_z[2] = f64::NAN;
    let err = model
        .state_integrate_derivatives(Some(&h), &s, &nan_z, Some(&mut d_dx), None)
        .unwrap_err();
    assert_eq!(err.status(), status::NONFINITE);
    assert!(err.message().contains("'z'"), "{}", err.message());
}

#[test]
fn fixed_base_state_algebra_without_pose() {
    let model = Model::from_urdf_file(urdf_path(), FIXED_BASE).unwrap();
    let (nj, n) = (model.num_joints(), model.state_dim());
    let s: Vec<f64> = (0..nj).map(|i| 0.1 * i as f64).collect();
    let r = vec![0.5; nj];
    let z: Vec<f64> = (0..n).map(|k| 0.01 * k as f64).collect();
    let (mut s1, mut r1) = (vec![0.0; nj], vec![0.0; nj]);
    model
        .state_integrate(None, &s, None, &r, &z, None, &mut s1, None, &mut r1)
        .unwrap();
    let mut back = vec![0.0; n];
    model
        .state_difference(None, &s, None, &r, None, &s1, None, &r1, &mut back)
        .unwrap();
    assert!(back.iter().zip(&z).all(|(a, b)| (a - b).abs() < 1e-15));
    let mut d = vec![0.0; n * n];
    model
        .state_difference_derivatives(None, &s, None, &s1, Some(&mut d), None)
        .unwrap();
    for j in 0..n {
        for i in 0..n {
            assert_eq!(d[i + n * j], if i == j { -1.0 } else { 0.0 });
        }
    }
}

// ---------------------------------------------------------------- steps with joint feedback

/// A state x = (H, s, v, r).
type State = ([f64; 16], Vec<f64>, [f64; 6], Vec<f64>);

/// The joint feedback of the *_feedback tests: kp, kd, s_ref, r_ref (n_J each).
fn feedback_gains(nj: usize) -> [Vec<f64>; 4] {
    [
        (0..nj).map(|i| 20.0 + 3.0 * i as f64).collect(),
        (0..nj).map(|i| 1.5 + 0.2 * i as f64).collect(),
        (0..nj).map(|i| 0.3 * (i as f64).cos()).collect(),
        (0..nj).map(|i| -0.1 + 0.05 * i as f64).collect(),
    ]
}

/// tau + kp∘(s_ref - s) + kd∘(r_ref - r), computed here (the oracle of the feedback).
fn fed_back_torque(tau: &[f64], s: &[f64], r: &[f64], fb: &[Vec<f64>; 4]) -> Vec<f64> {
    let [kp, kd, s_ref, r_ref] = fb;
    (0..tau.len())
        .map(|k| tau[k] + kp[k] * (s_ref[k] - s[k]) + kd[k] * (r_ref[k] - r[k]))
        .collect()
}

fn fb_refs(fb: &[Vec<f64>; 4]) -> [Option<&[f64]>; 4] {
    [Some(&fb[0]), Some(&fb[1]), Some(&fb[2]), Some(&fb[3])]
}

/// x+ of step_feedback (moving base).
fn feedback_step(
    ws: &mut geolin::Workspace,
    method: StepMethod,
    dt: f64,
    x: &State,
    tau: &[f64],
    fb: [Option<&[f64]>; 4],
) -> State {
    let nj = x.1.len();
    let mut y: State = ([0.0; 16], vec![0.0; nj], [0.0; 6], vec![0.0; nj]);
    ws.step_feedback(
        method,
        dt,
        Some(&x.0),
        &x.1,
        Some(&x.2),
        &x.3,
        tau,
        fb[0],
        fb[1],
        fb[2],
        fb[3],
        Some(&mut y.0),
        &mut y.1,
        Some(&mut y.2),
        &mut y.3,
    )
    .unwrap();
    y
}

/// x+ and lambda of contact_step_feedback (moving base, point feet, local coordinates).
#[allow(clippy::too_many_arguments)]
fn contact_feedback_step(
    ws: &mut geolin::Workspace,
    method: StepMethod,
    dt: f64,
    x: &State,
    tau: &[f64],
    fb: [Option<&[f64]>; 4],
    feet: &[i32],
) -> (State, Vec<f64>) {
    let nj = x.1.len();
    let mut y: State = ([0.0; 16], vec![0.0; nj], [0.0; 6], vec![0.0; nj]);
    let mut lambda = vec![0.0; 3 * feet.len()];
    ws.contact_step_feedback(
        method,
        dt,
        Some(&x.0),
        &x.1,
        Some(&x.2),
        &x.3,
        tau,
        fb[0],
        fb[1],
        fb[2],
        fb[3],
        feet,
        &vec![ContactType::Point; feet.len()],
        WrenchCoordinates::Local,
        None,
        None,
        Some(&mut y.0),
        &mut y.1,
        Some(&mut y.2),
        &mut y.3,
        Some(&mut lambda),
    )
    .unwrap();
    (y, lambda)
}

/// A_d, B_d (and dlambda_dz, dlambda_dw when there are feet) of contact_step_feedback_linearize
/// (with no feet, of step_feedback_linearize).
fn feedback_linearization(
    ws: &mut geolin::Workspace,
    method: StepMethod,
    dt: f64,
    x: &State,
    tau: &[f64],
    fb: [Option<&[f64]>; 4],
    feet: &[i32],
) -> [Vec<f64>; 4] {
    let (nj, nn) = (x.1.len(), ws.model().state_dim());
    let m = 3 * feet.len();
    let mut out = [
        vec![0.0; nn * nn],
        vec![0.0; nn * nj],
        vec![0.0; m * nn],
        vec![0.0; m * nj],
    ];
    let [a, b, dz, dw] = &mut out;
    if feet.is_empty() {
        ws.step_feedback_linearize(
            method,
            dt,
            Some(&x.0),
            &x.1,
            Some(&x.2),
            &x.3,
            tau,
            fb[0],
            fb[1],
            fb[2],
            fb[3],
            a,
            b,
        )
        .unwrap();
    } else {
        ws.contact_step_feedback_linearize(
            method,
            dt,
            Some(&x.0),
            &x.1,
            Some(&x.2),
            &x.3,
            tau,
            fb[0],
            fb[1],
            fb[2],
            fb[3],
            feet,
            &vec![ContactType::Point; feet.len()],
            WrenchCoordinates::Local,
            None,
            None,
            a,
            b,
            Some(dz),
            Some(dw),
        )
        .unwrap();
    }
    out
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[test]
fn feedback_steps_without_feedback_are_the_plain_steps_exactly() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let (nj, nn) = (model.num_joints(), model.state_dim());
    let x: State = (h, s.clone(), v, r.clone());
    let (types, local, dt) = ([ContactType::Point; 4], WrenchCoordinates::Local, 1e-3);
    for method in [StepMethod::SemiImplicitEuler, StepMethod::Rk4] {
        let none = [None; 4];
        let y = feedback_step(&mut ws, method, dt, &x, &tau, none);
        let mut p: State = ([0.0; 16], vec![0.0; nj], [0.0; 6], vec![0.0; nj]);
        ws.step(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            Some(&mut p.0),
            &mut p.1,
            Some(&mut p.2),
            &mut p.3,
        )
        .unwrap();
        assert_eq!(y, p, "{method:?}: step_feedback = step");
        let [a, b, _, _] = feedback_linearization(&mut ws, method, dt, &x, &tau, none, &[]);
        let (mut a2, mut b2) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
        ws.step_linearize(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &mut a2,
            &mut b2,
        )
        .unwrap();
        assert_eq!((&a, &b), (&a2, &b2), "{method:?}: step_feedback_linearize");

        let (y, lambda) = contact_feedback_step(&mut ws, method, dt, &x, &tau, none, &feet);
        let mut l2 = vec![0.0; 12];
        ws.contact_step(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            local,
            None,
            None,
            Some(&mut p.0),
            &mut p.1,
            Some(&mut p.2),
            &mut p.3,
            Some(&mut l2),
        )
        .unwrap();
        assert_eq!((y, lambda), (p, l2), "{method:?}: contact_step_feedback");
        let lin = feedback_linearization(&mut ws, method, dt, &x, &tau, none, &feet);
        let mut plain = [
            vec![0.0; nn * nn],
            vec![0.0; nn * nj],
            vec![0.0; 12 * nn],
            vec![0.0; 12 * nj],
        ];
        let [a2, b2, dz2, dw2] = &mut plain;
        ws.contact_step_linearize(
            method,
            dt,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            local,
            None,
            None,
            a2,
            b2,
            Some(dz2),
            Some(dw2),
        )
        .unwrap();
        assert_eq!(lin, plain, "{method:?}: contact_step_feedback_linearize");
    }
}

#[test]
fn euler_feedback_step_is_the_step_of_the_fed_back_torque_and_its_chain_rule() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let (nj, n, nn) = (model.num_joints(), model.num_dofs(), model.state_dim());
    let x: State = (h, s.clone(), v, r.clone());
    let fb = feedback_gains(nj);
    let tau_fb = fed_back_torque(&tau, &s, &r, &fb);
    let euler = StepMethod::SemiImplicitEuler;
    let dt = 1e-3;
    let close = |a: &[f64], b: &[f64], what: &str| {
        let d = max_abs_diff(a, b);
        assert!(d <= 1e-12 * (1.0 + max_abs(b)), "{what}: {d}");
    };
    for contact_feet in [&[][..], &feet[..]] {
        // x+ and lambda: the plain functions at tau + kp∘(s_ref - s) + kd∘(r_ref - r)
        let (y, lambda) =
            contact_feedback_step(&mut ws, euler, dt, &x, &tau, fb_refs(&fb), contact_feet);
        let (p, l2) =
            contact_feedback_step(&mut ws, euler, dt, &x, &tau_fb, [None; 4], contact_feet);
        close(&y.0, &p.0, "H+");
        close(&y.1, &p.1, "s+");
        close(&y.2, &p.2, "v+");
        close(&y.3, &p.3, "r+");
        close(&lambda, &l2, "lambda");
        if contact_feet.is_empty() {
            let y2 = feedback_step(&mut ws, euler, dt, &x, &tau, fb_refs(&fb));
            assert_eq!(
                y2, y,
                "step_feedback = contact_step_feedback without contacts"
            );
        }
        // the chain rule: d tau_total / dz = K = [0, -diag(kp), 0, -diag(kd)] (n_J x N), so
        // A_d = A_d(tau_total) + B_d K, dlambda_dz = dlambda_dz(tau_total) + dlambda_dw K, and
        // the columns of w (B_d, dlambda_dw) are those at tau_total
        let [a, b, dz, dw] =
            feedback_linearization(&mut ws, euler, dt, &x, &tau, fb_refs(&fb), contact_feet);
        let [a0, b0, dz0, dw0] =
            feedback_linearization(&mut ws, euler, dt, &x, &tau_fb, [None; 4], contact_feet);
        close(&b, &b0, "B_d");
        close(&dw, &dw0, "dlambda_dw");
        let chain = |base: &[f64], dw: &[f64], rows: usize| -> Vec<f64> {
            let mut out = base.to_vec();
            for k in 0..nj {
                let (col_s, col_r) = (6 + k, n + 6 + k);
                for i in 0..rows {
                    out[i + rows * col_s] -= dw[i + rows * k] * fb[0][k];
                    out[i + rows * col_r] -= dw[i + rows * k] * fb[1][k];
                }
            }
            out
        };
        let m = 3 * contact_feet.len();
        let (a_chain, dz_chain) = (chain(&a0, &b0, nn), chain(&dz0, &dw0, m));
        let scale = 1.0 + max_abs(&a_chain);
        let d = max_abs_diff(&a, &a_chain);
        assert!(d <= 1e-12 * scale, "A_d = A_d(tau_total) + B_d K: {d}");
        let d = max_abs_diff(&dz, &dz_chain);
        assert!(
            d <= 1e-10 * (1.0 + max_abs(&dz_chain)),
            "dlambda_dz chain rule: {d}"
        );
    }
}

#[test]
fn feedback_step_linearizations_match_central_differences() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let (nj, nn) = (model.num_joints(), model.state_dim());
    let x: State = (h, s, v, r);
    let fb = feedback_gains(nj);
    let integrate = |x: &State, z: &[f64]| -> State {
        let mut y: State = ([0.0; 16], vec![0.0; nj], [0.0; 6], vec![0.0; nj]);
        model
            .state_integrate(
                Some(&x.0),
                &x.1,
                Some(&x.2),
                &x.3,
                z,
                Some(&mut y.0),
                &mut y.1,
                Some(&mut y.2),
                &mut y.3,
            )
            .unwrap();
        y
    };
    let difference = |a: &State, b: &State| -> Vec<f64> {
        let mut z = vec![0.0; nn];
        model
            .state_difference(
                Some(&a.0),
                &a.1,
                Some(&a.2),
                &a.3,
                Some(&b.0),
                &b.1,
                Some(&b.2),
                &b.3,
                &mut z,
            )
            .unwrap();
        z
    };
    let (dt, eps) = (1e-3, 1e-6);
    let methods = [
        StepMethod::SemiImplicitEuler,
        StepMethod::Rk4,
        StepMethod::ImplicitEuler,
    ];
    for method in methods {
        for contact_feet in [&[][..], &feet[..]] {
            let m = 3 * contact_feet.len();
            let mut step = |x: &State, tau: &[f64]| {
                contact_feedback_step(&mut ws, method, dt, x, tau, fb_refs(&fb), contact_feet)
            };
            let (y0, _) = step(&x, &tau);
            // columns of A_d, dlambda_dz: x exp(±eps e_j); of B_d, dlambda_dw: tau ± eps e_k
            let (mut a_fd, mut dz_fd) = (vec![0.0; nn * nn], vec![0.0; m * nn]);
            for j in 0..nn {
                let mut z = vec![0.0; nn];
                z[j] = eps;
                let (yp, lp) = step(&integrate(&x, &z), &tau);
                z[j] = -eps;
                let (ym, lm) = step(&integrate(&x, &z), &tau);
                let (zp, zm) = (difference(&y0, &yp), difference(&y0, &ym));
                for i in 0..nn {
                    a_fd[i + nn * j] = (zp[i] - zm[i]) / (2.0 * eps);
                }
                for i in 0..m {
                    dz_fd[i + m * j] = (lp[i] - lm[i]) / (2.0 * eps);
                }
            }
            let (mut b_fd, mut dw_fd) = (vec![0.0; nn * nj], vec![0.0; m * nj]);
            for k in 0..nj {
                let mut t = tau.clone();
                t[k] += eps;
                let (yp, lp) = step(&x, &t);
                t[k] -= 2.0 * eps;
                let (ym, lm) = step(&x, &t);
                let (zp, zm) = (difference(&y0, &yp), difference(&y0, &ym));
                for i in 0..nn {
                    b_fd[i + nn * k] = (zp[i] - zm[i]) / (2.0 * eps);
                }
                for i in 0..m {
                    dw_fd[i + m * k] = (lp[i] - lm[i]) / (2.0 * eps);
                }
            }
            let [a, b, dz, dw] =
                feedback_linearization(&mut ws, method, dt, &x, &tau, fb_refs(&fb), contact_feet);
            let what = format!("{method:?} with {} contacts", contact_feet.len());
            for (name, exact, fd) in [
                ("A_d", &a, &a_fd),
                ("B_d", &b, &b_fd),
                ("dlambda_dz", &dz, &dz_fd),
                ("dlambda_dw", &dw, &dw_fd),
            ] {
                let d = max_abs_diff(exact, fd);
                assert!(d <= 1e-6 * (1.0 + max_abs(fd)), "{what}: {name}: {d}");
            }
        }
    }
}

#[test]
fn implicit_euler_solves_m_plus_h_kd_for_the_velocity_step() {
    // Without JOINT_DAMPING the implicit part is the feedback's kd alone:
    // (M + dt D)(nu+ - nu) = dt M nu_dot(x, tau_total), D = diag(0_6, kd);
    // H+ = H exp(dt v+), s+ = s + dt r+ as the semi-implicit Euler step.
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (nj, n) = (model.num_joints(), model.num_dofs());
    let h = pose(0.5);
    let v = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6];
    let s: Vec<f64> = (0..nj).map(|i| 0.2 * i as f64 - 0.1).collect();
    let r: Vec<f64> = (0..nj).map(|i| 0.3 - 0.1 * i as f64).collect();
    let tau = vec![0.4; nj];
    let fb = feedback_gains(nj);
    let x: State = (h, s.clone(), v, r.clone());
    let dt = 0.05; // large enough that dt kd matters against M
    let y = feedback_step(
        &mut ws,
        StepMethod::ImplicitEuler,
        dt,
        &x,
        &tau,
        fb_refs(&fb),
    );
    let tau_fb = fed_back_torque(&tau, &s, &r, &fb);
    let (mut nu_dot, mut mass) = (vec![0.0; n], vec![0.0; n * n]);
    ws.forward_dynamics(Some(&h), &s, Some(&v), &r, &tau_fb, &mut nu_dot)
        .unwrap();
    ws.mass_matrix(&s, &mut mass).unwrap();
    let dnu: Vec<f64> = (0..n)
        .map(|i| {
            if i < 6 {
                y.2[i] - v[i]
            } else {
                y.3[i - 6] - r[i - 6]
            }
        })
        .collect();
    let mut worst = 0.0f64;
    let mut scale = 0.0f64;
    for i in 0..n {
        let lhs: f64 = (0..n).map(|k| mass[i + n * k] * dnu[k]).sum::<f64>()
            + if i < 6 {
                0.0
            } else {
                dt * fb[1][i - 6] * dnu[i]
            };
        let rhs: f64 = dt * (0..n).map(|k| mass[i + n * k] * nu_dot[k]).sum::<f64>();
        worst = worst.max((lhs - rhs).abs());
        scale = scale.max(rhs.abs());
    }
    assert!(
        worst <= 1e-10 * (1.0 + scale),
        "(M + dt D) dnu = dt M nu_dot: {worst}"
    );
    for (k, (s0, (s1, r1))) in s.iter().zip(y.1.iter().zip(&y.3)).enumerate() {
        let d = s1 - (s0 + dt * r1);
        assert!(
            d.abs() <= 1e-14 * (1.0 + s0.abs()),
            "s+ = s + dt r+ ({k}): {d}"
        );
    }
    // the implicit step is not the semi-implicit one: dt kd is not small against M here
    let y_semi = feedback_step(
        &mut ws,
        StepMethod::SemiImplicitEuler,
        dt,
        &x,
        &tau,
        fb_refs(&fb),
    );
    assert!(max_abs_diff(&y.3, &y_semi.3) > 1e-6);
}

#[test]
fn feedback_misuse_is_an_error_with_outputs_untouched() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let (nj, nn) = (model.num_joints(), model.state_dim());
    let fb = feedback_gains(nj);
    let short = vec![1.0; nj - 1];
    let (mut h1, mut s1, mut v1, mut r1) = ([7.0; 16], vec![7.0; nj], [7.0; 6], vec![7.0; nj]);
    let err = ws
        .step_feedback(
            StepMethod::SemiImplicitEuler,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            Some(&fb[0]),
            Some(&short),
            None,
            None,
            None,
            &mut s1,
            None,
            &mut r1,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    assert!(err.message().contains("'kd'"), "{err}");
    let (mut a, mut b) = (vec![7.0; nn * nn], vec![7.0; nn * nj]);
    let err = ws
        .step_feedback_linearize(
            StepMethod::Rk4,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            None,
            None,
            Some(&short),
            None,
            &mut a,
            &mut b,
        )
        .unwrap_err();
    assert!(err.message().contains("'s_ref'"), "{err}");
    // non-finite feedback is refused by the library, nothing written
    let mut bad = fb[3].clone();
    bad[2] = f64::NAN;
    let err = ws
        .contact_step_feedback(
            StepMethod::ImplicitEuler,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            None,
            Some(&fb[1]),
            None,
            Some(&bad),
            &feet,
            &[ContactType::Point; 4],
            WrenchCoordinates::Local,
            None,
            None,
            Some(&mut h1),
            &mut s1,
            Some(&mut v1),
            &mut r1,
            None,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::NONFINITE, "{err}");
    assert!(err.message().contains("r_ref"), "{err}");
    let err = ws
        .contact_step_feedback_linearize(
            StepMethod::Rk4,
            -1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            Some(&fb[0]),
            None,
            None,
            None,
            &feet,
            &[ContactType::Point; 4],
            WrenchCoordinates::Local,
            None,
            None,
            &mut a,
            &mut b,
            None,
            None,
        )
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT);
    let untouched = h1
        .iter()
        .chain(&s1)
        .chain(&v1)
        .chain(&r1)
        .chain(&a)
        .chain(&b);
    assert!(
        untouched.into_iter().all(|&x| x == 7.0),
        "nothing written on error"
    );
}

#[test]
fn implicit_euler_without_damping_is_semi_implicit_euler_and_fixed_base_needs_no_pose() {
    // d = 0 (no JOINT_DAMPING, no kd): the implicit step is the semi-implicit one
    let model = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let nj = model.num_joints();
    let s: Vec<f64> = (0..nj).map(|i| 0.2 * i as f64 - 0.1).collect();
    let r: Vec<f64> = (0..nj).map(|i| 0.3 - 0.1 * i as f64).collect();
    let x: State = (
        pose(0.5),
        s.clone(),
        [0.1, -0.2, 0.3, 0.4, -0.5, 0.6],
        r.clone(),
    );
    let (tau, dt) = (vec![0.4; nj], 1e-2);
    let fb = feedback_gains(nj);
    let kp_only = [Some(&fb[0][..]), None, Some(&fb[2][..]), None];
    let implicit = feedback_step(&mut ws, StepMethod::ImplicitEuler, dt, &x, &tau, kp_only);
    let semi = feedback_step(
        &mut ws,
        StepMethod::SemiImplicitEuler,
        dt,
        &x,
        &tau,
        kp_only,
    );
    let d = max_abs_diff(&implicit.3, &semi.3).max(max_abs_diff(&implicit.2, &semi.2));
    assert!(d <= 1e-14 * (1.0 + max_abs(&semi.3)), "kp only: {d}");
    let mut y = x.clone();
    ws.step_in_place(
        StepMethod::ImplicitEuler,
        dt,
        Some(&mut y.0),
        &mut y.1,
        Some(&mut y.2),
        &mut y.3,
        &tau,
    )
    .unwrap_or_else(|e| panic!("geolin_step takes ImplicitEuler: {e}"));
    let no_feedback = feedback_step(&mut ws, StepMethod::ImplicitEuler, dt, &x, &tau, [None; 4]);
    assert_eq!(
        y, no_feedback,
        "geolin_step = geolin_step_feedback without feedback"
    );

    // fixed base: no H, v, H_next, v_next; Euler with feedback = step of the fed-back torque
    let fixed = Model::from_urdf_file(urdf_path(), FIXED_BASE).unwrap();
    let mut ws = fixed.workspace().unwrap();
    let tau_fb = fed_back_torque(&tau, &s, &r, &fb);
    let (mut s1, mut r1, mut s2, mut r2) =
        (vec![0.0; nj], vec![0.0; nj], vec![0.0; nj], vec![0.0; nj]);
    let euler = StepMethod::SemiImplicitEuler;
    ws.step_feedback(
        euler,
        dt,
        None,
        &s,
        None,
        &r,
        &tau,
        Some(&fb[0]),
        Some(&fb[1]),
        Some(&fb[2]),
        Some(&fb[3]),
        None,
        &mut s1,
        None,
        &mut r1,
    )
    .unwrap();
    ws.step(
        euler, dt, None, &s, None, &r, &tau_fb, None, &mut s2, None, &mut r2,
    )
    .unwrap();
    let d = max_abs_diff(&s1, &s2).max(max_abs_diff(&r1, &r2));
    assert!(d <= 1e-12 * (1.0 + max_abs(&r2)), "fixed base: {d}");
    let nn = fixed.state_dim();
    let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
    ws.step_feedback_linearize(
        StepMethod::ImplicitEuler,
        dt,
        None,
        &s,
        None,
        &r,
        &tau,
        None,
        Some(&fb[1]),
        None,
        None,
        &mut a,
        &mut b,
    )
    .unwrap();
    assert!(a.iter().chain(&b).all(|x| x.is_finite()) && max_abs(&b) > 0.0);
}

// --- constraint sets ---------------------------------------------------------------------------

/// The quadruped's four feet as point contacts of a set.
fn feet_set<'m>(model: &'m Model, feet: &[i32]) -> Constraints<'m> {
    let mut set = model.constraints().unwrap();
    for (k, &f) in feet.iter().enumerate() {
        assert_eq!(
            set.add_contact(f as usize, ContactType::Point, None)
                .unwrap(),
            k
        );
    }
    assert_eq!((set.len(), set.num_rows()), (4, 12));
    set
}

#[test]
fn a_set_of_contacts_only_is_the_contact_functions_exactly() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let (n, nn, nj) = (model.num_dofs(), model.state_dim(), model.num_joints());
    let mut set = feet_set(&model, &feet);
    // the set's gains, references and world axes are those of the contact call
    let mut refs = vec![0.0; 16 * 4];
    for (k, &f) in feet.iter().enumerate() {
        let mut hf = [0.0; 16];
        ws.frame_pose(Some(&h), &s, f as usize, &mut hf).unwrap();
        hf[12] += 0.01;
        hf[14] -= 0.02;
        set.set_ref(k, Some(&hf)).unwrap();
        refs[16 * k..16 * k + 16].copy_from_slice(&hf);
    }
    set.set_gains(40.0, 9.0).unwrap();
    set.set_axes(WrenchCoordinates::Mixed).unwrap();
    let (types, mixed, gains) = (
        [ContactType::Point; 4],
        WrenchCoordinates::Mixed,
        Some(&[40.0, 9.0]),
    );
    let refs = Some(&refs[..]);

    let (mut nu, mut lambda) = (vec![0.0; n], vec![0.0; 12]);
    ws.constrained_dynamics(&set, Some(&h), &s, Some(&v), &r, &tau, &mut nu, &mut lambda)
        .unwrap();
    let (mut nu2, mut lambda2) = (vec![0.0; n], vec![0.0; 12]);
    ws.contact_dynamics(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        mixed,
        gains,
        refs,
        &mut nu2,
        &mut lambda2,
    )
    .unwrap();
    assert_eq!((&nu, &lambda), (&nu2, &lambda2));
    assert!(lambda.iter().any(|&l| l != 0.0));

    let lin = || {
        [
            vec![0.0; nn * nn],
            vec![0.0; nn * nj],
            vec![0.0; 12 * nn],
            vec![0.0; 12 * nj],
        ]
    };
    let ([mut a, mut b, mut dz, mut dw], [mut a2, mut b2, mut dz2, mut dw2]) = (lin(), lin());
    ws.constrained_linearize(
        &set,
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &mut a,
        &mut b,
        Some(&mut dz),
        Some(&mut dw),
    )
    .unwrap();
    ws.contact_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        mixed,
        gains,
        refs,
        &mut a2,
        &mut b2,
        Some(&mut dz2),
        Some(&mut dw2),
    )
    .unwrap();
    assert_eq!([&a, &b, &dz, &dw], [&a2, &b2, &dz2, &dw2]);

    let fb = feedback_gains(nj);
    let [kp, kd, s_ref, r_ref] = fb_refs(&fb);
    for method in [StepMethod::SemiImplicitEuler, StepMethod::Rk4] {
        let next = || {
            (
                [0.0; 16],
                vec![0.0; nj],
                [0.0; 6],
                vec![0.0; nj],
                vec![0.0; 12],
            )
        };
        let (mut y, mut y2, mut yf, mut yf2) = (next(), next(), next(), next());
        ws.constrained_step(
            &set,
            method,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            Some(&mut y.0),
            &mut y.1,
            Some(&mut y.2),
            &mut y.3,
            Some(&mut y.4),
        )
        .unwrap();
        ws.contact_step(
            method,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &feet,
            &types,
            mixed,
            gains,
            refs,
            Some(&mut y2.0),
            &mut y2.1,
            Some(&mut y2.2),
            &mut y2.3,
            Some(&mut y2.4),
        )
        .unwrap();
        assert_eq!(y, y2, "{method:?}: constrained_step");
        ws.constrained_step_feedback(
            &set,
            method,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            kp,
            kd,
            s_ref,
            r_ref,
            Some(&mut yf.0),
            &mut yf.1,
            Some(&mut yf.2),
            &mut yf.3,
            Some(&mut yf.4),
        )
        .unwrap();
        ws.contact_step_feedback(
            method,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            kp,
            kd,
            s_ref,
            r_ref,
            &feet,
            &types,
            mixed,
            gains,
            refs,
            Some(&mut yf2.0),
            &mut yf2.1,
            Some(&mut yf2.2),
            &mut yf2.3,
            Some(&mut yf2.4),
        )
        .unwrap();
        assert_eq!(yf, yf2, "{method:?}: constrained_step_feedback");
        assert_ne!(yf.3, y.3, "{method:?}: the feedback acts");
    }
    let method = StepMethod::Rk4;
    let ([mut a, mut b, mut dz, mut dw], [mut a2, mut b2, mut dz2, mut dw2]) = (lin(), lin());
    ws.constrained_step_linearize(
        &set,
        method,
        1e-3,
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &mut a,
        &mut b,
        Some(&mut dz),
        Some(&mut dw),
    )
    .unwrap();
    ws.contact_step_linearize(
        method,
        1e-3,
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &feet,
        &types,
        mixed,
        gains,
        refs,
        &mut a2,
        &mut b2,
        Some(&mut dz2),
        Some(&mut dw2),
    )
    .unwrap();
    assert_eq!([&a, &b, &dz, &dw], [&a2, &b2, &dz2, &dw2]);
    ws.constrained_step_feedback_linearize(
        &set,
        method,
        1e-3,
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        kp,
        kd,
        s_ref,
        r_ref,
        &mut a,
        &mut b,
        None,
        None,
    )
    .unwrap();
    ws.contact_step_feedback_linearize(
        method,
        1e-3,
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        kp,
        kd,
        s_ref,
        r_ref,
        &feet,
        &types,
        mixed,
        gains,
        refs,
        &mut a2,
        &mut b2,
        None,
        None,
    )
    .unwrap();
    assert_eq!([&a, &b], [&a2, &b2]);

    // impacts (no gains) in the set's axes
    let (mut v1, mut r1, mut i1) = ([0.0; 6], vec![0.0; nj], vec![0.0; 12]);
    let (mut v2, mut r2, mut i2) = ([0.0; 6], vec![0.0; nj], vec![0.0; 12]);
    ws.constrained_impulse(
        &set,
        0.5,
        Some(&h),
        &s,
        Some(&v),
        &r,
        Some(&mut v1),
        &mut r1,
        Some(&mut i1),
    )
    .unwrap();
    ws.impulse(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &feet,
        &types,
        mixed,
        0.5,
        Some(&mut v2),
        &mut r2,
        Some(&mut i2),
    )
    .unwrap();
    assert_eq!((v1, &r1, &i1), (v2, &r2, &i2));
    let ([mut a, _, mut dz, _], [mut a2, _, mut dz2, _]) = (lin(), lin());
    ws.constrained_impulse_linearize(&set, 0.5, Some(&h), &s, Some(&v), &r, &mut a, Some(&mut dz))
        .unwrap();
    ws.impulse_linearize(
        Some(&h),
        &s,
        Some(&v),
        &r,
        &feet,
        &types,
        mixed,
        0.5,
        &mut a2,
        Some(&mut dz2),
    )
    .unwrap();
    assert_eq!((&a, &dz), (&a2, &dz2));

    // Kp != 0 and a contact whose reference was cleared: refused
    set.set_ref(0, None).unwrap();
    let err = ws
        .constrained_dynamics(&set, Some(&h), &s, Some(&v), &r, &tau, &mut nu, &mut lambda)
        .unwrap_err();
    assert_eq!(err.status(), status::INVALID_ARGUMENT, "{err}");
}

#[test]
fn an_empty_set_is_the_unconstrained_dynamics() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (_, h, s, v, r, tau) = quadruped_state(&model);
    let (n, nn, nj) = (model.num_dofs(), model.state_dim(), model.num_joints());
    let set = model.constraints().unwrap();
    assert!(set.is_empty());
    assert_eq!(set.num_rows(), 0);
    let (mut nu, mut nu2) = (vec![0.0; n], vec![0.0; n]);
    ws.constrained_dynamics(&set, Some(&h), &s, Some(&v), &r, &tau, &mut nu, &mut [])
        .unwrap();
    ws.forward_dynamics(Some(&h), &s, Some(&v), &r, &tau, &mut nu2)
        .unwrap();
    assert_eq!(nu, nu2);
    let (mut a, mut b, mut a2, mut b2) = (
        vec![0.0; nn * nn],
        vec![0.0; nn * nj],
        vec![0.0; nn * nn],
        vec![0.0; nn * nj],
    );
    ws.constrained_linearize(
        &set,
        Some(&h),
        &s,
        Some(&v),
        &r,
        &tau,
        &mut a,
        &mut b,
        Some(&mut []),
        Some(&mut []),
    )
    .unwrap();
    ws.linearize(Some(&h), &s, Some(&v), &r, &tau, &mut a2, &mut b2)
        .unwrap();
    assert_eq!((&a, &b), (&a2, &b2));
    for method in [StepMethod::SemiImplicitEuler, StepMethod::Rk4] {
        let next = || ([0.0; 16], vec![0.0; nj], [0.0; 6], vec![0.0; nj]);
        let (mut y, mut y2) = (next(), next());
        ws.constrained_step(
            &set,
            method,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            Some(&mut y.0),
            &mut y.1,
            Some(&mut y.2),
            &mut y.3,
            None,
        )
        .unwrap();
        ws.step(
            method,
            1e-3,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            Some(&mut y2.0),
            &mut y2.1,
            Some(&mut y2.2),
            &mut y2.3,
        )
        .unwrap();
        assert_eq!(y, y2, "{method:?}");
    }
    let (mut v1, mut r1) = ([0.0; 6], vec![0.0; nj]);
    ws.constrained_impulse(
        &set,
        0.0,
        Some(&h),
        &s,
        Some(&v),
        &r,
        Some(&mut v1),
        &mut r1,
        None,
    )
    .unwrap();
    assert_eq!((v1, &r1), (v, &r));
}

#[test]
fn a_coupling_holds_the_accelerations_in_ratio() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let mut ws = model.workspace().unwrap();
    let (_, h, s, v, mut r, tau) = quadruped_state(&model);
    let n = model.num_dofs();
    let (joint, source, ratio) = (4, 1, -0.7);
    let mut set = model.constraints().unwrap();
    assert_eq!(set.add_coupling(joint, source, ratio, 0.05).unwrap(), 0);
    assert_eq!(set.add_mimic_joints().unwrap(), 0); // the quadruped has no <mimic>
    assert_eq!((set.len(), set.num_rows()), (1, 1));
    r[joint] = ratio * r[source]; // the velocity satisfies the coupling; gains are 0
    let (mut nu, mut lambda, mut free) = (vec![0.0; n], [0.0; 1], vec![0.0; n]);
    ws.constrained_dynamics(&set, Some(&h), &s, Some(&v), &r, &tau, &mut nu, &mut lambda)
        .unwrap();
    let scale = max_abs(&nu).max(1.0);
    assert!(
        (nu[6 + joint] - ratio * nu[6 + source]).abs() < 1e-9 * scale,
        "{nu:?}"
    );
    ws.forward_dynamics(Some(&h), &s, Some(&v), &r, &tau, &mut free)
        .unwrap();
    assert!(
        (free[6 + joint] - ratio * free[6 + source]).abs() > 1e-3,
        "held without the set"
    );
    // lambda is the generalized force on joint, -ratio times it on source
    let mut tau2 = tau.clone();
    tau2[joint] += lambda[0];
    tau2[source] -= ratio * lambda[0];
    ws.forward_dynamics(Some(&h), &s, Some(&v), &r, &tau2, &mut free)
        .unwrap();
    assert!(max_abs_diff(&nu, &free) < 1e-9 * scale);
}

#[test]
fn constraint_misuse_names_the_argument_and_adds_nothing() {
    let model = Model::from_urdf_file(quadruped_path(), MOVING_BASE).unwrap();
    let (feet, h, s, v, r, tau) = quadruped_state(&model);
    let f0 = feet[0] as usize;
    let mut set = feet_set(&model, &feet);
    type Add = Box<dyn Fn(&mut Constraints) -> geolin::Result<usize>>;
    let cases: Vec<(Add, &str)> = vec![
        (
            Box::new(move |c| c.add_loop(f0, f0, LoopType::Point)),
            "'frame_b'",
        ),
        (
            Box::new(|c| c.add_contact(1_000_000, ContactType::Rigid, None)),
            "'frame'",
        ),
        (Box::new(|c| c.add_coupling(2, 2, 1.0, 0.0)), "'source'"),
        (
            Box::new(move |c| c.add_wheel(f0, &[0.0, 1.0, 0.0], -0.1)),
            "'radius'",
        ),
        (Box::new(move |c| c.add_wheel(f0, &[0.0; 3], 0.1)), "'axis'"),
        (
            Box::new(|c| c.add_contact(usize::MAX, ContactType::Point, None)),
            "'frame'",
        ),
    ];
    for (call, name) in cases {
        let err = call(&mut set).unwrap_err();
        assert_eq!(err.status(), status::INVALID_ARGUMENT, "{err}");
        assert!(err.message().contains(name), "{name}: {err}");
        assert_eq!((set.len(), set.num_rows()), (4, 12), "nothing added: {err}");
    }
    let err = set.set_gains(-1.0, 0.0).unwrap_err();
    assert!(err.message().contains("'kp'"), "{err}");
    assert_eq!(LoopType::Hinge.rows(), 5);
    assert_eq!(LoopType::Rigid.raw(), geolin::sys::GEOLIN_LOOP_RIGID);

    let mut ws = model.workspace().unwrap();
    let (mut nu, mut lambda) = (vec![0.0; model.num_dofs()], vec![0.0; 12]);
    let other = Model::from_urdf_file(urdf_path(), MOVING_BASE).unwrap();
    let foreign = other.constraints().unwrap(); // a set of another model
    let err = ws
        .constrained_dynamics(&foreign, Some(&h), &s, Some(&v), &r, &tau, &mut nu, &mut [])
        .unwrap_err();
    assert!(err.message().contains("'set'"), "{err}");
    let err = ws // lambda of the wrong length: refused before the call
        .constrained_dynamics(
            &set,
            Some(&h),
            &s,
            Some(&v),
            &r,
            &tau,
            &mut nu,
            &mut lambda[..3],
        )
        .unwrap_err();
    assert!(err.message().contains("'lambda'"), "{err}");
    let mut small = model.workspace_with(WORKSPACE_CONTACTS, 3).unwrap();
    let err = small // rows beyond the workspace's room
        .constrained_dynamics(&set, Some(&h), &s, Some(&v), &r, &tau, &mut nu, &mut lambda)
        .unwrap_err();
    assert!(err.message().contains("max_wrenches"), "{err}");
}
