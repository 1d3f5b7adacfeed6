#include "cli_video.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "cli_images.hpp"
#include "command.hpp"

namespace plinth::cli {
namespace {

namespace fs = std::filesystem;

std::string format_name(const HostImage& image) { return describe(image); }

}  // namespace

// ---- FrameSource ----

FrameSource::FrameSource(const std::vector<std::string>& inputs, const char* command) : command_(command) {
  if (inputs.empty()) throw Error(ErrorCode::invalid_argument, command, "inputs", "no input given");
  const bool any_video = std::any_of(inputs.begin(), inputs.end(), [](const std::string& s) { return is_video_file(s); });
  if (any_video) {
    if (inputs.size() != 1) {
      throw Error(ErrorCode::invalid_argument, command, "inputs", "a video must be the only input (give one video, or image files)");
    }
    std::error_code ec;
    if (!fs::exists(inputs[0], ec)) throw Error(ErrorCode::io, command, inputs[0], "no such file");
    video_ = std::make_unique<VideoReader>(inputs[0], VideoPixels::gray);
    current_ = inputs[0];
    return;
  }
  images_ = expand_inputs(inputs, command);
}

FrameSource::~FrameSource() = default;

std::int64_t FrameSource::expected_count() const {
  return video_ ? video_->info().frame_count : static_cast<std::int64_t>(images_.size());
}

double FrameSource::fps() const { return video_ ? video_->info().fps : 0.0; }

const std::string& FrameSource::file() const { return current_; }

bool FrameSource::next(HostImage& gray, HostImage* bgr) {
  if (video_) {
    const bool got = bgr != nullptr ? video_->read(*bgr, gray) : video_->read(gray);
    if (got) ++index_;
    return got;
  }
  const std::size_t i = static_cast<std::size_t>(index_ + 1);
  if (i >= images_.size()) return false;
  current_ = images_[i];
  const HostImage image = read_image(current_, ReadMode::unchanged);
  if (i == 0) {
    if (image.depth() != Depth::u8) {
      throw Error(ErrorCode::unsupported_type, command_, current_, "frames must be 8-bit images; this one is " + format_name(image));
    }
    size_ = image.size();
    format_ = image.format();
  } else if (image.size() != size_ || image.format() != format_) {
    throw Error(ErrorCode::invalid_argument, command_, current_,
                "is " + format_name(image) + " where the first frame (" + images_.front() + ") is " +
                    std::to_string(size_.width) + "x" + std::to_string(size_.height) + " " +
                    std::string(to_string(format_.depth)) + "C" + std::to_string(format_.channels) +
                    "; every frame must have the same size and type");
  }
  gray = image.channels() == 1 ? image : to_gray(image);
  if (bgr != nullptr) {
    *bgr = HostImage(image.width(), image.height(), Format{Depth::u8, 3});
    for (int y = 0; y < image.height(); ++y) {
      const std::uint8_t* in = image.row_as<std::uint8_t>(y);
      std::uint8_t* out = bgr->row_as<std::uint8_t>(y);
      for (int x = 0; x < image.width(); ++x, in += image.channels(), out += 3) {
        if (image.channels() >= 3) {
          out[0] = in[2], out[1] = in[1], out[2] = in[0];  // the file's RGB to BGR
        } else {
          out[0] = out[1] = out[2] = in[0];
        }
      }
    }
  }
  ++index_;
  return true;
}

// ---- FrameSink ----

FrameSink::FrameSink(std::string target, const char* command, const Globals& globals)
    : target_(std::move(target)), command_(command) {
  while (target_.size() > 1 && target_.back() == '/') target_.pop_back();
  to_video_ = is_video_file(target_);
  std::error_code ec;
  const fs::path parent = fs::path(target_).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw Error(ErrorCode::io, command, target_, "the folder it goes in, " + parent.string() + ", does not exist");
  }
  if (to_video_) {
    if (fs::is_directory(target_, ec)) throw Error(ErrorCode::invalid_argument, command, target_, "is a folder, not a video file");
    check_writable(target_, globals);
    if (!video_supported()) {
      throw Error(ErrorCode::unsupported_type, command, target_,
                  "video support was not built (FFmpeg was not found when plinth was configured); "
                  "give a folder name to write PNG frames instead");
    }
    return;
  }
  if (is_image_file(target_)) {
    throw Error(ErrorCode::invalid_argument, command, target_,
                "annotated frames go to a video file (.mp4, .avi, .mkv) or a folder for PNG frames, not one image");
  }
  if (fs::exists(target_, ec)) {
    if (!fs::is_directory(target_, ec)) throw Error(ErrorCode::invalid_argument, command, target_, "exists and is not a folder");
    check_writable(target_, globals);
    if (!fs::is_empty(target_, ec)) {
      throw Error(ErrorCode::invalid_argument, command, target_, "the folder for PNG frames must be new or empty");
    }
  }
}

FrameSink::~FrameSink() {
  if (closed_) return;
  writer_.reset();  // an unclosed VideoWriter removes its temporary file
  if (!folder_temp_.empty()) {
    std::error_code ec;
    fs::remove_all(folder_temp_, ec);
  }
}

