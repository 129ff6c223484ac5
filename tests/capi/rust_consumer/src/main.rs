//! A user's program: loads a URDF (first argument), linearizes the dynamics at a moving state
//! and checks the input block of B against M⁻¹ (B = [0; M⁻¹ S], docs/dynamics.md §4).
use geolin::{Model, MOVING_BASE};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: geolin_rust_consumer robot.urdf");
    let model = Model::from_urdf_file(&path, MOVING_BASE).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let mut ws = model.workspace().expect("workspace");
    let (nj, n, nn) = (model.num_joints(), model.num_dofs(), model.state_dim());
    let h = [
        1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 1., 1.,
    ];
    let v = [0.1, -0.2, 0.3, 0.2, 0.1, -0.3];
    let s: Vec<f64> = (0..nj).map(|k| 0.3 * ((k + 1) as f64).sin()).collect();
    let r: Vec<f64> = (0..nj).map(|k| 0.2 * ((k + 1) as f64).cos()).collect();
    let tau: Vec<f64> = (0..nj).map(|k| ((2 * k + 1) as f64).sin()).collect();
    let (mut a, mut b) = (vec![0.0; nn * nn], vec![0.0; nn * nj]);
    ws.linearize(Some(&h), &s, Some(&v), &r, &tau, &mut a, &mut b)
        .expect("linearize");
    let mut minv = vec![0.0; n * n];
    ws.mass_matrix_inverse(&s, &mut minv)
        .expect("mass_matrix_inverse");
    // Column k of B, rows n.., is column 6 + k of M⁻¹.
    let mut err: f64 = 0.0;
    for k in 0..nj {
        for i in 0..n {
            err = err.max((b[n + i + nn * k] - minv[i + n * (6 + k)]).abs());
        }
    }
    println!("rust consumer: {path}: n_J = {nj}, N = {nn}, |B - M⁻¹S| = {err:.3e}");
    if err > 1e-9 {
        std::process::exit(1);
    }
}
