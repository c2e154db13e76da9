/* Environment knobs: every OZBLAS_* variable the library reads, in one list (knobs.c), read
 * once when a handle is created (ozblas_create, ozblas_create_cuda) into the handle.  No other
 * library file reads the environment (the LD_PRELOAD interposer's OZBLAS_PRELOAD_* settings
 * are its own).  The README's knob table lists the same names (test_knobs checks it). */
#ifndef OZB_KNOBS_H
#define OZB_KNOBS_H
#include <stddef.h>

typedef struct {
    int no_fused;       /* OZBLAS_NO_FUSED      */
    int fused_fail;     /* OZBLAS_FUSED_FAIL    */
    int fused_avx2;     /* OZBLAS_FUSED_AVX2    */
    int no_lazy;        /* OZBLAS_NO_LAZY       */
    int lazy_levels;    /* OZBLAS_LAZY_LEVELS (-1: the format's own) */
    int no_crt;         /* OZBLAS_NO_CRT        */
    int no_dot2;        /* OZBLAS_NO_DOT2       */
    int no_deep;        /* OZBLAS_NO_DEEP       */
    int no_dnnl;        /* OZBLAS_NO_DNNL       */
    int cuda_emulate;   /* OZBLAS_CUDA_EMULATE  */
    int cuda_staged;    /* OZBLAS_CUDA_STAGED   */
    int cuda_no_fused;  /* OZBLAS_CUDA_NO_FUSED */
    int cuda_no_eft;    /* OZBLAS_CUDA_NO_EFT   */
    int cuda_emu_order; /* OZBLAS_CUDA_EMU_ORDER */
    int fail_alloc;     /* OZBLAS_FAIL_ALLOC    */
    int cuda_fail[4];   /* OZBLAS_CUDA_FAIL_ALLOC, _COPY, _LAUNCH, _BLAS (cuda/dev.c) */
} ozb_knobs;

typedef enum { OZB_KNOB_SET, OZB_KNOB_ONE, OZB_KNOB_INT } ozb_knob_kind;

typedef struct {
    const char   *name;
    ozb_knob_kind kind;       /* SET: on when set to anything; ONE: on when it starts with '1'; INT: its value */
    int           dflt;       /* value when unset */
    int           test_only;  /* 1: a test knob (both paths give the same bits) */
    const char   *doc;
    size_t        offset;     /* of its field in ozb_knobs */
} ozb_knob_def;

/* The list (its count in *count).  A function, not exported data: a program that links the
 * static library beside the shared one (white-box tests) would otherwise hold two
 * definitions of one global (ASan's ODR check). */
const ozb_knob_def *ozb_knob_list(int *count);

/* Reads every knob from the environment (the library's only getenv). */
void ozb_knobs_read(ozb_knobs *k);
#endif
