# Op semantics (eval/), run through the ref backend:
#   ref_repr         str() of tensors as TorchScript prints them (expected
#                    strings from torch: tests/eval/gen_repr_cases.py)
#   tssa_immut_ops   the immut:: ops against PyTorch
#                    (tests/eval/gen_immut_cases.py)
#   list_set_item    immut::list_set_item (TensorSSA's l[idx] = el on a
#                    copy), expected values by hand from Python's rules
#   value_wire       values packed for MPI and read back (layout, bytes moved,
#                    corrupt metadata refused), expected values by hand
#   eval.op_bindings the op table's eval column (include/tssa/ops.h): every
#                    row names a binding or has a reason not to, and every
#                    eval_op_* function in libtssa is named by a row
tssa_unit_test(ref_repr ${TSSA_TESTS_DIR}/eval/test_repr.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(tssa_immut_ops ${TSSA_TESTS_DIR}/eval/test_immut_ops.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(list_set_item ${TSSA_TESTS_DIR}/eval/test_list_set_item.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(value_wire ${TSSA_TESTS_DIR}/eval/test_value_wire.c ${TSSA_TESTS_DIR}/test_util.c)
add_executable(test_op_bindings ${TSSA_TESTS_DIR}/eval/test_op_bindings.c ${TSSA_TESTS_DIR}/test_util.c)
target_link_libraries(test_op_bindings PRIVATE tssa)
target_include_directories(test_op_bindings PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
add_test(NAME eval.op_bindings
         COMMAND ${TSSA_TESTS_DIR}/eval/op_bindings.sh $<TARGET_FILE:test_op_bindings> $<TARGET_FILE:tssa>)

# Random ops (eval/ops_random.c): the same --seed gives byte-identical draws
# on ref, cpu (fused, unfused, fission) and mpirun -np 2; each loop
# iteration draws anew; another seed draws other numbers.
add_test(NAME eval.random_determinism
         COMMAND ${TSSA_TESTS_DIR}/eval/random_determinism.sh $<TARGET_FILE:tssa-stream>)
