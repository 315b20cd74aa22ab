/* test_roundtrip.c — every graph torch printed reads back and prints
 * byte for byte as torch printed it, and printing is a fixpoint.
 *
 * Inputs (paths relative to tests/, the working directory ctest gives):
 *   frontend/golden/NAME.ir   from tests/frontend/dump_graphs.py (torch 1.13)
 *   models/NAME/model.ir      the model corpus (tests/models/generate.py)
 * For each file T: print(parse(T)) == T, print(parse(print(parse(T)))) ==
 * print(parse(T)), ir_verify passes, and the node count is the number of
 * node lines in T (lines holding " = " that are not block headers), counted
 * here from the text independently of the parser.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"

static int checked;

static char *print_to_string(const IrGraph *g, size_t *len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    ir_print(f, g);
    fclose(f);
    return out;
}

/* Node lines: " = " present, not a "graph(" / "blockN(" / "->" / "return"
 * line (graph parameters on continuation lines hold " : " but no " = "). */
static size_t count_node_lines(const char *text)
{
    size_t count = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *s = line;
        while (s < line + n && *s == ' ')
            s++;
        bool header = strncmp(s, "block", 5) == 0 || strncmp(s, "graph(", 6) == 0 ||
                      strncmp(s, "->", 2) == 0 || strncmp(s, "return", 6) == 0;
        if (!header && memmem(line, n, " = ", 3))
            count++;
        line = end ? end + 1 : line + n;
    }
    return count;
}

static void fail(const char *path, const char *what)
{
    fprintf(stderr, "FAIL %s: %s\n", path, what);
    test_failures++;
}

static void check_file(const char *path)
{
    size_t len;
    char *text = test_read_file(path, &len);
    if (!text) {
        fail(path, "cannot read");
        return;
    }
    checked++;
    IrGraph *g = ir_parse(text, len, path, stderr);
    if (!g) {
        fail(path, "does not parse");
        free(text);
        return;
    }
    if (!ir_verify(g, stderr))
        fail(path, "ir_verify fails on the parsed graph");
    size_t nodes = count_node_lines(text);
    if (ir_graph_count_nodes(g) != nodes) {
        fprintf(stderr, "  %zu nodes parsed, %zu node lines\n", ir_graph_count_nodes(g), nodes);
        fail(path, "node count differs from the text");
    }
    size_t plen;
    char *printed = print_to_string(g, &plen);
    if (plen != len || memcmp(printed, text, len) != 0) {
        size_t i = 0;
        while (i < len && i < plen && printed[i] == text[i])
            i++;
        fprintf(stderr, "  first difference at byte %zu: expected \"%.40s\" got \"%.40s\"\n", i,
                text + i, printed + (i < plen ? i : plen));
        fail(path, "print(parse(text)) differs from the text torch printed");
    }
    IrGraph *g2 = ir_parse(printed, plen, path, stderr);
    if (!g2) {
        fail(path, "printed graph does not parse again");
    } else {
        size_t p2len;
        char *printed2 = print_to_string(g2, &p2len);
        if (p2len != plen || memcmp(printed2, printed, plen) != 0)
            fail(path, "printing is not a fixpoint");
        free(printed2);
        ir_graph_free(g2);
    }
    free(printed);
    ir_graph_free(g);
    free(text);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Calls check_file on dir/<entry><suffix> for each entry, in sorted order;
 * with a suffix like "/model.ir" entries are subdirectories. */
static int check_dir(const char *dir, const char *ext, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char *names[4096];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 4096) {
        if (e->d_name[0] == '.')
            continue;
        size_t l = strlen(e->d_name);
        if (ext && (l < strlen(ext) || strcmp(e->d_name + l - strlen(ext), ext) != 0))
            continue;
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], compare_names);
    int found = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s%s", dir, names[i], suffix);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            check_file(path);
            found++;
        }
        free(names[i]);
    }
    return found;
}

int main(int argc, char **argv)
{
    if (argc > 1) {     /* explicit files, for use by hand */
        for (int i = 1; i < argc; i++)
            check_file(argv[i]);
    } else {
        int goldens = check_dir("frontend/golden", ".ir", "");
        if (goldens < 15) {
            fprintf(stderr, "FAIL: expected at least 15 golden graphs, found %d\n", goldens);
            test_failures++;
        }
        check_dir("models", NULL, "/model.ir");
    }
    printf("%d graphs checked, %d failures\n", checked, test_failures);
    return test_failures ? 1 : 0;
}
