// The marker walk behind check_jpeg_huffman_tables. It reaches every segment stb_image would
// process, found the way stb finds them: a segment's length skips its payload; otherwise bytes are
// passed over up to the next 0xFF, whose following byte (after 0xFF fill bytes) is the marker. In
// entropy-coded data 0xFF 0x00 is a stuffed byte and 0xFF 0xD0-0xD7 a restart, both without a
// segment. Where the file is not well formed the walk goes on scanning rather than stopping, so
// it looks at a superset of what stb would; it stops at EOI, where stb stops too.
#include "io/jpeg_check.hpp"

#include "plinth/error.hpp"

namespace plinth::detail {
namespace {

constexpr int kMaxCodes = 256;  // stb's tables hold 256 values (a valid table has at most 162)

class Bytes {
 public:
  explicit Bytes(std::FILE* file) : file_(file) {}
  int next() { return std::getc(file_); }
  // stb reads a missing byte as 0.
  int next_or_zero() {
    const int c = next();
    return c == EOF ? 0 : c;
  }
  bool skip(long count) { return count <= 0 || std::fseek(file_, count, SEEK_CUR) == 0; }

 private:
  std::FILE* file_;
};

// A DHT segment's tables, read as stb reads them: each has a class/id byte, 16 counts and as many
// values as the counts add up to, until the declared length is used up.
void check_dht(Bytes& in, long length, const std::string& path) {
  long left = length - 2;
  while (left > 0) {
    if (in.next() == EOF) return;
    int codes = 0;
    for (int i = 0; i < 16; ++i) codes += in.next_or_zero();
    if (codes > kMaxCodes) {
      throw Error(ErrorCode::format, "read_image", path,
                  "corrupt JPEG: a Huffman table declares " + std::to_string(codes) + " codes (at most " +
                      std::to_string(kMaxCodes) + ")");
    }
    if (!in.skip(codes)) return;
    left -= 17 + codes;
  }
}

}  // namespace

void check_jpeg_huffman_tables(std::FILE* file, const std::string& path) {
  std::fseek(file, 0, SEEK_SET);
  Bytes in(file);
  const bool jpeg = in.next() == 0xFF && in.next() == 0xD8;
  for (int c = jpeg ? in.next() : EOF; c != EOF; c = in.next()) {
    if (c != 0xFF) continue;
    do c = in.next();
    while (c == 0xFF);
    if (c == EOF || c == 0xD9) break;                                   // end of file / EOI
    if (c == 0x00 || c == 0x01 || (c >= 0xD0 && c <= 0xD8)) continue;  // stuffing, TEM, RSTn, SOI
    const int hi = in.next(), lo = in.next();
    if (lo == EOF) break;
    const long length = hi << 8 | lo;
    if (c == 0xC4) {
      check_dht(in, length, path);
    } else if (!in.skip(length - 2)) {
      break;
    }
  }
  std::clearerr(file);
  std::fseek(file, 0, SEEK_SET);
}

}  // namespace plinth::detail
