// Output of the `geolin` tool (output.cpp): matrices in text, JSON and CSV, tables, JSON and CSV
// helpers, output files opened before a long run, and the progress line.
#pragma once

#include <cstddef>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "args.hpp"
#include "geolin/workspace.hpp"
#include "model_load.hpp"

namespace geolin::cli {

/// JSON with the members in insertion order.
using Json = nlohmann::ordered_json;

enum class Format { Text, Json, Csv };
Format parse_format(const Args &args,
                    const std::vector<Format> &allowed = {Format::Text, Format::Json, Format::Csv});

/// A labelled dense matrix (a vector is a matrix with one column).
struct NamedMatrix {
  std::string name;
  std::string title;  // a one-line description for text output
  MatX value;
  std::vector<std::string> row_labels;
  std::vector<std::string> col_labels;
  bool vector = false;  // JSON: a flat list rather than a list of rows
};

/// Text: a labelled table, wrapped in chunks of columns to fit `width` characters; exact zeros
/// print as "0". 4 significant digits unless precision says otherwise.
void print_matrix_text(const NamedMatrix &m, int precision = 4, int width = 120);

/// CSV: a header row ("", column labels...) then one row per matrix row (label, values...),
/// values with 17 significant digits (round-trip).
void print_matrix_csv(const NamedMatrix &m);

/// Prints several matrices as CSV: one block each, preceded by "# name (rows x cols)" and
/// separated by a blank line, or only the block itself when there is just one.
void print_matrices_csv(const std::vector<NamedMatrix> &matrices);

/// A plain text table: header, then rows; columns padded to their widest cell. Columns listed in
/// right_aligned are right-aligned (numbers), the others left-aligned.
void print_table(const std::vector<std::string> &header,
                 const std::vector<std::vector<std::string>> &rows,
                 const std::set<int> &right_aligned = {}, const std::string &indent = "  ");

/// Text formatting of one number: "0" for exact zeros, else %.{precision-1}e.
std::string format_number(double x, int precision = 4);

/// `text` re-broken at spaces into lines of at most `width` characters (longer words stay whole),
/// without a final newline.
std::string wrap_text(const std::string &text, std::size_t width);

/// JSON pieces: a matrix as a list of rows, a vector as a list, the model.
Json matrix_json(const MatX &m);
Json vector_json(const VecX &x);
Json model_json(const LoadedModel &lm);

/// Prints matrices in the given format. Text: each as a labelled table (the caller prints its
/// own header first). JSON: `doc` with one member per matrix (a list of rows, or a flat list for
/// a vector). CSV: print_matrices_csv.
void print_matrices(Format format, const std::vector<NamedMatrix> &matrices, Json doc,
                    int text_precision = 4);

/// A number, or null where it is not finite (JSON has no infinity).
Json finite_or_null(double x);

/// Prints a JSON document (2-space indentation) and a newline.
void print_json(const Json &doc);

/// A CSV field, quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string &s);
/// The fields joined by commas (each csv_field), without a newline.
std::string csv_line(const std::vector<std::string> &fields);

/// An output file opened (created or truncated) before a long run, so that a path that cannot be
/// written fails at once: the constructor throws Error(Io) naming `option`, the path and the
/// system's reason. If the run fails before anything was written, the destructor removes the
/// empty file again, if this run created it (an existing file or a device such as /dev/null is
/// never removed).
class OutputFile {
 public:
  OutputFile(std::string option, std::string path);
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  std::FILE *get() const { return file_; }
  const std::string &path() const { return path_; }
  /// Writes text; throws Error(Io) if that fails.
  void write(const std::string &text);
  /// Flushes and closes; throws Error(Io) naming the path if any write failed (a full disk).
  void close();

 private:
  std::string option_, path_;
  std::FILE *file_ = nullptr;
  bool written_ = false;
  bool created_ = false;  // the path did not exist before
};

/// A one-line progress report on stderr, redrawn in place ("\r"), only when stderr is a terminal
/// (isatty) and `wanted`; nothing at all otherwise (a pipe or a file stays clean).
class Progress {
 public:
  explicit Progress(bool wanted = true);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;
  bool enabled() const { return enabled_; }
  void show(const std::string &text);
  /// "label: 42%" for done of total, redrawn only when the integer percentage changes.
  void percent(const std::string &label, long done, long total);
  void clear();

 private:
  bool enabled_;
  std::size_t width_ = 0;
  int last_percent_ = -1;
};

/// Keeps only the matrices named in --only (comma separated), if given; throws UsageError for
/// an unknown name.
std::vector<NamedMatrix> select_matrices(std::vector<NamedMatrix> matrices, const Args &args);

}  // namespace geolin::cli
