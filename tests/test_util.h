/* test_util.h — the helpers every C test program of this repository shares:
 * checks that count failures instead of stopping (so one run reports every
 * broken case), reading a whole file, capturing what a printer or a reader
 * writes to a stream, and comparing floats with a relative and absolute
 * tolerance the way torch.allclose does (NaN matches NaN only when asked,
 * infinities must be equal).
 *
 * Link tests/test_util.c into the program; test_failures is its one counter,
 * which main() reports and turns into the exit status.
 */
#ifndef TSSA_TESTS_TEST_UTIL_H
#define TSSA_TESTS_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Failed checks so far (all CHECK macros count here). */
extern int test_failures;

/* Records a failure with the condition's text unless cond holds. */
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);          \
            test_failures++;                                                         \
        }                                                                            \
    } while (0)

/* The same with a printf-style explanation of the failed case. */
#define CHECK_MSG(cond, ...)                                                         \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            test_failures++;                                                         \
        }                                                                            \
    } while (0)

/* Checks that `text` contains `part`, printing both when not. */
#define CHECK_CONTAINS(text, part)                                                   \
    do {                                                                             \
        const char *text_ = (text), *part_ = (part);                                 \
        if (!text_ || !strstr(text_, part_)) {                                       \
            fprintf(stderr, "FAIL %s:%d: expected \"%s\" in:\n%s\n", __FILE__,       \
                    __LINE__, part_, text_ ? text_ : "(null)");                      \
            test_failures++;                                                         \
        }                                                                            \
    } while (0)

/* The end of main(): "PROGRAM: N checks failed" on stderr and 1 when any
 * check failed, else "PROGRAM: all checks passed" and 0. */
int test_report(const char *program);

/* The whole file in a malloc'd buffer with a '\0' after its last byte (so
 * text files are C strings; never NULL on success, even when empty), its
 * length in *len unless len is NULL. NULL if the file cannot be read. */
void *test_read_file(const char *path, size_t *len);

/* A temporary stream for a printer's or reader's output, and its text
 * afterwards (malloc'd; the stream is closed; the length in *len unless len
 * is NULL). Exits the test when no temporary file can be made. */
FILE *test_capture_open(void);
char *test_capture_close(FILE *f, size_t *len);

/* |actual - expected| <= atol + rtol * |expected| (torch.allclose); a NaN
 * matches only a NaN, an infinity only the same infinity. */
bool test_near(double actual, double expected, double rtol, double atol);

#endif
