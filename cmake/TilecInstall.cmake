# Install layout and the CMake package other projects consume:
#
#   <prefix>/bin/tilec                              the compiler (static, one file)
#   <prefix>/include/tilec/*.h                      runtime headers (runtime/*.h)
#   <prefix>/lib/cmake/tilec/tilecConfig.cmake      find_package(tilec)
#   <prefix>/lib/cmake/tilec/tilecConfigVersion.cmake
#   <prefix>/lib/cmake/tilec/TilecKernel.cmake      add_tile_kernel()
#
# The same targets exist in-tree under the same names, so add_tile_kernel()
# works unchanged inside this build (examples, nvcc tests).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

add_executable(tilec::tilec ALIAS tilec)
add_library(tilec_runtime INTERFACE)
target_include_directories(tilec_runtime INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/runtime>)
add_library(tilec::runtime ALIAS tilec_runtime)
include(TilecKernel)

file(GLOB tilec_runtime_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/runtime/*.h)
install(FILES ${tilec_runtime_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilec)

set(tilec_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  INSTALL_DESTINATION ${tilec_cmake_dir}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/TilecKernel.cmake
  DESTINATION ${tilec_cmake_dir})
