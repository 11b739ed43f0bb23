// SPDX-License-Identifier: MIT
// Umbrella header: everything a program needs to use the window filters.
// Compiles on its own: g++ -std=c++17 -Iinclude (xxHash's header is used inline).
#pragma once

#include "tlbf/apbf.hpp"
#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/exact.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/gebf.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/params.hpp"
#include "tlbf/registry.hpp"
#include "tlbf/serialize.hpp"
#include "tlbf/slice_view.hpp"
#include "tlbf/time_limited.hpp"
#include "tlbf/types.hpp"
#include "tlbf/visit.hpp"
