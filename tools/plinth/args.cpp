// The commands' view of CLI11 (tools/plinth/args.hpp).
#include "args.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <utility>

namespace plinth::cli {

Option& Option::required() {
  option_->required();
  return *this;
}

Option& Option::capture_default_str() {
  option_->capture_default_str();
  return *this;
}

// CLI::PositiveNumber's own message prints its range with DBL_MAX written out in full.
Option& Option::positive_number() {
  option_->check(CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && value > 0) return {};  // NaN fails too
        return "'" + (text.size() > 32 ? text.substr(0, 32) + "..." : text) + "' is not a number above zero";
      },
      "POSITIVE"));
  return *this;
}

Option Args::add_option(const std::string& names, std::string& value, const std::string& help) {
  return Option(app_->add_option(names, value, help));
}
Option Args::add_option(const std::string& names, std::vector<std::string>& value, const std::string& help) {
  return Option(app_->add_option(names, value, help));
}
Option Args::add_option(const std::string& names, int& value, const std::string& help) {
  return Option(app_->add_option(names, value, help));
}
Option Args::add_option(const std::string& names, std::int64_t& value, const std::string& help) {
  return Option(app_->add_option(names, value, help));
}
Option Args::add_option(const std::string& names, std::uint64_t& value, const std::string& help) {
  return Option(app_->add_option(names, value, help));
}
Option Args::add_option(const std::string& names, float& value, const std::string& help) {
  return Option(app_->add_option(names, value, help));
}
Option Args::add_option(const std::string& names, double& value, const std::string& help) {
  return Option(app_->add_option(names, value, help));
}

Option Args::add_flag(const std::string& names, bool& value, const std::string& help) {
  return Option(app_->add_flag(names, value, help));
}

Args Args::add_subcommand(const std::string& name, const std::string& help) {
  return Args(*app_->add_subcommand(name, help));
}

void Args::require_subcommand(int count) { app_->require_subcommand(count); }

void Args::callback(std::function<void()> run) { app_->callback(std::move(run)); }

}  // namespace plinth::cli
