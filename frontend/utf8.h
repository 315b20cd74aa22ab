/* utf8.h — recognising well-formed UTF-8, shared by the graph-text lexer
 * (which rejects malformed input) and the diagnostics printer (which shows
 * malformed bytes as '?' so the caret under an echoed line stays aligned).
 */
#ifndef TSSA_FRONTEND_UTF8_H
#define TSSA_FRONTEND_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (at most n bytes, n >= 1),
 * or 0 when the bytes there are not one: overlong encodings, surrogates and
 * code points above U+10FFFF count as invalid. */
size_t utf8_sequence_length(const unsigned char *s, size_t n);

#endif
