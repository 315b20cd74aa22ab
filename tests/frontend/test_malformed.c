/* test_malformed.c — bad graph text never crashes or hangs: ir_parse
 * returns NULL and writes "FILE:LINE:COL: error: WHAT", the line, and a
 * caret.
 *
 * 1. Hand-written cases, each with the line, column and words of the
 *    message worked out by hand next to it (columns count from 1).
 * 2. Every golden graph cut after each of its lines and in the middle of
 *    each line: a cut graph has no 'return' line (or a broken one), so each
 *    prefix must fail with a location inside the prefix. The graph minus only
 *    its final newline is complete and must parse.
 * 3. Random bytes, and goldens with one byte changed: either a located error
 *    or a graph that prints as a fixpoint. Deterministic (fixed LCG seed).
 * 4. Nesting far beyond the limits (types, blocks): located errors, no stack
 *    overflow.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"

/* Parses text; returns the graph (caller frees) and the error output. */
static IrGraph *parse_capture(const char *text, size_t len, const char *file, char **msg)
{
    size_t mlen;
    FILE *err = open_memstream(msg, &mlen);
    IrGraph *g = ir_parse(text, len, file, err);
    fclose(err);
    return g;
}

/* msg starts with "FILE:LINE:COL: error: " and has a caret line. */
static bool located(const char *msg, const char *file, int *line, int *col)
{
    size_t fl = strlen(file);
    if (strncmp(msg, file, fl) != 0 || msg[fl] != ':')
        return false;
    char *end;
    long l = strtol(msg + fl + 1, &end, 10);
    if (*end != ':' || l < 1)
        return false;
    long c = strtol(end + 1, &end, 10);
    if (strncmp(end, ": error: ", 9) != 0 || c < 1)
        return false;
    const char *nl = strchr(end, '\n');
    if (!nl || !strchr(nl + 1, '\n'))
        return false;
    const char *caret = strchr(nl + 1, '\n') + 1;
    while (*caret == ' ' || *caret == '\t')
        caret++;
    if (*caret != '^')
        return false;
    *line = (int)l;
    *col = (int)c;
    return true;
}

typedef struct Case {
    const char *name;
    const char *text;
    int line, col;          /* where the error must point */
    const char *words;      /* must appear in the message */
} Case;

