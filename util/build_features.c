/* build_features.c — the optional libraries this build was compiled with
 * (--version lists them), decided by the build's TSSA_USE_* definitions so
 * that no caller needs them. */
#include "tssa/util.h"

const char *tssa_build_libraries(void)
{
    return ""
#ifdef TSSA_USE_OPENMP
           " openmp"
#endif
#ifdef TSSA_USE_HWLOC
           " hwloc"
#endif
#ifdef TSSA_USE_BLAS
           " openblas"
#endif
        ;
}
