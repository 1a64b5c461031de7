#include "core/control_escapes.hpp"

#include <fmt/format.h>

namespace jouleprof {
namespace {

constexpr unsigned char kUtf8C1Lead = 0xC2;  // U+0080–U+009F are 0xC2 0x80–0x9F in UTF-8

bool is_kept_control(unsigned char c) { return c == '\n' || c == '\t'; }
bool is_c0_or_del(unsigned char c) { return (c < 0x20 && !is_kept_control(c)) || c == 0x7F; }
bool is_c1_continuation(unsigned char c) { return c >= 0x80 && c <= 0x9F; }

std::string c0_escape(unsigned char c) {
  switch (c) {
    case '\r':
      return "\\r";
    case '\0':
      return "\\0";
    default:
      return fmt::format("\\x{:02x}", c);
  }
}

// U+0080–U+009F: the code point is the continuation byte itself.
std::string c1_escape(unsigned char continuation) { return fmt::format("\\u{:04x}", continuation); }

}  // namespace

std::string escape_control_characters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_c0_or_del(c)) {
      out += c0_escape(c);
    } else if (c == kUtf8C1Lead && i + 1 < text.size() &&
               is_c1_continuation(static_cast<unsigned char>(text[i + 1]))) {
      out += c1_escape(static_cast<unsigned char>(text[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool ControlEscapingBuffer::put_escaped(unsigned char c) {
  const auto put = [&](std::string_view s) {
    return target_->sputn(s.data(), static_cast<std::streamsize>(s.size())) ==
           static_cast<std::streamsize>(s.size());
  };
  if (after_c2_) {
    after_c2_ = false;
    if (is_c1_continuation(c)) return put(c1_escape(c));
    if (target_->sputc(static_cast<char>(kUtf8C1Lead)) == traits_type::eof()) return false;
  }
  if (c == kUtf8C1Lead) {
    after_c2_ = true;  // held back until the next byte says what it is
    return true;
  }
  if (is_c0_or_del(c)) return put(c0_escape(c));
  return target_->sputc(static_cast<char>(c)) != traits_type::eof();
}

ControlEscapingBuffer::int_type ControlEscapingBuffer::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  return put_escaped(static_cast<unsigned char>(traits_type::to_char_type(ch)))
             ? ch
             : traits_type::eof();
}

std::streamsize ControlEscapingBuffer::xsputn(const char* s, std::streamsize n) {
  // Runs of printable text go through in one call: the common case costs one scan.
  std::streamsize done = 0;
  while (done < n) {
    std::streamsize run = done;
    while (run < n && !after_c2_) {
      const auto c = static_cast<unsigned char>(s[run]);
      if (is_c0_or_del(c) || c == kUtf8C1Lead) break;
      ++run;
    }
    if (run > done) {
      if (target_->sputn(s + done, run - done) != run - done) return done;
      done = run;
    }
    if (done < n) {
      if (!put_escaped(static_cast<unsigned char>(s[done]))) return done;
      ++done;
    }
  }
  return n;
}

ControlEscapingBuffer::~ControlEscapingBuffer() {
  if (after_c2_) target_->sputc(static_cast<char>(kUtf8C1Lead));  // it was text after all
}

// A lead byte held back stays held across a flush: the byte after it decides.
int ControlEscapingBuffer::sync() { return target_->pubsync(); }

std::string quoted_excerpt(std::string_view value) {
  constexpr std::size_t kQuotedBytes = 80;
  if (value.size() <= kQuotedBytes) return "'" + escape_control_characters(value) + "'";
  std::size_t cut = kQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("'{}…' ({} bytes)", escape_control_characters(value.substr(0, cut)),
                     value.size());
}

}  // namespace jouleprof
