/* test_util.c — see test_util.h. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>

int test_failures;

int test_report(const char *program)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d checks failed\n", program, test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", program);
    return 0;
}

void *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    /* Read in growing chunks rather than trusting ftell: also works for
     * pipes and files that change size while being read. */
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1)
            break;
        char *grown = realloc(buf, cap * 2);
        if (!grown)
            free(buf);
        buf = grown;
        cap *= 2;
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (!buf || failed) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

FILE *test_capture_open(void)
{
    FILE *f = tmpfile();
    if (!f) {
        perror("tmpfile");
        exit(1);
    }
    return f;
}

char *test_capture_close(FILE *f, size_t *len)
{
    long size = ftell(f);
    char *text = malloc((size_t)(size > 0 ? size : 0) + 1);
    rewind(f);
    size_t n = text && size > 0 ? fread(text, 1, (size_t)size, f) : 0;
    if (text)
        text[n] = '\0';
    fclose(f);
    if (len)
        *len = n;
    return text;
}

bool test_near(double actual, double expected, double rtol, double atol)
{
    if (isnan(expected) || isnan(actual))
        return isnan(expected) && isnan(actual);
    if (isinf(expected) || isinf(actual))
        return expected == actual;
    return fabs(actual - expected) <= atol + rtol * fabs(expected);
}
