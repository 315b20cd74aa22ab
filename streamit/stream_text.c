/* stream_text.c — the text pieces that the .str printer (str_printer.c) and
 * the dot printer (stream_dot.c) both write, so that a round-robin or a
 * nesting level looks the same in either output.
 */
#include <inttypes.h>

#include "streamit/stream_internal.h"

void stream_print_indent(FILE *out, int level)
{
    for (int i = 0; i < level; i++)
        fputs("  ", out);
}

void stream_print_roundrobin(FILE *out, const int64_t *weights, int n)
{
    fputs("roundrobin(", out);
    for (int k = 0; k < n; k++)
        fprintf(out, "%s%" PRId64, k ? ", " : "", weights[k]);
    fputc(')', out);
}
