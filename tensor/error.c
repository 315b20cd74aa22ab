/* error.c — the tensor library's error channel.
 *
 * A kernel that rejects its arguments records one message here and returns
 * NULL (or false); the caller, which knows the graph node and its source
 * line, reads it with tensor_last_error and reports it. The message lives in
 * a thread-local buffer, so kernels running on several threads keep their
 * own. A later error replaces an earlier one: the innermost check that fails
 * writes first, and a caller that adds context formats over it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "tssa/tensor.h"

static _Thread_local char last_error[1024];

void tensor_set_error(const char *fmt, ...)
{
    char message[sizeof last_error];
    va_list args;
    va_start(args, fmt);
    /* Format into a scratch buffer first: callers may pass tensor_last_error()
     * as an argument to add context to the previous message. */
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    snprintf(last_error, sizeof last_error, "%s", message);
}

/* The last recorded message, or "" when none was recorded since the last
 * tensor_clear_error (never NULL). */
const char *tensor_last_error(void)
{
    return last_error;
}

void tensor_clear_error(void)
{
    last_error[0] = '\0';
}
