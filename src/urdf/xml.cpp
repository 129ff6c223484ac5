// The XML reader of the URDF loader: xml.hpp says what it reads and refuses, and why it is the
// only reader of the raw text. Grammar: XML 1.0 (W3C, 5th edition), productions document,
// prolog, XMLDecl, doctypedecl, element, Attribute, Comment, PI, CDSect, Reference; names are
// further restricted to what TinyXML (urdfdom's parser) reads, so that every name of the
// canonical document means the same to both.
#include "xml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "geolin/status.hpp"

namespace geolin::xml {
namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_ascii_letter(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}
// Names: XML's NameStartChar/NameChar intersected with TinyXML's ReadName (which takes every
// byte >= 0x80 as a letter; the UTF-8 of such bytes is checked separately).
bool is_name_start(unsigned char c) {
  return is_ascii_letter(c) || c == '_' || c >= 0x80;
}
bool is_name_char(unsigned char c) {
  return is_name_start(c) || is_digit(c) || c == '-' || c == '.' || c == ':';
}
// XML 1.0 production Char.
bool is_xml_char(unsigned long cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

void append_utf8(std::string &out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The code point of a character reference "&#...;" from its text after '#' ("233" or "xE9";
// XML allows only the lowercase 'x'), or kNotACharacter if it is not a reference to an XML
// character (production CharRef).
constexpr unsigned long kNotACharacter = ~0ul;
unsigned long character_reference(std::string_view ref) {
  const bool hex = ref[0] == 'x';
  const std::string_view digits = ref.substr(hex ? 1 : 0);
  if (digits.empty() || digits.size() > 8) return kNotACharacter;
  unsigned long cp = 0;
  for (char d : digits) {
    int v;
    if (is_digit(d)) {
      v = d - '0';
    } else if (hex && ((d | 0x20) >= 'a' && (d | 0x20) <= 'f')) {
      v = (d | 0x20) - 'a' + 10;
    } else {
      return kNotACharacter;
    }
    cp = cp * (hex ? 16 : 10) + static_cast<unsigned long>(v);
  }
  return is_xml_char(cp) ? cp : kNotACharacter;
}

// `value` with XML Schema's whitespace facet "collapse" applied (XML Schema Part 2, §4.3.6):
// the tokens between runs of space, tab, CR and LF, joined by one space.
std::string collapse_whitespace(std::string_view value) {
  std::string out;
  for (std::size_t k = 0; k < value.size();) {
    while (k < value.size() && is_space(value[k])) ++k;
    const std::size_t start = k;
    while (k < value.size() && !is_space(value[k])) ++k;
    if (k == start) break;
    if (!out.empty()) out += ' ';
    out += value.substr(start, k - start);
  }
  return out;
}

}  // namespace

// Attribute values of the canonical document: the characters that would end or change the
// value are escaped; tab, LF and CR as character references, so that they survive attribute-
// value normalization.
void append_escaped(std::string &out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        out += c;
    }
  }
}

std::size_t invalid_utf8(std::string_view s) {
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (!is_xml_char(c)) return i;
      ++i;
      continue;
    }
    std::size_t length;
    unsigned long cp, least;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2, cp = c & 0x1Fu, least = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3, cp = c & 0x0Fu, least = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4, cp = c & 0x07u, least = 0x10000;
    } else {
      return i;
    }
    if (n - i < length) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    if (cp < least || !is_xml_char(cp)) return i;  // overlong, surrogate, > U+10FFFF, U+FFFE
    i += length;
  }
  return npos;
}

std::string location(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, line_start = 0;
  for (std::size_t k = 0; k < offset; ++k) {
    if (text[k] == '\n') {
      ++line;
      line_start = k + 1;
    }
  }
  return fmt::format("line {}, column {}", line, offset - line_start + 1);
}

