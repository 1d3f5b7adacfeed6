// plinth filter NAME IN OUT [options]: the parent of the filter subcommands, which register
// themselves with parent "filter" (tools/plinth/command.hpp).
#include "command.hpp"

namespace plinth::cli {
namespace {

void setup(Args& command, Globals&) {
  command.require_subcommand(1);
}

const Command registration("filter", "apply a filter to an image file: plinth filter NAME IN OUT [options]", setup);

}  // namespace
}  // namespace plinth::cli
