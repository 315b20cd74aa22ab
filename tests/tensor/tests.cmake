# Tensor library (tensor/): the core, the kernels, and the .npy and
# safetensors readers and writers.
#
# Core (storage, copies, promotion, views, creation, elementwise):
#   tensor_core_basics   storage, casts, copy_/fill_, in-place overlap, errors
#                        (expected values derived by hand in the test)
#   tensor_core_views    view geometry and aliasing, derived by hand
#   tensor_core_torch    ~2300 cases checked against PyTorch 1.13: values,
#                        dtypes, result strides, error messages
#                        (data: tensor/torch_expected_*.h from gen_expected.py)
tssa_unit_test(tensor_core_basics ${TSSA_TESTS_DIR}/tensor/test_core.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(tensor_core_views ${TSSA_TESTS_DIR}/tensor/test_views.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(tensor_core_torch ${TSSA_TESTS_DIR}/tensor/test_torch_cases.c ${TSSA_TESTS_DIR}/test_util.c)
# The buffer pool a plan's runs reuse tensors from (tensor/storage_pool.c):
# reuse, the byte and count bounds, buffers outliving the pool, poison on
# reuse; counts derived by hand in the test.
tssa_unit_test(tensor_storage_pool ${TSSA_TESTS_DIR}/tensor/test_storage_pool.c ${TSSA_TESTS_DIR}/test_util.c)

# Kernels: reductions, sorting, indexing, linalg, nn and shape kernels called
# through the C API and compared with PyTorch's values and error messages.
# The data under tests/tensor/data/ is written by
# tests/tensor/gen_kernels_expected.py (run with /usr/bin/python3) and committed.
foreach(area reduce sort index linalg nn shape)
  tssa_unit_test(tensor_kernels_${area}
                 ${TSSA_TESTS_DIR}/tensor/test_${area}.c
                 ${TSSA_TESTS_DIR}/tensor/kernel_fixtures.c ${TSSA_TESTS_DIR}/test_util.c)
  set_tests_properties(tensor_kernels_${area} PROPERTIES LABELS tensor)
endforeach()

# Tensor files (tests/tensor/io/): the .npy and safetensors readers and
# writers, and the verdicts of npy_compare (tests/tools), which the corpus
# runners use to check outputs. Test files and their expected contents come
# from numpy/torch (tests/tensor/io/gen_files.py).
tssa_unit_test(io_npy ${TSSA_TESTS_DIR}/tensor/io/test_npy.c ${TSSA_TESTS_DIR}/tensor/io/io_test_util.c
               ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(io_safetensors ${TSSA_TESTS_DIR}/tensor/io/test_safetensors.c
               ${TSSA_TESTS_DIR}/tensor/io/io_test_util.c
               ${TSSA_TESTS_DIR}/test_util.c)

add_test(NAME io_npy_compare
         COMMAND sh ${TSSA_TESTS_DIR}/tensor/io/npy_compare_test.sh $<TARGET_FILE:npy_compare>
         WORKING_DIRECTORY ${TSSA_TESTS_DIR})

# The counter-based generator (tensor/philox.c) against Random123's published
# Philox4x32-10 and -7 known-answer vectors, and tensor/random.c's element
# scheme (element i from block i / 4) derived by hand.
tssa_unit_test(tensor_philox ${TSSA_TESTS_DIR}/tensor/test_philox.c ${TSSA_TESTS_DIR}/test_util.c)
# The random distributions (tensor/random.c) at significance 0.001 against
# PyTorch 1.13's samples (two-sample KS, chi-square; data/random_torch_stats.h
# from gen_random_expected.py) and the exact laws derived in the test.
tssa_unit_test(tensor_random_stats ${TSSA_TESTS_DIR}/tensor/test_random_stats.c ${TSSA_TESTS_DIR}/test_util.c)
