/* ops.h — the op table, listed once.
 *
 * Every pass reads this table instead of matching op names: whether an op
 * mutates one of its inputs in place, whether its result aliases an input,
 * its class, and which evaluator binding runs it. The list is an X-macro,
 * expanded here for the OpId enum, in ir/ops.c for the table of properties,
 * and in eval/ (eval_ops.h, dispatch.c) for the bindings' prototypes and the
 * reference backend's dispatch table.
 *
 *   X(ID, "ns::name", class, mutates, alias, eval)
 *     class    OPC_*: what kind of work it is (passes and backends group by it)
 *     mutates  index of the input written in place, or -1
 *     alias    ALIAS_NONE    result owns fresh storage
 *              ALIAS_VIEW    result is always a view of input 0
 *              ALIAS_MAYBE   result is a view of input 0 or a copy, decided by
 *                            shapes/dtypes at run time (reshape, contiguous, to)
 *              ALIAS_VIEWS   result is a list of views of input 0 (chunk, split)
 *              ALIAS_SELF    result is input 0 itself (in-place ops return self)
 *     eval     the reference evaluator's binding: `add` names
 *              bool eval_op_add(EvalCall *) (eval/ops_*.c). Only a name here:
 *              the ir layer never sees eval/, which expands it. NOEVAL (a
 *              bare token, never a macro) for an op with no binding of its
 *              own: one the interpreter handles itself (Param and Return
 *              are a block's edges; If, Loop, Constant and FusionGroup are
 *              eval/interp.c's own cases), one no backend meets
 *              (tssa::update, gone before any run), an immut:: op
 *              (eval/ops_immut.c's table) and an in-place op run as its
 *              functional variant plus a copy into self (eval/dispatch.c).
 *              tests/eval/op_bindings.sh fails on any other row without a
 *              binding, and on an eval_op_* function that no row names.
 *
 * In-place twins are derived, not written: ir/gen_inplace_ops.py writes
 * ops_inplace.inc, a row aten::<name>_ for every functional op here whose
 * in-place variant PyTorch lists and that this table does not list by hand
 * (a hand row is for a twin with a binding of its own, add_, or with
 * arguments in another order, polygamma_). A derived twin is NOEVAL: it
 * runs as its functional op, then either writes the result into self
 * (data-writing: tril_, cumsum_) or, when the functional op is a view,
 * gives self the view's sizes and strides (metadata: squeeze_, t_;
 * op_inplace_is_metadata).
 *
 * Adding an op: its row here (in its family's *_OPS list), its kernel in
 * tensor/ and its binding eval_op_<eval> in eval/ops_<family>.c, then
 * `/usr/bin/python3 ir/gen_inplace_ops.py` (its in-place twin, if PyTorch
 * has one) and `/usr/bin/python3 ir/gen_op_arity.py`. Nothing
 * else names it for the reference backend; fusion also wants a
 * KERNEL_TEMPLATES row (below) and shape inference (kernels/shape_infer.c)
 * when the op is elementwise. docs/ARCHITECTURE.md ("How to add …", "An
 * op") has the whole list.
 *
 * Ops not listed here parse and print fine (OP_UNKNOWN); anything that needs
 * their meaning reports the op and its line.
 */
#ifndef TSSA_OPS_H
#define TSSA_OPS_H

#include <stdbool.h>

typedef enum OpClass {
    OPC_STRUCTURE,   /* prim::Param / prim::Return sentinels */
    OPC_CONTROL,     /* If, Loop, RaiseException */
    OPC_CONSTANT,
    OPC_SCALAR,      /* ints, floats, bools, strings, lists, tuples, attributes */
    OPC_CREATION,
    OPC_VIEW,
    OPC_INDEX,
    OPC_ELEMENTWISE,
    OPC_REDUCTION,
    OPC_LINALG,
    OPC_NN,
    OPC_COPY,        /* copy_, clone, contiguous-like data movement */
    OPC_ACCESS,      /* immut::<view>: a copy of a view's region */
    OPC_ASSIGN,      /* immut::<view>_rev: root with a region replaced */
    OPC_TSSA,        /* tssa:: markers */
    OPC_RANDOM,      /* draws from the run's generator: never merged, hoisted or duplicated */
} OpClass;

typedef enum OpAlias {
    ALIAS_NONE,
    ALIAS_VIEW,
    ALIAS_MAYBE,
    ALIAS_VIEWS,
    ALIAS_SELF,
} OpAlias;

