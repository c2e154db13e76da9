/* The handle's info (info.h). */
#include "core/info.h"

ozblas_info_t *ozb_info_begin(ozblas_handle_t h, ozblas_summation_t summation, int bits_per_slice)
{
    ozblas_info_t *info = &h->info;
    /* an assignment, not memset: the compiler's vector stores, not a rep stos whose start-up
     * costs ~8 ns on every small call */
    static const ozblas_info_t zero;
    *info = zero;
    h->info_dot_k = 0;
    info->mode = h->mode;
    info->engine = h->engine;
    info->summation = summation;
    info->bits_per_slice = bits_per_slice;
    return info;
}

void ozb_info_tiles(ozblas_info_t *info, int64_t m, int64_t n, int64_t mb, int64_t nb, int64_t kb)
{
    info->blocks = ((m + mb - 1) / mb) * ((n + nb - 1) / nb);
    info->block_m = mb;
    info->block_n = nb;
    info->block_k = kb;
}

void ozb_info_crt(ozblas_info_t *info, int s, int64_t m, int64_t n, int64_t k, int64_t calls, int64_t products,
                  double t_split, double t_mul, double t_sum)
{
    info->slices_a = info->slices_b = info->split_count = s;   /* moduli */
    info->gemm_calls = calls;
    info->slice_products = products;
    info->gemm_flops = 2.0 * (double)m * (double)n * (double)k * s;
    info->seconds_split = t_split;
    info->seconds_multiply = t_mul;
    info->seconds_sum = t_sum;
}

const ozblas_info_t *ozb_info_read(ozblas_handle_t h)
{
    const int64_t k = h->info_dot_k;
    if (k > 0) {   /* what ozb_info_eft(h, pr, 0, 2, 0.0) writes for a DOT of k products */
        const ozblas_mode_t mode = h->info_dot_mode;
        const ozblas_engine_t engine = h->info_dot_engine;
        ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
        info->mode = mode;
        info->engine = engine;
        info->slices_a = info->slices_b = 1;
        info->blocks = 1;
        info->block_m = 1; info->block_n = 1; info->block_k = k;
        info->fused = 2;
    }
    return &h->info;
}

void ozb_info_moves_begin(ozblas_handle_t h)
{
    h->moves_on = 1;
    h->moves = (ozb_moves){ 0, 0, 0 };
    h->moves_staged = 0;
}

void ozb_info_moves_add(ozblas_handle_t h, ozb_moves since, ozb_moves now, int staged)
{
    if (!h->moves_on) return;
    h->moves.to_dev += now.to_dev - since.to_dev;
    h->moves.to_host += now.to_host - since.to_host;
    h->moves.waits += now.waits - since.waits;
    h->moves_staged |= staged;
}

void ozb_info_moves_end(ozblas_handle_t h)
{
    h->moves_on = 0;
    ozb_info_read(h);                    /* (a short DOT's report filled in first) */
    h->info.bytes_to_device = (int64_t)h->moves.to_dev;
    h->info.bytes_to_host = (int64_t)h->moves.to_host;
    h->info.device_waits = (int64_t)h->moves.waits;
    h->info.host_staged = h->moves_staged;
}

void ozb_info_eft(ozblas_handle_t h, const ozb_problem *pr, int64_t left, int stage, double seconds)
{
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
    info->slices_a = info->slices_b = 1;      /* the operands themselves, 53 bits */
    info->exact_fallbacks = left;
    info->blocks = pr->n;
    info->block_m = pr->m; info->block_n = 1; info->block_k = pr->k;
    info->fused = stage;
    info->seconds_sum = seconds;
}
