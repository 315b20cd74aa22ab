# Frontend tests: TorchScript graph text in and out, bindings and outputs.
#   frontend_roundtrip   torch-printed graphs (frontend/golden, models/*/model.ir)
#                        print back byte for byte; printing is a fixpoint
#   frontend_malformed   bad input gives a located FILE:LINE:COL error, never a crash
#   ref_bindings         NAME=VALUE bindings and their errors, module attributes
#                        from a safetensors file, writing outputs
# ir_cat (parse + print files, exit 2 on bad input) is built for use by hand.
tssa_unit_test(frontend_roundtrip ${TSSA_TESTS_DIR}/frontend/test_roundtrip.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(frontend_malformed ${TSSA_TESTS_DIR}/frontend/test_malformed.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(ref_bindings ${TSSA_TESTS_DIR}/frontend/test_bindings.c ${TSSA_TESTS_DIR}/test_util.c)
# ir_expand_decompositions inlines composite ops' definitions in place
# (their numbers: frontend_decompositions below and the nn_transformer cases).
tssa_unit_test(frontend_decompose ${TSSA_TESTS_DIR}/frontend/test_decompose.c ${TSSA_TESTS_DIR}/test_util.c)
add_executable(ir_cat ${TSSA_TESTS_DIR}/frontend/ir_cat.c)
target_link_libraries(ir_cat PRIVATE tssa)
# frontend/export.py on modules holding objects of TorchScript classes: the
# weights-file contract for their attributes, and the refusal of a read
# attribute whose declared type tssa-stream cannot read. Skipped (77) where
# /usr/bin/python3 cannot import torch.
add_test(NAME export_objects
         COMMAND sh -c "test -x /usr/bin/python3 || exit 77; exec /usr/bin/python3 \"$@\"" sh
                 ${TSSA_TESTS_DIR}/frontend/export/test_export_objects.py)
set_tests_properties(export_objects PROPERTIES LABELS frontend SKIP_RETURN_CODE 77 TIMEOUT 120)
# frontend/export.py on signatures real code has: Optional arguments left at
# None, scalar and tuple defaults, list arguments, bound in args.txt (the
# graph text carries no defaults), each case then run by tssa-stream and
# compared with eager PyTorch. Skipped (77) without torch.
add_test(NAME export_defaults
         COMMAND sh -c "test -x /usr/bin/python3 || exit 77; exec /usr/bin/python3 \"$@\"" sh
                 ${TSSA_TESTS_DIR}/frontend/export/test_export_defaults.py $<TARGET_FILE:tssa-stream>)
set_tests_properties(export_defaults PROPERTIES LABELS frontend SKIP_RETURN_CODE 77 TIMEOUT 120)
# frontend/export.py on module tensors that overlap as different views
# (_ECELoss's bin_boundaries[:-1] and [1:]): written apart when the program
# cannot write them, refused when it may; the exported case run and
# compared with eager PyTorch. Skipped (77) without torch.
add_test(NAME export_views
         COMMAND sh -c "test -x /usr/bin/python3 || exit 77; exec /usr/bin/python3 \"$@\"" sh
                 ${TSSA_TESTS_DIR}/frontend/export/test_export_views.py $<TARGET_FILE:tssa-stream>)
set_tests_properties(export_views PROPERTIES LABELS frontend SKIP_RETURN_CODE 77 TIMEOUT 120)
# frontend/export.py on a program that draws random numbers (multinomial):
# exported with eager and scripted seeded alike and a note that expected/
# holds PyTorch's draws; the case's draws are the same on ref and cpu.
add_test(NAME export_random
         COMMAND sh -c "test -x /usr/bin/python3 || exit 77; exec /usr/bin/python3 \"$@\"" sh
                 ${TSSA_TESTS_DIR}/frontend/export/test_export_random.py $<TARGET_FILE:tssa-stream>)
set_tests_properties(export_random PROPERTIES LABELS frontend SKIP_RETURN_CODE 77 TIMEOUT 120)
# frontend/gen_decompositions.py --check: each composite op's definition
# (frontend/decompositions.inc) against PyTorch's own op on random inputs,
# every flag and mask kind and ATen's errors, and the .inc up to date with
# the definitions. Skipped (77) where /usr/bin/python3 cannot import torch.
add_test(NAME frontend_decompositions
         COMMAND sh -c "test -x /usr/bin/python3 || exit 77; exec /usr/bin/python3 \"$@\"" sh
                 ${PROJECT_SOURCE_DIR}/frontend/gen_decompositions.py --check)
set_tests_properties(frontend_decompositions PROPERTIES LABELS frontend SKIP_RETURN_CODE 77 TIMEOUT 120)
# tests/models/check_cases.py: every committed case (tests/models, tests/ops)
# keeps the layout the runners rely on (args.txt binds exactly the graph's
# inputs, its files exist and hold dtypes tssa-stream reads, expected/ or
# expect_error.txt, a size budget). Needs NumPy, not torch (77 without it).
add_test(NAME corpus_layout
         COMMAND sh -c "/usr/bin/python3 -c 'import numpy' 2>/dev/null || exit 77; exec /usr/bin/python3 \"$@\"" sh
                 ${TSSA_TESTS_DIR}/models/check_cases.py)
set_tests_properties(corpus_layout PROPERTIES LABELS frontend SKIP_RETURN_CODE 77 TIMEOUT 60)
