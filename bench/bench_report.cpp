// The benchmark's table and JSON. The JSON schema is described in bench/README.md; the merge
// tool (bench/merge_results.py) reads it back and prints the same table for several runs.
#include "bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <tuple>

#include <nlohmann/json.hpp>

namespace plinth::bench {
namespace {

std::string size_text(Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

bool is_npp(const CaseResult& r) { return r.variant.rfind("npp", 0) == 0; }

double gpx_per_s(const CaseResult& r) {
  return static_cast<double>(r.size.width) * r.size.height / (r.stats.median * 1e3);
}
double gb_per_s(const CaseResult& r) { return r.bytes / (r.stats.median * 1e3); }

// The NPP case this one is compared with: same op and size, its config or compare_config.
const CaseResult* npp_partner(const Report& report, const CaseResult& r) {
  if (is_npp(r) || !r.error.empty()) return nullptr;
  const std::string& config = r.compare_config.empty() ? r.config : r.compare_config;
  for (const CaseResult& p : report.cases) {
    if (is_npp(p) && p.error.empty() && p.op == r.op && p.size == r.size && p.config == config) return &p;
  }
  return nullptr;
}

// Results grouped by op, then size, then config, each in order of first appearance (sizes are
// run in the order given; a batch's stacked size follows its image size); plinth's variants
// before the peers' within a group.
std::vector<const CaseResult*> ordered(const Report& report) {
  std::map<std::string, std::size_t> op_rank, size_rank, config_rank;
  auto size_key = [](const CaseResult& r) { return r.op + '\n' + size_text(r.size); };
  auto config_key = [](const CaseResult& r) { return r.op + '\n' + r.config; };
  for (const CaseResult& r : report.cases) {
    op_rank.emplace(r.op, op_rank.size());
    size_rank.emplace(size_key(r), size_rank.size());
    config_rank.emplace(config_key(r), config_rank.size());
  }
  auto rank = [&](const CaseResult* r) {
    return std::make_tuple(op_rank[r->op], size_rank[size_key(*r)], config_rank[config_key(*r)], r->peer);
  };
  std::vector<const CaseResult*> rows;
  for (const CaseResult& r : report.cases) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [&](const CaseResult* a, const CaseResult* b) { return rank(a) < rank(b); });
  return rows;
}

std::string megabytes(double bytes) { return bytes < 1e6 ? format("%.1f kB", bytes / 1e3) : format("%.1f MB", bytes / 1e6); }

}  // namespace

Stats summarize(std::vector<double> times) {
  Stats s;
  if (times.empty()) return s;
  std::sort(times.begin(), times.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(times.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, times.size() - 1);
    return times[lo] + (times[hi] - times[lo]) * (pos - static_cast<double>(lo));
  };
  s.runs = static_cast<int>(times.size());
  s.median = at(0.5);
  s.p10 = at(0.1);
  s.p90 = at(0.9);
  s.min = times.front();
  s.max = times.back();
  double sum = 0;
  for (double t : times) sum += t;
  s.mean = sum / static_cast<double>(times.size());
  return s;
}

void write_table(const Report& report, std::ostream& out) {
  const DeviceInfo& d = report.device;
  out << "\nplinth bench  " << report.date << "  " << d.name << " [" << d.platform << ", driver " << d.driver_version << "]\n";
  out << "warm-up " << report.options.warmup << ", median of " << report.options.runs
      << " runs timed by device events (a multi-kernel method from its first launch's start to its last one's end), inputs rotated over";
  for (std::size_t i = 0; i < report.input_sets.size(); ++i) {
    out << (i ? "," : "") << " " << report.input_sets[i] << " (" << size_text(report.options.sizes[i]) << ")";
  }
  out << " sets\n";
  const double copy_gbps = report.copy_before.gb_per_s();
  if (report.copy_before.error.empty()) {
    out << "device copy of " << megabytes(report.copy_before.bytes) << " (read + write counted): " << format("%.1f", copy_gbps)
        << " GB/s before the cases, ";
    if (report.copy_after.error.empty()) out << format("%.1f", report.copy_after.gb_per_s()) << " GB/s after\n";
    else out << "failed after: " << report.copy_after.error << '\n';
  } else {
    out << "device copy failed: " << report.copy_before.error << '\n';
  }
  if (report.floor.error.empty()) {
    out << "command floor (a 1x1 u8 -> s32 conversion, one work-item): " << format("%.2f", report.floor.stats.median)
        << " us median, " << format("%.2f", report.floor.stats.min) << " min\n";
  } else {
    out << "command floor failed: " << report.floor.error << '\n';
  }
  if (report.filler_us_per_step > 0) {
    out << "each timed plinth run follows a keep_busy filler (" << format("%.4f", report.filler_us_per_step)
        << " us a step here): twice the host's enqueue time of a run plus 20 us, so its events hold device time only\n";
  } else {
    out << "no filler before the runs" << (report.filler_error.empty() ? " (--no-filler)" : ": " + report.filler_error)
        << ": a run the device finishes before the host has enqueued it includes the host's launch latency\n";
  }
  out << "peers built in: " << report.peers_built << '\n';

  std::vector<std::string> notes;
  auto note_index = [&](const std::string& note) {
    auto it = std::find(notes.begin(), notes.end(), note);
    if (it == notes.end()) {
      notes.push_back(note);
      return notes.size();
    }
    return static_cast<std::size_t>(it - notes.begin()) + 1;
  };

  std::string group;
  // A group whose variants include separate calls named "part: ..." (frame_pipeline) ends with the
  // sum of the parts' medians and every variant's runs per second (frames/s).
  std::vector<const CaseResult*> members;
  const auto close_group = [&] {
    double parts = 0;
    bool any_part = false;
    for (const CaseResult* m : members) {
      if (m->variant.rfind("part: ", 0) != 0) continue;
      any_part = true;
      if (!m->error.empty() || parts < 0) parts = -1;
      else parts += m->stats.median;
    }
    if (any_part) {
      out << "  frames/s:";
      for (const CaseResult* m : members) {
        if (m->error.empty() && m->stats.median > 0) out << "  " << m->variant << " " << format("%.0f", 1e6 / m->stats.median);
      }
      if (parts > 0) out << "\n  sum of the parts: " << format("%.2f", parts) << " us, " << format("%.0f", 1e6 / parts) << " frames/s";
      for (const CaseResult* m : members) {
        if (parts > 0 && m->error.empty() && m->stats.median > 0 && m->variant.rfind("part: ", 0) != 0) {
          out << "; its time over " << m->variant << "'s " << format("%.2fx", parts / m->stats.median);
        }
      }
      out << '\n';
    }
    members.clear();
  };
  for (const CaseResult* r : ordered(report)) {
    const std::string key = r->op + '\n' + size_text(r->size) + '\n' + r->config;
    if (key != group) {
      close_group();
      group = key;
      out << '\n' << r->op << "  " << (r->config.empty() ? "-" : r->config) << "  " << size_text(r->size);
      if (r->bytes > 0) out << "  (" << megabytes(r->bytes) << " moved per run)";
      if (!r->compare_config.empty()) out << "  vs NPP's '" << r->compare_config << "'";
      out << '\n';
      char header[160];
      std::snprintf(header, sizeof header, "  %-22s %11s %10s %10s %10s %9s %9s %7s %8s\n", "variant", "median us", "min us",
                    "p10 us", "p90 us", "Gpx/s", "GB/s", "copy", "vs NPP");
      out << header;
    }
    members.push_back(r);
    std::string variant = r->variant;
    if (!r->note.empty()) variant += " [" + std::to_string(note_index(r->note)) + "]";
    char line[256];
    if (!r->error.empty()) {
      std::snprintf(line, sizeof line, "  %-22s ERROR: ", variant.c_str());
      out << line << r->error << '\n';
      continue;
    }
    const double gbps = gb_per_s(*r);
    const CaseResult* npp = npp_partner(report, *r);
    const std::string copy = copy_gbps > 0 && r->bytes > 0 ? format("%.1f%%", 100 * gbps / copy_gbps) : "-";
    const std::string vs = npp ? format("%.2fx", npp->stats.median / r->stats.median) : "";
    std::snprintf(line, sizeof line, "  %-22s %11.2f %10.2f %10.2f %10.2f %9.3f %9.1f %7s %8s\n", variant.c_str(), r->stats.median,
                  r->stats.min, r->stats.p10, r->stats.p90, gpx_per_s(*r), r->bytes > 0 ? gbps : 0.0, copy.c_str(), vs.c_str());
    out << line;
  }
  close_group();
  if (!notes.empty()) {
    out << '\n';
    for (std::size_t i = 0; i < notes.size(); ++i) out << "[" << i + 1 << "] " << notes[i] << '\n';
  }
  out << "\nGpx/s: pixels per second; GB/s: the bytes a run must move (inputs read once, outputs written once) per "
         "second; copy: that rate as a fraction of the device copy; vs NPP: NPP's median over this one's.\n";
}

void write_json(const Report& report, std::ostream& out) {
  using Json = nlohmann::ordered_json;
  const DeviceInfo& d = report.device;
  auto stats_json = [](const Stats& s) {
    return Json{{"runs", s.runs}, {"median_us", s.median}, {"min_us", s.min}, {"p10_us", s.p10},
                {"p90_us", s.p90},  {"max_us", s.max},       {"mean_us", s.mean}};
  };
  auto copy_json = [&](const CopyResult& c) {
    Json j{{"bytes", c.bytes}, {"gb_per_s", c.gb_per_s()}, {"stats", stats_json(c.stats)}};
    if (!c.error.empty()) j["error"] = c.error;
    return j;
  };
  Json doc;
  doc["schema"] = "plinth-bench/1";
  doc["tool"] = "plinth";
  doc["date"] = report.date;
  doc["command"] = report.command;
  doc["device"] = Json{{"name", d.name},
                       {"vendor", d.vendor},
                       {"platform", d.platform},
                       {"platform_version", d.platform_version},
                       {"driver_version", d.driver_version},
                       {"device_version", d.device_version},
                       {"type", std::string(to_string(d.type))},
                       {"compute_units", d.compute_units},
                       {"clock_mhz", d.clock_mhz},
                       {"global_memory", d.global_memory}};
  Json sizes = Json::array();
  for (std::size_t i = 0; i < report.options.sizes.size(); ++i) {
    sizes.push_back(Json{{"width", report.options.sizes[i].width},
                         {"height", report.options.sizes[i].height},
                         {"input_sets", i < report.input_sets.size() ? report.input_sets[i] : 0}});
  }
  doc["settings"] = Json{{"warmup", report.options.warmup},
                         {"runs", report.options.runs},
                         {"max_case_seconds", report.options.max_case_seconds},
                         {"sizes", sizes},
                         {"timing", "device events; median of the timed runs; inputs rotated over the input sets"},
                         {"filler", report.filler_us_per_step > 0
                                        ? Json{{"kernel", "keep_busy"}, {"us_per_step", report.filler_us_per_step}}
                                        : Json{{"none", report.filler_error.empty() ? "--no-filler" : report.filler_error}}}};
  doc["peers_built"] = report.peers_built;
  doc["copy"] = Json{{"before", copy_json(report.copy_before)}, {"after", copy_json(report.copy_after)}};
  doc["command_floor"] = report.floor.error.empty()
                             ? Json{{"what", "1x1 u8 -> s32 conversion"}, {"stats", stats_json(report.floor.stats)}}
                             : Json{{"what", "1x1 u8 -> s32 conversion"}, {"error", report.floor.error}};
  const double copy_gbps = report.copy_before.gb_per_s();
  Json cases = Json::array();
  for (const CaseResult& r : report.cases) {
    Json c{{"op", r.op}, {"variant", r.variant}, {"config", r.config}, {"width", r.size.width}, {"height", r.size.height},
           {"bytes", r.bytes}};
    if (r.ops > 0) c["ops"] = r.ops;
    if (!r.compare_config.empty()) c["compare_config"] = r.compare_config;
    c["timing"] = r.peer ? "peer_events" : "device_events";
    if (!r.note.empty()) c["note"] = r.note;
    if (!r.error.empty()) {
      c["error"] = r.error;
    } else {
      c["stats"] = stats_json(r.stats);
      c["gpx_per_s"] = gpx_per_s(r);
      c["gb_per_s"] = gb_per_s(r);
      if (r.ops > 0) c["gops_per_s"] = r.ops / (r.stats.median * 1e3);
      if (copy_gbps > 0 && r.bytes > 0) c["copy_fraction"] = gb_per_s(r) / copy_gbps;
      if (const CaseResult* npp = npp_partner(report, r)) c["speedup_vs_npp"] = npp->stats.median / r.stats.median;
      if (r.filler_us > 0) c["filler"] = Json{{"us", r.filler_us}, {"host_enqueue_us", r.host_enqueue_us}};
      c["times_us"] = r.times_us;
    }
    cases.push_back(std::move(c));
  }
  doc["cases"] = std::move(cases);
  out << doc.dump(1) << '\n';
}

}  // namespace plinth::bench
