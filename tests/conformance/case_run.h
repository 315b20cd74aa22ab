/* case_run.h — one corpus case in one mode, as the case's own process runs
 * it (case_run.c): the modes the conformance runner knows, the tssa-stream
 * runs each mode makes, and the checks of its verdict. conform.c (the
 * runner's command) lists the cases and starts a process per case.
 */
#ifndef TSSA_TESTS_CASE_RUN_H
#define TSSA_TESTS_CASE_RUN_H

#include <stdbool.h>
#include <stdio.h>

/* A way to run a case, and what passing means there (case_run.c's modes[]
 * table says each one's tssa-stream options). */
typedef enum Mode {
    MODE_REF,       /* --backend=ref against PyTorch */
    MODE_CPU,       /* --backend=cpu against PyTorch (the --replaced rule) */
    MODE_TSSA,      /* --emit=tssa, no mutation left, that graph on ref */
    MODE_ROUNDTRIP, /* --emit=stream reads back as .str and schedules */
    MODE_CUDA,      /* --backend=cuda (GPU, else the CPU shim) */
    MODE_FISSION2,  /* --backend=cpu --fission=2 */
    MODE_FISSION3,  /* --backend=cpu --fission=3 */
    MODE_DEVICES3,  /* --backend=cuda --devices 3 */
    MODE_OTHERS,    /* --backend=NAME for every backend of the build's table
                       (backends/registry.c) with no mode above: a new
                       backend runs the corpus with no line here */
    MODE_COUNT
} Mode;

/* Verdicts: a case process's exit status. Any other status (a sanitizer's
 * or valgrind's, or a signal) fails the case too. */
enum { CASE_PASS = 0, CASE_FAIL = 1, CASE_SKIP = 77 };

const char *mode_name(Mode mode);
bool mode_parse(const char *name, size_t len, Mode *out);
bool mode_needs_cuda(Mode mode);

/* Whether the mode checks this case at all: the round trip has nothing to
 * lower in a case that must fail (expect_error.txt). */
bool mode_applies(Mode mode, const char *case_dir);

/* Runs the case in CASE_DIR (the process's working directory becomes it)
 * in `mode`, with scratch files under TMP (an empty directory), and writes
 * the reasons for a failure or a skip to `report`, each problem on a line
 * of its own followed by the run's captured standard error. MODEL, when
 * not NULL, is the graph run instead of the case's model.ir. Returns
 * CASE_PASS, CASE_FAIL or CASE_SKIP. A mode's last tssa-stream run (the
 * only one in ref, cpu, cuda, fission*, devices3) calls tssa_stream_main in
 * this process, whose exit after the verdict is then that run's (its leak
 * check too: the caller must end the process with exit()); the earlier runs
 * of tssa and roundtrip each run in a forked process of its own, whose
 * exit, leak check and status are its own, as they were per program. */
int case_run(Mode mode, const char *case_dir, const char *model, const char *tmp,
             FILE *report);

#endif
