// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep_nurbs.c: B-spline and NURBS curves and surfaces of the B-Rep model (Crozet 2017, chapter 1
// and §3.3.3; the algorithms of Piegl and Tiller 1997): evaluation with first and second
// derivatives (basis function derivatives, then the quotient rule for the rational form),
// orthogonal projection (Newton's method from seeds), the Bezier pieces between knots (blossoms),
// and the scaled normal surface whose control vectors bound a patch's normals.

#include <math.h>
#include <string.h>

#include "brep_internal.h"
#include "osculate/math.h"

enum { MAXP = OSC_BREP_MAX_DEGREE + 1 };

// The knot span k (knots[k] <= t < knots[k + 1], a non-empty span in [p, count - 1]) holding t;
// t outside the range takes the first or last span.
static int find_span(const double* U, int p, int count, double t) {
    if (!(t < U[count])) {
        int k = count - 1;
        while (k > p && !(U[k] < U[k + 1])) k--;
        return k;
    }
    if (!(t >= U[p])) {
        int k = p;
        while (k < count - 1 && !(U[k] < U[k + 1])) k++;
        return k;
    }
    int lo = p, hi = count; // U[lo] <= t < U[hi]
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (t < U[mid])
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

// The non-zero basis functions N_{k-p+j,p}(t) and their derivatives up to order nd (<= 2) at t in
// span k: ders[d][j] (Piegl and Tiller, Algorithm A2.3).
static void basis_ders(const double* U, int p, int k, double t, int nd, double ders[3][MAXP]) {
    double ndu[MAXP][MAXP], left[MAXP], right[MAXP], a[2][MAXP];
    ndu[0][0] = 1.0;
    for (int j = 1; j <= p; j++) {
        left[j] = t - U[k + 1 - j];
        right[j] = U[k + j] - t;
        double saved = 0.0;
        for (int r = 0; r < j; r++) {
            ndu[j][r] = right[r + 1] + left[j - r];
            double temp = ndu[r][j - 1] / ndu[j][r];
            ndu[r][j] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        ndu[j][j] = saved;
    }
    for (int j = 0; j <= p; j++) ders[0][j] = ndu[j][p];
    for (int d = 1; d <= nd; d++)
        for (int j = 0; j <= p; j++) ders[d][j] = 0.0;
    if (nd > p) nd = p;
    for (int r = 0; r <= p; r++) {
        int s1 = 0, s2 = 1;
        a[0][0] = 1.0;
        for (int d = 1; d <= nd; d++) {
            double sum = 0.0;
            int rk = r - d, pk = p - d;
            if (r >= d) {
                a[s2][0] = a[s1][0] / ndu[pk + 1][rk];
                sum = a[s2][0] * ndu[rk][pk];
            }
            int j1 = rk >= -1 ? 1 : -rk, j2 = r - 1 <= pk ? d - 1 : p - r;
            for (int j = j1; j <= j2; j++) {
                a[s2][j] = (a[s1][j] - a[s1][j - 1]) / ndu[pk + 1][rk + j];
                sum += a[s2][j] * ndu[rk + j][pk];
            }
            if (r <= pk) {
                a[s2][d] = -a[s1][d - 1] / ndu[pk + 1][r];
                sum += a[s2][d] * ndu[r][pk];
            }
            ders[d][r] = sum;
            int tmp = s1;
            s1 = s2;
            s2 = tmp;
        }
    }
    double factor = p;
    for (int d = 1; d <= nd; d++) {
        for (int j = 0; j <= p; j++) ders[d][j] *= factor;
        factor *= p - d;
    }
}

static osc_vec3 v3(const double* h) { return osc_v3(h[0], h[1], h[2]); }

// S = A / w and its derivatives from those of the homogeneous point (A, w) (the quotient rule:
// S_i = (A_i - w_i S) / w, S_ij = (A_ij - w_i S_j - w_j S_i - w_ij S) / w).
void osc_nurbs_eval(const osc_nurbs* n, const double* t, osc_vec3* p, osc_vec3* d1, osc_vec3* d2) {
    int nd = d2 ? 2 : (d1 ? 1 : 0);
    double Nu[3][MAXP], Nv[3][MAXP];
    int pu = n->degree[0], ku = find_span(n->knots[0], pu, n->count[0], t[0]);
    basis_ders(n->knots[0], pu, ku, t[0], nd, Nu);
    if (n->dim == 1) {
        double A[3][4] = {{0}};
        for (int j = 0; j <= pu; j++) {
            const double* c = n->cw + 4 * (ku - pu + j);
            for (int d = 0; d <= nd; d++)
                for (int m = 0; m < 4; m++) A[d][m] += Nu[d][j] * c[m];
        }
        double w = A[0][3];
        osc_vec3 s = osc_scale(v3(A[0]), 1.0 / w);
        *p = s;
        if (nd < 1) return;
        osc_vec3 s1 = osc_scale(osc_sub(v3(A[1]), osc_scale(s, A[1][3])), 1.0 / w);
        if (d1) d1[0] = s1;
        if (nd < 2) return;
        d2[0] = osc_scale(osc_sub(osc_sub(v3(A[2]), osc_scale(s1, 2.0 * A[1][3])), osc_scale(s, A[2][3])), 1.0 / w);
        return;
    }
    int pv = n->degree[1], kv = find_span(n->knots[1], pv, n->count[1], t[1]);
    basis_ders(n->knots[1], pv, kv, t[1], nd, Nv);
    // A[a][b]: d^a/du^a d^b/dv^b of the homogeneous point, a + b <= nd
    double A[3][3][4] = {{{0}}};
    int stride = n->count[1];
    for (int i = 0; i <= pu; i++) {
        double T[3][4] = {{0}};
        const double* row = n->cw + 4 * ((size_t)(ku - pu + i) * stride + (kv - pv));
        for (int j = 0; j <= pv; j++)
            for (int b = 0; b <= nd; b++)
                for (int m = 0; m < 4; m++) T[b][m] += Nv[b][j] * row[4 * j + m];
        for (int a = 0; a <= nd; a++)
            for (int b = 0; a + b <= nd; b++)
                for (int m = 0; m < 4; m++) A[a][b][m] += Nu[a][i] * T[b][m];
    }
    double w = A[0][0][3];
    osc_vec3 s = osc_scale(v3(A[0][0]), 1.0 / w);
    *p = s;
    if (nd < 1) return;
    osc_vec3 su = osc_scale(osc_sub(v3(A[1][0]), osc_scale(s, A[1][0][3])), 1.0 / w);
    osc_vec3 sv = osc_scale(osc_sub(v3(A[0][1]), osc_scale(s, A[0][1][3])), 1.0 / w);
    if (d1) {
        d1[0] = su;
        d1[1] = sv;
    }
    if (nd < 2) return;
    double wu = A[1][0][3], wv = A[0][1][3];
    d2[0] = osc_scale(osc_sub(osc_sub(v3(A[2][0]), osc_scale(su, 2.0 * wu)), osc_scale(s, A[2][0][3])), 1.0 / w);
    d2[1] = osc_scale(
        osc_sub(osc_sub(osc_sub(v3(A[1][1]), osc_scale(su, wv)), osc_scale(sv, wu)), osc_scale(s, A[1][1][3])),
        1.0 / w);
    d2[2] = osc_scale(osc_sub(osc_sub(v3(A[0][2]), osc_scale(sv, 2.0 * wv)), osc_scale(s, A[0][2][3])), 1.0 / w);
}

osc_vec3 osc_nurbs_normal(const osc_nurbs* n, double u, double v) {
    double t[2] = {u, v};
    osc_vec3 p, d1[2], d2[3];
    osc_nurbs_eval(n, t, &p, d1, d2);
    osc_vec3 c = osc_cross(d1[0], d1[1]);
    double lu = osc_length(d1[0]), lv = osc_length(d1[1]), lc = osc_length(c);
    if (lc > 1e-12 * lu * lv && lc > 0.0) return osc_scale(c, 1.0 / lc);
    // a pole: S_u (or S_v) vanishes along an end of the range; S_u(u, v + h) ~ h S_uv there, so the
    // limit from inside is the sign of h times S_uv x S_v (or S_u x S_uv)
    osc_vec3 m;
    if (lu <= lv) {
        double h = fabs(v - n->lo[1]) <= fabs(v - n->hi[1]) ? 1.0 : -1.0;
        m = osc_scale(osc_cross(d2[1], d1[1]), h);
    } else {
        double h = fabs(u - n->lo[0]) <= fabs(u - n->hi[0]) ? 1.0 : -1.0;
        m = osc_scale(osc_cross(d1[0], d2[1]), h);
    }
    double lm = osc_length(m);
    return lm > 0.0 ? osc_scale(m, 1.0 / lm) : osc_v3(0, 0, 1);
}

// ---- projection ---------------------------------------------------------------------------------

static double clampd(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

// t in the range: clamped, or wrapped in a closed direction
static double into_range(const osc_nurbs* n, int k, double t) {
    if (!n->closed[k]) return clampd(t, n->lo[k], n->hi[k]);
    double period = n->hi[k] - n->lo[k], w = fmod(t - n->lo[k], period);
    if (w < 0.0) w += period;
    return n->lo[k] + w;
}

// Newton's method with Levenberg-Marquardt damping on f = |S(t) - x|^2 / 2 over the parameter box
// (steps clamped to it); returns the final f and adds its evaluations of S to *evaluations.
static double project_newton(const osc_nurbs* n, osc_vec3 x, double* t, int* evaluations) {
    int dim = n->dim;
    for (int k = 0; k < dim; k++) t[k] = into_range(n, k, t[k]);
    osc_vec3 p, d1[2], d2[3];
    osc_nurbs_eval(n, t, &p, d1, d2);
    ++*evaluations;
    osc_vec3 r = osc_sub(p, x);
    double f = 0.5 * osc_dot(r, r), mu = 0.0;
    for (int it = 0; it < 50; it++) {
        double g[2], H[2][2];
        for (int i = 0; i < dim; i++) {
            g[i] = osc_dot(d1[i], r);
            for (int j = 0; j < dim; j++) H[i][j] = osc_dot(d1[i], d1[j]);
        }
        if (dim == 1) {
            H[0][0] += osc_dot(r, d2[0]);
        } else {
            H[0][0] += osc_dot(r, d2[0]);
            H[0][1] += osc_dot(r, d2[1]);
            H[1][0] += osc_dot(r, d2[1]);
            H[1][1] += osc_dot(r, d2[2]);
        }
        // converged: the gradient, less its components pushing out of the box, is negligible
        double gn = 0.0, scale = 0.0;
        for (int i = 0; i < dim; i++) {
            bool blocked = !n->closed[i] && ((t[i] <= n->lo[i] && g[i] > 0.0) || (t[i] >= n->hi[i] && g[i] < 0.0));
            if (!blocked) gn += g[i] * g[i];
            scale += osc_dot(d1[i], d1[i]);
        }
        if (gn <= 1e-28 * scale * (2.0 * f) || f == 0.0) break;
        double trace = fabs(H[0][0]) + (dim == 2 ? fabs(H[1][1]) : 0.0) + 1e-300;
        bool moved = false;
        for (int tries = 0; tries < 30 && !moved; tries++) {
            double step[2], a = H[0][0] + mu;
            if (dim == 1) {
                if (!(a > 1e-14 * trace)) {
                    mu = mu > 0.0 ? 8.0 * mu : 1e-9 * trace;
                    continue;
                }
                step[0] = -g[0] / a;
            } else {
                double b = H[0][1], d = H[1][1] + mu, det = a * d - b * b;
                if (!(a > 1e-14 * trace) || !(det > 1e-14 * trace * trace)) {
                    mu = mu > 0.0 ? 8.0 * mu : 1e-9 * trace;
                    continue;
                }
                step[0] = -(d * g[0] - b * g[1]) / det;
                step[1] = -(a * g[1] - b * g[0]) / det;
            }
            double tn[2] = {t[0], dim == 2 ? t[1] : 0.0};
            for (int i = 0; i < dim; i++) tn[i] = into_range(n, i, t[i] + step[i]);
            osc_vec3 pn, e1[2], e2[3];
            osc_nurbs_eval(n, tn, &pn, e1, e2);
            ++*evaluations;
            osc_vec3 rn = osc_sub(pn, x);
            double fn = 0.5 * osc_dot(rn, rn);
            if (fn <= f) {
                bool same = tn[0] == t[0] && (dim == 1 || tn[1] == t[1]);
                for (int i = 0; i < dim; i++) t[i] = tn[i];
                p = pn;
                r = rn;
                d1[0] = e1[0];
                d1[1] = e1[1];
                d2[0] = e2[0];
                d2[1] = e2[1];
                d2[2] = e2[2];
                f = fn;
                mu *= 0.25;
                if (mu < 1e-16 * trace) mu = 0.0;
                moved = !same;
                if (same) tries = 30;
            } else {
                mu = mu > 0.0 ? 8.0 * mu : 1e-9 * trace;
            }
        }
        if (!moved) break;
    }
    return f;
}

int osc_nurbs_project(const osc_nurbs* n, osc_vec3 x, const double* hint, double* t) {
    int evaluations = 0;
    return osc_nurbs_project_counted(n, x, hint, t, &evaluations);
}

int osc_nurbs_project_counted(const osc_nurbs* n, osc_vec3 x, const double* hint, double* t, int* evaluations) {
    int dim = n->dim;
    double f_hint = INFINITY;
    if (hint) {
        t[0] = hint[0];
        if (dim == 2) t[1] = hint[1];
        f_hint = project_newton(n, x, t, evaluations);
    }
    // without a hint, or when the hint led to a point off the curve or surface (x on it is what
    // importers ask for), from the seeds
    if (!(f_hint <= 0.5 * 1e-8 * n->extent * n->extent)) { // (within 1e-4 of its size)
        double kept[2] = {t[0], dim == 2 ? t[1] : 0.0};
        // the three nearest seeds, each refined
        int best[3] = {-1, -1, -1};
        double dist[3] = {INFINITY, INFINITY, INFINITY};
        int seeds = n->seed_count[0] * n->seed_count[1];
        for (int i = 0; i < seeds; i++) {
            double d = osc_length_squared(osc_sub(n->seed_point[i], x));
            for (int k = 0; k < 3; k++)
                if (d < dist[k]) {
                    for (int m = 2; m > k; m--) {
                        dist[m] = dist[m - 1];
                        best[m] = best[m - 1];
                    }
                    dist[k] = d;
                    best[k] = i;
                    break;
                }
        }
        double fbest = f_hint;
        for (int k = 0; k < 3 && best[k] >= 0; k++) {
            double tk[2] = {n->seed_param[2 * best[k]], n->seed_param[2 * best[k] + 1]};
            double f = project_newton(n, x, tk, evaluations);
            if (f < fbest) {
                fbest = f;
                kept[0] = tk[0];
                kept[1] = tk[1];
            }
        }
        t[0] = kept[0];
        if (dim == 2) t[1] = kept[1];
    }
    if (dim == 1) return 1;
    osc_vec3 p, d1[2];
    osc_nurbs_eval(n, t, &p, d1, NULL);
    ++*evaluations;
    double lu = osc_length(d1[0]), lv = osc_length(d1[1]);
    return !(fmin(lu, lv) <= 1e-9 * fmax(lu, lv));
}

// ---- Bezier pieces ------------------------------------------------------------------------------

// The blossom of the piece of a B-spline in span k at the p arguments `args`: de Boor's algorithm
// with argument r at level r (Ramshaw 1987), on homogeneous points `ctrl` [p + 1][4] (the span's
// control points, stride `stride` doubles between consecutive points).
static void blossom(const double* U, int p, int k, const double* ctrl, size_t stride, const double* args, double* out) {
    double d[MAXP][4];
    for (int j = 0; j <= p; j++) memcpy(d[j], ctrl + stride * j, sizeof d[j]);
    for (int r = 1; r <= p; r++)
        for (int j = p; j >= r; j--) {
            double lo = U[k - p + j], hi = U[k + 1 + j - r];
            double alpha = hi > lo ? (args[r - 1] - lo) / (hi - lo) : 0.0;
            for (int m = 0; m < 4; m++) d[j][m] = (1.0 - alpha) * d[j - 1][m] + alpha * d[j][m];
        }
    memcpy(out, d[p], 4 * sizeof(double));
}

// Bezier point i of [a, b]: the blossom at (a, ..., a, b, ..., b) with i b's.
static void bezier_points(const double* U, int p, int k, const double* ctrl, size_t stride, double a, double b,
                          double* out, size_t out_stride) {
    double args[MAXP];
    for (int i = 0; i <= p; i++) {
        for (int r = 0; r < p; r++) args[r] = r < p - i ? a : b;
        blossom(U, p, k, ctrl, stride, args, out + out_stride * i);
    }
}

void osc_nurbs_bezier(const osc_nurbs* n, const double* a, const double* b, double* out) {
    int p = n->degree[0];
    int ku = find_span(n->knots[0], p, n->count[0], 0.5 * (a[0] + b[0]));
    if (n->dim == 1) {
        bezier_points(n->knots[0], p, ku, n->cw + 4 * (ku - p), 4, a[0], b[0], out, 4);
        return;
    }
    int q = n->degree[1], stride = n->count[1];
    int kv = find_span(n->knots[1], q, n->count[1], 0.5 * (a[1] + b[1]));
    // in u for each of the span's q + 1 columns, then in v for each of the p + 1 rows
    double cols[MAXP][MAXP][4]; // [j][i]
    for (int j = 0; j <= q; j++)
        bezier_points(n->knots[0], p, ku, n->cw + 4 * ((size_t)(ku - p) * stride + (kv - q + j)), 4 * (size_t)stride,
                      a[0], b[0], cols[j][0], 4);
    for (int i = 0; i <= p; i++) {
        double row[MAXP][4];
        for (int j = 0; j <= q; j++) memcpy(row[j], cols[j][i], sizeof row[j]);
        // the row's points are Bezier in u already; in v they are the B-spline's control points of
        // span kv (the blossom is affine in each argument, so the two passes commute)
        bezier_points(n->knots[1], q, kv, row[0], 4, a[1], b[1], out + 4 * (size_t)i * (q + 1), 4);
    }
}

// ---- the scaled normal surface (Crozet 2017 §3.3.3) ---------------------------------------------

// The binomial coefficients C(n, 0..n) into row [n + 1].
static void binomial_row(int n, double* row) {
    row[0] = 1.0;
    for (int k = 1; k <= n; k++) row[k] = row[k - 1] * (n - k + 1) / k;
}

enum { MAXB = 3 * OSC_BREP_MAX_DEGREE + 1 };

// c += a b in the Bernstein basis: a [am + 1][an + 1] of ac components (1 or 3), b [bm + 1][bn + 1]
// of 3 components, c [am + bm + 1][an + bn + 1][3]; the product is a scalar times a vector (ac = 1)
// or a cross product (ac = 3). B_i^m B_k^n = C(m, i) C(n, k) / C(m + n, i + k) B_{i+k}^{m+n}.
static void bernstein_product(const double* a, int am, int an, int ac, const double* b, int bm, int bn, double* c) {
    int cm = am + bm, cn = an + bn;
    double ram[MAXB], ran[MAXB], rbm[MAXB], rbn[MAXB], rcm[MAXB], rcn[MAXB];
    binomial_row(am, ram);
    binomial_row(an, ran);
    binomial_row(bm, rbm);
    binomial_row(bn, rbn);
    binomial_row(cm, rcm);
    binomial_row(cn, rcn);
    for (int k = 0; k <= cm; k++) rcm[k] = 1.0 / rcm[k];
    for (int k = 0; k <= cn; k++) rcn[k] = 1.0 / rcn[k];
    for (int i = 0; i <= am; i++)
        for (int j = 0; j <= an; j++) {
            const double* x = a + ac * (i * (an + 1) + j);
            double fa = ram[i] * ran[j];
            for (int k = 0; k <= bm; k++) {
                double fk = fa * rbm[k] * rcm[i + k];
                const double* yrow = b + 3 * (k * (bn + 1));
                double* zrow = c + 3 * ((i + k) * (cn + 1) + j);
                for (int l = 0; l <= bn; l++) {
                    const double* y = yrow + 3 * l;
                    double f = fk * rbn[l] * rcn[j + l];
                    double* z = zrow + 3 * l;
                    if (ac == 1) {
                        z[0] += f * x[0] * y[0];
                        z[1] += f * x[0] * y[1];
                        z[2] += f * x[0] * y[2];
                    } else {
                        z[0] += f * (x[1] * y[2] - x[2] * y[1]);
                        z[1] += f * (x[2] * y[0] - x[0] * y[2]);
                        z[2] += f * (x[0] * y[1] - x[1] * y[0]);
                    }
                }
            }
        }
}

size_t osc_nurbs_normal_work(int p, int q) {
    size_t pts = (size_t)(p + 1) * (q + 1);
    // A, Au, Av (3 each), W, Wu, Wv, two cross products of at most (2p + 1)(2q + 1) vectors
    return 3 * 3 * pts + 3 * pts + 2 * 3 * (size_t)(2 * p + 1) * (2 * q + 1);
}

// The direction of S_u x S_v for S = A / w (derivation in docs/lmd.md): S_u = (A_u w - A w_u) / w^2,
// so S_u x S_v = (w / w^4) (w A_u x A_v + w_v A x A_u + w_u A_v x A), a polynomial patch of degree
// (3p - 1, 3q - 1) times the positive w^-3; polynomial patches: A_u x A_v, degree (2p - 1, 2q - 1).
int osc_nurbs_normal_net(const double* cw, int p, int q, int rational, double* work, double* out) {
    size_t pts = (size_t)(p + 1) * (q + 1);
    double *A = work, *Au = A + 3 * pts, *Av = Au + 3 * pts, *W = Av + 3 * pts, *Wu = W + pts, *Wv = Wu + pts;
    double *C1 = Wv + pts, *C2 = C1 + 3 * (size_t)(2 * p + 1) * (2 * q + 1);
    for (size_t i = 0; i < pts; i++) {
        for (int m = 0; m < 3; m++) A[3 * i + m] = cw[4 * i + m];
        W[i] = cw[4 * i + 3];
    }
    // derivatives of the Bernstein form: Au [p][q + 1], Av [p + 1][q]
    for (int i = 0; i < p; i++)
        for (int j = 0; j <= q; j++) {
            for (int m = 0; m < 3; m++)
                Au[3 * (i * (q + 1) + j) + m] = p * (A[3 * ((i + 1) * (q + 1) + j) + m] - A[3 * (i * (q + 1) + j) + m]);
            Wu[i * (q + 1) + j] = p * (W[(i + 1) * (q + 1) + j] - W[i * (q + 1) + j]);
        }
    for (int i = 0; i <= p; i++)
        for (int j = 0; j < q; j++) {
            for (int m = 0; m < 3; m++)
                Av[3 * (i * q + j) + m] = q * (A[3 * (i * (q + 1) + j + 1) + m] - A[3 * (i * (q + 1) + j) + m]);
            Wv[i * q + j] = q * (W[i * (q + 1) + j + 1] - W[i * (q + 1) + j]);
        }
    if (!rational) {
        int count = 2 * p * 2 * q;
        memset(out, 0, 3 * (size_t)count * sizeof(double));
        bernstein_product(Au, p - 1, q, 3, Av, p, q - 1, out);
        return count;
    }
    int count = 3 * p * 3 * q;
    memset(out, 0, 3 * (size_t)count * sizeof(double));
    // w (A_u x A_v)
    memset(C1, 0, 3 * (size_t)(2 * p) * (2 * q) * sizeof(double));
    bernstein_product(Au, p - 1, q, 3, Av, p, q - 1, C1);
    bernstein_product(W, p, q, 1, C1, 2 * p - 1, 2 * q - 1, out);
    // w_v (A x A_u)
    memset(C2, 0, 3 * (size_t)(2 * p) * (2 * q + 1) * sizeof(double));
    bernstein_product(A, p, q, 3, Au, p - 1, q, C2);
    bernstein_product(Wv, p, q - 1, 1, C2, 2 * p - 1, 2 * q, out);
    // w_u (A_v x A)
    memset(C2, 0, 3 * (size_t)(2 * p + 1) * (2 * q) * sizeof(double));
    bernstein_product(Av, p, q - 1, 3, A, p, q, C2);
    bernstein_product(Wu, p - 1, q, 1, C2, 2 * p, 2 * q - 1, out);
    return count;
}

double osc_vectors_cone(const double* v, int count, osc_vec3* axis) {
    double largest = 0.0;
    for (int i = 0; i < count; i++) largest = fmax(largest, osc_length(v3(v + 3 * i)));
    osc_vec3 sum = osc_v3(0, 0, 0);
    double tiny = 1e-13 * largest;
    for (int i = 0; i < count; i++) {
        osc_vec3 x = v3(v + 3 * i);
        double l = osc_length(x);
        if (l > tiny) sum = osc_add_scaled(sum, x, 1.0 / l);
    }
    double ls = osc_length(sum);
    *axis = osc_v3(0, 0, 1);
    if (!(largest > 0.0) || !(ls > 1e-9)) return k_pi;
    *axis = osc_scale(sum, 1.0 / ls);
    double lowest = 1.0;
    for (int i = 0; i < count; i++) {
        osc_vec3 x = v3(v + 3 * i);
        double l = osc_length(x);
        if (l > tiny) lowest = fmin(lowest, osc_dot(x, *axis) / l);
    }
    if (!(lowest > 0.0)) return k_pi;
    return acos(fmin(lowest, 1.0));
}

// ---- the model's B-splines ----------------------------------------------------------------------

static bool finite_within(double x) { return isfinite(x) && fabs(x) <= OSC_BREP_MAX_LENGTH; }

// The knot vector of direction k of entry i: non-decreasing, finite, interior multiplicities at most
// the degree, a non-empty range.
static osc_status check_knots(const double* U, int p, int count, int i, int k) {
    const char* fn = "osc_brep_create";
    int total = count + p + 1;
    for (int j = 0; j < total; j++) {
        if (!finite_within(U[j]))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs[%d] knot %d in %c (%g) is not finite or beyond %g", fn,
                            i, j, "uv"[k], U[j], OSC_BREP_MAX_LENGTH);
        if (j > 0 && U[j] < U[j - 1])
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs[%d] knots in %c decrease at %d (%g < %g)", fn, i,
                            "uv"[k], j, U[j], U[j - 1]);
    }
    for (int j = p + 1; j < count; j++) {
        int m = 1;
        while (j + m < count && U[j + m] == U[j]) m++;
        if (m > p)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: nurbs[%d] interior knot %g in %c repeats %d times, more than the degree %d", fn, i,
                            U[j], "uv"[k], m, p);
        j += m - 1;
    }
    if (!(U[count] > U[p]))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs[%d] has an empty parameter range in %c", fn, i, "uv"[k]);
    return OSC_OK;
}