std::string excerpt(std::string_view text, std::size_t offset, std::size_t max) {
  std::string out;
  const std::size_t end = std::min(text.size(), offset + max);
  for (std::size_t k = offset; k < end; ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += fmt::format("\\x{:02X}", c);
    }
  }
  if (end < text.size()) out += "...";
  return out;
}

// ---------------------------------------------------------------------------------------------
class Reader {
 public:
  Reader(Document &doc, std::string_view s, int max_depth)
      : doc_(doc), s_(s), n_(s.size()), max_depth_(max_depth) {}

  void run();

 private:
  struct Open {
    int element;
    int last_child;
  };

  [[noreturn]] void refuse(std::size_t at, const std::string &what) const {
    throw Error(Status::Parse, fmt::format("URDF parse error: {} ({})", what, location(s_, at)));
  }
  [[noreturn]] void malformed(std::size_t at, const std::string &what) const {
    refuse(at, "the XML is not well-formed: " + what);
  }
  bool starts(std::size_t at, std::string_view prefix) const {
    return at <= n_ && s_.substr(at, prefix.size()) == prefix;
  }
  bool skip_space() {  // whether there was any
    const std::size_t from = i_;
    while (i_ < n_ && is_space(s_[i_])) ++i_;
    return i_ > from;
  }
  void require_space(const char *where) {
    if (!skip_space())
      malformed(i_, fmt::format("expected whitespace {}, found '{}'", where, excerpt(s_, i_, 12)));
  }
  std::string encoding_note() const {
    const std::string &enc = doc_.encoding_;
    if (enc.empty()) return "";
    std::string lower;
    for (char c : enc) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lower == "utf-8" || lower == "utf8" || lower == "us-ascii" || lower == "ascii") return "";
    return fmt::format(" (the XML declaration says encoding '{}')", enc);
  }
  // Reads a name at i_ (`what` names it in messages); returns it. Checks its UTF-8.
  std::string_view name(const char *what) {
    const std::size_t start = i_;
    if (i_ >= n_ || !is_name_start(static_cast<unsigned char>(s_[i_])))
      malformed(i_, fmt::format("expected {}, found '{}'", what, excerpt(s_, i_, 12)));
    while (i_ < n_ && is_name_char(static_cast<unsigned char>(s_[i_]))) ++i_;
    const std::string_view result = s_.substr(start, i_ - start);
    // TinyXML skips a U+FEFF (byte-order mark) where a name may start, so it would read
    // "<\uFEFFlink>" as <link>: such a name would mean different things to the two readers.
    if (result.substr(0, 3) == "\xEF\xBB\xBF")
      refuse(start, fmt::format("{} starts with U+FEFF (a byte-order mark), which geolin does not "
                                "accept in names",
                                what));
    const std::size_t bad = invalid_utf8(result);
    if (bad != npos)
      refuse(start + bad, fmt::format("{} '{}' is not valid UTF-8 (byte 0x{:02X}): geolin reads "
                                      "URDF documents as UTF-8{}",
                                      what, excerpt(result, 0, 40),
                                      static_cast<unsigned char>(result[bad]), encoding_note()));
    return result;
  }
  // A quoted literal at i_ (either quote); returns its content, i_ after the closing quote.
  std::string_view literal(const char *what) {
    if (i_ >= n_ || (s_[i_] != '"' && s_[i_] != '\''))
      malformed(i_, fmt::format("expected the quoted {}, found '{}'", what, excerpt(s_, i_, 12)));
    const char quote = s_[i_];
    const std::size_t close = s_.find(quote, i_ + 1);
    if (close == npos)
      malformed(i_, fmt::format("the {} is not closed (no matching {})", what,
                                quote == '"' ? "\"" : "'"));
    const std::string_view result = s_.substr(i_ + 1, close - i_ - 1);
    i_ = close + 1;
    return result;
  }
  void equals(const char *what) {
    skip_space();
    if (i_ >= n_ || s_[i_] != '=')
      malformed(i_, fmt::format("expected '=' after {}, found '{}'", what, excerpt(s_, i_, 12)));
    ++i_;
    skip_space();
  }

  void xml_declaration();
  void comment();
  void processing_instruction();
  void cdata();
  void doctype();
  void internal_subset();
  bool outside_root(std::vector<Open> &open, bool &doctype_seen, std::size_t body);
  void inside_element(std::vector<Open> &open);
  void start_tag(std::vector<Open> &open);
  int new_element(std::vector<Open> &open, std::size_t lt, std::string_view element);
  void attribute(int index, std::string_view element);
  bool has_attribute(int index, std::string_view key);
  void end_tag(std::vector<Open> &open);
  void attribute_value(std::size_t at, std::string_view raw, std::string_view attribute,
                       std::string_view element);

  Document &doc_;
  std::string_view s_;
  std::size_t n_;
  int max_depth_;
  std::size_t i_ = 0;
  std::unordered_set<std::string_view> seen_;  // attribute names of elements with many
};

