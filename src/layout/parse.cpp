// Text form of fly::dyn IntTuples and Layouts in CuTe notation: `(_2,3)`, `(_2,_3):(_1,_8)`.
#include <cctype>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "fly/layout/dynamic.hpp"

namespace fly::dyn {

namespace {

// Recursive-descent reader; every error names the full text and the byte position.
class Parser {
 public:
  Parser(std::string_view text, const char* op) : text_(text), op_(op) {}

  IntTuple int_tuple() {
    skip_ws();
    if (peek() == '(') return tuple();
    return leaf();
  }

  void expect(char c) {
    skip_ws();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  void expect_end() {
    skip_ws();
    if (pos_ != text_.size()) fail("unexpected trailing text");
  }

  [[noreturn]] void fail(const std::string& what) const {
    std::ostringstream os;
    os << op_ << ": " << what << " at position " << pos_ << " in \"" << text_ << "\"";
    throw std::invalid_argument(os.str());
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_ws() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  IntTuple tuple() {
    ++pos_;  // '('
    std::vector<IntTuple> children;
    skip_ws();
    if (peek() == ')') {  // CuTe prints the empty tuple as ()
      ++pos_;
      return IntTuple::tuple({});
    }
    for (;;) {
      children.push_back(int_tuple());
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ')') {
        ++pos_;
        return IntTuple::tuple(std::move(children));
      }
      fail("expected ',' or ')'");
    }
  }

  IntTuple leaf() {
    bool is_static = false;
    if (peek() == '_') {
      is_static = true;
      ++pos_;
    }
    bool negative = false;
    if (peek() == '-') {
      negative = true;
      ++pos_;
    }
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected an integer");
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const int digit = peek() - '0';
      if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) fail("integer too large");
      v = v * 10 + digit;
      ++pos_;
    }
    return IntTuple(negative ? -v : v, is_static);
  }

  std::string_view text_;
  const char* op_;
  size_t pos_ = 0;
};

// Same tuple profile: shape and stride must pair leaf with leaf.
bool congruent(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf() || b.is_leaf()) return a.is_leaf() && b.is_leaf();
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (!congruent(a[i], b[i])) return false;
  }
  return true;
}

void print(std::ostream& os, const IntTuple& t) {
  if (t.is_leaf()) {
    if (t.is_static()) os << '_';
    os << t.value();
    return;
  }
  os << '(';
  for (size_t i = 0; i < t.children().size(); ++i) {
    if (i) os << ',';
    print(os, t.children()[i]);
  }
  os << ')';
}

}  // namespace

IntTuple parse_int_tuple(std::string_view text) {
  Parser p(text, "fly::dyn::parse_int_tuple");
  IntTuple t = p.int_tuple();
  p.expect_end();
  return t;
}

Layout parse_layout(std::string_view text) {
  Parser p(text, "fly::dyn::parse_layout");
  IntTuple shape = p.int_tuple();
  p.expect(':');
  IntTuple stride = p.int_tuple();
  p.expect_end();
  if (!congruent(shape, stride)) p.fail("shape and stride are not congruent");
  return Layout{shape, stride};
}

std::string to_string(const IntTuple& t) {
  std::ostringstream os;
  print(os, t);
  return os.str();
}

std::string to_string(const Layout& l) { return to_string(l.shape) + ":" + to_string(l.stride); }

std::ostream& operator<<(std::ostream& os, const IntTuple& t) { return os << to_string(t); }
std::ostream& operator<<(std::ostream& os, const Layout& l) { return os << to_string(l); }

}  // namespace fly::dyn
