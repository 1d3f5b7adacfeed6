// plinth: the command-line tool. Subcommands register themselves (command.hpp); this file
// builds the parser, runs the chosen command and turns every error into one line on stderr.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

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
  if (!queue_) queue_.emplace(context());
  return *queue_;
}

void check_writable(const std::string& path, const Globals& globals) {
  std::error_code ec;
  if (!globals.force && std::filesystem::exists(path, ec)) {
    throw Error(ErrorCode::invalid_argument, "output", path, "exists; pass --force to overwrite it");
  }
}

bool has_extension(const std::string& path, std::string_view ext) {
  if (path.size() < ext.size()) return false;
  return std::equal(ext.begin(), ext.end(), path.end() - static_cast<std::ptrdiff_t>(ext.size()),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
}

Size parse_size(const std::string& text, const char* what) {
  int w = 0, h = 0;
  char x = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c", &w, &extra) == 1 && w > 0) return Size{w, w};  // "5" means 5x5
  if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || w <= 0 || h <= 0) {
    throw Error(ErrorCode::invalid_argument, "", what, "'" + text + "' is not a size WxH (or N for NxN) with positive sides");
  }
  return Size{w, h};
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

  auto entries = registry();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::map<std::string, CLI::App*> commands;
  for (const auto& e : entries) {
    if (!e.parent.empty()) continue;
    CLI::App* sub = app.add_subcommand(e.name, e.help);
    commands[e.name] = sub;
    if (e.setup) e.setup(*sub, globals);
  }
  for (const auto& e : entries) {
    if (e.parent.empty()) continue;
    auto parent = commands.find(e.parent);
    if (parent == commands.end()) continue;
    CLI::App* sub = parent->second->add_subcommand(e.name, e.help);
    if (e.setup) e.setup(*sub, globals);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "plinth: " << e.what() << " (see plinth --help)\n";
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