// The document: an optional byte-order mark and XML declaration, then the prolog, the root
// element and the epilog. Writes the whole element tree (doc_); throws Status::Parse for an
// empty document or one without an element.
void Reader::run() {
  if (starts(0, "\xEF\xBB\xBF")) i_ = 3;  // UTF-8 byte-order mark
  const std::size_t body = i_;
  if (starts(i_, "<?xml") && i_ + 5 < n_ && (is_space(s_[i_ + 5]) || s_[i_ + 5] == '?'))
    xml_declaration();
  bool doctype_seen = false;
  std::vector<Open> open;
  for (;;) {
    if (open.empty()) {
      if (!outside_root(open, doctype_seen, body)) break;
    } else {
      inside_element(open);
    }
  }
  if (doc_.root_ < 0) {
    bool blank = true;
    for (std::size_t k = body; k < n_ && blank; ++k) blank = is_space(s_[k]);
    throw Error(Status::Parse,
                blank ? std::string("URDF parse error: the document is empty")
                      : std::string("URDF parse error: the document has no element (only a "
                                    "declaration, comments or processing instructions)"));
  }
}

// One item of the prolog or epilog at i_ (after whitespace): a comment, a processing
// instruction, the DOCTYPE (once, before the root) or the root's start tag. Returns false at
// the end of the text. Reads and writes i_ and doctype_seen; the root's start tag pushes it on
// `open`. `body` is where the document starts (after a byte-order mark), for messages.
bool Reader::outside_root(std::vector<Open> &open, bool &doctype_seen, std::size_t body) {
  skip_space();
  if (i_ >= n_) return false;
  if (s_[i_] != '<') {
    if (doc_.root_ >= 0)
      malformed(i_, fmt::format("text '{}' after the end of the root element <{}>", excerpt(s_, i_),
                                doc_.name(doc_.root_)));
    refuse(i_, fmt::format("not XML: the document {} '{}', where the markup of an element "
                           "such as <robot name=\"...\"> was expected",
                           i_ == body ? "starts with" : "continues with", excerpt(s_, i_, 40)));
  }
  if (starts(i_, "<!--")) {
    comment();
  } else if (starts(i_, "<?")) {
    processing_instruction();
  } else if (starts(i_, "<!DOCTYPE")) {
    if (doctype_seen || doc_.root_ >= 0)
      malformed(i_, doctype_seen ? "a second DOCTYPE"
                                 : "a DOCTYPE after the root element (it must precede it)");
    doctype();
    doctype_seen = true;
  } else if (starts(i_, "</")) {
    malformed(i_, fmt::format("the end tag '{}' has no start tag", excerpt(s_, i_, 30)));
  } else if (starts(i_, "<!")) {
    malformed(i_, fmt::format("'{}' outside the root element (only comments, processing "
                              "instructions and a DOCTYPE may be there)",
                              excerpt(s_, i_, 12)));
  } else {
    if (doc_.root_ >= 0) {
      std::size_t k = i_ + 1;
      while (k < n_ && is_name_char(static_cast<unsigned char>(s_[k]))) ++k;
      malformed(i_, fmt::format("a second top-level element <{}> after the root element "
                                "<{}> (an XML document has one root element, a URDF one "
                                "<robot>)",
                                s_.substr(i_ + 1, std::min<std::size_t>(k - i_ - 1, 40)),
                                doc_.name(doc_.root_)));
    }
    start_tag(open);
  }
  return true;
}

