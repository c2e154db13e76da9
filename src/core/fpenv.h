/* The floating-point environment every error-free step assumes (CONTRACT §1: round to
 * nearest, gradual underflow): no flush-to-zero, no denormals-are-zero, no directed
 * rounding.  A program built with -ffast-math sets FTZ and DAZ at start-up, and with them a
 * TwoSum or a certificate can be wrong without any sign; ozb_run therefore enters the
 * standard environment for the call (x86-64: MXCSR 0x1f80 with the caller's exception flags)
 * and gives the caller's back afterwards.  Threads created while the caller's environment
 * was in force may still carry it, so such a call runs on the calling thread alone; and the
 * loops of core/par.h enter the standard environment on every thread of their regions, for a
 * pool started under FTZ or DAZ whose caller has since gone back to the standard modes. */
#ifndef OZB_FPENV_H
#define OZB_FPENV_H
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
typedef unsigned ozb_fpenv_t;
#define OZB_MXCSR_MODE_BITS 0xffc0u   /* FTZ (15), rounding (13-14), masks (7-12), DAZ (6) */
#define OZB_MXCSR_STANDARD  0x1f80u   /* every exception masked, round to nearest, no FTZ/DAZ */
/* 1 where the caller's environment was not the standard one (and is now replaced) */
static inline int ozb_fpenv_enter(ozb_fpenv_t *saved)
{
    const unsigned csr = _mm_getcsr();
    *saved = csr;
    if ((csr & OZB_MXCSR_MODE_BITS) == OZB_MXCSR_STANDARD) return 0;
    _mm_setcsr(OZB_MXCSR_STANDARD | (csr & 0x3fu));
    return 1;
}
/* 1 where the environment is the standard one already (nothing to enter or leave) */
static inline int ozb_fpenv_standard(void) { return (_mm_getcsr() & OZB_MXCSR_MODE_BITS) == OZB_MXCSR_STANDARD; }
static inline void ozb_fpenv_leave(ozb_fpenv_t saved, int changed)
{
    if (changed) _mm_setcsr(saved | (_mm_getcsr() & 0x3fu));   /* the caller's modes, all flags raised */
}
#else
typedef int ozb_fpenv_t;
static inline int ozb_fpenv_enter(ozb_fpenv_t *saved) { *saved = 0; return 0; }
static inline int ozb_fpenv_standard(void) { return 1; }
static inline void ozb_fpenv_leave(ozb_fpenv_t saved, int changed) { (void)saved; (void)changed; }
#endif
#endif
