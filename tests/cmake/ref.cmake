# The reference interpreter (--backend=ref), beyond the corpus that checks it
# against PyTorch (corpus.cmake):
#   ref_interp     aliasing of views and in-place ops, loops, If, lists,
#                  scalar arithmetic, located runtime errors
#   ref_bindings   NAME=VALUE bindings and their errors, module attributes
#                  from a safetensors file, writing outputs
#   ref_repr       str() of tensors as TorchScript prints them (expected
#                  strings from torch: tests/ref/gen_repr_cases.py)
tssa_unit_test(ref_interp ${TSSA_TESTS_DIR}/ref/test_interp.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(ref_bindings ${TSSA_TESTS_DIR}/ref/test_bindings.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(ref_repr ${TSSA_TESTS_DIR}/ref/test_repr.c ${TSSA_TESTS_DIR}/test_util.c)
