# cmake --install: the zkpipe program, libzkpipe (archive and shared
# library), its header, zkpipe.pc, the docs and the systemd unit, in the
# GNU places under the prefix. The internal libraries (zkpipe_tool,
# zkpipe_client, zkpipe_bench, zkpipe_server) are linked into the program
# and are not installed.
include(GNUInstallDirs)

install(TARGETS zkpipe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS zkpipe_static zkpipe_shared
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/zkpipe.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
file(GLOB zp_docs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${zp_docs} ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# What a static link of libzkpipe.a needs after it (pkg-config --static):
# pthreads and libm, and with CUDA the static runtime its CUDA objects call
# and the C++, dl and rt libraries that runtime needs. The shared library
# carries the CUDA runtime inside and needs none of these from its users.
set(ZP_PC_LIBS_PRIVATE "-lpthread -lm")
if(ZP_HAVE_CUDA)
  get_filename_component(zp_cudart_dir "${CUDA_cudart_static_LIBRARY}" DIRECTORY)
  string(APPEND ZP_PC_LIBS_PRIVATE " -L${zp_cudart_dir} -lcudart_static -lstdc++ -ldl -lrt")
endif()

# A file that names the prefix it is installed under, which `cmake
# --install --prefix` may change after configuring, is configured twice:
# here with @CMAKE_INSTALL_PREFIX@ left in, and at install time with the
# prefix of that install.
set(ZP_PREFIX "@CMAKE_INSTALL_PREFIX@")
foreach(d BINDIR LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(ZP_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(ZP_${d} "${ZP_PREFIX}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
string(REPLACE "${ZP_PREFIX}" "\${prefix}" ZP_PC_LIBDIR "${ZP_LIBDIR}")
string(REPLACE "${ZP_PREFIX}" "\${prefix}" ZP_PC_INCLUDEDIR "${ZP_INCLUDEDIR}")
function(zp_install_configured in out dest)
  set(f ${CMAKE_BINARY_DIR}/packaging/${out})
  configure_file(${CMAKE_SOURCE_DIR}/packaging/${in} ${f}.in @ONLY)
  install(CODE "configure_file(\"${f}.in\" \"${f}\" @ONLY)")
  install(FILES ${f} DESTINATION ${dest})
endfunction()
zp_install_configured(zkpipe.pc.in zkpipe.pc ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The daemon as a systemd service, and the user it runs as, when the
# program has the daemon. lib/, not ${CMAKE_INSTALL_LIBDIR}: systemd looks
# in <prefix>/lib only.
if(TARGET zkpipe_server)
  zp_install_configured(zkpipe.service.in zkpipe.service lib/systemd/system)
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/zkpipe.sysusers DESTINATION lib/sysusers.d
          RENAME zkpipe.conf)
endif()
# The daemon's default config file, everything commented out: in /etc under
# the prefix /usr (the path `zkpipe serve` reads without --config), else in
# <prefix>/etc. An existing file is the administrator's and is kept.
if(TARGET zkpipe_server)
  set(zp_conf_src ${CMAKE_SOURCE_DIR}/packaging/zkpipe.conf)
  install(CODE "
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(zp_etc /etc/zkpipe)
    else()
      set(zp_etc \"\${CMAKE_INSTALL_PREFIX}/etc/zkpipe\")
    endif()
    if(EXISTS \"\$ENV{DESTDIR}\${zp_etc}/zkpipe.conf\")
      message(STATUS \"Kept: \$ENV{DESTDIR}\${zp_etc}/zkpipe.conf\")
    else()
      file(INSTALL DESTINATION \"\${zp_etc}\" TYPE FILE FILES \"${zp_conf_src}\")
    endif()")
endif()
