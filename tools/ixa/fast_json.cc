#include "tools/ixa/fast_json.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ixa::cli {

namespace {

// Bytes that a JSON string holds as they are and that nlohmann prints as
// they are (ASCII, not a control character, not '"' or '\\').
struct PlainBytes {
  bool plain[256] = {};
  constexpr PlainBytes() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr PlainBytes kPlain;

bool IsPlain(char c) { return kPlain.plain[static_cast<unsigned char>(c)]; }

// The number of plain bytes at the start of s: requests are read and map
// texts written through here. Sixteen bytes at a time with
// SSE2 (every x86-64 has it): a byte is special when it is '"', '\\', or,
// as a signed byte, below 0x20 (the control bytes and every byte >= 0x80).
// Elsewhere eight at a time: a word without a byte below 0x20, at or above
// 0x80, '"' or '\\' is skipped whole (the bit tricks may flag a plain byte
// after a special one, never miss a special one; the byte loop then finds
// the first).
size_t PlainPrefix(std::string_view s) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  for (; i + 16 <= s.size(); i += 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    __m128i special = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
        _mm_cmplt_epi8(x, space));
    int mask = _mm_movemask_epi8(special);
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(mask));
  }
  if (i < s.size() && s.size() >= 16) {
    // The tail: the last 16 bytes, the ones already checked masked off
    // (no byte loop for the end of every printed map).
    const size_t last = s.size() - 16;
    __m128i x =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + last));
    __m128i special = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
        _mm_cmplt_epi8(x, space));
    unsigned mask =
        static_cast<unsigned>(_mm_movemask_epi8(special)) >> (i - last);
    return mask != 0 ? i + static_cast<size_t>(__builtin_ctz(mask)) : s.size();
  }
#else
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, s.data() + i, 8);
    uint64_t quote = x ^ (kOnes * '"');
    uint64_t backslash = x ^ (kOnes * '\\');
    uint64_t special = ((x - kOnes * 0x20) & ~x) | ((quote - kOnes) & ~quote) |
                       ((backslash - kOnes) & ~backslash) | x;
    if ((special & kHigh) != 0) break;
  }
#endif
  while (i < s.size() && IsPlain(s[i])) ++i;
  return i;
}

// PlainPrefix of s when at least 16 readable bytes follow s.data() +
// s.size() (FlatRequest's copy of the line): no byte loop for the tail or
// for a short string, the keys and short values of every request.
size_t PaddedPlainPrefix(std::string_view s) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  for (size_t i = 0; i < s.size(); i += 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    __m128i special = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
        _mm_cmplt_epi8(x, space));
    int mask = _mm_movemask_epi8(special);
    if (mask != 0) {
      return std::min(s.size(), i + static_cast<size_t>(__builtin_ctz(mask)));
    }
  }
  return s.size();
#else
  return PlainPrefix(s);
#endif
}

