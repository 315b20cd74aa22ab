/* op_arity.c — the fewest arguments each op of the op table accepts
 * (op_min_args, see ops.h).
 *
 * The rows come from PyTorch's schema registry (ir/gen_op_arity.py writes
 * op_arity_table.inc, sorted by name): per op, the minimum over its
 * overloads of the arguments without a default. ir_check_ops refuses a node
 * with fewer inputs, so that no pass after it indexes an input the node
 * does not have.
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
} OpArity;

static const OpArity op_arities[] = {
#include "op_arity_table.inc"
};

static int compare_name(const void *name, const void *row)
{
    return strcmp(name, ((const OpArity *)row)->name);
}

int op_min_args(OpId op, bool tensor_first, const char **schema)
{
    const OpArity *row = op == OP_UNKNOWN ? NULL
                         : bsearch(op_table[op].name, op_arities, sizeof op_arities / sizeof *op_arities,
                                   sizeof *op_arities, compare_name);
    if (schema)
        *schema = !row ? NULL : tensor_first ? row->tensor_schema : row->schema;
    return !row ? 0 : tensor_first ? row->tensor_min_args : row->min_args;
}