static const Case cases[] = {
    /* "  %y : Tensor = aten::relu(" is 27 characters, so %z is column 28. */
    {"undefined", "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%z)\n  return (%y)\n",
     2, 28, "undefined value %z"},
    /* Used on line 2, defined only on line 3. */
    {"use_before_def",
     "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%z)\n  %z : Tensor = aten::neg(%x)\n"
     "  return (%y)\n", 2, 28, "undefined value %z"},
    {"duplicate",
     "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n  %y : Tensor = aten::neg(%x)\n"
     "  return (%y)\n", 3, 3, "duplicate definition of %y (first defined on line 2)"},
    {"duplicate_param", "graph(%x : Tensor,\n      %x : int):\n  return (%x)\n",
     2, 7, "duplicate definition of %x"},
    /* %a lives in block0; block1's "      -> (" is 10 characters. */
    {"out_of_scope",
     "graph(%c : bool,\n      %x : Tensor):\n  %r : Tensor = prim::If(%c)\n    block0():\n"
     "      %a : Tensor = aten::relu(%x)\n      -> (%a)\n    block1():\n      -> (%a)\n"
     "  return (%r)\n", 8, 11, "%a is not visible here"},
    /* A node's own output is not visible inside its blocks. */
    {"self_use_in_block",
     "graph(%c : bool,\n      %x : Tensor):\n  %r : Tensor = prim::If(%c)\n    block0():\n"
     "      -> (%r)\n    block1():\n      -> (%x)\n  return (%r)\n", 5, 11,
     "undefined value %r"},
    /* "  %r : Tensor = " is 16 characters: the kind starts at column 17. */
    {"if_one_block",
     "graph(%c : bool,\n      %x : Tensor):\n  %r : Tensor = prim::If(%c)\n    block0():\n"
     "      -> (%x)\n  return (%r)\n", 3, 17, "prim::If needs 2 blocks (then, else), found 1"},
    {"if_return_arity",
     "graph(%c : bool,\n      %x : Tensor):\n  %r : Tensor = prim::If(%c)\n    block0():\n"
     "      -> (%x, %x)\n    block1():\n      -> (%x)\n  return (%r)\n", 3, 17,
     "block0 of prim::If (line 4) returns 2 values but the node has 1 output"},
    {"loop_params",
     "graph(%n : int,\n      %x : Tensor):\n  %t : bool = prim::Constant[value=1]()\n"
     "  %r : Tensor = prim::Loop(%n, %t, %x)\n    block0(%i : int):\n      -> (%t, %x)\n"
     "  return (%r)\n", 4, 17, "has 1 parameter, expected 2"},
    {"loop_no_block",
     "graph(%n : int,\n      %t : bool):\n   = prim::Loop(%n, %t)\n  return ()\n", 3, 6,
     "prim::Loop needs 1 block, found 0"},
    /* block1 never ends: "return" at column 3 is not under it (line 5). */
    {"unclosed_block",
     "graph(%c : bool,\n      %x : Tensor):\n  %r : Tensor = prim::If(%c)\n    block0():\n"
     "      -> (%x)\n    block1():\n  return (%r)\n", 7, 3,
     "not indented under the block opened on line 6"},
    {"arrow_at_top", "graph(%x : Tensor):\n  -> (%x)\n", 2, 3, "outside a block"},
    {"return_in_block",
     "graph(%c : bool,\n      %x : Tensor):\n  %r : Tensor = prim::If(%c)\n    block0():\n"
     "      return (%x)\n    block1():\n      -> (%x)\n  return (%r)\n", 5, 7,
     "'return' inside a block"},
    {"misindented",
     "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n   %z : Tensor = aten::neg(%y)\n"
     "  return (%z)\n", 3, 4, "misindented line: expected column 3"},
    {"misindented_block_body",
     "graph(%c : bool,\n      %x : Tensor):\n  %r : Tensor = prim::If(%c)\n    block0():\n"
     "      %a : Tensor = aten::relu(%x)\n     -> (%a)\n    block1():\n      -> (%x)\n"
     "  return (%r)\n", 6, 6, "misindented line: expected column 7"},
    {"block_number",
     "graph(%c : bool,\n      %x : Tensor):\n  %r : Tensor = prim::If(%c)\n    block1():\n"
     "      -> (%x)\n  return (%r)\n", 4, 5, "expected block0 here"},
    {"stray_block_header", "graph(%x : Tensor):\n  block0():\n  return (%x)\n", 2, 3,
     "not indented under a node"},
    /* "  %y : Tensor = aten::relu(%x" is 29 characters; input ends after it. */
    {"truncated_mid_line", "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x", 2, 30,
     "expected ',' or ')' in the node's inputs, found end of input"},
    {"no_return", "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n", 3, 1,
     "the graph has no 'return (...)' line"},
    {"empty", "", 1, 1, "empty input"},
    {"only_comments", "# nothing here\n\n   # at all\n", 4, 1, "empty input"},
    {"not_a_graph", "def f(x):\n  return x\n", 1, 1, "expected 'graph(' at the start"},
    {"text_after_return", "graph(%x : Tensor):\n  return (%x)\n  %y : Tensor = aten::neg(%x)\n",
     3, 3, "unexpected text after the graph's 'return' line"},
    {"subgraph",
     "graph(%x : Tensor):\n  %y : Tensor = prim::DifferentiableGraph_0(%x)\n  return (%y)\n"
     "with prim::DifferentiableGraph_0 = graph(%a : Tensor):\n  return (%a)\n", 4, 1,
     "subgraphs"},
    {"nul_byte", "graph(%x : Tensor):\n  %y\0 : Tensor = aten::relu(%x)\n  return (%y)\n", 2, 5,
     "NUL byte"},
    /* "  %y : Tensor = aten::relu(%x) # caf" is 36 characters. */
    {"invalid_utf8",
     "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x) # caf\xe9\n  return (%y)\n", 2, 37,
     "invalid UTF-8"},
    /* "  %y : Tensor = aten::relu(%x)" is 30 characters; 'café' starts at 32. */
    {"utf8_outside_comment", "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x) caf\xc3\xa9\n",
     2, 32, "expected the end of the line after the node, found 'caf'"},
    {"control_char", "graph(%x : Tensor):\n\x01  return (%x)\n", 2, 1, "control character 0x01"},
    {"lone_cr", "graph(%x : Tensor):\r  return (%x)\n", 1, 20, "carriage return"},
    /* "  %s : str = prim::Constant[value=" is 34 characters. */
    {"unterminated_string",
     "graph():\n  %s : str = prim::Constant[value=\"abc]()\n  return (%s)\n", 2, 35,
     "unterminated string"},
    /* The line is 35 characters; the error points just past its end. */
    {"attr_no_end", "graph():\n  %s : int = prim::Constant[value=1\n  return (%s)\n", 2, 36,
     "attribute value does not end"},
    {"attr_twice", "graph():\n  %s : int = prim::Constant[value=1, value=2]()\n  return (%s)\n",
     2, 38, "attribute 'value' given twice"},     /* after "...[value=1, " (37) */
    {"strides_mismatch", "graph(%x : Float(2, strides=[1, 1])):\n  return (%x)\n", 1, 17,
     "tensor type has 1 sizes but 2 strides"},
    {"bad_type", "graph(%x : 3):\n  return (%x)\n", 1, 12, "expected a type, found '3'"},
    {"unknown_tensor_field", "graph(%x : Float(2, color=red)):\n  return (%x)\n", 1, 21,
     "unknown tensor type field 'color'"},
    {"param_node", "graph(%x : Tensor):\n  %y : Tensor = prim::Return(%x)\n  return (%y)\n", 2,
     17, "prim::Return is internal to blocks"},
    {"python_op", "graph(%x : Tensor):\n  %y : Tensor = ^f()(%x)\n  return (%y)\n", 2, 17,
     "Python ops"},
    {"missing_kind_namespace", "graph(%x : Tensor):\n  %y : Tensor = relu(%x)\n  return (%y)\n",
     2, 17, "namespace::name"},
    {"empty_value_name", "graph(% : Tensor):\n  return ()\n", 1, 7,
     "expected a value name after '%'"},
};

