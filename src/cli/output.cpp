// Output of labelled matrices as text, CSV and JSON, shared by every subcommand.
#include "output.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "args.hpp"
#include "model_load.hpp"

namespace geolin::cli {

Format parse_format(const Args &args, const std::vector<Format> &allowed) {
  const std::string name = args.get("--format", "text");
  static const std::pair<Format, const char *> kNames[] = {
      {Format::Text, "text"}, {Format::Json, "json"}, {Format::Csv, "csv"}};
  // The formats of this command only, in the usage's order: "text or json", "text, json or csv".
  std::string offered;
  for (std::size_t k = 0; k < allowed.size(); ++k) {
    for (const auto &[f, n] : kNames) {
      if (f != allowed[k]) continue;
      offered += k == 0 ? "" : (k + 1 == allowed.size() ? " or " : ", ");
      offered += n;
    }
  }
  for (const auto &[f, n] : kNames) {
    if (name != n) continue;
    if (std::find(allowed.begin(), allowed.end(), f) == allowed.end()) {
      throw UsageError(
          fmt::format("--format {} is not available for this command ({})", name, offered));
    }
    return f;
  }
  throw UsageError(fmt::format("--format: unknown format '{}' ({})", name, offered));
}

std::string format_number(double x, int precision) {
  if (x == 0.0) return "0";
  return fmt::format("{:.{}e}", x, std::max(0, precision - 1));
}

std::string csv_field(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string> &fields) {
  std::string line;
  for (std::size_t j = 0; j < fields.size(); ++j)
    line += (j == 0 ? "" : ",") + csv_field(fields[j]);
  return line;
}

namespace {
// The Error(Io) of an output file that cannot be written.
[[noreturn]] void throw_write_error(const std::string &option, const std::string &path,
                                    const char *reason) {
  throw Error(Status::Io, fmt::format("{}: cannot write the file '{}': {}", option, path, reason));
}
}  // namespace

OutputFile::OutputFile(std::string option, std::string path)
    : option_(std::move(option)), path_(std::move(path)) {
  // Only a file this run creates may be removed again (never /dev/null or a user's file).
  struct stat info;
  created_ = stat(path_.c_str(), &info) != 0 && errno == ENOENT;
  errno = 0;
  file_ = std::fopen(path_.c_str(), "wb");
  if (file_ == nullptr) {
    const int err = errno;
    throw_write_error(option_, path_, err != 0 ? std::strerror(err) : "fopen failed");
  }
}

OutputFile::~OutputFile() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  if (!written_ && created_) std::remove(path_.c_str());
}

void OutputFile::write(const std::string &text) {
  if (file_ == nullptr) throw Error(Status::Internal, "OutputFile::write after close");
  written_ = true;
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    throw_write_error(option_, path_, std::strerror(errno));
  }
}

void OutputFile::close() {
  if (file_ == nullptr) return;
  std::FILE *f = file_;
  file_ = nullptr;
  errno = 0;
  const bool failed = std::ferror(f) != 0;
  if (std::fclose(f) != 0 || failed) {
    const int err = errno;
    throw_write_error(option_, path_, err != 0 ? std::strerror(err) : "write error");
  }
}

Progress::Progress(bool wanted) : enabled_(wanted && isatty(fileno(stderr)) != 0) {}

Progress::~Progress() {
  clear();
}

void Progress::show(const std::string &text) {
  if (!enabled_) return;
  fmt::print(stderr, "\r{:<{}}", text, width_);
  width_ = std::max(width_, text.size());
  std::fflush(stderr);
}

void Progress::percent(const std::string &label, long done, long total) {
  if (!enabled_ || total <= 0) return;
  const int p = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
  if (p == last_percent_) return;
  last_percent_ = p;
  show(fmt::format("{}: {}%", label, p));
}

