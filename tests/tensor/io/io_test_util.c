/* io_test_util.c — see io_test_util.h. */
#include "tensor/io/io_test_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int test_split_words(char *line, char **words, int max_words)
{
    int n = 0;
    for (char *word = strtok(line, " \t\r\n"); word && n < max_words; word = strtok(NULL, " \t\r\n"))
        words[n++] = word;
    return n;
}

/* Parses "[2,3]" into sizes; returns ndim or -1. */
static int parse_shape(const char *text, int64_t *sizes)
{
    if (*text++ != '[')
        return -1;
    int ndim = 0;
    while (*text && *text != ']') {
        char *end;
        long long d = strtoll(text, &end, 10);
        if (end == text || ndim == TENSOR_MAX_DIMS)
            return -1;
        sizes[ndim++] = d;
        text = *end == ',' ? end + 1 : end;
    }
    return *text == ']' ? ndim : -1;
}

static bool value_matches(const Tensor *t, int64_t i, const char *text)
{
    /* npy_read and safetensors return contiguous tensors; index through the
     * strides anyway so views work too. */
    int64_t offset = t->offset;
    int64_t rest = i;
    for (int d = t->ndim - 1; d >= 0; d--) {
        offset += (rest % t->sizes[d]) * t->strides[d];
        rest /= t->sizes[d];
    }
    const char *p = (const char *)t->storage->data + offset * (int64_t)dtype_size(t->dtype);
    char *end;
    switch (t->dtype) {
    case DT_F32: {
        float actual, expected = (float)strtod(text, &end);
        memcpy(&actual, p, 4);
        return isnan(expected) ? isnan(actual) : memcmp(&actual, &expected, 4) == 0;
    }
    case DT_F64: {
        double actual, expected = strtod(text, &end);
        memcpy(&actual, p, 8);
        return isnan(expected) ? isnan(actual) : memcmp(&actual, &expected, 8) == 0;
    }
    default: {
        int64_t expected = strtoll(text, &end, 10), actual;
        switch (t->dtype) {
        case DT_BOOL: actual = *(const unsigned char *)p; break;
        case DT_U8: actual = *(const uint8_t *)p; break;
        case DT_I8: actual = *(const int8_t *)p; break;
        case DT_I16: { int16_t v; memcpy(&v, p, 2); actual = v; break; }
        case DT_I32: { int32_t v; memcpy(&v, p, 4); actual = v; break; }
        default: memcpy(&actual, p, 8); break;
        }
        return actual == expected;
    }
    }
}

bool test_tensor_matches(const Tensor *t, char **words, int n, const char *what)
{
    int failures_before = test_failures;
    CHECK_MSG(n >= 2, "%s: bad manifest line", what);
    if (n < 2 || !t)
        return false;
    CHECK_MSG(strcmp(dtype_name(t->dtype), words[0]) == 0, "%s: dtype %s, expected %s", what,
              dtype_name(t->dtype), words[0]);
    int64_t sizes[TENSOR_MAX_DIMS];
    int ndim = parse_shape(words[1], sizes);
    CHECK_MSG(ndim == t->ndim, "%s: %d dims, expected %s", what, t->ndim, words[1]);
    if (ndim != t->ndim)
        return false;
    for (int d = 0; d < ndim; d++)
        CHECK_MSG(t->sizes[d] == sizes[d], "%s: size[%d] = %" PRId64 ", expected %s", what, d,
                  t->sizes[d], words[1]);
    int64_t numel = tensor_numel(t);
    CHECK_MSG(numel == n - 2, "%s: %" PRId64 " elements, manifest has %d", what, numel, n - 2);
    for (int64_t i = 0; i < numel && i < n - 2; i++)
        CHECK_MSG(value_matches(t, i, words[2 + i]), "%s: element %" PRId64 " differs from %s", what,
                  i, words[2 + i]);
    return test_failures == failures_before;
}

void test_check_error(const char *message, const char *name, const char *words, const char *what)
{
    if (!message)
        message = "(no message)";
    size_t name_len = strlen(name);
    CHECK_MSG(strncmp(message, name, name_len) == 0 &&
              strncmp(message + name_len, ": error: ", 9) == 0,
              "%s: message does not start with \"%s: error: \": %s", what, name, message);
    CHECK_MSG(strstr(message, words), "%s: message lacks \"%s\": %s", what, words, message);
    const char *newline = strchr(message, '\n');
    CHECK_MSG(newline && newline[1] == '\0', "%s: expected exactly one line: %s", what, message);
}

/* DIR/NAME opened for reading, or NULL with a failed check. */
static FILE *open_manifest(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    CHECK_MSG(f, "cannot open %s (run from tests/)", path);
    return f;
}

int test_for_each_valid_file(const char *dir, int min_words,
                             void (*check)(const char *path, char **words, int n))
{
    enum { MAX_WORDS = 256 };
    FILE *manifest = open_manifest(dir, "valid.txt");
    if (!manifest)
        return 0;
    char line[16384];
    int cases = 0;
    while (fgets(line, sizeof line, manifest)) {
        if (line[0] == '#')
            continue;
        char *words[MAX_WORDS];
        int n = test_split_words(line, words, MAX_WORDS);
        if (n < min_words || n == 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/valid/%s", dir, words[0]);
        cases++;
        check(path, words, n);
    }
    fclose(manifest);
    return cases;
}

int test_for_each_bad_file(const char *dir,
                           void (*check)(const char *path, const char *name, const char *words))
{
    FILE *manifest = open_manifest(dir, "bad.txt");
    if (!manifest)
        return 0;
    char line[1024];
    int cases = 0;
    while (fgets(line, sizeof line, manifest)) {
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab)
            continue;
        *tab = '\0';
        const char *words = tab + 1;
        tab[strcspn(tab + 1, "\r\n") + 1] = '\0';
        char path[1100];
        snprintf(path, sizeof path, "%s/bad/%s", dir, line);
        cases++;
        check(path, line, words);
    }
    fclose(manifest);
    return cases;
}
