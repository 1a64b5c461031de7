function(jouleprof_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wconversion -Wno-sign-conversion
    $<$<BOOL:${JOULEPROF_WERROR}>:-Werror>)
endfunction()