osc_status osc_brep_check_nurbs(const osc_brep_desc* d) {
    const char* fn = "osc_brep_create";
    if (d->nurbs_count < 0 || d->control_point_count < 0 || d->real_count < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs_count, control_point_count and real_count must be >= 0",
                        fn);
    if ((d->nurbs_count > 0 && !d->nurbs) || (d->control_point_count > 0 && !d->control_points) ||
        (d->real_count > 0 && !d->reals))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: desc->nurbs, control_points or reals is NULL with a count", fn);
    for (int i = 0; i < d->control_point_count; i++) {
        osc_vec3 x = d->control_points[i];
        if (!finite_within(x.x) || !finite_within(x.y) || !finite_within(x.z))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: control_points[%d] (%g, %g, %g) is not finite or beyond %g",
                            fn, i, x.x, x.y, x.z, OSC_BREP_MAX_LENGTH);
    }
    for (int i = 0; i < d->nurbs_count; i++) {
        const osc_brep_nurbs* n = &d->nurbs[i];
        int surface = n->degree[1] != 0;
        for (int k = 0; k < 1 + surface; k++)
            if (n->degree[k] < 1 || n->degree[k] > OSC_BREP_MAX_DEGREE || n->count[k] < n->degree[k] + 1 ||
                n->count[k] > (1 << 24))
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "%s: nurbs[%d] degree %d with %d control points in %c: the degree must lie in [1, %d] "
                                "and the points number degree + 1 to 2^24",
                                fn, i, n->degree[k], n->count[k], "uv"[k], OSC_BREP_MAX_DEGREE);
        if (!surface && (n->degree[1] != 0 || n->count[1] != 1))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs[%d] is a curve (degree[1] 0) with count[1] %d != 1",
                            fn, i, n->count[1]);
        long long points = (long long)n->count[0] * n->count[1];
        long long knots =
            (long long)n->count[0] + n->degree[0] + 1 + (surface ? (long long)n->count[1] + n->degree[1] + 1 : 0);
        if (n->point_begin < 0 || n->point_begin > (long long)d->control_point_count - points)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs[%d] control points (%d..+%lld) are out of range", fn,
                            i, n->point_begin, points);
        if (n->knot_begin < 0 || n->knot_begin > (long long)d->real_count - knots)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs[%d] knots (%d..+%lld) are out of range", fn, i,
                            n->knot_begin, knots);
        if (n->weight_begin != -1 && (n->weight_begin < 0 || n->weight_begin > (long long)d->real_count - points))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs[%d] weights (%d..+%lld) are out of range", fn, i,
                            n->weight_begin, points);
        for (long long j = 0; n->weight_begin >= 0 && j < points; j++) {
            double w = d->reals[n->weight_begin + j];
            if (!(w > 1e-12 && w < 1e12))
                return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: nurbs[%d] weight %lld (%g) is outside (1e-12, 1e12)", fn,
                                i, j, w);
        }
        osc_status st = check_knots(d->reals + n->knot_begin, n->degree[0], n->count[0], i, 0);
        if (st == OSC_OK && surface)
            st =
                check_knots(d->reals + n->knot_begin + n->count[0] + n->degree[0] + 1, n->degree[1], n->count[1], i, 1);
        if (st != OSC_OK) return st;
    }
    return OSC_OK;
}

