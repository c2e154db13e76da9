/* test_limits: the CUDA backend's launch geometry and tiles at extreme sizes, against the
 * hardware's and cuBLAS's limits (every GPU ozblas targets: at most 1024 threads a block,
 * at most 2^31 - 1 blocks in x, int dimensions and leading dimensions for cuBLAS):
 *  - every launcher's grid (kernels/ozb_launch.h) is at least 1 and at most 2^31 - 1 blocks
 *    for 0 .. 2^62 items (the tiled residues' tiles for up to 2^40 rows x 2^24 positions), and the exact sum's scratch stays within its 2^17 accumulators;
 *  - the device tiler (ozb_dev_tiles) keeps a tile's GEMM dimensions within int for
 *    m = 2^31 rows, n = 2^31 columns, k = 2^24 (the emulated device: its buffers are
 *    allocated, so the costs are kept small by a small workspace limit);
 *  - a GEMM beyond int sizes is refused (-1), never truncated;
 *  - the emulated cuBLAS refuses every documented rule it enforces (src/cuda/emu_blas.c);
 *  - the certified DOT's geometry (ozb_kl_eft_plan) and its certificate
 *    (ozb_op_eft_finish) on chains built by hand: right where the bound proves the
 *    rounding, declined where the bound's interval reaches a midpoint between doubles. */
#include "cuda/dev_ops.h"
#include "../kernels/ozb_launch.h"
#include "../kernels/ozb_eft_ops.h"
#include "../kernels/ozb_engine_ops.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fails, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { fails++; printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); } } while (0)

static const int64_t SIZES[] = { 0, 1, 2, 255, 256, 257, 65535, (int64_t)1 << 24, ((int64_t)1 << 31) - 1, (int64_t)1 << 31,
                                 ((int64_t)1 << 31) + 1, (int64_t)1 << 40, (int64_t)1 << 62 };
#define NS ((int)(sizeof SIZES / sizeof SIZES[0]))

/* the item mappings' division (ozb_op_divmod: 32 bits where both fit) against / and % */
static void divmod(void)
{
    const int64_t as[] = {0, 1, 5, 0xffffffffLL, 0x100000000LL, 0x100000001LL, (int64_t)1 << 40, (int64_t)1 << 62};
    const int64_t bs[] = {1, 3, 256, 0x7fffffffLL, 0xffffffffLL, 0x100000000LL, (int64_t)1 << 40};
    for (size_t i = 0; i < sizeof as / sizeof as[0]; i++)
        for (size_t j = 0; j < sizeof bs / sizeof bs[0]; j++) {
            int64_t r;
            const int64_t q = ozb_op_divmod(as[i], bs[j], &r);
            CHECK(q == as[i] / bs[j] && r == as[i] % bs[j], "divmod(%lld, %lld) = %lld r %lld", (long long)as[i],
                  (long long)bs[j], (long long)q, (long long)r);
        }
}

static void eft_grids(void)
{
    for (int i = 0; i < NS; i++)
        for (int j = 0; j < NS; j++)
            for (int rows = 0; rows < 2; rows++) {
                const int64_t m = SIZES[i] ? SIZES[i] : 1, k = SIZES[j] ? SIZES[j] : 1;
                const ozb_kl_eft_geom g = ozb_kl_eft_plan(m, k, rows);
                CHECK(g.nq >= 1 && g.L >= 1 && (g.nq - 1) * g.L < k && g.nq * g.L >= k, "eft plan m %lld k %lld: nq %lld L %lld",
                      (long long)m, (long long)k, (long long)g.nq, (long long)g.L);
                CHECK(g.grid >= 1 && g.grid <= 0x7fffffffu && g.fgrid >= 1 && g.fgrid <= 0x7fffffffu, "eft grids %u %u", g.grid,
                      g.fgrid);
                CHECK(g.depth >= 1 && g.depth >= (rows ? g.L : (g.L + OZB_KL_THREADS - 1) / OZB_KL_THREADS),
                      "eft depth %lld for L %lld", (long long)g.depth, (long long)g.L);
            }
}

