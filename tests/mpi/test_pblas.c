/* libozblas_mpi against the single-node routines, bit for bit, on every process grid that
 * fits the job (mpirun -np 1..4: grids 1x1, 1x2, 2x1, 2x2, 1x3, 3x1, and grids smaller than
 * the job, whose other processes stay out), block sizes 1, 7 and 64, odd global sizes and
 * windows at offsets, every mode and format; CORRECTLY_ROUNDED also against the exact MPFR
 * reference and ScaLAPACK's PDGEMM on the same descriptors; the collective errors (bad,
 * mismatched or disagreeing arguments: INVALID_VALUE on every process, outputs untouched).
 *
 * A plain MPI program rather than a Check suite: Check runs each test in a forked child,
 * which an MPI process cannot be.  Every process checks what it holds; the exit status is
 * nonzero on any process with a failure (mpirun then fails).  Seeds are fixed: every
 * process generates the same global operands. */
#include "ozblas_mpi.h"
#include "ozref.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridexit(int ctxt);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *rsrc, const int *csrc,
               const int *ctxt, const int *lld, int *info);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
             const double *A, const int *ia, const int *ja, const int *desca, const double *B, const int *ib,
             const int *jb, const int *descb, const double *beta, double *C, const int *ic, const int *jc,
             const int *descc);

static int rank, nproc, failures, checks;
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        checks++;                                                                          \
        if (!(cond)) {                                                                     \
            if (failures++ < 20) {                                                         \
                fprintf(stderr, "[rank %d] FAIL %s:%d: ", rank, __FILE__, __LINE__);       \
                fprintf(stderr, __VA_ARGS__);                                              \
                fputc('\n', stderr);                                                       \
            }                                                                              \
        }                                                                                  \
    } while (0)

static uint64_t bits(double v) { uint64_t b; memcpy(&b, &v, sizeof b); return b; }

/* elements of got whose bits differ from the exact reference's (any NaN matches a NaN) */
static int64_t differ_from_ref(const double *ref, const double *got, int64_t n)
{
    int64_t d = 0;
    for (int64_t i = 0; i < n; i++) d += bits(ref[i]) != bits(got[i]) && !(isnan(ref[i]) && isnan(got[i]));
    return d;
}

