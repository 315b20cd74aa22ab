/* test_npy.c — the .npy reader and writer against files numpy wrote.
 *
 *   valid files   (tensor/io/npy/valid.txt): every dtype, format 1.0/2.0/3.0, 0-d,
 *                 empty, hand-written headers; read from a path, from memory
 *                 and through a pipe, each must hold what numpy.load returned.
 *   bad files     (tensor/io/npy/bad.txt): each must fail with one line
 *                 "PATH: error: ..." containing the listed words.
 *   writing       tensors and strided views of them must come out byte for
 *                 byte as numpy.save wrote the same arrays (tensor/io/npy/write/),
 *                 read back to the same values, and be written atomically.
 * Expected values come from numpy via gen_files.py, never from this code.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tensor/io/io_test_util.h"
#include "tssa/io.h"
#include "tssa/tensor.h"

static char temp_dir[] = "/tmp/tssa_test_npy_XXXXXX";

/* ---------------------------------------------------------------- reading */

/* Reads `path` through a pipe (as /proc/self/fd/N), exercising the reader
 * for streams of unknown length. Returns false if pipes cannot be used so. */
static bool read_through_pipe(const unsigned char *bytes, size_t len, Tensor **out, char **message)
{
    int fds[2];
    if (len > 60000 || access("/proc/self/fd", F_OK) != 0 || pipe(fds) != 0)
        return false;
    bool ok = write(fds[1], bytes, len) == (ssize_t)len;
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
    FILE *err = test_capture_open();
    *out = ok ? npy_read(path, err) : NULL;
    *message = test_capture_close(err, NULL);
    close(fds[0]);
    return ok;
}

/* One valid file (a manifest line "NAME ..." split into words[0..n)). */
static void check_valid_file(const char *path, char **words, int n)
{
    Tensor *t = npy_read(path, stderr);
    CHECK_MSG(t, "%s: npy_read failed", path);
    test_tensor_matches(t, words + 1, n - 1, path);
    CHECK_MSG(!t || tensor_is_contiguous(t), "%s: not contiguous", path);
    tensor_release(t);

    size_t len;
    unsigned char *bytes = test_read_file(path, &len);
    CHECK_MSG(bytes, "%s: cannot read", path);
    if (!bytes)
        return;
    t = npy_parse(bytes, len, words[0], stderr);
    CHECK_MSG(t, "%s: npy_parse failed", path);
    test_tensor_matches(t, words + 1, n - 1, words[0]);
    tensor_release(t);

    char *message = NULL;
    if (read_through_pipe(bytes, len, &t, &message)) {
        CHECK_MSG(t, "%s through a pipe: %s", path, message);
        test_tensor_matches(t, words + 1, n - 1, path);
        tensor_release(t);
    }
    free(message);

    /* Written back and read again, the same values come out. */
    char out[512];
    snprintf(out, sizeof out, "%s/%s", temp_dir, words[0]);
    t = npy_read(path, stderr);
    CHECK_MSG(t && npy_write(out, t, stderr), "%s: cannot write it back", path);
    tensor_release(t);
    t = npy_read(out, stderr);
    test_tensor_matches(t, words + 1, n - 1, out);
    tensor_release(t);
    free(bytes);
}

static void test_valid_files(void)
{
    int cases = test_for_each_valid_file("tensor/io/npy", 1, check_valid_file);
    CHECK_MSG(cases >= 25, "only %d valid cases in the manifest", cases);
}

/* One bad file: every way of reading it fails with the manifest's words. */
static void check_bad_file(const char *path, const char *name, const char *words)
{
    FILE *err = test_capture_open();
    Tensor *t = npy_read(path, err);
    char *message = test_capture_close(err, NULL);
    CHECK_MSG(!t, "%s: npy_read accepted a bad file", path);
    test_check_error(message, path, words, path);
    tensor_release(t);
    free(message);

    size_t len;
    unsigned char *bytes = test_read_file(path, &len);
    CHECK_MSG(bytes, "%s: cannot read", path);
    if (!bytes)
        return;
    err = test_capture_open();
    t = npy_parse(bytes, len, name, err);
    message = test_capture_close(err, NULL);
    CHECK_MSG(!t, "%s: npy_parse accepted a bad file", path);
    test_check_error(message, name, words, path);
    tensor_release(t);
    free(message);

    if (read_through_pipe(bytes, len, &t, &message)) {
        CHECK_MSG(!t, "%s: accepted through a pipe", path);
        CHECK_MSG(message && strstr(message, ": error: ") && strstr(message, words),
                  "%s through a pipe: message lacks \"%s\": %s", path, words, message);
        tensor_release(t);
    }
    free(message);
    free(bytes);
}

static void test_bad_files(void)
{
    int cases = test_for_each_bad_file("tensor/io/npy", check_bad_file);
    CHECK_MSG(cases >= 40, "only %d bad cases in the manifest", cases);
}

