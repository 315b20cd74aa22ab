/* file_read.c — whole-file reading for the text readers (graph text, .str),
 * with a bound.
 *
 * Outside input may be anything a path can name: a directory, a device that
 * never ends (/dev/zero), a pipe whose writer never stops. The reader refuses
 * directories and devices by what fstat says before reading a byte, and
 * reads regular files and pipes in chunks only up to `limit` bytes: a larger
 * regular file is refused from its size alone, and a pipe is refused as soon
 * as it has delivered more than the limit. Memory use is therefore bounded
 * by the limit whatever the path names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tssa/diag.h"
#include "tssa/util.h"

/* "1 GiB", "64 MiB", "512 bytes": a limit as a person reads it. */
static void format_bytes(char *buf, size_t cap, size_t n)
{
    if (n >= (1u << 30) && n % (1u << 30) == 0)
        snprintf(buf, cap, "%zu GiB", n >> 30);
    else if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, cap, "%zu MiB", n >> 20);
    else
        snprintf(buf, cap, "%zu bytes", n);
}

bool file_read_all(const char *path, size_t limit, char **text, size_t *len, FILE *err)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error(err, path, "cannot open: %s", strerror(errno));
        return false;
    }
    char limit_text[32];
    format_bytes(limit_text, sizeof limit_text, limit);
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        diag_error(err, path, "cannot stat: %s", strerror(errno));
        fclose(f);
        return false;
    }
    if (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) {
        diag_error(err, path, "is a %s, not a file to read",
                   S_ISDIR(st.st_mode) ? "directory" : S_ISSOCK(st.st_mode) ? "socket" : "device");
        fclose(f);
        return false;
    }
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > limit) {
        diag_error(err, path, "is larger than the %s limit on this kind of input (%jd bytes)",
                   limit_text, (intmax_t)st.st_size);
        fclose(f);
        return false;
    }
    /* Regular files: their size (and one byte to notice growth). Pipes grow
     * the buffer as data arrives. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : (size_t)1 << 16;
    size_t n = 0;
    char *buf = xmalloc(cap);
    bool too_large = false;
    for (;;) {
        if (n + 1 >= cap) {
            cap = cap > limit / 2 ? limit + 2 : cap * 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n > limit) {
            too_large = true;
            break;
        }
        if (got == 0)
            break;
    }
    bool failed = !too_large && ferror(f);
    int saved = errno;
    fclose(f);
    if (too_large || failed) {
        if (too_large)
            diag_error(err, path, "is larger than the %s limit on this kind of input "
                                  "(stopped reading there)", limit_text);
        else
            diag_error(err, path, "cannot read: %s", strerror(saved));
        free(buf);
        return false;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return true;
}
