# The kernels layer (kernels/).
#   cc_jit   generated C compiled with the system compiler, cached, loaded:
#            values through dlsym (OpenMP too), cache hits and misses, the
#            collision guard, compiler errors and a missing compiler, four
#            processes compiling one source at once, flags reaching the
#            compiler, unusable cache folders (its cache is a mkdtemp folder)
include(${CMAKE_CURRENT_LIST_DIR}/cc_jit.cmake)
