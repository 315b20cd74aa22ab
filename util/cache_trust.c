/* cache_trust.c — whether what is on disk in a cache may be used: the rules
 * every cache reader (run-time C kernels, NVRTC binaries, device rates)
 * applies before it believes a byte it did not just write itself.
 *
 * Who could have written it. An entry is code this process will run (a
 * shared object's constructors run inside dlopen) or numbers it will act
 * on, and its name is the same for every user of a machine. So, as ssh does
 * for ~/.ssh and the XDG base directory spec for $XDG_RUNTIME_DIR, a cache
 * is used only when nobody but the effective user (and root) could have
 * written it:
 *   - the cache folder, and each folder below it that a cache uses, belongs
 *     to the user and is not writable by group or others;
 *   - each folder above it belongs to the user or root and is not writable
 *     by group or others unless sticky (/tmp: others may add names there,
 *     but not rename or remove ours);
 *   - an entry is a regular file, never a symbolic link (it is opened with
 *     O_NOFOLLOW), owned by the user and not writable by group or others,
 *     checked on the open descriptor (fstat); callers then read or load
 *     through that descriptor, so what was checked is what is used.
 * The folder is checked through its resolved path (realpath), and callers
 * name entries from that path, so no symbolic link on the way can be
 * swapped after the check. An untrusted folder or entry is reported once
 * per process (naming the path, its owner and mode) and not used; callers
 * then work in a private temporary folder, or replace the entry.
 *
 * What was written. A crash or a full disk mid-write, a file copied over an
 * entry, or a stray edit leaves an entry whose bytes are not the ones
 * written (a truncated shared object crashes dlopen with SIGBUS). Entries
 * that hold code get a sidecar, ENTRY.sum ("tssa-stream-sum 1 SIZE HASH"),
 * written after the entry; a reader uses the entry only when its size and
 * hash match. The hash is the 128-bit FNV-1a of the cache keys: not a
 * cryptographic hash, and it need not be one -- the ownership rules above
 * keep out anyone who could forge an entry, so the sum only has to notice
 * accidents (truncation, the wrong file), which a 128-bit spread does. The
 * project links no crypto library (no OpenSSL or libgcrypt), and a SHA-256
 * would buy nothing against a writer who already has the user's rights.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tssa/util.h"

enum { SUM_TEXT_MAX = 96 };

/* "PATH is owned by uid U (you are uid E) with mode M" */
static void describe(char why[CACHE_WHY_MAX], const char *path, const char *what, const struct stat *st)
{
    snprintf(why, CACHE_WHY_MAX, "%s is %s (owned by uid %lu, you are uid %lu; mode %04o)", path, what,
             (unsigned long)st->st_uid, (unsigned long)geteuid(), (unsigned)(st->st_mode & 07777));
}

/* The rule for the cache folder itself and for its entries. */
static bool ours_alone(const struct stat *st)
{
    return st->st_uid == geteuid() && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* The rule for a folder above the cache. */
static bool safe_parent(const struct stat *st)
{
    bool owner_ok = st->st_uid == geteuid() || st->st_uid == 0;
    bool others_write = (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
    return owner_ok && (!others_write || (st->st_mode & S_ISVTX));
}

/* One folder of the cache's path: the cache folder itself (last) or one
 * above it. */
static CacheTrust check_folder(const char *path, bool last, char why[CACHE_WHY_MAX])
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        snprintf(why, CACHE_WHY_MAX, "%s: %s", path, strerror(errno));
        return CACHE_UNUSABLE;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, CACHE_WHY_MAX, "%s is not a folder", path);
        return CACHE_UNUSABLE;
    }
    if (last ? !ours_alone(&st) : !safe_parent(&st)) {
        describe(why, path, last ? "not a folder of yours alone" : "a parent folder that others can change", &st);
        return CACHE_UNTRUSTED;
    }
    return CACHE_OK;
}

CacheTrust cache_dir_prepare(const char *dir, char **real, char why[CACHE_WHY_MAX])
{
    *real = NULL;
    why[0] = '\0';
    if (!dir || !*dir) {
        snprintf(why, CACHE_WHY_MAX, "no cache folder");
        return CACHE_UNUSABLE;
    }
    char *path = NULL;
    if (!mkdir_p(dir) || !(path = realpath(dir, NULL))) {
        snprintf(why, CACHE_WHY_MAX, "%s", strerror(errno));
        return CACHE_UNUSABLE;
    }
    /* each prefix of the resolved path (no symbolic links in it): "/", then
     * one component more at a time, the folder itself last */
    size_t n = strlen(path);
    CacheTrust verdict = check_folder("/", n == 1, why);
    for (size_t end = 2; end <= n && verdict == CACHE_OK; end++) {
        if (end < n && path[end] != '/')
            continue;
        char saved = path[end];
        path[end] = '\0';
        verdict = check_folder(path, end == n, why);
        path[end] = saved;
    }
    if (verdict == CACHE_OK)
        *real = path;
    else
        free(path);
    return verdict;
}

