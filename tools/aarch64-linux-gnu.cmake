# Cross-build for Debian arm64 (tools/package): Debian's gcc-aarch64-linux-gnu
# and the arm64 libraries in the sysroot TPMTRACE_SYSROOT names (an environment
# variable, so that CMake's try_compile runs see it too).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
if(NOT DEFINED ENV{TPMTRACE_SYSROOT})
	message(FATAL_ERROR "TPMTRACE_SYSROOT: set it to an arm64 sysroot (tools/package makes one)")
endif()
set(CMAKE_SYSROOT $ENV{TPMTRACE_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${CMAKE_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR}
	${CMAKE_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${CMAKE_SYSROOT}/usr/share/pkgconfig)
