/* test_lane_sums: the CRT's row sums in lane order (kernels/ozb_engine_ops.h, issue 17 finding 5)
 * are the same bits on the CPU and on the device:
 *  - ozb_op_lane_tree is the pairwise tree its comment defines (p[i] += p[i + h], h = 16 .. 1);
 *  - the CPU's row scales (ozb_crt_row_scales: e, c, ||x||_1) and DOUBLE's row sums
 *    (ozb_crt_row_dots) are the same for a column-major side (per-row lane partials, columns
 *    in memory order) and a row-major one (row by row), on 1 and 2 threads;
 *  - the device kernels k_crt_rows and k_crt_dots (a block of 32 lanes a row, the real kernel
 *    bodies on the emulated device, blocks and threads in three shuffled orders) give those
 *    bits, for rows and k around the block's 8 rows and 32 lanes, the phi generator at
 *    phi = 0, 1, 4, and rows that are zero, hold Inf or NaN, or subnormals only;
 *  - the column sums (ozb_lane_col_sums: scheme I's weights and the CRT's v) in both walks and
 *    on 1 and 2 threads, and the device's k_colsums, with and without the weights g.
 * With OZBLAS_TEST_CUDA=1 (scripts/gpu_validate.sh) the kernels run on GPU 0 instead of the
 * emulated device (exit 77, skipped, where none opens).
 * A sequential sum (the order before) differs from the lane order in the last bits for most
 * rows with k > 32, so any kernel or CPU path that sums in another order fails here. */
#include "core/knobs.h"
#include "crt/crt_internal.h"
#include "cuda/dev.h"
#include "ozref.h"
#include "sum/lane_sums.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, fails;
#define CHECK(c, ...) do { checks++; if (!(c)) { fails++; if (fails < 20) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); } } } while (0)

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* the tree written out: entry i after the step of stride h is entry i plus entry i + h after
 * the step of stride 2 h; before the first step (stride 32), the partials */
static double tree_ref(const double *p, int i, int h)
{
    if (h == OZB_OP_SUM_LANES) return p[i];
    return tree_ref(p, i, 2 * h) + tree_ref(p, i + h, 2 * h);
}

static void lane_tree(ozref_rng *r)
{
    for (int t = 0; t < 200; t++) {
        double p[OZB_OP_SUM_LANES], q[OZB_OP_SUM_LANES];
        for (int i = 0; i < OZB_OP_SUM_LANES; i++) p[i] = q[i] = ldexp(ozref_uniform(r) - 0.5, (int)(ozref_uniform(r) * 120) - 60);
        const double want = tree_ref(q, 0, 1);
        CHECK(same(ozb_op_lane_tree(p), want), "lane tree %d: %a, the tree %a", t, p[0], want);
    }
}

/* the emulated device with blocks and threads in shuffled order `order`, or GPU 0 (order 0) */
static ozb_dev *device(int order)
{
    ozb_knobs k;
    memset(&k, 0, sizeof k);
    k.cuda_emulate = order > 0;
    k.cuda_emu_order = order;
    ozb_dev *d = NULL;
    const char *why;
    if (ozb_dev_open(0, &k, &d, &why) != OZBLAS_STATUS_SUCCESS) {
        if (order == 0) { printf("SKIP: no GPU: %s\n", why); exit(77); }
        printf("FAIL: emulated device: %s\n", why);
        exit(1);
    }
    return d;
}

/* X (rows x k, logical) with the phi generator and the special rows; stored column-major (cm)
 * or row-major */
static void fill(ozref_rng *r, double *X, int64_t rows, int64_t k, double phi)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t l = 0; l < k; l++) {
            double x;
            ozref_fill_phi(r, &x, 1, phi);
            X[i * k + l] = x;
        }
    if (rows > 3) {
        for (int64_t l = 0; l < k; l++) X[1 * k + l] = 0.0;                       /* zero row */
        X[2 * k + k / 2] = INFINITY;                                               /* E_BAD */
        X[3 * k + k - 1] = NAN;
    }
    if (rows > 4)
        for (int64_t l = 0; l < k; l++) X[4 * k + l] = ldexp(ozref_uniform(r), -1060);   /* subnormals */
}

static void layout(const double *X, int64_t rows, int64_t k, int cm, double *S, ozb_view *v)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t l = 0; l < k; l++) S[cm ? i + l * rows : i * k + l] = X[i * k + l];
    v->p = S;
    v->rs = cm ? 1 : k;
    v->cs = cm ? rows : 1;
}

static int ndev;

