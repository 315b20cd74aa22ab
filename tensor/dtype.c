/* dtype.c — the element types: sizes, names, and the codes TorchScript uses.
 *
 * One table row per TensorDType holds everything the rest of the library asks
 * about a dtype, so adding one is one row. TorchScript spells dtypes two ways:
 * as ScalarType integers in `dtype=` arguments, and as type-name prefixes in
 * annotations (`Float(2, 3)`); both map through the same table.
 */
#include <string.h>

#include "tssa/tensor.h"

typedef struct DTypeInfo {
    size_t size;
    const char *name;        /* NumPy / PyTorch spelling: "float32" */
    const char *ts_name;     /* TorchScript spelling: "Float" */
    int64_t scalar_type;     /* c10::ScalarType code */
} DTypeInfo;

static const DTypeInfo dtype_table[DT_COUNT] = {
    [DT_BOOL] = {sizeof(_Bool), "bool", "Bool", 11},
    [DT_U8] = {1, "uint8", "Byte", 0},
    [DT_I8] = {1, "int8", "Char", 1},
    [DT_I16] = {2, "int16", "Short", 2},
    [DT_I32] = {4, "int32", "Int", 3},
    [DT_I64] = {8, "int64", "Long", 4},
    [DT_F32] = {4, "float32", "Float", 6},
    [DT_F64] = {8, "float64", "Double", 7},
};

static bool dtype_valid(TensorDType dt)
{
    return (unsigned)dt < DT_COUNT;
}

size_t dtype_size(TensorDType dt)
{
    return dtype_valid(dt) ? dtype_table[dt].size : 0;
}

const char *dtype_name(TensorDType dt)
{
    return dtype_valid(dt) ? dtype_table[dt].name : "invalid";
}

const char *dtype_ts_name(TensorDType dt)
{
    return dtype_valid(dt) ? dtype_table[dt].ts_name : "Undefined";
}

bool dtype_is_float(TensorDType dt)
{
    return dt == DT_F32 || dt == DT_F64;
}

bool dtype_is_integral(TensorDType dt)
{
    return dt >= DT_U8 && dt <= DT_I64;
}

int dtype_from_scalar_type(int64_t code)
{
    for (int dt = 0; dt < DT_COUNT; dt++)
        if (dtype_table[dt].scalar_type == code)
            return dt;
    return -1;
}

int64_t dtype_to_scalar_type(TensorDType dt)
{
    return dtype_valid(dt) ? dtype_table[dt].scalar_type : -1;
}

int dtype_from_ts_name(const char *name)
{
    if (!name)
        return -1;
    for (int dt = 0; dt < DT_COUNT; dt++)
        if (strcmp(dtype_table[dt].ts_name, name) == 0)
            return dt;
    return -1;
}
