# Op conformance against PyTorch's OpInfo database (tests/opinfo/run_opinfo.py).
#   opinfo_quick  a fixed subset of op_db (run_opinfo.py's QUICK_OPS, float32,
#                 first 2 samples) exported with frontend/export.py and run on
#                 the ref and cpu backends. Ops may fail without failing the
#                 test; an entry listed in quick_expected.txt that no longer
#                 matches fails it. Skipped (77) where /usr/bin/python3 cannot
#                 import torch and expecttest.
# The full run, which writes docs/ops.md, is not a ctest entry:
#   /usr/bin/python3 tests/opinfo/run_opinfo.py --out docs/ops.md
add_test(NAME opinfo_quick
         COMMAND sh -c "test -x /usr/bin/python3 || exit 77; exec /usr/bin/python3 \"$@\"" sh
                 ${TSSA_TESTS_DIR}/opinfo/run_opinfo.py --quick
                 --expect ${TSSA_TESTS_DIR}/opinfo/quick_expected.txt
                 --tssa $<TARGET_FILE:tssa-stream> --compare $<TARGET_FILE:npy_compare>)
# Label release: Python drives hundreds of tssa-stream runs of the ops the
# corpus already runs under ASan; CI runs it on the release build.
set_tests_properties(opinfo_quick PROPERTIES LABELS "opinfo;release" SKIP_RETURN_CODE 77 TIMEOUT 300
                     COST 60)