/* ---- configurations: every mode, every format ---- */
typedef struct { ozblas_mode_t mode; ozblas_engine_t engine; int split, fast; ozblas_summation_t sum; const char *name; } cfg_t;
static const cfg_t cfgs[] = {
    { OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_FP64, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE/fp64" },
    { OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64, 3, 0, OZBLAS_SUM_NEARSUM, "CR/fp64" },
    { OZBLAS_MODE_FIXED, OZBLAS_ENGINE_FP64, 3, 1, OZBLAS_SUM_NEARSUM, "FIXED/fp64 3 fast nearsum" },
    { OZBLAS_MODE_FIXED, OZBLAS_ENGINE_FP64, 2, 0, OZBLAS_SUM_DOUBLE, "FIXED/fp64 2 sumdouble" },
    { OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_FP16, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE/fp16" },
    { OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_INT8, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE/int8" },
    { OZBLAS_MODE_DOUBLE, OZBLAS_ENGINE_CRT_INT8, 3, 0, OZBLAS_SUM_NEARSUM, "DOUBLE/crt" },
    { OZBLAS_MODE_FIXED, OZBLAS_ENGINE_CRT_INT8, 3, 0, OZBLAS_SUM_NEARSUM, "FIXED/crt" },
    { OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_INT8, 3, 0, OZBLAS_SUM_NEARSUM, "CR/int8" },
};
enum { NCFG = sizeof cfgs / sizeof cfgs[0] };

static ozblas_handle_t handle(const cfg_t *c)
{
    ozblas_handle_t h = NULL;
    if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS) { fprintf(stderr, "ozblas_create failed\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    ozblas_set_mode(h, c->mode);
    ozblas_set_engine(h, c->engine);
    ozblas_set_split_count(h, c->split);
    ozblas_set_fast_mode(h, c->fast);
    ozblas_set_summation(h, c->sum);
    return h;
}

/* ---- global operands and their local pieces ---- */
static double *gen(uint64_t seed, int64_t n, double phi)
{
    ozref_rng r;
    ozref_rng_seed(&r, seed);
    double *p = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    ozref_fill_phi(&r, p, n, phi);
    return p;
}

typedef struct { int nprow, npcol, myrow, mycol, ctxt; } grid_t;

/* the global index of local index l (ScaLAPACK's INDXL2G, written out independently) */
static int64_t l2g(int64_t l, int nb, int p, int src, int np) { return (l / nb * np + (p - src + np) % np) * nb + l % nb; }

/* the local array of global G (gm x gn, ld gm) under desc; padding rows keep a sentinel */
static double *localize(const double *G, int64_t gm, int64_t gn, const int *desc, const grid_t *g)
{
    const int64_t ml = ozblas_mpi_numroc(gm, desc[4], g->myrow, desc[6], g->nprow);
    const int64_t nl = ozblas_mpi_numroc(gn, desc[5], g->mycol, desc[7], g->npcol);
    const int64_t lld = desc[8];
    double *L = malloc(sizeof(double) * (size_t)(lld * (nl > 0 ? nl : 1)));
    for (int64_t i = 0; i < lld * (nl > 0 ? nl : 1); i++) L[i] = -7.25e300;
    for (int64_t lj = 0; lj < nl; lj++)
        for (int64_t li = 0; li < ml; li++)
            L[li + lj * lld] = G[l2g(li, desc[4], g->myrow, desc[6], g->nprow) + l2g(lj, desc[5], g->mycol, desc[7], g->npcol) * gm];
    return L;
}

/* every local element equals the global one: count of differences */
static int64_t compare_local(const double *L, const double *G, int64_t gm, int64_t gn, const int *desc, const grid_t *g)
{
    double *E = localize(G, gm, gn, desc, g);
    const int64_t nl = ozblas_mpi_numroc(gn, desc[5], g->mycol, desc[7], g->npcol);
    int64_t bad = 0;
    for (int64_t i = 0; i < desc[8] * (nl > 0 ? nl : 1); i++) bad += bits(L[i]) != bits(E[i]);
    free(E);
    return bad;
}

static void mkdesc(int *desc, int64_t m, int64_t n, int mb, int nb, int rsrc, int csrc, const grid_t *g, int pad, int use_descinit)
{
    const int lr = (int)ozblas_mpi_numroc(m, mb, g->myrow, rsrc, g->nprow);
    const int lld = (lr > 1 ? lr : 1) + pad;
    if (use_descinit) {
        const int M = (int)m, N = (int)n;
        int info = 0;
        descinit_(desc, &M, &N, &mb, &nb, &rsrc, &csrc, &g->ctxt, &lld, &info);
        CHECK(info == 0, "descinit info %d", info);
    } else {
        int ld = 0;
        CHECK(ozblas_mpi_desc(desc, m, n, mb, nb, g->ctxt, &ld) == OZBLAS_STATUS_SUCCESS, "ozblas_mpi_desc");
        desc[6] = rsrc;
        desc[7] = csrc;
        desc[8] = lld;
    }
}

/* ---- PDGEMM ---- */
static void gemm_case(const grid_t *g, const cfg_t *c, int ta, int tb, int bs, double phi, int cancel, int use_descinit)
{
    const int64_t m = 37, n = 29, k = 43;
    const int64_t ia = 2, ja = 4, ib = 3, jb = 1, ic = 3, jc = 2;
    const int64_t gam = (ta ? k : m) + ia + 1, gan = (ta ? m : k) + ja, gbm = (tb ? n : k) + ib, gbn = (tb ? k : n) + jb + 2;
    const int64_t gcm = m + ic + 1, gcn = n + jc;
    double *GA = gen(11 + bs, gam * gan, phi), *GB = gen(23 + bs, gbm * gbn, phi), *GC = gen(37 + bs, gcm * gcn, phi);
    const double alpha = cancel ? 1.0 : 0.75, beta = cancel ? -1.0 : 1.5;
    if (cancel) {   /* C close to alpha op(A) op(B): the results cancel far below their terms */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                long double s = 0;
                for (int64_t l = 0; l < k; l++) {
                    const double a = ta ? GA[(ia - 1 + l) + (ja - 1 + i) * gam] : GA[(ia - 1 + i) + (ja - 1 + l) * gam];
                    const double b = tb ? GB[(ib - 1 + j) + (jb - 1 + l) * gbm] : GB[(ib - 1 + l) + (jb - 1 + j) * gbm];
                    s += (long double)a * b;
                }
                GC[(ic - 1 + i) + (jc - 1 + j) * gcm] = (double)s;
            }
    }
    if (phi > 2.0) {   /* non-finite values in one process's piece */
        GA[(ia - 1) + (ja) * gam] = INFINITY;
        GB[(ib) + (jb - 1 + 2) * gbm] = NAN;
    }
    int da[9], db[9], dc[9];
    mkdesc(da, gam, gan, bs, bs == 1 ? 7 : bs, 0, g->npcol > 1, g, 1, use_descinit);
    mkdesc(db, gbm, gbn, bs == 64 ? 7 : bs, bs, g->nprow > 1, 0, g, 0, use_descinit);
    mkdesc(dc, gcm, gcn, bs, bs, 0, 0, g, 2, use_descinit);
    double *LA = localize(GA, gam, gan, da, g), *LB = localize(GB, gbm, gbn, db, g), *LC = localize(GC, gcm, gcn, dc, g);
    ozblas_handle_t h = handle(c);
    /* the single-node call on the gathered data */
    double *RC = malloc(sizeof(double) * (size_t)(gcm * gcn));
    memcpy(RC, GC, sizeof(double) * (size_t)(gcm * gcn));
    const ozblas_operation_t oa = ta ? OZBLAS_OP_T : OZBLAS_OP_N, ob = tb ? OZBLAS_OP_T : OZBLAS_OP_N;
    ozblas_status_t s1 = ozblas_dgemm(h, oa, ob, m, n, k, alpha, GA + (ia - 1) + (ja - 1) * gam, gam,
                                      GB + (ib - 1) + (jb - 1) * gbm, gbm, beta, RC + (ic - 1) + (jc - 1) * gcm, gcm);
    ozblas_status_t s2 = ozblas_pdgemm(h, oa, ob, m, n, k, alpha, LA, ia, ja, da, LB, ib, jb, db, beta, LC, ic, jc, dc);
    CHECK(s1 == s2, "pdgemm %s %c%c bs %d: status %d, single node %d", c->name, "NT"[ta], "NT"[tb], bs, s2, s1);
    if (s1 == OZBLAS_STATUS_SUCCESS && s2 == OZBLAS_STATUS_SUCCESS) {
        const int64_t bad = compare_local(LC, RC, gcm, gcn, dc, g);
        CHECK(bad == 0, "pdgemm %s %c%c grid %dx%d bs %d phi %g%s: %lld elements differ from the single-node bits",
              c->name, "NT"[ta], "NT"[tb], g->nprow, g->npcol, bs, phi, cancel ? " cancel" : "", (long long)bad);
        if (c->mode == OZBLAS_MODE_CORRECTLY_ROUNDED && bs == 7 && rank == 0) {
            double *X = malloc(sizeof(double) * (size_t)(gcm * gcn));
            memcpy(X, GC, sizeof(double) * (size_t)(gcm * gcn));
            ozref_dgemm(ta, tb, m, n, k, alpha, GA + (ia - 1) + (ja - 1) * gam, gam, GB + (ib - 1) + (jb - 1) * gbm, gbm, beta,
                        X + (ic - 1) + (jc - 1) * gcm, gcm);
            const int64_t d = differ_from_ref(X, RC, gcm * gcn);
            CHECK(d == 0, "pdgemm %s: %lld elements differ from the MPFR reference", c->name, (long long)d);
            free(X);
        }
    }
    ozblas_destroy(h);
    free(GA); free(GB); free(GC); free(RC); free(LA); free(LB); free(LC);
}

/* ScaLAPACK's PDGEMM on the same descriptors: it runs, and ozblas (correctly rounded) is
 * nowhere farther from the exact result than it */
static void scalapack_case(const grid_t *g)
{
    const int64_t m = 45, n = 38, k = 51;
    int da[9], db[9], dc[9];
    double *GA = gen(5, m * k, 1.0), *GB = gen(6, k * n, 1.0), *GC = gen(7, m * n, 1.0);
    mkdesc(da, m, k, 7, 7, 0, 0, g, 0, 1);
    mkdesc(db, k, n, 7, 7, 0, 0, g, 0, 1);
    mkdesc(dc, m, n, 7, 7, 0, 0, g, 0, 1);
    double *LA = localize(GA, m, k, da, g), *LB = localize(GB, k, n, db, g), *LC = localize(GC, m, n, dc, g);
    double *LS = localize(GC, m, n, dc, g);
    const cfg_t cr = { OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64, 3, 0, OZBLAS_SUM_NEARSUM, "CR" };
    ozblas_handle_t h = handle(&cr);
    const double alpha = 1.0, beta = 0.5;
    const int one = 1, M = (int)m, N = (int)n, K = (int)k;
    CHECK(ozblas_pdgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, alpha, LA, 1, 1, da, LB, 1, 1, db, beta, LC, 1, 1, dc) ==
          OZBLAS_STATUS_SUCCESS, "pdgemm vs ScaLAPACK: status");
    pdgemm_("N", "N", &M, &N, &K, &alpha, LA, &one, &one, da, LB, &one, &one, db, &beta, LS, &one, &one, dc);
    double *X = malloc(sizeof(double) * (size_t)(m * n));
    memcpy(X, GC, sizeof(double) * (size_t)(m * n));
    ozref_dgemm(0, 0, m, n, k, alpha, GA, m, GB, k, beta, X, m);
    const int64_t nl = ozblas_mpi_numroc(n, 7, g->mycol, 0, g->npcol), ml = ozblas_mpi_numroc(m, 7, g->myrow, 0, g->nprow);
    int64_t worse = 0, notcr = 0;
    for (int64_t lj = 0; lj < nl; lj++)
        for (int64_t li = 0; li < ml; li++) {
            const double ex = X[l2g(li, 7, g->myrow, 0, g->nprow) + l2g(lj, 7, g->mycol, 0, g->npcol) * m];
            const double o = LC[li + lj * dc[8]], s = LS[li + lj * dc[8]];
            notcr += bits(o) != bits(ex);
            worse += fabs(o - ex) > fabs(s - ex);
        }
    CHECK(notcr == 0 && worse == 0, "against ScaLAPACK PDGEMM: %lld not RN(exact), %lld farther than PDGEMM", (long long)notcr,
          (long long)worse);
    ozblas_destroy(h);
    free(GA); free(GB); free(GC); free(LA); free(LB); free(LC); free(LS); free(X);
}

/* ---- PDGEMV ---- */
static void gemv_case(const grid_t *g, const cfg_t *c, int t, int xrow, int yrow, int bs, double phi)
{
    const int64_t m = 33, n = 29, ia = 2, ja = 3;
    const int64_t lenx = t ? m : n, leny = t ? n : m;
    const int64_t gam = m + 3, gan = n + 4;
    /* x: a column of a (lenx + 5) x 3 matrix at (4, 2), or a row of 3 x (lenx + 6) at (2, 5) */
    const int64_t xm = xrow ? 3 : lenx + 5, xn = xrow ? lenx + 6 : 3, ix = xrow ? 2 : 4, jx = xrow ? 5 : 2;
    const int64_t ym = yrow ? 4 : leny + 2, yn = yrow ? leny + 3 : 2, iy = yrow ? 3 : 2, jy = yrow ? 2 : 2;
    double *GA = gen(41 + bs, gam * gan, phi), *GX = gen(43 + bs, xm * xn, phi), *GY = gen(47 + bs, ym * yn, phi);
    if (phi > 2.0) GA[(ia) + (ja + 1) * gam] = -INFINITY;
    const int tie = phi == 0.0;   /* y's first element 1 + 2^-53 from the two ends of its row: a tie across processes */
    if (tie) {
        for (int64_t q = 0; q < gam * gan; q++) GA[q] = 0.0;
        for (int64_t q = 0; q < xm * xn; q++) GX[q] = 1.0;
        GA[(ia - 1) + (ja - 1) * gam] = 1.0;
        if (t) GA[(ia - 1 + m - 1) + (ja - 1) * gam] = 0x1p-53;
        else GA[(ia - 1) + (ja - 1 + n - 1) * gam] = 0x1p-53;
    }
    int da[9], dx[9], dy[9];
    mkdesc(da, gam, gan, bs, bs == 7 ? 1 : bs, 0, 0, g, 1, 0);
    mkdesc(dx, xm, xn, bs, bs, g->nprow - 1, 0, g, 0, 1);
    mkdesc(dy, ym, yn, bs, bs, 0, g->npcol - 1, g, 3, 0);
    double *LA = localize(GA, gam, gan, da, g), *LX = localize(GX, xm, xn, dx, g), *LY = localize(GY, ym, yn, dy, g);
    ozblas_handle_t h = handle(c);
    double *RY = malloc(sizeof(double) * (size_t)(ym * yn));
    memcpy(RY, GY, sizeof(double) * (size_t)(ym * yn));
    const ozblas_operation_t op = t ? OZBLAS_OP_T : OZBLAS_OP_N;
    const double alpha = tie ? 1.0 : -1.25, beta = tie ? 0.0 : 0.5;
    ozblas_status_t s1 = ozblas_dgemv(h, op, m, n, alpha, GA + (ia - 1) + (ja - 1) * gam, gam, GX + (ix - 1) + (jx - 1) * xm,
                                      xrow ? xm : 1, beta, RY + (iy - 1) + (jy - 1) * ym, yrow ? ym : 1);
    ozblas_status_t s2 = ozblas_pdgemv(h, op, m, n, alpha, LA, ia, ja, da, LX, ix, jx, dx, xrow ? xm : 1, beta, LY, iy, jy, dy,
                                       yrow ? ym : 1);
    CHECK(s1 == s2, "pdgemv %s: status %d, single node %d", c->name, s2, s1);
    if (s1 == OZBLAS_STATUS_SUCCESS && s2 == OZBLAS_STATUS_SUCCESS) {
        const int64_t bad = compare_local(LY, RY, ym, yn, dy, g);
        CHECK(bad == 0, "pdgemv %s %c x%s y%s grid %dx%d bs %d phi %g: %lld elements differ from the single-node bits", c->name,
              "NT"[t], xrow ? "row" : "col", yrow ? "row" : "col", g->nprow, g->npcol, bs, phi, (long long)bad);
        if (c->mode == OZBLAS_MODE_CORRECTLY_ROUNDED && bs == 7 && rank == 0) {   /* and the exact reference */
            double *X = malloc(sizeof(double) * (size_t)(ym * yn));
            memcpy(X, GY, sizeof(double) * (size_t)(ym * yn));
            ozref_dgemv(t, m, n, alpha, GA + (ia - 1) + (ja - 1) * gam, gam, GX + (ix - 1) + (jx - 1) * xm, xrow ? xm : 1, beta,
                        X + (iy - 1) + (jy - 1) * ym, yrow ? ym : 1);
            const int64_t d = differ_from_ref(X, RY, ym * yn);
            CHECK(d == 0, "pdgemv %s: %lld elements differ from the MPFR reference", c->name, (long long)d);
            free(X);
        }
    }
    ozblas_destroy(h);
    free(GA); free(GX); free(GY); free(RY); free(LA); free(LX); free(LY);
}

/* ---- PDDOT: pieces of uneven sizes, zero included, in rank order ---- */
static void dot_case(const cfg_t *c, int special, double phi, int64_t scale)
{
    int64_t ns[8], total = 0, off = 0;
    for (int r = 0; r < nproc; r++) {
        ns[r] = r == 1 && nproc > 2 ? 0 : (r * 7 + 3) * scale;   /* rank 1 of 3 or more holds nothing */
        if (r < rank) off += ns[r];
        total += ns[r];
    }
    double *X = gen(101 + (uint64_t)scale, total, phi), *Y = gen(103 + (uint64_t)scale, total, phi);
    if (special && total > 5) {
        const int64_t last = total - 1;
        if (special == 1) X[last] = NAN;
        if (special == 2) { X[0] = INFINITY; Y[0] = 2.0; }
        if (special == 3) { X[0] = INFINITY; Y[0] = 2.0; X[last] = -INFINITY; Y[last] = 3.0; }
        if (special == 4) { X[last] = INFINITY; Y[last] = 0.0; }
        if (special >= 5) {   /* a tie between processes: the certificate cannot decide, the exact sums must */
            for (int64_t i = 0; i < total; i++) { X[i] = 0.0; Y[i] = 1.0; }
            X[0] = 1.0;
            X[last] = 0x1p-53;   /* 1 + 2^-53: a tie, RN = 1 */
            if (special == 6) {  /* rank 0's partial needs three doubles: 1 + 2^-60 + 2^-130; the last
                                  * rank's, 2^-53 - 2^-60 - 2^-200: the partials' leading parts sum to
                                  * just below the tie, the exact sum is just above it (RN = 1 + 2^-52) */
                X[1] = 0x1p-60;
                X[2] = 0x1p-130;
                X[last] = 0x1p-53 - 0x1p-60;
                X[last - 1] = -0x1p-200;
            }
        }
    }
    if (phi == 0.0)   /* cancellation: the second half undoes the first up to tiny terms */
        for (int64_t i = total / 2; i < total; i++) { X[i] = -X[i - total / 2]; Y[i] = Y[i - total / 2] * (1 + 0x1p-40); }
    ozblas_handle_t h = handle(c);
    double r1 = 0, r2 = 0;
    ozblas_status_t s1 = ozblas_ddot(h, total, X, 1, Y, 1, &r1);
    /* the local piece with increments -2 (x) and 3 (y) */
    const int64_t nl = ns[rank];
    double *xl = malloc(sizeof(double) * (size_t)(2 * nl + 1)), *yl = malloc(sizeof(double) * (size_t)(3 * nl + 1));
    for (int64_t i = 0; i < nl; i++) { xl[(nl - 1 - i) * 2] = X[off + i]; yl[i * 3] = Y[off + i]; }
    ozblas_status_t s2 = ozblas_pddot(h, MPI_COMM_WORLD, nl, xl, -2, yl, 3, &r2);
    CHECK(s1 == s2 && bits(r1) == bits(r2), "pddot %s special %d phi %g n %lld: %a (status %d), single node %a (%d)", c->name, special,
          phi, (long long)total, r2, s2, r1, s1);
    if (c->mode == OZBLAS_MODE_CORRECTLY_ROUNDED) {
        const double ex = ozref_ddot(total, X, 1, Y, 1);
        CHECK(bits(ex) == bits(r2) || (isnan(ex) && isnan(r2)), "pddot CR: %a, MPFR %a", r2, ex);
    }
    ozblas_destroy(h);
    free(X); free(Y); free(xl); free(yl);
}

/* ---- collective errors ---- */
static void error_cases(const grid_t *g)
{
    const int64_t m = 20, n = 17, k = 9;
    double *GA = gen(1, m * k, 1.0), *GB = gen(2, k * n, 1.0), *GC = gen(3, m * n, 1.0);
    int da[9], db[9], dc[9];
    mkdesc(da, m, k, 4, 4, 0, 0, g, 0, 0);
    mkdesc(db, k, n, 4, 4, 0, 0, g, 0, 0);
    mkdesc(dc, m, n, 4, 4, 0, 0, g, 0, 0);
    double *LA = localize(GA, m, k, da, g), *LB = localize(GB, k, n, db, g), *LC = localize(GC, m, n, dc, g);
    double *L0 = localize(GC, m, n, dc, g);
    const cfg_t cr = { OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64, 3, 0, OZBLAS_SUM_NEARSUM, "CR" };
    ozblas_handle_t h = handle(&cr);
    const int64_t sz = dc[8] * (ozblas_mpi_numroc(n, 4, g->mycol, 0, g->npcol) > 0 ? ozblas_mpi_numroc(n, 4, g->mycol, 0, g->npcol) : 1);
    const int last = g->myrow == g->nprow - 1 && g->mycol == g->npcol - 1;   /* the grid's last process */
    for (int e = 0; e < 8; e++) {
        if (e == 5 && g->nprow * g->npcol == 1) continue;   /* one process agrees with itself */
        int a2[9], c2[9];
        memcpy(a2, da, sizeof a2);
        memcpy(c2, dc, sizeof c2);
        int64_t ia = 1;
        ozblas_handle_t hh = h;
        ozblas_handle_t other = NULL;
        const char *what = "";
        switch (e) {
        case 0: c2[0] = 2; what = "bad descriptor type"; break;
        case 1: a2[1] = g->ctxt + 1000; what = "A on another context"; break;
        case 2: if (rank == 0) c2[2] = (int)m + 1; what = "M of C differs on rank 0"; break;
        case 3: if (last) c2[8] = 0; what = "LLD too small on the last rank"; break;
        case 4: ia = 0; what = "ia = 0"; break;
        case 5: if (rank == 0) { other = handle(&cr); ozblas_set_mode(other, OZBLAS_MODE_DOUBLE); hh = other; }
                what = "mode differs on rank 0"; break;
        case 6: if (last) hh = NULL; what = "NULL handle on the last rank"; break;
        case 7: a2[4] = 0; what = "MB = 0"; break;
        }
        const ozblas_status_t st = ozblas_pdgemm(hh, OZBLAS_OP_N, OZBLAS_OP_N, m, n, k, 1.0, LA, ia, 1, a2, LB, 1, 1, db, 0.0, LC, 1, 1, c2);
        CHECK(st == OZBLAS_STATUS_INVALID_VALUE, "%s: status %d, not INVALID_VALUE", what, st);
        CHECK(memcmp(LC, L0, sizeof(double) * (size_t)sz) == 0, "%s: C was written", what);
        if (other) ozblas_destroy(other);
    }
    /* pdgemv with an increment that is neither 1 nor M_X */
    double y0 = 0;
    CHECK(ozblas_pdgemv(h, OZBLAS_OP_N, m, k, 1.0, LA, 1, 1, da, LB, 1, 1, db, 2, 0.0, LC, 1, 1, dc, 1) == OZBLAS_STATUS_INVALID_VALUE,
          "pdgemv incx 2");
    /* pddot (over the whole job): a NULL result on rank 0 */
    double x[2] = { 1, 2 };
    if (g->nprow * g->npcol == nproc)
        CHECK(ozblas_pddot(h, MPI_COMM_WORLD, 2, x, 1, x, 1, rank == 0 ? NULL : &y0) == OZBLAS_STATUS_INVALID_VALUE,
              "pddot NULL result on rank 0");
    ozblas_destroy(h);
    free(GA); free(GB); free(GC); free(LA); free(LB); free(LC); free(L0);
}

/* ---- regression cases: each guards one fault named in its comment ---- */
static void regression_cases(void)
{
    const cfg_t *cr = &cfgs[1];
    /* grids made and freed in turn with BLACS's own calls, a PDGEMM on each: guards a grid's
     * communicator cached by the system communicator's handle, which MPI recycles
     * differently on each process (a hang) */
    for (int it = 0; it < 9; it++) {
        const int rows = it % 3 == 0 ? nproc : it % 3 == 1 ? (nproc > 1 ? nproc - 1 : 1) : 1;
        int ctxt;
        Cblacs_get(-1, 0, &ctxt);
        Cblacs_gridinit(&ctxt, "Row", rows, 1);
        if (ctxt < 0) continue;
        int d[9], lld;
        ozblas_mpi_desc(d, 1, 1, 1, 1, ctxt, &lld);
        double A[1] = { 2 }, B[1] = { 3 }, C[1] = { 0 };
        ozblas_handle_t h = handle(cr);
        const ozblas_status_t st = ozblas_pdgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, 1, 1, 1, 1.0, A, 1, 1, d, B, 1, 1, d, 0.0, C, 1, 1, d);
        CHECK(st == OZBLAS_STATUS_SUCCESS && (rank != 0 || C[0] == 6.0), "grids made and freed, round %d: status %d C %g", it, st, C[0]);
        ozblas_destroy(h);
        Cblacs_gridexit(ctxt);
    }
    /* context numbers that differ between the processes of one grid (a grid of rank 0 alone
     * made first): they are local numbers, not arguments to agree on */
    if (nproc > 1) {
        int c1, c2;
        Cblacs_get(-1, 0, &c1);
        Cblacs_gridinit(&c1, "Row", 1, 1);
        Cblacs_get(-1, 0, &c2);
        Cblacs_gridinit(&c2, "Row", 1, nproc);
        int d[9], lld;
        ozblas_mpi_desc(d, 1, nproc, 1, 1, c2, &lld);
        double A[1] = { 2 }, B[1] = { 3 }, C[1] = { 0 };   /* every process holds one column */
        ozblas_handle_t h = handle(cr);
        int da[9];
        ozblas_mpi_desc(da, 1, 1, 1, 1, c2, &lld);
        const ozblas_status_t st = ozblas_pdgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, 1, 1, 1, 1.0, A, 1, 1, da, B, 1, 1, da, 0.0, C, 1, 1, da);
        CHECK(st == OZBLAS_STATUS_SUCCESS && (rank != 0 || C[0] == 6.0), "differing context numbers: status %d C %g", st, C[0]);
        ozblas_destroy(h);
        Cblacs_gridexit(c2);
        if (c1 >= 0) Cblacs_gridexit(c1);
        (void)d;
    }
    int ctxt;
    ozblas_mpi_grid(MPI_COMM_WORLD, 1, 1, &ctxt);
    if (rank == 0) {
        ozblas_handle_t h = handle(cr);
        int da[9], dx[9], dy[9], lld;
        /* a tiny alpha under the certificate: its bound must not underflow to zero (RN(exact) is
         * -0 here, the single-node bits) */
        ozblas_mpi_desc(da, 1, 1, 1, 1, ctxt, &lld);
        const double alphas[2] = { 0x1p-80, 0x1p-200 };
        for (int q = 0; q < 2; q++) {
            double a[1] = { -0x1p-540 }, x[1] = { 0x1p-540 }, y1[1] = { 5.0 }, y2[1] = { 5.0 };
            ozblas_dgemv(h, OZBLAS_OP_N, 1, 1, alphas[q], a, 1, x, 1, 0.0, y1, 1);
            const ozblas_status_t st = ozblas_pdgemv(h, OZBLAS_OP_N, 1, 1, alphas[q], a, 1, 1, da, x, 1, 1, da, 1, 0.0, y2, 1, 1, da, 1);
            CHECK(st == OZBLAS_STATUS_SUCCESS && bits(y1[0]) == bits(y2[0]), "tiny alpha %a: pdgemv %a, single node %a", alphas[q], y2[0],
                  y1[0]);
        }
        /* x a 1 x n matrix with incx = 1 = M_X: a row vector, as PBLAS reads it */
        ozblas_mpi_desc(da, 2, 3, 2, 2, ctxt, &lld);
        ozblas_mpi_desc(dx, 1, 3, 1, 2, ctxt, &lld);
        ozblas_mpi_desc(dy, 2, 1, 2, 1, ctxt, &lld);
        double A[6] = { 1, 2, 3, 4, 5, 6 }, x[3] = { 1, 10, 100 }, y[2] = { 0, 0 };
        const ozblas_status_t st = ozblas_pdgemv(h, OZBLAS_OP_N, 2, 3, 1.0, A, 1, 1, da, x, 1, 1, dx, 1, 0.0, y, 1, 1, dy, 1);
        CHECK(st == OZBLAS_STATUS_SUCCESS && y[0] == 531.0 && y[1] == 642.0, "row vector with M_X = 1, incx = 1: status %d y %g %g", st,
              y[0], y[1]);
        ozblas_destroy(h);
    }
    if (ctxt >= 0) ozblas_mpi_grid_free(ctxt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    const int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    static const int shapes[][2] = { {1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}, {1, 4}, {4, 1} };
    static const int bss[] = { 1, 7, 64 };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        grid_t g = { shapes[s][0], shapes[s][1], -1, -1, -1 };
        if (g.nprow * g.npcol > nproc) continue;
        /* grids of the whole job, and one smaller grid with the other processes left out */
        if (g.nprow * g.npcol != nproc && !(nproc > 2 && g.nprow == 2 && g.npcol == 1)) continue;
        CHECK(ozblas_mpi_grid(MPI_COMM_WORLD, g.nprow, g.npcol, &g.ctxt) == OZBLAS_STATUS_SUCCESS, "grid");
        int np_, nq_;
        ozblas_mpi_grid_info(g.ctxt, &np_, &nq_, &g.myrow, &g.mycol);
        if (g.myrow < 0) {
            /* outside the grid: a call returns at once (no collective to wait in) */
            int d[9] = { 1, g.ctxt, 4, 4, 2, 2, 0, 0, 4 };
            double c4[16];
            ozblas_handle_t h = handle(&cfgs[1]);
            CHECK(ozblas_pdgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, 4, 4, 4, 1.0, c4, 1, 1, d, c4, 1, 1, d, 0.0, c4, 1, 1, d) ==
                  OZBLAS_STATUS_INVALID_VALUE, "outside the grid");
            ozblas_destroy(h);
            continue;
        }
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < NCFG; c++) {
                if (quick && c > 2) continue;
                for (int ta = 0; ta < 2; ta++)
                    for (int tb = 0; tb < 2; tb++) {
                        if (bss[b] == 64 && (ta || tb) && c > 1) continue;
                        gemm_case(&g, &cfgs[c], ta, tb, bss[b], (ta + 2 * tb) == 3 ? 3.0 : 1.0 + ta, 0, (c + ta) % 2);
                    }
                gemm_case(&g, &cfgs[c], 0, 1, bss[b], 0.5, 1, 1);
                for (int t = 0; t < 2; t++)
                    for (int xr = 0; xr < 2; xr++)
                        for (int yr = 0; yr < 2; yr++)
                            gemv_case(&g, &cfgs[c], t, xr, yr, bss[b], (t && xr && yr) ? 3.0 : 1.5);
                for (int t = 0; t < 2; t++) gemv_case(&g, &cfgs[c], t, 0, 0, bss[b], 0.0);
            }
        scalapack_case(&g);
        error_cases(&g);
        ozblas_mpi_grid_free(g.ctxt);
    }
    for (int c = 0; c < NCFG; c++) {
        if (quick && c > 2) continue;
        for (int sp = 0; sp <= 6; sp++) dot_case(&cfgs[c], sp, 1.0, 1);
        dot_case(&cfgs[c], 0, 3.0, 1000);
        dot_case(&cfgs[c], 0, 0.0, 1000);
    }
    regression_cases();
    int tot = 0;
    MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("test_pblas: %d processes, %d checks on rank 0, %d failures in all\n", nproc, checks, tot);
    MPI_Finalize();
    return tot ? 1 : 0;
}
