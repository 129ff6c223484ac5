// The XML reader of the URDF loader (xml.cpp; internal, not installed).
//
// It is the only reader of a URDF's raw text: it decides the element structure and its depth,
// and urdfdom is later given a canonical document written from this tree (canonical()), so the
// two can never disagree about which elements exist. It reads the XML 1.0 syntax a URDF uses
// and refuses (Status::Parse, with line and column) everything else instead of guessing:
//   - an optional UTF-8 byte-order mark and XML declaration <?xml version=".." encoding=".."
//     standalone=".."?> (only at the very start; pseudo-attributes in that order, values of
//     their XML grammar, either quote);
//   - comments (they end at the first "-->"), processing instructions (they end at the first
//     "?>"; quotes mean nothing there, as in XML), CDATA sections inside elements (end at the
//     first "]]>"), character data (skipped: a URDF has none that matters);
//   - one DOCTYPE before the root: name, optional SYSTEM/PUBLIC literals and an internal subset
//     of comments, processing instructions and <!ELEMENT>/<!NOTATION> declarations (quoted
//     literals honoured). <!ENTITY>, <!ATTLIST> and parameter-entity references are refused:
//     they would add entities or default attributes that this reader does not apply;
//   - exactly one root element; elements and attributes whose names follow the intersection
//     of the XML and TinyXML name rules (an ASCII letter, '_' or a non-ASCII character first,
//     then also digits, '-', '.', ':'; not starting with U+FEFF, which TinyXML skips);
//     quoted attribute values without '<'; no duplicate
//     attribute; the five predefined entities and character references of XML characters
//     only (no DTD entities); names and values valid UTF-8 without control characters.
//     Attribute values are normalized as XML says (a literal tab, CR, LF or CR LF becomes one
//     space; character references keep their character).
// Nesting deeper than max_depth is refused while reading, so neither this reader (iterative,
// explicit stack) nor the recursive parser that later reads the canonical document can run
// out of stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geolin::xml {

class Document {
 public:
  /// Reads `text`, which must outlive the document (names are views into it). Throws
  /// Error(Status::Parse) naming what is wrong, with line and column.
  Document(std::string_view text, int max_depth);

  int root() const { return root_; }  // the root element (there is always one)
  int num_elements() const { return static_cast<int>(elements_.size()); }
  std::string_view name(int e) const;
  int parent(int e) const { return elements_[e].parent; }
  int first_child(int e) const { return elements_[e].first_child; }
  int next_sibling(int e) const { return elements_[e].next_sibling; }
  /// The first child of e called `name`, or -1.
  int child(int e, std::string_view name) const;

  int num_attributes(int e) const { return static_cast<int>(elements_[e].num_attributes); }
  std::string_view attribute_name(int e, int k) const;
  std::string_view attribute_value(int e, int k) const;  // decoded and normalized
  std::optional<std::string_view> attribute(int e, std::string_view key) const;

  /// "line L, column C" of the start of element e (columns count bytes from 1).
  std::string where(int e) const;
  /// The encoding named by the XML declaration ("" without one).
  const std::string &declared_encoding() const { return encoding_; }

  /// A canonical XML document of element e and its subtree: an XML declaration (UTF-8), then
  /// elements and attributes only, attribute values escaped (&amp; &lt; &gt; &quot; and
  /// character references for tab, LF, CR), no text, comments, DOCTYPE or processing
  /// instructions. If `keep_child` is given, a direct child c of e is written only if
  /// keep_child(name(c)); deeper elements are always written. If `is_number` is given, the
  /// value of every attribute for which is_number(element name, attribute name) holds is
  /// written with its XML whitespace (space, tab, CR, LF) collapsed, as XML Schema does for
  /// xs:double and lists of numbers: no leading or trailing whitespace, one space between
  /// tokens. Iterative.
  std::string canonical(int e, bool (*keep_child)(std::string_view) = nullptr,
                        bool (*is_number)(std::string_view, std::string_view) = nullptr) const;

 private:
  struct Element {
    std::size_t name_offset = 0;  // in the text
    std::size_t offset = 0;       // of '<' in the text
    std::uint32_t name_length = 0;
    std::uint32_t num_attributes = 0;
    std::size_t first_attribute = 0;
    int parent = -1, first_child = -1, next_sibling = -1;
  };
  struct Attribute {
    std::size_t name_offset = 0;   // in the text
    std::size_t value_offset = 0;  // in values_
    std::size_t value_length = 0;
    std::uint32_t name_length = 0;
  };
  friend class Reader;

  std::string_view text_;
  std::vector<Element> elements_;
  std::vector<Attribute> attributes_;
  std::string values_;  // every decoded attribute value, back to back
  std::string encoding_;
  int root_ = -1;
};

/// Appends `value` escaped for an XML attribute value or text (&amp; &lt; &gt; &quot;; tab, LF
/// and CR as character references, so that they survive attribute-value normalization).
void append_escaped(std::string &out, std::string_view value);

/// "line L, column C" of byte `offset` of `text`.
std::string location(std::string_view text, std::size_t offset);

/// The offset of the first byte of `s` that does not start a valid UTF-8 encoding of an XML
/// character (tab, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF), or npos.
std::size_t invalid_utf8(std::string_view s);

/// A short, printable excerpt of `text` from `offset` (at most `max` bytes; bytes that are
/// not printable ASCII as \xHH), for messages.
std::string excerpt(std::string_view text, std::size_t offset, std::size_t max = 24);

}  // namespace geolin::xml
