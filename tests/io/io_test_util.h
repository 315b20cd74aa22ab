/* io_test_util.h — small helpers shared by the .npy and safetensors tests:
 * checks that count failures instead of stopping, whole-file reading,
 * capturing what a reader prints to its error stream, and comparing a
 * tensor with a manifest line written by gen_files.py ("DTYPE [SHAPE] VALUES...").
 */
#ifndef TSSA_TESTS_IO_TEST_UTIL_H
#define TSSA_TESTS_IO_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tssa/tensor.h"

extern int test_failures;

/* Records a failure (with where it was checked) unless cond holds. */
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            test_failures++;                                                   \
            fprintf(stderr, "%s:%d: check failed: ", __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* The whole file in a malloc'd buffer (never NULL on success, even when
 * empty), or NULL if it cannot be read. */
unsigned char *test_read_file(const char *path, size_t *len);

/* A temporary stream for a reader's messages, and its text afterwards
 * (malloc'd; the stream is closed). */
FILE *test_capture_open(void);
char *test_capture_close(FILE *f);

/* Splits a line into whitespace-separated words in place; returns the count. */
int test_split_words(char *line, char **words, int max_words);

/* Compares t with "DTYPE [SHAPE] VALUES..." (words[0..n-1]): dtype name,
 * shape, and every value exactly (floats bit for bit, NaN matching NaN).
 * `what` names the case in messages. Returns true if all match. */
bool test_tensor_matches(const Tensor *t, char **words, int n, const char *what);

/* Checks that a failed read printed exactly one line
 * "NAME: error: ..." containing `words`. */
void test_check_error(const char *message, const char *name, const char *words, const char *what);

#endif
