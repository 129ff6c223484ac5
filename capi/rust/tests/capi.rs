// Integration tests of the safe wrapper against the real library (run by CTest as
// capi_rust_cargo_test, with GEOLIN_LIB_DIR and GEOLIN_TEST_URDF set).
use geolin::{status, Model, FIXED_BASE, MOVING_BASE};

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

#[test]
fn version_matches_header() {
    let (major, minor, _) = geolin::version();
    assert_eq!(major, geolin::sys::GEOLIN_VERSION_MAJOR);
    assert_eq!(minor, geolin::sys::GEOLIN_VERSION_MINOR);
    assert_eq!(geolin::status_string(99), "unknown status");
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
