# add_tile_kernel(): compile a .tile file with tilec at build time.
#
#   add_tile_kernel(<name> SOURCE <file.tile>
#                   [TARGET sm_80|sm_90|gfx90a|gfx940|gfx942]   (default sm_90)
#                   [KERNEL <prim_func name>]
#                   [DEFINES NAME=VALUE ...]
#                   [OPTIONS <extra tilec flags> ...])
#
# Expects the target tilec::tilec (an in-tree alias or the imported executable
# from tilecConfig.cmake) and tilec::runtime, and the project to have enabled
# CUDA (sm_*) or HIP (gfx*) itself. When it has not, the error says what to do;
# for HIP it first checks (check_language) whether CMake can enable HIP with
# this toolchain at all and, where it cannot, says what is missing: with
# Debian's ROCm packages, CMake releases that look for hip-lang-config.cmake
# only under <ROCm root>/lib/cmake (3.25, Debian 12's) do not find it in the
# multiarch directory /usr/lib/<arch>/cmake/hip-lang where Debian installs it.
#
# Runs `tilec <file> --emit=cuda|hip --target=<arch> -o <dir>/<name>.cu|.hip`
# in <build dir>/<name>.tilec/; tilec writes <name>.h and <name>.json next to
# the kernel source. The rule reruns when the .tile file or tilec changes.
#
# Creates the static library target <name> holding the generated kernel; its
# users get <dir> (for "<name>.h") and the runtime header on their include path.
# The generated .json describes the kernel (parameters, launch shape) and its
# path is stored in the target property TILEC_KERNEL_JSON.

function(tilec_kernel_language out_lang out_emit out_ext arch)
  if(arch MATCHES "^gfx")
    set(${out_lang} HIP PARENT_SCOPE)
    set(${out_emit} hip PARENT_SCOPE)
    set(${out_ext} hip PARENT_SCOPE)
  elseif(arch MATCHES "^sm_[0-9]+$")
    set(${out_lang} CUDA PARENT_SCOPE)
    set(${out_emit} cuda PARENT_SCOPE)
    set(${out_ext} cu PARENT_SCOPE)
  else()
    message(FATAL_ERROR "add_tile_kernel: unknown TARGET '${arch}' (expected sm_NN or gfxNNN)")
  endif()
endfunction()

# The CUDA_ARCHITECTURES value for tilec target ARCH. Hopper code uses
# wgmma/TMA, which exist only in the arch-specific sm_90a.
function(tilec_cuda_architecture out arch)
  string(REGEX REPLACE "^sm_" "" number "${arch}")
  if(number STREQUAL "90")
    set(number 90a)
  endif()
  set(${out} "${number}" PARENT_SCOPE)
endfunction()

# Why the project cannot compile HIP yet: a hint to enable it where CMake can,
# otherwise what keeps CMake from enabling it.
function(tilec_hip_language_problem out name)
  include(CheckLanguage)
  check_language(HIP)
  if(CMAKE_HIP_COMPILER)
    string(CONCAT why "call enable_language(HIP) or add HIP to project(... LANGUAGES) "
      "first (CMake found the HIP compiler ${CMAKE_HIP_COMPILER})")
    set(${out} "${why}" PARENT_SCOPE)
    return()
  endif()
  set(debian "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/hip-lang/hip-lang-config.cmake")
  if(CMAKE_LIBRARY_ARCHITECTURE AND EXISTS "${debian}"
      AND NOT EXISTS "/usr/lib/cmake/hip-lang/hip-lang-config.cmake")
    string(CONCAT why "CMake ${CMAKE_VERSION} cannot enable HIP with this ROCm: it "
      "looks for hip-lang-config.cmake under <ROCm root>/lib/cmake/hip-lang "
      "(/usr/lib/cmake/hip-lang), but Debian's ROCm packages install it in the "
      "multiarch directory (${debian}). A CMake release that also searches there "
      "(CMAKE_HIP_COMPILER_ROCM_LIB) can build the kernel; this one can once it is "
      "pointed at Debian's layout (CMAKE_HIP_COMPILER_ROCM_ROOT and the other "
      "settings tilec's docs/targets.md, \"CMake\", lists), or compile "
      "${name}.hip with hipcc outside CMake (tilec --target=gfx... -o ${name}.hip, "
      "then hipcc --offload-arch=gfx... -c ${name}.hip)")
    set(${out} "${why}" PARENT_SCOPE)
    return()
  endif()
  string(CONCAT why "CMake cannot enable HIP here: check_language(HIP) found no "
    "working HIP compiler (set CMAKE_HIP_COMPILER to ROCm's clang++; "
    "${CMAKE_BINARY_DIR}/CMakeFiles/CMakeError.log says why)")
  set(${out} "${why}" PARENT_SCOPE)
endfunction()

function(add_tile_kernel name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;TARGET;KERNEL" "DEFINES;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_tile_kernel(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "add_tile_kernel(${name}): SOURCE <file.tile> is required")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET sm_90)
  endif()
  tilec_kernel_language(lang emit ext "${ARG_TARGET}")
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT lang IN_LIST languages AND lang STREQUAL "HIP")
    tilec_hip_language_problem(why "${name}")
    message(FATAL_ERROR "add_tile_kernel(${name}): TARGET ${ARG_TARGET} needs HIP; ${why}")
  endif()
  if(NOT lang IN_LIST languages)
    message(FATAL_ERROR "add_tile_kernel(${name}): TARGET ${ARG_TARGET} needs ${lang}; "
      "call enable_language(${lang}) or add ${lang} to project(... LANGUAGES) first")
  endif()

  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.tilec")
  set(kernel "${dir}/${name}.${ext}")
  set(outputs "${kernel}" "${dir}/${name}.h" "${dir}/${name}.json")
  set(flags --emit=${emit} --target=${ARG_TARGET})
  if(ARG_KERNEL)
    list(APPEND flags --kernel ${ARG_KERNEL})
  endif()
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND flags -D ${define})
  endforeach()

  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND tilec::tilec "${source}" ${flags} ${ARG_OPTIONS} -o "${kernel}"
    DEPENDS "${source}" tilec::tilec
    COMMENT "tilec ${ARG_SOURCE} -> ${name}.${ext} (${ARG_TARGET})"
    VERBATIM)

  add_library(${name} STATIC "${kernel}")
  set_source_files_properties("${kernel}" PROPERTIES LANGUAGE ${lang})
  if(lang STREQUAL "CUDA")
    tilec_cuda_architecture(cuda_arch "${ARG_TARGET}")
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${cuda_arch}")
  else()
    # tilec compiles gfx942 as gfx940 (docs/targets.md), which the ROCm 5.2
    # compilers know.
    string(REPLACE "gfx942" "gfx940" hip_arch "${ARG_TARGET}")
    set_target_properties(${name} PROPERTIES HIP_ARCHITECTURES "${hip_arch}")
    # The header includes HIP's host API header, which needs the platform
    # macro that only the HIP compiler defines for its own sources.
    target_compile_definitions(${name} INTERFACE __HIP_PLATFORM_AMD__)
  endif()
  set_target_properties(${name} PROPERTIES TILEC_KERNEL_JSON "${dir}/${name}.json")
  target_include_directories(${name} PUBLIC "${dir}")
  target_link_libraries(${name} PUBLIC tilec::runtime)
endfunction()
