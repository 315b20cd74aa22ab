# IR core (ir/): building, editing, use lists, names, order, verify.
tssa_unit_test(frontend_ir_api ${TSSA_TESTS_DIR}/ir/test_ir_api.c ${TSSA_TESTS_DIR}/test_util.c)
