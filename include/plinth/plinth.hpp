#pragma once
// Everything plinth offers, in one include.

#include "plinth/core.hpp"
#include "plinth/error.hpp"
#include "plinth/image.hpp"
#include "plinth/integral.hpp"
#include "plinth/types.hpp"
#include "plinth/io.hpp"
#include "plinth/filters.hpp"
#include "plinth/pyramid.hpp"
