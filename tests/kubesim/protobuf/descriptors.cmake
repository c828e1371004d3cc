# Kubernetes' protobuf descriptors for kube-sim (protobuf/descriptor_set.h), taken at build time
# from the kubectl binary the machine has (DGD_KUBECTL; -DDGD_KUBECTL=OFF builds without).
# Without kubectl the embedded set is empty and kube-sim answers protobuf bodies 415.
find_package(Protobuf REQUIRED)
find_package(ZLIB REQUIRED)
target_link_libraries(kubesim_lib PUBLIC protobuf::libprotobuf)

find_program(DGD_KUBECTL kubectl DOC "the kubectl binary whose Kubernetes protobuf descriptors kube-sim embeds")
set(KUBESIM_PROTO_DESCRIPTORS ${CMAKE_CURRENT_BINARY_DIR}/kubernetes_descriptors.pb)
if(DGD_KUBECTL)
  add_executable(kube-proto-descriptors ${CMAKE_CURRENT_SOURCE_DIR}/protobuf/extract_descriptors.cpp)
  target_link_libraries(kube-proto-descriptors PRIVATE protobuf::libprotobuf ZLIB::ZLIB)
  add_custom_command(OUTPUT ${KUBESIM_PROTO_DESCRIPTORS}
                     COMMAND kube-proto-descriptors ${DGD_KUBECTL} ${KUBESIM_PROTO_DESCRIPTORS}
                     DEPENDS kube-proto-descriptors ${DGD_KUBECTL}
                     COMMENT "Kubernetes protobuf descriptors from ${DGD_KUBECTL}" VERBATIM)
else()
  message(STATUS "kube-sim: no kubectl (DGD_KUBECTL); protobuf request bodies will be answered 415")
  file(WRITE ${KUBESIM_PROTO_DESCRIPTORS} "")
endif()
add_custom_target(kubesim_proto_descriptors DEPENDS ${KUBESIM_PROTO_DESCRIPTORS})
add_dependencies(kubesim_lib kubesim_proto_descriptors)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/protobuf/descriptor_blob.cpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/proto_descriptor_blob.cpp @ONLY)
set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/proto_descriptor_blob.cpp
                            PROPERTIES OBJECT_DEPENDS ${KUBESIM_PROTO_DESCRIPTORS})
target_sources(kubesim_lib PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/proto_descriptor_blob.cpp)
