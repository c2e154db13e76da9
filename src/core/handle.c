/* Handle life cycle and configuration. */
#include "core/ozb_internal.h"
#include "core/backend.h"
#include "core/info.h"
#include "core/parts.h"
#include <stdlib.h>

ozblas_status_t ozb_handle_new(const ozb_backend *be, ozblas_handle_t *handle)
{
    if (!handle) return OZBLAS_STATUS_INVALID_VALUE;
    ozblas_handle_t h = calloc(1, sizeof *h);
    if (!h) return OZBLAS_STATUS_ALLOC_FAILED;
    h->be = be;
    h->mode = OZBLAS_MODE_DOUBLE;
    h->split_count = 3;
    h->fast_mode = 0;
    h->summation = OZBLAS_SUM_NEARSUM;
    h->threads = 0;
    h->ws_limit = 0;
    h->slice_hint_a = h->slice_hint_b = 6;
    ozb_knobs_read(&h->knobs);
    *handle = h;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_destroy(ozblas_handle_t h)
{
    if (!h) return OZBLAS_STATUS_INVALID_VALUE;
    if (h->be->close) h->be->close(h);
    ozb_parts_free(h);
    ozb_buf_free_all(h);
    free(h);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_set_mode(ozblas_handle_t h, ozblas_mode_t mode)
{
    if (!h || (mode != OZBLAS_MODE_DOUBLE && mode != OZBLAS_MODE_CORRECTLY_ROUNDED && mode != OZBLAS_MODE_FIXED))
        return OZBLAS_STATUS_INVALID_VALUE;
    h->mode = mode;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_mode(ozblas_handle_t h, ozblas_mode_t *mode)
{
    if (!h || !mode) return OZBLAS_STATUS_INVALID_VALUE;
    *mode = h->mode;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_set_split_count(ozblas_handle_t h, int slices)
{
    if (!h || slices < 1 || slices > 1000) return OZBLAS_STATUS_INVALID_VALUE;
    h->split_count = slices;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_set_fast_mode(ozblas_handle_t h, int enabled)
{
    if (!h || (enabled != 0 && enabled != 1)) return OZBLAS_STATUS_INVALID_VALUE;
    h->fast_mode = enabled;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_set_summation(ozblas_handle_t h, ozblas_summation_t s)
{
    if (!h || (s != OZBLAS_SUM_DOUBLE && s != OZBLAS_SUM_NEARSUM)) return OZBLAS_STATUS_INVALID_VALUE;
    h->summation = s;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_set_num_threads(ozblas_handle_t h, int threads)
{
    if (!h || threads < 0) return OZBLAS_STATUS_INVALID_VALUE;
    h->threads = threads;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_set_parallel_threshold(ozblas_handle_t h, int64_t work)
{
    if (!h || work < 0) return OZBLAS_STATUS_INVALID_VALUE;
    h->par_work = work;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_parallel_threshold(ozblas_handle_t h, int64_t *work)
{
    if (!h || !work) return OZBLAS_STATUS_INVALID_VALUE;
    *work = h->par_work;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_set_workspace_limit(ozblas_handle_t h, size_t bytes)
{
    if (!h) return OZBLAS_STATUS_INVALID_VALUE;
    h->ws_limit = bytes;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_workspace_limit(ozblas_handle_t h, size_t *bytes)
{
    if (!h || !bytes) return OZBLAS_STATUS_INVALID_VALUE;
    *bytes = ozb_workspace_limit(h);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_info(ozblas_handle_t h, ozblas_info_t *info)
{
    if (!h || !info) return OZBLAS_STATUS_INVALID_VALUE;
    *info = *ozb_info_read(h);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_set_engine(ozblas_handle_t h, ozblas_engine_t engine)
{
    if (!h || engine < OZBLAS_ENGINE_FP64 || engine > OZBLAS_ENGINE_CRT_INT8) return OZBLAS_STATUS_INVALID_VALUE;
    /* CRT_INT8 needs the exact int8 GEMM of the INT8 format (oneDNN) */
    if (!ozb_format_for(h, engine == OZBLAS_ENGINE_CRT_INT8 ? OZBLAS_ENGINE_INT8 : engine, NULL)) return OZBLAS_STATUS_NOT_SUPPORTED;
    h->engine = engine;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_engine(ozblas_handle_t h, ozblas_engine_t *engine)
{
    if (!h || !engine) return OZBLAS_STATUS_INVALID_VALUE;
    *engine = h->engine;
    return OZBLAS_STATUS_SUCCESS;
}

const char *ozblas_products_name(ozblas_handle_t h, ozblas_engine_t engine)
{
    if (!h || !h->be->products_name) return NULL;
    /* CRT_INT8's residue products are INT8 GEMMs: present where the INT8 format is */
    if (!ozb_format_for(h, engine == OZBLAS_ENGINE_CRT_INT8 ? OZBLAS_ENGINE_INT8 : engine, NULL)) return NULL;
    return h->be->products_name(h, engine);
}

ozblas_status_t ozblas_set_crt_scaling(ozblas_handle_t h, ozblas_crt_scaling_t scaling)
{
    if (!h || (scaling != OZBLAS_CRT_SCALING_FAST && scaling != OZBLAS_CRT_SCALING_ACCURATE)) return OZBLAS_STATUS_INVALID_VALUE;
    h->crt_scaling = scaling;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_crt_scaling(ozblas_handle_t h, ozblas_crt_scaling_t *scaling)
{
    if (!h || !scaling) return OZBLAS_STATUS_INVALID_VALUE;
    *scaling = h->crt_scaling;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_split_count(ozblas_handle_t h, int *slices)
{
    if (!h || !slices) return OZBLAS_STATUS_INVALID_VALUE;
    *slices = h->split_count;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_fast_mode(ozblas_handle_t h, int *enabled)
{
    if (!h || !enabled) return OZBLAS_STATUS_INVALID_VALUE;
    *enabled = h->fast_mode;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_summation(ozblas_handle_t h, ozblas_summation_t *s)
{
    if (!h || !s) return OZBLAS_STATUS_INVALID_VALUE;
    *s = h->summation;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_num_threads(ozblas_handle_t h, int *threads)
{
    if (!h || !threads) return OZBLAS_STATUS_INVALID_VALUE;
    *threads = h->threads;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_backend(ozblas_handle_t h, ozblas_backend_t *backend)
{
    if (!h || !backend) return OZBLAS_STATUS_INVALID_VALUE;
    *backend = h->be->id;
    return OZBLAS_STATUS_SUCCESS;
}
