//! thimni_scene: the peer side of the SDF collision-point benchmark (Al-Ameri 2025, "Efficient SDF Collision Point
//! Detection", Al-Ameri 2025). Reads a scene of spheres and Menger sponges, finds the pairs whose AABBs overlap
//! with a sort-and-sweep broad phase (here, in the harness: thimni has none; its own benchmarks use an rstar R-tree
//! in the benchmark code), and runs thimni's collision query `SDF::get_coll_point` on every such pair.
//!
//!     thimni_scene SCENE_FILE [--repeats R] [--k K] [--eps E] [--step S] [--iterations N]
//!                  [--packing-iter M] [--min-radius RMIN] [--normal-eps H] [--gradient analytic|fd]
//!                  [--threads T] [--seed SEED]
//!     thimni_scene --version
//!     thimni_scene SCENE_FILE --eval-sdf [--body I] < POINTS   (untimed check of the SDFs: reads "x y z" lines,
//!                                                             prints "d gx gy gz" of body I, default 0, per line)
//!
//! Prints one JSON line on stdout (see README.md). Errors go to stderr with exit status 2.
//!
//! Scene file: text, one body per line, '#' starts a comment, blank lines ignored:
//!     sphere X Y Z R
//!     menger X Y Z HALF_SIZE LEVELS
//!
//! SDFs (f32, as thimni works in f32):
//!   sphere:  d(p) = |p - c| - R,                      AABB c +- R, gradient (p - c)/|p - c|
//!   menger:  d(p) = h * M((p - c) / h, LEVELS),        AABB c +- h, with M Inigo Quilez's Menger sponge
//!            (https://iquilezles.org/articles/menger/), for a sponge filling the cube [-1, 1]^3:
//!              q = |x| - (1,1,1)                        (componentwise)
//!              d = |max(q, 0)| + min(max(q.x, q.y, q.z), 0)          (box of half size 1)
//!              s = 1
//!              repeat LEVELS times:
//!                a = mod(x * s, 2) - 1                 (componentwise; mod(u, 2) = u - 2 floor(u / 2), in [0, 2))
//!                s = 3 s
//!                r = |1 - 3 |a||                       (componentwise)
//!                c = (min(max(r.x, r.y), max(r.y, r.z), max(r.z, r.x)) - 1) / s
//!                d = max(d, c)
//!              M = d
//!            LEVELS = 0 is the plain box. Gradient (analytic, unit length): that of the term that is the max
//!            (first one on ties: box, then the levels in order). Box: if max(q) > 0, sign(x) * max(q,0)/|max(q,0)|,
//!            else sign(x_k) e_k with k the first index of max(q). Level term: its min-of-max selects one component
//!            i of r (the median of r); dc/dx = -sign(1 - 3|a_i|) * sign(a_i) e_i, sign(0) = +1.
//!
//! thimni's query for a pair (A, B) = (lower index, higher index) is A.get_coll_point(&B, &params): it intersects
//! the two AABBs, packs the intersection with spheres (random candidates, `area_percentage` = K coverage of
//! "volume", at most `max_packing_iter` spheres, 25 candidates each, radius >= `minimum_radius`), keeps the spheres
//! whose centre c and radius r have A(c) - r < 0 and B(c) - r < 0, and runs gradient descent on A^2 + B^2 from their
//! centres in order (step `learning_rate`, at most `max_gds_iter` steps, stop when A^2 + B^2 <= `collision_epsilon`);
//! the first descent that converges gives the one point it returns, with B's gradient there. So at most one point
//! per pair. The packing draws from quad-rand's global generator, seeded with SEED before every repetition.

use std::fmt::Write as _;
use std::time::Instant;

use glam::Vec3;
use thimni::sdf::SDF;
use thimni::utils::{CollisionParameters, AABB};

const THIMNI_VERSION: &str = env!("THIMNI_VERSION");
const GLAM_VERSION: &str = env!("GLAM_VERSION");
/// hard-coded in thimni 0.3.4's get_coll_point (the `candidates_per_iter` argument of generate_circles)
const PACKING_CANDIDATES: usize = 25;

