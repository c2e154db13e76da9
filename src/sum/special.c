#include "sum/special.h"
#include "sum/longacc.h"
#include <math.h>

int ozb_dot_class(const ozb_view *a, int64_t i, const ozb_view *b, int64_t j, int64_t k)
{
    int pinf = 0, ninf = 0;
    for (int64_t l = 0; l < k; l++) {
        double x = ozb_view_at(a, i, l), y = ozb_view_at(b, j, l);
        if (isnan(x) || isnan(y)) return OZB_CLASS_NAN;
        if (isinf(x) || isinf(y)) {
            if (x == 0.0 || y == 0.0) return OZB_CLASS_NAN;
            if (signbit(x) != signbit(y)) ninf = 1; else pinf = 1;
        }
    }
    if (pinf && ninf) return OZB_CLASS_NAN;
    return pinf ? OZB_CLASS_PINF : ninf ? OZB_CLASS_NINF : OZB_CLASS_FINITE;
}

double ozb_special_combine(double alpha, int sclass, int ssign, double beta, double c, int use_c, int *finite)
{
    int nan_ = 0, pinf = 0, ninf = 0;
    *finite = 0;
    /* alpha * S (alpha != 0 here: alpha == 0 never reaches the products) */
    if (isnan(alpha) || sclass == OZB_CLASS_NAN) nan_ = 1;
    else if (isinf(alpha) || sclass != OZB_CLASS_FINITE) {
        int s = (sclass == OZB_CLASS_FINITE) ? ssign : (sclass == OZB_CLASS_PINF ? 1 : -1);
        if (s == 0) nan_ = 1;                       /* Inf * 0 */
        else if ((s > 0) != (alpha < 0)) pinf = 1; else ninf = 1;
    }
    if (use_c) {
        if (isnan(beta) || isnan(c)) nan_ = 1;
        else if (isinf(beta) || isinf(c)) {
            if (beta == 0.0 || c == 0.0) nan_ = 1;
            else if (signbit(beta) == signbit(c)) pinf = 1; else ninf = 1;
        }
    }
    if (nan_ || (pinf && ninf)) return NAN;
    if (pinf) return INFINITY;
    if (ninf) return -INFINITY;
    *finite = 1;
    return 0.0;
}

int ozb_dot_sign(const ozb_view *a, int64_t i, const ozb_view *b, int64_t j, int64_t k)
{
    ozb_longacc acc;
    ozb_la_init(&acc);
    for (int64_t l = 0; l < k; l++) {
        const double x = ozb_view_at(a, i, l), y = ozb_view_at(b, j, l);
        if (x != 0.0 && y != 0.0) ozb_la_add_product(&acc, x, y);
    }
    int sign;
    (void)ozb_la_round(&acc, &sign);
    return sign;
}
