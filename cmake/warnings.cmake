# Warnings are errors for plinth's own targets; third-party headers come in as SYSTEM.
# PLINTH_WERROR=OFF keeps the warnings but lets the build finish: compilers or instrumentation
# that warn inside system headers (GCC 12 in <regex> under -fsanitize). PLINTH_SANITIZE turns it off.
option(PLINTH_WERROR "Treat warnings as errors in plinth's own targets" ON)
function(plinth_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  if(PLINTH_WERROR AND NOT PLINTH_SANITIZE)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
