// One dialect for real: every kernel file reaches OpenCL C's work-item functions, barriers and
// atomics only through kernels/common/dialect.h's macros, calls only the OpenCL built-ins that
// the CUDA side maps (kernels/common/cuda_builtins.h), writes no OpenCL vector literal (C++
// would read (int4)(a, b, c, d) as a cast of a comma expression) and declares local memory
// with LOCAL_MEM (LOCAL alone qualifies pointers: on CUDA it is empty), and tests none of OpenCL
// C's predefined macros (NVRTC defines none of them).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/kernel_source.hpp"

namespace {

using plinth::detail::embedded_kernel_files;

bool is_dialect_file(std::string_view path) {
  return path == "common/dialect.h" || path == "common/dialect_cuda.h" || path == "common/cuda_builtins.h" ||
         path == "programs.list";
}

// The text without comments, string literals and preprocessor lines' line continuations kept.
std::string code_of(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
      out += ' ';
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (text[i] == '"') {
      ++i;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      out += "\"\"";
    } else {
      out += text[i];
    }
  }
  return out;
}

// OpenCL C 1.2's built-in functions (6.12), by name.
const std::set<std::string>& opencl_builtins() {
  static const std::set<std::string> names = {
      // math
      "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh", "atanpi", "atan2pi", "cbrt",
      "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs", "fdim",
      "floor", "fma", "fmax", "fmin", "fmod", "fract", "frexp", "hypot", "ilogb", "ldexp", "lgamma", "lgamma_r", "log",
      "log2", "log10", "log1p", "logb", "mad", "maxmag", "minmag", "modf", "nan", "nextafter", "pow", "pown", "powr",
      "remainder", "remquo", "rint", "rootn", "round", "rsqrt", "sin", "sincos", "sinh", "sinpi", "sqrt", "tan",
      "tanh", "tanpi", "tgamma", "trunc",
      // integer
      "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clamp", "clz", "mad_hi", "mad_sat", "max", "min", "mul_hi",
      "rotate", "sub_sat", "upsample", "popcount", "mad24", "mul24",
      // common, geometric
      "degrees", "mix", "radians", "step", "smoothstep", "sign", "cross", "dot", "distance", "length", "normalize",
      "fast_distance", "fast_length", "fast_normalize",
      // relational
      "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater", "isfinite",
      "isinf", "isnan", "isnormal", "isordered", "isunordered", "signbit", "any", "all", "bitselect", "select",
      // async copies, prefetch, misc
      "async_work_group_copy", "async_work_group_strided_copy", "wait_group_events", "prefetch", "shuffle",
      "shuffle2", "printf", "vec_step"};
  return names;
}

// Names only the dialect may use: work-item functions, barriers, fences, atomics, qualifiers.
bool is_raw(const std::string& name) {
  static const std::set<std::string> raw = {
      "get_global_id", "get_local_id", "get_group_id", "get_local_size", "get_num_groups", "get_global_size",
      "get_global_offset", "get_work_dim", "barrier", "mem_fence", "read_mem_fence", "write_mem_fence",
      "__kernel", "__global", "__local", "__constant", "__private", "__attribute__", "restrict"};
  return raw.count(name) > 0 || name.rfind("atomic_", 0) == 0 || name.rfind("atom_", 0) == 0;
}

// OpenCL C's predefined macros, which NVRTC does not define: a kernel that tests one silently
// takes its other branch on CUDA (the vector loads of three filters did, 1.3-1.6x slower there).
bool is_opencl_macro(const std::string& name) {
  static const std::set<std::string> macros = {"__ENDIAN_LITTLE__", "__OPENCL_VERSION__", "__OPENCL_C_VERSION__",
                                               "__IMAGE_SUPPORT__", "__FAST_RELAXED_MATH__", "__EMBEDDED_PROFILE__",
                                               "__kernel_exec"};
  return macros.count(name) > 0 || name.rfind("CL_VERSION_", 0) == 0;
}

bool is_family(const std::string& name) {
  static const std::regex family(R"((convert_|as_)(u?char|u?short|u?int|u?long|float|double|half)(2|3|4|8|16)?(_sat)?(_rt[enpz])?|v(load|store)(a?_half)?(2|3|4|8|16)?(_rt[enpz])?)");
  return std::regex_match(name, family);
}

// What cuda_builtins.h maps: its function-like macros.
std::set<std::string> mapped_names() {
  std::set<std::string> names;
  for (const auto& f : embedded_kernel_files()) {
    if (f.path != "common/cuda_builtins.h") continue;
    static const std::regex define(R"(#define (\w+)\()");
    const std::string text(f.text);
    for (std::sregex_iterator it(text.begin(), text.end(), define), end; it != end; ++it) names.insert((*it)[1].str());
  }
  return names;
}

