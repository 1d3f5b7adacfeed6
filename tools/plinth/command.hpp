#pragma once
// The CLI's command registry: each tools/plinth/<name>_cmd.cpp registers its subcommand with a
// static Command object, so adding a command touches no other file. A command may name a
// parent ("filter") to become `plinth filter NAME ...`.

#include <memory>
#include <optional>
#include <string>

#include "args.hpp"
#include "plinth/plinth.hpp"

namespace plinth::cli {

// Options every command shares, and the device they select (opened on first use).
class Globals {
 public:
  std::string device;      // --device / PLINTH_DEVICE
  bool debug_sync = false;  // --debug-sync
  bool force = false;       // --force: overwrite existing output files

  Context& context();
  Queue& queue();
  // The context if a command opened one, else nullptr.
  const Context* opened() const { return context_ ? &*context_ : nullptr; }
  bool program_origins = false;  // --program-origins

 private:
  std::optional<Context> context_;
  std::optional<Queue> queue_;
};

using Setup = void (*)(Args& command, Globals& globals);

struct Command {
  Command(const char* name, const char* help, Setup setup, const char* parent = nullptr);
};

// Throws Error(invalid_argument) if `path` exists and --force was not given.
void check_writable(const std::string& path, const Globals& globals);
// Whether path ends in ext (".npy"), ignoring case.
bool has_extension(const std::string& path, std::string_view ext);
// One line: how many programs came from the disk cache, the cubin store, or were compiled
// (and why the last rejected store entry was rejected, if any was).
void print_program_counts(std::ostream& out, const Context& context);
// Parses "WxH" (e.g. "1920x1080"); throws Error(invalid_argument) otherwise.
Size parse_size(const std::string& text, const char* what);

}  // namespace plinth::cli
