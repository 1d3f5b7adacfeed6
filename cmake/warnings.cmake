# Warnings are errors for plinth's own targets; third-party headers come in as SYSTEM.
function(plinth_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Werror)
endfunction()
