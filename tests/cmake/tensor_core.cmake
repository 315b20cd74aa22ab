# Tensor library core (backends/tensor: storage, copies, promotion, views,
# creation, elementwise).
#   tensor_core_basics   storage, casts, copy_/fill_, in-place overlap, errors
#                        (expected values derived by hand in the test)
#   tensor_core_views    view geometry and aliasing, derived by hand
#   tensor_core_torch    ~2300 cases checked against PyTorch 1.13: values,
#                        dtypes, result strides, error messages
#                        (data: tensor/torch_expected.h from gen_expected.py)
tssa_unit_test(tensor_core_basics ${TSSA_TESTS_DIR}/tensor/test_core.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(tensor_core_views ${TSSA_TESTS_DIR}/tensor/test_views.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(tensor_core_torch ${TSSA_TESTS_DIR}/tensor/test_torch_cases.c ${TSSA_TESTS_DIR}/test_util.c)
