/* The host stages: one row per method (core/stage.h), and the lists a plan walks.  The order
 * of a list is the order the methods are tried; a stage's rest_at, skip and replan are the
 * only other ways the walk moves.  To add a method: its file under the folder of its family,
 * one row here, its id in core/stage.h, and its place in the lists below. */
#include "dispatch/stages.h"
#include "dispatch/plan.h"
#include "core/info.h"
#include "core/format.h"
#include "crt/crt.h"
#include "fused/fused.h"
#include "eft/eft_dot.h"
#include "eft/eft_deep.h"
#include "eft/eft_scaled.h"
#include "eft/eft_small_gemm.h"
#include "exact/exact_small.h"
#include "exact/exact_tiny.h"
#include "fixed/fixed_dot.h"
#include "scheme1/scheme1.h"

#define OK OZBLAS_STATUS_SUCCESS
#define DECLINED OZBLAS_STATUS_NOT_SUPPORTED

/* ---- the short DOT: one split with a single sigma, then the exact short sum ---- */
static int dot_short_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)pl;
    return ozb_short_dot_applies(h, pr->m, pr->n, pr->k);
}
static ozblas_status_t dot_short_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                     int64_t *nfail)
{
    (void)pl; (void)nt; (void)fail; (void)nfail;
    if (!ozb_eft_dot_small(h, pr)) return DECLINED;
    ozb_info_eft(h, pr, 0, 2, 0.0);
    return OK;
}
/* reached only after the short split left the DOT undecided (a residual, an orthogonality
 * check: DOTs that cancel), where its terms are doubles */
static ozblas_status_t dot_exact_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                     int64_t *nfail)
{
    (void)pl; (void)nt; (void)fail; (void)nfail;
    return ozb_exact_small_dot(h, pr) ? OK : DECLINED;
}

/* ---- the exact tiny sums: k <= 4 and alpha = +-1 ---- */
/* first where C has fewer than 8 rows, k = 1 (rank-1 updates with beta 0 or +-1 are one FMA
 * per element) or a short GEMV of two columns (exact_tiny.h); elsewhere the error-free sums
 * are faster where nothing cancels */
static int tiny_first_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    return ozb_exact_tiny_first(pr) && ozb_eft_eligible(h, pr, pl);
}
static ozblas_status_t tiny_first_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                      int64_t *nfail)
{
    (void)pl;
    return ozb_exact_tiny(h, pr, nt, fail, nfail);
}
/* what the tiny sums leave cancels or spans the exponent range: the scaled sums next */
static ozb_stage_id tiny_first_rest(const ozb_problem *pr)
{
    (void)pr;
    return OZB_ST_SCALED;
}
/* after the error-free sums: the cancelling results of LAPACK's panel updates C - A B; not
 * where every product is tiny (the scaled sums' calls, next: LAPACK's tests of matrices scaled
 * toward underflow, whose products lie below TwoProduct's range, where the tiny sums flag
 * every element and only add a pass) */
static int tiny_cancel_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)pl;
    return ozb_exact_tiny_eligible(pr) && ozb_eft_scale_for(h, pr) == 0;
}
static ozblas_status_t tiny_cancel_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                       int64_t *nfail)
{
    (void)pl;
    return ozb_exact_tiny_cancel(h, pr, nt, fail, nfail);
}

/* ---- small GEMMs: the error-free sums without the streaming GEMM's setup ---- */
/* C^T = op(B)^T op(A)^T as a problem: each element the same sum of the same products, so the
 * same unique RN(exact) and the same special values */
static void transposed(const ozb_problem *pr, ozb_problem *t)
{
    *t = *pr;
    t->m = pr->n; t->n = pr->m;
    t->a = pr->b; t->b = pr->a;
    t->crs = pr->ccs; t->ccs = pr->crs;
    t->tri = pr->tri == OZB_TRI_ALL ? OZB_TRI_ALL : OZB_TRI_LOWER + OZB_TRI_UPPER - pr->tri;   /* C^T's */
    t->want = NULL;            /* (indexed as C's: every element of C^T then) */
    t->zeros = pr->zeros == OZB_ZEROS_NONE ? OZB_ZEROS_NONE
             : pr->zeros <= OZB_ZEROS_A_KGE ? pr->zeros + 2 : pr->zeros - 2;   /* op(A)'s are op(B)^T's */
}

