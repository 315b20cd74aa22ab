/* file_read.c — whole-file reading for the text readers (graph text, .str).
 *
 * The file is read in growing chunks rather than sized with stat, so pipes
 * and other streams read the same way as regular files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/util.h"

bool file_read_all(const char *path, char **text, size_t *len, FILE *err)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error(err, path, "cannot open: %s", strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    int saved = errno;
    fclose(f);
    if (failed) {
        diag_error(err, path, "cannot read: %s", strerror(saved));
        free(buf);
        return false;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return true;
}