#[derive(Copy, Clone, Debug)]
enum Shape {
    Sphere { c: Vec3, r: f32 },
    Menger { c: Vec3, h: f32, levels: u32 },
}

#[inline]
fn sign1(x: f32) -> f32 {
    if x < 0.0 { -1.0 } else { 1.0 }
}

/// GLSL mod(u, 2) = u - 2 floor(u / 2), componentwise
#[inline]
fn mod2(u: Vec3) -> Vec3 {
    u - 2.0 * (u * 0.5).floor()
}

/// Menger sponge filling [-1, 1]^3 (see the header): distance only
#[inline]
fn menger_dist(x: Vec3, levels: u32) -> f32 {
    let q = x.abs() - Vec3::ONE;
    let mut d = q.max(Vec3::ZERO).length() + q.max_element().min(0.0);
    let mut s = 1.0f32;
    for _ in 0..levels {
        let a = mod2(x * s) - Vec3::ONE;
        s *= 3.0;
        let r = (Vec3::ONE - 3.0 * a.abs()).abs();
        let da = r.x.max(r.y);
        let db = r.y.max(r.z);
        let dc = r.z.max(r.x);
        let c = (da.min(db.min(dc)) - 1.0) / s;
        d = d.max(c);
    }
    d
}

/// Menger sponge filling [-1, 1]^3: analytic gradient (of the term that is the max; unit length)
#[inline]
fn menger_grad(x: Vec3, levels: u32) -> Vec3 {
    let q = x.abs() - Vec3::ONE;
    let qp = q.max(Vec3::ZERO);
    let qmax = q.max_element();
    let mut d = qp.length() + qmax.min(0.0);
    let mut g = if qmax > 0.0 {
        Vec3::new(sign1(x.x), sign1(x.y), sign1(x.z)) * qp / qp.length()
    } else {
        let k = if q.x >= q.y && q.x >= q.z { 0 } else if q.y >= q.z { 1 } else { 2 };
        let mut e = Vec3::ZERO;
        e[k] = sign1(x[k]);
        e
    };
    let mut s = 1.0f32;
    for _ in 0..levels {
        let a = mod2(x * s) - Vec3::ONE;
        s *= 3.0;
        let t = Vec3::ONE - 3.0 * a.abs();
        let r = t.abs();
        // the component that min(max(rx,ry), max(ry,rz), max(rz,rx)) takes
        let ia = if r.x >= r.y { 0 } else { 1 };
        let ib = if r.y >= r.z { 1 } else { 2 };
        let ic = if r.z >= r.x { 2 } else { 0 };
        let (mut m, mut i) = (r[ia], ia);
        if r[ib] < m {
            m = r[ib];
            i = ib;
        }
        if r[ic] < m {
            m = r[ic];
            i = ic;
        }
        let c = (m - 1.0) / s;
        if c > d {
            d = c;
            let mut e = Vec3::ZERO;
            e[i] = -sign1(t[i]) * sign1(a[i]);
            g = e;
        }
    }
    g
}

impl Shape {
    #[inline]
    fn dist(&self, p: Vec3) -> f32 {
        match *self {
            Shape::Sphere { c, r } => (p - c).length() - r,
            Shape::Menger { c, h, levels } => h * menger_dist((p - c) / h, levels),
        }
    }

    #[inline]
    fn grad(&self, p: Vec3) -> Vec3 {
        match *self {
            Shape::Sphere { c, .. } => (p - c).normalize_or_zero(),
            Shape::Menger { c, h, levels } => menger_grad((p - c) / h, levels),
        }
    }

    fn aabb(&self) -> (Vec3, Vec3) {
        match *self {
            Shape::Sphere { c, r } => (c - Vec3::splat(r), c + Vec3::splat(r)),
            Shape::Menger { c, h, .. } => (c - Vec3::splat(h), c + Vec3::splat(h)),
        }
    }
}