int line_of(const std::string& code, std::size_t at) {
  return 1 + static_cast<int>(std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// Every problem of one file's text, as "file:line: message".
std::vector<std::string> problems(std::string_view path, std::string_view text, const std::set<std::string>& mapped) {
  std::vector<std::string> found;
  const std::string code = code_of(text);
  auto report = [&](std::size_t at, const std::string& message) {
    found.push_back(std::string(path) + ":" + std::to_string(line_of(code, at)) + ": " + message);
  };
  static const std::regex call(R"(\b([A-Za-z_]\w*)\s*\()");
  static const std::regex word(R"(\b([A-Za-z_]\w*)\b)");
  for (std::sregex_iterator it(code.begin(), code.end(), word), end; it != end; ++it) {
    const std::string name = (*it)[1].str();
    if (is_raw(name)) report(static_cast<std::size_t>(it->position()), "'" + name + "' belongs to the dialect (kernels/common/dialect.h)");
    if (is_opencl_macro(name)) {
      report(static_cast<std::size_t>(it->position()),
             "OpenCL's predefined '" + name + "' is undefined on CUDA: use the dialect's (e.g. PLINTH_LITTLE_ENDIAN)");
    }
  }
  for (std::sregex_iterator it(code.begin(), code.end(), call), end; it != end; ++it) {
    const std::string name = (*it)[1].str();
    if ((opencl_builtins().count(name) > 0 || is_family(name)) && mapped.count(name) == 0) {
      report(static_cast<std::size_t>(it->position()),
             "OpenCL built-in '" + name + "' has no CUDA mapping (scripts/gen_cuda_builtins.py)");
    }
  }
  // A vector type by name or by macro (SUM_T4, CAT(T, 4)): any parenthesised name ending in a
  // vector size, cast onto a parenthesised expression.
  static const std::regex literal(R"(\(\s*(\w*(2|3|4|8|16)|CAT\(\w+, *(2|3|4|8|16)\))\s*\)\s*\()");
  for (std::sregex_iterator it(code.begin(), code.end(), literal), end; it != end; ++it) {
    report(static_cast<std::size_t>(it->position()), "vector literal: use VEC2/VEC3/VEC4 or SPLAT");
  }
  static const std::regex local_decl(R"(\b(LOCAL|CONSTANT)\s+(const\s+)?\w+\s+\w+\s*[\[;=])");
  for (std::sregex_iterator it(code.begin(), code.end(), local_decl), end; it != end; ++it) {
    report(static_cast<std::size_t>(it->position()),
           "a variable declared with " + (*it)[1].str() + ": use " + (*it)[1].str() + "_MEM (" + (*it)[1].str() +
               " alone qualifies pointers)");
  }
  // A kernel's local-memory argument must be a LOCAL_PARAM: on CUDA the host passes an offset
  // into the launch's dynamic shared memory, which a plain LOCAL pointer would take as an address.
  static const std::regex kernel_head(R"(\bKERNEL\b[^{;]*?\bvoid\s+\w+\s*\()");
  static const std::regex local_pointer(R"(\bLOCAL\s)");
  for (std::sregex_iterator it(code.begin(), code.end(), kernel_head), end; it != end; ++it) {
    std::size_t at = static_cast<std::size_t>(it->position() + it->length());
    const std::size_t begin = at;
    for (int depth = 1; at < code.size() && depth > 0; ++at) depth += code[at] == '(' ? 1 : code[at] == ')' ? -1 : 0;
    const std::string params = code.substr(begin, at - begin);
    std::smatch m;
    if (std::regex_search(params, m, local_pointer)) {
      report(begin + static_cast<std::size_t>(m.position()), "a kernel's local-memory argument: use LOCAL_PARAM(T, name)");
    }
  }
  return found;
}

TEST(Dialect, KernelsUseOnlyMappedBuiltins) {
  const std::set<std::string> mapped = mapped_names();
  ASSERT_GT(mapped.size(), 100u) << "common/cuda_builtins.h is missing or empty";
  int files = 0;
  for (const auto& f : embedded_kernel_files()) {
    if (is_dialect_file(f.path)) continue;
    ++files;
    for (const std::string& p : problems(f.path, f.text, mapped)) ADD_FAILURE() << p;
  }
  EXPECT_GT(files, 10);
}

// The check itself finds each kind of problem.
TEST(Dialect, CheckFindsUnmappedAndRawNames) {
  const std::set<std::string> mapped = mapped_names();
  const auto count = [&](const char* text) { return problems("probe.cl", text, mapped).size(); };
  EXPECT_EQ(count("int x = GLOBAL_ID(0); float y = fma(a, b, c); uchar4 v = convert_uchar4_sat(w);"), 0u);
  EXPECT_EQ(count("int x = get_global_id(0);"), 1u);
  EXPECT_EQ(count("atomic_inc(p);"), 1u);
  EXPECT_EQ(count("barrier(CLK_LOCAL_MEM_FENCE);"), 1u);
  EXPECT_EQ(count("float y = tgamma(x);"), 1u);
  EXPECT_EQ(count("half4 h = vload_half4(0, p);"), 1u);
  EXPECT_EQ(count("int4 v = (int4)(1, 2, 3, 4);"), 1u);
  EXPECT_EQ(count("v = (SUM_T4)(a, b, c, d); w = (CAT(T, 4))(x);"), 2u);
  EXPECT_EQ(count("LOCAL uint tile[64];"), 1u);
  EXPECT_EQ(count("LOCAL_MEM uint tile[64]; LOCAL const uint* p = tile;"), 0u);
  EXPECT_EQ(count("/* get_global_id(0) in a comment */ int a = 1;"), 0u);
  EXPECT_EQ(count("KERNEL REQD_GROUP_SIZE(32, 1, 1) void k(int n, LOCAL short* tile) {}"), 1u);
  EXPECT_EQ(count("KERNEL void k(int n, LOCAL_PARAM(short, tile)) { LOCAL short* p = tile; }"), 0u);
  EXPECT_EQ(count("#if VEC && defined(__ENDIAN_LITTLE__)\n#endif"), 1u);
  EXPECT_EQ(count("#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0\n#endif"), 2u);
  EXPECT_EQ(count("#if VEC && PLINTH_LITTLE_ENDIAN\n#endif"), 0u);
}

}  // namespace
