/* The fixed grid of a block (fused_grid.h).  Compiled with -ffp-contract=off: the digits'
 * recurrence is exact only as written (fused_kern.h). */
#include "fused/fused_grid.h"
#include "core/ozb_internal.h"
#include <math.h>
#include <string.h>

int32_t ozb_fused_block_exp(int64_t mxbits, int beta)
{
    if (mxbits == 0) return OZB_FZ_E_ZERO;
    if ((uint64_t)mxbits >= 0x7ff0000000000000ull) return OZB_FZ_E_BAD;
    double m;
    memcpy(&m, &mxbits, sizeof m);
    const int e = ozb_ilogb(m) + 1;
    return (beta - e >= -1022 && beta - e <= 1022) ? e : OZB_FZ_E_BAD;
}

int64_t ozb_fused_gather_max(const double *x, int64_t inc, int64_t n, double *copy)
{
    int64_t mx = 0;
    for (int64_t l = 0; l < n; l++) {
        const double v = x[l * inc];
        copy[l] = v;
        const int64_t b = (int64_t)(ozb_bits(v) & 0x7fffffffffffffffull);
        mx = b > mx ? b : mx;
    }
    return mx;
}

void ozb_fused_digits(const double *x, int64_t inc, int64_t n, int32_t e, int beta, int D, double *yq, int64_t ldq)
{
    if (!ozb_fused_usable(e)) {
        for (int u = 0; u < D; u++) memset(yq + u * ldq, 0, sizeof(double) * (size_t)n);
        return;
    }
    const double s = ozb_pow2(beta - e), radix = ozb_pow2(beta);
    for (int64_t l = 0; l < n; l++) {
        double r = x[l * inc] * s;
        for (int u = 0; u < D; u++) {
            const double q = trunc(r);
            yq[u * ldq + l] = q;
            r = (r - q) * radix;
        }
    }
}