#define NOMUT (-1) /* the op mutates no input */
#include "tssa/ops_inplace.inc" /* DERIVED_INPLACE_OPS, generated */
#define TSSA_OPS(X) \
    /* structure and control */ \
    X(PRIM_PARAM, "prim::Param", OPC_STRUCTURE, NOMUT, ALIAS_NONE, NOEVAL) \
    X(PRIM_RETURN, "prim::Return", OPC_STRUCTURE, NOMUT, ALIAS_NONE, NOEVAL) \
    X(PRIM_IF, "prim::If", OPC_CONTROL, NOMUT, ALIAS_NONE, NOEVAL) \
    X(PRIM_LOOP, "prim::Loop", OPC_CONTROL, NOMUT, ALIAS_NONE, NOEVAL) \
    X(PRIM_RAISEEXCEPTION, "prim::RaiseException", OPC_CONTROL, NOMUT, ALIAS_NONE, raise_exception) \
    X(PRIM_CONSTANT, "prim::Constant", OPC_CONSTANT, NOMUT, ALIAS_NONE, NOEVAL) \
    /* scalars, containers, modules */ \
    X(PRIM_GETATTR, "prim::GetAttr", OPC_SCALAR, NOMUT, ALIAS_NONE, getattr) \
    X(PRIM_SETATTR, "prim::SetAttr", OPC_SCALAR, 0, ALIAS_NONE, setattr) \
    X(PRIM_LISTCONSTRUCT, "prim::ListConstruct", OPC_SCALAR, NOMUT, ALIAS_NONE, list_construct) \
    X(PRIM_LISTUNPACK, "prim::ListUnpack", OPC_SCALAR, NOMUT, ALIAS_NONE, list_unpack) \
    X(PRIM_TUPLECONSTRUCT, "prim::TupleConstruct", OPC_SCALAR, NOMUT, ALIAS_NONE, tuple_construct) \
    X(PRIM_TUPLEUNPACK, "prim::TupleUnpack", OPC_SCALAR, NOMUT, ALIAS_NONE, tuple_unpack) \
    X(PRIM_TUPLEINDEX, "prim::TupleIndex", OPC_SCALAR, NOMUT, ALIAS_NONE, tuple_index) \
    X(PRIM_NUMTOTENSOR, "prim::NumToTensor", OPC_SCALAR, NOMUT, ALIAS_NONE, num_to_tensor) \
    X(PRIM_DTYPE, "prim::dtype", OPC_SCALAR, NOMUT, ALIAS_NONE, dtype) \
    X(PRIM_DEVICE, "prim::device", OPC_SCALAR, NOMUT, ALIAS_NONE, device) \
    X(PRIM_TYPE, "prim::type", OPC_SCALAR, NOMUT, ALIAS_NONE, device_type) \
    X(PRIM_LAYOUT, "prim::layout", OPC_SCALAR, NOMUT, ALIAS_NONE, layout) \
    X(PRIM_REQUIRES_GRAD, "prim::requires_grad", OPC_SCALAR, NOMUT, ALIAS_NONE, false_query) \
    X(PRIM_IS_CUDA, "prim::is_cuda", OPC_SCALAR, NOMUT, ALIAS_NONE, false_query) \
    X(PRIM_IS_NESTED, "prim::is_nested", OPC_SCALAR, NOMUT, ALIAS_NONE, false_query) \
    X(ATEN_IS_GRAD_ENABLED, "aten::is_grad_enabled", OPC_SCALAR, NOMUT, ALIAS_NONE, false_flag) \
    X(ATEN_IS_AUTOCAST_ENABLED, "aten::is_autocast_enabled", OPC_SCALAR, NOMUT, ALIAS_NONE, false_flag) \
    X(PRIM_SHAPE, "prim::shape", OPC_SCALAR, NOMUT, ALIAS_NONE, shape) \
    X(PRIM_UNCHECKED_CAST, "prim::unchecked_cast", OPC_SCALAR, NOMUT, ALIAS_SELF, unchecked_cast) \
    X(PRIM_UNINITIALIZED, "prim::Uninitialized", OPC_SCALAR, NOMUT, ALIAS_NONE, uninitialized) \
    X(PRIM_PRINT, "prim::Print", OPC_SCALAR, NOMUT, ALIAS_NONE, print) \
    X(PRIM_MIN, "prim::min", OPC_SCALAR, NOMUT, ALIAS_NONE, prim_min) \
    X(PRIM_MAX, "prim::max", OPC_SCALAR, NOMUT, ALIAS_NONE, prim_max) \
    X(PRIM_ISINSTANCE, "prim::isinstance", OPC_SCALAR, NOMUT, ALIAS_NONE, isinstance) \
    X(PRIM_DATA, "prim::data", OPC_SCALAR, NOMUT, ALIAS_SELF, data) \
    /* `with torch.no_grad():` and its kin (grad_scope.c in eval) */ \
    X(PRIM_CREATEOBJECT, "prim::CreateObject", OPC_SCALAR, NOMUT, ALIAS_NONE, create_object) \
    X(PRIM_ENTER, "prim::Enter", OPC_SCALAR, NOMUT, ALIAS_NONE, enter) \
    X(PRIM_EXIT, "prim::Exit", OPC_SCALAR, NOMUT, ALIAS_NONE, exit) \
    X(ATEN_INT, "aten::Int", OPC_SCALAR, NOMUT, ALIAS_NONE, int) \
    X(ATEN_FLOAT_SCALAR, "aten::Float", OPC_SCALAR, NOMUT, ALIAS_NONE, float_scalar) \
    X(ATEN_BOOL_SCALAR, "aten::Bool", OPC_SCALAR, NOMUT, ALIAS_NONE, bool_scalar) \
    X(ATEN_SCALARIMPLICIT, "aten::ScalarImplicit", OPC_SCALAR, NOMUT, ALIAS_NONE, scalar_implicit) \
    X(ATEN_INTIMPLICIT, "aten::IntImplicit", OPC_SCALAR, NOMUT, ALIAS_NONE, int_implicit) \
    X(ATEN_FLOATIMPLICIT, "aten::FloatImplicit", OPC_SCALAR, NOMUT, ALIAS_NONE, float_implicit) \
    X(ATEN_ITEM, "aten::item", OPC_SCALAR, NOMUT, ALIAS_NONE, item) \
    X(PRIM_TOLIST, "prim::tolist", OPC_SCALAR, NOMUT, ALIAS_NONE, tolist) \
    X(ATEN_LEN, "aten::len", OPC_SCALAR, NOMUT, ALIAS_NONE, len) \
    X(ATEN_GETITEM, "aten::__getitem__", OPC_SCALAR, NOMUT, ALIAS_NONE, getitem) \
    X(ATEN_SIZE, "aten::size", OPC_SCALAR, NOMUT, ALIAS_NONE, size) \
    X(ATEN_DIM, "aten::dim", OPC_SCALAR, NOMUT, ALIAS_NONE, dim) \
    X(ATEN_NUMEL, "aten::numel", OPC_SCALAR, NOMUT, ALIAS_NONE, numel) \
    X(ATEN_IS_FLOATING_POINT, "aten::is_floating_point", OPC_SCALAR, NOMUT, ALIAS_NONE, is_floating_point) \
    X(ATEN_FORMAT, "aten::format", OPC_SCALAR, NOMUT, ALIAS_NONE, format) \
    X(ATEN_PERCENTFORMAT, "aten::percentFormat", OPC_SCALAR, NOMUT, ALIAS_NONE, percent_format) \
    X(ATEN_STR, "aten::str", OPC_SCALAR, NOMUT, ALIAS_NONE, str) \
    X(ATEN_APPEND, "aten::append", OPC_SCALAR, 0, ALIAS_SELF, append) \
    X(ATEN_LIST, "aten::list", OPC_SCALAR, NOMUT, ALIAS_NONE, list) \
    X(ATEN_FLOORDIV, "aten::floordiv", OPC_SCALAR, NOMUT, ALIAS_NONE, floordiv) \
    X(ATEN_IS, "aten::__is__", OPC_SCALAR, NOMUT, ALIAS_NONE, is) \
    X(ATEN_ISNOT, "aten::__isnot__", OPC_SCALAR, NOMUT, ALIAS_NONE, isnot) \
    X(ATEN_NOT, "aten::__not__", OPC_SCALAR, NOMUT, ALIAS_NONE, not) \
    X(ATEN_CONTAINS, "aten::__contains__", OPC_SCALAR, NOMUT, ALIAS_NONE, contains) \
    X(ATEN_RANGE_LENGTH, "aten::__range_length", OPC_SCALAR, NOMUT, ALIAS_NONE, range_length) \
    X(ATEN_DERIVE_INDEX, "aten::__derive_index", OPC_SCALAR, NOMUT, ALIAS_NONE, derive_index) \
    X(ATEN_WARN, "aten::warn", OPC_SCALAR, NOMUT, ALIAS_NONE, warn) \
    X(PRIM_ABS, "prim::abs", OPC_SCALAR, NOMUT, ALIAS_NONE, prim_abs) \
    X(ATEN_SET_ITEM, "aten::_set_item", OPC_SCALAR, 0, ALIAS_SELF, set_item) \
    X(ATEN_EXTEND, "aten::extend", OPC_SCALAR, 0, ALIAS_NONE, extend) \
    X(ATEN_INSERT, "aten::insert", OPC_SCALAR, 0, ALIAS_NONE, insert) \
    X(ATEN_POP, "aten::pop", OPC_SCALAR, 0, ALIAS_NONE, pop) \
    X(ATEN_REVERSE, "aten::reverse", OPC_SCALAR, 0, ALIAS_NONE, reverse) \
    X(ATEN_REMOVE, "aten::remove", OPC_SCALAR, 0, ALIAS_NONE, remove) \
    X(ATEN_CLEAR, "aten::clear", OPC_SCALAR, 0, ALIAS_NONE, clear) \
    X(ATEN_DELETE, "aten::Delete", OPC_SCALAR, 0, ALIAS_NONE, delete) \
    X(ATEN_COUNT, "aten::count", OPC_SCALAR, NOMUT, ALIAS_NONE, count) \
    X(PRIM_DICTCONSTRUCT, "prim::DictConstruct", OPC_SCALAR, NOMUT, ALIAS_NONE, dict_construct) \
    X(ATEN_DICT, "aten::dict", OPC_SCALAR, NOMUT, ALIAS_NONE, dict) \
    X(ATEN_KEYS, "aten::keys", OPC_SCALAR, NOMUT, ALIAS_NONE, keys) \
    X(ATEN_VALUES, "aten::values", OPC_SCALAR, NOMUT, ALIAS_NONE, values) \
    X(ATEN_ITEMS, "aten::items", OPC_SCALAR, NOMUT, ALIAS_NONE, items) \
    X(ATEN_GET, "aten::get", OPC_SCALAR, NOMUT, ALIAS_NONE, get) \
    X(ATEN_SETDEFAULT, "aten::setdefault", OPC_SCALAR, 0, ALIAS_NONE, setdefault) \
    X(ATEN_UPDATE, "aten::update", OPC_SCALAR, 0, ALIAS_NONE, update) \
    X(ATEN_POPITEM, "aten::popitem", OPC_SCALAR, 0, ALIAS_NONE, popitem) \
    X(ATEN_JOIN, "aten::join", OPC_SCALAR, NOMUT, ALIAS_NONE, join) \
    X(ATEN_REPLACE, "aten::replace", OPC_SCALAR, NOMUT, ALIAS_NONE, replace) \
    X(ATEN_STRIP, "aten::strip", OPC_SCALAR, NOMUT, ALIAS_NONE, strip) \
    X(ATEN_LSTRIP, "aten::lstrip", OPC_SCALAR, NOMUT, ALIAS_NONE, lstrip) \
    X(ATEN_RSTRIP, "aten::rstrip", OPC_SCALAR, NOMUT, ALIAS_NONE, rstrip) \
    X(ATEN_LOWER, "aten::lower", OPC_SCALAR, NOMUT, ALIAS_NONE, lower) \
    X(ATEN_UPPER, "aten::upper", OPC_SCALAR, NOMUT, ALIAS_NONE, upper) \
    X(ATEN_STARTSWITH, "aten::startswith", OPC_SCALAR, NOMUT, ALIAS_NONE, startswith) \
    X(ATEN_ENDSWITH, "aten::endswith", OPC_SCALAR, NOMUT, ALIAS_NONE, endswith) \
    X(ATEN_FIND, "aten::find", OPC_SCALAR, NOMUT, ALIAS_NONE, find) \
    X(ATEN_ORD, "aten::ord", OPC_SCALAR, NOMUT, ALIAS_NONE, ord) \
    X(ATEN_CHR, "aten::chr", OPC_SCALAR, NOMUT, ALIAS_NONE, chr) \
    /* creation */ \
    X(ATEN_ZEROS, "aten::zeros", OPC_CREATION, NOMUT, ALIAS_NONE, zeros) \
    X(ATEN_ONES, "aten::ones", OPC_CREATION, NOMUT, ALIAS_NONE, ones) \
    X(ATEN_FULL, "aten::full", OPC_CREATION, NOMUT, ALIAS_NONE, full) \
    X(ATEN_EMPTY, "aten::empty", OPC_CREATION, NOMUT, ALIAS_NONE, empty) \
    X(ATEN_ARANGE, "aten::arange", OPC_CREATION, NOMUT, ALIAS_NONE, arange) \
    X(ATEN_LINSPACE, "aten::linspace", OPC_CREATION, NOMUT, ALIAS_NONE, linspace) \
    X(ATEN_ZEROS_LIKE, "aten::zeros_like", OPC_CREATION, NOMUT, ALIAS_NONE, zeros_like) \
    X(ATEN_ONES_LIKE, "aten::ones_like", OPC_CREATION, NOMUT, ALIAS_NONE, ones_like) \
    X(ATEN_FULL_LIKE, "aten::full_like", OPC_CREATION, NOMUT, ALIAS_NONE, full_like) \
    X(ATEN_EMPTY_LIKE, "aten::empty_like", OPC_CREATION, NOMUT, ALIAS_NONE, empty_like) \
    X(ATEN_NEW_ZEROS, "aten::new_zeros", OPC_CREATION, NOMUT, ALIAS_NONE, new_zeros) \
    X(ATEN_NEW_ONES, "aten::new_ones", OPC_CREATION, NOMUT, ALIAS_NONE, new_ones) \
    X(ATEN_NEW_FULL, "aten::new_full", OPC_CREATION, NOMUT, ALIAS_NONE, new_full) \
    X(ATEN_NEW_EMPTY, "aten::new_empty", OPC_CREATION, NOMUT, ALIAS_NONE, new_empty) \
    X(ATEN_TENSOR, "aten::tensor", OPC_CREATION, NOMUT, ALIAS_NONE, tensor) \
    X(ATEN_AS_TENSOR, "aten::as_tensor", OPC_CREATION, NOMUT, ALIAS_MAYBE, as_tensor) \
    X(ATEN_SCALAR_TENSOR, "aten::scalar_tensor", OPC_CREATION, NOMUT, ALIAS_NONE, scalar_tensor) \
    X(ATEN_MESHGRID, "aten::meshgrid", OPC_CREATION, NOMUT, ALIAS_VIEWS, meshgrid) \
    X(ATEN_EYE, "aten::eye", OPC_CREATION, NOMUT, ALIAS_NONE, eye) \
    /* views */ \
    X(ATEN_SELECT, "aten::select", OPC_VIEW, NOMUT, ALIAS_VIEW, select) \
    X(ATEN_SLICE, "aten::slice", OPC_VIEW, NOMUT, ALIAS_VIEW, slice) \
    X(ATEN_VIEW, "aten::view", OPC_VIEW, NOMUT, ALIAS_VIEW, view) \
    X(ATEN_VIEW_AS, "aten::view_as", OPC_VIEW, NOMUT, ALIAS_VIEW, view_as) \
    X(ATEN_RESHAPE, "aten::reshape", OPC_VIEW, NOMUT, ALIAS_MAYBE, reshape) \
    X(ATEN_RESHAPE_AS, "aten::reshape_as", OPC_VIEW, NOMUT, ALIAS_MAYBE, reshape_as) \
    X(ATEN_SQUEEZE, "aten::squeeze", OPC_VIEW, NOMUT, ALIAS_VIEW, squeeze) \
    X(ATEN_UNSQUEEZE, "aten::unsqueeze", OPC_VIEW, NOMUT, ALIAS_VIEW, unsqueeze) \
    X(ATEN_EXPAND, "aten::expand", OPC_VIEW, NOMUT, ALIAS_VIEW, expand) \
    X(ATEN_EXPAND_AS, "aten::expand_as", OPC_VIEW, NOMUT, ALIAS_VIEW, expand_as) \
    X(ATEN_PERMUTE, "aten::permute", OPC_VIEW, NOMUT, ALIAS_VIEW, permute) \
    X(ATEN_TRANSPOSE, "aten::transpose", OPC_VIEW, NOMUT, ALIAS_VIEW, transpose) \
    X(ATEN_T, "aten::t", OPC_VIEW, NOMUT, ALIAS_VIEW, t) \
    X(ATEN_NUMPY_T, "aten::numpy_T", OPC_VIEW, NOMUT, ALIAS_VIEW, numpy_t) \
    X(ATEN_MOVEDIM, "aten::movedim", OPC_VIEW, NOMUT, ALIAS_VIEW, movedim) \
    X(ATEN_CONTIGUOUS, "aten::contiguous", OPC_VIEW, NOMUT, ALIAS_MAYBE, contiguous) \
    X(ATEN_FLATTEN, "aten::flatten", OPC_VIEW, NOMUT, ALIAS_MAYBE, flatten) \
    X(ATEN_UNFLATTEN, "aten::unflatten", OPC_VIEW, NOMUT, ALIAS_VIEW, unflatten) \
    X(ATEN_NARROW, "aten::narrow", OPC_VIEW, NOMUT, ALIAS_VIEW, narrow) \
    X(ATEN_DIAGONAL, "aten::diagonal", OPC_VIEW, NOMUT, ALIAS_VIEW, diagonal) \
    X(ATEN_ALIAS, "aten::alias", OPC_VIEW, NOMUT, ALIAS_VIEW, alias) \
    X(ATEN_DETACH, "aten::detach", OPC_VIEW, NOMUT, ALIAS_VIEW, alias) \
    X(ATEN_CHUNK, "aten::chunk", OPC_VIEW, NOMUT, ALIAS_VIEWS, chunk) \
    X(ATEN_SPLIT, "aten::split", OPC_VIEW, NOMUT, ALIAS_VIEWS, split) \
    X(ATEN_SPLIT_WITH_SIZES, "aten::split_with_sizes", OPC_VIEW, NOMUT, ALIAS_VIEWS, split_with_sizes) \
    X(ATEN_UNBIND, "aten::unbind", OPC_VIEW, NOMUT, ALIAS_VIEWS, unbind) \
    /* indexing */ \
    X(ATEN_INDEX, "aten::index", OPC_INDEX, NOMUT, ALIAS_NONE, index) \
    X(ATEN_INDEX_SELECT, "aten::index_select", OPC_INDEX, NOMUT, ALIAS_NONE, index_select) \
    X(ATEN_MASKED_SELECT, "aten::masked_select", OPC_INDEX, NOMUT, ALIAS_NONE, masked_select) \
    X(ATEN_GATHER, "aten::gather", OPC_INDEX, NOMUT, ALIAS_NONE, gather) \
    X(ATEN_INDEX_PUT, "aten::index_put", OPC_INDEX, NOMUT, ALIAS_NONE, index_put) \
    X(ATEN_INDEX_PUT_, "aten::index_put_", OPC_INDEX, 0, ALIAS_SELF, index_put_) \
    X(ATEN_MASKED_FILL, "aten::masked_fill", OPC_INDEX, NOMUT, ALIAS_NONE, masked_fill) \
    X(ATEN_MASKED_FILL_, "aten::masked_fill_", OPC_INDEX, 0, ALIAS_SELF, masked_fill_) \
    X(ATEN_SCATTER, "aten::scatter", OPC_INDEX, NOMUT, ALIAS_NONE, scatter) \
    X(ATEN_SCATTER_, "aten::scatter_", OPC_INDEX, 0, ALIAS_SELF, scatter_) \
    X(ATEN_SCATTER_ADD, "aten::scatter_add", OPC_INDEX, NOMUT, ALIAS_NONE, scatter_add) \
    X(ATEN_SCATTER_ADD_, "aten::scatter_add_", OPC_INDEX, 0, ALIAS_SELF, scatter_add_) \
    X(ATEN_INDEX_ADD, "aten::index_add", OPC_INDEX, NOMUT, ALIAS_NONE, index_add) \
    X(ATEN_INDEX_ADD_, "aten::index_add_", OPC_INDEX, 0, ALIAS_SELF, index_add_) \
    X(ATEN_BINCOUNT, "aten::bincount", OPC_INDEX, NOMUT, ALIAS_NONE, bincount) \
    X(ATEN_SEARCHSORTED, "aten::searchsorted", OPC_INDEX, NOMUT, ALIAS_NONE, searchsorted) \
    /* copies and in-place fills */ \
    X(ATEN_COPY_, "aten::copy_", OPC_COPY, 0, ALIAS_SELF, copy_) \
    X(ATEN_CLONE, "aten::clone", OPC_COPY, NOMUT, ALIAS_NONE, clone) \
    X(ATEN_FILL_, "aten::fill_", OPC_COPY, 0, ALIAS_SELF, fill_) \
    X(ATEN_ZERO_, "aten::zero_", OPC_COPY, 0, ALIAS_SELF, zero_) \
    /* elementwise */ \
    ELEMENTWISE_OPS(X) \
    /* reductions */ \
    X(ATEN_SUM, "aten::sum", OPC_REDUCTION, NOMUT, ALIAS_NONE, sum) \
    X(ATEN_MEAN, "aten::mean", OPC_REDUCTION, NOMUT, ALIAS_NONE, mean) \
    X(ATEN_PROD, "aten::prod", OPC_REDUCTION, NOMUT, ALIAS_NONE, prod) \
    X(ATEN_MAX, "aten::max", OPC_REDUCTION, NOMUT, ALIAS_NONE, max) \
    X(ATEN_MIN, "aten::min", OPC_REDUCTION, NOMUT, ALIAS_NONE, min) \
    X(ATEN_ARGMAX, "aten::argmax", OPC_REDUCTION, NOMUT, ALIAS_NONE, argmax) \
    X(ATEN_ARGMIN, "aten::argmin", OPC_REDUCTION, NOMUT, ALIAS_NONE, argmin) \
    X(ATEN_AMAX, "aten::amax", OPC_REDUCTION, NOMUT, ALIAS_NONE, amax) \
    X(ATEN_AMIN, "aten::amin", OPC_REDUCTION, NOMUT, ALIAS_NONE, amin) \
    X(ATEN_SOFTMAX, "aten::softmax", OPC_REDUCTION, NOMUT, ALIAS_NONE, softmax) \
    X(ATEN_LOG_SOFTMAX, "aten::log_softmax", OPC_REDUCTION, NOMUT, ALIAS_NONE, log_softmax) \
    X(ATEN_CUMSUM, "aten::cumsum", OPC_REDUCTION, NOMUT, ALIAS_NONE, cumsum) \
    X(ATEN_CUMPROD, "aten::cumprod", OPC_REDUCTION, NOMUT, ALIAS_NONE, cumprod) \
    X(ATEN_ALL, "aten::all", OPC_REDUCTION, NOMUT, ALIAS_NONE, all) \
    X(ATEN_ANY, "aten::any", OPC_REDUCTION, NOMUT, ALIAS_NONE, any) \
    X(ATEN_TOPK, "aten::topk", OPC_REDUCTION, NOMUT, ALIAS_NONE, topk) \
    X(ATEN_SORT, "aten::sort", OPC_REDUCTION, NOMUT, ALIAS_NONE, sort) \
    X(ATEN_UNIQUE_CONSECUTIVE, "aten::unique_consecutive", OPC_REDUCTION, NOMUT, ALIAS_NONE, unique_consecutive) \
    X(ATEN_ARGSORT, "aten::argsort", OPC_REDUCTION, NOMUT, ALIAS_NONE, argsort) \
    X(ATEN_NONZERO, "aten::nonzero", OPC_REDUCTION, NOMUT, ALIAS_NONE, nonzero) \
    X(ATEN_NORM, "aten::norm", OPC_REDUCTION, NOMUT, ALIAS_NONE, norm) \
    X(ATEN_VAR, "aten::var", OPC_REDUCTION, NOMUT, ALIAS_NONE, var) \
    X(ATEN_STD, "aten::std", OPC_REDUCTION, NOMUT, ALIAS_NONE, std) \
    X(ATEN_LOGSUMEXP, "aten::logsumexp", OPC_REDUCTION, NOMUT, ALIAS_NONE, logsumexp) \
    /* linear algebra and nn */ \
    X(ATEN_MM, "aten::mm", OPC_LINALG, NOMUT, ALIAS_NONE, mm) \
    X(ATEN_BMM, "aten::bmm", OPC_LINALG, NOMUT, ALIAS_NONE, bmm) \
    X(ATEN_MATMUL, "aten::matmul", OPC_LINALG, NOMUT, ALIAS_NONE, matmul) \
    X(ATEN_ADDMM, "aten::addmm", OPC_LINALG, NOMUT, ALIAS_NONE, addmm) \
    X(ATEN_LINEAR, "aten::linear", OPC_LINALG, NOMUT, ALIAS_NONE, linear) \
    X(ATEN_DOT, "aten::dot", OPC_LINALG, NOMUT, ALIAS_NONE, dot) \
    X(ATEN_OUTER, "aten::outer", OPC_LINALG, NOMUT, ALIAS_NONE, outer) \
    X(ATEN_LINALG_CHOLESKY, "aten::linalg_cholesky", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_cholesky) \
    X(ATEN_CHOLESKY_SOLVE, "aten::cholesky_solve", OPC_LINALG, NOMUT, ALIAS_NONE, cholesky_solve) \
    X(ATEN_LINALG_SOLVE, "aten::linalg_solve", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_solve) \
    X(ATEN_LINALG_INV, "aten::linalg_inv", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_inv) \
    X(ATEN_LINALG_DET, "aten::linalg_det", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_det) \
    X(ATEN_LINALG_SLOGDET, "aten::linalg_slogdet", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_slogdet) \
    X(ATEN_LOGDET, "aten::logdet", OPC_LINALG, NOMUT, ALIAS_NONE, logdet) \
    X(ATEN_DIAG, "aten::diag", OPC_LINALG, NOMUT, ALIAS_NONE, diag) \
    X(ATEN_EINSUM, "aten::einsum", OPC_LINALG, NOMUT, ALIAS_NONE, einsum) \
    X(ATEN_LINALG_QR, "aten::linalg_qr", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_qr) \
    X(ATEN_LINALG_EIGH, "aten::linalg_eigh", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_eigh) \
    X(ATEN_DIAG_EMBED, "aten::diag_embed", OPC_LINALG, NOMUT, ALIAS_NONE, diag_embed) \
    X(ATEN_CONV2D, "aten::conv2d", OPC_NN, NOMUT, ALIAS_NONE, conv2d) \
    X(ATEN_CONV1D, "aten::conv1d", OPC_NN, NOMUT, ALIAS_NONE, conv1d) \
    X(ATEN_CONV3D, "aten::conv3d", OPC_NN, NOMUT, ALIAS_NONE, conv3d) \
    X(ATEN_CONVOLUTION, "aten::_convolution", OPC_NN, NOMUT, ALIAS_NONE, convolution) \
    X(ATEN_BATCH_NORM, "aten::batch_norm", OPC_NN, NOMUT, ALIAS_NONE, batch_norm) \
    X(ATEN_LAYER_NORM, "aten::layer_norm", OPC_NN, NOMUT, ALIAS_NONE, layer_norm) \
    X(ATEN_GROUP_NORM, "aten::group_norm", OPC_NN, NOMUT, ALIAS_NONE, group_norm) \
    X(ATEN_MAX_POOL2D, "aten::max_pool2d", OPC_NN, NOMUT, ALIAS_NONE, max_pool2d) \
    X(ATEN_AVG_POOL2D, "aten::avg_pool2d", OPC_NN, NOMUT, ALIAS_NONE, avg_pool2d) \
    X(ATEN_ADAPTIVE_AVG_POOL2D, "aten::adaptive_avg_pool2d", OPC_NN, NOMUT, ALIAS_NONE, adaptive_avg_pool2d) \
    X(ATEN_EMBEDDING, "aten::embedding", OPC_NN, NOMUT, ALIAS_NONE, embedding) \
    X(ATEN_CAT, "aten::cat", OPC_NN, NOMUT, ALIAS_NONE, cat) \
    X(ATEN_STACK, "aten::stack", OPC_NN, NOMUT, ALIAS_NONE, stack) \
    X(ATEN_REPEAT, "aten::repeat", OPC_NN, NOMUT, ALIAS_NONE, repeat) \
    X(ATEN_FLIP, "aten::flip", OPC_NN, NOMUT, ALIAS_NONE, flip) \
    X(ATEN_ROLL, "aten::roll", OPC_NN, NOMUT, ALIAS_NONE, roll) \
    X(ATEN_TRIL, "aten::tril", OPC_NN, NOMUT, ALIAS_NONE, tril) \
    X(ATEN_TRIU, "aten::triu", OPC_NN, NOMUT, ALIAS_NONE, triu) \
    X(ATEN_CONSTANT_PAD_ND, "aten::constant_pad_nd", OPC_NN, NOMUT, ALIAS_NONE, constant_pad_nd) \
    X(ATEN_PAD, "aten::pad", OPC_NN, NOMUT, ALIAS_NONE, pad) \
    X(ATEN_LSTM_CELL, "aten::lstm_cell", OPC_NN, NOMUT, ALIAS_NONE, lstm_cell) \
    X(ATEN_GRU_CELL, "aten::gru_cell", OPC_NN, NOMUT, ALIAS_NONE, gru_cell) \
    X(ATEN_RNN_TANH_CELL, "aten::rnn_tanh_cell", OPC_NN, NOMUT, ALIAS_NONE, rnn_tanh_cell) \
    /* whole recurrent layers (nn.GRU/LSTM/RNN); kernels/expand_rnn_layers.c */ \
    X(ATEN_GRU, "aten::gru", OPC_NN, NOMUT, ALIAS_NONE, gru) \
    X(ATEN_LSTM, "aten::lstm", OPC_NN, NOMUT, ALIAS_NONE, lstm) \
    X(ATEN_RNN_TANH, "aten::rnn_tanh", OPC_NN, NOMUT, ALIAS_NONE, rnn_tanh) \
    X(ATEN_RNN_RELU, "aten::rnn_relu", OPC_NN, NOMUT, ALIAS_NONE, rnn_relu) \
    /* op families added for OpInfo coverage, each defined below */ \
    SPECIAL_OPS(X) \
    MATH_OPS(X) \
    POOL_NORM_OPS(X) \
    RESAMPLE_OPS(X) \
    LOSS_OPS(X) \
    LINALG_EXTRA_OPS(X) \
    STATS_OPS(X) \
    SHAPE_INDEX_OPS(X) \
    FFT_OPS(X) \
    RANDOM_OPS(X) \
    /* the in-place twins derived from the rows above (ops_inplace.inc) */ \
    DERIVED_INPLACE_OPS(X) \
    /* TensorSSA: immutable accesses and their assign twins */ \
    IMMUT_OPS(X) \
    X(IMMUT_ASSIGN, "immut::assign", OPC_ASSIGN, NOMUT, ALIAS_NONE, NOEVAL) \
    /* TensorSSA for lists (functionalize/list_versions.c): l[idx] = el on a copy */ \
    X(IMMUT_LIST_SET_ITEM, "immut::list_set_item", OPC_SCALAR, NOMUT, ALIAS_NONE, list_set_item) \
    /* The other list writes on a copy (list_versions.c): insert, pop (the \
     * new list and the item), remove, sort(reverse), del l[i] */ \
    X(IMMUT_LIST_INSERT, "immut::list_insert", OPC_SCALAR, NOMUT, ALIAS_NONE, list_insert) \
    X(IMMUT_LIST_POP, "immut::list_pop", OPC_SCALAR, NOMUT, ALIAS_NONE, list_pop) \
    X(IMMUT_LIST_REMOVE, "immut::list_remove", OPC_SCALAR, NOMUT, ALIAS_NONE, list_remove) \
    X(IMMUT_LIST_SORT, "immut::list_sort", OPC_SCALAR, NOMUT, ALIAS_NONE, list_sort) \
    X(IMMUT_LIST_DELETE, "immut::list_delete", OPC_SCALAR, NOMUT, ALIAS_NONE, list_delete) \
    /* d[key] = value on a copy (list_versions.c, for dicts), and the other \
     * dict writes: pop (the new dict and the value), setdefault, update, \
     * popitem (the new dict and the (key, value) tuple) */ \
    X(IMMUT_DICT_SET_ITEM, "immut::dict_set_item", OPC_SCALAR, NOMUT, ALIAS_NONE, dict_set_item) \
    X(IMMUT_DICT_POP, "immut::dict_pop", OPC_SCALAR, NOMUT, ALIAS_NONE, dict_pop) \
    X(IMMUT_DICT_SETDEFAULT, "immut::dict_setdefault", OPC_SCALAR, NOMUT, ALIAS_NONE, dict_setdefault) \
    X(IMMUT_DICT_UPDATE, "immut::dict_update", OPC_SCALAR, NOMUT, ALIAS_NONE, dict_update) \
    X(IMMUT_DICT_POPITEM, "immut::dict_popitem", OPC_SCALAR, NOMUT, ALIAS_NONE, dict_popitem) \
    X(TSSA_UPDATE, "tssa::update", OPC_TSSA, NOMUT, ALIAS_NONE, NOEVAL) \
    X(TSSA_INPLACE_CHECK, "tssa::inplace_check", OPC_TSSA, NOMUT, ALIAS_NONE, inplace_check) \
    /* A fused group (kernels/fuse.c): its one block is the group's nodes, its \
     * params the group's inputs, its returns the group's outputs; it runs as \
     * one generated kernel, or is interpreted like any block. */ \
    X(TSSA_FUSION_GROUP, "tssa::FusionGroup", OPC_TSSA, NOMUT, ALIAS_NONE, NOEVAL)

