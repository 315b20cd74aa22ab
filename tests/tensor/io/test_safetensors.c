/* test_safetensors.c — the safetensors reader against files in the reference
 * writer's layout (tests/tensor/io/gen_files.py writes them from torch tensors).
 *
 *   valid files  (tensor/io/safetensors/valid.txt): tensor names in header order,
 *                every tensor's dtype, shape and values, the __metadata__
 *                entries, and absent names/keys giving NULL; both from the
 *                file and from memory; tensors outlive the Safetensors.
 *   bad files    (tensor/io/safetensors/bad.txt): each must fail with one line
 *                "PATH: error: ..." containing the listed words.
 */
#include <stdlib.h>
#include <string.h>

#include "tensor/io/io_test_util.h"
#include "tssa/io.h"
#include "tssa/tensor.h"

/* Checks one manifest line against st. */
static void check_line(const Safetensors *st, char **words, int n, const char *path)
{
    const char *kind = words[1];
    if (strcmp(kind, "count") == 0) {
        CHECK_MSG(safetensors_count(st) == atoi(words[2]), "%s: %d tensors, expected %s", path,
                  safetensors_count(st), words[2]);
        CHECK_MSG(safetensors_name(st, safetensors_count(st)) == NULL && !safetensors_name(st, -1),
                  "%s: safetensors_name out of range is not NULL", path);
    } else if (strcmp(kind, "order") == 0) {
        for (int i = 2; i < n; i++) {
            const char *name = safetensors_name(st, i - 2);
            CHECK_MSG(name && strcmp(name, words[i]) == 0, "%s: tensor %d is %s, expected %s", path,
                      i - 2, name ? name : "(none)", words[i]);
        }
    } else if (strcmp(kind, "meta") == 0 && n == 4) {
        const char *value = safetensors_metadata(st, words[2]);
        CHECK_MSG(value && strcmp(value, words[3]) == 0, "%s: metadata %s is %s, expected %s", path,
                  words[2], value ? value : "(none)", words[3]);
    } else if (strcmp(kind, "no-meta") == 0 && n == 3) {
        CHECK_MSG(safetensors_metadata(st, words[2]) == NULL, "%s: metadata %s should be absent",
                  path, words[2]);
        CHECK_MSG(safetensors_get(st, words[2]) == NULL, "%s: tensor %s should be absent", path,
                  words[2]);
    } else if (strcmp(kind, "tensor") == 0 && n >= 5) {
        char what[512];
        snprintf(what, sizeof what, "%s: tensor %s", path, words[2]);
        Tensor *t = safetensors_get(st, words[2]);
        CHECK_MSG(t, "%s: missing", what);
        test_tensor_matches(t, words + 3, n - 3, what);
        Tensor *again = safetensors_get(st, words[2]);
        CHECK_MSG(again == t, "%s: a second get returns another tensor", what);
        tensor_release(again);
        tensor_release(t);
    } else {
        CHECK_MSG(false, "%s: bad manifest line kind %s", path, kind);
    }
}

/* One valid file (a manifest line "NAME ..." split into words[0..n)). */
static void check_valid_file(const char *path, char **words, int n)
{
    Safetensors *st = safetensors_open(path, stderr);
    CHECK_MSG(st, "%s: safetensors_open failed", path);
    if (st)
        check_line(st, words, n, path);
    safetensors_close(st);

    size_t len;
    unsigned char *bytes = test_read_file(path, &len);
    st = bytes ? safetensors_parse(bytes, len, words[0], stderr) : NULL;
    CHECK_MSG(st, "%s: safetensors_parse failed", path);
    /* The parse copied what it needs: the buffer can go first. */
    if (bytes)
        memset(bytes, 0xEE, len);
    free(bytes);
    if (st)
        check_line(st, words, n, words[0]);
    safetensors_close(st);
}

static void test_valid_files(void)
{
    int lines = test_for_each_valid_file("tensor/io/safetensors", 3, check_valid_file);
    CHECK_MSG(lines >= 30, "only %d valid manifest lines", lines);
}

/* Tensors stay valid after their Safetensors is closed. */
static void test_tensor_outlives_file(void)
{
    Safetensors *st = safetensors_open("tensor/io/safetensors/valid/no_metadata.safetensors", stderr);
    CHECK_MSG(st, "cannot open no_metadata.safetensors");
    Tensor *t = st ? safetensors_get(st, "only") : NULL;
    safetensors_close(st);
    CHECK_MSG(t && t->dtype == DT_I32 && tensor_numel(t) == 3 &&
              ((int32_t *)tensor_data(t))[0] == 1 && ((int32_t *)tensor_data(t))[2] == 3,
              "tensor 'only' did not survive closing its file");
    tensor_release(t);
    safetensors_close(NULL);
    CHECK_MSG(safetensors_get(NULL, "x") == NULL && safetensors_count(NULL) == 0,
              "NULL Safetensors is not handled");
}

/* One bad file: every way of reading it fails with the manifest's words. */
static void check_bad_file(const char *path, const char *name, const char *words)
{
    FILE *err = test_capture_open();
    Safetensors *st = safetensors_open(path, err);
    char *message = test_capture_close(err, NULL);
    CHECK_MSG(!st, "%s: safetensors_open accepted a bad file", path);
    test_check_error(message, path, words, path);
    safetensors_close(st);
    free(message);

    size_t len;
    unsigned char *bytes = test_read_file(path, &len);
    CHECK_MSG(bytes, "%s: cannot read", path);
    err = test_capture_open();
    st = bytes ? safetensors_parse(bytes, len, name, err) : NULL;
    message = test_capture_close(err, NULL);
    CHECK_MSG(!st, "%s: safetensors_parse accepted a bad file", path);
    test_check_error(message, name, words, path);
    safetensors_close(st);
    free(message);
    free(bytes);
}

static void test_bad_files(void)
{
    int cases = test_for_each_bad_file("tensor/io/safetensors", check_bad_file);
    CHECK_MSG(cases >= 30, "only %d bad cases in the manifest", cases);

    FILE *err = test_capture_open();
    Safetensors *st = safetensors_open("tensor/io/safetensors/none.safetensors", err);
    char *message = test_capture_close(err, NULL);
    CHECK_MSG(!st, "a missing file was opened");
    test_check_error(message, "tensor/io/safetensors/none.safetensors", "cannot open", "missing file");
    free(message);
}

int main(void)
{
    test_valid_files();
    test_tensor_outlives_file();
    test_bad_files();
    return test_report("test_safetensors");
}