bool ReadEnabledFromEnvironment() {
  const char* v = std::getenv("IXA_QUERY_FAST_JSON");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// nlohmann's own print, for what is not formatted here.
void AppendWithNlohmann(const Json& v, std::string* out) {
  *out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Appends s quoted and escaped as nlohmann escapes with ensure_ascii =
// false; false (nothing appended) when s has a byte >= 0x80, whose UTF-8
// checks and replacement are nlohmann's business.
bool AppendAsciiString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t size = out->size();
  out->push_back('"');
  size_t run = 0;
  for (size_t i = PlainPrefix(s); i < s.size(); ++i) {
    if (IsPlain(s[i])) continue;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      out->resize(size);
      return false;
    }
    out->append(s.data() + run, i - run);
    run = i + 1;
    out->push_back('\\');
    switch (c) {
      case '"':
      case '\\':
        out->push_back(static_cast<char>(c));
        break;
      case '\b':
        out->push_back('b');
        break;
      case '\f':
        out->push_back('f');
        break;
      case '\n':
        out->push_back('n');
        break;
      case '\r':
        out->push_back('r');
        break;
      case '\t':
        out->push_back('t');
        break;
      default:
        out->append("u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
  return true;
}

void AppendUnsigned(uint64_t v, std::string* out) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) out->push_back(buf[--n]);
}

// The server's original response builder: for IXA_QUERY_FAST_JSON=0 and
// for results that are not a plain object of fields (none today).
std::string ResponseLineWithNlohmann(const Json& id,
                                     const Result<Json>& result) {
  nlohmann::ordered_json response;
  response["id"] = id;
  if (result.ok()) {
    response["ok"] = true;
    for (auto& [key, value] : result->items()) response[key] = value;
  } else {
    response["ok"] = false;
    response["error"] = ErrorJson(result.error());
  }
  return response.dump(-1, ' ', false,
                       nlohmann::json::error_handler_t::replace);
}

Json FlatValueToJson(const FlatRequest& request, const FlatValue& v) {
  switch (v.kind) {
    case FlatValue::Kind::kString:
      return Json(std::string(v.text));
    case FlatValue::Kind::kInteger:
      if (v.negative) return Json(-static_cast<int64_t>(v.magnitude));
      return Json(v.magnitude);
    case FlatValue::Kind::kTrue:
      return Json(true);
    case FlatValue::Kind::kFalse:
      return Json(false);
    case FlatValue::Kind::kNull:
      return Json(nullptr);
    case FlatValue::Kind::kList: {
      Json list = Json::array();
      for (const FlatValue& item : request.Items(v)) {
        list.push_back(FlatValueToJson(request, item));
      }
      return list;
    }
  }
  return Json(nullptr);
}

}  // namespace

bool FastJsonEnabled() {
  static const bool enabled = ReadEnabledFromEnvironment();
  return enabled;
}

// ---- reading -------------------------------------------------------------

bool FlatRequest::Read(std::string_view line) {
  if (!FastJsonEnabled()) return false;
  // A copy with kPadding readable bytes after the text (PaddedPlainPrefix
  // reads whole 16-byte blocks); every view of the request points into it.
  padded_.assign(line);
  padded_.append(kPadding, '\0');
  text_ = std::string_view(padded_.data(), line.size());
  pos_ = 0;
  fields_.clear();
  items_.clear();
  decoded_.clear();
  // Decoded strings are never longer than their text: no reallocation, so
  // views into decoded_ stay valid.
  decoded_.reserve(line.size());
  SkipSpace();
  if (!Take('{')) return false;
  SkipSpace();
  if (!Take('}')) {
    while (true) {
      SkipSpace();
      FlatValue key;
      if (!ReadString(&key) || key.escaped) return false;
      // nlohmann keeps the last of duplicate keys; decline (the general
      // path refuses the request as bad_json).
      if (Find(key.text) != nullptr) return false;
      SkipSpace();
      if (!Take(':')) return false;
      SkipSpace();
      // Read in place (a failed read fails the whole request).
      auto& [name, value] = fields_.emplace_back();
      name = key.text;
      if (!ReadValue(&value, /*allow_list=*/true)) return false;
      SkipSpace();
      if (Take('}')) break;
      if (!Take(',')) return false;
    }
  }
  SkipSpace();
  return pos_ == text_.size();
}

// ASCII only; the escapes that decode to one ASCII byte; no \u.
bool FlatRequest::ReadString(FlatValue* out) {
  // The usual string, without escapes: one scan to its closing quote.
  const size_t start = pos_;
  if (!Take('"')) return false;
  const size_t n = PaddedPlainPrefix(View(pos_, text_.size() - pos_));
  if (pos_ + n < text_.size() && text_[pos_ + n] == '"') {
    out->kind = FlatValue::Kind::kString;
    out->text = View(pos_, n);
    pos_ += n + 1;
    out->raw = View(start, pos_ - start);
    return true;
  }
  pos_ = start;
  return ReadEscapedString(out);
}

