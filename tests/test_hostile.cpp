// The hostile URDF corpus (tests/data/hostile/): every file is loaded and must end with the
// status documented in MANIFEST.tsv (docs/c-api.md: IO, PARSE, MODEL, UNSUPPORTED, or success),
// with a message naming the offending element, and without printing anything. The fuzzer
// (tests/fuzz/) adds its crash regressions to the same folder.
//
// MANIFEST.tsv: one line per file, tab-separated:
//   file  expected (ok|io|parse|model|unsupported)  flags (0, or 1 = fixed base)  check
// where check is, for a file that loads, "links=N": the number of <link> elements the file has
// as XML (counted by hand, cross-checked with another XML parser), so a loaded model must have
// exactly N frames -- no link hidden from or invented by the loader; and for a refused file,
// a substring of the message.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "geolin/generate.hpp"
#include "geolin/model.hpp"
#include "geolin/status.hpp"

namespace geolin {
namespace {

const std::string kHostile = std::string(GEOLIN_TEST_DATA_DIR) + "/hostile";

struct Entry {
  std::string file;
  std::string expected;  // ok, io, parse, model, unsupported
  unsigned flags = 0;
  std::string substring;  // refused files: part of the message
  int links = -1;         // files that load: the number of links
  int line = 0;
};

std::vector<std::string> split_tabs(const std::string &line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    fields.push_back(
        line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return fields;
}

// Reads the manifest; malformed lines are test failures (reported with their line number).
std::vector<Entry> read_manifest() {
  std::vector<Entry> entries;
  std::ifstream in(kHostile + "/MANIFEST.tsv");
  EXPECT_TRUE(in.good()) << "cannot open " << kHostile << "/MANIFEST.tsv";
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split_tabs(line);
    if (f.size() != 4) {
      ADD_FAILURE() << "MANIFEST.tsv:" << number << ": expected 4 tab-separated fields, got "
                    << f.size() << ": " << line;
      continue;
    }
    Entry e;
    e.file = f[0];
    e.expected = f[1];
    e.substring = f[3];
    e.line = number;
    if (f[2] == "0" || f[2] == "1") {
      e.flags = f[2] == "1" ? static_cast<unsigned>(kFixedBase) : 0u;
    } else {
      ADD_FAILURE() << "MANIFEST.tsv:" << number << ": flags must be 0 or 1, got '" << f[2] << "'";
      continue;
    }
    static const std::set<std::string> kKinds{"ok", "io", "parse", "model", "unsupported"};
    if (!kKinds.count(e.expected)) {
      ADD_FAILURE() << "MANIFEST.tsv:" << number << ": unknown expectation '" << e.expected << "'";
      continue;
    }
    if (e.expected == "ok") {
      if (e.substring.rfind("links=", 0) == 0) e.links = std::atoi(e.substring.c_str() + 6);
      if (e.links < 1)
        ADD_FAILURE() << "MANIFEST.tsv:" << number << ": a file that loads has 'links=N', N >= 1";
    } else if (e.substring.empty() || e.substring.rfind("links=", 0) == 0) {
      ADD_FAILURE() << "MANIFEST.tsv:" << number << ": a refused file has a message substring";
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

// The status as MANIFEST.tsv spells it.
const char *manifest_status_name(Status s) {
  switch (s) {
    case Status::Ok:
      return "ok";
    case Status::InvalidArgument:
      return "invalid_argument";
    case Status::Io:
      return "io";
    case Status::Parse:
      return "parse";
    case Status::Model:
      return "model";
    case Status::Unsupported:
      return "unsupported";
    case Status::NonFinite:
      return "nonfinite";
    case Status::Numeric:
      return "numeric";
    case Status::Internal:
      return "internal";
    case Status::Memory:
      return "memory";
  }
  return "unknown";
}

TEST(HostileCorpus, EveryFileGetsItsDocumentedStatusAndMessage) {
  const std::vector<Entry> entries = read_manifest();
  ASSERT_FALSE(entries.empty());
  for (const Entry &e : entries) {
    SCOPED_TRACE("MANIFEST.tsv:" + std::to_string(e.line) + " " + e.file);
    const std::string path = kHostile + "/" + e.file;
    bool loaded = false;
    std::string message;
    Status status = Status::Ok;
    std::string other;  // an exception that is not a geolin::Error
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    try {
      const Model m = load_urdf_file(path, e.flags);
      loaded = true;
      EXPECT_EQ(static_cast<int>(m.frames.size()), e.links) << "links in the model";
      std::set<std::string> names;
      for (const Frame &f : m.frames) names.insert(f.name);
      EXPECT_EQ(names.size(), m.frames.size()) << "frame names are not unique";
      EXPECT_EQ(m.fixed_base, (e.flags & kFixedBase) != 0);
      EXPECT_GT(m.total_mass(), 0.0);
      for (const Mat6 &inertia : m.inertia) EXPECT_TRUE(inertia.allFinite());
    } catch (const Error &error) {
      status = error.status();
      message = error.what();
    } catch (const std::exception &error) {
      other = error.what();
    } catch (...) {
      other = "unknown exception";
    }
    const std::string out = testing::internal::GetCapturedStdout();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(out, "") << "the loader printed on stdout";
    EXPECT_EQ(err, "") << "the loader printed on stderr";
    EXPECT_EQ(other, "") << "an exception other than geolin::Error escaped";
    if (e.expected == "ok") {
      EXPECT_TRUE(loaded) << "refused with status " << manifest_status_name(status) << ": "
                          << message;
      continue;
    }
    EXPECT_FALSE(loaded) << "loaded, expected " << e.expected;
    if (loaded) continue;
    EXPECT_EQ(manifest_status_name(status), e.expected) << message;
    EXPECT_NE(message.find(e.substring), std::string::npos)
        << "'" << e.substring << "' not in: " << message;
    EXPECT_NE(message.find(path), std::string::npos) << "the path is not in: " << message;
  }
}

TEST(HostileCorpus, ManifestCoversEveryFile) {
  const std::vector<Entry> entries = read_manifest();
  EXPECT_GE(entries.size(), 40u);
  std::set<std::string> listed;
  for (const Entry &e : entries) {
    EXPECT_TRUE(listed.insert(e.file).second) << e.file << " is listed twice";
    EXPECT_TRUE(std::filesystem::is_regular_file(kHostile + "/" + e.file))
        << e.file << " is in MANIFEST.tsv but not in " << kHostile;
  }
  int files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(kHostile)) {
    const std::string name = entry.path().filename().string();
    if (name == "MANIFEST.tsv") continue;
    ++files;
    EXPECT_TRUE(listed.count(name)) << name << " is in " << kHostile << " but not in MANIFEST.tsv";
  }
  EXPECT_EQ(files, static_cast<int>(listed.size()));
}

TEST(HostileCorpus, MissingFileAndDirectoryAreIoErrors) {
  for (const std::string &path : {kHostile + "/no_such_file.urdf", kHostile}) {
    SCOPED_TRACE(path);
    testing::internal::CaptureStderr();
    try {
      load_urdf_file(path);
      ADD_FAILURE() << "loaded";
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), Status::Io) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
}

// GenerateChain.HundredThousandBodiesLoadWithoutStackOverflow (test_generate.cpp) covers a
// valid deep chain. These cover the error paths of deep inputs: a fault at the tip of a
// 100000-body chain (every urdfdom structure is built and then released), and deeply nested
// XML elements.
TEST(HostileCorpus, HundredThousandBodyChainWithAFaultAtTheTipFailsWithoutOverflow) {
  std::string xml = make_chain_urdf(100000);
  const std::string last = "name=\"link100000\"";
  const size_t at = xml.find(last);
  ASSERT_NE(at, std::string::npos);
  const size_t mass = xml.find("<mass value=\"", at);
  ASSERT_NE(mass, std::string::npos);
  xml.insert(mass + 13, "-");  // negative mass on the last link
  try {
    load_urdf_string(xml);
    ADD_FAILURE() << "loaded";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Model) << e.what();
    EXPECT_NE(std::string(e.what()).find("link100000"), std::string::npos) << e.what();
  }
}

// Loads `xml` and expects Status::Parse with `part` in the message, nothing printed.
void expect_parse_error(const std::string &xml, const std::string &part) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  try {
    load_urdf_string(xml);
    ADD_FAILURE() << "loaded";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Parse) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "'" << part << "' not in: " << e.what();
  }
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// urdfdom's XML parser (TinyXML) recurses once per nesting level and overflows an 8 MB stack at
// ~100000 levels. geolin's reader refuses more than 256 levels while reading, wherever the
// nesting is -- also behind the constructs that once hid it from a pre-scan: a declaration or
// processing instruction with quoted '>', a comment or CDATA section with quotes, a DOCTYPE.
TEST(HostileCorpus, DeeplyNestedElementsAreRefusedWithoutOverflow) {
  const int depth = 100000;
  std::string open, close;
  for (int i = 0; i < depth; ++i) open += "<x>";
  for (int i = 0; i < depth; ++i) close += "</x>";
  const std::string link = "<link name=\"a\"/>";
  const std::string nested =
      "<robot name=\"r\">" + link + "<gazebo>" + open + close + "</gazebo></robot>";
  const std::vector<std::pair<std::string, std::string>> documents = {
      {nested, "nested more than 256 levels"},
      {"<robot name=\"r\">" + link + "<gazebo>" + open, "nested"},  // never closed
      {"<robot name=\"r\">" + link + "<gazebo a=\"1\"/>" + open + close + "</robot>", "nested"},
      // Behind a declaration whose quoted value holds '>': the declaration itself is refused.
      {"<?xml version=\"..>..\"?>" + nested, "version '..>..'"},
      // Processing instructions, comments and CDATA end at their first terminator, quotes or not.
      {"<robot name=\"r\">" + link + "<?pi a=\"?>\"<gazebo>" + open + close +
           "</gazebo>\"?></robot>",
       "nested"},
      {"<robot name=\"r\">" + link + "<!-- \" --><gazebo>" + open + close + "</gazebo></robot>",
       "nested"},
      {"<robot name=\"r\">" + link + "<gazebo><![CDATA[\"]]>\"" + open + close +
           "</gazebo></robot>",
       "nested"},
      // A DOCTYPE's internal subset holds declarations only, never elements.
      {"<!DOCTYPE robot [" + open + "]><robot name=\"r\">" + link + "</robot>", "internal subset"},
      {"<!DOCTYPE robot [ <!NOTATION n SYSTEM \"]>\"> ]>" + nested, "nested"},
  };
  for (size_t k = 0; k < documents.size(); ++k) {
    SCOPED_TRACE(k);
    expect_parse_error(documents[k].first, documents[k].second);
  }
  // Nesting within the limit is fine (extension elements are ignored).
  std::string shallow = "<robot name=\"r\">" + link + "<gazebo>";
  for (int i = 0; i < 200; ++i) shallow += "<x a=\"/\">";
  for (int i = 0; i < 200; ++i) shallow += "</x>";
  EXPECT_EQ(load_urdf_string(shallow + "</gazebo></robot>", kFixedBase).n_B, 0);
}

// ---------------------------------------------------------------------------------------------
// Files that are not regular files, or too large: Status::Io naming the file and the reason,
// without blocking or reading without bound.

// A fresh temporary directory, removed with its content at the end of the scope.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "geolin_hostile_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

void expect_io_error(const std::string &path, const std::string &part) {
  testing::internal::CaptureStderr();
  try {
    load_urdf_file(path);
    ADD_FAILURE() << path << " loaded";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Io) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "'" << part << "' not in: " << e.what();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// Without a writer, reading a FIFO (or opening it for reading, blocking) waits forever: the
// loader opens non-blocking and refuses anything but a regular file.
TEST(HostileFiles, FifoIsRefusedWithoutBlocking) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string fifo = (dir.path / "robot.urdf").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_io_error(fifo, "FIFO");
}

// /dev/zero never ends: a reader without a size limit grows its buffer until memory runs out.
TEST(HostileFiles, CharacterDeviceIsRefusedWithoutReading) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  expect_io_error("/dev/zero", "character device");
  // Also through a symbolic link (the type is checked on the opened file, not the name).
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string link = (dir.path / "zero.urdf").string();
  std::error_code ec;
  std::filesystem::create_symlink("/dev/zero", link, ec);
  ASSERT_FALSE(ec) << ec.message();
  expect_io_error(link, "character device");
}

TEST(HostileFiles, FileLargerThanTheLimitIsRefused) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string big = (dir.path / "big.urdf").string();
  {
    std::ofstream out(big, std::ios::binary);
    ASSERT_TRUE(out.good());
  }
  // A sparse file one byte over the limit: no disk space, no reading.
  std::filesystem::resize_file(big, kMaxUrdfFileBytes + 1);
  expect_io_error(big, "64 MiB");
  // At the limit the file is read (and refused as XML: it is all NUL bytes).
  std::filesystem::resize_file(big, kMaxUrdfFileBytes);
  try {
    load_urdf_file(big);
    ADD_FAILURE() << "loaded";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Parse) << e.what();
    EXPECT_NE(std::string(e.what()).find("not XML"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geolin
