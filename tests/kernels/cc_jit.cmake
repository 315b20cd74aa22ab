tssa_unit_test(cc_jit ${TSSA_TESTS_DIR}/kernels/test_cc_jit.c ${TSSA_TESTS_DIR}/test_util.c)
