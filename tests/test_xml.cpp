// The loader's XML reader (src/urdf/xml.hpp): the canonical document it writes for urdfdom reads
// back to the same tree (so urdfdom is given exactly what the loader checked), UTF-8 validation,
// and the line and column of its messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../src/urdf/xml.hpp"
#include "geolin/status.hpp"

namespace geolin {
namespace {

// The tree below element `e`, one line per element in pre-order: depth, name, attributes.
std::vector<std::string> flatten(const xml::Document &d, int e) {
  std::vector<std::string> out;
  std::vector<std::pair<int, int>> stack{{e, 0}};
  while (!stack.empty()) {
    const auto [el, depth] = stack.back();
    stack.pop_back();
    std::string line = std::to_string(depth) + " <" + std::string(d.name(el)) + ">";
    for (int k = 0; k < d.num_attributes(el); ++k)
      line += " " + std::string(d.attribute_name(el, k)) + "=[" +
              std::string(d.attribute_value(el, k)) + "]";
    out.push_back(line);
    std::vector<int> children;
    for (int c = d.first_child(el); c >= 0; c = d.next_sibling(c)) children.push_back(c);
    for (auto c = children.rbegin(); c != children.rend(); ++c) stack.push_back({*c, depth + 1});
  }
  return out;
}

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(XmlReader, CanonicalDocumentReadsBackToTheSameTree) {
  int checked = 0;
  for (const std::string &dir :
       {std::string(GEOLIN_MODELS_DIR), std::string(GEOLIN_TEST_DATA_DIR) + "/hostile"}) {
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".urdf") continue;
      SCOPED_TRACE(entry.path().string());
      const std::string text = read_file(entry.path());
      try {
        const xml::Document doc(text, 256);
        const std::string canonical = doc.canonical(doc.root());
        const xml::Document again(canonical, 256);
        EXPECT_EQ(flatten(again, again.root()), flatten(doc, doc.root()));
        EXPECT_EQ(again.canonical(again.root()), canonical);  // a fixpoint
        ++checked;
      } catch (const Error &e) {
        EXPECT_EQ(e.status(), Status::Parse) << e.what();
      }
    }
  }
  EXPECT_GE(checked, 100);
}

TEST(XmlReader, CanonicalDocumentKeepsOnlyTheChosenChildrenOfTheTop) {
  const std::string text =
      "<robot name=\"a&amp;&lt;&quot;'&#9;\"><link name=\"l\"><visual/></link><gazebo><x/></gazebo>"
      "<joint name=\"j\"/><!-- c --><?pi x?></robot>";
  const xml::Document doc(text, 256);
  const std::string canonical =
      doc.canonical(doc.root(), [](std::string_view n) { return n != "gazebo"; });
  EXPECT_EQ(canonical,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<robot name=\"a&amp;&lt;&quot;'&#9;\">"
            "<link name=\"l\"><visual/></link><joint name=\"j\"/></robot>\n");
}

// The attributes chosen as numbers are written with their whitespace collapsed (XML Schema's
// "collapse": no leading or trailing space, tab, CR or LF, one space between tokens), whatever
// the whitespace was written as (literal, normalized to a space, or a character reference that
// keeps its character); every other attribute keeps its value exactly. The canonical document
// of that document is a fixpoint.
TEST(XmlReader, CanonicalDocumentCollapsesTheWhitespaceOfNumberAttributesOnly) {
  const auto is_number = [](std::string_view element, std::string_view attribute) {
    return element == "n" && (attribute == "v" || attribute == "w");
  };
  const std::vector<std::string> pads = {" ",    "  ",         "\t",       "\n",    "\r\n",
                                         "&#9;", "&#10;&#13;", " &#32;\t", "&#13;", ""};
  for (const std::string &pad : pads) {
    SCOPED_TRACE("pad '" + pad + "'");
    const std::string sep = pad.empty() ? " " : pad;  // between the numbers of a list
    const std::string text = "<r><n v=\"" + pad + "2" + pad + "\" w=\"" + pad + "0" + sep + "1e-3" +
                             sep + "-4" + pad + "\" name=\"" + pad + "a" + pad + "\"/><m v=\"" +
                             pad + "5" + pad + "\"/></r>";
    const xml::Document doc(text, 256);
    const std::string canonical = doc.canonical(doc.root(), nullptr, is_number);
    const xml::Document again(canonical, 256);
    const int n = again.first_child(again.root()), m = again.next_sibling(n);
    EXPECT_EQ(again.attribute(n, "v").value_or("?"), "2");
    EXPECT_EQ(again.attribute(n, "w").value_or("?"), "0 1e-3 -4");
    // Not chosen: the same value as in the source document, byte for byte.
    EXPECT_EQ(again.attribute(n, "name"), doc.attribute(doc.first_child(doc.root()), "name"));
    EXPECT_EQ(again.attribute(m, "v"),
              doc.attribute(doc.next_sibling(doc.first_child(doc.root())), "v"));
    EXPECT_EQ(again.canonical(again.root(), nullptr, is_number), canonical);
  }
}

