# Lowering (streamit/lower*.c) and the cpu backend (backends/cpu/).
#   lower_tool         runs a model on the cpu backend, prints its stream,
#                      schedule or lowering statistics (tests/lower/lower_tool.c)
#   cpu.<group>.<case> every corpus case on the cpu backend, against PyTorch
#                      (tests/run_cpu_case.sh runs tssa-stream --backend=cpu)
#   lower.golden.*     --emit=stream of small programs, reviewed by hand
#   lower.roundtrip.*  every lowered corpus program's .str text reads back
#   lower.loops        the disjointness prover on loops that must and must not
#                      be parallelized, run against PyTorch's outputs
add_executable(lower_tool ${TSSA_TESTS_DIR}/lower/lower_tool.c)
target_link_libraries(lower_tool PRIVATE tssa)

file(GLOB TSSA_LOWER_MODEL_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/models/*/args.txt)
file(GLOB TSSA_LOWER_OP_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/ops/*/args.txt)
file(GLOB TSSA_LOWER_LOOP_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/lower/cases/*/args.txt)
foreach(args ${TSSA_LOWER_MODEL_CASES} ${TSSA_LOWER_OP_CASES} ${TSSA_LOWER_LOOP_CASES})
  get_filename_component(case_dir ${args} DIRECTORY)
  get_filename_component(case_name ${case_dir} NAME)
  get_filename_component(group_dir ${case_dir} DIRECTORY)
  get_filename_component(group ${group_dir} NAME)
  add_test(NAME cpu.${group}.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/run_cpu_case.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${case_dir})
  set_tests_properties(cpu.${group}.${case_name} PROPERTIES LABELS "corpus;cpu")
  if(NOT EXISTS ${case_dir}/expect_error.txt)
    add_test(NAME lower.roundtrip.${group}.${case_name}
             COMMAND ${TSSA_TESTS_DIR}/lower/check_roundtrip.sh $<TARGET_FILE:lower_tool>
                     $<TARGET_FILE:tssa-stream> ${case_dir})
    set_tests_properties(lower.roundtrip.${group}.${case_name} PROPERTIES LABELS lower)
  endif()
endforeach()

file(GLOB TSSA_LOWER_GOLDENS CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/lower/golden/*.expected)
foreach(expected ${TSSA_LOWER_GOLDENS})
  get_filename_component(name ${expected} NAME_WE)
  add_test(NAME lower.golden.${name}
           COMMAND ${TSSA_TESTS_DIR}/lower/check_golden.sh $<TARGET_FILE:lower_tool> ${expected})
  set_tests_properties(lower.golden.${name} PROPERTIES LABELS lower)
endforeach()

foreach(args ${TSSA_LOWER_LOOP_CASES})
  get_filename_component(case_dir ${args} DIRECTORY)
  get_filename_component(case_name ${case_dir} NAME)
  add_test(NAME lower.loopplan.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/lower/check_loop_plan.sh $<TARGET_FILE:lower_tool> ${case_dir})
  set_tests_properties(lower.loopplan.${case_name} PROPERTIES LABELS lower)
endforeach()
