/* cache_dir.c — where tssa-stream keeps what it caches between runs
 * (compiled kernels, calibrated device rates): one folder for all of it, so
 * that one variable moves or clears the whole cache.
 *
 * The order is $TSSA_CACHE_DIR, then $XDG_CACHE_HOME/tssa-stream (the XDG
 * base directory spec ignores a relative $XDG_CACHE_HOME), then
 * ~/.cache/tssa-stream with the home folder from $HOME or, when that is
 * unset (daemons, some batch systems), from the password database.
 */
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "tssa/util.h"

char *tssa_cache_dir(void)
{
    const char *e = getenv("TSSA_CACHE_DIR");
    if (e && *e)
        return xstrdup(e);
    e = getenv("XDG_CACHE_HOME");
    if (e && *e == '/')
        return xprintf("%s/tssa-stream", e);
    e = getenv("HOME");
    if (!e || !*e) {
        struct passwd *pw = getpwuid(getuid());
        e = pw ? pw->pw_dir : NULL;
    }
    return e && *e ? xprintf("%s/.cache/tssa-stream", e) : NULL;
}
