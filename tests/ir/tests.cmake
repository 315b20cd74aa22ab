# IR core (ir/): building, editing, use lists, names, order, verify.
tssa_unit_test(frontend_ir_api ${TSSA_TESTS_DIR}/ir/test_ir_api.c ${TSSA_TESTS_DIR}/test_util.c)
# Objects created by the program, replaced by their attributes' values.
tssa_unit_test(ir_fresh_objects ${TSSA_TESTS_DIR}/ir/test_fresh_objects.c ${TSSA_TESTS_DIR}/test_util.c)
