/* cc_jit.h — generated C compiled at run time, cached on disk, loaded with
 * dlopen (kernels layer: the kernels' C, and the cuda backend's CPU shim).
 *
 *     CcJitStats st;
 *     CcLibrary *lib = cc_jit_load(src, strlen(src), NULL, &st, stderr);
 *     if (!lib) return 1;                      // the message is written
 *     int (*twice)(int) = (int (*)(int))cc_jit_symbol(lib, "twice");
 *     ...
 *     cc_jit_close(lib);
 *
 * The source is compiled with the system C compiler into a shared object:
 *     CC -O3 -march=native -fopenmp -shared -fPIC -std=c11 [sanitizers]
 *        [extra_flags] -o OUT.so SRC.c -lm
 * where [sanitizers] are the build's own (TSSA_SANITIZE) so that the object
 * can be loaded into an instrumented process.
 *
 * The cache: DIR/<key>.so, DIR/<key>.so.sum (its size and checksum) and
 * DIR/<key>.c (the source, for a reader to see what ran), where <key> is a
 * 128-bit FNV-1a hash, in hex, of the source, the compiler command as given,
 * the compiler's identity (resolved path, its -dumpfullversion -dumpmachine
 * output, found once per process), the host CPU (/proc/cpuinfo, as
 * -march=native depends on it) and the whole flag string. A hit also needs
 * the stored .c to equal the source byte for byte (a guard against
 * collisions and edits), the .so to match its .sum (a file cut short or
 * copied over is never loaded) and to define opts->symbols; otherwise the
 * source is compiled again and the entry replaced. DIR and its entries are
 * used only when they belong to the effective user and nobody else can
 * write them (util/cache_trust.c; never through a symbolic link): an
 * untrusted folder gets a warning (once per process) and a temporary folder
 * instead, an untrusted entry a warning and a fresh compile that replaces
 * it. Files are written under temporary names (<key>.so.tmp.<pid>.<random>)
 * and renamed into place, so processes compiling the same source at once
 * (MPI ranks) never see a partial file; a failure leaves no temporary file
 * behind. Deleting DIR (or any file in it) at any time is safe.
 */
#ifndef TSSA_CC_JIT_H
#define TSSA_CC_JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct CcJitOptions {
    /* The compiler: a path, or a name looked up in PATH (one word: it is
     * never split at spaces, so paths with spaces work). NULL: $CC (or
     * $CXX) when it has a word, split into words as sh does ("gcc -O0",
     * "ccache gcc", quotes for a path with spaces; no expansion) with the
     * first word looked up in PATH, else "cc" (or "c++"). */
    const char *compiler;
    /* Appended to the flags, split at spaces and tabs (no quoting), e.g.
     * "-Wall -Werror". NULL: none. Part of the cache key. */
    const char *extra_flags;
    /* NULL: $TSSA_CACHE_DIR, else $XDG_CACHE_HOME/tssa-stream, else
     * $HOME/.cache/tssa-stream. Made (mkdir -p, mode 0700) when missing;
     * when it cannot be made or written, a temporary directory is used
     * instead, with a one-line warning. */
    const char *cache_dir;
    /* Compile into a private temporary directory and remove it after
     * loading (it is kept, with the source alone, when compiling fails). */
    bool no_cache;
    /* The source is C++ (-std=c++17; the compiler defaults to $CXX, else
     * "c++"; the cached source is <key>.cpp). */
    bool cplusplus;
    /* Names the object must define: a cached object that lacks one (some
     * other source's object under this key) is compiled again. NULL: none
     * checked. Not part of the key. */
    const char *const *symbols;
    int nsymbols;
} CcJitOptions;

enum { CC_JIT_PATH_MAX = 4096 };

typedef struct CcJitStats {
    bool cache_hit;             /* nothing was compiled */
    double compile_s;           /* the compiler's run, 0 on a hit */
    double load_s;              /* dlopen */
    /* The shared object (with no_cache or the temporary fallback, a path
     * that has been removed again); "" when none was made. */
    char so_path[CC_JIT_PATH_MAX];
} CcJitStats;

typedef struct CcLibrary CcLibrary;

/* Compiles source[0..len) (or takes it from the cache) and loads it. opts
 * and stats may be NULL. On failure returns NULL and writes to err (NULL:
 * nothing is written, as in diag.h) lines starting "tssa-stream: error:":
 * the compiler not found (naming CC), the compiler's first 40 lines of
 * diagnostics and "the generated source is at PATH", or dlopen's error. */
CcLibrary *cc_jit_load(const char *source, size_t len, const CcJitOptions *opts,
                       CcJitStats *stats, FILE *err);

/* The address of `name` in lib, or NULL (and no message) when absent. */
void *cc_jit_symbol(const CcLibrary *lib, const char *name);

/* Unloads lib (NULL is allowed). Its symbols must not be used afterwards. */
void cc_jit_close(CcLibrary *lib);

#endif