/* Elementwise ops. ELEMENTWISE_PAIR lists an op and its in-place twin
 * <op>_ (which mutates input 0) bound to a binding of its own, EVAL_
 * (eval_op_add_ for add); ELEMENTWISE_ONLY lists the op alone, and its twin,
 * where PyTorch has one, is derived (ops_inplace.inc). Scalar arithmetic on
 * ints and floats (aten::add(int, int)) shares these entries. EVAL is the
 * op's eval column (see above). */
#define ELEMENTWISE_PAIR(X, ID, NAME, EVAL) \
    X(ATEN_##ID, "aten::" NAME, OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, EVAL) \
    X(ATEN_##ID##_, "aten::" NAME "_", OPC_ELEMENTWISE, 0, ALIAS_SELF, EVAL##_)
#define ELEMENTWISE_ONLY(X, ID, NAME, EVAL) \
    X(ATEN_##ID, "aten::" NAME, OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, EVAL)
#define ELEMENTWISE_OPS(X) \
    ELEMENTWISE_PAIR(X, ADD, "add", add) ELEMENTWISE_PAIR(X, SUB, "sub", sub) \
    ELEMENTWISE_ONLY(X, RSUB, "rsub", rsub) ELEMENTWISE_PAIR(X, MUL, "mul", mul) \
    ELEMENTWISE_PAIR(X, DIV, "div", div) ELEMENTWISE_PAIR(X, FLOOR_DIVIDE, "floor_divide", floor_divide) \
    ELEMENTWISE_PAIR(X, REMAINDER, "remainder", remainder) ELEMENTWISE_PAIR(X, FMOD, "fmod", fmod) \
    ELEMENTWISE_PAIR(X, NEG, "neg", neg) ELEMENTWISE_PAIR(X, ABS, "abs", abs) \
    ELEMENTWISE_PAIR(X, EXP, "exp", exp) ELEMENTWISE_PAIR(X, LOG, "log", log) \
    ELEMENTWISE_PAIR(X, LOG2, "log2", log2) ELEMENTWISE_PAIR(X, LOG1P, "log1p", log1p) \
    ELEMENTWISE_PAIR(X, EXPM1, "expm1", expm1) ELEMENTWISE_PAIR(X, SQRT, "sqrt", sqrt) \
    ELEMENTWISE_PAIR(X, RSQRT, "rsqrt", rsqrt) ELEMENTWISE_PAIR(X, POW, "pow", pow) \
    ELEMENTWISE_PAIR(X, SIN, "sin", sin) ELEMENTWISE_PAIR(X, COS, "cos", cos) \
    ELEMENTWISE_PAIR(X, TAN, "tan", tan) ELEMENTWISE_PAIR(X, TANH, "tanh", tanh) \
    ELEMENTWISE_PAIR(X, ERF, "erf", erf) ELEMENTWISE_PAIR(X, SIGMOID, "sigmoid", sigmoid) \
    ELEMENTWISE_PAIR(X, RELU, "relu", relu) ELEMENTWISE_PAIR(X, RELU6, "relu6", relu6) \
    ELEMENTWISE_PAIR(X, LEAKY_RELU, "leaky_relu", leaky_relu) ELEMENTWISE_PAIR(X, HARDTANH, "hardtanh", hardtanh) \
    ELEMENTWISE_PAIR(X, GELU, "gelu", gelu) ELEMENTWISE_PAIR(X, SILU, "silu", silu) \
    ELEMENTWISE_PAIR(X, ELU, "elu", elu) ELEMENTWISE_ONLY(X, SOFTPLUS, "softplus", softplus) \
    ELEMENTWISE_PAIR(X, HARDSIGMOID, "hardsigmoid", hardsigmoid) ELEMENTWISE_PAIR(X, HARDSWISH, "hardswish", hardswish) \
    ELEMENTWISE_PAIR(X, CLAMP, "clamp", clamp) ELEMENTWISE_PAIR(X, CLAMP_MIN, "clamp_min", clamp_min) \
    ELEMENTWISE_PAIR(X, CLAMP_MAX, "clamp_max", clamp_max) ELEMENTWISE_PAIR(X, FLOOR, "floor", floor) \
    ELEMENTWISE_PAIR(X, CEIL, "ceil", ceil) ELEMENTWISE_PAIR(X, ROUND, "round", round) \
    ELEMENTWISE_PAIR(X, TRUNC, "trunc", trunc) ELEMENTWISE_PAIR(X, SIGN, "sign", sign) \
    ELEMENTWISE_PAIR(X, RECIPROCAL, "reciprocal", reciprocal) ELEMENTWISE_ONLY(X, WHERE, "where", where) \
    ELEMENTWISE_ONLY(X, MAXIMUM, "maximum", maximum) ELEMENTWISE_ONLY(X, MINIMUM, "minimum", minimum) \
    ELEMENTWISE_PAIR(X, EQ, "eq", eq) ELEMENTWISE_PAIR(X, NE, "ne", ne) \
    ELEMENTWISE_PAIR(X, LT, "lt", lt) ELEMENTWISE_PAIR(X, LE, "le", le) \
    ELEMENTWISE_PAIR(X, GT, "gt", gt) ELEMENTWISE_PAIR(X, GE, "ge", ge) \
    ELEMENTWISE_PAIR(X, LOGICAL_AND, "logical_and", logical_and) ELEMENTWISE_PAIR(X, LOGICAL_OR, "logical_or", logical_or) \
    ELEMENTWISE_PAIR(X, LOGICAL_NOT, "logical_not", logical_not) ELEMENTWISE_PAIR(X, LOGICAL_XOR, "logical_xor", logical_xor) \
    ELEMENTWISE_PAIR(X, BITWISE_AND, "bitwise_and", bitwise_and) ELEMENTWISE_PAIR(X, BITWISE_OR, "bitwise_or", bitwise_or) \
    ELEMENTWISE_PAIR(X, BITWISE_NOT, "bitwise_not", bitwise_not) ELEMENTWISE_PAIR(X, BITWISE_XOR, "bitwise_xor", bitwise_xor) \
    ELEMENTWISE_ONLY(X, AND, "__and__", and) ELEMENTWISE_ONLY(X, OR, "__or__", or) \
    ELEMENTWISE_ONLY(X, XOR, "__xor__", xor) ELEMENTWISE_ONLY(X, INVERT, "__invert__", invert) \
    ELEMENTWISE_ONLY(X, IAND, "__iand__", iand) ELEMENTWISE_ONLY(X, IOR, "__ior__", ior) \
    ELEMENTWISE_ONLY(X, LERP, "lerp", lerp) ELEMENTWISE_ONLY(X, ATAN2, "atan2", atan2) \
    ELEMENTWISE_PAIR(X, ACOS, "acos", acos) ELEMENTWISE_PAIR(X, ASIN, "asin", asin) ELEMENTWISE_PAIR(X, ATAN, "atan", atan) ELEMENTWISE_PAIR(X, SINH, "sinh", sinh) ELEMENTWISE_PAIR(X, COSH, "cosh", cosh) \
    ELEMENTWISE_PAIR(X, ASINH, "asinh", asinh) ELEMENTWISE_PAIR(X, ACOSH, "acosh", acosh) ELEMENTWISE_PAIR(X, ATANH, "atanh", atanh) ELEMENTWISE_PAIR(X, ERFC, "erfc", erfc) ELEMENTWISE_PAIR(X, EXP2, "exp2", exp2) \
    ELEMENTWISE_PAIR(X, LOG10, "log10", log10) ELEMENTWISE_PAIR(X, LGAMMA, "lgamma", lgamma) ELEMENTWISE_PAIR(X, DEG2RAD, "deg2rad", deg2rad) ELEMENTWISE_PAIR(X, RAD2DEG, "rad2deg", rad2deg) ELEMENTWISE_PAIR(X, SINC, "sinc", sinc) \
    X(ATEN_TO, "aten::to", OPC_ELEMENTWISE, NOMUT, ALIAS_MAYBE, to) \
    X(ATEN_TYPE_AS, "aten::type_as", OPC_ELEMENTWISE, NOMUT, ALIAS_MAYBE, type_as) \
    X(ATEN_FLOAT, "aten::float", OPC_ELEMENTWISE, NOMUT, ALIAS_MAYBE, cast_float) \
    X(ATEN_DOUBLE, "aten::double", OPC_ELEMENTWISE, NOMUT, ALIAS_MAYBE, cast_double) \
    X(ATEN_LONG, "aten::long", OPC_ELEMENTWISE, NOMUT, ALIAS_MAYBE, cast_long) \
    X(ATEN_INT_CAST, "aten::int", OPC_ELEMENTWISE, NOMUT, ALIAS_MAYBE, cast_int) \
    X(ATEN_BOOL, "aten::bool", OPC_ELEMENTWISE, NOMUT, ALIAS_MAYBE, cast_bool)

/* The code template of each elementwise op that generated kernels compute
 * inline (kernels/kir_build.c), listed once for every target: the C and the
 * CUDA printers (kernels/kir_print.c) substitute and print the same text.
 *   K(ID, nargs, rule, "template")
 *     nargs     the node's input count the template is for (other overloads,
 *               a None where a number is expected, stay unfused)
 *     rule      OPT_ARITH    operands and result in the result's dtype
 *               OPT_COMPARE  operands in their promoted dtype, result bool
 *               OPT_SELECT   operand `cond` (OpTemplate.cond) is bool, the
 *                            others and the result in the result's dtype
 *     template  a C expression: $0 $1 ... are the operands, T the compute
 *               type; the math names (EXP, LOG, SQRT, TANH, ERF, POW, FLOOR,
 *               ...) are type-generic helpers of the kernels' prelude. */
#define KERNEL_TEMPLATES(K) \
    K(ATEN_ADD, 3, OPT_ARITH, "$0 + $2 * $1") \
    K(ATEN_SUB, 3, OPT_ARITH, "$0 - $2 * $1") \
    K(ATEN_RSUB, 3, OPT_ARITH, "$1 - $2 * $0") \
    K(ATEN_MUL, 2, OPT_ARITH, "$0 * $1") \
    K(ATEN_DIV, 2, OPT_ARITH, "$0 / $1") \
    K(ATEN_NEG, 1, OPT_ARITH, "-$0") \
    K(ATEN_ABS, 1, OPT_ARITH, "ABS($0)") \
    K(ATEN_EXP, 1, OPT_ARITH, "EXP($0)") \
    K(ATEN_EXP2, 1, OPT_ARITH, "EXP2($0)") \
    K(ATEN_EXPM1, 1, OPT_ARITH, "EXPM1($0)") \
    K(ATEN_LOG, 1, OPT_ARITH, "LOG($0)") \
    K(ATEN_LOG2, 1, OPT_ARITH, "LOG2($0)") \
    K(ATEN_LOG10, 1, OPT_ARITH, "LOG10($0)") \
    K(ATEN_LOG1P, 1, OPT_ARITH, "LOG1P($0)") \
    K(ATEN_SQRT, 1, OPT_ARITH, "SQRT($0)") \
    K(ATEN_RSQRT, 1, OPT_ARITH, "(T)1 / SQRT($0)") \
    K(ATEN_RECIPROCAL, 1, OPT_ARITH, "(T)1 / $0") \
    K(ATEN_POW, 2, OPT_ARITH, "POW($0, $1)") \
    K(ATEN_SIN, 1, OPT_ARITH, "SIN($0)") \
    K(ATEN_COS, 1, OPT_ARITH, "COS($0)") \
    K(ATEN_TAN, 1, OPT_ARITH, "TAN($0)") \
    K(ATEN_TANH, 1, OPT_ARITH, "TANH($0)") \
    K(ATEN_ATAN, 1, OPT_ARITH, "ATAN($0)") \
    K(ATEN_ATAN2, 2, OPT_ARITH, "ATAN2($0, $1)") \
    K(ATEN_ERF, 1, OPT_ARITH, "ERF($0)") \
    K(ATEN_SIGMOID, 1, OPT_ARITH, "(T)1 / ((T)1 + EXP(-$0))") \
    K(ATEN_SILU, 1, OPT_ARITH, "$0 / ((T)1 + EXP(-$0))") \
    K(ATEN_BINARY_CROSS_ENTROPY_WITH_LOGITS, 5, OPT_ARITH, \
      "((T)1 - $1) * $0 + ($0 < (T)0 ? -$0 : (T)0) + " \
      "LOG(EXP(-($0 < (T)0 ? -$0 : (T)0)) + EXP(-$0 - ($0 < (T)0 ? -$0 : (T)0)))") \
    K(ATEN_GELU, 2, OPT_ARITH, "$0 * (T)0.5 * ((T)1 + ERF($0 * (T)0.70710678118654752440))") \
    K(ATEN_RELU, 1, OPT_ARITH, "($0 < (T)0 ? (T)0 : $0)") \
    K(ATEN_LEAKY_RELU, 2, OPT_ARITH, "($0 < (T)0 ? $0 * $1 : $0)") \
    K(ATEN_HARDTANH, 3, OPT_ARITH, "(($0 < $1 ? $1 : $0) > $2 ? $2 : ($0 < $1 ? $1 : $0))") \
    K(ATEN_CLAMP, 3, OPT_ARITH, "(($0 < $1 ? $1 : $0) > $2 ? $2 : ($0 < $1 ? $1 : $0))") \
    K(ATEN_CLAMP_MIN, 2, OPT_ARITH, "($0 < $1 ? $1 : $0)") \
    K(ATEN_CLAMP_MAX, 2, OPT_ARITH, "($0 > $1 ? $1 : $0)") \
    K(ATEN_MAXIMUM, 2, OPT_ARITH, "((ISNAN($0) | ($0 > $1)) ? $0 : $1)") \
    K(ATEN_MINIMUM, 2, OPT_ARITH, "((ISNAN($0) | ($0 < $1)) ? $0 : $1)") \
    K(ATEN_MAX, 2, OPT_ARITH, "((ISNAN($0) | ($0 > $1)) ? $0 : $1)") \
    K(ATEN_MIN, 2, OPT_ARITH, "((ISNAN($0) | ($0 < $1)) ? $0 : $1)") \
    K(ATEN_FLOOR_DIVIDE, 2, OPT_ARITH, "FLOORDIV($0, $1)") \
    K(ATEN_REMAINDER, 2, OPT_ARITH, "PYMOD($0, $1)") \
    K(ATEN_AND, 2, OPT_ARITH, "($0 & $1)") \
    K(ATEN_OR, 2, OPT_ARITH, "($0 | $1)") \
    K(ATEN_XOR, 2, OPT_ARITH, "($0 ^ $1)") \
    K(ATEN_BITWISE_AND, 2, OPT_ARITH, "($0 & $1)") \
    K(ATEN_BITWISE_OR, 2, OPT_ARITH, "($0 | $1)") \
    K(ATEN_BITWISE_XOR, 2, OPT_ARITH, "($0 ^ $1)") \
    K(ATEN_INVERT, 1, OPT_ARITH, "INVERT($0)") \
    K(ATEN_BITWISE_NOT, 1, OPT_ARITH, "INVERT($0)") \
    K(ATEN_ISNAN, 1, OPT_COMPARE, "ISNAN($0)") \
    K(ATEN_FLOOR, 1, OPT_ARITH, "FLOOR($0)") \
    K(ATEN_CEIL, 1, OPT_ARITH, "CEIL($0)") \
    K(ATEN_ROUND, 1, OPT_ARITH, "RINT($0)") \
    K(ATEN_TRUNC, 1, OPT_ARITH, "TRUNC($0)") \
    K(ATEN_SIGN, 1, OPT_ARITH, "(T)(($0 > (T)0) - ($0 < (T)0))") \
    K(ATEN_LERP, 3, OPT_ARITH, "$0 + $2 * ($1 - $0)") \
    K(ATEN_EQ, 2, OPT_COMPARE, "$0 == $1") \
    K(ATEN_NE, 2, OPT_COMPARE, "$0 != $1") \
    K(ATEN_LT, 2, OPT_COMPARE, "$0 < $1") \
    K(ATEN_LE, 2, OPT_COMPARE, "$0 <= $1") \
    K(ATEN_GT, 2, OPT_COMPARE, "$0 > $1") \
    K(ATEN_GE, 2, OPT_COMPARE, "$0 >= $1") \
    K(ATEN_LOGICAL_NOT, 1, OPT_COMPARE, "!$0") \
    K(ATEN_LOGICAL_AND, 2, OPT_COMPARE, "($0 != 0) & ($1 != 0)") \
    K(ATEN_LOGICAL_OR, 2, OPT_COMPARE, "($0 != 0) | ($1 != 0)") \
    K(ATEN_WHERE, 3, OPT_SELECT, "($0 ? $1 : $2)") \
    K(ATEN_MASKED_FILL, 3, OPT_SELECT, "($1 ? $2 : $0)")

typedef enum OpTemplateRule { OPT_ARITH, OPT_COMPARE, OPT_SELECT } OpTemplateRule;

typedef struct OpTemplate {
    int nargs;
    OpTemplateRule rule;
    int cond;                /* OPT_SELECT: the bool operand */
    const char *text;
} OpTemplate;

/* The kernel template of op, or NULL when generated kernels cannot compute
 * it inline. */
const OpTemplate *op_template(int op);

/* special functions: gamma family, Bessel, orthogonal polynomials, ndtr, zeta, erfinv (tensor/special.c, eval/ops_special.c) */
#define SPECIAL_OPS(X) \
    ELEMENTWISE_PAIR(X, DIGAMMA, "digamma", digamma) \
    ELEMENTWISE_PAIR(X, ERFINV, "erfinv", erfinv) \
    ELEMENTWISE_PAIR(X, I0, "i0", i0) \
    ELEMENTWISE_PAIR(X, XLOGY, "xlogy", xlogy) \
    ELEMENTWISE_PAIR(X, POLYGAMMA, "polygamma", polygamma) \
    ELEMENTWISE_PAIR(X, MVLGAMMA, "mvlgamma", mvlgamma) \
    ELEMENTWISE_PAIR(X, IGAMMA, "igamma", igamma) \
    ELEMENTWISE_PAIR(X, IGAMMAC, "igammac", igammac) \
    ELEMENTWISE_ONLY(X, SPECIAL_XLOG1PY, "special_xlog1py", special_xlog1py) \
    ELEMENTWISE_ONLY(X, SPECIAL_ENTR, "special_entr", special_entr) \
    ELEMENTWISE_ONLY(X, SPECIAL_ERFCX, "special_erfcx", special_erfcx) \
    ELEMENTWISE_ONLY(X, SPECIAL_NDTR, "special_ndtr", special_ndtr) \
    ELEMENTWISE_ONLY(X, SPECIAL_NDTRI, "special_ndtri", special_ndtri) \
    ELEMENTWISE_ONLY(X, SPECIAL_LOG_NDTR, "special_log_ndtr", special_log_ndtr) \
    ELEMENTWISE_ONLY(X, SPECIAL_I0E, "special_i0e", special_i0e) \
    ELEMENTWISE_ONLY(X, SPECIAL_I1, "special_i1", special_i1) \
    ELEMENTWISE_ONLY(X, SPECIAL_I1E, "special_i1e", special_i1e) \
    ELEMENTWISE_ONLY(X, SPECIAL_ZETA, "special_zeta", special_zeta) \
    ELEMENTWISE_ONLY(X, SPECIAL_AIRY_AI, "special_airy_ai", special_airy_ai) \
    ELEMENTWISE_ONLY(X, SPECIAL_BESSEL_J0, "special_bessel_j0", special_bessel_j0) \
    ELEMENTWISE_ONLY(X, SPECIAL_BESSEL_J1, "special_bessel_j1", special_bessel_j1) \
    ELEMENTWISE_ONLY(X, SPECIAL_BESSEL_Y0, "special_bessel_y0", special_bessel_y0) \
    ELEMENTWISE_ONLY(X, SPECIAL_BESSEL_Y1, "special_bessel_y1", special_bessel_y1) \
    ELEMENTWISE_ONLY(X, SPECIAL_MODIFIED_BESSEL_I0, "special_modified_bessel_i0", special_modified_bessel_i0) \
    ELEMENTWISE_ONLY(X, SPECIAL_MODIFIED_BESSEL_I1, "special_modified_bessel_i1", special_modified_bessel_i1) \
    ELEMENTWISE_ONLY(X, SPECIAL_MODIFIED_BESSEL_K0, "special_modified_bessel_k0", special_modified_bessel_k0) \
    ELEMENTWISE_ONLY(X, SPECIAL_MODIFIED_BESSEL_K1, "special_modified_bessel_k1", special_modified_bessel_k1) \
    ELEMENTWISE_ONLY(X, SPECIAL_SCALED_MODIFIED_BESSEL_K0, "special_scaled_modified_bessel_k0", special_scaled_modified_bessel_k0) \
    ELEMENTWISE_ONLY(X, SPECIAL_SCALED_MODIFIED_BESSEL_K1, "special_scaled_modified_bessel_k1", special_scaled_modified_bessel_k1) \
    ELEMENTWISE_ONLY(X, SPECIAL_SPHERICAL_BESSEL_J0, "special_spherical_bessel_j0", special_spherical_bessel_j0) \
    ELEMENTWISE_ONLY(X, SPECIAL_CHEBYSHEV_POLYNOMIAL_T, "special_chebyshev_polynomial_t", special_chebyshev_polynomial_t) \
    ELEMENTWISE_ONLY(X, SPECIAL_CHEBYSHEV_POLYNOMIAL_U, "special_chebyshev_polynomial_u", special_chebyshev_polynomial_u) \
    ELEMENTWISE_ONLY(X, SPECIAL_CHEBYSHEV_POLYNOMIAL_V, "special_chebyshev_polynomial_v", special_chebyshev_polynomial_v) \
    ELEMENTWISE_ONLY(X, SPECIAL_CHEBYSHEV_POLYNOMIAL_W, "special_chebyshev_polynomial_w", special_chebyshev_polynomial_w) \
    ELEMENTWISE_ONLY(X, SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_T, "special_shifted_chebyshev_polynomial_t", special_shifted_chebyshev_polynomial_t) \
    ELEMENTWISE_ONLY(X, SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_U, "special_shifted_chebyshev_polynomial_u", special_shifted_chebyshev_polynomial_u) \
    ELEMENTWISE_ONLY(X, SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_V, "special_shifted_chebyshev_polynomial_v", special_shifted_chebyshev_polynomial_v) \
    ELEMENTWISE_ONLY(X, SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_W, "special_shifted_chebyshev_polynomial_w", special_shifted_chebyshev_polynomial_w) \
    ELEMENTWISE_ONLY(X, SPECIAL_HERMITE_POLYNOMIAL_H, "special_hermite_polynomial_h", special_hermite_polynomial_h) \
    ELEMENTWISE_ONLY(X, SPECIAL_HERMITE_POLYNOMIAL_HE, "special_hermite_polynomial_he", special_hermite_polynomial_he) \
    ELEMENTWISE_ONLY(X, SPECIAL_LAGUERRE_POLYNOMIAL_L, "special_laguerre_polynomial_l", special_laguerre_polynomial_l) \
    ELEMENTWISE_ONLY(X, SPECIAL_LEGENDRE_POLYNOMIAL_P, "special_legendre_polynomial_p", special_legendre_polynomial_p) \
    /* (end of SPECIAL_OPS) */

/* elementwise math, predicates and activations (tensor/math_extra.c, eval/ops_math.c) */
#define MATH_OPS(X) \
    X(ATEN_ISNAN, "aten::isnan", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, isnan) \
    X(ATEN_ISINF, "aten::isinf", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, isinf) \
    X(ATEN_ISFINITE, "aten::isfinite", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, isfinite) \
    X(ATEN_ISPOSINF, "aten::isposinf", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, isposinf) \
    X(ATEN_ISNEGINF, "aten::isneginf", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, isneginf) \
    X(ATEN_ISREAL, "aten::isreal", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, isreal) \
    X(ATEN_SIGNBIT, "aten::signbit", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, signbit) \
    X(ATEN_ISCLOSE, "aten::isclose", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, isclose) \
    X(ATEN_ALLCLOSE, "aten::allclose", OPC_SCALAR, NOMUT, ALIAS_NONE, allclose) \
    X(ATEN_EQUAL, "aten::equal", OPC_SCALAR, NOMUT, ALIAS_NONE, equal) \
    X(ATEN_NAN_TO_NUM, "aten::nan_to_num", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, nan_to_num) \
    X(ATEN_SGN, "aten::sgn", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, sgn) \
    X(ATEN_SQUARE, "aten::square", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, square) \
    X(ATEN_SQUARE_, "aten::square_", OPC_ELEMENTWISE, 0, ALIAS_SELF, square_) \
    X(ATEN_FRAC, "aten::frac", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, frac) \
    X(ATEN_LOGIT, "aten::logit", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, logit) \
    X(ATEN_COPYSIGN, "aten::copysign", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, copysign) \
    X(ATEN_HEAVISIDE, "aten::heaviside", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, heaviside) \
    X(ATEN_HYPOT, "aten::hypot", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, hypot) \
    X(ATEN_LOGADDEXP, "aten::logaddexp", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, logaddexp) \
    X(ATEN_LOGADDEXP2, "aten::logaddexp2", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, logaddexp2) \
    X(ATEN_NEXTAFTER, "aten::nextafter", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, nextafter) \
    X(ATEN_LDEXP, "aten::ldexp", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, ldexp) \
    X(ATEN_FLOAT_POWER, "aten::float_power", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, float_power) \
    X(ATEN_FLOAT_POWER_, "aten::float_power_", OPC_ELEMENTWISE, 0, ALIAS_SELF, float_power_) \
    X(ATEN_FMAX, "aten::fmax", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, fmax) \
    X(ATEN_FMIN, "aten::fmin", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, fmin) \
    X(ATEN_GCD, "aten::gcd", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, gcd) \
    X(ATEN_LCM, "aten::lcm", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, lcm) \
    X(ATEN_BITWISE_LEFT_SHIFT, "aten::bitwise_left_shift", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, bitwise_left_shift) \
    X(ATEN_BITWISE_RIGHT_SHIFT, "aten::bitwise_right_shift", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, bitwise_right_shift) \
    X(ATEN_LSHIFT, "aten::__lshift__", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, bitwise_left_shift) \
    X(ATEN_RSHIFT, "aten::__rshift__", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, bitwise_right_shift) \
    X(ATEN_FREXP, "aten::frexp", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, frexp) \
    X(ATEN_ANGLE, "aten::angle", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, angle) \
    /* the identity on real tensors: the result is self itself */ \
    X(ATEN_POSITIVE, "aten::positive", OPC_VIEW, NOMUT, ALIAS_SELF, positive) \
    X(ATEN_CONJ, "aten::conj", OPC_VIEW, NOMUT, ALIAS_SELF, real_identity) \
    X(ATEN_RESOLVE_CONJ, "aten::resolve_conj", OPC_VIEW, NOMUT, ALIAS_SELF, real_identity) \
    X(ATEN_RESOLVE_NEG, "aten::resolve_neg", OPC_VIEW, NOMUT, ALIAS_SELF, real_identity) \
    X(ATEN_REAL, "aten::real", OPC_VIEW, NOMUT, ALIAS_SELF, real_identity) \
    X(ATEN_CONJ_PHYSICAL, "aten::conj_physical", OPC_ELEMENTWISE, NOMUT, ALIAS_SELF, real_identity) \
    X(ATEN_CONJ_PHYSICAL_, "aten::conj_physical_", OPC_ELEMENTWISE, 0, ALIAS_SELF, real_identity) \
    X(ATEN_CELU, "aten::celu", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, celu) \
    X(ATEN_SELU, "aten::selu", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, selu) \
    X(ATEN_MISH, "aten::mish", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, mish) \
    X(ATEN_SOFTSHRINK, "aten::softshrink", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, softshrink) \
    X(ATEN_HARDSHRINK, "aten::hardshrink", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, hardshrink) \
    X(ATEN_THRESHOLD, "aten::threshold", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, threshold) \
    X(ATEN_GLU, "aten::glu", OPC_NN, NOMUT, ALIAS_NONE, glu) \
    X(ATEN_PRELU, "aten::prelu", OPC_NN, NOMUT, ALIAS_NONE, prelu) \
    X(ATEN_ADDCMUL, "aten::addcmul", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, addcmul) \
    X(ATEN_ADDCDIV, "aten::addcdiv", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, addcdiv) \
    /* (end of MATH_OPS) */

/* pooling, unpooling, padding modes and normalization (tensor/pool.c, eval/ops_pool_norm.c) */
#define POOL_NORM_OPS(X) \
    X(ATEN_MAX_POOL1D, "aten::max_pool1d", OPC_NN, NOMUT, ALIAS_NONE, max_pool1d) \
    X(ATEN_MAX_POOL3D, "aten::max_pool3d", OPC_NN, NOMUT, ALIAS_NONE, max_pool3d) \
    X(ATEN_MAX_POOL1D_WITH_INDICES, "aten::max_pool1d_with_indices", OPC_NN, NOMUT, ALIAS_NONE, max_pool1d_with_indices) \
    X(ATEN_MAX_POOL2D_WITH_INDICES, "aten::max_pool2d_with_indices", OPC_NN, NOMUT, ALIAS_NONE, max_pool2d_with_indices) \
    X(ATEN_MAX_POOL3D_WITH_INDICES, "aten::max_pool3d_with_indices", OPC_NN, NOMUT, ALIAS_NONE, max_pool3d_with_indices) \
    X(ATEN_AVG_POOL1D, "aten::avg_pool1d", OPC_NN, NOMUT, ALIAS_NONE, avg_pool1d) \
    X(ATEN_AVG_POOL3D, "aten::avg_pool3d", OPC_NN, NOMUT, ALIAS_NONE, avg_pool3d) \
    X(ATEN_ADAPTIVE_AVG_POOL1D, "aten::adaptive_avg_pool1d", OPC_NN, NOMUT, ALIAS_NONE, adaptive_avg_pool1d) \
    X(ATEN_ADAPTIVE_AVG_POOL3D, "aten::adaptive_avg_pool3d", OPC_NN, NOMUT, ALIAS_NONE, adaptive_avg_pool3d) \
    X(ATEN_ADAPTIVE_MAX_POOL1D, "aten::adaptive_max_pool1d", OPC_NN, NOMUT, ALIAS_NONE, adaptive_max_pool1d) \
    X(ATEN_ADAPTIVE_MAX_POOL2D, "aten::adaptive_max_pool2d", OPC_NN, NOMUT, ALIAS_NONE, adaptive_max_pool2d) \
    X(ATEN_ADAPTIVE_MAX_POOL3D, "aten::adaptive_max_pool3d", OPC_NN, NOMUT, ALIAS_NONE, adaptive_max_pool3d) \
    X(ATEN_MAX_UNPOOL2D, "aten::max_unpool2d", OPC_NN, NOMUT, ALIAS_NONE, max_unpool2d) \
    X(ATEN_MAX_UNPOOL3D, "aten::max_unpool3d", OPC_NN, NOMUT, ALIAS_NONE, max_unpool3d) \
    X(ATEN_INSTANCE_NORM, "aten::instance_norm", OPC_NN, NOMUT, ALIAS_NONE, instance_norm) \
    X(ATEN_NATIVE_BATCH_NORM, "aten::native_batch_norm", OPC_NN, NOMUT, ALIAS_NONE, native_batch_norm) \
    X(ATEN_NATIVE_LAYER_NORM, "aten::native_layer_norm", OPC_NN, NOMUT, ALIAS_NONE, native_layer_norm) \
    /* (end of POOL_NORM_OPS) */

/* transposed convolution, interpolation, grid sampling, im2col, pixel shuffle, embedding_bag (tensor/resample.c, eval/ops_resample.c) */
#define RESAMPLE_OPS(X) \
    X(ATEN_CONV_TRANSPOSE1D, "aten::conv_transpose1d", OPC_NN, NOMUT, ALIAS_NONE, conv_transpose1d) \
    X(ATEN_CONV_TRANSPOSE2D, "aten::conv_transpose2d", OPC_NN, NOMUT, ALIAS_NONE, conv_transpose2d) \
    X(ATEN_CONV_TRANSPOSE3D, "aten::conv_transpose3d", OPC_NN, NOMUT, ALIAS_NONE, conv_transpose3d) \
    X(ATEN_IM2COL, "aten::im2col", OPC_NN, NOMUT, ALIAS_NONE, im2col) \
    X(ATEN_COL2IM, "aten::col2im", OPC_NN, NOMUT, ALIAS_NONE, col2im) \
    X(ATEN_PIXEL_SHUFFLE, "aten::pixel_shuffle", OPC_NN, NOMUT, ALIAS_NONE, pixel_shuffle) \
    X(ATEN_PIXEL_UNSHUFFLE, "aten::pixel_unshuffle", OPC_NN, NOMUT, ALIAS_NONE, pixel_unshuffle) \
    X(ATEN_UPSAMPLE_NEAREST1D, "aten::upsample_nearest1d", OPC_NN, NOMUT, ALIAS_NONE, upsample_nearest1d) \
    X(ATEN_UPSAMPLE_NEAREST2D, "aten::upsample_nearest2d", OPC_NN, NOMUT, ALIAS_NONE, upsample_nearest2d) \
    X(ATEN_UPSAMPLE_NEAREST3D, "aten::upsample_nearest3d", OPC_NN, NOMUT, ALIAS_NONE, upsample_nearest3d) \
    X(ATEN_UPSAMPLE_NEAREST_EXACT1D, "aten::_upsample_nearest_exact1d", OPC_NN, NOMUT, ALIAS_NONE, upsample_nearest_exact1d) \
    X(ATEN_UPSAMPLE_NEAREST_EXACT2D, "aten::_upsample_nearest_exact2d", OPC_NN, NOMUT, ALIAS_NONE, upsample_nearest_exact2d) \
    X(ATEN_UPSAMPLE_NEAREST_EXACT3D, "aten::_upsample_nearest_exact3d", OPC_NN, NOMUT, ALIAS_NONE, upsample_nearest_exact3d) \
    X(ATEN_UPSAMPLE_LINEAR1D, "aten::upsample_linear1d", OPC_NN, NOMUT, ALIAS_NONE, upsample_linear1d) \
    X(ATEN_UPSAMPLE_BILINEAR2D, "aten::upsample_bilinear2d", OPC_NN, NOMUT, ALIAS_NONE, upsample_bilinear2d) \
    X(ATEN_UPSAMPLE_BICUBIC2D, "aten::upsample_bicubic2d", OPC_NN, NOMUT, ALIAS_NONE, upsample_bicubic2d) \
    X(ATEN_UPSAMPLE_TRILINEAR3D, "aten::upsample_trilinear3d", OPC_NN, NOMUT, ALIAS_NONE, upsample_trilinear3d) \
    X(ATEN_GRID_SAMPLER, "aten::grid_sampler", OPC_NN, NOMUT, ALIAS_NONE, grid_sampler) \
    X(ATEN_EMBEDDING_BAG, "aten::embedding_bag", OPC_NN, NOMUT, ALIAS_NONE, embedding_bag) \
    X(ATEN_UPSAMPLE_BILINEAR2D_AA, "aten::_upsample_bilinear2d_aa", OPC_NN, NOMUT, ALIAS_NONE, upsample_bilinear2d_aa) \
    X(ATEN_UPSAMPLE_BICUBIC2D_AA, "aten::_upsample_bicubic2d_aa", OPC_NN, NOMUT, ALIAS_NONE, upsample_bicubic2d_aa) \
    /* (end of RESAMPLE_OPS) */

/* losses and distances (tensor/loss.c, tensor/distance.c, eval/ops_loss.c; one_hot in tensor/index_creation.c, bilinear in tensor/linalg_products.c) */
#define LOSS_OPS(X) \
    X(ATEN_BROADCAST_TENSORS, "aten::broadcast_tensors", OPC_VIEW, NOMUT, ALIAS_VIEWS, broadcast_tensors) \
    X(ATEN_INFER_SIZE, "aten::_infer_size", OPC_SCALAR, NOMUT, ALIAS_NONE, infer_size) \
    X(ATEN_L1_LOSS, "aten::l1_loss", OPC_NN, NOMUT, ALIAS_NONE, l1_loss) \
    X(ATEN_MSE_LOSS, "aten::mse_loss", OPC_NN, NOMUT, ALIAS_NONE, mse_loss) \
    X(ATEN_SMOOTH_L1_LOSS, "aten::smooth_l1_loss", OPC_NN, NOMUT, ALIAS_NONE, smooth_l1_loss) \
    X(ATEN_HUBER_LOSS, "aten::huber_loss", OPC_NN, NOMUT, ALIAS_NONE, huber_loss) \
    X(ATEN_KL_DIV, "aten::kl_div", OPC_NN, NOMUT, ALIAS_NONE, kl_div) \
    X(ATEN_BINARY_CROSS_ENTROPY, "aten::binary_cross_entropy", OPC_NN, NOMUT, ALIAS_NONE, binary_cross_entropy) \
    X(ATEN_BINARY_CROSS_ENTROPY_WITH_LOGITS, "aten::binary_cross_entropy_with_logits", OPC_NN, NOMUT, ALIAS_NONE, binary_cross_entropy_with_logits) \
    X(ATEN_NLL_LOSS_ND, "aten::nll_loss_nd", OPC_NN, NOMUT, ALIAS_NONE, nll_loss_nd) \
    X(ATEN_NLL_LOSS, "aten::nll_loss", OPC_NN, NOMUT, ALIAS_NONE, nll_loss) \
    X(ATEN_NLL_LOSS2D, "aten::nll_loss2d", OPC_NN, NOMUT, ALIAS_NONE, nll_loss2d) \
    X(ATEN_CROSS_ENTROPY_LOSS, "aten::cross_entropy_loss", OPC_NN, NOMUT, ALIAS_NONE, cross_entropy_loss) \
    X(ATEN_MARGIN_RANKING_LOSS, "aten::margin_ranking_loss", OPC_NN, NOMUT, ALIAS_NONE, margin_ranking_loss) \
    X(ATEN_HINGE_EMBEDDING_LOSS, "aten::hinge_embedding_loss", OPC_NN, NOMUT, ALIAS_NONE, hinge_embedding_loss) \
    X(ATEN_SOFT_MARGIN_LOSS, "aten::soft_margin_loss", OPC_NN, NOMUT, ALIAS_NONE, soft_margin_loss) \
    X(ATEN_MULTI_MARGIN_LOSS, "aten::multi_margin_loss", OPC_NN, NOMUT, ALIAS_NONE, multi_margin_loss) \
    X(ATEN_MULTILABEL_MARGIN_LOSS, "aten::multilabel_margin_loss", OPC_NN, NOMUT, ALIAS_NONE, multilabel_margin_loss) \
    X(ATEN_LOG_SIGMOID, "aten::log_sigmoid", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, log_sigmoid) \
    X(ATEN_COSINE_EMBEDDING_LOSS, "aten::cosine_embedding_loss", OPC_NN, NOMUT, ALIAS_NONE, cosine_embedding_loss) \
    X(ATEN_TRIPLET_MARGIN_LOSS, "aten::triplet_margin_loss", OPC_NN, NOMUT, ALIAS_NONE, triplet_margin_loss) \
    X(ATEN_POISSON_NLL_LOSS, "aten::poisson_nll_loss", OPC_NN, NOMUT, ALIAS_NONE, poisson_nll_loss) \
    X(ATEN_CTC_LOSS, "aten::ctc_loss", OPC_NN, NOMUT, ALIAS_NONE, ctc_loss) \
    X(ATEN_COSINE_SIMILARITY, "aten::cosine_similarity", OPC_REDUCTION, NOMUT, ALIAS_NONE, cosine_similarity) \
    X(ATEN_PAIRWISE_DISTANCE, "aten::pairwise_distance", OPC_REDUCTION, NOMUT, ALIAS_NONE, pairwise_distance) \
    X(ATEN_PDIST, "aten::pdist", OPC_REDUCTION, NOMUT, ALIAS_NONE, pdist) \
    X(ATEN_CDIST, "aten::cdist", OPC_REDUCTION, NOMUT, ALIAS_NONE, cdist) \
    X(ATEN_DIST, "aten::dist", OPC_REDUCTION, NOMUT, ALIAS_NONE, dist) \
    X(ATEN_ONE_HOT, "aten::one_hot", OPC_CREATION, NOMUT, ALIAS_NONE, one_hot) \
    X(ATEN_BILINEAR, "aten::bilinear", OPC_LINALG, NOMUT, ALIAS_NONE, bilinear) \
    /* (end of LOSS_OPS) */

/* more linear algebra: SVD, LU, least squares, norms, products (tensor/lapack.c, tensor/linalg.c, eval/ops_linalg.c) */
#define LINALG_EXTRA_OPS(X) \
    X(ATEN_MT, "aten::mT", OPC_VIEW, NOMUT, ALIAS_VIEW, mT) \
    X(ATEN_MH, "aten::mH", OPC_VIEW, NOMUT, ALIAS_VIEW, mH) \
    X(ATEN_MATRIX_H, "aten::matrix_H", OPC_VIEW, NOMUT, ALIAS_VIEW, matrix_H) \
    X(ATEN_TRACE, "aten::trace", OPC_REDUCTION, NOMUT, ALIAS_NONE, trace) \
    X(ATEN_MV, "aten::mv", OPC_LINALG, NOMUT, ALIAS_NONE, mv) \
    X(ATEN_ADDMV, "aten::addmv", OPC_LINALG, NOMUT, ALIAS_NONE, addmv) \
    X(ATEN_ADDR, "aten::addr", OPC_LINALG, NOMUT, ALIAS_NONE, addr) \
    X(ATEN_BADDBMM, "aten::baddbmm", OPC_LINALG, NOMUT, ALIAS_NONE, baddbmm) \
    X(ATEN_ADDBMM, "aten::addbmm", OPC_LINALG, NOMUT, ALIAS_NONE, addbmm) \
    X(ATEN_INNER, "aten::inner", OPC_LINALG, NOMUT, ALIAS_NONE, inner) \
    X(ATEN_VDOT, "aten::vdot", OPC_LINALG, NOMUT, ALIAS_NONE, vdot) \
    X(ATEN_LINALG_VECDOT, "aten::linalg_vecdot", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_vecdot) \
    X(ATEN_KRON, "aten::kron", OPC_LINALG, NOMUT, ALIAS_NONE, kron) \
    X(ATEN_TENSORDOT, "aten::tensordot", OPC_LINALG, NOMUT, ALIAS_NONE, tensordot) \
    X(ATEN_CROSS, "aten::cross", OPC_LINALG, NOMUT, ALIAS_NONE, cross) \
    X(ATEN_LINALG_CROSS, "aten::linalg_cross", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_cross) \
    X(ATEN_BLOCK_DIAG, "aten::block_diag", OPC_LINALG, NOMUT, ALIAS_NONE, block_diag) \
    X(ATEN_LINALG_MULTI_DOT, "aten::linalg_multi_dot", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_multi_dot) \
    X(ATEN_CHAIN_MATMUL, "aten::chain_matmul", OPC_LINALG, NOMUT, ALIAS_NONE, chain_matmul) \
    X(ATEN_LINALG_MATRIX_POWER, "aten::linalg_matrix_power", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_matrix_power) \
    X(ATEN_LINALG_VANDER, "aten::linalg_vander", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_vander) \
    X(ATEN_LINALG_VECTOR_NORM, "aten::linalg_vector_norm", OPC_REDUCTION, NOMUT, ALIAS_NONE, linalg_vector_norm) \
    X(ATEN_LINALG_MATRIX_NORM, "aten::linalg_matrix_norm", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_matrix_norm) \
    X(ATEN_LINALG_NORM, "aten::linalg_norm", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_norm) \
    X(ATEN_FROBENIUS_NORM, "aten::frobenius_norm", OPC_REDUCTION, NOMUT, ALIAS_NONE, frobenius_norm) \
    X(ATEN_NUCLEAR_NORM, "aten::nuclear_norm", OPC_LINALG, NOMUT, ALIAS_NONE, nuclear_norm) \
    X(ATEN_RENORM, "aten::renorm", OPC_LINALG, NOMUT, ALIAS_NONE, renorm) \
    X(ATEN_COV, "aten::cov", OPC_LINALG, NOMUT, ALIAS_NONE, cov) \
    X(ATEN_CORRCOEF, "aten::corrcoef", OPC_LINALG, NOMUT, ALIAS_NONE, corrcoef) \
    X(ATEN_LINALG_SVD, "aten::linalg_svd", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_svd) \
    X(ATEN_SVD, "aten::svd", OPC_LINALG, NOMUT, ALIAS_NONE, svd) \
    X(ATEN_LINALG_SVDVALS, "aten::linalg_svdvals", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_svdvals) \
    X(ATEN_LINALG_PINV, "aten::linalg_pinv", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_pinv) \
    X(ATEN_PINVERSE, "aten::pinverse", OPC_LINALG, NOMUT, ALIAS_NONE, pinverse) \
    X(ATEN_LINALG_MATRIX_RANK, "aten::linalg_matrix_rank", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_matrix_rank) \
    X(ATEN_LINALG_EIGVALSH, "aten::linalg_eigvalsh", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_eigvalsh) \
    X(ATEN_SYMEIG, "aten::symeig", OPC_LINALG, NOMUT, ALIAS_NONE, symeig) \
    X(ATEN_LINALG_COND, "aten::linalg_cond", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_cond) \
    X(ATEN_LINALG_LSTSQ, "aten::linalg_lstsq", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_lstsq) \
    X(ATEN_LINALG_LU_FACTOR_EX, "aten::linalg_lu_factor_ex", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_lu_factor_ex) \
    X(ATEN_LINALG_LU_FACTOR, "aten::linalg_lu_factor", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_lu_factor) \
    X(ATEN__LU_WITH_INFO, "aten::_lu_with_info", OPC_LINALG, NOMUT, ALIAS_NONE, _lu_with_info) \
    X(ATEN_LINALG_LU, "aten::linalg_lu", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_lu) \
    X(ATEN_LU_UNPACK, "aten::lu_unpack", OPC_LINALG, NOMUT, ALIAS_NONE, lu_unpack) \
    X(ATEN_LINALG_LU_SOLVE, "aten::linalg_lu_solve", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_lu_solve) \
    X(ATEN_LU_SOLVE, "aten::lu_solve", OPC_LINALG, NOMUT, ALIAS_NONE, lu_solve) \
    X(ATEN_LINALG_INV_EX, "aten::linalg_inv_ex", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_inv_ex) \
    X(ATEN_LINALG_SOLVE_EX, "aten::linalg_solve_ex", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_solve_ex) \
    X(ATEN_LINALG_SOLVE_TRIANGULAR, "aten::linalg_solve_triangular", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_solve_triangular) \
    X(ATEN_TRIANGULAR_SOLVE, "aten::triangular_solve", OPC_LINALG, NOMUT, ALIAS_NONE, triangular_solve) \
    X(ATEN_GEQRF, "aten::geqrf", OPC_LINALG, NOMUT, ALIAS_NONE, geqrf) \
    X(ATEN_LINALG_HOUSEHOLDER_PRODUCT, "aten::linalg_householder_product", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_householder_product) \
    X(ATEN_ORMQR, "aten::ormqr", OPC_LINALG, NOMUT, ALIAS_NONE, ormqr) \
    X(ATEN_QR, "aten::qr", OPC_LINALG, NOMUT, ALIAS_NONE, qr) \
    X(ATEN_LINALG_LDL_FACTOR_EX, "aten::linalg_ldl_factor_ex", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_ldl_factor_ex) \
    X(ATEN_LINALG_LDL_FACTOR, "aten::linalg_ldl_factor", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_ldl_factor) \
    X(ATEN_LINALG_LDL_SOLVE, "aten::linalg_ldl_solve", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_ldl_solve) \
    X(ATEN_LINALG_CHOLESKY_EX, "aten::linalg_cholesky_ex", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_cholesky_ex) \
    X(ATEN_CHOLESKY, "aten::cholesky", OPC_LINALG, NOMUT, ALIAS_NONE, cholesky) \
    X(ATEN_CHOLESKY_INVERSE, "aten::cholesky_inverse", OPC_LINALG, NOMUT, ALIAS_NONE, cholesky_inverse) \
    X(ATEN_LINALG_MATRIX_EXP, "aten::linalg_matrix_exp", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_matrix_exp) \
    X(ATEN_MATRIX_EXP, "aten::matrix_exp", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_matrix_exp) \
    X(ATEN_LINALG_TENSORINV, "aten::linalg_tensorinv", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_tensorinv) \
    X(ATEN_LINALG_TENSORSOLVE, "aten::linalg_tensorsolve", OPC_LINALG, NOMUT, ALIAS_NONE, linalg_tensorsolve) \
    /* (end of LINALG_EXTRA_OPS) */

/* order statistics, scans, histograms, sorting (tensor/stats.c, eval/ops_stats.c) */
#define STATS_OPS(X) \
    X(ATEN_MSORT, "aten::msort", OPC_REDUCTION, NOMUT, ALIAS_NONE, msort) \
    X(ATEN_KTHVALUE, "aten::kthvalue", OPC_REDUCTION, NOMUT, ALIAS_NONE, kthvalue) \
    X(ATEN_MEDIAN, "aten::median", OPC_REDUCTION, NOMUT, ALIAS_NONE, median) \
    X(ATEN_NANMEDIAN, "aten::nanmedian", OPC_REDUCTION, NOMUT, ALIAS_NONE, nanmedian) \
    X(ATEN_MODE, "aten::mode", OPC_REDUCTION, NOMUT, ALIAS_NONE, mode) \
    X(ATEN_LOGSPACE, "aten::logspace", OPC_CREATION, NOMUT, ALIAS_NONE, logspace) \
    X(ATEN_CUMMAX, "aten::cummax", OPC_REDUCTION, NOMUT, ALIAS_NONE, cummax) \
    X(ATEN_CUMMIN, "aten::cummin", OPC_REDUCTION, NOMUT, ALIAS_NONE, cummin) \
    X(ATEN_LOGCUMSUMEXP, "aten::logcumsumexp", OPC_REDUCTION, NOMUT, ALIAS_NONE, logcumsumexp) \
    X(ATEN_NANSUM, "aten::nansum", OPC_REDUCTION, NOMUT, ALIAS_NONE, nansum) \
    X(ATEN_NANMEAN, "aten::nanmean", OPC_REDUCTION, NOMUT, ALIAS_NONE, nanmean) \
    X(ATEN_COUNT_NONZERO, "aten::count_nonzero", OPC_REDUCTION, NOMUT, ALIAS_NONE, count_nonzero) \
    X(ATEN_AMINMAX, "aten::aminmax", OPC_REDUCTION, NOMUT, ALIAS_NONE, aminmax) \
    X(ATEN_VAR_MEAN, "aten::var_mean", OPC_REDUCTION, NOMUT, ALIAS_NONE, var_mean) \
    X(ATEN_STD_MEAN, "aten::std_mean", OPC_REDUCTION, NOMUT, ALIAS_NONE, std_mean) \
    X(ATEN_QUANTILE, "aten::quantile", OPC_REDUCTION, NOMUT, ALIAS_NONE, quantile) \
    X(ATEN_NANQUANTILE, "aten::nanquantile", OPC_REDUCTION, NOMUT, ALIAS_NONE, nanquantile) \
    X(ATEN_DIFF, "aten::diff", OPC_REDUCTION, NOMUT, ALIAS_NONE, diff) \
    X(ATEN_TRAPEZOID, "aten::trapezoid", OPC_REDUCTION, NOMUT, ALIAS_NONE, trapezoid) \
    X(ATEN_TRAPZ, "aten::trapz", OPC_REDUCTION, NOMUT, ALIAS_NONE, trapz) \
    X(ATEN_CUMULATIVE_TRAPEZOID, "aten::cumulative_trapezoid", OPC_REDUCTION, NOMUT, ALIAS_NONE, cumulative_trapezoid) \
    X(ATEN_BUCKETIZE, "aten::bucketize", OPC_INDEX, NOMUT, ALIAS_NONE, bucketize) \
    X(ATEN_ISIN, "aten::isin", OPC_ELEMENTWISE, NOMUT, ALIAS_NONE, isin) \
    X(ATEN_HISTC, "aten::histc", OPC_REDUCTION, NOMUT, ALIAS_NONE, histc) \
    X(ATEN_HISTOGRAM, "aten::histogram", OPC_REDUCTION, NOMUT, ALIAS_NONE, histogram) \
    X(ATEN_HISTOGRAMDD, "aten::histogramdd", OPC_REDUCTION, NOMUT, ALIAS_NONE, histogramdd) \
    X(ATEN_GRADIENT, "aten::gradient", OPC_REDUCTION, NOMUT, ALIAS_NONE, gradient) \
    X(ATEN_SEGMENT_REDUCE, "aten::segment_reduce", OPC_REDUCTION, NOMUT, ALIAS_NONE, segment_reduce) \
    X(ATEN_UNIQUE2, "aten::_unique2", OPC_REDUCTION, NOMUT, ALIAS_NONE, unique2) \
    X(ATEN_UNIQUE_DIM, "aten::unique_dim", OPC_REDUCTION, NOMUT, ALIAS_NONE, unique_dim) \
    /* (end of STATS_OPS) */

/* shape ops, scatter/index families, index creation (tensor/shape_index.c, eval/ops_shape_index.c) */
#define SHAPE_INDEX_OPS(X) \
    X(ATEN_SCATTER_REDUCE, "aten::scatter_reduce", OPC_INDEX, NOMUT, ALIAS_NONE, scatter_reduce) \
    X(ATEN_INDEX_REDUCE, "aten::index_reduce", OPC_INDEX, NOMUT, ALIAS_NONE, index_reduce) \
    X(ATEN_INDEX_COPY, "aten::index_copy", OPC_INDEX, NOMUT, ALIAS_NONE, index_copy) \
    X(ATEN_INDEX_FILL, "aten::index_fill", OPC_INDEX, NOMUT, ALIAS_NONE, index_fill) \
    X(ATEN_MASKED_SCATTER, "aten::masked_scatter", OPC_INDEX, NOMUT, ALIAS_NONE, masked_scatter) \
    X(ATEN_PUT, "aten::put", OPC_INDEX, NOMUT, ALIAS_NONE, put) \
    X(ATEN_TAKE, "aten::take", OPC_INDEX, NOMUT, ALIAS_NONE, take) \
    X(ATEN_TAKE_ALONG_DIM, "aten::take_along_dim", OPC_INDEX, NOMUT, ALIAS_NONE, take_along_dim) \
    X(ATEN_REPEAT_INTERLEAVE, "aten::repeat_interleave", OPC_INDEX, NOMUT, ALIAS_NONE, repeat_interleave) \
    X(ATEN_TRIL_INDICES, "aten::tril_indices", OPC_CREATION, NOMUT, ALIAS_NONE, tril_indices) \
    X(ATEN_TRIU_INDICES, "aten::triu_indices", OPC_CREATION, NOMUT, ALIAS_NONE, triu_indices) \
    X(ATEN_COMBINATIONS, "aten::combinations", OPC_INDEX, NOMUT, ALIAS_NONE, combinations) \
    X(ATEN_CARTESIAN_PROD, "aten::cartesian_prod", OPC_INDEX, NOMUT, ALIAS_NONE, cartesian_prod) \
    X(ATEN_ARGWHERE, "aten::argwhere", OPC_INDEX, NOMUT, ALIAS_NONE, argwhere) \
    X(ATEN_TENSOR_SPLIT, "aten::tensor_split", OPC_VIEW, NOMUT, ALIAS_VIEWS, tensor_split) \
    X(ATEN_HSPLIT, "aten::hsplit", OPC_VIEW, NOMUT, ALIAS_VIEWS, hsplit) \
    X(ATEN_VSPLIT, "aten::vsplit", OPC_VIEW, NOMUT, ALIAS_VIEWS, vsplit) \
    X(ATEN_DSPLIT, "aten::dsplit", OPC_VIEW, NOMUT, ALIAS_VIEWS, dsplit) \
    X(ATEN_UNFOLD, "aten::unfold", OPC_VIEW, NOMUT, ALIAS_VIEW, unfold) \
    X(ATEN_AS_STRIDED, "aten::as_strided", OPC_VIEW, NOMUT, ALIAS_VIEW, as_strided) \
    X(ATEN_SHAPE_AS_TENSOR, "aten::_shape_as_tensor", OPC_CREATION, NOMUT, ALIAS_NONE, shape_as_tensor) \
    X(ATEN_RESHAPE_FROM_TENSOR, "aten::_reshape_from_tensor", OPC_COPY, NOMUT, ALIAS_NONE, reshape_from_tensor) \
    X(ATEN_BROADCAST_TO, "aten::broadcast_to", OPC_VIEW, NOMUT, ALIAS_VIEW, broadcast_to) \
    X(ATEN_RAVEL, "aten::ravel", OPC_VIEW, NOMUT, ALIAS_MAYBE, ravel) \
    X(ATEN_ATLEAST_1D, "aten::atleast_1d", OPC_VIEW, NOMUT, ALIAS_VIEW, atleast_1d) \
    X(ATEN_ATLEAST_2D, "aten::atleast_2d", OPC_VIEW, NOMUT, ALIAS_VIEW, atleast_2d) \
    X(ATEN_ATLEAST_3D, "aten::atleast_3d", OPC_VIEW, NOMUT, ALIAS_VIEW, atleast_3d) \
    X(ATEN_AS_STRIDED_SCATTER, "aten::as_strided_scatter", OPC_INDEX, NOMUT, ALIAS_NONE, as_strided_scatter) \
    X(ATEN_SELECT_SCATTER, "aten::select_scatter", OPC_INDEX, NOMUT, ALIAS_NONE, select_scatter) \
    X(ATEN_SLICE_SCATTER, "aten::slice_scatter", OPC_INDEX, NOMUT, ALIAS_NONE, slice_scatter) \
    X(ATEN_DIAGONAL_SCATTER, "aten::diagonal_scatter", OPC_INDEX, NOMUT, ALIAS_NONE, diagonal_scatter) \
    X(ATEN_HSTACK, "aten::hstack", OPC_NN, NOMUT, ALIAS_NONE, hstack) \
    X(ATEN_VSTACK, "aten::vstack", OPC_NN, NOMUT, ALIAS_NONE, vstack) \
    X(ATEN_DSTACK, "aten::dstack", OPC_NN, NOMUT, ALIAS_NONE, dstack) \
    X(ATEN_COLUMN_STACK, "aten::column_stack", OPC_NN, NOMUT, ALIAS_NONE, column_stack) \
    X(ATEN_TILE, "aten::tile", OPC_NN, NOMUT, ALIAS_NONE, tile) \
    X(ATEN_ROT90, "aten::rot90", OPC_NN, NOMUT, ALIAS_NONE, rot90) \
    X(ATEN_FLIPLR, "aten::fliplr", OPC_NN, NOMUT, ALIAS_NONE, fliplr) \
    X(ATEN_FLIPUD, "aten::flipud", OPC_NN, NOMUT, ALIAS_NONE, flipud) \
    X(ATEN_NARROW_COPY, "aten::narrow_copy", OPC_COPY, NOMUT, ALIAS_NONE, narrow_copy) \
    X(ATEN_SUM_TO_SIZE, "aten::sum_to_size", OPC_REDUCTION, NOMUT, ALIAS_NONE, sum_to_size) \
    X(ATEN_DIAGFLAT, "aten::diagflat", OPC_LINALG, NOMUT, ALIAS_NONE, diagflat) \
    X(ATEN_RESIZE_, "aten::resize_", OPC_COPY, 0, ALIAS_SELF, resize_) \
    X(ATEN_RESIZE_AS_, "aten::resize_as_", OPC_COPY, 0, ALIAS_SELF, resize_as_) \
    X(ATEN_FFT_FFTSHIFT, "aten::fft_fftshift", OPC_NN, NOMUT, ALIAS_NONE, fft_fftshift) \
    X(ATEN_FFT_IFFTSHIFT, "aten::fft_ifftshift", OPC_NN, NOMUT, ALIAS_NONE, fft_ifftshift) \
    /* (end of SHAPE_INDEX_OPS) */

/* real-output Fourier transforms through FFTW (tensor/fft.c, eval/ops_fft.c) */
/* random draws: Philox4x32-10 keyed by --seed, the node's line and its loop
 * iterations (tensor/random.c, eval/ops_random.c). OPC_RANDOM: CSE, loop
 * hoisting and constant folding leave them where they are. */
#define RANDOM_OPS(X) \
    X(ATEN_RAND, "aten::rand", OPC_RANDOM, NOMUT, ALIAS_NONE, rand) \
    X(ATEN_RANDN, "aten::randn", OPC_RANDOM, NOMUT, ALIAS_NONE, randn) \
    X(ATEN_RANDINT, "aten::randint", OPC_RANDOM, NOMUT, ALIAS_NONE, randint) \
    X(ATEN_RANDPERM, "aten::randperm", OPC_RANDOM, NOMUT, ALIAS_NONE, randperm) \
    X(ATEN_RAND_LIKE, "aten::rand_like", OPC_RANDOM, NOMUT, ALIAS_NONE, rand_like) \
    X(ATEN_RANDN_LIKE, "aten::randn_like", OPC_RANDOM, NOMUT, ALIAS_NONE, randn_like) \
    X(ATEN_RANDINT_LIKE, "aten::randint_like", OPC_RANDOM, NOMUT, ALIAS_NONE, randint_like) \
    X(ATEN_MULTINOMIAL, "aten::multinomial", OPC_RANDOM, NOMUT, ALIAS_NONE, multinomial) \
    X(ATEN_BERNOULLI, "aten::bernoulli", OPC_RANDOM, NOMUT, ALIAS_NONE, bernoulli) \
    X(ATEN_NORMAL, "aten::normal", OPC_RANDOM, NOMUT, ALIAS_NONE, normal) \
    X(ATEN_DROPOUT, "aten::dropout", OPC_RANDOM, NOMUT, ALIAS_NONE, dropout) \
    X(ATEN_RRELU, "aten::rrelu", OPC_RANDOM, NOMUT, ALIAS_NONE, rrelu) \
    X(ATEN_UNIFORM_, "aten::uniform_", OPC_RANDOM, 0, ALIAS_SELF, uniform_) \
    X(ATEN_NORMAL_, "aten::normal_", OPC_RANDOM, 0, ALIAS_SELF, normal_) \
    X(ATEN_BERNOULLI_, "aten::bernoulli_", OPC_RANDOM, 0, ALIAS_SELF, bernoulli_) \
    /* (end of RANDOM_OPS) */

#define FFT_OPS(X) \
    X(ATEN_FFT_IRFFT, "aten::fft_irfft", OPC_NN, NOMUT, ALIAS_NONE, fft_irfft) \
    X(ATEN_FFT_IRFFT2, "aten::fft_irfft2", OPC_NN, NOMUT, ALIAS_NONE, fft_irfft2) \
    X(ATEN_FFT_IRFFTN, "aten::fft_irfftn", OPC_NN, NOMUT, ALIAS_NONE, fft_irfftn) \
    X(ATEN_FFT_HFFT, "aten::fft_hfft", OPC_NN, NOMUT, ALIAS_NONE, fft_hfft) \
    X(ATEN_FFT_HFFT2, "aten::fft_hfft2", OPC_NN, NOMUT, ALIAS_NONE, fft_hfft2) \
    X(ATEN_FFT_HFFTN, "aten::fft_hfftn", OPC_NN, NOMUT, ALIAS_NONE, fft_hfftn) \
    X(ATEN_STFT, "aten::stft", OPC_NN, NOMUT, ALIAS_NONE, stft) \
    X(ATEN_ISTFT, "aten::istft", OPC_NN, NOMUT, ALIAS_NONE, istft) \
    /* (end of FFT_OPS) */

/* Every view kind TensorSSA can take apart: an access op (immut::<v>) that
 * copies the region, and an assign op (immut::<v>_rev) that returns the root
 * with that region replaced by its source. */
#define IMMUT_PAIR(X, ID, NAME) \
    X(IMMUT_##ID, "immut::" NAME, OPC_ACCESS, NOMUT, ALIAS_NONE, NOEVAL) \
    X(IMMUT_##ID##_REV, "immut::" NAME "_rev", OPC_ASSIGN, NOMUT, ALIAS_NONE, NOEVAL)
#define IMMUT_OPS(X) \
    IMMUT_PAIR(X, SELECT, "select") IMMUT_PAIR(X, SLICE, "slice") \
    IMMUT_PAIR(X, SQUEEZE, "squeeze") IMMUT_PAIR(X, UNSQUEEZE, "unsqueeze") \
    IMMUT_PAIR(X, VIEW, "view") IMMUT_PAIR(X, RESHAPE, "reshape") \
    IMMUT_PAIR(X, EXPAND, "expand") IMMUT_PAIR(X, EXPAND_AS, "expand_as") \
    IMMUT_PAIR(X, REPEAT, "repeat") IMMUT_PAIR(X, PERMUTE, "permute") \
    IMMUT_PAIR(X, TRANSPOSE, "transpose") IMMUT_PAIR(X, NARROW, "narrow") \
    IMMUT_PAIR(X, DIAGONAL, "diagonal") IMMUT_PAIR(X, INDEX, "index") \
    IMMUT_PAIR(X, T, "t")

/* Per family (see the *_OPS families above): its ops with builtin forms. */
#define SPECIAL_BUILTIN_FORMS(Y) \
    /* (end of SPECIAL_BUILTIN_FORMS) */

#define MATH_BUILTIN_FORMS(Y) \
    Y(ATEN_ISNAN) Y(ATEN_ISINF) Y(ATEN_ISFINITE) Y(ATEN_COPYSIGN) Y(ATEN_GCD) Y(ATEN_FREXP) \
    Y(ATEN_LDEXP) Y(ATEN_LSHIFT) Y(ATEN_RSHIFT) Y(ATEN_ANGLE) \
    /* (end of MATH_BUILTIN_FORMS) */

#define POOL_NORM_BUILTIN_FORMS(Y) \
    /* (end of POOL_NORM_BUILTIN_FORMS) */

#define RESAMPLE_BUILTIN_FORMS(Y) \
    /* (end of RESAMPLE_BUILTIN_FORMS) */

#define LOSS_BUILTIN_FORMS(Y) \
    /* (end of LOSS_BUILTIN_FORMS) */

#define LINALG_EXTRA_BUILTIN_FORMS(Y) \
    /* (end of LINALG_EXTRA_BUILTIN_FORMS) */

#define STATS_BUILTIN_FORMS(Y) \
    /* (end of STATS_BUILTIN_FORMS) */

#define SHAPE_INDEX_BUILTIN_FORMS(Y) \
    /* (end of SHAPE_INDEX_BUILTIN_FORMS) */

/* Tensor ops whose names TorchScript also uses for Python builtins on
 * numbers, lists or strings (aten::add(int, int) -> int, aten::sqrt(float),
 * aten::max(int[]) -> int, list slicing and sorting, str.split): their
 * results need not be tensors. Every other op of a tensor class returns
 * tensors only (ir_check_ops). */
#define OPS_WITH_BUILTIN_FORMS(Y) \
    Y(ATEN_ADD) Y(ATEN_ADD_) Y(ATEN_SUB) Y(ATEN_MUL) Y(ATEN_MUL_) Y(ATEN_DIV) Y(ATEN_FLOOR_DIVIDE) Y(ATEN_REMAINDER) \
    Y(ATEN_FMOD) Y(ATEN_NEG) Y(ATEN_ABS) Y(ATEN_EXP) Y(ATEN_LOG) Y(ATEN_LOG2) Y(ATEN_LOG1P) \
    Y(ATEN_EXPM1) Y(ATEN_SQRT) Y(ATEN_POW) Y(ATEN_SIN) Y(ATEN_COS) Y(ATEN_TAN) Y(ATEN_TANH) \
    Y(ATEN_ERF) Y(ATEN_FLOOR) Y(ATEN_CEIL) Y(ATEN_ROUND) Y(ATEN_TRUNC) Y(ATEN_SIGN) \
    Y(ATEN_EQ) Y(ATEN_NE) Y(ATEN_LT) Y(ATEN_LE) Y(ATEN_GT) Y(ATEN_GE) Y(ATEN_AND) Y(ATEN_OR) \
    Y(ATEN_XOR) Y(ATEN_INVERT) Y(ATEN_IAND) Y(ATEN_IOR) Y(ATEN_ATAN2) \
    Y(ATEN_SLICE) Y(ATEN_SPLIT) Y(ATEN_INDEX) Y(ATEN_SUM) Y(ATEN_MAX) Y(ATEN_MIN) Y(ATEN_ALL) \
    Y(ATEN_ANY) Y(ATEN_SORT) Y(ATEN_ACOS) Y(ATEN_ASIN) Y(ATEN_ATAN) Y(ATEN_SINH) Y(ATEN_COSH) Y(ATEN_ASINH) Y(ATEN_ACOSH) Y(ATEN_ATANH) Y(ATEN_ERFC) Y(ATEN_EXP2) Y(ATEN_LOG10) Y(ATEN_LGAMMA) \
    SPECIAL_BUILTIN_FORMS(Y) MATH_BUILTIN_FORMS(Y) POOL_NORM_BUILTIN_FORMS(Y) RESAMPLE_BUILTIN_FORMS(Y) \
    LOSS_BUILTIN_FORMS(Y) LINALG_EXTRA_BUILTIN_FORMS(Y) STATS_BUILTIN_FORMS(Y) SHAPE_INDEX_BUILTIN_FORMS(Y)

typedef enum OpId {
    OP_UNKNOWN = 0,
#define X(id, name, cls, mut, alias, eval) OP_##id,
    TSSA_OPS(X)
#undef X
    OP_COUNT
} OpId;

typedef struct OpInfo {
    const char *name;
    OpClass cls;
    int mutates;     /* input index written in place, or -1 */
    OpAlias alias;
} OpInfo;

extern const OpInfo op_table[OP_COUNT];

/* The op named `name` ("aten::add"), or OP_UNKNOWN. O(1) average. */
OpId op_lookup(const char *name);
/* For an op the table does not list, what a user can do instead, when one
 * is known (the nested tensors nn.TransformerEncoder makes), or NULL:
 * appended to the "unknown op" messages. */
const char *op_unknown_hint(const char *name);
static inline const OpInfo *op_info(OpId op) { return &op_table[op]; }
static inline bool op_is_inplace(OpId op) { return op_table[op].mutates >= 0; }
/* Whether op reads no tensor's elements, only tensors' shapes, dtypes and
 * identities, or containers of them (size, dtype, TupleConstruct, a list's
 * __getitem__ and append, ...): a device backend runs it on the host
 * without bringing tensor data back. */
bool op_reads_no_elements(OpId op);
static inline bool op_is_view(OpId op) { return op_table[op].alias == ALIAS_VIEW || op_table[op].alias == ALIAS_MAYBE || op_table[op].alias == ALIAS_VIEWS; }
/* For an in-place op "aten::add_", the out-of-place op "aten::add"; else OP_UNKNOWN. */
OpId op_functional_variant(OpId op);
/* Whether op is an in-place op that changes self's sizes and strides, not
 * its data (squeeze_, t_, as_strided_): its functional variant is a view.
 * Aliases of self taken before it see no change. */
bool op_inplace_is_metadata(OpId op);
/* Ops that only make tensors (their class says so and they have no builtin
 * form): every result is a Tensor, a list, tuple or Optional of them. */
bool op_returns_tensors_only(OpId op);
/* The fewest arguments op accepts (over its TorchScript overloads, those
 * without a default; with tensor_first, over the overloads whose first
 * argument is a Tensor), and in *schema (when not NULL) the overload that
 * takes them; 0 and NULL for an op with no row (ir/op_arity.c). */
int op_min_args(OpId op, bool tensor_first, const char **schema);
/* The most arguments op accepts (over its TorchScript overloads but the
 * out= ones), and in *schema the overload that takes them; -1 and NULL when
 * it is not limited (a variadic overload, the project's own ops, an op with
 * no row). */
int op_max_args(OpId op, const char **schema);
/* Whether op's result shapes depend on the values of its tensor arguments
 * (nonzero, unique, masked_select, repeat_interleave with a tensor of
 * repeats...: PyTorch's dynamic_output_shape ops, ir/op_dynamic_shape.c).
 * aten::index counts for its boolean masks: a caller that sees only
 * integer indices may decide otherwise. */
bool op_has_dynamic_shape(OpId op);

#endif
