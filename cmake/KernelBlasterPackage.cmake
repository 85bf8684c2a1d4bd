# Makes this build of KernelBlaster usable by other projects. Included by the
# top-level CMakeLists.txt:
# - add_subdirectory(<checkout>) gets kernelblaster_optimize() and the
#   KernelBlaster::kernelblaster target right away;
# - `cmake --install` writes the package config that gives find_package()
#   users the same (lib/cmake/KernelBlaster/).
if(NOT TARGET KernelBlaster::kernelblaster)
  add_executable(KernelBlaster::kernelblaster ALIAS kernelblaster)
endif()
if(TARGET kernelblaster_recorder)
  set_property(GLOBAL PROPERTY KERNELBLASTER_RECORDER "$<TARGET_FILE:kernelblaster_recorder>")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/KernelBlaster.cmake)

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(KERNELBLASTER_INSTALL_CMAKEDIR lib/cmake/KernelBlaster)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/KernelBlasterConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/KernelBlasterConfig.cmake
  INSTALL_DESTINATION ${KERNELBLASTER_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/KernelBlasterConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/KernelBlasterConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/KernelBlasterConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/KernelBlaster.cmake
  DESTINATION ${KERNELBLASTER_INSTALL_CMAKEDIR})
