# Tensor kernel tests: reductions, sorting, indexing, linalg, nn and shape
# kernels (backends/tensor/{reduce,sort,index,linalg,nn,shape}.c) called
# through the C API and compared with PyTorch's values and error messages.
# The data under tests/tensor/data/ is written by
# tests/tensor/gen_kernels_expected.py (run with /usr/bin/python3) and committed.
foreach(area reduce sort index linalg nn shape)
  tssa_unit_test(tensor_kernels_${area}
                 ${TSSA_TESTS_DIR}/tensor/test_${area}.c
                 ${TSSA_TESTS_DIR}/tensor/kernel_fixtures.c ${TSSA_TESTS_DIR}/test_util.c)
  set_tests_properties(tensor_kernels_${area} PROPERTIES LABELS tensor)
endforeach()
