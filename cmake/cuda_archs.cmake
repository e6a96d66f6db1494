# The CUDA architectures of a build, as the text zkpipe carries in the
# library (ZP_CUDA_ARCHS: `zkpipe version` prints it, zp__gpu_open checks a
# device against it): the SASS architectures, then "+PTX" and the PTX ones,
# e.g. "80 86 89 90 100 120 +PTX 120".
#
# zp_cuda_archs_text(OUT) reads CMAKE_CUDA_ARCHITECTURES (after
# enable_language(CUDA)) as nvcc is given it: "NN-real" is SASS only,
# "NN-virtual" PTX only, a bare "NN" both; "all", "all-major" and "native"
# are expanded from CMake's own lists (SASS for each, with the highest as
# PTX for the first two, as CMake documents them).
function(zp_cuda_archs_text out)
  set(archs ${CMAKE_CUDA_ARCHITECTURES})
  if(archs STREQUAL "all" OR archs STREQUAL "all-major")
    if(archs STREQUAL "all")
      set(list ${CMAKE_CUDA_ARCHITECTURES_ALL})
    else()
      set(list ${CMAKE_CUDA_ARCHITECTURES_ALL_MAJOR})
    endif()
    set(archs "")
    foreach(a ${list})
      list(APPEND archs ${a}-real)
    endforeach()
    list(GET list -1 top)
    list(APPEND archs ${top}-virtual)
  elseif(archs STREQUAL "native")
    set(archs ${CMAKE_CUDA_ARCHITECTURES_NATIVE})
  endif()
  set(sass "")
  set(ptx "")
  foreach(a ${archs})
    if(a MATCHES "^([0-9]+[a-z]?)-real$")
      list(APPEND sass ${CMAKE_MATCH_1})
    elseif(a MATCHES "^([0-9]+[a-z]?)-virtual$")
      list(APPEND ptx ${CMAKE_MATCH_1})
    elseif(a MATCHES "^([0-9]+[a-z]?)$")
      list(APPEND sass ${CMAKE_MATCH_1})
      list(APPEND ptx ${CMAKE_MATCH_1})
    else()
      message(FATAL_ERROR "zkpipe: CMAKE_CUDA_ARCHITECTURES entry '${a}' is not NN, NN-real "
                          "or NN-virtual (NN e.g. 86 or 90a)")
    endif()
  endforeach()
  list(JOIN sass " " text)
  if(ptx)
    list(JOIN ptx " " ptx_text)
    string(STRIP "${text} +PTX ${ptx_text}" text)
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