/// a body with the analytic gradient above
#[derive(Copy, Clone)]
struct Analytic(Shape);
/// a body with thimni's default gradient (forward differences of step `normal_epsilon`, normalised)
#[derive(Copy, Clone)]
struct FiniteDiff(Shape);

impl SDF<3, Vec3> for Analytic {
    #[inline]
    fn dist(&self, p: Vec3) -> f32 {
        self.0.dist(p)
    }
    #[inline]
    fn gradient(&self, p: Vec3, _params: &CollisionParameters) -> Vec3 {
        self.0.grad(p)
    }
    fn aabb(&self) -> AABB<3, Vec3> {
        let (min, max) = self.0.aabb();
        AABB { min, max }
    }
}

impl SDF<3, Vec3> for FiniteDiff {
    #[inline]
    fn dist(&self, p: Vec3) -> f32 {
        self.0.dist(p)
    }
    fn aabb(&self) -> AABB<3, Vec3> {
        let (min, max) = self.0.aabb();
        AABB { min, max }
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("thimni_scene: {msg}");
    std::process::exit(2);
}

fn parse_scene(path: &str) -> Vec<Shape> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("cannot read {path}: {e}")));
    let mut bodies = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        let tok: Vec<&str> = line.split_whitespace().collect();
        if tok.is_empty() {
            continue;
        }
        let num = |i: usize| -> f32 {
            tok.get(i)
                .and_then(|s| s.parse::<f32>().ok())
                .filter(|v| v.is_finite())
                .unwrap_or_else(|| fail(&format!("{path}:{}: bad or missing number {i} in `{}`", n + 1, line.trim())))
        };
        let body = match tok[0] {
            "sphere" if tok.len() == 5 => Shape::Sphere { c: Vec3::new(num(1), num(2), num(3)), r: num(4) },
            "menger" if tok.len() == 6 => {
                let levels = tok[5]
                    .parse::<u32>()
                    .ok()
                    .filter(|&l| l <= 12)
                    .unwrap_or_else(|| fail(&format!("{path}:{}: LEVELS must be an integer 0..12", n + 1)));
                Shape::Menger { c: Vec3::new(num(1), num(2), num(3)), h: num(4), levels }
            }
            _ => fail(&format!(
                "{path}:{}: expected `sphere X Y Z R` or `menger X Y Z HALF_SIZE LEVELS`, got `{}`",
                n + 1,
                line.trim()
            )),
        };
        match body {
            Shape::Sphere { r, .. } if r <= 0.0 => fail(&format!("{path}:{}: radius must be > 0", n + 1)),
            Shape::Menger { h, .. } if h <= 0.0 => fail(&format!("{path}:{}: half size must be > 0", n + 1)),
            _ => {}
        }
        bodies.push(body);
    }
    bodies
}

/// sort-and-sweep on x, strict overlap on all three axes (touching boxes are not a pair, as in thimni, whose
/// intersection returns nothing for a box of zero extent); pairs (i, j) with i < j, in a fixed order
fn broad_phase(boxes: &[(Vec3, Vec3)], order: &mut Vec<usize>, pairs: &mut Vec<(u32, u32)>) {
    order.clear();
    order.extend(0..boxes.len());
    order.sort_unstable_by(|&a, &b| boxes[a].0.x.total_cmp(&boxes[b].0.x).then(a.cmp(&b)));
    pairs.clear();
    for (k, &i) in order.iter().enumerate() {
        let (imin, imax) = boxes[i];
        for &j in &order[k + 1..] {
            let (jmin, jmax) = boxes[j];
            if jmin.x >= imax.x {
                break;
            }
            if imin.y < jmax.y && jmin.y < imax.y && imin.z < jmax.z && jmin.z < imax.z {
                pairs.push(if i < j { (i as u32, j as u32) } else { (j as u32, i as u32) });
            }
        }
    }
}

#[derive(Copy, Clone)]
enum GradMode {
    Analytic,
    FiniteDiff,
}

/// (pair index, point, normal) of every pair with a collision point
type Hit = (usize, Vec3, Vec3);

