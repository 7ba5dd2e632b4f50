// Tiled MMA and copy: atoms repeated over threads and tiles, CuTe's API.
#pragma once

#include "fly/tensor.hpp"
#include "fly/tiled/copy.hpp"
#include "fly/tiled/tiled_copy.hpp"
#include "fly/tiled/tiled_mma.hpp"