// One item of the content of open.back() from i_: character data is skipped up to the next
// markup, which is a comment, a CDATA section, a processing instruction, an end tag (pops
// `open`) or a start tag (pushes it unless empty). Reads and writes i_ and `open`.
void Reader::inside_element(std::vector<Open> &open) {
  const std::size_t lt = s_.find('<', i_);
  if (lt == npos) {
    const int e = open.back().element;
    malformed(
        doc_.elements_[e].offset,
        fmt::format("element <{}> is not closed (the document ends inside it)", doc_.name(e)));
  }
  i_ = lt;
  if (starts(i_, "<!--")) {
    comment();
  } else if (starts(i_, "<![CDATA[")) {
    cdata();
  } else if (starts(i_, "<?")) {
    processing_instruction();
  } else if (starts(i_, "</")) {
    end_tag(open);
  } else if (starts(i_, "<!")) {
    malformed(i_, fmt::format("'{}' inside element <{}> (a DOCTYPE or declaration may only "
                              "precede the root element)",
                              excerpt(s_, i_, 12), doc_.name(open.back().element)));
  } else {
    start_tag(open);
  }
}

// XMLDecl ::= '<?xml' VersionInfo EncodingDecl? SDDecl? S? '?>' (pseudo-attributes in this
// order, values quoted with either quote).
void Reader::xml_declaration() {
  const std::size_t start = i_;
  i_ += 5;
  require_space("after '<?xml'");
  if (!starts(i_, "version"))
    malformed(i_, fmt::format("the XML declaration must start with version=\"1.x\", found '{}'",
                              excerpt(s_, i_, 16)));
  i_ += 7;
  equals("version");
  const std::size_t at = i_;
  const std::string_view version = literal("version of the XML declaration");
  bool ok = version.size() >= 3 && version[0] == '1' && version[1] == '.';
  for (std::size_t k = 2; ok && k < version.size(); ++k) ok = is_digit(version[k]);
  if (!ok)
    malformed(at, fmt::format("the XML declaration has version '{}' (expected 1.0 or 1.x)",
                              excerpt(version, 0, 20)));
  bool seen_encoding = false, seen_standalone = false;
  for (;;) {
    const bool space = skip_space();
    if (starts(i_, "?>")) {
      i_ += 2;
      return;
    }
    if (space && !seen_encoding && !seen_standalone && starts(i_, "encoding")) {
      i_ += 8;
      equals("encoding");
      const std::size_t v = i_;
      const std::string_view enc = literal("encoding of the XML declaration");
      bool good = !enc.empty() && is_ascii_letter(enc[0]);
      for (char c : enc)
        good = good && (is_ascii_letter(c) || is_digit(c) || c == '.' || c == '_' || c == '-');
      if (!good)
        malformed(v, fmt::format("the XML declaration has encoding '{}', which is not an "
                                 "encoding name",
                                 excerpt(enc, 0, 20)));
      doc_.encoding_ = std::string(enc);
      seen_encoding = true;
    } else if (space && !seen_standalone && starts(i_, "standalone")) {
      i_ += 10;
      equals("standalone");
      const std::size_t v = i_;
      const std::string_view sd = literal("standalone of the XML declaration");
      if (sd != "yes" && sd != "no")
        malformed(v, fmt::format("the XML declaration has standalone '{}' (expected yes or no)",
                                 excerpt(sd, 0, 20)));
      seen_standalone = true;
    } else {
      malformed(i_ >= n_ ? start : i_,
                fmt::format("the XML declaration is not closed by '?>' or has unexpected text "
                            "'{}' (it may hold only version, encoding and standalone, in this "
                            "order)",
                            excerpt(s_, i_, 16)));
    }
  }
}

