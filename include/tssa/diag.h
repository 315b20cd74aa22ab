/* diag.h — error messages that point into the input, shared by every reader
 * of outside input (graph text, .str text, .npy, safetensors, the command
 * line), plus the one way to stop on an internal bug.
 *
 * Text inputs:   FILE:LINE:COL: error: WHAT
 *                <the offending line>
 *                <spaces>^
 * Binary inputs: FILE: error: WHAT
 *
 * LINE and COL count from 1; COL counts characters (UTF-8 code points, an
 * invalid byte counts as one), so the caret lines up under the character.
 * Every function accepts err == NULL and then prints nothing (callers that
 * only want to know whether input is valid, such as fuzzers).
 */
#ifndef TSSA_DIAG_H
#define TSSA_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__)
#define DIAG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define DIAG_NORETURN __attribute__((noreturn))
#else
#define DIAG_PRINTF(f, a)
#define DIAG_NORETURN
#endif

/* A text being read: its name for messages and its bytes (text may be
 * NULL once the text is gone: messages then give the location alone). */
typedef struct DiagSource {
    const char *file;
    const char *text;
    size_t len;
} DiagSource;

/* Line and column (both from 1) of byte `offset` in src. */
void diag_locate(const DiagSource *src, size_t offset, int *line, int *col);

/* Located error at byte `offset` of src (clamped to the text). */
void diag_error_at(FILE *err, const DiagSource *src, size_t offset, const char *fmt, ...)
    DIAG_PRINTF(4, 5);
void diag_verror_at(FILE *err, const DiagSource *src, size_t offset, const char *fmt,
                    va_list ap);
/* Located error at a known line and column (column 1 when col <= 0). */
void diag_error_line(FILE *err, const DiagSource *src, int line, int col, const char *fmt, ...)
    DIAG_PRINTF(5, 6);
/* Unlocated error for binary files or whole-file problems: "FILE: error: WHAT". */
void diag_error(FILE *err, const char *file, const char *fmt, ...) DIAG_PRINTF(3, 4);
void diag_verror(FILE *err, const char *file, const char *fmt, va_list ap);

/* An internal bug (a broken invariant, not bad input): prints
 * "tssa-stream: internal error: WHAT" and aborts. */
DIAG_NORETURN void diag_die(const char *fmt, ...) DIAG_PRINTF(1, 2);

#endif