// The seeds of a projection: an even grid over the parameter range, about two points per knot span
// and 5 to 24 along each direction.
static int seed_count(const osc_nurbs* n, int k) {
    if (k >= n->dim) return 1;
    int spans = 0;
    for (int j = n->degree[k]; j < n->count[k]; j++) spans += n->knots[k][j + 1] > n->knots[k][j];
    int c = 2 * spans + 1;
    return c < 5 ? 5 : (c > 24 ? 24 : c);
}

static double seed_param(const osc_nurbs* n, int k, int j, int m) {
    return n->lo[k] + (n->hi[k] - n->lo[k]) * j / (m - 1);
}

size_t osc_nurbs_storage(const osc_brep_nurbs* e) {
    osc_nurbs n;
    memset(&n, 0, sizeof n);
    n.dim = e->degree[1] != 0 ? 2 : 1;
    n.count[0] = e->count[0];
    n.count[1] = n.dim == 2 ? e->count[1] : 1;
    // (seed counts depend on the knots: bounded by 24 x 24)
    return 4 * (size_t)n.count[0] * n.count[1] + 5 * 24 * 24;
}

void osc_nurbs_init(osc_nurbs* n, const osc_brep_nurbs* e, const osc_vec3* control_points, const double* reals,
                    double* storage) {
    memset(n, 0, sizeof *n);
    n->dim = e->degree[1] != 0 ? 2 : 1;
    for (int k = 0; k < 2; k++) {
        n->degree[k] = k < n->dim ? e->degree[k] : 0;
        n->count[k] = k < n->dim ? e->count[k] : 1;
    }
    n->knots[0] = reals + e->knot_begin;
    n->knots[1] = n->dim == 2 ? n->knots[0] + n->count[0] + n->degree[0] + 1 : NULL;
    for (int k = 0; k < 2; k++) {
        n->lo[k] = k < n->dim ? n->knots[k][n->degree[k]] : 0.0;
        n->hi[k] = k < n->dim ? n->knots[k][n->count[k]] : 0.0;
    }
    size_t points = (size_t)n->count[0] * n->count[1];
    double extent = 0.0;
    for (size_t j = 0; j < points; j++) {
        double w = e->weight_begin >= 0 ? reals[e->weight_begin + j] : 1.0;
        osc_vec3 x = control_points[e->point_begin + j];
        storage[4 * j] = w * x.x;
        storage[4 * j + 1] = w * x.y;
        storage[4 * j + 2] = w * x.z;
        storage[4 * j + 3] = w;
        n->rational |= w != 1.0;
        extent = fmax(extent, osc_length(osc_sub(x, control_points[e->point_begin])));
    }
    n->extent = extent;
    n->cw = storage;
    // closed directions: the first and last rows (columns) of points coincide
    for (int k = 0; k < n->dim; k++) {
        int rows = n->count[k], other = n->count[1 - k];
        if (n->dim == 1) other = 1;
        double gap = 0.0;
        for (int j = 0; j < other; j++) {
            size_t first = k == 0 ? (size_t)j : (size_t)j * n->count[1];
            size_t last = k == 0 ? (size_t)(rows - 1) * n->count[1] + j : (size_t)j * n->count[1] + rows - 1;
            gap = fmax(gap, osc_length(osc_sub(control_points[e->point_begin + first],
                                               control_points[e->point_begin + last])));
        }
        n->closed[k] = gap <= 1e-10 * extent;
    }
    n->seed_count[0] = seed_count(n, 0);
    n->seed_count[1] = seed_count(n, 1);
    size_t seeds = (size_t)n->seed_count[0] * n->seed_count[1];
    double* params = storage + 4 * points;
    osc_vec3* pts = (osc_vec3*)(params + 2 * seeds);
    for (int a = 0; a < n->seed_count[0]; a++)
        for (int c = 0; c < n->seed_count[1]; c++) {
            size_t i = (size_t)a * n->seed_count[1] + c;
            params[2 * i] = seed_param(n, 0, a, n->seed_count[0]);
            params[2 * i + 1] = n->dim == 2 ? seed_param(n, 1, c, n->seed_count[1]) : 0.0;
            osc_nurbs_eval(n, params + 2 * i, &pts[i], NULL, NULL);
        }
    n->seed_param = params;
    n->seed_point = pts;
}