TEST(XmlReader, ElementsAttributesAndTheirOrderAreRead) {
  const xml::Document doc("<r a='1' b=\"x>y\"><c/><d k=\"v\"/><c n=\"2\"/></r>", 256);
  const int r = doc.root();
  EXPECT_EQ(doc.name(r), "r");
  ASSERT_EQ(doc.num_attributes(r), 2);
  EXPECT_EQ(doc.attribute_name(r, 1), "b");
  EXPECT_EQ(*doc.attribute(r, "b"), "x>y");
  EXPECT_FALSE(doc.attribute(r, "z").has_value());
  const int c = doc.child(r, "c");
  ASSERT_GE(c, 0);
  EXPECT_EQ(doc.num_attributes(c), 0);  // the first <c>
  EXPECT_EQ(doc.name(doc.next_sibling(c)), "d");
  EXPECT_EQ(doc.child(r, "e"), -1);
  EXPECT_EQ(doc.parent(c), r);
}

TEST(XmlReader, InvalidUtf8IsFoundAtItsFirstBadByte) {
  const std::size_t npos = std::string_view::npos;
  const struct {
    const char *text;
    std::size_t bad;
  } cases[] = {
      {"plain", npos},
      {"caf\xC3\xA9 \xE2\x98\xBA \xF0\x9F\xA4\x96", npos},  // 2, 3 and 4 bytes
      {"\t\n\r\x7F", npos},                                 // tab, LF, CR, DEL are characters
      {"ab\xC3", 2},                                        // truncated at the end
      {"a\xC0\xAF", 1},                                     // overlong '/'
      {"\xE0\x80\xAF", 0},                                  // overlong, 3 bytes
      {"x\xED\xA0\x80", 1},                                 // surrogate U+D800
      {"\xF4\x90\x80\x80", 0},                              // above U+10FFFF
      {"\xEF\xBF\xBE", 0},                                  // U+FFFE is no XML character
      {"a\x01", 1},                                         // control character
      {"\xC3\x28", 0},                                      // bad continuation byte
      {"\xFF", 0},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(xml::invalid_utf8(c.text), c.bad);
  }
  EXPECT_EQ(xml::invalid_utf8(std::string_view("a\0b", 3)), 1u);
}

TEST(XmlReader, MessagesGiveLineAndColumn) {
  try {
    xml::Document("<a>\n  <b>\n</a>", 256);
    FAIL() << "read";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Parse);
    EXPECT_NE(std::string(e.what()).find("</a> does not match the start tag <b> (line 2, column "
                                         "3) (line 3, column 1)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(xml::location("ab\ncd", 4), "line 2, column 2");
  EXPECT_EQ(xml::excerpt("a\x01\n", 0), "a\\x01\\n");
}

TEST(XmlReader, ManyAttributesAreCheckedForDuplicates) {
  std::string text = "<r";
  for (int k = 0; k < 100000; ++k) text += " a" + std::to_string(k) + "=\"\"";
  EXPECT_EQ(xml::Document(text + "/>", 256).num_attributes(0), 100000);
  try {
    xml::Document(text + " a77=\"\"/>", 256);
    FAIL() << "read";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("attribute 'a77' appears twice in <r>"), std::string::npos)
        << e.what();
  }
}

// TinyXML skips U+FEFF where a name may start: <\uFEFFlink> would be a <link> to urdfdom and
// an unknown element to this reader, so such names are refused.
TEST(XmlReader, NameStartingWithAByteOrderMarkIsRefused) {
  for (const std::string text :
       {"<r><\xEF\xBB\xBFlink name=\"b\"/></r>", "<r><link \xEF\xBB\xBFname=\"b\"/></r>"}) {
    SCOPED_TRACE(text);
    try {
      xml::Document(text, 256);
      ADD_FAILURE() << "read";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("starts with U+FEFF"), std::string::npos) << e.what();
    }
  }
  // Inside a name it is an ordinary character; at the document's start, a byte-order mark.
  EXPECT_EQ(xml::Document("<r\xEF\xBB\xBF/>", 256).name(0), "r\xEF\xBB\xBF");
  EXPECT_EQ(xml::Document("\xEF\xBB\xBF<r/>", 256).name(0), "r");
}

TEST(XmlReader, DepthLimitCountsEveryElement) {
  std::string ok, deep;
  for (int k = 0; k < 3; ++k) ok += "<x>";
  ok += "<y/>";
  for (int k = 0; k < 3; ++k) ok += "</x>";
  EXPECT_NO_THROW(xml::Document(ok, 4));      // <y/> is at depth 4
  EXPECT_THROW(xml::Document(ok, 3), Error);  // a self-closing element counts too
}

}  // namespace
}  // namespace geolin
