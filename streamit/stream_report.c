/* stream_report.c — located error messages for stream graphs.
 *
 * The format is the project's one for text inputs (tssa/diag.h):
 *
 *     fm.str:3:14: error: expected ';' after the filter, found '}'
 *       filter A pop 1 push 1 }
 *                             ^
 *
 * The message is formatted here and handed to diag.h, which echoes the line
 * and places the caret. Graphs built in code have no text: their messages
 * are "error: WHAT".
 */
#include <stdarg.h>
#include <stdio.h>

#include "streamit/stream_internal.h"
#include "tssa/diag.h"

void stream_report_at(FILE *err, const char *file, const char *src, size_t len, int line, int col,
                      const char *fmt, va_list ap)
{
    if (!err)
        return;
    char message[1024];
    vsnprintf(message, sizeof message, fmt, ap);
    if (!file || !src || line <= 0) {
        fprintf(err, "error: %s\n", message);
        return;
    }
    DiagSource source = {.file = file, .text = src, .len = len};
    diag_error_line(err, &source, line, col, "%s", message);
}
