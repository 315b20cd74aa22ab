/* ir_cat.c — parses each graph file named on the command line and prints it
 * back (the frontend's round trip as a tool). Exit status 2 when a file does
 * not parse, as the driver does. Used by the frontend tests and by hand. */
#include <stdio.h>

#include "tssa/frontend.h"
#include "tssa/ir.h"

int main(int argc, char **argv)
{
    int status = 0;
    for (int i = 1; i < argc; i++) {
        IrGraph *g = ir_parse_file(argv[i], stderr);
        if (!g) {
            status = 2;
            continue;
        }
        ir_print(stdout, g);
        ir_graph_free(g);
    }
    return status;
}