void FrameSink::write(const HostImage& bgr, double fps) {
  if (to_video_) {
    if (!writer_) {
      VideoWriterOptions options;
      options.fps = fps > 0 ? fps : 25.0;
      writer_.emplace(target_, bgr.size(), options);
    }
    writer_->write(bgr);
    ++written_;
    return;
  }
  if (folder_temp_.empty()) {
    const fs::path path(target_);
    const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    // A fresh folder beside the target (mode 0777 less the umask, as the target should have).
    std::random_device entropy;
    for (int attempt = 0; attempt < 100 && folder_temp_.empty(); ++attempt) {
      std::string hidden = path.filename().string();
      hidden.insert(hidden.begin(), '.');
      hidden.append(".partial-" + std::to_string(::getpid()) + "-" + std::to_string(entropy() % 1000000));
      const std::string name = (parent / hidden).string();
      if (::mkdir(name.c_str(), 0777) == 0) {
        folder_temp_ = name;
      } else if (errno != EEXIST) {
        break;
      }
    }
    if (folder_temp_.empty()) {
      throw Error(ErrorCode::io, command_, target_, std::string("cannot create a folder beside it: ") + std::strerror(errno));
    }
  }
  char name[32];
  std::snprintf(name, sizeof name, "frame_%06lld.png", static_cast<long long>(written_));
  if (bgr.channels() == 1) {
    write_image((fs::path(folder_temp_) / name).string(), bgr);
    ++written_;
    return;
  }
  HostImage rgb(bgr.width(), bgr.height(), Format{Depth::u8, 3});
  for (int y = 0; y < bgr.height(); ++y) {
    const std::uint8_t* in = bgr.row_as<std::uint8_t>(y);
    std::uint8_t* out = rgb.row_as<std::uint8_t>(y);
    for (int x = 0; x < bgr.width(); ++x, in += 3, out += 3) out[0] = in[2], out[1] = in[1], out[2] = in[0];
  }
  write_image((fs::path(folder_temp_) / name).string(), rgb);
  ++written_;
}

void FrameSink::close() {
  if (closed_) return;
  if (written_ == 0) throw Error(ErrorCode::internal, command_, target_, "no frame was written");
  if (writer_) {
    writer_->close();
  } else {
    std::error_code ec;
    fs::rename(folder_temp_, target_, ec);  // onto a missing or empty folder
    if (ec) throw Error(ErrorCode::io, command_, target_, "cannot move the finished frames into place: " + ec.message());
    folder_temp_.clear();
  }
  closed_ = true;
}

// ---- Progress ----

Progress::Progress(std::int64_t total) : on_(::isatty(STDERR_FILENO) != 0), total_(total) {}

void Progress::update(std::int64_t done) {
  if (!on_) return;
  constexpr int width = 30;
  if (total_ > 0) {
    const int filled = static_cast<int>(width * std::min(done, total_) / total_);
    if (filled == shown_ && done != total_ && done % 16 != 0) return;
    shown_ = filled;
    std::fprintf(stderr, "\r[%s%s] %lld/%lld", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(), static_cast<long long>(done),
                 static_cast<long long>(total_));
  } else {
    std::fprintf(stderr, "\r%lld frames", static_cast<long long>(done));
  }
  std::fflush(stderr);
}

void Progress::finish() {
  if (on_) std::fputc('\n', stderr);
  on_ = false;
}

// ---- drawing ----

namespace {

void paint(HostImage& bgr, int x, int y, Bgr c) {
  if (x < 0 || y < 0 || x >= bgr.width() || y >= bgr.height()) return;
  std::uint8_t* p = &bgr.at<std::uint8_t>(x, y, 0);
  p[0] = c.b, p[1] = c.g, p[2] = c.r;
}

int nearest(float v) {
  if (!std::isfinite(v)) return -1 << 30;
  return static_cast<int>(std::lround(std::clamp(v, -1e6f, 1e6f)));
}

}  // namespace

void draw_rect(HostImage& bgr, const Rect& r, Bgr colour, int thickness) {
  for (int t = 0; t < thickness; ++t) {
    for (int x = r.x - t; x < r.x + r.width + t; ++x) {
      paint(bgr, x, r.y - t, colour);
      paint(bgr, x, r.y + r.height - 1 + t, colour);
    }
    for (int y = r.y - t; y < r.y + r.height + t; ++y) {
      paint(bgr, r.x - t, y, colour);
      paint(bgr, r.x + r.width - 1 + t, y, colour);
    }
  }
}

void draw_line(HostImage& bgr, Point2f from, Point2f to, Bgr colour) {
  int x0 = nearest(from.x), y0 = nearest(from.y);
  const int x1 = nearest(to.x), y1 = nearest(to.y);
  if (std::abs(x1 - x0) > 4 * (bgr.width() + bgr.height()) || std::abs(y1 - y0) > 4 * (bgr.width() + bgr.height())) return;
  const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
  const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  for (;;) {  // Bresenham
    paint(bgr, x0, y0, colour);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
}

void draw_dot(HostImage& bgr, Point2f at, int radius, Bgr colour) {
  const int cx = nearest(at.x), cy = nearest(at.y);
  for (int y = -radius; y <= radius; ++y) {
    for (int x = -radius; x <= radius; ++x) {
      if (x * x + y * y <= radius * radius + radius) paint(bgr, cx + x, cy + y, colour);
    }
  }
}

// ---- JSON ----

std::string json_number(double value, int digits) {
  if (!std::isfinite(value)) return "null";
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace plinth::cli
