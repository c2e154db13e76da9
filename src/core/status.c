#include "ozblas.h"

const char *ozblas_status_string(ozblas_status_t status)
{
    switch (status) {
    case OZBLAS_STATUS_SUCCESS:          return "success";
    case OZBLAS_STATUS_INVALID_VALUE:    return "invalid value: an argument is out of range (size, leading dimension, increment, NULL pointer or enum)";
    case OZBLAS_STATUS_ALLOC_FAILED:     return "allocation failed: the workspace could not be allocated";
    case OZBLAS_STATUS_NOT_SUPPORTED:    return "not supported by this build, backend or machine (e.g. ozblas_create_cuda without "
                                                "CUDA support or without a GPU: see ozblas_cuda_unavailable_reason; the INT8 "
                                                "and CRT_INT8 formats on the CPU without oneDNN)";
    case OZBLAS_STATUS_EXECUTION_FAILED: return "execution failed";
    case OZBLAS_STATUS_PARTIAL:          return "failed after writing part of the output (workspace or device failure midway)";
    }
    return "unknown status";
}
