/* Uses an installed ozblas: a correctly rounded DOT and GEMM on a case naive BLAS gets wrong. */
#include <ozblas.h>
#include <stdio.h>

int main(void)
{
    ozblas_handle_t h;
    if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS) return 1;
    ozblas_set_mode(h, OZBLAS_MODE_CORRECTLY_ROUNDED);
    const double x[3] = { 1e16, 1.0, -1e16 }, y[3] = { 1.0 + 0x1p-52, 1.0, 1.0 };
    const double exact = 1.0 + 1e16 * 0x1p-52;            /* x.y, exactly a double */
    double r = 0.0, c = 0.0;
    ozblas_status_t s1 = ozblas_ddot(h, 3, x, 1, y, 1, &r);
    ozblas_status_t s2 = ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, 1, 1, 3, 1.0, x, 1, y, 3, 0.0, &c, 1);
    ozblas_destroy(h);
    printf("ozblas %d.%d.%d: ddot %.17g, dgemm %.17g, exact %.17g\n", OZBLAS_VERSION_MAJOR, OZBLAS_VERSION_MINOR,
           OZBLAS_VERSION_PATCH, r, c, exact);
    return (s1 == OZBLAS_STATUS_SUCCESS && s2 == OZBLAS_STATUS_SUCCESS && r == exact && c == exact) ? 0 : 1;
}
