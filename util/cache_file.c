/* cache_file.c — what the on-disk caches (run-time C kernels, NVRTC
 * binaries, device rates) share: a content key naming an entry, files
 * written whole or not at all (a temporary name, then rename: processes
 * writing one entry at once never see a partial file), and mkdir -p.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tssa/util.h"

/* FNV-1a with 128-bit state: a strong enough spread for a cache key (a
 * collision is also caught by comparing the stored source). */
static void key_bytes(CacheKey *h, const void *data, size_t n)
{
    const CacheKey prime = ((CacheKey)1 << 88) + 0x13B;
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        *h ^= p[i];
        *h *= prime;
    }
}

/* A field with its length first, so that no two field lists hash alike by
 * moving bytes across a boundary. */
void cache_key_add(CacheKey *h, const void *data, size_t n)
{
    uint64_t len = n;
    key_bytes(h, &len, sizeof len);
    key_bytes(h, data, n);
}

CacheKey cache_key_start(void)
{
    return ((CacheKey)0x6c62272e07bb0142u << 64) | 0x62b821756295c58du;
}

void cache_key_hex(CacheKey k, char hex[33])
{
    snprintf(hex, 33, "%016llx%016llx", (unsigned long long)(uint64_t)(k >> 64),
             (unsigned long long)(uint64_t)k);
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

/* Whether the open file fd holds exactly data[0..len) (read from offset 0). */
bool fd_holds_bytes(int fd, const char *data, size_t len)
{
    struct stat st;
    bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == (uint64_t)len;
    char buf[1 << 16];
    size_t at = 0;
    while (same) {
        ssize_t n = pread(fd, buf, sizeof buf, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (size_t)n > len - at)
            same = false;
        else if (n == 0)
            break;
        else {
            same = memcmp(buf, data + at, (size_t)n) == 0;
            at += (size_t)n;
        }
    }
    return same && at == len;
}

bool fd_read_all(int fd, size_t limit, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > (uint64_t)limit)
        return false;
    size_t cap = (size_t)st.st_size + 1;    /* one byte more notices a file that grew */
    char *buf = xmalloc(cap + 1);
    size_t at = 0;
    for (;;) {
        ssize_t n = pread(fd, buf + at, cap - at, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (n > 0 && at + (size_t)n > limit)) {
            free(buf);
            return false;
        }
        if (n == 0)
            break;
        at += (size_t)n;
        if (at == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
    }
    buf[at] = '\0';
    *data = buf;
    *len = at;
    return true;
}

/* Creates "<base>.tmp.<pid>.<random>" exclusively (mode 0600) and returns
 * its path (malloc'd) with the open descriptor in *fd, or NULL with errno. */
char *file_create_temp(const char *base, int *fd)
{
    for (int attempt = 0; attempt < 32; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (uint64_t)time(NULL) * 1000003u ^ ((uint64_t)attempt << 56) ^ (uint64_t)getpid();
        char *path = xprintf("%s.tmp.%ld.%016llx", base, (long)getpid(), (unsigned long long)r);
        *fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (*fd >= 0)
            return path;
        int e = errno;
        free(path);
        if (e != EEXIST) {
            errno = e;
            return NULL;
        }
    }
    errno = EEXIST;
    return NULL;
}

/* Writes data to path through a temporary file and rename(). */
bool file_write_atomic(const char *path, const void *data, size_t len)
{
    int fd;
    char *tmp = file_create_temp(path, &fd);
    if (!tmp)
        return false;
    bool ok = write_all(fd, (const char *)data, len);
    int e = errno;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) != 0) {
        e = errno;
        ok = false;
    }
    if (!ok)
        unlink(tmp);
    free(tmp);
    errno = e;
    return ok;
}

/* mkdir -p, new folders with mode 0700. */
bool mkdir_p(const char *dir)
{
    char *p = xstrdup(dir);
    bool ok = true;
    for (char *s = p + 1; ok && *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        ok = mkdir(p, 0700) == 0 || errno == EEXIST;
        *s = '/';
    }
    struct stat st;
    if (ok)
        ok = (mkdir(p, 0700) == 0 || errno == EEXIST) && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
    int e = errno;
    free(p);
    if (!ok && e == 0)
        e = ENOTDIR;
    errno = e;
    return ok;
}

