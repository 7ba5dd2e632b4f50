// Programmatic dependent launch, shared by every op on CUDA. A kernel launched with the attribute
// may be scheduled while the kernel before it on the stream is still running (once that one's
// blocks have all executed griddepcontrol.launch_dependents or exited), so its launch latency and
// whatever it does before griddepcontrol.wait overlap the predecessor's tail. Such a kernel must
// wait (griddepcontrol.wait) before it reads anything the predecessor may have written: every
// kernel fly launches this way does.
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

namespace fly::dispatch {

// An on/off switch read from the environment: on unless set to "0" (default_on) or on only when
// set to "1" (!default_on). For measuring what a launch option gives; callers read it once.
inline bool env_switch(const char* name, bool default_on) {
  const char* v = std::getenv(name);
  if (v == nullptr) return default_on;
  return default_on ? std::strcmp(v, "0") != 0 : std::strcmp(v, "1") == 0;
}

// A cluster of blocks along x and y (1 x 1: no cluster attribute).
struct ClusterShape {
  unsigned x = 1, y = 1;
};

// The cluster-dimension attribute of `cluster` (also what an occupancy query of clusters reads).
inline cudaLaunchAttribute cluster_attribute(ClusterShape cluster) {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = cluster.x;
  a.val.clusterDim.y = cluster.y;
  a.val.clusterDim.z = 1;
  return a;
}

// config's attributes, kept in `attrs` (room for two): the programmatic launch where `programmatic`
// (each op's switch), then the cluster dimension where `cluster` has more than one block.
inline void set_launch_attributes(cudaLaunchConfig_t& config, cudaLaunchAttribute (&attrs)[2], bool programmatic,
                                  ClusterShape cluster = {}) {
  config.numAttrs = 0;
  if (programmatic) {
    cudaLaunchAttribute& a = attrs[config.numAttrs++];
    a = cudaLaunchAttribute{};
    a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a.val.programmaticStreamSerializationAllowed = 1;
  }
  if (cluster.x * cluster.y > 1) attrs[config.numAttrs++] = cluster_attribute(cluster);
  config.attrs = attrs;
}

}  // namespace fly::dispatch
