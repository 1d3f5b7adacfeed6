// plinth: the command-line tool. Subcommands register themselves (command.hpp); this file
// builds the parser, runs the chosen command and turns every error into one line on stderr.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

#include <CLI/CLI.hpp>

#include "command.hpp"

namespace plinth::cli {
namespace {

struct Entry {
  std::string name;
  std::string help;
  Setup setup;
  std::string parent;
};

std::vector<Entry>& registry() {
  static std::vector<Entry> entries;
  return entries;
}

}  // namespace

Command::Command(const char* name, const char* help, Setup setup, const char* parent) {
  registry().push_back(Entry{name, help, setup, parent ? parent : ""});
}

Context& Globals::context() {
  if (!context_) {
    context_.emplace(device);
    context_->set_debug_sync(debug_sync || context_->debug_sync());
  }
  return *context_;
}

Queue& Globals::queue() {
  if (!queue_) {
    queue_.emplace(context());
    queue_->set_timing(true);  // commands print their device time; `plinth calls` turns it off to compare
  }
  return *queue_;
}

void check_writable(const std::string& path, const Globals& globals) {
  std::error_code ec;
  if (!globals.force && std::filesystem::exists(path, ec)) {
    throw Error(ErrorCode::invalid_argument, "output", path, "exists; pass --force to overwrite it");
  }
}

void print_program_counts(std::ostream& out, const Context& context) {
  const ProgramCounts c = program_counts(context);
  out << "programs: " << c.disk_cache << " from the disk cache, " << c.store << " from the cubin store, " << c.compiled
      << " compiled";
  if (c.store_rejected > 0) out << " (" << c.store_rejected << " store entries rejected; last: " << c.last_rejection << ")";
  out << '\n';
}

bool has_extension(const std::string& path, std::string_view ext) {
  if (path.size() < ext.size()) return false;
  return std::equal(ext.begin(), ext.end(), path.end() - static_cast<std::ptrdiff_t>(ext.size()),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
}

namespace {

// A positive side of a size, within the library's largest image side; no sscanf, whose %d
// overflows on long numbers.
bool parse_side(std::string_view text, int& out) {
  if (text.empty() || text.size() > 9) return false;
  long value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value < 1 || value > max_image_dimension) return false;
  out = static_cast<int>(value);
  return true;
}

}  // namespace

Size parse_size(const std::string& text, const char* what) {
  const std::size_t x = text.find_first_of("xX");
  int w = 0, h = 0;
  const bool ok = x == std::string::npos ? parse_side(text, w) && parse_side(text, h)  // "5" means 5x5
                                         : parse_side(std::string_view(text).substr(0, x), w) &&
                                               parse_side(std::string_view(text).substr(x + 1), h);
  if (!ok) {
    throw Error(ErrorCode::invalid_argument, "", what,
                "'" + (text.size() > 32 ? text.substr(0, 32) + "..." : text) +
                    "' is not a size WxH (or N for NxN) with sides 1 to " + std::to_string(max_image_dimension));
  }
  return Size{w, h};
}

// CLI11 reports a command it does not know as "A subcommand is required"; this names it. Walks the
// arguments as the parser does: global options (--device takes a value) and then commands, down
// through parents such as `filter`. Empty when every command word is known.
std::string unknown_command(int argc, char** argv, CLI::App& app) {
  CLI::App* level = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--device") {
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    const std::vector<CLI::App*> subs = level->get_subcommands([](CLI::App*) { return true; });
    CLI::App* sub = nullptr;
    std::string names;
    for (CLI::App* s : subs) {
      if (s->check_name(std::string(arg))) sub = s;
      names += (names.empty() ? "" : ", ") + s->get_name();
    }
    if (sub == nullptr) {
      const std::string shown = arg.size() > 32 ? std::string(arg.substr(0, 32)) + "..." : std::string(arg);
      const std::string parent = level == &app ? "" : level->get_name() + " ";
      return "unknown command '" + parent + shown + "' (commands: " + names + ")";
    }
    if (sub->get_require_subcommand_min() == 0) return {};
    level = sub;
  }
  return {};
}

}  // namespace plinth::cli

int main(int argc, char** argv) {
  using namespace plinth::cli;
  CLI::App app{"plinth: integral images, filters and cascade detection on OpenCL devices"};
  app.require_subcommand(1);
  Globals globals;
  app.add_option("--device", globals.device,
                 "device: gpu, cpu, an index from `plinth devices`, platform:TEXT or a name substring "
                 "(default: $PLINTH_DEVICE, else the first GPU, else the CPU)");
  app.add_flag("--debug-sync", globals.debug_sync, "wait for and check every kernel launch");
  app.add_flag("-f,--force", globals.force, "overwrite existing output files");
  app.add_flag("--program-origins", globals.program_origins,
               "print on stderr where the command's kernel programs came from (disk cache, cubin store, compiled)");

  auto entries = registry();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::map<std::string, CLI::App*> commands;
  for (const auto& e : entries) {
    if (!e.parent.empty()) continue;
    CLI::App* sub = app.add_subcommand(e.name, e.help);
    commands[e.name] = sub;
    if (e.setup) {
      Args args(*sub);
      e.setup(args, globals);
    }
  }
  for (const auto& e : entries) {
    if (e.parent.empty()) continue;
    auto parent = commands.find(e.parent);
    if (parent == commands.end()) continue;
    CLI::App* sub = parent->second->add_subcommand(e.name, e.help);
    if (e.setup) {
      Args args(*sub);
      e.setup(args, globals);
    }
  }

  try {
    app.parse(argc, argv);
    if (globals.program_origins && globals.opened() != nullptr) print_program_counts(std::cerr, *globals.opened());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string unknown = unknown_command(argc, argv, app);
    std::cerr << "plinth: " << (unknown.empty() ? std::string(e.what()) : unknown) << " (see plinth --help)\n";
    return 2;
  } catch (const plinth::Error& e) {
    std::cerr << "plinth: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "plinth: internal error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