void Progress::clear() {
  last_percent_ = -1;
  if (!enabled_ || width_ == 0) return;
  fmt::print(stderr, "\r{:<{}}\r", "", width_);
  std::fflush(stderr);
  width_ = 0;
}

std::string wrap_text(const std::string &text, std::size_t width) {
  std::string out, line, word;
  std::istringstream words(text);
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

namespace {
// Label k of a matrix's rows or columns ("" past the end).
const std::string &label_at(const std::vector<std::string> &labels, int k) {
  static const std::string kNone;
  return k < static_cast<int>(labels.size()) ? labels[k] : kNone;
}

// Columns first..last-1 of a matrix in text: the column labels, then one line per row.
void print_column_chunk(const NamedMatrix &m, int first, int last, std::size_t label_width,
                        const std::vector<int> &col_width, int precision) {
  std::string line = fmt::format("  {:<{}}", "", label_width);
  for (int j = first; j < last; ++j)
    line += fmt::format("{:>{}}", label_at(m.col_labels, j), col_width[j]);
  fmt::print("{}\n", line);
  for (int i = 0; i < m.value.rows(); ++i) {
    line = fmt::format("  {:<{}}", label_at(m.row_labels, i), label_width);
    for (int j = first; j < last; ++j) {
      line += fmt::format("{:>{}}", format_number(m.value(i, j), precision), col_width[j]);
    }
    fmt::print("{}\n", line);
  }
}
}  // namespace

void print_matrix_text(const NamedMatrix &m, int precision, int width) {
  const int rows = static_cast<int>(m.value.rows()), cols = static_cast<int>(m.value.cols());
  fmt::print("{} ({} x {}){}{}\n", m.name, rows, cols, m.title.empty() ? "" : ": ", m.title);
  if (rows == 0 || cols == 0) {
    fmt::print("  (empty)\n\n");
    return;
  }
  std::size_t label_width = 0;
  for (const auto &l : m.row_labels) label_width = std::max(label_width, l.size());
  const int number_width = precision + 7;  // "-1.234e+00"
  std::vector<int> col_width(cols);
  for (int j = 0; j < cols; ++j) {
    col_width[j] = std::max(number_width, static_cast<int>(label_at(m.col_labels, j).size())) + 2;
  }
  int first = 0;
  while (first < cols) {
    // As many columns as fit in `width` (at least one).
    int last = first, used = static_cast<int>(label_width) + 2;
    while (last < cols && (last == first || used + col_width[last] <= width)) {
      used += col_width[last];
      ++last;
    }
    if (first > 0 || last < cols) fmt::print("  columns {}..{}\n", first, last - 1);
    print_column_chunk(m, first, last, label_width, col_width, precision);
    first = last;
  }
  fmt::print("\n");
}

void print_matrix_csv(const NamedMatrix &m) {
  std::vector<std::string> header = {""};  // the top-left cell is empty
  for (int j = 0; j < m.value.cols(); ++j) header.push_back(label_at(m.col_labels, j));
  fmt::print("{}\n", csv_line(header));
  for (int i = 0; i < m.value.rows(); ++i) {
    std::string line = csv_field(label_at(m.row_labels, i));
    for (int j = 0; j < m.value.cols(); ++j) line += fmt::format(",{:.17g}", m.value(i, j));
    fmt::print("{}\n", line);
  }
}

void print_matrices_csv(const std::vector<NamedMatrix> &matrices) {
  if (matrices.size() == 1) {
    print_matrix_csv(matrices[0]);
    return;
  }
  bool first = true;
  for (const auto &m : matrices) {
    if (!first) fmt::print("\n");
    first = false;
    fmt::print("# {} ({} x {})\n", m.name, m.value.rows(), m.value.cols());
    print_matrix_csv(m);
  }
}

std::vector<NamedMatrix> select_matrices(std::vector<NamedMatrix> matrices, const Args &args) {
  if (!args.has("--only")) return matrices;
  std::vector<NamedMatrix> out;
  std::stringstream list(args.get("--only"));
  std::string name;
  while (std::getline(list, name, ',')) {
    auto it = std::find_if(matrices.begin(), matrices.end(),
                           [&](const NamedMatrix &m) { return m.name == name; });
    if (it == matrices.end()) {
      std::string names;
      for (const auto &m : matrices) names += (names.empty() ? "" : ", ") + m.name;
      throw UsageError(fmt::format("--only: no output named '{}' (available: {})", name, names));
    }
    out.push_back(*it);
  }
  return out;
}

Json matrix_json(const MatX &m) {
  Json rows = Json::array();
  for (int i = 0; i < m.rows(); ++i) {
    Json row = Json::array();
    for (int j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

Json vector_json(const VecX &x) {
  Json out = Json::array();
  for (int k = 0; k < x.size(); ++k) out.push_back(x[k]);
  return out;
}

Json model_json(const LoadedModel &lm) {
  const Model &m = lm.model;
  Json j;
  j["name"] = m.name;
  j["source"] = lm.source;
  j["fixed_base"] = m.fixed_base;
  j["n_B"] = m.n_B;
  j["n_J"] = m.num_joints();
  j["n"] = m.num_dofs();
  j["N"] = m.state_dim();
  Json joints = Json::array();
  for (int i = 1; i <= m.n_B; ++i) joints.push_back(m.joint_name[i]);
  j["joints"] = joints;
  return j;
}

namespace {
// Display width of UTF-8 text (code points; the tool prints no wide characters).
std::size_t display_width(const std::string &s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}
}  // namespace

void print_table(const std::vector<std::string> &header,
                 const std::vector<std::vector<std::string>> &rows,
                 const std::set<int> &right_aligned, const std::string &indent) {
  // Columns are padded to their widest cell, but to no more than kMaxPad characters: a longer
  // cell overflows its column rather than widening every row, so that the output stays
  // proportional to its content (a 1 MB name must not pad 100k rows to 1 MB each).
  constexpr std::size_t kMaxPad = 48;
  std::vector<std::size_t> w(header.size(), 0);
  auto measure = [&](const std::vector<std::string> &r) {
    for (std::size_t j = 0; j < r.size() && j < w.size(); ++j)
      w[j] = std::max(w[j], std::min(kMaxPad, display_width(r[j])));
  };
  measure(header);
  for (const auto &r : rows) measure(r);
  auto print_row = [&](const std::vector<std::string> &r) {
    std::string line = indent;
    for (std::size_t j = 0; j < w.size(); ++j) {
      const std::string cell = j < r.size() ? r[j] : "";
      if (j > 0) line += "  ";
      if (right_aligned.count(static_cast<int>(j))) {
        line += fmt::format("{:>{}}", cell, w[j]);
      } else if (j + 1 < w.size()) {
        line += fmt::format("{:<{}}", cell, w[j]);
      } else {
        line += cell;
      }
    }
    line.erase(line.find_last_not_of(' ') + 1);  // no trailing blanks
    fmt::print("{}\n", line);
  };
  print_row(header);
  for (const auto &r : rows) print_row(r);
}

void print_matrices(Format format, const std::vector<NamedMatrix> &matrices, Json doc,
                    int text_precision) {
  switch (format) {
    case Format::Text:
      for (const auto &m : matrices) print_matrix_text(m, text_precision);
      break;
    case Format::Csv:
      print_matrices_csv(matrices);
      break;
    case Format::Json:
      for (const auto &m : matrices) {
        doc[m.name] = m.vector ? vector_json(m.value.col(0)) : matrix_json(m.value);
      }
      print_json(doc);
      break;
  }
}

Json finite_or_null(double x) {
  return std::isfinite(x) ? Json(x) : Json();
}

void print_json(const Json &doc) {
  // Non-finite numbers have no JSON form; nlohmann writes them as null.
  fmt::print("{}\n", doc.dump(2));
}

}  // namespace geolin::cli