static void test_missing_file(void)
{
    FILE *err = test_capture_open();
    Tensor *t = npy_read("tensor/io/npy/no_such_file.npy", err);
    char *message = test_capture_close(err, NULL);
    CHECK_MSG(!t, "a missing file was read");
    test_check_error(message, "tensor/io/npy/no_such_file.npy", "cannot open: No such file", "missing");
    free(message);

    err = test_capture_open();
    t = npy_read("tensor/io/npy", err);
    message = test_capture_close(err, NULL);
    CHECK_MSG(!t, "a directory was read");
    test_check_error(message, "tensor/io/npy", "is a directory", "directory");
    free(message);
}

/* ---------------------------------------------------------------- writing */

/* gen_files.py's write_pattern: element i of a fresh tensor. */
static void fill_pattern(Tensor *t)
{
    int64_t numel = tensor_numel(t);
    char *data = tensor_data(t);
    for (int64_t i = 0; i < numel; i++) {
        int64_t v = (i * 7) % 11 - 5;
        switch (t->dtype) {
        case DT_BOOL: data[i] = i % 3 == 0; break;
        case DT_F32: { float f = (float)((double)i * 0.25 - 1.5); memcpy(data + 4 * i, &f, 4); break; }
        case DT_F64: { double f = (double)i * 0.25 - 1.5; memcpy(data + 8 * i, &f, 8); break; }
        case DT_U8: data[i] = (char)(uint8_t)v; break;
        case DT_I8: data[i] = (char)(int8_t)v; break;
        case DT_I16: { int16_t x = (int16_t)v; memcpy(data + 2 * i, &x, 2); break; }
        case DT_I32: { int32_t x = (int32_t)v; memcpy(data + 4 * i, &x, 4); break; }
        default: memcpy(data + 8 * i, &v, 8); break;
        }
    }
}

/* Writes t to the temp dir and checks the bytes against numpy's file. */
static void check_written_like_numpy(const Tensor *t, const char *name)
{
    char out[512], expected_path[512];
    snprintf(out, sizeof out, "%s/%s", temp_dir, name);
    snprintf(expected_path, sizeof expected_path, "tensor/io/npy/write/%s", name);
    CHECK_MSG(npy_write(out, t, stderr), "%s: npy_write failed", name);
    size_t got_len = 0, want_len = 0;
    unsigned char *got = test_read_file(out, &got_len);
    unsigned char *want = test_read_file(expected_path, &want_len);
    CHECK_MSG(want, "cannot read %s", expected_path);
    CHECK_MSG(got && want && got_len == want_len && memcmp(got, want, got_len) == 0,
              "%s: written %zu bytes differ from numpy.save's %zu", name, got_len, want_len);
    free(got);
    free(want);
}

static void test_write_like_numpy(void)
{
    static const struct {
        const char *name;
        TensorDType dtype;
        int ndim;
        int64_t sizes[TENSOR_MAX_DIMS];
    } cases[] = {
        {"f4_2x3.npy", DT_F32, 2, {2, 3}},
        {"f8_5.npy", DT_F64, 1, {5}},
        {"i8_0d.npy", DT_I64, 0, {0}},
        {"i4_0x3.npy", DT_I32, 2, {0, 3}},
        {"i2_2x2x2.npy", DT_I16, 3, {2, 2, 2}},
        {"i1_3.npy", DT_I8, 1, {3}},
        {"u1_4.npy", DT_U8, 1, {4}},
        {"b1_2x3.npy", DT_BOOL, 2, {2, 3}},
        {"f4_16d.npy", DT_F32, 16, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3}},
        {"f4_long_dim0.npy", DT_F32, 2, {1234567, 0}},
        {"f8_pad_1.npy", DT_F64, 9, {0, 1, 1, 1, 1, 10000, 10000, 10000, 10000}},
        {"f8_pad_64.npy", DT_F64, 9, {0, 1, 1, 1, 10, 10000, 10000, 10000, 10000}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Tensor *t = tensor_empty(cases[i].dtype, cases[i].ndim, cases[i].sizes);
        CHECK_MSG(t, "%s: tensor_empty failed", cases[i].name);
        if (!t)
            continue;
        fill_pattern(t);
        check_written_like_numpy(t, cases[i].name);
        tensor_release(t);
    }
}

/* A view's element at logical row-major index i, worked out from its
 * geometry (the views below are over arange, so value == storage offset). */
static float view_value(const Tensor *v, int64_t i)
{
    int64_t offset = v->offset;
    for (int d = v->ndim - 1; d >= 0; d--) {
        offset += (i % v->sizes[d]) * v->strides[d];
        i /= v->sizes[d];
    }
    return (float)offset;
}

static void check_view(Tensor *base, const char *name, int ndim, const int64_t *sizes,
                       const int64_t *strides, int64_t offset)
{
    Tensor *view = tensor_make_view(base, ndim, sizes, strides, offset);
    check_written_like_numpy(view, name);
    char out[512];
    snprintf(out, sizeof out, "%s/%s", temp_dir, name);
    Tensor *back = npy_read(out, stderr);
    CHECK_MSG(back && back->dtype == DT_F32 && tensor_same_shape(back, view), "%s: read back", name);
    for (int64_t i = 0; back && i < tensor_numel(view); i++) {
        float got;
        memcpy(&got, (char *)tensor_data(back) + 4 * i, 4);
        CHECK_MSG(got == view_value(view, i), "%s: element %" PRId64 " is %g, expected %g", name, i,
                  got, view_value(view, i));
    }
    tensor_release(back);
    tensor_release(view);
}

