#pragma once
// Everything plinth offers, in one include.

#include "plinth/arithm.hpp"
#include "plinth/array.hpp"
#include "plinth/cascade.hpp"
#include "plinth/color.hpp"
#include "plinth/core.hpp"
#include "plinth/error.hpp"
#include "plinth/filters.hpp"
#include "plinth/image.hpp"
#include "plinth/integral.hpp"
#include "plinth/io.hpp"
#include "plinth/nv12.hpp"
#include "plinth/pyramid.hpp"
#include "plinth/resize.hpp"
#include "plinth/sort.hpp"
#include "plinth/types.hpp"
#include "plinth/video.hpp"