fn narrow<T: SDF<3, Vec3>>(bodies: &[T], pairs: &[(u32, u32)], offset: usize, params: &CollisionParameters, out: &mut Vec<Hit>) {
    for (k, &(i, j)) in pairs.iter().enumerate() {
        if let Some(res) = bodies[i as usize].get_coll_point(&bodies[j as usize], params) {
            out.push((offset + k, res.point, res.gradient));
        }
    }
}

fn narrow_all<T: SDF<3, Vec3> + Sync>(bodies: &[T], pairs: &[(u32, u32)], params: &CollisionParameters, threads: usize) -> Vec<Hit> {
    let mut hits = Vec::new();
    if threads <= 1 || pairs.len() < 2 {
        narrow(bodies, pairs, 0, params, &mut hits);
        return hits;
    }
    let chunk = pairs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = pairs
            .chunks(chunk)
            .enumerate()
            .map(|(t, part)| {
                s.spawn(move || {
                    let mut out = Vec::new();
                    narrow(bodies, part, t * chunk, params, &mut out);
                    out
                })
            })
            .collect();
        for h in handles {
            hits.extend(h.join().expect("worker panicked"));
        }
    });
    hits
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
}

fn json_f(x: f64) -> String {
    if x.is_finite() { format!("{x}") } else { "null".to_string() }
}

