/* The interposer's configuration (OZBLAS_PRELOAD_* variables, read once by
 * ozblas_preload.c) for the pdgemm_ interposer (preload_pdgemm.c), which configures a handle
 * of its own library: mode, split count, fast mode, engine (ozblas_engine_t), threads,
 * verbose. */
#ifndef OZB_PRELOAD_SETTINGS_H
#define OZB_PRELOAD_SETTINGS_H
void ozb_preload_settings(int *mode, int *split, int *fast, int *engine, int *threads, int *verbose);
#endif
