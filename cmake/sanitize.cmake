# PLINTH_SANITIZE=ON: every target (library, CLI, tests, bench) with AddressSanitizer and
# UndefinedBehaviorSanitizer, float-to-int overflow included. A UBSan finding aborts the process
# instead of printing and going on, so a test that triggers one fails. -Werror is off in this
# configuration (cmake/warnings.cmake): GCC 12 warns inside <regex> under -fsanitize.
# docs/RELIABILITY.md ("Sanitizers") says how to run it, with the ASAN_OPTIONS and the LSan
# suppressions (scripts/sanitize/) that a process with PoCL loaded needs.
option(PLINTH_SANITIZE "Build with ASan + UBSan (see docs/RELIABILITY.md)" OFF)
if(PLINTH_SANITIZE)
  set(plinth_sanitize_flags -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
      -fno-omit-frame-pointer)
  # -g1: line tables for the reports' stack traces, without the link time of full debug info.
  add_compile_options(${plinth_sanitize_flags} -g1)
  add_link_options(${plinth_sanitize_flags})
endif()