void Reader::comment() {
  const std::size_t close = s_.find("-->", i_ + 4);
  if (close == npos) malformed(i_, "a comment '<!--' is not closed by '-->'");
  i_ = close + 3;
}

// PI ::= '<?' PITarget (S (Char* - (Char* '?>' Char*)))? '?>': it ends at the first "?>",
// whatever quotes it contains.
void Reader::processing_instruction() {
  const std::size_t start = i_;
  i_ += 2;
  const std::string_view target = name("a processing-instruction target after '<?'");
  if (target.size() == 3 && (target[0] | 0x20) == 'x' && (target[1] | 0x20) == 'm' &&
      (target[2] | 0x20) == 'l')
    malformed(start,
              "an XML declaration '<?xml ...?>' is only allowed at the very start of the "
              "document");
  if (!starts(i_, "?>") && !(i_ < n_ && is_space(s_[i_])))
    malformed(i_, fmt::format("unexpected '{}' after the processing-instruction target '{}'",
                              excerpt(s_, i_, 12), target));
  const std::size_t close = s_.find("?>", i_);
  if (close == npos)
    malformed(start, fmt::format("the processing instruction '<?{}' is not closed by '?>'",
                                 excerpt(target, 0, 20)));
  i_ = close + 2;
}

void Reader::cdata() {
  const std::size_t close = s_.find("]]>", i_ + 9);
  if (close == npos) malformed(i_, "a CDATA section '<![CDATA[' is not closed by ']]>'");
  i_ = close + 3;
}

// doctypedecl ::= '<!DOCTYPE' S Name (S ExternalID)? S? ('[' intSubset ']' S?)? '>'
void Reader::doctype() {
  i_ += 9;
  require_space("after '<!DOCTYPE'");
  name("the DOCTYPE's root element name");
  const bool space = skip_space();
  if (space && starts(i_, "SYSTEM")) {
    i_ += 6;
    require_space("after SYSTEM");
    literal("system identifier of the DOCTYPE");
    skip_space();
  } else if (space && starts(i_, "PUBLIC")) {
    i_ += 6;
    require_space("after PUBLIC");
    literal("public identifier of the DOCTYPE");
    require_space("after the public identifier");
    literal("system identifier of the DOCTYPE");
    skip_space();
  }
  if (i_ < n_ && s_[i_] == '[') {
    internal_subset();
    skip_space();
  }
  if (i_ >= n_ || s_[i_] != '>')
    malformed(i_, fmt::format("expected '>' to close the DOCTYPE, found '{}'", excerpt(s_, i_)));
  ++i_;
}

// intSubset ::= (markupdecl | DeclSep)*: comments, PIs and <!ELEMENT>/<!NOTATION> are skipped
// (quoted literals may contain '>'); what would change the document is refused.
void Reader::internal_subset() {
  const std::size_t open = i_;
  ++i_;
  for (;;) {
    skip_space();
    if (i_ >= n_) malformed(open, "the DOCTYPE's internal subset '[' is not closed by ']'");
    if (s_[i_] == ']') {
      ++i_;
      return;
    }
    if (starts(i_, "<!--")) {
      comment();
    } else if (starts(i_, "<?")) {
      processing_instruction();
    } else if (starts(i_, "<!ELEMENT") || starts(i_, "<!NOTATION")) {
      const std::size_t start = i_;
      char quote = 0;
      for (i_ += 2; i_ < n_; ++i_) {
        const char c = s_[i_];
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '>') {
          break;
        }
      }
      if (i_ >= n_) malformed(start, "a declaration in the DOCTYPE is not closed by '>'");
      ++i_;
    } else if (starts(i_, "<!ENTITY") || s_[i_] == '%') {
      refuse(i_,
             "the DOCTYPE declares or references an entity: geolin does not expand DTD "
             "entities (only XML's predefined ones and character references)");
    } else if (starts(i_, "<!ATTLIST")) {
      refuse(i_,
             "the DOCTYPE declares attribute defaults (<!ATTLIST>): geolin does not apply "
             "them");
    } else {
      malformed(
          i_, fmt::format("unexpected '{}' in the DOCTYPE's internal subset", excerpt(s_, i_, 16)));
    }
  }
}