bool FlatRequest::ReadEscapedString(FlatValue* out) {
  size_t start = pos_;
  if (!Take('"')) return false;
  out->kind = FlatValue::Kind::kString;
  size_t run = pos_;
  size_t decoded_start = decoded_.size();
  while (pos_ < text_.size()) {
    pos_ += PaddedPlainPrefix(View(pos_, text_.size() - pos_));
    if (pos_ >= text_.size()) break;
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      if (out->escaped) {
        decoded_.append(text_.data() + run, pos_ - run);
        out->text = std::string_view(decoded_.data() + decoded_start,
                                     decoded_.size() - decoded_start);
      } else {
        out->text = View(run, pos_ - run);
      }
      ++pos_;
      out->raw = View(start, pos_ - start);
      return true;
    }
    if (c != '\\') return false;  // a control or non-ASCII byte
    if (pos_ + 1 >= text_.size()) return false;
    char decoded;
    switch (text_[pos_ + 1]) {
      case '"':
        decoded = '"';
        break;
      case '\\':
        decoded = '\\';
        break;
      case '/':
        decoded = '/';
        break;
      case 'b':
        decoded = '\b';
        break;
      case 'f':
        decoded = '\f';
        break;
      case 'n':
        decoded = '\n';
        break;
      case 'r':
        decoded = '\r';
        break;
      case 't':
        decoded = '\t';
        break;
      default:
        return false;  // \u and invalid escapes: nlohmann decides
    }
    out->escaped = true;
    decoded_.append(text_.data() + run, pos_ - run);
    decoded_.push_back(decoded);
    pos_ += 2;
    run = pos_;
  }
  return false;  // unterminated
}

// -?(0|[1-9][0-9]{0,17}), not followed by a fraction or an exponent; "-0"
// is declined (nlohmann reads it as the integer 0).
bool FlatRequest::ReadInteger(FlatValue* out) {
  size_t start = pos_;
  bool negative = Take('-');
  size_t digits = pos_;
  uint64_t v = 0;
  while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
    v = v * 10 + static_cast<uint64_t>(text_[pos_] - '0');
    ++pos_;
  }
  size_t n = pos_ - digits;
  if (n == 0 || n > 18) return false;
  if (text_[digits] == '0' && (n > 1 || negative)) return false;
  if (pos_ < text_.size() &&
      (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
    return false;
  }
  out->kind = FlatValue::Kind::kInteger;
  out->negative = negative;
  out->magnitude = v;
  out->raw = View(start, pos_ - start);
  return true;
}

bool FlatRequest::ReadValue(FlatValue* out, bool allow_list) {
  if (pos_ >= text_.size()) return false;
  char c = text_[pos_];
  if (c == '"') return ReadString(out);
  if (c == '-' || (c >= '0' && c <= '9')) return ReadInteger(out);
  size_t start = pos_;
  for (auto [word, kind] :
       {std::pair{std::string_view("true"), FlatValue::Kind::kTrue},
        std::pair{std::string_view("false"), FlatValue::Kind::kFalse},
        std::pair{std::string_view("null"), FlatValue::Kind::kNull}}) {
    if (text_.size() - pos_ >= word.size() && View(pos_, word.size()) == word) {
      pos_ += word.size();
      out->kind = kind;
      out->raw = View(start, word.size());
      return true;
    }
  }
  if (c != '[' || !allow_list) return false;
  ++pos_;
  // Items of one list are contiguous: lists do not nest.
  out->kind = FlatValue::Kind::kList;
  out->first_item = static_cast<uint32_t>(items_.size());
  SkipSpace();
  if (!Take(']')) {
    while (true) {
      SkipSpace();
      FlatValue item;
      if (!ReadValue(&item, /*allow_list=*/false)) return false;
      items_.push_back(item);
      SkipSpace();
      if (Take(']')) break;
      if (!Take(',')) return false;
    }
  }
  out->num_items = static_cast<uint32_t>(items_.size()) - out->first_item;
  out->raw = View(start, pos_ - start);
  return true;
}

Json FlatRequest::ToJson() const {
  Json object = Json::object();
  for (const auto& [key, value] : fields_) {
    object.emplace(std::string(key), FlatValueToJson(*this, value));
  }
  return object;
}

