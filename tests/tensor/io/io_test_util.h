/* io_test_util.h — helpers the .npy and safetensors tests share beyond
 * tests/test_util.h (checks, file reading, stream capture): splitting
 * manifest lines, comparing a tensor with a manifest line written by
 * gen_files.py ("DTYPE [SHAPE] VALUES..."), and checking a reader's message.
 */
#ifndef TSSA_TESTS_IO_TEST_UTIL_H
#define TSSA_TESTS_IO_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "test_util.h"
#include "tssa/tensor.h"

/* Splits a line into whitespace-separated words in place; returns the count. */
int test_split_words(char *line, char **words, int max_words);

/* Calls check(path, words, n) for every line of DIR/valid.txt (comments
 * start with '#') that splits into at least min_words words, path being
 * DIR/valid/WORDS[0]; returns the number of such lines (0, with a failed
 * check, when the manifest cannot be read). */
int test_for_each_valid_file(const char *dir, int min_words,
                             void (*check)(const char *path, char **words, int n));

/* Calls check(path, name, words) for every line "NAME<tab>WORDS" of
 * DIR/bad.txt (comments start with '#'), path being DIR/bad/NAME; returns the
 * number of cases (0, with a failed check, when the manifest cannot be read). */
int test_for_each_bad_file(const char *dir,
                           void (*check)(const char *path, const char *name, const char *words));

/* Compares t with "DTYPE [SHAPE] VALUES..." (words[0..n-1]): dtype name,
 * shape, and every value exactly (floats bit for bit, NaN matching NaN).
 * `what` names the case in messages. Returns true if all match. */
bool test_tensor_matches(const Tensor *t, char **words, int n, const char *what);

/* Checks that a failed read printed exactly one line
 * "NAME: error: ..." containing `words`. */
void test_check_error(const char *message, const char *name, const char *words, const char *what);

#endif