// STag ::= '<' Name (S Attribute)* S? '>' and EmptyElemTag ::= '<' Name (S Attribute)* S? '/>'
// at i_. Appends the element (new_element) and its attributes (attribute) to doc_; a start
// tag that is not empty is pushed on `open`. Refuses nesting deeper than max_depth_.
void Reader::start_tag(std::vector<Open> &open) {
  const std::size_t lt = i_;
  ++i_;
  if (i_ >= n_ || !is_name_start(static_cast<unsigned char>(s_[i_])))
    malformed(lt, fmt::format("'<' is not followed by an element name: '{}'", excerpt(s_, lt, 16)));
  if (static_cast<int>(open.size()) >= max_depth_)
    refuse(lt, fmt::format("XML elements are nested more than {} levels deep", max_depth_));
  if (doc_.elements_.size() >= static_cast<std::size_t>(INT32_MAX))
    refuse(lt, "the document has too many elements");
  const std::string_view element = name("an element name");
  const int index = new_element(open, lt, element);
  seen_.clear();
  for (;;) {
    const bool space = skip_space();
    if (i_ >= n_)
      malformed(lt,
                fmt::format("the start tag <{}> is not closed by '>'", excerpt(element, 0, 40)));
    if (s_[i_] == '>') {
      ++i_;
      open.push_back(Open{index, -1});
      return;
    }
    if (s_[i_] == '/') {
      if (i_ + 1 < n_ && s_[i_ + 1] == '>') {
        i_ += 2;
        return;
      }
      malformed(i_, fmt::format("'/' in the start tag <{}> is not followed by '>'", element));
    }
    if (!space || !is_name_start(static_cast<unsigned char>(s_[i_])))
      malformed(i_, fmt::format("unexpected '{}' in the start tag <{}> (expected whitespace and "
                                "an attribute, '>' or '/>')",
                                excerpt(s_, i_, 12), element));
    attribute(index, element);
  }
}

// Appends element `element` (its '<' at `lt`) to doc_ as the root, or as the last child of
// open.back() (whose last_child it updates). Returns its index.
int Reader::new_element(std::vector<Open> &open, std::size_t lt, std::string_view element) {
  const int index = static_cast<int>(doc_.elements_.size());
  Document::Element e;
  e.name_offset = static_cast<std::size_t>(element.data() - s_.data());
  e.name_length = static_cast<std::uint32_t>(element.size());
  e.offset = lt;
  e.first_attribute = doc_.attributes_.size();
  if (open.empty()) {
    doc_.root_ = index;
  } else {
    Open &parent = open.back();
    e.parent = parent.element;
    if (parent.last_child < 0) {
      doc_.elements_[parent.element].first_child = index;
    } else {
      doc_.elements_[parent.last_child].next_sibling = index;
    }
    parent.last_child = index;
  }
  doc_.elements_.push_back(e);
  return index;
}