osc_status osc_brep_build_nurbs(osc_brep* b) {
    const osc_brep_desc* d = &b->desc;
    if (d->nurbs_count == 0) return OSC_OK;
    b->nurbs = osc_calloc((size_t)d->nurbs_count, sizeof(osc_nurbs));
    if (!b->nurbs) return OSC_ERR_NO_MEMORY;
    size_t total = 0;
    for (int i = 0; i < d->nurbs_count; i++) total += osc_nurbs_storage(&d->nurbs[i]);
    b->nurbs_data = osc_calloc(total, sizeof(double));
    if (!b->nurbs_data) return OSC_ERR_NO_MEMORY;
    double* at = b->nurbs_data;
    for (int i = 0; i < d->nurbs_count; i++) {
        osc_nurbs_init(&b->nurbs[i], &d->nurbs[i], b->control_points, b->reals, at);
        at += osc_nurbs_storage(&d->nurbs[i]);
    }
    return OSC_OK;
}
// The direction of C' for C = A / w: (A' w - A w') / w^2, a polynomial of degree 2p - 1 (its
// leading coefficient cancels, but the Bernstein form of degree 2p - 1 is exact) times w^-2;
// polynomial curves: A', degree p - 1.
int osc_nurbs_tangent_net(const double* cw, int p, int rational, double* work, double* out) {
    double *A = work, *Ad = A + 3 * (p + 1), *W = Ad + 3 * p, *Wd = W + (p + 1), *N = Wd + p;
    for (int i = 0; i <= p; i++) {
        for (int m = 0; m < 3; m++) A[3 * i + m] = cw[4 * i + m];
        W[i] = cw[4 * i + 3];
    }
    for (int i = 0; i < p; i++) {
        for (int m = 0; m < 3; m++) Ad[3 * i + m] = p * (A[3 * (i + 1) + m] - A[3 * i + m]);
        Wd[i] = p * (W[i + 1] - W[i]);
    }
    if (!rational) {
        memcpy(out, Ad, 3 * (size_t)p * sizeof(double));
        return p;
    }
    memset(out, 0, 3 * (size_t)(2 * p) * sizeof(double));
    bernstein_product(W, p, 0, 1, Ad, p - 1, 0, out);
    memset(N, 0, 3 * (size_t)(2 * p) * sizeof(double));
    bernstein_product(Wd, p - 1, 0, 1, A, p, 0, N);
    for (int i = 0; i < 3 * 2 * p; i++) out[i] -= N[i];
    return 2 * p;
}