static void check_case(const Case *c)
{
    char *msg;
    char file[96];
    snprintf(file, sizeof file, "%s.ir", c->name);
    /* strlen stops at the NUL of the nul_byte case, so measure it by hand. */
    size_t len = strlen(c->text);
    if (strcmp(c->name, "nul_byte") == 0)
        len += 1 + strlen(c->text + len + 1);
    IrGraph *g = parse_capture(c->text, len, file, &msg);
    int line, col;
    if (g) {
        fprintf(stderr, "FAIL %s: parsed, expected an error\n", c->name);
        test_failures++;
        ir_graph_free(g);
    } else if (!located(msg, file, &line, &col)) {
        fprintf(stderr, "FAIL %s: message not located:\n%s", c->name, msg);
        test_failures++;
    } else if (line != c->line || col != c->col || !strstr(msg, c->words)) {
        fprintf(stderr, "FAIL %s: expected %d:%d \"%s\", got:\n%s", c->name, c->line, c->col,
                c->words, msg);
        test_failures++;
    }
    free(msg);
}

/* A prefix of a graph that lacks its return must fail, located inside it. */
static void expect_located_failure(const char *text, size_t len, const char *file,
                                   int max_line, const char *what)
{
    char *msg;
    IrGraph *g = parse_capture(text, len, file, &msg);
    int line, col;
    if (g) {
        fprintf(stderr, "FAIL %s (%s): parsed, expected an error\n", file, what);
        test_failures++;
        ir_graph_free(g);
    } else if (!located(msg, file, &line, &col) || line > max_line) {
        fprintf(stderr, "FAIL %s (%s): message not located within line %d:\n%s", file, what,
                max_line, msg);
        test_failures++;
    }
    free(msg);
}

static void check_truncations(const char *path)
{
    size_t len;
    char *text = test_read_file(path, &len);
    if (!text) {
        fprintf(stderr, "FAIL: cannot read %s\n", path);
        test_failures++;
        return;
    }
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\n')
            continue;
        /* Cut in the middle of the line, then just before its newline
         * (the last line cut there is the complete graph, checked below). */
        size_t mid = line_start + (i - line_start) / 2;
        char what[64];
        snprintf(what, sizeof what, "cut in line %d", line);
        expect_located_failure(text, mid, path, line, what);
        if (i + 1 < len) {
            snprintf(what, sizeof what, "cut after line %d", line);
            expect_located_failure(text, i + 1, path, line + 1, what);
        }
        line++;
        line_start = i + 1;
    }
    /* Without its final newline the graph is still complete. */
    IrGraph *g = ir_parse(text, len - 1, path, stderr);
    if (!g) {
        fprintf(stderr, "FAIL %s: does not parse without its final newline\n", path);
        test_failures++;
    }
    ir_graph_free(g);
    free(text);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* Either a located error, or a graph whose printing is a fixpoint. */
