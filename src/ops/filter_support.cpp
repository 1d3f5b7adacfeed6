#include "ops/filter_support.hpp"

#include <algorithm>

#include "core/image_checks.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {

void check_border(BorderMode mode, std::initializer_list<BorderMode> allowed, std::string_view op) {
  if (std::find(allowed.begin(), allowed.end(), mode) != allowed.end()) return;
  std::string list;
  for (BorderMode m : allowed) {
    if (!list.empty()) list += ", ";
    list += to_string(m);
  }
  throw Error(ErrorCode::invalid_argument, std::string(op), "border",
              std::string(to_string(mode)) + " is not supported here (OpenCV accepts " + list + ")");
}

void check_ksize(Size ksize, int limit, std::string_view op, std::string_view arg) {
  if (ksize.width < 1 || ksize.height < 1 || ksize.width > limit || ksize.height > limit) {
    throw Error(ErrorCode::out_of_range, std::string(op), std::string(arg),
                size_text(ksize) + " (each side must be 1 to " + std::to_string(limit) + ")");
  }
}

Anchor resolve_anchor(Anchor anchor, Size ksize, std::string_view op) {
  Anchor a = anchor;
  if (a.x == -1) a.x = ksize.width / 2;
  if (a.y == -1) a.y = ksize.height / 2;
  if (a.x < 0 || a.x >= ksize.width || a.y < 0 || a.y >= ksize.height) {
    throw Error(ErrorCode::out_of_range, std::string(op), "anchor",
                "(" + std::to_string(anchor.x) + ", " + std::to_string(anchor.y) + ") lies outside the " +
                    size_text(ksize) + " kernel (use -1 for the centre)");
  }
  return a;
}

void prepare_output(Queue& queue, const DeviceImage& src, DeviceImage& dst, Format format, std::string_view op) {
  if (dst.empty()) {
    dst = DeviceImage(queue.context(), src.width(), src.height(), format);
    return;
  }
  check_device(queue, dst, op, "dst");
  if (dst.size() != src.size() || dst.format() != format) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "dst",
                "is " + size_text(dst.size()) + " " + std::string(to_string(dst.depth())) + "C" +
                    std::to_string(dst.channels()) + " but must be " + size_text(src.size()) + " " +
                    std::string(to_string(format.depth)) + "C" + std::to_string(format.channels));
  }
  check_no_overlap(src, dst, op, "dst");
}

void check_fp64(const Queue& queue, Depth depth, std::string_view op, std::string_view arg) {
  if (depth == Depth::f64 && !queue.context().device().has_fp64) {
    throw Error(ErrorCode::unsupported_type, std::string(op), std::string(arg),
                "f64 needs double precision, which the device lacks (cl_khr_fp64)");
  }
}

thread_local int ScopedTiledRows::forced_ = 0;

int balanced_rows_per_item(std::size_t strips, int height, int kh, std::size_t resident, int max_rows) {
  int best = max_rows;
  if (resident == 0) return best;
  double best_cost = 0.0;
  for (int rows = max_rows; rows >= 2; --rows) {
    const std::size_t tile_h = 8 * static_cast<std::size_t>(rows);
    const std::size_t groups = strips * ((static_cast<std::size_t>(height) + tile_h - 1) / tile_h);
    const double waves = static_cast<double>((groups + resident - 1) / resident);
    const double cost = waves * (rows + 0.75 * (kh - 1));
    if (rows == max_rows || cost < best_cost) {
      best = rows;
      best_cost = cost;
    }
  }
  return best;
}

int tiled_rows_for_launch(const Queue& queue, int rows, int max_rows, std::size_t strips, int height, int kh,
                          std::size_t group, const std::function<std::shared_ptr<Program>(int)>& program_for,
                          std::string_view kernel) {
  if (ScopedTiledRows::forced() > 0) return std::min(ScopedTiledRows::forced(), max_rows);
  const auto resident = [&](int r) { return program_for(r)->kernel(kernel)->resident_groups_per_unit(group); };
  int per_unit = resident(rows);
  if (per_unit <= 0) return rows;
  const std::size_t units = std::max<unsigned>(queue.context().device().compute_units, 1);
  // The rows change the registers a little (15x15 u8: 48 at 8 rows, 40 at 5-7): ask the chosen
  // kernel again, at most twice, so that at most three programs are built for a first call.
  for (int round = 0; round < 2; ++round) {
    const int best = balanced_rows_per_item(strips, height, kh, units * static_cast<std::size_t>(per_unit), max_rows);
    if (best == rows) break;
    rows = best;
    per_unit = resident(rows);
    if (per_unit <= 0) break;
  }
  return rows;
}

std::size_t local_budget(const Queue& queue) {
  const std::uint64_t device = queue.context().device().local_memory;
  return static_cast<std::size_t>(std::min<std::uint64_t>(device, 48 * 1024));
}

int work_group_size(const Queue& queue, int cap) {
  const std::size_t limit = std::max<std::size_t>(queue.context().device().max_work_group_size, 1);
  int size = 1;
  while (size * 2 <= cap && static_cast<std::size_t>(size * 2) <= limit) size *= 2;
  return size;
}

std::string size_text(Size size) { return std::to_string(size.width) + "x" + std::to_string(size.height); }

}  // namespace plinth::detail
