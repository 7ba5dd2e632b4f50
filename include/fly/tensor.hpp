// Tensors: layouts over memory or registers.
#pragma once

#include "fly/layout.hpp"
#include "fly/tensor/tensor.hpp"
