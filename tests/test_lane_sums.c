/* test_lane_sums: the CRT's row sums in lane order (kernels/ozb_engine_ops.h)
 * are the same bits on the CPU and on the device:
 *  - ozb_op_lane_tree is the pairwise tree its comment defines (p[i] += p[i + h], h = 16 .. 1);
 *  - the CPU's row scales (ozb_crt_row_scales: e, c, ||x||_1) are the same for a
 *    column-major side (per-row lane partials, columns in memory order) and a row-major one
 *    (row by row), on 1 and 2 threads;
 *  - the device kernel k_crt_rows (a block of 32 lanes a row, the real kernel body on the
 *    emulated device, blocks and threads in three shuffled orders) gives those bits, for rows
 *    and k around the block's 8 rows and 32 lanes, the phi generator at phi = 0, 1, 4, and
 *    rows that are zero, hold Inf or NaN, or subnormals only.
 * With OZBLAS_TEST_CUDA=1 (scripts/gpu_validate.sh) the kernel runs on GPU 0 instead of the
 * emulated device (exit 77, skipped, where none opens).
 * A sequential sum (one thread a row, in l order) differs from the lane order in the last
 * bits for most rows with k > 32, so any kernel or CPU path that sums in another order fails here. */
#include "core/knobs.h"
#include "crt/crt_internal.h"
#include "cuda/dev.h"
#include "ozref.h"
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
    double *X = malloc(sizeof(double) * rows * k), *S = malloc(sizeof(double) * rows * k);
    rowscale_t *rs[2][2] = { { malloc(sizeof(rowscale_t) * rows), malloc(sizeof(rowscale_t) * rows) },
                             { malloc(sizeof(rowscale_t) * rows), malloc(sizeof(rowscale_t) * rows) } };
    ozb_op_crt_row *drow = malloc(sizeof(ozb_op_crt_row) * rows);
    fill(r, X, rows, k, phi);
    for (int cm = 0; cm < 2; cm++) {
        ozb_view vw;
        layout(X, rows, k, cm, S, &vw);
        for (int nt = 1; nt <= 2; nt++) ozb_crt_row_scales(&vw, rows, k, rs[cm][nt - 1], nt);
        for (int64_t i = 0; i < rows; i++) {
            const rowscale_t *a = &rs[cm][0][i], *b = &rs[cm][1][i], *c = &rs[0][0][i];
            CHECK(a->e == b->e && a->c == b->c && same(a->l1, b->l1),
                  "%lldx%lld phi %g cm %d row %lld: 1 and 2 threads differ", (long long)rows, (long long)k, phi, cm, (long long)i);
            CHECK(a->e == c->e && a->c == c->c && same(a->l1, c->l1), "%lldx%lld phi %g row %lld: layouts differ (l1 %a, %a)",
                  (long long)rows, (long long)k, phi, (long long)i, a->l1, c->l1);
        }
        for (int o = 0; o < ndev; o++) {
            ozb_dev *d = devs[o];
            double *dx = ozb_dev_buf(d, OZB_DBUF_A, sizeof(double) * rows * k);
            void *dr = ozb_dev_buf(d, OZB_DBUF_C, sizeof(ozb_op_crt_row) * rows);
            if (!dx || !dr) { CHECK(0, "device buffers"); continue; }
            const size_t bytes = sizeof(double) * rows * k;
            CHECK(ozb_dev_put(d, dx, bytes, S, bytes, bytes, 1) == 0, "puts");
            const ozb_view dvw = { dx, vw.rs, vw.cs };
            CHECK(ozb_dev_crt_rows(d, &dvw, rows, k, dr) == 0, "device kernel failed");
            CHECK(ozb_dev_get(d, drow, sizeof(ozb_op_crt_row) * rows, dr, sizeof(ozb_op_crt_row) * rows,
                              sizeof(ozb_op_crt_row) * rows, 1) == 0, "gets");
            for (int64_t i = 0; i < rows; i++) {
                const rowscale_t *c = &rs[0][0][i];
                CHECK(drow[i].e == c->e && (!crt_usable(c->e) || (drow[i].c == c->c && same(drow[i].l1, c->l1))),
                      "%lldx%lld phi %g cm %d order %d row %lld: device e %d c %d l1 %a, CPU e %d c %d l1 %a", (long long)rows,
                      (long long)k, phi, cm, o + 1, (long long)i, drow[i].e, drow[i].c, drow[i].l1, c->e, c->c, c->l1);
            }
        }
    }
    free(X); free(S); free(drow);
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
