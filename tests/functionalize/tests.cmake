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
# The other list and dict writes (insert, pop, remove, clear, sort, del, *=; dict
# pop, setdefault, update, clear, popitem, del: list_versions.c's functional forms)
# on the stress cases of cases/list_programs.py leave no write kept
# imperative after TensorSSA and no opaque filter in --emit=stream
# (tests/streamit/check_list_elements.sh); their outputs and run-time
# errors against PyTorch are conform.{cpu,tssa}.tssa_cases.
foreach(case list_insert_pop_loop list_pop_until_empty list_remove_clear_sort dict_writes
        list_pop_empty list_pop_out_of_range list_remove_missing dict_pop_missing dict_popitem_empty
        list_push_pop_end list_push_pop_count list_sort_tensors list_sort_tensors_ambiguous
        list_dict_delete_repeat list_delete_empty dict_delete_missing)
  add_test(NAME tssa.functional_writes.${case}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/functionalize/cases/${case})
endforeach()
# Writes through tensor list elements beside the new list writes
# (functionalize/list_elements.c): an item popped and inserted back is a
# move, and a slot known to hold a fresh tensor is written functionally even
# beside a graph input in the list (list_dict_semantics, the corpus case);
# the hazards stay imperative with their reason: one tensor in two slots, a
# popped item also read elsewhere, an element that is another name read
# after the write. Their outputs are conform.{cpu,tssa}.tssa_cases'.
foreach(case list_element_write_after_move list_element_write_beside_input)
  add_test(NAME tssa.functional_writes.${case}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/functionalize/cases/${case})
endforeach()
add_test(NAME tssa.functional_writes.list_dict_semantics
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models/list_dict_semantics)
# One tensor in two slots: object_names.c follows both, so the write is
# functional (its outputs: conform.{cpu,tssa}.tssa_cases).
add_test(NAME tssa.functional_writes.list_element_stored_twice
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/functionalize/cases/list_element_stored_twice)
add_test(NAME tssa.functional_writes_kept.list_element_popped_kept
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/functionalize/cases/list_element_popped_kept --kept
                 "writes %[^,]*, an element of %ts[^:]*: %p[^ ]* is put into the list but is not a fresh tensor")
add_test(NAME tssa.functional_writes_kept.list_element_slot_moved_to_input
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/functionalize/cases/list_element_slot_moved_to_input --kept
                 "%[^ ]* .taken from a list or tuple. may alias %y[^ ]* .fresh., which is read after this write")
# A list of views of the graph input x, carried by a loop whose trip count
# is not known and replaced by a fresh list in a branch: which list a write
# goes through depends on the iteration, so it stays imperative, with both
# reasons (the one case of its kind; its outputs: conform.*.tssa_cases).
add_test(NAME tssa.functional_writes_kept.list_element_views_list
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/functionalize/cases/list_element_views_list --kept
                 "writes %[^,]*, an element of %parts[^:]*: %parts.1 comes from aten::list.*carried by a loop whose trip count is not known")
# A fresh tensor written in place after an early return and appended to a
# list, in a loop whose trip count is a bound int (fairseq's n-gram
# blocking): object_names.c takes the bound scalar as known.
add_test(NAME tssa.functional_writes.list_element_write_bound_trip_count
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/functionalize/cases/list_element_write_bound_trip_count)
# Pushes and pops at the end of a list in a for loop and a while loop stay
# linear once functional: each immut:: version reuses the dead old list in
# place (eval_arg_take), also for an insert and a pop on one list in one
# iteration (check_linear_list_writes.sh; quadratic copying takes about
# 40 s here, past the timeout).
add_test(NAME tssa.list_writes_linear
         COMMAND ${TSSA_TESTS_DIR}/functionalize/check_linear_list_writes.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/functionalize/cases/list_push_pop_count 200000)
set_tests_properties(tssa.list_writes_linear PROPERTIES TIMEOUT 15)