static void one_case(ozb_dev *const devs[3], ozref_rng *r, int64_t rows, int64_t k, double phi)
{
    double *X = malloc(sizeof(double) * rows * k), *S = malloc(sizeof(double) * rows * k), *v = malloc(sizeof(double) * k);
    rowscale_t *rs[2][2] = { { malloc(sizeof(rowscale_t) * rows), malloc(sizeof(rowscale_t) * rows) },
                             { malloc(sizeof(rowscale_t) * rows), malloc(sizeof(rowscale_t) * rows) } };
    double *dot[2] = { malloc(sizeof(double) * rows), malloc(sizeof(double) * rows) };
    ozb_op_crt_row *drow = malloc(sizeof(ozb_op_crt_row) * rows);
    double *ddot = malloc(sizeof(double) * rows);
    int32_t *e = malloc(sizeof(int32_t) * rows);
    fill(r, X, rows, k, phi);
    for (int64_t l = 0; l < k; l++) { ozref_fill_phi(r, &v[l], 1, phi); v[l] = fabs(v[l]); }
    for (int cm = 0; cm < 2; cm++) {
        ozb_view vw;
        layout(X, rows, k, cm, S, &vw);
        for (int nt = 1; nt <= 2; nt++) {
            ozb_crt_row_scales(&vw, rows, k, rs[cm][nt - 1], nt);
            ozb_crt_row_dots(&vw, rows, k, rs[cm][nt - 1], v, dot[nt - 1], nt);
        }
        for (int64_t i = 0; i < rows; i++) {
            const rowscale_t *a = &rs[cm][0][i], *b = &rs[cm][1][i], *c = &rs[0][0][i];
            CHECK(a->e == b->e && a->c == b->c && same(a->l1, b->l1) && same(dot[0][i], dot[1][i]),
                  "%lldx%lld phi %g cm %d row %lld: 1 and 2 threads differ", (long long)rows, (long long)k, phi, cm, (long long)i);
            CHECK(a->e == c->e && a->c == c->c && same(a->l1, c->l1), "%lldx%lld phi %g row %lld: layouts differ (l1 %a, %a)",
                  (long long)rows, (long long)k, phi, (long long)i, a->l1, c->l1);
            if (cm == 0) e[i] = a->e;
        }
        /* the layouts' row sums: the same rows, the same partials */
        double *d0 = malloc(sizeof(double) * rows);
        ozb_view v0;
        layout(X, rows, k, 0, S, &v0);
        ozb_crt_row_dots(&v0, rows, k, rs[0][0], v, d0, 1);
        layout(X, rows, k, cm, S, &vw);
        for (int64_t i = 0; i < rows; i++)
            CHECK(same(d0[i], dot[0][i]), "%lldx%lld phi %g cm %d row %lld: dot %a, row-major %a", (long long)rows, (long long)k,
                  phi, cm, (long long)i, dot[0][i], d0[i]);
        free(d0);
        for (int o = 0; o < ndev; o++) {
            ozb_dev *d = devs[o];
            double *dx = ozb_dev_buf(d, OZB_DBUF_A, sizeof(double) * rows * k), *dv = ozb_dev_buf(d, OZB_DBUF_B, sizeof(double) * k);
            void *dr = ozb_dev_buf(d, OZB_DBUF_C, sizeof(ozb_op_crt_row) * rows);
            double *dd = ozb_dev_buf(d, OZB_DBUF_C2, sizeof(double) * rows);
            int32_t *de = ozb_dev_buf(d, OZB_DBUF_A2, sizeof(int32_t) * rows);
            if (!dx || !dv || !dr || !dd || !de) { CHECK(0, "device buffers"); continue; }
            const size_t bytes = sizeof(double) * rows * k;
            CHECK(ozb_dev_put(d, dx, bytes, S, bytes, bytes, 1) == 0 && ozb_dev_put(d, dv, 8 * k, v, 8 * k, 8 * k, 1) == 0 &&
                  ozb_dev_put(d, de, 4 * rows, e, 4 * rows, 4 * rows, 1) == 0, "puts");
            const ozb_view dvw = { dx, vw.rs, vw.cs };
            CHECK(ozb_dev_crt_rows(d, &dvw, rows, k, dr) == 0 && ozb_dev_crt_dots(d, &dvw, rows, k, de, dv, dd) == 0,
                  "device kernels failed");
            CHECK(ozb_dev_get(d, drow, sizeof(ozb_op_crt_row) * rows, dr, sizeof(ozb_op_crt_row) * rows,
                              sizeof(ozb_op_crt_row) * rows, 1) == 0 &&
                  ozb_dev_get(d, ddot, 8 * rows, dd, 8 * rows, 8 * rows, 1) == 0, "gets");
            for (int64_t i = 0; i < rows; i++) {
                const rowscale_t *c = &rs[0][0][i];
                CHECK(drow[i].e == c->e && (!crt_usable(c->e) || (drow[i].c == c->c && same(drow[i].l1, c->l1))),
                      "%lldx%lld phi %g cm %d order %d row %lld: device e %d c %d l1 %a, CPU e %d c %d l1 %a", (long long)rows,
                      (long long)k, phi, cm, o + 1, (long long)i, drow[i].e, drow[i].c, drow[i].l1, c->e, c->c, c->l1);
                CHECK(same(ddot[i], dot[0][i]), "%lldx%lld phi %g cm %d order %d row %lld: device dot %a, CPU %a",
                      (long long)rows, (long long)k, phi, cm, o + 1, (long long)i, ddot[i], dot[0][i]);
            }
        }
    }
    /* column sums over the rows of X (j < rows) for each l < k; g: weights of the rows */
    double *w[2][2], *g = malloc(sizeof(double) * rows), *hw = malloc(sizeof(double) * k);
    for (int64_t j = 0; j < rows; j++) g[j] = (j % 3) ? ldexp(1.0, (int)(ozref_uniform(r) * 40) - 20) : 0.0;
    for (int wt = 0; wt < 2; wt++) {
        const double *gw = wt ? g : NULL, sc = wt ? 0.0 : 0x1p-3, sc2 = wt ? 1.0 : 0x1p-1000;
        for (int cm = 0; cm < 2; cm++) {
            ozb_view vw;
            layout(X, rows, k, cm, S, &vw);
            for (int nt = 1; nt <= 2; nt++) {
                w[cm][nt - 1] = malloc(sizeof(double) * k);
                ozb_lane_col_sums(vw.p, vw.rs, vw.cs, rows, k, gw, sc, sc2, w[cm][nt - 1], nt, nt == 2);
            }
            for (int64_t l = 0; l < k; l++)
                CHECK(same(w[cm][0][l], w[cm][1][l]) && same(w[cm][0][l], w[0][0][l]),
                      "%lldx%lld phi %g g %d cm %d column %lld: sums %a (2 threads %a, row-major %a)", (long long)rows,
                      (long long)k, phi, wt, cm, (long long)l, w[cm][0][l], w[cm][1][l], w[0][0][l]);
            for (int o = 0; o < ndev; o++) {
                ozb_dev *d = devs[o];
                double *dx = ozb_dev_buf(d, OZB_DBUF_A, sizeof(double) * rows * k), *dw = ozb_dev_buf(d, OZB_DBUF_C2, 8 * k);
                double *dg = ozb_dev_buf(d, OZB_DBUF_B, 8 * rows);
                if (!dx || !dw || !dg) { CHECK(0, "device buffers"); continue; }
                const size_t bytes = sizeof(double) * rows * k;
                CHECK(ozb_dev_put(d, dx, bytes, S, bytes, bytes, 1) == 0 && ozb_dev_put(d, dg, 8 * rows, g, 8 * rows, 8 * rows, 1) == 0,
                      "puts");
                const ozb_view dvw = { dx, vw.rs, vw.cs };
                CHECK(ozb_dev_colsums(d, &dvw, rows, k, wt ? dg : NULL, sc, sc2, dw) == 0, "k_colsums failed");
                CHECK(ozb_dev_get(d, hw, 8 * k, dw, 8 * k, 8 * k, 1) == 0, "get");
                for (int64_t l = 0; l < k; l++)
                    CHECK(same(hw[l], w[0][0][l]), "%lldx%lld phi %g g %d cm %d order %d column %lld: device %a, CPU %a",
                          (long long)rows, (long long)k, phi, wt, cm, o + 1, (long long)l, hw[l], w[0][0][l]);
            }
        }
        for (int cm = 0; cm < 2; cm++) for (int nt = 0; nt < 2; nt++) free(w[cm][nt]);
    }
    free(g); free(hw);
    free(X); free(S); free(v); free(drow); free(ddot); free(e); free(dot[0]); free(dot[1]);
    for (int a = 0; a < 2; a++) for (int b = 0; b < 2; b++) free(rs[a][b]);
}

int main(void)
{
    ozref_rng r;
    ozref_rng_seed(&r, 20261126);
    lane_tree(&r);
    const char *tw = getenv("OZBLAS_TEST_CUDA");
    const int gpu = tw && strcmp(tw, "1") == 0;
    ndev = gpu ? 1 : 3;
    ozb_dev *devs[3] = { device(gpu ? 0 : 1), gpu ? NULL : device(2), gpu ? NULL : device(3) };
    static const int64_t shapes[][2] = { {1, 1}, {1, 100}, {3, 31}, {5, 32}, {7, 33}, {8, 64}, {9, 65}, {17, 100},
                                         {31, 7}, {64, 129}, {65, 300}, {130, 40} };
    static const double phis[] = { 0.0, 1.0, 4.0 };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int p = 0; p < 3; p++) one_case(devs, &r, shapes[s][0], shapes[s][1], phis[p]);
    for (int o = 0; o < ndev; o++) ozb_dev_close(devs[o]);
    printf("test_lane_sums (%s): %d checks, %d failures\n", gpu ? "GPU 0" : "emulated device, 3 orders", checks, fails);
    return fails ? 1 : 0;
}