/* chains by hand: the exact value is s + C with |C - c| <= the bound from b (es) */
static void eft_certificate(void)
{
    const double one_up = 1.0 + 0x1p-52, one_dn = 1.0 - 0x1p-53;
    struct { ozb_eft_acc a; double alpha, beta, c0; int ok; double want; const char *what; } cases[] = {
        { {1.0, 0x1p-53 + 0x1p-70, 0.0, 0}, 1.0, 0.0, 0.0, 1, one_up, "above the midpoint, exact c" },
        { {1.0, 0x1p-53 + 0x1p-70, 0x1p-17, 0}, 1.0, 0.0, 0.0, 0, 0.0, "bound reaching below the midpoint" },
        { {1.0, 0x1p-53, 0.0, 0}, 1.0, 0.0, 0.0, 0, 0.0, "exact tie" },
        { {1.0, -0x1p-54 - 0x1p-70, 0.0, 0}, 1.0, 0.0, 0.0, 1, one_dn, "below 1's lower midpoint (gap 2^-53)" },
        { {1.0, -0x1p-54 - 0x1p-70, 0x1p-17, 0}, 1.0, 0.0, 0.0, 0, 0.0, "lower midpoint within the bound" },
        { {1.0, -0x1p-54 + 0x1p-70, 0.0, 0}, 1.0, 0.0, 0.0, 1, 1.0, "just above 1's lower midpoint" },
        { {3.0, 0.0, 0.0, 0}, 0.5, 2.0, 0.25, 1, 2.0, "alpha s + beta c0" },
        { {3.0, 0.0, 0.0, 0}, -0.5, 0.75, 2.0 + 0x1p-50, 1, 0x1.8p-51, "cancelling alpha and beta terms, exact" },
        { {3.0, 0x1p-60, 0.0, 0}, -0.5, 0.75, 2.0, 0, 0.0, "a result of alpha c's size: its rounding bound too coarse" },
        { {1.0, 0.0, 0.0, 1}, 1.0, 0.0, 0.0, 0, 0.0, "a bad product" },
        { {0.0, 0.0, 0.0, 0}, 1.0, 0.0, 0.0, 0, 0.0, "exact zero" },
        { {0x1p-1000, 0.0, 0.0, 0}, 0x1p-30, 0.0, 0.0, 0, 0.0, "alpha s below 2^-960" },
        { {1.0, 0.0, 0.0, 0}, 1.0, 1.0, INFINITY, 0, 0.0, "Inf in C" },
        { {1.0, 0.0, 0.0, 0}, 1.0, 0.0, NAN, 1, 1.0, "beta = 0: C not read" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double out = 42.0;
        const int ok = ozb_op_eft_finish(&cases[i].a, 10.0, cases[i].alpha, cases[i].beta, cases[i].c0, &out);
        CHECK(ok == cases[i].ok && (!ok ? out == 42.0 : out == cases[i].want), "eft certificate, %s: ok %d out %a",
              cases[i].what, ok, out);
    }
    /* one product's chain: p + e exact, s + c = p + e */
    ozb_eft_acc a;
    ozb_op_eft_init(&a);
    ozb_op_eft_add(&a, 1.0 + 0x1p-30, 1.0 + 0x1p-30);
    CHECK(a.s == 1.0 + 0x1p-29 && a.c == 0x1p-60 && !a.bad, "TwoProduct chain: s %a c %a", a.s, a.c);
    ozb_op_eft_add(&a, 0x1p-500, 0x1p-470);
    CHECK(a.bad, "a product of 2^-970 not marked");
}

static void grids(void)
{
    for (int i = 0; i < NS; i++) {
        const int64_t n = SIZES[i];
        const unsigned b = ozb_kl_blocks(n), s = ozb_kl_skinny_grid(n), d = ozb_kl_sum_blocks(n);
        CHECK(b >= 1 && b <= 0x7fffffffu, "ozb_kl_blocks(%lld) = %u", (long long)n, b);
        CHECK(s >= 1 && s <= 0x7fffffffu, "ozb_kl_skinny_grid(%lld) = %u", (long long)n, s);
        CHECK(d >= 1 && d <= 0x7fffffffu, "ozb_kl_sum_blocks(%lld) = %u", (long long)n, d);
        /* below the cap the grid has a thread per item (no grid-stride needed) */
        if (n <= (int64_t)OZB_KL_GRID_MAX * OZB_KL_THREADS)
            CHECK((int64_t)b * OZB_KL_THREADS >= n, "ozb_kl_blocks(%lld) = %u: too few threads", (long long)n, b);
        /* the tiled CRT residues: n rows x up to 2^24 k-positions, tiles in int64, grid capped */
        for (int64_t kbp = 4; n <= ((int64_t)1 << 40) && kbp <= ((int64_t)1 << 24); kbp *= 64) {
            const int64_t t = ozb_kl_res_tiles(n, kbp, 1);
            const unsigned rb = ozb_kl_res_blocks(t);
            const int64_t want = (n + OZB_KL_RES_TILE - 1) / OZB_KL_RES_TILE * ((kbp + OZB_KL_RES_TILE - 1) / OZB_KL_RES_TILE);
            CHECK(t == want && t >= 0, "ozb_kl_res_tiles(%lld, %lld) = %lld", (long long)n, (long long)kbp, (long long)t);
            CHECK(rb >= 1 && rb <= OZB_KL_GRID_MAX && (t > OZB_KL_GRID_MAX || rb == (t ? t : 1)),
                  "ozb_kl_res_blocks(%lld) = %u", (long long)t, rb);
        }
        for (int64_t nkb = 1; nkb <= ((int64_t)1 << 20); nkb *= 4) {
            const int64_t acc = ozb_kl_sum_accumulators(n, nkb, 1);
            const int w = ozb_kl_sum_wide(n, nkb, 1);
            CHECK(acc <= OZB_KL_SUM_EXACT_MAX, "accumulators(%lld, %lld) = %lld", (long long)n, (long long)nkb, (long long)acc);
            CHECK(w == 0 || w == 32 || w == 64 || w == 128, "wide(%lld, %lld) = %d", (long long)n, (long long)nkb, w);
            if (w) CHECK(n >= 1 && n <= OZB_KL_SUM_WIDE_MAX, "wide sum for %lld elements: that many blocks", (long long)n);
            else if (n > 0) {
                const int64_t blocks = acc / OZB_KL_SUM_BLOCK;
                CHECK(blocks >= 1 && blocks * OZB_KL_SUM_BLOCK == acc, "exact sum grid %lld for %lld elements", (long long)blocks,
                      (long long)n);
            }
            CHECK(ozb_kl_sum_accumulators(n, nkb, 0) == 0, "DOUBLE/FIXED sums need no accumulator");
        }
    }
}

static ozb_dev *emulated(void)
{
    ozb_knobs k;
    memset(&k, 0, sizeof k);
    k.cuda_emulate = 1;
    ozb_dev *d = NULL;
    const char *why;
    if (ozb_dev_open(0, &k, &d, &why) != OZBLAS_STATUS_SUCCESS) { printf("FAIL: emulated device: %s\n", why); exit(1); }
    return d;
}

static void tiles(ozb_dev *d)
{
    static const int64_t MN[][2] = { { (int64_t)1 << 31, 1 }, { 1, (int64_t)1 << 31 }, { (int64_t)1 << 31, (int64_t)1 << 31 },
                                     { 1, 1 }, { 3, (int64_t)1 << 24 } };
    for (int c = 0; c < 5; c++)
        for (int sa = 1; sa <= 40; sa += 13) {
            const int64_t m = MN[c][0], n = MN[c][1], mbmax = INT32_MAX / sa, nbmax = INT32_MAX / sa;
            /* costs per row / column / element of k = 2^24 in one k-block would be ~2^24 bytes a
             * row: kept tiny here (the allocations are real) with a 1 MiB limit; what is checked
             * is the cap, which must hold whatever the limit */
            const ozb_dev_tilebuf tb[2] = { { OZB_DBUF_A, 1e-6, 0.0, 0.0, 0.0 }, { OZB_DBUF_C, 0.0, 0.0, 1e-9, 64.0 } };
            void *p[2];
            int64_t mb = 0, nb = 0;
            const ozblas_status_t st = ozb_dev_tiles(d, (size_t)1 << 20, m, n, mbmax, nbmax, tb, 2, &mb, &nb, p);
            CHECK(st == OZBLAS_STATUS_SUCCESS, "ozb_dev_tiles(%lld x %lld, sa %d): status %d", (long long)m, (long long)n, sa, (int)st);
            CHECK(mb >= 1 && nb >= 1 && mb <= m && nb <= n, "tile %lld x %lld of %lld x %lld", (long long)mb, (long long)nb,
                  (long long)m, (long long)n);
            CHECK(mb * sa <= INT32_MAX && nb * sa <= INT32_MAX, "tile %lld x %lld with %d slices: GEMM beyond int", (long long)mb,
                  (long long)nb, sa);
        }
}

static void gemm_rules(ozb_dev *d)
{
    static int8_t a8[64 * 64] __attribute__((aligned(256))), b8[64 * 64] __attribute__((aligned(256)));
    static int32_t c32[64 * 64] __attribute__((aligned(256)));
    static double a[64 * 64], b[64 * 64], c[64 * 64];
    /* beyond int: refused before any cuBLAS call */
    CHECK(ozb_dev_gemm(d, OZB_DT_F64, 1, 0, (int64_t)1 << 31, 1, 1, a, 1, b, 1, c, (int64_t)1 << 31) == -1, "m = 2^31 accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_F64, 1, 0, 1, 1, (int64_t)1 << 31, a, (int64_t)1 << 31, b, (int64_t)1 << 31, c, 1) == -1,
          "k = 2^31 accepted");
    /* the documented rules, each broken once (valid otherwise: TN, 4 x 4 x 16) */
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 1, 0, 4, 4, 16, a8, 16, b8, 16, c32, 4) == 0, "a valid INT8 GEMM refused");
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 1, 0, 4, 4, 16, a8 + 1, 16, b8, 16, c32, 4) != 0, "INT8 A not 4-byte aligned accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 1, 0, 4, 4, 15, a8, 15, b8, 16, c32, 4) != 0, "INT8 lda = 15 accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 1, 0, 4, 4, 16, a8, 8, b8, 16, c32, 4) != 0, "lda < k (transa = T) accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 0, 0, 8, 4, 16, a8, 4, b8, 16, c32, 8) != 0, "lda < m (transa = N) accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_F64, 1, 0, 8, 4, 16, a, 16, b, 16, c, 4) != 0, "ldc < m accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_F64, 1, 1, 4, 8, 16, a, 16, b, 4, c, 4) != 0, "ldb < n (transb = T) accepted");
    /* seen on an H100 (cuBLAS 13.1): INT8 outside TN, or with k not a multiple of 4, refused
     * for many shapes (NN 40 x 40 x 40 with every size a multiple of 4); TN ran with any m, ldc */
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 0, 1, 5, 4, 16, a8, 8, b8, 4, c32, 5) != 0, "INT8 NT with m = ldc = 5 accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 0, 0, 40, 40, 40, a8, 40, b8, 40, c32, 40) != 0, "INT8 NN 40 x 40 x 40 accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 1, 0, 4, 17, 13, a8, 16, b8, 16, c32, 4) != 0, "INT8 TN with k = 13 accepted");
    CHECK(ozb_dev_gemm(d, OZB_DT_S8, 1, 0, 5, 4, 16, a8, 16, b8, 16, c32, 5) == 0, "INT8 TN with m = ldc = 5 refused");
    CHECK(ozb_dev_gemm_batched(d, OZB_DT_F64, 1, 0, 4, 4, 4, a, 4, 16, b, 4, 16, c, 4, 8, 2) != 0,
          "overlapping C[i] (stride 8 < 16) accepted");
    CHECK(ozb_dev_gemm_batched(d, OZB_DT_F64, 1, 0, 4, 4, 4, a, 4, 16, b, 4, 16, c, 4, 16, 2) == 0, "a valid batch refused");
    CHECK(ozb_dev_gemm_batched(d, OZB_DT_S8, 1, 0, 4, 4, 16, a8, 16, 66, b8, 16, 64, c32, 4, 16, 2) != 0,
          "INT8 batch stride leaving A[1] misaligned accepted");
}

int main(void)
{
    grids();
    eft_grids();
    divmod();
    eft_certificate();
    ozb_dev *d = emulated();
    tiles(d);
    gemm_rules(d);
    ozb_dev_close(d);
    printf("test_limits: %d checks, %d failed\n", checks, fails);
    return fails ? 1 : 0;
}
