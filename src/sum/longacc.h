/* Exact fixed-point accumulator covering every value alpha*P*2^E and beta*c can take. */
#ifndef OZB_LONGACC_H
#define OZB_LONGACC_H
#include <stdint.h>

__extension__ typedef unsigned __int128 ozb_u128;

/* Bit position 0 is 2^OZB_LA_EMIN.  Range needed: lowest bit of alpha*P*2^E is
 * >= 2^(-1074) * 2^(2*(-1074-26)) = 2^-3274; the highest below 2^(1024+53+2*1023+64).
 * 232 digits of 32 bits cover 2^-3500 .. 2^3924. */
#define OZB_LA_EMIN  (-3500)
#define OZB_LA_DIGITS 232

typedef struct {
    int64_t d[OZB_LA_DIGITS];   /* signed digits, carries resolved lazily (each add adds < 2^33) */
    int lo, hi;                 /* touched digit range */
} ozb_longacc;

void   ozb_la_init(ozb_longacc *a);
/* a += (neg ? -1 : 1) * mag * 2^exp, with OZB_LA_EMIN <= exp and mag < 2^128 */
void   ozb_la_add(ozb_longacc *a, int neg, ozb_u128 mag, int exp);
/* a += x * y exactly, for finite doubles */
void   ozb_la_add_product(ozb_longacc *a, double x, double y);
/* RN of the exact value (subnormal results and overflow to Inf as IEEE 754); *sign is the
 * exact sign (-1, 0, 1).  Resets a for the next use. An exact zero gives +0. */
double ozb_la_round(ozb_longacc *a, int *sign);

#endif
