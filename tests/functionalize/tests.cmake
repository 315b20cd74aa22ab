# TensorSSA (functionalize/): pass-level tests and the FuncTs README goldens.
# Every corpus program and TensorSSA case run through --emit=tssa and back on
# the ref backend, and the README examples' runs, are the conformance
# runner's conform.tssa.* (tests/conformance/tests.cmake). The immut:: ops
# themselves are tested with the op semantics (tests/eval).

# The TensorSSA stage alone with its report, for debugging and experiments.
add_executable(tssa_report_tool ${TSSA_TESTS_DIR}/functionalize/tssa_report_tool.c)
target_link_libraries(tssa_report_tool PRIVATE tssa)

# Pass-level tests on small hand-written graphs (expectations derived by hand
# in the test).
tssa_unit_test(tssa_passes ${TSSA_TESTS_DIR}/functionalize/test_passes.c ${TSSA_TESTS_DIR}/test_util.c)

# The two FuncTs README examples: the printed graph (golden); their runs are
# conform.tssa.readme_*.
set(TSSA_FUNC_GOLDEN ${TSSA_TESTS_DIR}/functionalize/golden)
foreach(example loop branch)
  add_test(NAME tssa.golden.readme_${example}
           COMMAND ${TSSA_TESTS_DIR}/functionalize/check_golden.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_FUNC_GOLDEN}/readme_${example}.ir ${TSSA_FUNC_GOLDEN}/readme_${example}.tssa)
endforeach()
# Without bindings graph inputs may alias: a program writing one input and
# reading another afterwards stays imperative, with its reason printed.
add_test(NAME tssa.may_alias_documented
         COMMAND ${TSSA_TESTS_DIR}/functionalize/check_golden.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models/mutated_input/model.ir
                 ${TSSA_FUNC_GOLDEN}/mutated_input_may_alias.tssa)

# List writes (functionalize/list_versions.c) on the stress cases of
# cases/list_programs.py: new versions carried through loops and branches,
# and lists another name or a container observes, kept imperative with
# their reason (checked by hand: golden/README.md).
foreach(case list_append_loop list_append_if_in_loop list_plus_equal_carried list_set_item_loop
        list_nested_append list_escape_then_append list_alias_before_loop list_merge_alias_t
        list_stored_each_iteration list_fresh_each_iteration)
  add_test(NAME tssa.golden.${case}
           COMMAND ${TSSA_TESTS_DIR}/functionalize/check_golden.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/functionalize/cases/${case}/model.ir
                   ${TSSA_FUNC_GOLDEN}/${case}.tssa)
endforeach()
# A tensor written and then stored in a list (alias.c's
# stored_after_all_writes): functionalized only when every write comes
# before its one store and no other name holds the tensor.
foreach(case write_then_store write_store_write write_in_loop_then_store write_then_store_merged_t)
  add_test(NAME tssa.golden.${case}
           COMMAND ${TSSA_TESTS_DIR}/functionalize/check_golden.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/functionalize/cases/${case}/model.ir
                   ${TSSA_FUNC_GOLDEN}/${case}.tssa)
endforeach()
# TorchScript itself runs this one differently from eager Python (so no
# stress case): a list put into a tuple, then appended to.
add_test(NAME tssa.golden.list_in_tuple_then_append
         COMMAND ${TSSA_TESTS_DIR}/functionalize/check_golden.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_FUNC_GOLDEN}/list_in_tuple_then_append.ir
                 ${TSSA_FUNC_GOLDEN}/list_in_tuple_then_append.tssa)

# reshape_decide.c against PyTorch: reshape, flatten, ravel and contiguous
# of views of a bound input (transposes, steps, expand, size-1 and empty
# dims) decided as the view or the copy PyTorch makes (reshape_cases.inc,
# written by gen_reshape_cases.py from PyTorch), the decided graph run on
# the reference evaluator sharing the input's storage exactly then; and
# unbound, only what contiguity alone decides (expectations by hand).
tssa_unit_test(tssa_reshape_decide ${TSSA_TESTS_DIR}/functionalize/test_reshape_decide.c
               ${TSSA_TESTS_DIR}/test_util.c)
