# The command line of tssa-stream: statuses, messages, option order, -o.
add_test(NAME driver_cli COMMAND ${TSSA_TESTS_DIR}/driver/test_cli.sh $<TARGET_FILE:tssa-stream>)

# The hostile-input corpus (driver/hostile/NAME/): bad, lying and absurd
# inputs, each with its expected exit status and first line of stderr, and
# what a failed run must not leave behind (driver/run_hostile_case.sh says
# how a case is written). Run by both the release and the sanitizer build.
file(GLOB TSSA_HOSTILE_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/driver/hostile/*/expect)
foreach(expect ${TSSA_HOSTILE_CASES})
  get_filename_component(case_dir ${expect} DIRECTORY)
  get_filename_component(case_name ${case_dir} NAME)
  add_test(NAME hostile.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/driver/run_hostile_case.sh $<TARGET_FILE:tssa-stream> ${case_dir})
  # A hang is a failure: every hostile case answers in well under a second.
  set_tests_properties(hostile.${case_name} PROPERTIES LABELS hostile TIMEOUT 60)
endforeach()
