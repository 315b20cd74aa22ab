/* ops.c — the op table (expanded from the TSSA_OPS X-macro in ops.h) and the
 * lookup from a kind string to its OpId.
 *
 * Lookup is a fixed-size open-addressing hash table over the names, built
 * once on first use (pthread_once, so concurrent first lookups are safe).
 * The functional variant of an in-place op is found by name: "aten::add_"
 * maps to "aten::add" when both are listed.
 */
#include <pthread.h>
#include <string.h>

#include "tssa/ops.h"
#include "tssa/util.h"

const OpInfo op_table[OP_COUNT] = {
    [OP_UNKNOWN] = {"<unknown>", OPC_SCALAR, NOMUT, ALIAS_NONE},
#define X(id, name, cls, mut, alias, eval) [OP_##id] = {name, cls, mut, alias},
    TSSA_OPS(X)
#undef X
};

/* Power of two, more than twice OP_COUNT, so probe runs stay short. */
enum { OP_HASH_SLOTS = 2048 };
_Static_assert(OP_COUNT * 2 < OP_HASH_SLOTS, "grow OP_HASH_SLOTS with the op table");

static unsigned short op_hash_slots[OP_HASH_SLOTS];   /* OpId, 0 = empty */
static OpId op_functional[OP_COUNT];
static pthread_once_t op_tables_once = PTHREAD_ONCE_INIT;

static OpId op_hash_find(const char *name, size_t len)
{
    size_t mask = OP_HASH_SLOTS - 1;
    for (size_t i = strmap_hash(name, len) & mask;; i = (i + 1) & mask) {
        OpId op = (OpId)op_hash_slots[i];
        if (op == OP_UNKNOWN)
            return OP_UNKNOWN;
        if (strncmp(op_table[op].name, name, len) == 0 && op_table[op].name[len] == '\0')
            return op;
    }
}

static void op_build_tables(void)
{
    size_t mask = OP_HASH_SLOTS - 1;
    for (int op = 1; op < OP_COUNT; op++) {
        const char *name = op_table[op].name;
        size_t i = strmap_hash(name, strlen(name)) & mask;
        while (op_hash_slots[i])
            i = (i + 1) & mask;
        op_hash_slots[i] = (unsigned short)op;
    }
    for (int op = 1; op < OP_COUNT; op++) {
        const char *name = op_table[op].name;
        size_t len = strlen(name);
        op_functional[op] = OP_UNKNOWN;
        if (op_table[op].mutates >= 0 && len > 1 && name[len - 1] == '_')
            op_functional[op] = op_hash_find(name, len - 1);
    }
}

OpId op_lookup(const char *name)
{
    pthread_once(&op_tables_once, op_build_tables);
    return op_hash_find(name, strlen(name));
}

OpId op_functional_variant(OpId op)
{
    if (op <= OP_UNKNOWN || op >= OP_COUNT)
        return OP_UNKNOWN;
    pthread_once(&op_tables_once, op_build_tables);
    return op_functional[op];
}

static const bool op_builtin_forms[OP_COUNT] = {
#define Y(id) [OP_##id] = true,
    OPS_WITH_BUILTIN_FORMS(Y)
#undef Y
};

const char *op_unknown_hint(const char *name)
{
    static const struct {
        const char *prefix, *hint;
    } hints[] = {
        {"aten::_nested_tensor", "tssa-stream has no nested tensors; nn.TransformerEncoder makes one on its "
                                 "inference fast path when given a src_key_padding_mask: construct it "
                                 "with enable_nested_tensor=False (the same result on valid positions; "
                                 "padded positions are computed instead of zero)"},
        {"aten::to_padded_tensor", "tssa-stream has no nested tensors (see aten::_nested_tensor_from_mask)"},
    };
    for (size_t i = 0; name && i < sizeof hints / sizeof hints[0]; i++)
        if (strncmp(name, hints[i].prefix, strlen(hints[i].prefix)) == 0)
            return hints[i].hint;
    return NULL;
}

bool op_returns_tensors_only(OpId op)
{
    switch (op_table[op].cls) {
    case OPC_CREATION: case OPC_VIEW: case OPC_INDEX: case OPC_ELEMENTWISE: case OPC_REDUCTION:
    case OPC_LINALG: case OPC_NN: case OPC_COPY: case OPC_ACCESS: case OPC_ASSIGN: case OPC_RANDOM:
        return !op_builtin_forms[op];
    default:
        return false;
    }
}

bool op_inplace_is_metadata(OpId op)
{
    OpId functional = op_functional_variant(op);
    return functional != OP_UNKNOWN && op_table[functional].alias == ALIAS_VIEW;
}

/* The kernel templates (KERNEL_TEMPLATES in ops.h), by OpId. */
static const OpTemplate op_templates[OP_COUNT] = {
#define K(id, nargs, rule, text) [OP_##id] = {nargs, rule, (rule) == OPT_SELECT && OP_##id == OP_ATEN_MASKED_FILL ? 1 : 0, text},
    KERNEL_TEMPLATES(K)
#undef K
};

const OpTemplate *op_template(int op)
{
    if (op <= OP_UNKNOWN || op >= OP_COUNT || !op_templates[op].text)
        return NULL;
    return &op_templates[op];
}

bool op_reads_no_elements(OpId op)
{
    switch (op) {
    case OP_PRIM_LISTCONSTRUCT: case OP_PRIM_LISTUNPACK: case OP_PRIM_TUPLECONSTRUCT:
    case OP_PRIM_TUPLEUNPACK: case OP_PRIM_TUPLEINDEX: case OP_PRIM_DICTCONSTRUCT:
    case OP_PRIM_DTYPE: case OP_PRIM_DEVICE: case OP_PRIM_LAYOUT: case OP_PRIM_REQUIRES_GRAD:
    case OP_PRIM_IS_CUDA: case OP_PRIM_IS_NESTED: case OP_PRIM_SHAPE: case OP_PRIM_UNCHECKED_CAST: case OP_PRIM_UNINITIALIZED:
    case OP_PRIM_ISINSTANCE: case OP_ATEN_LEN: case OP_ATEN_GETITEM: case OP_ATEN_SIZE: case OP_ATEN_DIM:
    case OP_ATEN_NUMEL: case OP_ATEN_IS_FLOATING_POINT: case OP_ATEN_APPEND: case OP_ATEN_IS:
    case OP_ATEN_ISNOT: case OP_ATEN_KEYS: case OP_ATEN_VALUES: case OP_ATEN_ITEMS:
        return true;
    default:
        return false;
    }
}
