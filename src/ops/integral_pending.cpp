// TEMPORARY during bring-up.
#include "ops/integral_plan.hpp"
#include "plinth/error.hpp"
namespace plinth::detail {
#define PENDING(name) Event name(Queue&, const IntegralPlan&) { throw Error(ErrorCode::internal, "integral", #name, "pending"); }
PENDING(launch_integral_block_4x4)
PENDING(launch_integral_blelloch)
PENDING(launch_integral_blocked_scan)
PENDING(launch_integral_tilted)
}
