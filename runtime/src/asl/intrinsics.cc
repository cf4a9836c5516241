#include "novacat/runtime/asl/intrinsics.h"

#include <openssl/evp.h>

#include <cmath>
#include <set>
#include <string_view>

#include "novacat/runtime/asl/asl_error.h"
#include "novacat/runtime/asl/json_path.h"

namespace novacat::runtime::asl {

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void Fail(const std::string& cause) {
  throw AslError("States.IntrinsicFailure", cause);
}

// Parses and evaluates one intrinsic expression, recursively.
class Parser {
 public:
  Parser(const std::string& text, const Json& input, const Json& context,
         const std::function<uint64_t()>& random,
         const VariableLookup* variables)
      : text_(text),
        input_(input),
        context_(context),
        random_(random),
        variables_(variables) {}

  Json Run() {
    Json value = Call();
    SkipSpace();
    if (at_ != text_.size()) Fail("unexpected text after the call in " + text_);
    return value;
  }

 private:
  void SkipSpace() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }

  Json Call() {
    SkipSpace();
    size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) ||
            text_[at_] == '.'))
      ++at_;
    std::string name = text_.substr(start, at_ - start);
    SkipSpace();
    if (at_ >= text_.size() || text_[at_] != '(')
      Fail("expected '(' after " + name);
    ++at_;
    std::vector<Json> args;
    SkipSpace();
    if (at_ < text_.size() && text_[at_] == ')') {
      ++at_;
    } else {
      while (true) {
        args.push_back(Argument());
        SkipSpace();
        if (at_ >= text_.size()) Fail("unterminated call to " + name);
        if (text_[at_] == ',') {
          ++at_;
          continue;
        }
        if (text_[at_] == ')') {
          ++at_;
          break;
        }
        Fail("expected ',' or ')' in call to " + name);
      }
    }
    return Apply(name, args);
  }

  Json Argument() {
    SkipSpace();
    if (at_ >= text_.size()) Fail("missing argument");
    char c = text_[at_];
    if (c == '\'') return StringLiteral();
    if (c == '$') return PathArgument();
    if (text_.compare(at_, 7, "States.") == 0) return Call();
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c)))
      return Number();
    for (const char* word : {"true", "false", "null"}) {
      size_t n = std::string_view(word).size();
      if (text_.compare(at_, n, word) == 0) {
        at_ += n;
        return Json::parse(word);
      }
    }
    Fail(std::string("unexpected '") + c + "' in " + text_);
  }

  Json StringLiteral() {
    ++at_;  // opening quote
    std::string value;
    while (at_ < text_.size() && text_[at_] != '\'') {
      if (text_[at_] == '\\' && at_ + 1 < text_.size()) {
        value += text_[at_ + 1];
        at_ += 2;
      } else {
        value += text_[at_++];
      }
    }
    if (at_ >= text_.size()) Fail("unterminated string in " + text_);
    ++at_;
    return value;
  }

  Json Number() {
    size_t start = at_;
    if (text_[at_] == '-') ++at_;
    while (at_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[at_])) ||
            text_[at_] == '.'))
      ++at_;
    try {
      return Json::parse(text_.substr(start, at_ - start));
    } catch (const Json::exception&) {
      Fail("bad number in " + text_);
    }
  }

  Json PathArgument() {
    size_t start = at_;
    int depth = 0;
    while (at_ < text_.size()) {
      char c = text_[at_];
      if (c == '[') ++depth;
      if (c == ']') --depth;
      if (depth == 0 && (c == ',' || c == ')' || c == ' ')) break;
      ++at_;
    }
    std::string text = text_.substr(start, at_ - start);
    std::optional<Path> path = ParsePath(text);
    if (!path) Fail("unsupported path " + text);
    if (!path->variable.empty() && !variables_)
      Fail("no variables here: " + text);
    const Json& root = !path->variable.empty() ? (*variables_)(path->variable)
                       : path->context         ? context_
                                               : input_;
    const Json* value = Find(root, *path);
    if (!value) throw IntrinsicPathNotFound(text, root);
    if (path->IsReference()) return *value;
    std::optional<Json> matches = Query(*value, *path);
    if (!matches) throw IntrinsicPathNotFound(text, root);
    return std::move(*matches);
  }

  static std::string Text(const Json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
  }

  static void Arity(const std::string& name, const std::vector<Json>& args,
                    size_t min, size_t max) {
    if (args.size() < min || args.size() > max)
      Fail(name + " takes " + std::to_string(min) +
           (max != min ? " to " + std::to_string(max) : "") + " arguments");
  }

  Json Apply(const std::string& name, const std::vector<Json>& args) {
    if (name == "States.Format") {
      Arity(name, args, 1, 1000);
      if (!args[0].is_string()) Fail("States.Format needs a template string");
      const std::string format = args[0].get<std::string>();
      std::string out;
      size_t next = 1;
      for (size_t i = 0; i < format.size(); ++i) {
        if (format[i] == '{' && i + 1 < format.size() && format[i + 1] == '}') {
          if (next >= args.size()) Fail("States.Format has too few arguments");
          out += Text(args[next++]);
          ++i;
        } else {
          out += format[i];
        }
      }
      if (next != args.size()) Fail("States.Format has too many arguments");
      return out;
    }
    if (name == "States.StringToJson") {
      Arity(name, args, 1, 1);
      if (!args[0].is_string()) Fail("States.StringToJson needs a string");
      try {
        return Json::parse(args[0].get<std::string>());
      } catch (const Json::exception&) {
        Fail("States.StringToJson: not JSON");
      }
    }
    if (name == "States.JsonToString") {
      Arity(name, args, 1, 1);
      return args[0].dump();
    }
    if (name == "States.Array") return Json(args);
    if (name == "States.ArrayLength") {
      Arity(name, args, 1, 1);
      if (!args[0].is_array()) Fail("States.ArrayLength needs an array");
      return args[0].size();
    }
    if (name == "States.ArrayContains") {
      Arity(name, args, 2, 2);
      if (!args[0].is_array()) Fail("States.ArrayContains needs an array");
      for (const auto& v : args[0])
        if (v == args[1]) return true;
      return false;
    }
    if (name == "States.ArrayGetItem") {
      Arity(name, args, 2, 2);
      if (!args[0].is_array() || !args[1].is_number_integer())
        Fail("States.ArrayGetItem needs an array and an index");
      int64_t i = args[1].get<int64_t>();
      if (i < 0 || static_cast<size_t>(i) >= args[0].size())
        Fail("States.ArrayGetItem: index out of range");
      return args[0][static_cast<size_t>(i)];
    }
    if (name == "States.ArrayRange") {
      Arity(name, args, 3, 3);
      for (const auto& a : args)
        if (!a.is_number_integer()) Fail("States.ArrayRange needs integers");
      int64_t from = args[0], to = args[1], step = args[2];
      if (step == 0) Fail("States.ArrayRange: step 0");
      Json out = Json::array();
      for (int64_t v = from; step > 0 ? v <= to : v >= to; v += step) {
        out.push_back(v);
        if (out.size() > 1000) Fail("States.ArrayRange: more than 1000 items");
      }
      return out;
    }
    if (name == "States.ArrayPartition") {
      Arity(name, args, 2, 2);
      if (!args[0].is_array() || !args[1].is_number_integer() || args[1] <= 0)
        Fail("States.ArrayPartition needs an array and a positive size");
      size_t size = args[1].get<size_t>();
      Json out = Json::array();
      for (size_t i = 0; i < args[0].size(); i += size) {
        Json chunk = Json::array();
        for (size_t j = i; j < std::min(i + size, args[0].size()); ++j)
          chunk.push_back(args[0][j]);
        out.push_back(chunk);
      }
      return out;
    }
    if (name == "States.ArrayUnique") {
      Arity(name, args, 1, 1);
      if (!args[0].is_array()) Fail("States.ArrayUnique needs an array");
      Json out = Json::array();
      for (const auto& v : args[0]) {
        bool seen = false;
        for (const auto& o : out) seen = seen || o == v;
        if (!seen) out.push_back(v);
      }
      return out;
    }
    if (name == "States.JsonMerge") {
      Arity(name, args, 3, 3);
      if (!args[0].is_object() || !args[1].is_object() || !args[2].is_boolean())
        Fail("States.JsonMerge needs two objects and a boolean");
      if (args[2].get<bool>())
        Fail("States.JsonMerge: deep merge is not supported");
      Json out = args[0];
      for (auto it = args[1].begin(); it != args[1].end(); ++it)
        out[it.key()] = it.value();
      return out;
    }
    if (name == "States.MathAdd") {
      Arity(name, args, 2, 2);
      if (!args[0].is_number_integer() || !args[1].is_number_integer())
        Fail("States.MathAdd needs integers");
      return args[0].get<int64_t>() + args[1].get<int64_t>();
    }
    if (name == "States.MathRandom") {
      Arity(name, args, 2, 3);
      if (!args[0].is_number_integer() || !args[1].is_number_integer())
        Fail("States.MathRandom needs integers");
      int64_t lo = args[0], hi = args[1];
      if (hi <= lo) Fail("States.MathRandom: empty range");
      return lo +
             static_cast<int64_t>(random_() % static_cast<uint64_t>(hi - lo));
    }
    if (name == "States.StringSplit") {
      Arity(name, args, 2, 2);
      if (!args[0].is_string() || !args[1].is_string())
        Fail("States.StringSplit needs two strings");
      const std::string s = args[0], delims = args[1];
      Json out = Json::array();
      std::string current;
      for (char c : s) {
        if (delims.find(c) != std::string::npos) {
          if (!current.empty()) out.push_back(current);
          current.clear();
        } else {
          current += c;
        }
      }
      if (!current.empty()) out.push_back(current);
      return out;
    }
    if (name == "States.UUID") {
      Arity(name, args, 0, 0);
      uint64_t a = random_(), b = random_();
      a = (a & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
      b = (b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
      char buf[37];
      std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx",
                    static_cast<unsigned long long>(a >> 32),
                    static_cast<unsigned long long>((a >> 16) & 0xFFFF),
                    static_cast<unsigned long long>(a & 0xFFFF),
                    static_cast<unsigned long long>(b >> 48),
                    static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFULL));
      return std::string(buf);
    }
    if (name == "States.Base64Encode" || name == "States.Base64Decode") {
      Arity(name, args, 1, 1);
      if (!args[0].is_string()) Fail(name + " needs a string");
      const std::string in = args[0];
      std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
      if (name == "States.Base64Encode") {
        int n =
            EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(in.data()),
                            static_cast<int>(in.size()));
        out.resize(static_cast<size_t>(n));
        return out;
      }
      if (in.size() % 4 != 0) Fail("States.Base64Decode: not base64");
      int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                              reinterpret_cast<const unsigned char*>(in.data()),
                              static_cast<int>(in.size()));
      if (n < 0) Fail("States.Base64Decode: not base64");
      size_t pad = 0;
      for (size_t i = in.size(); i > 0 && in[i - 1] == '='; --i) ++pad;
      out.resize(static_cast<size_t>(n) - pad);
      return out;
    }
    if (name == "States.Hash") {
      Arity(name, args, 2, 2);
      if (!args[1].is_string()) Fail("States.Hash needs an algorithm name");
      const std::string algorithm = args[1];
      const EVP_MD* md = algorithm == "MD5"       ? EVP_md5()
                         : algorithm == "SHA-1"   ? EVP_sha1()
                         : algorithm == "SHA-256" ? EVP_sha256()
                         : algorithm == "SHA-384" ? EVP_sha384()
                         : algorithm == "SHA-512" ? EVP_sha512()
                                                  : nullptr;
      if (!md) Fail("States.Hash: unknown algorithm " + algorithm);
      const std::string data = Text(args[0]);
      unsigned char digest[EVP_MAX_MD_SIZE];
      unsigned int length = 0;
      EVP_Digest(data.data(), data.size(), digest, &length, md, nullptr);
      std::string hex;
      for (unsigned int i = 0; i < length; ++i) {
        char b[3];
        std::snprintf(b, sizeof b, "%02x", digest[i]);
        hex += b;
      }
      return hex;
    }
    Fail("unknown intrinsic function " + name);
  }

  const std::string& text_;
  const Json& input_;
  const Json& context_;
  const std::function<uint64_t()>& random_;
  const VariableLookup* variables_;
  size_t at_ = 0;
};

const std::set<std::string>& Supported() {
  static const std::set<std::string> kNames = {
      "States.Format",       "States.StringToJson", "States.JsonToString",
      "States.Array",        "States.ArrayLength",  "States.ArrayContains",
      "States.ArrayGetItem", "States.ArrayRange",   "States.ArrayPartition",
      "States.ArrayUnique",  "States.JsonMerge",    "States.MathAdd",
      "States.MathRandom",   "States.StringSplit",  "States.UUID",
      "States.Base64Encode", "States.Base64Decode", "States.Hash"};
  return kNames;
}

}  // namespace

bool IsIntrinsic(const std::string& text) {
  return text.rfind("States.", 0) == 0;
}

bool IsSupportedIntrinsic(const std::string& name) {
  return Supported().count(name) > 0;
}

nlohmann::ordered_json EvaluateIntrinsic(
    const std::string& text, const nlohmann::ordered_json& input,
    const nlohmann::ordered_json& context,
    const std::function<uint64_t()>& random, const VariableLookup* variables) {
  return Parser(text, input, context, random, variables).Run();
}

}  // namespace novacat::runtime::asl