static void check_mangled(const char *text, size_t len, const char *file)
{
    char *msg;
    IrGraph *g = parse_capture(text, len, file, &msg);
    int line, col;
    if (!g) {
        if (!located(msg, file, &line, &col)) {
            fprintf(stderr, "FAIL %s: message not located:\n%s", file, msg);
            test_failures++;
        }
        free(msg);
        return;
    }
    free(msg);
    char *p1 = NULL, *p2 = NULL;
    size_t l1, l2;
    FILE *f = open_memstream(&p1, &l1);
    ir_print(f, g);
    fclose(f);
    IrGraph *g2 = ir_parse(p1, l1, file, stderr);
    if (!g2) {
        fprintf(stderr, "FAIL %s: accepted, but its printed form does not parse\n", file);
        test_failures++;
    } else {
        f = open_memstream(&p2, &l2);
        ir_print(f, g2);
        fclose(f);
        if (l1 != l2 || memcmp(p1, p2, l1) != 0) {
            fprintf(stderr, "FAIL %s: accepted, but printing is not a fixpoint\n", file);
            test_failures++;
        }
        free(p2);
        ir_graph_free(g2);
    }
    free(p1);
    ir_graph_free(g);
}

static void check_garbage(void)
{
    char buf[512];
    for (int round = 0; round < 300; round++) {
        size_t len = 1 + rng() % sizeof buf;
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)(rng() & 0xff);
        if (round % 3 == 0)     /* a plausible start, then garbage */
            memcpy(buf, "graph(%x : Tensor):\n  ", len < 22 ? len : 22);
        char *msg;
        IrGraph *g = parse_capture(buf, len, "garbage.ir", &msg);
        int line, col;
        if (g || !located(msg, "garbage.ir", &line, &col)) {
            fprintf(stderr, "FAIL garbage round %d: %s\n%s", round,
                    g ? "parsed" : "message not located", msg);
            test_failures++;
        }
        ir_graph_free(g);
        free(msg);
    }
}

static void check_byte_flips(const char *path)
{
    size_t len;
    char *text = test_read_file(path, &len);
    if (!text)
        return;
    static const char replacements[] = "%()[]{},:=-> \n#\"?*<>0aZ.\t\x80";
    for (int round = 0; round < 200; round++) {
        char *copy = malloc(len);
        memcpy(copy, text, len);
        size_t at = rng() % len;
        copy[at] = replacements[rng() % (sizeof replacements - 1)];
        check_mangled(copy, len, "flipped.ir");
        free(copy);
    }
    free(text);
}

static void check_deep_nesting(void)
{
    /* A type nested 10000 deep: must stop at the depth limit. */
    size_t depth = 10000;
    size_t cap = depth * 2 + 64;
    char *text = malloc(cap);
    size_t n = (size_t)sprintf(text, "graph(%%x : ");
    for (size_t i = 0; i < depth; i++)
        text[n++] = '(';
    n += (size_t)sprintf(text + n, "int");
    for (size_t i = 0; i < depth; i++)
        text[n++] = ')';
    n += (size_t)sprintf(text + n, "):\n  return (%%x)\n");
    char *msg;
    IrGraph *g = parse_capture(text, n, "deep_type.ir", &msg);
    int line, col;
    if (g || !located(msg, "deep_type.ir", &line, &col) || !strstr(msg, "nested deeper")) {
        fprintf(stderr, "FAIL deep type: %s\n", msg);
        test_failures++;
    }
    ir_graph_free(g);
    free(msg);
    free(text);

    /* prim::If nested 300 deep (each block at 4 more spaces): the block
     * depth limit (128) must stop it with a located error. */
    int levels = 300;
    size_t bcap = (size_t)levels * (size_t)levels * 16 + 4096;
    text = malloc(bcap);
    n = (size_t)sprintf(text, "graph(%%c : bool,\n      %%x : Tensor):\n");
    for (int i = 0; i < levels; i++)
        n += (size_t)sprintf(text + n, "%*s%%r%d : Tensor = prim::If(%%c)\n%*sblock0():\n",
                             2 + 4 * i, "", i, 4 + 4 * i, "");
    g = parse_capture(text, n, "deep_blocks.ir", &msg);
    if (g || !located(msg, "deep_blocks.ir", &line, &col) || !strstr(msg, "nested deeper")) {
        fprintf(stderr, "FAIL deep blocks: %s\n", msg);
        test_failures++;
    }
    ir_graph_free(g);
    free(msg);
    free(text);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);

    DIR *d = opendir("frontend/golden");
    if (!d) {
        fprintf(stderr, "FAIL: no frontend/golden directory (run from tests/)\n");
        return 1;
    }
    char *names[512];
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) && count < 512) {
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".ir") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], compare_names);
    for (int i = 0; i < count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "frontend/golden/%s", names[i]);
        check_truncations(path);
        check_byte_flips(path);
        free(names[i]);
    }
    check_garbage();
    check_deep_nesting();
    printf("%zu hand-written cases, %d goldens truncated and mangled, %d failures\n",
           sizeof cases / sizeof cases[0], count, test_failures);
    return test_failures ? 1 : 0;
}
