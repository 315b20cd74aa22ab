/* op_arity.c — the fewest and the most arguments each op of the op table
 * accepts (op_min_args, op_max_args, see ops.h).
 *
 * The rows come from PyTorch's schema registry (ir/gen_op_arity.py writes
 * op_arity_table.inc, sorted by name): per op, the minimum over its
 * overloads of the arguments without a default, and the maximum of all
 * arguments. ir_check_ops refuses a node with fewer inputs, so that no pass
 * after it indexes an input the node does not have, and one with more, so
 * that no backend runs it with the extra inputs ignored.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/ops.h"

typedef struct OpArity {
    const char *name;
    int min_args;
    const char *schema;         /* the overload that takes min_args */
    int tensor_min_args;        /* the same over the overloads whose first argument is a Tensor */
    const char *tensor_schema;
    int max_args;               /* -1: not limited */
    const char *max_schema;
} OpArity;

static const OpArity op_arities[] = {
#include "op_arity_table.inc"
};

static int compare_name(const void *name, const void *row)
{
    return strcmp(name, ((const OpArity *)row)->name);
}

static const OpArity *arity_row(OpId op)
{
    return op == OP_UNKNOWN ? NULL
                            : bsearch(op_table[op].name, op_arities, sizeof op_arities / sizeof *op_arities,
                                      sizeof *op_arities, compare_name);
}

int op_min_args(OpId op, bool tensor_first, const char **schema)
{
    const OpArity *row = arity_row(op);
    if (schema)
        *schema = !row ? NULL : tensor_first ? row->tensor_schema : row->schema;
    return !row ? 0 : tensor_first ? row->tensor_min_args : row->min_args;
}

int op_max_args(OpId op, const char **schema)
{
    const OpArity *row = arity_row(op);
    if (schema)
        *schema = row ? row->max_schema : NULL;
    return row ? row->max_args : -1;
}