static void test_write_views(void)
{
    /* base = arange(24, float32).reshape(2, 3, 4): strides (12, 4, 1). */
    int64_t base_sizes[3] = {2, 3, 4};
    Tensor *base = tensor_empty(DT_F32, 3, base_sizes);
    float *data = tensor_data(base);
    for (int i = 0; i < 24; i++)
        data[i] = (float)i;

    /* base.transpose(2, 0, 1)[::2]: sizes (4, 2, 3) strides (1, 12, 4), then step 2 on dim 0. */
    check_view(base, "view_permute_step.npy", 3, (int64_t[]){2, 2, 3}, (int64_t[]){2, 12, 4}, 0);
    /* base[1:, ::2, 1]: offset 12 + 1, sizes (1, 2), strides (12, 8). */
    check_view(base, "view_offset.npy", 2, (int64_t[]){1, 2}, (int64_t[]){12, 8}, 13);
    /* base[:, 1, :].T: offset 4, sizes (4, 2), strides (1, 12). */
    check_view(base, "view_column.npy", 2, (int64_t[]){4, 2}, (int64_t[]){1, 12}, 4);
    /* broadcast_to(arange(3), (2, 3)): the first three elements, stride 0 rows. */
    check_view(base, "view_broadcast.npy", 2, (int64_t[]){2, 3}, (int64_t[]){0, 1}, 0);

    /* A view reaching past its storage is refused, not read. */
    Tensor *bad = tensor_make_view(base, 1, (int64_t[]){5}, (int64_t[]){6}, 0);
    char out[512];
    snprintf(out, sizeof out, "%s/bad_view.npy", temp_dir);
    FILE *err = test_capture_open();
    CHECK_MSG(!npy_write(out, bad, err), "a view outside its storage was written");
    char *message = test_capture_close(err, NULL);
    test_check_error(message, out, "outside its storage", "bad view");
    CHECK_MSG(access(out, F_OK) != 0, "a failed write left %s behind", out);
    free(message);
    tensor_release(bad);
    tensor_release(base);
}

static void test_write_errors_and_atomicity(void)
{
    Tensor *t = tensor_empty(DT_I64, 1, (int64_t[]){3});
    fill_pattern(t);
    char path[512];

    snprintf(path, sizeof path, "%s/missing_dir/out.npy", temp_dir);
    FILE *err = test_capture_open();
    CHECK_MSG(!npy_write(path, t, err), "wrote into a missing directory");
    char *message = test_capture_close(err, NULL);
    test_check_error(message, path, "cannot create: No such file or directory", "missing dir");
    free(message);

    err = test_capture_open();
    CHECK_MSG(!npy_write(temp_dir, t, err), "wrote over a directory");
    message = test_capture_close(err, NULL);
    test_check_error(message, temp_dir, "is a directory", "directory");
    free(message);

    /* Overwriting replaces the whole file. */
    snprintf(path, sizeof path, "%s/overwrite.npy", temp_dir);
    Tensor *big = tensor_empty(DT_F64, 1, (int64_t[]){1000});
    fill_pattern(big);
    CHECK_MSG(npy_write(path, big, stderr) && npy_write(path, t, stderr), "overwrite failed");
    Tensor *back = npy_read(path, stderr);
    CHECK_MSG(back && back->dtype == DT_I64 && back->ndim == 1 && back->sizes[0] == 3 &&
              memcmp(tensor_data(back), tensor_data(t), 24) == 0,
              "overwritten file does not hold the second tensor");
    tensor_release(back);
    tensor_release(big);

    /* Devices are written in place (no rename over /dev/null). */
    if (access("/dev/null", W_OK) == 0)
        CHECK_MSG(npy_write("/dev/null", t, stderr), "cannot write to /dev/null");

    /* No temporary file survives any of the writes above. */
    DIR *dir = opendir(temp_dir);
    for (struct dirent *e = dir ? readdir(dir) : NULL; e; e = readdir(dir))
        CHECK_MSG(!strstr(e->d_name, ".tmp."), "temporary file %s left behind", e->d_name);
    if (dir)
        closedir(dir);
    tensor_release(t);
}

static void remove_temp_dir(void)
{
    DIR *dir = opendir(temp_dir);
    for (struct dirent *e = dir ? readdir(dir) : NULL; e; e = readdir(dir)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", temp_dir, e->d_name);
        unlink(path);
    }
    if (dir)
        closedir(dir);
    rmdir(temp_dir);
}

int main(void)
{
    if (!mkdtemp(temp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_valid_files();
    test_bad_files();
    test_missing_file();
    test_write_like_numpy();
    test_write_views();
    test_write_errors_and_atomicity();
    remove_temp_dir();
    return test_report("test_npy");
}
