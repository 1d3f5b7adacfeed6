# Run by ctest after the GoogleTest lists are read (TEST_INCLUDE_FILES, tests/CMakeLists.txt):
# gives the label `fast` to the tests that take seconds, so that a slower build (the sanitizer
# run of scripts/sanitize.sh: `ctest -L 'fast|cli'`) can run just those. They are the argument
# and file checks, the fuzz inputs and a few small device round trips; a new test joins by a
# name that matches below. Labels only select: the default run still runs every test.
set(plinth_fast_tests
  "\\.Errors$" "^IntegralErrors\\." "^Resize\\.RejectsBadArguments$"
  "^FuzzCorpus\\." "^VideoFuzzCorpus\\." "^JpegFiles\\." "^Nv12Files\\." "^Nv12\\.PlanesOfAPackedFrame$"
  "^(Npy|ImageFiles|Writers|OutputFiles|ProgramCacheFiles|DeviceMemory)\\."
  "^Arithm\\.(SaturationAtTheLimits|InPlace|SynchronousForms)$"
  "^Pyramid\\.TinyImagesKeepShrinkingToOnePixel$" "^CascadeXml\\." "^OpsCoreApi\\."
  "^Backend\\.EventsWithAndWithoutTiming$" "^KeepBusy\\."
  "^CubinStore\\.(IndexParses|EntriesUnder|ATruncated|NotAnElf|AMalformed|PlinthCubinDir)")
foreach(test IN LISTS plinth_tests_TESTS plinth_cascade_tests_TESTS plinth_jpeg_tests_TESTS plinth_video_tests_TESTS)
  foreach(pattern IN LISTS plinth_fast_tests)
    if(test MATCHES "${pattern}")
      set_tests_properties("${test}" PROPERTIES LABELS fast)
      break()
    endif()
  endforeach()
endforeach()
# scripts/test.sh runs the tests with PoCL's kernels built at -O0 (POCL_EXTRA_BUILD_FLAGS=
# -cl-opt-disable; docs/RELIABILITY.md, "What CI runs"), since with empty caches building them is
# most of a test's time. These tests' time goes to running kernels instead (2-11x slower at -O0 on
# CI's two cores), so they keep PoCL's default optimisation. pyrLK's `opencv_fused` (levels in one
# launch: barriers in the level loop and in the iteration loop inside it, every exit group-uniform)
# also fails under PoCL 3.1 at -O0, wrong positions with several levels and a hang with one, where
# it matches OpenCV at -O3, on NVIDIA OpenCL and on CUDA.
set(plinth_optimised_tests
  "^PyrLk\\." "^Cascades/CascadeAgreement\\." "^Sort\\." "^TopK\\." "^Surf\\." "^FeaturesEval\\."
  "^CornersGoodFeatures\\.")
foreach(test IN LISTS plinth_tests_TESTS plinth_cascade_tests_TESTS plinth_klt_tests_TESTS plinth_features_tests_TESTS)
  foreach(pattern IN LISTS plinth_optimised_tests)
    if(test MATCHES "${pattern}")
      set_tests_properties("${test}" PROPERTIES ENVIRONMENT "POCL_EXTRA_BUILD_FLAGS=")
      break()
    endif()
  endforeach()
endforeach()
