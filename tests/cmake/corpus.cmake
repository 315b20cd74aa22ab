# The PyTorch-generated corpus: every case directory under tests/models/
# (whole programs) and tests/ops/ (the per-op table) runs on the ref backend
# and is compared with PyTorch's eager outputs (tests/run_case.sh).
file(GLOB TSSA_MODEL_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/models/*/args.txt)
file(GLOB TSSA_OP_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/ops/*/args.txt)
foreach(args ${TSSA_MODEL_CASES} ${TSSA_OP_CASES})
  get_filename_component(case_dir ${args} DIRECTORY)
  get_filename_component(case_name ${case_dir} NAME)
  get_filename_component(group_dir ${case_dir} DIRECTORY)
  get_filename_component(group ${group_dir} NAME)
  add_test(NAME ref.${group}.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/run_case.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${case_dir} --backend=ref)
  set_tests_properties(ref.${group}.${case_name} PROPERTIES LABELS corpus)
endforeach()
