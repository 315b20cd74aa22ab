/* test_util_lib.c — the util layer: checked arithmetic at the int64 and
 * size_t edges, the saturating count, xprintf, and file_read_all's bounds
 * (a file at and over the limit, a directory, a device, a pipe that keeps
 * writing). Expected values are derived by hand next to each check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"
#include "tssa/util.h"

static void test_checked_arithmetic(void)
{
    int64_t r;
    CHECK(ckd_add_i64(&r, INT64_MAX - 1, 1) && r == INT64_MAX);
    CHECK(!ckd_add_i64(&r, INT64_MAX, 1));
    CHECK(ckd_sub_i64(&r, INT64_MIN + 1, 1) && r == INT64_MIN);
    CHECK(!ckd_sub_i64(&r, INT64_MIN, 1));
    /* 3037000499^2 = 9223372030926249001 < 2^63 - 1; 3037000500^2 is over. */
    CHECK(ckd_mul_i64(&r, 3037000499, 3037000499) && r == INT64_C(9223372030926249001));
    CHECK(!ckd_mul_i64(&r, 3037000500, 3037000500));
    CHECK(!ckd_mul_i64(&r, INT64_MIN, -1));
    size_t z;
    CHECK(!ckd_mul_size(&z, SIZE_MAX / 2 + 1, 2));
    CHECK(ckd_add_size(&z, SIZE_MAX - 1, 1) && z == SIZE_MAX);
    CHECK(!ckd_add_size(&z, SIZE_MAX, 1));

    int64_t shape[] = {2, 3, 4};
    CHECK(ckd_product_i64(&r, shape, 3) && r == 24);
    CHECK(ckd_product_i64(&r, shape, 0) && r == 1);         /* a 0-d tensor has one element */
    int64_t huge[] = {INT64_C(1) << 32, INT64_C(1) << 31};  /* 2^63: over by one */
    CHECK(!ckd_product_i64(&r, huge, 2));

    CHECK(sat_add_i64(5, 6, 100) == 11);
    CHECK(sat_add_i64(60, 60, 100) == 100);
    CHECK(sat_add_i64(INT64_MAX, 1, INT64_MAX / 4) == INT64_MAX / 4);
}

static void test_xprintf(void)
{
    char *s = xprintf("%s-%d-%.1f", "a", 42, 0.5);
    CHECK(strcmp(s, "a-42-0.5") == 0);
    free(s);
    char long_text[300];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    s = xprintf("[%s]", long_text);
    CHECK(strlen(s) == 301 && s[0] == '[' && s[300] == ']');
    free(s);
}

static char *read_with_limit(const char *path, size_t limit, size_t *len, char **message)
{
    char *text = NULL;
    FILE *err = test_capture_open();
    bool ok = file_read_all(path, limit, &text, len, err);
    *message = test_capture_close(err, NULL);
    return ok ? text : NULL;
}

static void test_file_read_all(void)
{
    char dir[] = "/tmp/tssa_util_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/ten", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite("0123456789", 1, 10, f) == 10);
    fclose(f);

    size_t len = 0;
    char *message;
    char *text = read_with_limit(path, 10, &len, &message);   /* exactly at the limit */
    CHECK(text && len == 10 && memcmp(text, "0123456789", 10) == 0 && text[10] == '\0');
    CHECK(message && message[0] == '\0');
    free(text);
    free(message);

    text = read_with_limit(path, 9, &len, &message);          /* one byte over */
    CHECK(!text);
    CHECK_CONTAINS(message, "is larger than the 9 bytes limit on this kind of input (10 bytes)");
    free(message);

    text = read_with_limit(dir, 100, &len, &message);
    CHECK(!text);
    CHECK_CONTAINS(message, "is a directory, not a file to read");
    free(message);

    text = read_with_limit("/dev/zero", 100, &len, &message);
    CHECK(!text);
    CHECK_CONTAINS(message, "is a device, not a file to read");
    free(message);

    snprintf(path, sizeof path, "%s/none", dir);
    text = read_with_limit(path, 100, &len, &message);
    CHECK(!text);
    CHECK_CONTAINS(message, "cannot open: No such file or directory");
    free(message);

    /* A pipe that would write forever: reading stops just past the limit. */
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        char block[4096];
        memset(block, 'g', sizeof block);
        while (write(fds[1], block, sizeof block) > 0)
            ;
        _exit(0);
    }
    close(fds[1]);
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    text = read_with_limit(path, 1 << 20, &len, &message);
    CHECK(!text);
    CHECK_CONTAINS(message, "is larger than the 1 MiB limit on this kind of input (stopped reading there)");
    free(message);
    close(fds[0]);
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);

    snprintf(path, sizeof path, "%s/ten", dir);
    unlink(path);
    rmdir(dir);
}

/* The thread spans of --trace: none while recording is off; with it on,
 * every finished span comes out once, across takes smaller than the
 * backlog (100 spans in takes of at most 64), with its thread and
 * start <= end. */
static void test_trace_thread_spans(void)
{
    trace_thread_span(0, 1);
    trace_thread_span(0, 0);
    TraceThreadSpan got[64];
    CHECK(trace_threads_take(got, 64) == 0);
    trace_threads_record(true);
    for (int i = 0; i < 100; i++) {
        trace_thread_span(i % 2 ? 3 : 0, 1);
        trace_thread_span(i % 2 ? 3 : 0, 0);
    }
    int total = 0, odd = 0, ordered = 0;
    for (int n; (n = trace_threads_take(got, 64)) > 0; total += n)
        for (int i = 0; i < n; i++) {
            odd += got[i].thread == 3;
            ordered += got[i].start_s <= got[i].end_s;
        }
    CHECK(total == 100 && odd == 50 && ordered == 100);
    trace_threads_record(false);
}

int main(void)
{
    test_checked_arithmetic();
    test_xprintf();
    test_file_read_all();
    test_trace_thread_spans();
    return test_report("util_lib");
}