/* Fewer than 8 rows times more columns (LAPACK's updates of a panel's rows: 5 x 50 x 5), which
 * the small sums leave to the streaming ones, whose one strip of 8 rows they fill only in
 * part: worked transposed where C^T's shape is the small sums', their groups of four rows then
 * running over n (measured faster from 3 to 7 rows; at 8 and 12 rows the streaming sums are
 * faster, so they keep them) */
static int small_gemm_orient(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, ozb_problem *t)
{
    if (pr->m >= 8 || pr->m >= pr->n || ozb_eft_small_gemm_applies(h, pr, pl)) return 0;
    transposed(pr, t);
    return ozb_eft_small_gemm_applies(h, t, pl);
}
static int small_gemm_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    ozb_problem t;
    return ozb_eft_small_gemm_applies(h, pr, pl) || small_gemm_orient(h, pr, pl, &t);
}
static ozblas_status_t small_gemm_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                      int64_t *nfail)
{
    (void)pl; (void)nt;
    return ozb_eft_small_gemm(h, pr, fail, nfail);
}
/* what it leaves cancels (the streaming sums' certificates would leave it too) or lies below
 * about 2^-640 (its sigma's floor): the exact tiny sums, which take k <= 16 and round both */
static ozb_stage_id small_gemm_rest(const ozb_problem *pr)
{
    (void)pr;
    return OZB_ST_TINY_CANCEL;
}

/* ---- the streaming error-free sums ---- */
static int eft_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl) { return ozb_eft_applies(h, pr, pl); }
static size_t eft_bytes(ozblas_handle_t h, const ozb_problem *pr) { return ozb_eft_bytes(h, pr); }
/* A C of fewer than 8 rows and at least 8 columns (a row vector or a few rows times a matrix:
 * NumPy's x @ A, short-wide products) worked transposed, C^T = op(B)^T op(A)^T: each element
 * is the same sum of the same products, so the same unique RN(exact) (and the same special
 * values), and the GEMM's strips of 8 rows run over n instead of each column being a GEMV of
 * fewer than 8 rows padded to a strip. */
static int eft_orient(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, ozb_problem *t)
{
    if (pr->m >= 8 || pr->n < 8) return 0;
    transposed(pr, t);
    return ozb_eft_eligible(h, t, pl);
}
static ozblas_status_t eft_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                               int64_t *nfail)
{
    (void)pl;
    return ozb_eft_cr(h, pr, nt, fail, nfail);
}

/* every product tiny (operands near 2^-970: LAPACK's scaling tests): the sums scaled by 2^s */
static int scaled_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)pl;
    return ozb_eft_scale_for(h, pr) != 0;
}
static ozblas_status_t scaled_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                  int64_t *nfail)
{
    (void)pl;
    return ozb_eft_scaled_cr(h, pr, nt, fail, nfail);
}
/* Every product is below 2^-898 here: what the scaled sums leave (a residual of tiny operands,
 * whose result is subnormal: LAPACK's dtrt tests) the unscaled deep sums cannot certify either
 * (their bound keeps 2^-1000 for underflow), so a short inner dimension goes straight to the
 * exact short sums. */
static ozb_stage_id scaled_rest(const ozb_problem *pr)
{
    return pr->k <= OZB_EXACT_SMALL_K ? OZB_ST_EXACT_SMALL : OZB_ST_DEEP;
}

/* results that cancel to ~2^-60 of their terms (residuals): a second extraction level */
static int deep_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)pr; (void)pl;
    return !h->knobs.no_deep;
}
static size_t deep_bytes(ozblas_handle_t h, const ozb_problem *pr) { return ozb_eft_deep_bytes(h, pr); }
static ozblas_status_t deep_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                int64_t *nfail)
{
    (void)pl;
    return ozb_eft_deep_cr(h, pr, nt, fail, nfail);
}

/* short inner dimensions the sums could not certify (products spanning the exponent range):
 * every product split exactly and rounded once */
static int exact_small_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)h; (void)pl;
    return ozb_exact_small_takes(pr);
}
static ozblas_status_t exact_small_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                       int64_t *nfail)
{
    (void)pl;
    return ozb_exact_small(h, pr, nt, fail, nfail);
}

/* ---- the CRT ---- */
/* A correctly rounded GEMM the sums did not take: the exact CRT where oneDNN's int8 GEMM is
 * exact and fast, before the FP64 slices.  Not first: on an AVX512-VNNI EPYC (Zen 4, 2
 * threads, phi = 1) the error-free sums are faster at every size (64^3 30 against 47 us, 512^3
 * 9.3 against 29 ms, 4096^3 4.6 against 5.3 s).  It declines where it does not apply (spans
 * beyond the moduli table, special values); the result is unique, so it never changes a bit. */
