# Makes tilec a single file that runs on any glibc machine.
#
# Debian's LLVMSupport target pulls shared libz, libtinfo and libz3 into every
# link. tilec is copied to GPU machines that have none of them, so this module
# swaps each shared dependency of LLVMSupport for its static archive where one
# exists and drops libz3 (only the SMT solver code uses it and tilec never
# references it). --as-needed keeps any remaining unused shared library out of
# the binary's DT_NEEDED list. test/Driver/static-link.test checks the result.

# Returns the static archive next to shared library PATH, or "" if none.
function(tilec_static_sibling out path)
  get_filename_component(dir "${path}" DIRECTORY)
  get_filename_component(name "${path}" NAME_WE)
  if(EXISTS "${dir}/${name}.a")
    set(${out} "${dir}/${name}.a" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# Maps one INTERFACE_LINK_LIBRARIES entry of LLVMSupport to what tilec links.
function(tilec_static_dep out item)
  set(path "${item}")
  if(TARGET "${item}")
    get_target_property(type "${item}" TYPE)
    foreach(prop IMPORTED_LOCATION IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NOCONFIG)
      get_target_property(path "${item}" ${prop})
      if(path)
        break()
      endif()
    endforeach()
    if(NOT type STREQUAL "UNKNOWN_LIBRARY" AND NOT type STREQUAL "SHARED_LIBRARY")
      set(${out} "${item}" PARENT_SCOPE)
      return()
    endif()
  endif()
  if(NOT path MATCHES "\\.so(\\.[0-9]+)*$")
    set(${out} "${item}" PARENT_SCOPE)
    return()
  endif()
  if(path MATCHES "/libz3\\.so")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  tilec_static_sibling(archive "${path}")
  if(archive)
    set(${out} "${archive}" PARENT_SCOPE)
  else()
    message(WARNING "tilec: no static archive for ${path}; the binary will need it at run time")
    set(${out} "${item}" PARENT_SCOPE)
  endif()
endfunction()

get_target_property(tilec_llvm_deps LLVMSupport INTERFACE_LINK_LIBRARIES)
set(tilec_static_deps)
foreach(dep IN LISTS tilec_llvm_deps)
  tilec_static_dep(mapped "${dep}")
  list(APPEND tilec_static_deps ${mapped})
endforeach()
set_target_properties(LLVMSupport PROPERTIES INTERFACE_LINK_LIBRARIES "${tilec_static_deps}")
target_link_options(tilec_llvm INTERFACE -Wl,--as-needed)