const USAGE: &str = "usage: thimni_scene SCENE_FILE [--repeats R] [--k K] [--eps E] [--step S] [--iterations N] \
[--packing-iter M] [--min-radius RMIN] [--normal-eps H] [--gradient analytic|fd] [--threads T] [--seed SEED]";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--version") {
        println!("thimni {THIMNI_VERSION} glam {GLAM_VERSION}");
        return;
    }
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return;
    }
    let mut params = CollisionParameters::default();
    let mut scene: Option<String> = None;
    let mut repeats: usize = 5;
    let mut threads: usize = 1;
    let mut seed: u64 = 1;
    let mut mode = GradMode::Analytic;
    let mut eval_sdf = false;
    let mut eval_body: usize = 0;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = |name: &str| -> String {
            it.next().cloned().unwrap_or_else(|| fail(&format!("{name} needs a value\n{USAGE}")))
        };
        fn num<T: std::str::FromStr>(name: &str, s: String) -> T {
            s.parse::<T>().unwrap_or_else(|_| fail(&format!("bad value for {name}: {s}")))
        }
        match a.as_str() {
            "--repeats" => repeats = num("--repeats", val(a)),
            "--k" => params.area_percentage = num("--k", val(a)),
            "--eps" => params.collision_epsilon = num("--eps", val(a)),
            "--step" => params.learning_rate = num("--step", val(a)),
            "--iterations" => params.max_gds_iter = num("--iterations", val(a)),
            "--packing-iter" => params.max_packing_iter = num("--packing-iter", val(a)),
            "--min-radius" => params.minimum_radius = num("--min-radius", val(a)),
            "--normal-eps" => params.normal_epsilon = num("--normal-eps", val(a)),
            "--threads" => threads = num("--threads", val(a)),
            "--seed" => seed = num("--seed", val(a)),
            "--eval-sdf" => eval_sdf = true,
            "--body" => eval_body = num("--body", val(a)),
            "--gradient" => {
                mode = match val(a).as_str() {
                    "analytic" => GradMode::Analytic,
                    "fd" => GradMode::FiniteDiff,
                    other => fail(&format!("--gradient must be analytic or fd, not {other}")),
                }
            }
            s if s.starts_with("--") => fail(&format!("unknown option {s}\n{USAGE}")),
            s => {
                if scene.replace(s.to_string()).is_some() {
                    fail(USAGE)
                }
            }
        }
    }
    let scene = scene.unwrap_or_else(|| fail(USAGE));
    if repeats == 0 || threads == 0 {
        fail("--repeats and --threads must be >= 1");
    }

    let shapes = parse_scene(&scene);
    if eval_sdf {
        let body = *shapes.get(eval_body).unwrap_or_else(|| fail("--body: no such body"));
        let mut out = String::new();
        for line in std::io::stdin().lines() {
            let line = line.unwrap_or_else(|e| fail(&format!("stdin: {e}")));
            let v: Vec<f32> = line.split_whitespace().filter_map(|t| t.parse().ok()).collect();
            if v.len() < 3 {
                continue;
            }
            let p = Vec3::new(v[0], v[1], v[2]);
            let g = body.grad(p);
            writeln!(out, "{:.9e} {} {} {}", body.dist(p), g.x, g.y, g.z).unwrap();
        }
        print!("{out}");
        return;
    }
    let boxes: Vec<(Vec3, Vec3)> = shapes.iter().map(|s| s.aabb()).collect();
    let analytic: Vec<Analytic> = shapes.iter().map(|&s| Analytic(s)).collect();
    let fd: Vec<FiniteDiff> = shapes.iter().map(|&s| FiniteDiff(s)).collect();

    let mut order = Vec::with_capacity(shapes.len());
    let mut pairs = Vec::new();
    let mut times_ms = Vec::with_capacity(repeats);
    let mut broad_ms = Vec::with_capacity(repeats);
    let mut hits: Vec<Hit> = Vec::new();
    let mut counts = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        quad_rand::srand(seed);
        let t0 = Instant::now();
        broad_phase(&boxes, &mut order, &mut pairs);
        let t1 = Instant::now();
        hits = match mode {
            GradMode::Analytic => narrow_all(&analytic, &pairs, &params, threads),
            GradMode::FiniteDiff => narrow_all(&fd, &pairs, &params, threads),
        };
        let t2 = Instant::now();
        std::hint::black_box(&hits);
        times_ms.push((t2 - t0).as_secs_f64() * 1e3);
        broad_ms.push((t1 - t0).as_secs_f64() * 1e3);
        counts.push(hits.len());
    }
    let min_ms = times_ms.iter().cloned().fold(f64::INFINITY, f64::min);
    let median_ms = median(&mut times_ms);
    let broad_median_ms = median(&mut broad_ms);

    // quality of the last repetition's points (untimed): residual max(|A(x)|, |B(x)|) at each returned point,
    // and for sphere-sphere pairs the exact answer |c1 - c2| < r1 + r2
    let (mut res_sum, mut res_max, mut inside_both) = (0.0f64, 0.0f64, 0usize);
    let mut hit_flag = vec![false; pairs.len()];
    for &(k, p, _n) in &hits {
        hit_flag[k] = true;
        let (i, j) = pairs[k];
        let (a, b) = (shapes[i as usize].dist(p), shapes[j as usize].dist(p));
        let r = a.abs().max(b.abs()) as f64;
        res_sum += r;
        res_max = res_max.max(r);
        if a <= 0.0 && b <= 0.0 {
            inside_both += 1;
        }
    }
    let (mut sp_pairs, mut sp_true, mut sp_fp, mut sp_fn) = (0usize, 0usize, 0usize, 0usize);
    for (k, &(i, j)) in pairs.iter().enumerate() {
        if let (Shape::Sphere { c: c1, r: r1 }, Shape::Sphere { c: c2, r: r2 }) = (shapes[i as usize], shapes[j as usize]) {
            sp_pairs += 1;
            let truth = (c1 - c2).length() < r1 + r2;
            sp_true += truth as usize;
            sp_fp += (!truth && hit_flag[k]) as usize;
            sp_fn += (truth && !hit_flag[k]) as usize;
        }
    }

    let n_hits = hits.len();
    let mut j = String::new();
    write!(j, "{{\"peer\": \"thimni\", \"thimni_version\": \"{THIMNI_VERSION}\", \"glam_version\": \"{GLAM_VERSION}\"").unwrap();
    write!(j, ", \"scene\": \"{}\"", scene.replace('\\', "\\\\").replace('"', "\\\"")).unwrap();
    write!(j, ", \"bodies\": {}, \"candidate_pairs\": {}, \"colliding_pairs\": {}, \"points\": {}", shapes.len(), pairs.len(), n_hits, n_hits).unwrap();
    write!(j, ", \"median_ms\": {}, \"min_ms\": {}, \"broadphase_median_ms\": {}, \"runs\": {}", json_f(median_ms), json_f(min_ms), json_f(broad_median_ms), repeats).unwrap();
    write!(j, ", \"counts_repeat\": {}", counts.iter().all(|&c| c == counts[0])).unwrap();
    write!(j, ", \"k\": {}, \"eps\": {}, \"step\": {}, \"iterations\": {}", params.area_percentage, params.collision_epsilon, params.learning_rate, params.max_gds_iter).unwrap();
    write!(j, ", \"packing_iter\": {}, \"packing_candidates\": {}, \"min_radius\": {}, \"normal_eps\": {}", params.max_packing_iter, PACKING_CANDIDATES, params.minimum_radius, params.normal_epsilon).unwrap();
    write!(j, ", \"gradient\": \"{}\", \"threads\": {}, \"seed\": {}, \"broad_phase\": \"sort-and-sweep (harness)\", \"max_points_per_pair\": 1",
        match mode { GradMode::Analytic => "analytic", GradMode::FiniteDiff => "fd" }, threads, seed).unwrap();
    let mean_res = if n_hits > 0 { res_sum / n_hits as f64 } else { f64::NAN };
    write!(j, ", \"mean_residual\": {}, \"max_residual\": {}, \"points_inside_both\": {}", json_f(mean_res), if n_hits > 0 { json_f(res_max) } else { "null".into() }, inside_both).unwrap();
    if sp_pairs > 0 {
        write!(j, ", \"sphere_pairs\": {sp_pairs}, \"sphere_pairs_overlapping\": {sp_true}, \"sphere_false_positives\": {sp_fp}, \"sphere_false_negatives\": {sp_fn}").unwrap();
    }
    j.push('}');
    println!("{j}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn menger_known_values() {
        // level 0: the box
        assert_eq!(menger_dist(Vec3::new(2.0, 0.0, 0.0), 0), 1.0);
        assert_eq!(menger_dist(Vec3::ZERO, 0), -1.0);
        // level 1: the centre lies in the cross-shaped tunnels, 1/3 from the nearest solid subcube face
        assert!((menger_dist(Vec3::ZERO, 1) - 1.0 / 3.0).abs() < 1e-6);
        // a corner subcube centre stays solid
        assert!(menger_dist(Vec3::splat(2.0 / 3.0), 1) < 0.0);
        // face centre of the big cube is in a tunnel
        assert!(menger_dist(Vec3::new(0.0, 0.0, 0.99), 1) > 0.0);
        // an edge-midpoint subcube is solid
        assert!(menger_dist(Vec3::new(2.0 / 3.0, 2.0 / 3.0, 0.0), 1) < 0.0);
    }

    #[test]
    fn menger_gradient_matches_differences() {
        quad_rand::srand(7);
        let h = 1e-3f32;
        let (mut ok, mut n) = (0, 0);
        for _ in 0..20000 {
            let x = Vec3::new(quad_rand::gen_range(-1.3, 1.3), quad_rand::gen_range(-1.3, 1.3), quad_rand::gen_range(-1.3, 1.3));
            let g = menger_grad(x, 3);
            let fd = Vec3::new(
                menger_dist(x + Vec3::X * h, 3) - menger_dist(x - Vec3::X * h, 3),
                menger_dist(x + Vec3::Y * h, 3) - menger_dist(x - Vec3::Y * h, 3),
                menger_dist(x + Vec3::Z * h, 3) - menger_dist(x - Vec3::Z * h, 3),
            ) / (2.0 * h);
            n += 1;
            if (g - fd).length() < 1e-2 {
                ok += 1;
            }
            assert!((g.length() - 1.0).abs() < 1e-5);
        }
        // away from the creases (a few percent of random points lie within h of one) they agree
        assert!(ok as f64 > 0.97 * n as f64, "{ok}/{n}");
    }
}
