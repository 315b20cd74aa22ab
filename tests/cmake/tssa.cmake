# TensorSSA (functionalize/): the immut:: ops against PyTorch, the FuncTs
# README goldens, and every corpus program run through --emit=tssa and back
# on the ref backend (tests/run_tssa_case.sh).

# The TensorSSA stage alone with its report, for debugging and experiments.
add_executable(tssa_report_tool ${TSSA_TESTS_DIR}/tssa/tssa_report_tool.c)
target_link_libraries(tssa_report_tool PRIVATE tssa)

# The immut:: ops of the ref backend against PyTorch (gen_immut_cases.py).
tssa_unit_test(tssa_immut_ops ${TSSA_TESTS_DIR}/tssa/test_immut_ops.c ${TSSA_TESTS_DIR}/test_util.c)

# Pass-level tests on small hand-written graphs (expectations derived by hand
# in the test).
tssa_unit_test(tssa_passes ${TSSA_TESTS_DIR}/tssa/test_passes.c ${TSSA_TESTS_DIR}/test_util.c)

# The two FuncTs README examples: the printed graph (golden) and its run.
foreach(example loop branch)
  add_test(NAME tssa.golden.readme_${example}
           COMMAND ${TSSA_TESTS_DIR}/tssa/check_golden.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/tssa/golden/readme_${example}.ir
                   ${TSSA_TESTS_DIR}/tssa/golden/readme_${example}.tssa)
endforeach()
foreach(run loop_n3 branch_pos branch_neg)
  string(REGEX REPLACE "_.*" "" example ${run})
  add_test(NAME tssa.readme.${run}
           COMMAND ${TSSA_TESTS_DIR}/run_tssa_case.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR}/tssa/golden/${run}
                   ${TSSA_TESTS_DIR}/tssa/golden/readme_${example}.ir)
  set_tests_properties(tssa.readme.${run} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()

# Without bindings graph inputs may alias: a program writing one input and
# reading another afterwards stays imperative, with its reason printed.
add_test(NAME tssa.may_alias_documented
         COMMAND ${TSSA_TESTS_DIR}/tssa/check_golden.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models/mutated_input/model.ir
                 ${TSSA_TESTS_DIR}/tssa/golden/mutated_input_may_alias.tssa)

# Every corpus case, and the TensorSSA stress cases (tssa/cases/programs.py),
# functionalized and run back on ref.
file(GLOB TSSA_FUNC_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/models/*/args.txt
     ${TSSA_TESTS_DIR}/ops/*/args.txt ${TSSA_TESTS_DIR}/tssa/cases/*/args.txt)
foreach(args ${TSSA_FUNC_CASES})
  get_filename_component(case_dir ${args} DIRECTORY)
  get_filename_component(case_name ${case_dir} NAME)
  get_filename_component(group_dir ${case_dir} DIRECTORY)
  get_filename_component(group ${group_dir} NAME)
  add_test(NAME tssa.${group}.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/run_tssa_case.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${case_dir})
  set_tests_properties(tssa.${group}.${case_name} PROPERTIES LABELS corpus SKIP_RETURN_CODE 77)
endforeach()