// ---- writing -------------------------------------------------------------

void AppendJsonString(std::string_view s, std::string* out) {
  if (!AppendAsciiString(s, out)) AppendWithNlohmann(Json(std::string(s)), out);
}

void QuoteAppendedText(size_t start, std::string* out) {
  std::string_view text(out->data() + start, out->size() - start);
  if (PlainPrefix(text) == text.size()) {
    out->push_back('"');
    return;
  }
  std::string copy(text);
  out->resize(start - 1);
  AppendJsonString(copy, out);
}

void AppendFlatValue(const FlatRequest& request, const FlatValue& v,
                     std::string* out) {
  switch (v.kind) {
    case FlatValue::Kind::kString:
      // Read without escapes, every byte is plain: the text as read is
      // what AppendJsonString would write.
      if (!v.escaped) {
        out->append(v.raw);
      } else {
        AppendJsonString(v.text, out);
      }
      return;
    case FlatValue::Kind::kInteger:
    case FlatValue::Kind::kTrue:
    case FlatValue::Kind::kFalse:
    case FlatValue::Kind::kNull:
      out->append(v.raw);  // canonical as read: what nlohmann prints
      return;
    case FlatValue::Kind::kList: {
      out->push_back('[');
      bool first = true;
      for (const FlatValue& item : request.Items(v)) {
        if (!first) out->push_back(',');
        first = false;
        AppendFlatValue(request, item, out);
      }
      out->push_back(']');
      return;
    }
  }
}

void AppendJson(const Json& v, std::string* out) {
  switch (v.type()) {
    case Json::value_t::null:
      out->append("null");
      return;
    case Json::value_t::boolean:
      out->append(v.get<bool>() ? "true" : "false");
      return;
    case Json::value_t::number_unsigned:
      AppendUnsigned(v.get<uint64_t>(), out);
      return;
    case Json::value_t::number_integer: {
      int64_t x = v.get<int64_t>();
      if (x < 0) {
        out->push_back('-');
        AppendUnsigned(0 - static_cast<uint64_t>(x), out);
      } else {
        AppendUnsigned(static_cast<uint64_t>(x), out);
      }
      return;
    }
    case Json::value_t::string:
      AppendJsonString(v.get_ref<const std::string&>(), out);
      return;
    case Json::value_t::array: {
      out->push_back('[');
      bool first = true;
      for (const Json& item : v) {
        if (!first) out->push_back(',');
        first = false;
        AppendJson(item, out);
      }
      out->push_back(']');
      return;
    }
    case Json::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (const auto& [key, value] : v.items()) {
        if (!first) out->push_back(',');
        first = false;
        AppendJsonString(key, out);
        out->push_back(':');
        AppendJson(value, out);
      }
      out->push_back('}');
      return;
    }
    default:  // floats, binary, discarded
      AppendWithNlohmann(v, out);
  }
}

Json ErrorJson(const Error& e) {
  Json err{{"code", ErrorCodeName(e.code)},
           {"message", ClipMessage(e.message)}};
  if (e.line > 0) {
    err["line"] = e.line;
    err["column"] = e.column;
  }
  return err;
}

std::string ResponseLine(const Json& id, const Result<Json>& result) {
  if (!FastJsonEnabled() ||
      (result.ok() && (!result->is_object() || result->contains("id") ||
                       result->contains("ok")))) {
    return ResponseLineWithNlohmann(id, result);
  }
  std::string line;
  line.reserve(256);
  line.append("{\"id\":");
  AppendJson(id, &line);
  if (result.ok()) {
    line.append(",\"ok\":true");
    for (const auto& [key, value] : result->items()) {
      line.push_back(',');
      AppendJsonString(key, &line);
      line.push_back(':');
      AppendJson(value, &line);
    }
  } else {
    line.append(",\"ok\":false,\"error\":");
    AppendJson(ErrorJson(result.error()), &line);
  }
  line.push_back('}');
  return line;
}

}  // namespace ixa::cli
