# `cmake --install` puts the library, headers and a CMake package in place, so that another
# project can write find_package(plinth) and link plinth::plinth.
include(CMakePackageConfigHelpers)
install(TARGETS plinth EXPORT plinthTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/plinth DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET plinth_cli)
  install(TARGETS plinth_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT plinthTargets NAMESPACE plinth:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/plinth)
configure_package_config_file(cmake/plinthConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/plinthConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/plinth)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/plinthConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/plinthConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/plinthConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/plinth)