static int crt_cr_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)pl;
    return pr->n > 8 && !h->knobs.no_crt && ozb_format_for(h, OZBLAS_ENGINE_INT8, NULL) && ozb_int8_fast(h) &&
           (double)pr->m * (double)pr->n * (double)pr->k >= 262144.0;
}
/* the CRT_INT8 format's correctly rounded GEMM (a DOT or GEMV goes to the FP64 kernels, which
 * are faster for one column: the same bits) */
static int crt_cr_format_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)pl;
    return h->engine == OZBLAS_ENGINE_CRT_INT8 && pr->n > 8;
}
static ozblas_status_t crt_cr_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                  int64_t *nfail)
{
    (void)pl; (void)fail; (void)nfail;
    return ozb_crt_cr_run(h, pr, nt);
}
/* FIXED and DOUBLE with CRT_INT8.  DOUBLE leaves the elements its per-element certificate
 * does not certify (C untouched there): they are computed correctly rounded, only those, so
 * that the others keep the CRT's bits, each a function of its own row and column. */
static ozblas_status_t crt_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                               int64_t *nfail)
{
    return ozb_crt_run(h, pr, pl, nt, fail, nfail);
}
/* out of the scheme's reach (no exact INT8 product, non-finite alpha), and DOUBLE's
 * uncertified elements: FIXED on INT8 slices; DOUBLE correctly rounded (a function of each
 * element's own row and column) */
static ozb_stage_id crt_replan(const ozb_plan *pl, ozb_plan *rest)
{
    if (pl->mode == OZBLAS_MODE_FIXED) {
        *rest = (ozb_plan){ OZBLAS_MODE_FIXED, OZBLAS_ENGINE_INT8 };
        return OZB_ST_FIXED_DOT;
    }
    *rest = (ozb_plan){ OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_ENGINE_FP64 };
    return OZB_ST_TINY_FIRST;
}

/* ---- FIXED DOT and GEMV on FP64 slices: the fused kernels with Scheme I's bits ---- */
static int fixed_dot_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)h;
    return pl->mode == OZBLAS_MODE_FIXED && pr->n == 1;
}
static ozblas_status_t fixed_dot_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                     int64_t *nfail)
{
    (void)fail; (void)nfail;
    return ozb_fixed_dot(h, pr, pl, nt);
}

/* ---- correctly rounded DOT and GEMV by split-and-accumulate ---- */
static int fused_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl) { return ozb_fused_applies(h, pr, pl); }
static size_t fused_bytes(ozblas_handle_t h, const ozb_problem *pr) { return ozb_fused_bytes(h, pr); }
static ozblas_status_t fused_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                 int64_t *nfail)
{
    (void)pl;
    return ozb_fused_cr(h, pr, nt, fail, nfail);
}

/* ---- Ozaki scheme I: every configuration, every element ---- */
static ozblas_status_t scheme1_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                   int64_t *nfail)
{
    (void)nt; (void)fail; (void)nfail;
    return ozb_scheme1_run(h, pr, pl);
}

/* A certifying stage's remainder: exact zero products resolved, then runs of rows or, where
 * more than a quarter is left (heavy cancellation: residuals), the whole call at once, which
 * costs less than many small calls; from 1/OZB_KEPT_FRAC where the rest goes first to a stage
 * that computes only the flagged elements (.kept: ozb_problem.want), as the deep sums do for
 * LAPACK's eigenvector merges. */
