/* lexer.h — tokens of TorchScript graph text (private to frontend/).
 *
 * The lexer is line-aware: it emits one NEWLINE per non-empty line (blank
 * lines and whole-line comments vanish), marks the first token of each line
 * and gives every token its byte column, so the parser can check
 * indentation. A trailing "# ..." becomes a COMMENT token. Attribute values
 * are not tokenized: the parser takes their raw text with
 * lex_scan_attr_value, because torch prints some of them (tensor reprs) in
 * no grammar of their own.
 *
 * Errors go through the shared ParseFail (diag message, then longjmp), so
 * neither lexer nor parser threads error codes through every call.
 */
#ifndef TSSA_FRONTEND_LEXER_H
#define TSSA_FRONTEND_LEXER_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tssa/diag.h"

typedef struct ParseFail {
    FILE *err;
    DiagSource src;
    jmp_buf jump;
} ParseFail;

/* Reports a located error at byte `offset` and unwinds to ParseFail.jump. */
__attribute__((noreturn, format(printf, 3, 4)))
void parse_fail_at(ParseFail *pf, size_t offset, const char *fmt, ...);

typedef enum TokKind {
    TK_EOF,
    TK_NEWLINE,
    TK_COMMENT,     /* text after '#' (one following space dropped) */
    TK_VALUE,       /* %name: text is the name without '%' */
    TK_IDENT,       /* [A-Za-z_][A-Za-z0-9_.]* */
    TK_NUMBER,      /* -?digits[.digits][e[+-]digits], inf, nan */
    TK_STRING,      /* "...": text includes the quotes */
    TK_COLONCOLON,  /* :: */
    TK_ARROW,       /* -> */
    TK_PUNCT,       /* one of ( ) [ ] { } , : = ? * < > */
} TokKind;

typedef struct Token {
    TokKind kind;
    size_t start;       /* byte offset of the token (of '%' for values) */
    const char *text;   /* the token's text (see kinds above) */
    size_t len;
    int line;           /* from 1 */
    int col;            /* byte column from 0 */
    bool line_start;    /* first token on its line */
    char punct;         /* TK_PUNCT: the character */
} Token;

typedef struct Lexer {
    ParseFail *fail;
    const char *text;
    size_t len;
    size_t pos;
    int line;
    size_t line_pos;        /* offset where the current line starts */
    bool line_has_token;    /* a token was emitted on the current line */
    bool have_peek;
    Token peeked;
} Lexer;

/* Rejects NUL bytes, invalid UTF-8 and control characters other than tab,
 * newline and a carriage return before a newline. */
void lex_validate(ParseFail *pf, const char *text, size_t len);
void lex_init(Lexer *lx, ParseFail *pf, const char *text, size_t len);
Token lex_next(Lexer *lx);
const Token *lex_peek(Lexer *lx);
const char *tok_describe(const Token *t, char *buf, size_t size);
/* Raw text of an attribute value starting at the lexer's position (just
 * after '='), up to the ',' or ']' that ends it at bracket depth 0. */
void lex_scan_attr_value(Lexer *lx, size_t *start, size_t *end);
/* End offset of a type starting at the lexer's position: the first
 * whitespace, ',', ')', '=' or '#' outside brackets. */
size_t lex_scan_type_end(Lexer *lx);
/* Continue lexing at `pos` (same line). */
void lex_seek(Lexer *lx, size_t pos);
void lex_skip_spaces(Lexer *lx);

#endif
