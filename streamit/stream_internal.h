/* stream_internal.h — what the files of streamit/ share and nobody else uses:
 * the graph's storage pool, the located-message printer, and the text
 * pieces the .str and dot printers both write.
 */
#ifndef TSSA_STREAM_INTERNAL_H
#define TSSA_STREAM_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "tssa/stream.h"

/* Writes "FILE:LINE:COL: error: MESSAGE", the source line and a caret under
 * column COL (characters, as tssa/diag.h counts them) when the text is known;
 * otherwise just "error: MESSAGE". */
void stream_report_at(FILE *err, const char *file, const char *src, size_t len, int line,
                      int col, const char *fmt, va_list ap);

/* Two spaces per nesting level (the indentation of both printers). */
void stream_print_indent(FILE *out, int level);
/* "roundrobin(w0, w1, ...)" for n weights. */
void stream_print_roundrobin(FILE *out, const int64_t *weights, int n);

#endif