// Attribute ::= Name Eq AttValue at i_, of element `index` (named `element`): appends it to
// doc_.attributes_ and its decoded value to doc_.values_ (attribute_value). Refuses an
// unquoted or unclosed value and a duplicate attribute.
void Reader::attribute(int index, std::string_view element) {
  const std::string_view key = name("an attribute name");
  skip_space();
  if (i_ >= n_ || s_[i_] != '=')
    malformed(i_, fmt::format("expected '=' after attribute '{}' of <{}>, found '{}'", key, element,
                              excerpt(s_, i_, 12)));
  ++i_;
  skip_space();
  if (i_ >= n_ || (s_[i_] != '"' && s_[i_] != '\''))
    malformed(i_, fmt::format("the value of attribute '{}' of <{}> is not quoted: '{}'", key,
                              element, excerpt(s_, i_, 12)));
  const std::size_t at = i_;
  const std::size_t close = s_.find(s_[at], at + 1);
  if (close == npos)
    malformed(at, fmt::format("the value of attribute '{}' of <{}> is not closed (no matching "
                              "quote)",
                              key, element));
  const std::string_view raw = s_.substr(at + 1, close - at - 1);
  i_ = close + 1;
  if (has_attribute(index, key))
    malformed(key.data() - s_.data(),
              fmt::format("attribute '{}' appears twice in <{}>", key, element));
  Document::Attribute a;
  a.name_offset = static_cast<std::size_t>(key.data() - s_.data());
  a.name_length = static_cast<std::uint32_t>(key.size());
  a.value_offset = doc_.values_.size();
  attribute_value(at + 1, raw, key, element);
  a.value_length = doc_.values_.size() - a.value_offset;
  doc_.attributes_.push_back(a);
  ++doc_.elements_[index].num_attributes;
}

// Whether element `index` already has attribute `key`: linear for the few attributes of a URDF
// element, hashed (seen_, filled on first use) beyond 16. Inserts `key` into seen_ then.
bool Reader::has_attribute(int index, std::string_view key) {
  const Document::Element &self = doc_.elements_[index];
  if (self.num_attributes < 16) {
    for (std::size_t k = self.first_attribute; k < doc_.attributes_.size(); ++k)
      if (s_.substr(doc_.attributes_[k].name_offset, doc_.attributes_[k].name_length) == key)
        return true;
    return false;
  }
  if (seen_.empty())
    for (std::size_t k = self.first_attribute; k < doc_.attributes_.size(); ++k)
      seen_.insert(s_.substr(doc_.attributes_[k].name_offset, doc_.attributes_[k].name_length));
  return !seen_.insert(key).second;
}

// Appends the decoded, normalized value to doc_.values_. `at` is the offset of raw in s_.
void Reader::attribute_value(std::size_t at, std::string_view raw, std::string_view attribute,
                             std::string_view element) {
  const auto what = [&] { return fmt::format("attribute '{}' of <{}>", attribute, element); };
  const std::size_t bad = invalid_utf8(raw);
  if (bad != npos) {
    const auto c = static_cast<unsigned char>(raw[bad]);
    if (c < 0x20)
      malformed(at + bad, fmt::format("{} contains the control character 0x{:02X}", what(), c));
    refuse(at + bad, fmt::format("{} is not valid UTF-8 (byte 0x{:02X} in '{}'): geolin reads "
                                 "URDF documents as UTF-8{}",
                                 what(), c, excerpt(raw, 0, 40), encoding_note()));
  }
  std::string &out = doc_.values_;
  for (std::size_t k = 0; k < raw.size();) {
    const char c = raw[k];
    if (c == '<') malformed(at + k, fmt::format("'<' in the value of {} (write &lt;)", what()));
    if (c == '\r') {  // CR LF, CR, LF and tab become one space each
      out += ' ';
      k += (k + 1 < raw.size() && raw[k + 1] == '\n') ? 2 : 1;
      continue;
    }
    if (c == '\n' || c == '\t') {
      out += ' ';
      ++k;
      continue;
    }
    if (c != '&') {
      out += c;
      ++k;
      continue;
    }
    const std::size_t semi = raw.find(';', k);
    if (semi == npos || semi - k > 12)
      malformed(at + k, fmt::format("'&' in the value of {} does not start an entity reference "
                                    "(write &amp;)",
                                    what()));
    const std::string_view ent = raw.substr(k + 1, semi - k - 1);
    if (ent == "lt") {
      out += '<';
    } else if (ent == "gt") {
      out += '>';
    } else if (ent == "amp") {
      out += '&';
    } else if (ent == "quot") {
      out += '"';
    } else if (ent == "apos") {
      out += '\'';
    } else if (ent.size() > 1 && ent[0] == '#') {
      const unsigned long cp = character_reference(ent.substr(1));
      if (cp == kNotACharacter)
        malformed(at + k, fmt::format("'&{};' in the value of {} is not a character reference "
                                      "to an XML character",
                                      excerpt(ent, 0, 12), what()));
      append_utf8(out, cp);
    } else {
      malformed(at + k, fmt::format("unknown entity '&{};' in the value of {} (only &lt; &gt; "
                                    "&amp; &quot; &apos; and character references are read; "
                                    "geolin does not expand DTD entities)",
                                    excerpt(ent, 0, 12), what()));
    }
    k = semi + 1;
  }
}

