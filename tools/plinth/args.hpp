#pragma once
// What a command declares of its arguments, in CLI11's names, behind a narrow interface: CLI11 is
// header-only and costs every file that includes it 11 s of compile (20 s under the sanitizers),
// so only args.cpp and main.cpp include it.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace plinth::cli {

// One declared option or positional argument.
class Option {
 public:
  explicit Option(CLI::Option* option) : option_(option) {}
  Option& required();
  Option& capture_default_str();  // --help shows the default
  Option& positive_number();      // a number above zero

 private:
  CLI::Option* option_;
};

// A command (or subcommand): its options, flags, subcommands and what it runs.
class Args {
 public:
  explicit Args(CLI::App& app) : app_(&app) {}
  // `names`: "input" for a positional argument, "-k,--ksize" for an option.
  Option add_option(const std::string& names, std::string& value, const std::string& help);
  Option add_option(const std::string& names, std::vector<std::string>& value, const std::string& help);
  Option add_option(const std::string& names, int& value, const std::string& help);
  Option add_option(const std::string& names, std::int64_t& value, const std::string& help);
  Option add_option(const std::string& names, std::uint64_t& value, const std::string& help);
  Option add_option(const std::string& names, float& value, const std::string& help);
  Option add_option(const std::string& names, double& value, const std::string& help);
  Option add_flag(const std::string& names, bool& value, const std::string& help);
  Args add_subcommand(const std::string& name, const std::string& help);
  void require_subcommand(int count);
  void callback(std::function<void()> run);

 private:
  CLI::App* app_;
};

}  // namespace plinth::cli
