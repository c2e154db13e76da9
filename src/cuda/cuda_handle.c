/* CUDA handles (include/ozblas.h): a CPU handle's configuration plus a device (dev.h). */
#include "cuda/dev.h"
#include <stdlib.h>

ozblas_status_t ozblas_create_cuda(ozblas_handle_t *handle, int device)
{
    if (!handle || device < 0) return OZBLAS_STATUS_INVALID_VALUE;
    ozblas_handle_t h;
    ozblas_status_t st = ozblas_create(&h);         /* reads the knobs */
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    ozb_dev *d = NULL;
    const char *why;
    if ((st = ozb_dev_open(device, h->knobs.cuda_emulate, &d, &why)) != OZBLAS_STATUS_SUCCESS) { ozblas_destroy(h); return st; }
    h->dev = d;
    *handle = h;
    return OZBLAS_STATUS_SUCCESS;
}

const char *ozblas_cuda_unavailable_reason(int device)
{
    ozb_dev *d = NULL;
    const char *why = "invalid device number";
    ozb_knobs k;
    ozb_knobs_read(&k);
    ozblas_status_t st = ozb_dev_open(device, k.cuda_emulate, &d, &why);
    if (st == OZBLAS_STATUS_SUCCESS) { ozb_dev_close(d); return NULL; }
    return st == OZBLAS_STATUS_ALLOC_FAILED ? "allocation failed" : why;
}

ozblas_status_t ozblas_set_stream(ozblas_handle_t h, void *cuda_stream)
{
    if (!h) return OZBLAS_STATUS_INVALID_VALUE;
    if (!h->dev) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_dev_set_stream(h->dev, cuda_stream);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_get_backend(ozblas_handle_t h, ozblas_backend_t *backend)
{
    if (!h || !backend) return OZBLAS_STATUS_INVALID_VALUE;
    *backend = h->dev ? OZBLAS_BACKEND_CUDA : OZBLAS_BACKEND_CPU;
    return OZBLAS_STATUS_SUCCESS;
}