// ETag ::= '</' Name S? '>'
void Reader::end_tag(std::vector<Open> &open) {
  const std::size_t lt = i_;
  i_ += 2;
  const std::string_view closing = name("an element name after '</'");
  const int e = open.back().element;
  if (closing != doc_.name(e))
    malformed(lt, fmt::format("the end tag </{}> does not match the start tag <{}> ({})", closing,
                              doc_.name(e), doc_.where(e)));
  skip_space();
  if (i_ >= n_ || s_[i_] != '>')
    malformed(lt, fmt::format("the end tag </{}> is not closed by '>'", closing));
  ++i_;
  open.pop_back();
}

// ---------------------------------------------------------------------------------------------
Document::Document(std::string_view text, int max_depth) : text_(text) {
  Reader(*this, text, max_depth).run();
}

std::string_view Document::name(int e) const {
  return text_.substr(elements_[e].name_offset, elements_[e].name_length);
}

int Document::child(int e, std::string_view name) const {
  for (int c = elements_[e].first_child; c >= 0; c = elements_[c].next_sibling)
    if (this->name(c) == name) return c;
  return -1;
}

std::string_view Document::attribute_name(int e, int k) const {
  const Attribute &a = attributes_[elements_[e].first_attribute + static_cast<std::size_t>(k)];
  return text_.substr(a.name_offset, a.name_length);
}

std::string_view Document::attribute_value(int e, int k) const {
  const Attribute &a = attributes_[elements_[e].first_attribute + static_cast<std::size_t>(k)];
  return std::string_view(values_).substr(a.value_offset, a.value_length);
}

std::optional<std::string_view> Document::attribute(int e, std::string_view key) const {
  const int count = num_attributes(e);
  for (int k = 0; k < count; ++k)
    if (attribute_name(e, k) == key) return attribute_value(e, k);
  return std::nullopt;
}

std::string Document::where(int e) const {
  return location(text_, elements_[e].offset);
}

std::string Document::canonical(int e, bool (*keep_child)(std::string_view),
                                bool (*is_number)(std::string_view, std::string_view)) const {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  struct Item {
    int element;
    bool close;
  };
  std::vector<Item> stack{{e, false}};
  std::vector<int> children;
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    if (item.close) {
      out += "</";
      out += name(item.element);
      out += '>';
      continue;
    }
    out += '<';
    out += name(item.element);
    const int count = num_attributes(item.element);
    for (int k = 0; k < count; ++k) {
      out += ' ';
      out += attribute_name(item.element, k);
      out += "=\"";
      const std::string_view value = attribute_value(item.element, k);
      if (is_number && is_number(name(item.element), attribute_name(item.element, k))) {
        append_escaped(out, collapse_whitespace(value));
      } else {
        append_escaped(out, value);
      }
      out += '"';
    }
    children.clear();
    for (int c = first_child(item.element); c >= 0; c = next_sibling(c))
      if (item.element != e || !keep_child || keep_child(name(c))) children.push_back(c);
    if (children.empty()) {
      out += "/>";
      continue;
    }
    out += '>';
    stack.push_back({item.element, true});
    for (auto c = children.rbegin(); c != children.rend(); ++c) stack.push_back({*c, false});
  }
  out += '\n';
  return out;
}

}  // namespace geolin::xml
