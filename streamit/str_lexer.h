/* str_lexer.h — tokens of the .str text form (private to streamit/). */
#ifndef TSSA_STR_LEXER_H
#define TSSA_STR_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum StrTokenKind {
    STR_TOK_EOF,
    STR_TOK_IDENT,      /* names and keywords */
    STR_TOK_OP,         /* an op name after `work`: aten::add, my.op */
    STR_TOK_INT,
    STR_TOK_LBRACE,
    STR_TOK_RBRACE,
    STR_TOK_LPAREN,
    STR_TOK_RPAREN,
    STR_TOK_SEMI,
    STR_TOK_COMMA,
} StrTokenKind;

typedef struct StrToken {
    StrTokenKind kind;
    const char *text;   /* points into the source */
    size_t len;
    int64_t value;      /* STR_TOK_INT */
    int line, col;      /* col in characters (diag.h) */
} StrToken;

typedef struct StrLexer {
    const char *src;
    size_t len, pos;
    int line;
    size_t line_start;  /* offset of the current line's first byte */
    int col_line;       /* column cache: (col_pos, col_value) on line col_line */
    size_t col_pos;
    int col_value;
    const char *file;
    FILE *err;
    bool failed;        /* an error was reported; stop */
    StrToken tok;       /* the current token */
} StrLexer;

void str_lexer_init(StrLexer *lx, const char *src, size_t len, const char *file, FILE *err);
/* Advances to the next token (an op name when op_name is true). On a lexical
 * error reports it, sets failed and leaves an EOF token. */
void str_lexer_next(StrLexer *lx, bool op_name);
/* Reports a located error at (line, col) and sets failed. Only the first
 * error of a run is written. */
void str_lexer_error_at(StrLexer *lx, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool str_token_is(const StrToken *t, const char *word);

#endif