CacheTrust cache_entry_open(const char *path, int *fd, char why[CACHE_WHY_MAX])
{
    why[0] = '\0';
    /* O_NONBLOCK: a FIFO planted under the name must not hang the open */
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
    if (*fd < 0) {
        if (errno == ENOENT)
            return CACHE_ABSENT;
        if (errno == ELOOP) {
            snprintf(why, CACHE_WHY_MAX, "%s is a symbolic link", path);
            return CACHE_UNTRUSTED;
        }
        snprintf(why, CACHE_WHY_MAX, "%s: %s", path, strerror(errno));
        return CACHE_UNUSABLE;
    }
    struct stat st;
    CacheTrust verdict = CACHE_OK;
    if (fstat(*fd, &st) != 0) {
        snprintf(why, CACHE_WHY_MAX, "%s: %s", path, strerror(errno));
        verdict = CACHE_UNUSABLE;
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, CACHE_WHY_MAX, "%s is not a regular file", path);
        verdict = CACHE_UNTRUSTED;
    } else if (!ours_alone(&st)) {
        describe(why, path, "not a file of yours alone", &st);
        verdict = CACHE_UNTRUSTED;
    }
    if (verdict != CACHE_OK) {
        close(*fd);
        *fd = -1;
    }
    return verdict;
}

/* cache_entry_open, with the warning an untrusted entry gets. */
static CacheTrust open_or_warn(const char *path, int *fd, FILE *err, const char *instead)
{
    char why[CACHE_WHY_MAX];
    CacheTrust t = cache_entry_open(path, fd, why);
    if (t == CACHE_UNTRUSTED)
        cache_warn_untrusted(err, why, instead);
    return t;
}

CacheTrust cache_entry_read(const char *path, size_t limit, char **data, size_t *len, FILE *err,
                            const char *instead)
{
    *data = NULL;
    *len = 0;
    int fd;
    CacheTrust t = open_or_warn(path, &fd, err, instead);
    if (t != CACHE_OK)
        return t;
    bool ok = fd_read_all(fd, limit, data, len);
    close(fd);
    return ok ? CACHE_OK : CACHE_UNUSABLE;
}

bool cache_entry_holds(const char *path, const void *data, size_t len, FILE *err, const char *instead)
{
    int fd;
    if (open_or_warn(path, &fd, err, instead) != CACHE_OK)
        return false;
    bool same = fd_holds_bytes(fd, data, len);
    close(fd);
    return same;
}

static atomic_bool warned;

void cache_warn_untrusted(FILE *err, const char *why, const char *instead)
{
    if (!err || atomic_exchange(&warned, true))
        return;
    fprintf(err,
            "tssa-stream: warning: not using the cache: %s; %s (a cache folder and its files must belong to you "
            "and be writable by you alone; further cache warnings are not shown)\n",
            why, instead);
}

/* ---------------------------------------------------------------- checksums */

static void sum_text(const void *data, size_t len, char text[SUM_TEXT_MAX])
{
    CacheKey h = cache_key_start();
    cache_key_add(&h, data, len);
    char hex[33];
    cache_key_hex(h, hex);
    snprintf(text, SUM_TEXT_MAX, "tssa-stream-sum 1 %zu %s\n", len, hex);
}

bool cache_sum_write(const char *entry_path, const void *data, size_t len)
{
    char text[SUM_TEXT_MAX];
    sum_text(data, len, text);
    char *path = xprintf("%s.sum", entry_path);
    bool ok = file_write_atomic(path, text, strlen(text));
    free(path);
    return ok;
}

bool cache_sum_matches(const char *entry_path, const void *data, size_t len)
{
    char text[SUM_TEXT_MAX];
    sum_text(data, len, text);
    char *path = xprintf("%s.sum", entry_path);
    /* an untrusted sum is as good as none: the entry is made again, and
     * that replaces the sum too (no warning of its own) */
    bool same = cache_entry_holds(path, text, strlen(text), NULL, NULL);
    free(path);
    return same;
}