#define CERTIFYING .zeros = 1, .whole_frac = 4
#define N OZB_ST_NEXT
const ozb_stage ozb_host_stages[OZB_ST_COUNT] = {
    [OZB_ST_DOT_SHORT]     = { "short DOT", dot_short_eligible, NULL, NULL, dot_short_run, NULL, NULL, OZB_ST_TINY_FIRST, 0, 0, 0 },
    [OZB_ST_DOT_EXACT]     = { "short DOT, exact", NULL, NULL, NULL, dot_exact_run, NULL, NULL, N, 0, 0, 0 },
    [OZB_ST_TINY_FIRST]    = { "exact tiny", tiny_first_eligible, NULL, NULL, tiny_first_run, NULL, tiny_first_rest, N, CERTIFYING },
    [OZB_ST_SMALL_GEMM]    = { "small error-free sums", small_gemm_eligible, NULL, small_gemm_orient, small_gemm_run, NULL, small_gemm_rest, N, CERTIFYING },
    [OZB_ST_EFT]           = { "error-free sums", eft_eligible, eft_bytes, eft_orient, eft_run, NULL, NULL, OZB_ST_CRT_CR, CERTIFYING , .kept = 1 },
    [OZB_ST_TINY_CANCEL]   = { "exact tiny, cancelling", tiny_cancel_eligible, NULL, NULL, tiny_cancel_run, NULL, NULL, N, CERTIFYING },
    [OZB_ST_SCALED]        = { "scaled error-free sums", scaled_eligible, NULL, NULL, scaled_run, NULL, scaled_rest, N, CERTIFYING , .kept = 1 },
    [OZB_ST_DEEP]          = { "deep error-free sums", deep_eligible, deep_bytes, NULL, deep_run, NULL, NULL, N, CERTIFYING , .kept = 1 },
    [OZB_ST_EXACT_SMALL]   = { "exact short sums", exact_small_eligible, NULL, NULL, exact_small_run, NULL, NULL, N, CERTIFYING , .kept = 1 },
    [OZB_ST_CRT_CR]        = { "exact CRT", crt_cr_eligible, NULL, NULL, crt_cr_run, NULL, NULL, N, 0, 0, 0 },
    [OZB_ST_CRT_CR_FORMAT] = { "exact CRT, CRT_INT8", crt_cr_format_eligible, NULL, NULL, crt_cr_run, NULL, NULL, N, 0, 0, 0 },
    [OZB_ST_CRT]           = { "CRT", NULL, NULL, NULL, crt_run, crt_replan, NULL, N, 0, 8, 0 },
    [OZB_ST_FIXED_DOT]     = { "FIXED fused DOT/GEMV", fixed_dot_eligible, NULL, NULL, fixed_dot_run, NULL, NULL, N, 0, 0, 0 },
    [OZB_ST_FUSED]         = { "fused kernels", fused_eligible, fused_bytes, NULL, fused_run, NULL, NULL, N, CERTIFYING },
    [OZB_ST_SCHEME1]       = { "scheme I", NULL, NULL, NULL, scheme1_run, NULL, NULL, N, 0, 0, 0 },
};
#undef N

/* CORRECTLY_ROUNDED with FP64 slices (and DOUBLE, computed so) */
static const uint8_t list_cr[] = {
    OZB_ST_DOT_SHORT, OZB_ST_DOT_EXACT, OZB_ST_TINY_FIRST, OZB_ST_SMALL_GEMM, OZB_ST_EFT, OZB_ST_TINY_CANCEL, OZB_ST_SCALED, OZB_ST_DEEP,
    OZB_ST_EXACT_SMALL, OZB_ST_CRT_CR, OZB_ST_FUSED, OZB_ST_SCHEME1,
};
/* the same with the CRT_INT8 format: its GEMMs by the exact CRT first */
static const uint8_t list_cr_crt[] = {
    OZB_ST_CRT_CR_FORMAT, OZB_ST_DOT_SHORT, OZB_ST_DOT_EXACT, OZB_ST_TINY_FIRST, OZB_ST_SMALL_GEMM, OZB_ST_EFT, OZB_ST_TINY_CANCEL,
    OZB_ST_SCALED, OZB_ST_DEEP, OZB_ST_EXACT_SMALL, OZB_ST_CRT_CR, OZB_ST_FUSED, OZB_ST_SCHEME1,
};
/* FIXED and DOUBLE with CRT_INT8 (what the CRT declines or leaves is replanned) */
static const uint8_t list_crt[] = { OZB_ST_CRT };
/* FIXED with slices; CORRECTLY_ROUNDED with FP16 or (fast) INT8 slices */
static const uint8_t list_slices[] = { OZB_ST_FIXED_DOT, OZB_ST_SCHEME1 };

ozb_stage_list ozb_stage_list_for(ozblas_handle_t h, const ozb_plan *pl)
{
#define L(a) (ozb_stage_list){ a, (int)sizeof a }
    if (pl->engine == OZBLAS_ENGINE_CRT_INT8) return L(list_crt);
    if (pl->mode == OZBLAS_MODE_CORRECTLY_ROUNDED && pl->engine == OZBLAS_ENGINE_FP64)
        return h->engine == OZBLAS_ENGINE_CRT_INT8 ? L(list_cr_crt) : L(list_cr);
    return L(list_slices);
#undef L
}
