// The C API conventions: status strings, version, compiled backends.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "fly/fly.h"

extern "C" int fly_test_c99_version(void);
extern "C" const char* fly_test_c99_status(void);

TEST(CApi, EveryStatusHasItsOwnName) {
  const fly_status_t all[] = {FLY_STATUS_SUCCESS,          FLY_STATUS_INVALID_ARGUMENT,
                              FLY_STATUS_NOT_SUPPORTED,     FLY_STATUS_INSUFFICIENT_WORKSPACE,
                              FLY_STATUS_DEVICE_ERROR,      FLY_STATUS_INTERNAL_ERROR};
  std::set<std::string> names;
  for (fly_status_t s : all) {
    std::string name = fly_status_string(s);
    EXPECT_EQ(name.rfind("FLY_STATUS_", 0), 0u) << name;
    EXPECT_NE(name, "FLY_STATUS_UNKNOWN");
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size(all));
  EXPECT_STREQ(fly_status_string(FLY_STATUS_INVALID_ARGUMENT), "FLY_STATUS_INVALID_ARGUMENT");
  const int unknown = 7;  // inside the enum's value range, named by no status
  EXPECT_STREQ(fly_status_string(static_cast<fly_status_t>(unknown)), "FLY_STATUS_UNKNOWN");
}

TEST(CApi, VersionMatchesHeader) {
  EXPECT_EQ(fly_version(), FLY_VERSION);
  EXPECT_EQ(fly_test_c99_version(), FLY_VERSION);
  EXPECT_EQ(FLY_VERSION, FLY_VERSION_MAJOR * 10000 + FLY_VERSION_MINOR * 100 + FLY_VERSION_PATCH);
}

TEST(CApi, HeaderCompilesAsC99) { EXPECT_STREQ(fly_test_c99_status(), "FLY_STATUS_NOT_SUPPORTED"); }

TEST(CApi, HostBackendIsAlwaysCompiled) {
  EXPECT_TRUE(fly_compiled_backends() & FLY_BACKEND_HOST);
  EXPECT_EQ(fly_compiled_backends() & ~unsigned(FLY_BACKEND_HOST | FLY_BACKEND_CUDA | FLY_BACKEND_HIP), 0u);
}

TEST(CApi, LastErrorStartsEmpty) { EXPECT_STREQ(fly_last_error(), ""); }
