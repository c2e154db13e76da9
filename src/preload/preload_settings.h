/* What ozblas_preload.c shares with the pdgemm_/pdgemv_ interposer (preload_pdgemm.c): the
 * configuration (OZBLAS_PRELOAD_* variables, read once) for a handle of libozblas_mpi's
 * library: mode, split count, fast mode, engine (ozblas_engine_t), threads, verbose; and the
 * reading of a Fortran transpose argument. */
#ifndef OZB_PRELOAD_SETTINGS_H
#define OZB_PRELOAD_SETTINGS_H
void ozb_preload_settings(int *mode, int *split, int *fast, int *engine, int *threads, int *verbose);
/* 0 for N/n, 1 for T/t/C/c (conjugation is nothing for real data), -1 otherwise */
int ozb_preload_fortran_trans(const char *t);
#endif
