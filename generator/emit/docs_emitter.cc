#include "emit/docs_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <kainjow/mustache.hpp>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "check/backoff.h"
#include "check/limits.h"
#include "emit/templates.h"
#include "model/routes.h"

namespace novacat {

namespace {

// The template EmitWorkflowDocs renders.
constexpr char kReadmeTemplate[] = "workflow_readme.md.mustache";

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Letters, digits and every non-ASCII byte (Markdown counts Unicode letters
// as word characters; a multi-byte character is never split).
bool IsWordByte(unsigned char c) {
  return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

// `_` opens or closes emphasis only at the edge of a word.
bool UnderscoreAtWordEdge(std::string_view s, size_t i) {
  bool before = i > 0 && IsWordByte(static_cast<unsigned char>(s[i - 1]));
  bool after =
      i + 1 < s.size() && IsWordByte(static_cast<unsigned char>(s[i + 1]));
  return !(before && after);
}

// One line: control characters (newlines included) become spaces, runs of
// whitespace collapse to one space, and the ends are trimmed.
std::string OneLine(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  bool space = false;
  for (char ch : in) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (IsControl(c) || c == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

bool StartsWithCaseless(std::string_view s, size_t at, std::string_view word) {
  if (s.size() - at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    char c = s[at + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

}  // namespace

namespace docs {

std::string MermaidText(std::string_view text) {
  std::string in = OneLine(text);
  std::string out;
  out.reserve(in.size() + 16);
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    switch (c) {
      case '#':
      case '"':
      case ':':
      case ';':
      case '<':
      case '>':
      case '&':
      case '{':
      case '}':
      case '[':
      case ']':
      case '%':
      case '\\':
      case '`':
      case '*':
      case '~':
      case '$':
        out += fmt::format("#{};", static_cast<int>(c));
        break;
      case '_':
        if (UnderscoreAtWordEdge(in, i)) {
          out += "#95;";
        } else {
          out += c;
        }
        break;
      case ' ':
        // Mermaid's lexer takes any line holding "direction <word>" for a
        // direction statement, wherever it is.
        if (i >= 9 && StartsWithCaseless(in, i - 9, "direction")) {
          out += "#32;";
        } else {
          out += c;
        }
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string MarkdownInline(std::string_view text) {
  std::string in = OneLine(text);
  std::string out;
  out.reserve(in.size() + 16);
  // Block syntax at the start of the text: headings, list items, quotes,
  // setext underlines, ordered list numbers.
  size_t start = 0;
  if (!in.empty() &&
      (in[0] == '#' || in[0] == '-' || in[0] == '+' || in[0] == '=')) {
    out += '\\';
    out += in[0];
    start = 1;
  } else {
    size_t digits = 0;
    while (digits < in.size() && in[digits] >= '0' && in[digits] <= '9')
      ++digits;
    if (digits > 0 && digits < in.size() &&
        (in[digits] == '.' || in[digits] == ')')) {
      out += in.substr(0, digits);
      out += '\\';
      out += in[digits];
      start = digits + 1;
    }
  }
  // A heading's closing `#` run would be dropped.
  size_t closing = in.size();
  while (closing > start && in[closing - 1] == '#') --closing;
  for (size_t i = start; i < in.size(); ++i) {
    char c = in[i];
    if (c == '#' && i == closing) out += '\\';
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '[':
      case ']':
      case '<':
      case '>':
      case '|':
      case '~':
      case '$':
        out += '\\';
        out += c;
        break;
      case '_':
        if (UnderscoreAtWordEdge(in, i)) out += '\\';
        out += c;
        break;
      case '&':
        if (i + 1 < in.size() &&
            (in[i + 1] == '#' ||
             IsWordByte(static_cast<unsigned char>(in[i + 1]))))
          out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string MarkdownBlock(std::string_view text) {
  std::vector<std::string> paragraphs;
  std::string current;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    std::string trimmed = OneLine(line);
    if (trimmed.empty()) {
      if (!current.empty()) paragraphs.push_back(MarkdownInline(current));
      current.clear();
    } else {
      if (!current.empty()) current += ' ';
      current += trimmed;
    }
    at = end + 1;
  }
  if (!current.empty()) paragraphs.push_back(MarkdownInline(current));
  std::string out;
  for (const auto& p : paragraphs) {
    if (!out.empty()) out += "\n\n";
    out += p;
  }
  return out;
}

std::string MarkdownCode(std::string_view text, bool in_table) {
  std::string in;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    in += IsControl(c) ? ' ' : ch;
  }
  if (in.empty()) return "";
  size_t longest = 0;
  size_t run = 0;
  for (char c : in) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  bool pad = in.front() == '`' || in.back() == '`' ||
             (in.front() == ' ' && in.back() == ' ' &&
              in.find_first_not_of(' ') != std::string::npos);
  std::string body = pad ? " " + in + " " : in;
  if (in_table) {
    std::string escaped;
    for (char c : body) {
      if (c == '|') escaped += '\\';
      escaped += c;
    }
    body = escaped;
  }
  return fence + body + fence;
}

std::string DotString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == '"') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '&') {
      out += "&#38;";
    } else if (IsControl(c)) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace docs

namespace {

using docs::DotString;
using docs::MarkdownBlock;
using docs::MarkdownCode;
using docs::MarkdownInline;
using docs::MermaidText;
namespace mustache = kainjow::mustache;

using Escaper = std::string (*)(std::string_view);

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string Cell(std::string_view text) { return MarkdownInline(text); }
std::string CellCode(std::string_view text) { return MarkdownCode(text, true); }
std::string CellCodes(const std::vector<std::string>& names) {
  std::vector<std::string> parts;
  for (const auto& n : names) parts.push_back(CellCode(n));
  return Join(parts, ", ");
}

// "10s", "15m", "2h", "1d": the largest unit that divides the duration.
std::string FormatDuration(int64_t seconds) {
  if (seconds > 0 && seconds % 86400 == 0)
    return fmt::format("{}d", seconds / 86400);
  if (seconds > 0 && seconds % 3600 == 0)
    return fmt::format("{}h", seconds / 3600);
  if (seconds > 0 && seconds % 60 == 0) return fmt::format("{}m", seconds / 60);
  return fmt::format("{}s", seconds);
}

// The file name of the spec, safe inside an HTML comment.
std::string CommentSafe(const std::string& text) {
  std::string out;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (IsControl(c)) {
      out += ' ';
    } else if (ch == '>') {
      out += "&gt;";
    } else if (ch == '-' && !out.empty() && out.back() == '-') {
      out += " -";
    } else {
      out += ch;
    }
  }
  return out;
}

// Percent-encodes a URL path segment.
std::string UrlSegment(const std::string& text) {
  std::string out;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
        c == '~') {
      out += ch;
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned>(c));
    }
  }
  return out;
}

const ErrorClass kClassOrder[] = {ErrorClass::kRetryable, ErrorClass::kTerminal,
                                  ErrorClass::kQuarantine};

// Catch labels list classes the way the ASL emitter orders their names.
const ErrorClass kCatchOrder[] = {
    ErrorClass::kQuarantine, ErrorClass::kTerminal, ErrorClass::kRetryable};

std::string CatchClasses(const CatchRoute& route) {
  if (route.catch_all) return "any failure";
  std::vector<std::string> names;
  for (ErrorClass c : kCatchOrder) {
    if (std::find(route.classes.begin(), route.classes.end(), c) !=
        route.classes.end())
      names.push_back(ErrorClassName(c));
  }
  return Join(names, ", ");
}

// A Choice literal as shown in a label: bare when it reads unambiguously,
// quoted otherwise (empty, spaces, punctuation).
std::string LiteralText(const std::string& text, Escaper esc) {
  bool bare = !text.empty();
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    bare = bare && ((c < 0x80 && IsWordByte(c)) || c == '_' || c == '.' ||
                    c == '-' || c == '+');
  }
  return bare ? esc(text) : esc("\"" + text + "\"");
}

// A condition in readable form; field names and literals pass through
// `esc`, the operators are safe in every target.
std::string ConditionText(const Condition& c, Escaper esc) {
  using Op = Condition::Op;
  switch (c.op) {
    case Op::kAll:
    case Op::kAny: {
      std::vector<std::string> parts;
      for (const auto& child : c.children)
        parts.push_back(ConditionText(child, esc));
      return fmt::format("{}({})", c.op == Op::kAll ? "all" : "any",
                         Join(parts, ", "));
    }
    case Op::kNot:
      return c.children.empty()
                 ? "not()"
                 : fmt::format("not({})", ConditionText(c.children[0], esc));
    case Op::kIsPresent:
      return esc(c.field) +
             (c.value.text == "true" ? " is present" : " is not present");
    case Op::kIsNull:
      return esc(c.field) +
             (c.value.text == "true" ? " is null" : " is not null");
    case Op::kEquals:
      return esc(c.field) + " = " + LiteralText(c.value.text, esc);
    case Op::kLt:
      return esc(c.field) + " < " + LiteralText(c.value.text, esc);
    case Op::kLe:
      return esc(c.field) + " <= " + LiteralText(c.value.text, esc);
    case Op::kGt:
      return esc(c.field) + " > " + LiteralText(c.value.text, esc);
    case Op::kGe:
      return esc(c.field) + " >= " + LiteralText(c.value.text, esc);
  }
  return "";
}

// One edge of the diagram. A null state is the scope's start ([*] before)
// or end ([*] after).
struct DiagramEdge {
  enum class Kind { kStart, kFlow, kRule, kDefault, kCatch, kEnd };
  Kind kind = Kind::kFlow;
  const State* from = nullptr;
  const State* to = nullptr;
  const Transition* transition = nullptr;  // kFlow, kRule, kDefault
  const Condition* condition = nullptr;    // kRule
  CatchRoute route;                        // kCatch
};

std::string EdgeLabel(const DiagramEdge& e, Escaper esc) {
  using Kind = DiagramEdge::Kind;
  std::vector<std::string> parts;
  if (e.kind == Kind::kRule && e.condition)
    parts.push_back(ConditionText(*e.condition, esc));
  if (e.kind == Kind::kDefault) parts.push_back("default");
  if (e.transition) {
    if (!e.transition->outcome.empty())
      parts.push_back("outcome " + esc(e.transition->outcome));
    if (!e.transition->quarantine_reason.empty())
      parts.push_back("quarantine reason " +
                      esc(e.transition->quarantine_reason));
  }
  if (e.kind == Kind::kCatch) parts.push_back(CatchClasses(e.route));
  return Join(parts, " / ");
}

// The state graph as both diagrams draw it: states numbered s0, s1... in
// spec order (Map items right after their Map), edges per scope.
class Diagram {
 public:
  explicit Diagram(const WorkflowSpec& spec) : spec_(spec) {
    int next = 0;
    for (const auto& s : spec.graph.states) {
      ids_[&s] = fmt::format("s{}", next++);
      if (s.item_states) {
        for (const auto& item : s.item_states->states)
          ids_[&item] = fmt::format("s{}", next++);
      }
    }
  }

  const std::string& Id(const State& s) const { return ids_.at(&s); }

  std::vector<DiagramEdge> Edges(const StateGraph& graph) const {
    using Kind = DiagramEdge::Kind;
    std::vector<DiagramEdge> edges;
    if (const State* start = graph.Find(graph.start)) {
      DiagramEdge e;
      e.kind = Kind::kStart;
      e.to = start;
      edges.push_back(e);
    }
    for (const auto& s : graph.states) {
      auto flow = [&](Kind kind, const Transition& t, const Condition* c) {
        const State* to = graph.Find(t.target);
        if (!to) return;
        DiagramEdge e;
        e.kind = kind;
        e.from = &s;
        e.to = to;
        e.transition = &t;
        e.condition = c;
        edges.push_back(e);
      };
      if (s.type == StateType::kChoice) {
        for (const auto& rule : s.rules)
          flow(Kind::kRule, rule.then, &rule.when);
        if (s.default_transition.present())
          flow(Kind::kDefault, s.default_transition, nullptr);
      } else if (s.next.present()) {
        flow(Kind::kFlow, s.next, nullptr);
      }
      for (const auto& route : CatchRoutesFor(spec_, graph, s)) {
        const State* to = graph.Find(route.next);
        if (!to) continue;
        DiagramEdge e;
        e.kind = Kind::kCatch;
        e.from = &s;
        e.to = to;
        e.route = route;
        edges.push_back(e);
      }
      if (s.is_terminal()) {
        DiagramEdge e;
        e.kind = Kind::kEnd;
        e.from = &s;
        edges.push_back(e);
      }
    }
    return edges;
  }

  std::vector<std::string> Mermaid() const {
    std::vector<std::string> lines;
    MermaidScope(spec_.graph, 1, lines);
    return lines;
  }

  std::string Dot() const {
    std::string title = spec_.title.empty() ? spec_.workflow : spec_.title;
    std::string out = "digraph workflow {\n";
    out += fmt::format(
        "  graph [compound=true, fontname=\"Helvetica\", labelloc=t, "
        "label=\"{} ({})\"];\n",
        DotString(title), DotString(spec_.workflow));
    out += "  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n";
    out += "  edge [fontname=\"Helvetica\", fontsize=10];\n";
    DotScope(spec_.graph, nullptr, "  ", out);
    out += "}\n";
    return out;
  }

 private:
  void MermaidScope(const StateGraph& graph, int depth,
                    std::vector<std::string>& lines) const {
    const std::string indent(static_cast<size_t>(depth) * 4, ' ');
    for (const auto& s : graph.states) {
      const std::string& id = Id(s);
      if (s.type == StateType::kChoice) {
        // A choice is drawn as a bare diamond: Mermaid keeps the first shape
        // it sees for an id, so a description would turn it into a box.
        lines.push_back(
            fmt::format("{}%% {}: {}", indent, id, MermaidText(s.name)));
        lines.push_back(fmt::format("{}state {} <<choice>>", indent, id));
      } else {
        lines.push_back(fmt::format("{}state \"{}\" as {}", indent,
                                    MermaidText(s.name), id));
      }
      if (s.type == StateType::kMap && s.item_states) {
        lines.push_back(fmt::format("{}state {} {{", indent, id));
        MermaidScope(*s.item_states, depth + 1, lines);
        lines.push_back(indent + "}");
      }
    }
    for (const auto& e : Edges(graph)) {
      std::string line =
          fmt::format("{}{} --> {}", indent, e.from ? Id(*e.from) : "[*]",
                      e.to ? Id(*e.to) : "[*]");
      std::string label = EdgeLabel(e, MermaidText);
      if (!label.empty()) line += ": " + label;
      lines.push_back(line);
    }
  }

  // Map item states form a cluster; edges into and out of the Map attach to
  // the cluster's start and end points (lhead/ltail clip them at its box).
  void DotScope(const StateGraph& graph, const State* map,
                const std::string& indent, std::string& out) const {
    const std::string prefix = map ? Id(*map) + "_" : "";
    out += fmt::format(
        "{}{}start [label=\"\", shape=circle, style=filled, "
        "fillcolor=black, width=0.2];\n",
        indent, prefix);
    out += fmt::format(
        "{}{}end [label=\"\", shape=doublecircle, style=filled, "
        "fillcolor=black, width=0.15];\n",
        indent, prefix);
    for (const auto& s : graph.states) {
      const std::string& id = Id(s);
      if (s.type == StateType::kMap && s.item_states) {
        out += fmt::format("{}subgraph cluster_{} {{\n", indent, id.substr(1));
        out += fmt::format("{}  label=\"{}\";\n{}  style=\"rounded,dashed\";\n",
                           indent, DotString(s.name), indent);
        DotScope(*s.item_states, &s, indent + "  ", out);
        out += indent + "}\n";
        continue;
      }
      std::string attrs = fmt::format("label=\"{}\"", DotString(s.name));
      if (s.type == StateType::kChoice) attrs += ", shape=diamond";
      if (s.type == StateType::kFail) attrs += ", style=\"rounded,bold\"";
      out += fmt::format("{}{} [{}];\n", indent, id, attrs);
    }
    for (const auto& e : Edges(graph)) {
      std::vector<std::string> attrs;
      std::string from = prefix + "start";
      std::string to = prefix + "end";
      if (e.from) {
        from = Id(*e.from);
        if (e.from->type == StateType::kMap && e.from->item_states) {
          attrs.push_back("ltail=cluster_" + from.substr(1));
          from += "_end";
        }
      }
      if (e.to) {
        to = Id(*e.to);
        if (e.to->type == StateType::kMap && e.to->item_states) {
          attrs.push_back("lhead=cluster_" + to.substr(1));
          to += "_start";
        }
      }
      std::string label = EdgeLabel(e, DotString);
      if (!label.empty()) attrs.push_back(fmt::format("label=\"{}\"", label));
      if (e.kind == DiagramEdge::Kind::kCatch) attrs.push_back("style=dashed");
      std::string line = fmt::format("{}{} -> {}", indent, from, to);
      if (!attrs.empty()) line += " [" + Join(attrs, ", ") + "]";
      out += line + ";\n";
    }
  }

  const WorkflowSpec& spec_;
  std::map<const State*, std::string> ids_;
};

// ---- README data -----------------------------------------------------------

class ReadmeBuilder {
 public:
  explicit ReadmeBuilder(const WorkflowSpec& spec)
      : spec_(spec), diagram_(spec) {}

  mustache::data Build() {
    mustache::data d;
    std::string file = spec_.file.substr(spec_.file.find_last_of('/') + 1);
    Put(d, "source", CommentSafe(file));
    Put(d, "title",
        MarkdownInline(spec_.title.empty() ? spec_.workflow : spec_.title));
    Put(d, "description", MarkdownBlock(spec_.description));
    Put(d, "workflow", MarkdownCode(spec_.workflow, false));
    Put(d, "type", MarkdownInline(spec_.type));
    Put(d, "input_event", EventLink(spec_.input_event, false));
    Put(d, "schema_version", std::to_string(spec_.schema_version));
    {
      const WorstCase worst = ComputeWorstCase(spec_);
      std::string path;
      for (const auto& p : worst.path)
        path += (path.empty() ? "" : " → ") + MarkdownCode(p, false);
      Put(d, "worst_case",
          worst.bounded
              ? FormatSeconds(worst.seconds) + " (of which retry waits " +
                    FormatSeconds(worst.retry_seconds) + "), along " + path
              : std::string("unbounded (the graph has a cycle)"));
    }
    Put(d, "governance",
        spec_.governance ? MarkdownCode(spec_.governance->name, false)
                         : std::string());
    Put(d, "triggers", Triggers());
    mustache::data mermaid = List();
    for (const auto& line : diagram_.Mermaid())
      Append(mermaid, Object("line", line));
    Put(d, "mermaid", std::move(mermaid));
    Put(d, "task_groups", TaskGroups());
    mustache::data maps = Maps();
    Put(d, "has_maps", maps.is_non_empty_list());
    Put(d, "maps", std::move(maps));
    mustache::data patterns = AccessPatterns();
    Put(d, "has_access_patterns", patterns.is_non_empty_list());
    Put(d, "access_patterns", std::move(patterns));
    Put(d, "outcomes", Outcomes());
    mustache::data failures = Failures();
    Put(d, "has_failures", failures.is_non_empty_list());
    Put(d, "failures", std::move(failures));
    Put(d, "events", Events());
    Put(d, "idempotency_key",
        spec_.idempotency_key.empty()
            ? std::string("none")
            : MarkdownCode(spec_.idempotency_key, false));
    Put(d, "time_bucket",
        spec_.time_bucket_seconds ? FormatDuration(*spec_.time_bucket_seconds)
                                  : std::string("none"));
    mustache::data dedupe = DedupeKeys();
    Put(d, "has_dedupe_keys", dedupe.is_non_empty_list());
    Put(d, "dedupe_keys", std::move(dedupe));
    Put(d, "log_fields", LogFields());
    mustache::data invariants = List();
    for (const auto& text : spec_.invariants)
      Append(invariants, Object("text", MarkdownInline(text)));
    Put(d, "invariants", std::move(invariants));
    return d;
  }

 private:
  template <typename F>
  void VisitStates(F&& f) const {
    for (const auto& s : spec_.graph.states) {
      f(spec_.graph, s, static_cast<const State*>(nullptr));
      if (s.item_states) {
        for (const auto& item : s.item_states->states)
          f(*s.item_states, item, &s);
      }
    }
  }

  std::string EventLink(const std::string& event, bool in_table) const {
    if (event.empty()) return "";
    return fmt::format("[{}](../schemas/events/{}/latest.json)",
                       MarkdownCode(event, in_table), UrlSegment(event));
  }

  mustache::data Triggers() const {
    mustache::data out = List();
    for (const auto& t : spec_.triggers) {
      std::string text = "**" + MarkdownInline(t.kind) + "**";
      if (!t.after.empty())
        text += " (after " + MarkdownCode(t.after, false) + ")";
      if (t.schedule) {
        text += " (" + MarkdownCode(t.schedule->expression, false);
        if (t.schedule->for_each == "nova")
          text += ", once per nova";
        else
          text += ", input " + MarkdownCode(t.schedule->input.dump(), false);
        text += ")";
      }
      if (!t.description.empty()) text += ": " + MarkdownInline(t.description);
      Append(out, Object("text", std::move(text)));
    }
    return out;
  }

  std::string Retry(const State& s) const {
    if (!s.retry) return "none";
    const RetryPolicy& r = *s.retry;
    if (r.max_attempts <= 0) return "no retry";
    std::string text = fmt::format("{} {}", r.max_attempts,
                                   r.max_attempts == 1 ? "retry" : "retries");
    if (!r.backoff_seconds.empty()) {
      text += ": " + FormatWaits(r.backoff_seconds);
      BackoffSolution solution = SolveBackoff(r.backoff_seconds);
      const BackoffParameters& p = solution.parameters;
      text += fmt::format(
          " (IntervalSeconds {}, BackoffRate {}, MaxDelaySeconds {})",
          p.interval_seconds, FormatRate(p.backoff_rate), p.max_delay_seconds);
    }
    if (!r.note.empty()) text += "; note: " + Cell(r.note);
    return text;
  }

  // The failure cases `s` may raise, grouped by class.
  std::string MayRaiseText(const State& s) const {
    std::vector<std::string> groups;
    for (ErrorClass cls : kClassOrder) {
      if (!MayRaise(spec_, s, cls)) continue;
      std::vector<std::string> ids;
      for (const auto& f : spec_.failures) {
        if (f.error_class != cls) continue;
        bool named = std::find(f.raised_by.begin(), f.raised_by.end(),
                               s.name) != f.raised_by.end();
        if (named || (f.raised_by.empty() && s.builtin == Builtin::kNone))
          ids.push_back(f.id);
      }
      std::string group = ErrorClassName(cls);
      if (!ids.empty()) group += " (" + CellCodes(ids) + ")";
      groups.push_back(group);
    }
    return Join(groups, "; ");
  }

  std::string CatchText(const StateGraph& graph, const State& s) const {
    std::vector<std::string> parts;
    for (const auto& route : CatchRoutesFor(spec_, graph, s))
      parts.push_back(CatchClasses(route) + ": " + CellCode(route.next));
    return parts.empty() ? "none" : Join(parts, "; ");
  }

  std::string Timeout(const State& s) const {
    std::optional<int64_t> timeout = s.timeout_seconds;
    if (!timeout && s.retry) timeout = s.retry->timeout_seconds;
    return timeout ? FormatDuration(*timeout) : "none";
  }

  std::string Kind(const State& s) const {
    if (s.builtin == Builtin::kNone) return "domain";
    std::string text =
        std::string("builtin ") + CellCode(BuiltinName(s.builtin));
    if (s.builtin == Builtin::kPublishEvent && !s.event.empty()) {
      text += ": publishes " + EventLink(s.event, true);
      if (!s.for_each_field.empty())
        text +=
            fmt::format(" per element of {} as {}", CellCode(s.for_each_field),
                        CellCode(s.for_each_as));
    }
    return text;
  }

  mustache::data TaskRow(const StateGraph& graph, const State& s) const {
    return Object("name", CellCode(s.name), "kind", Kind(s), "timeout",
                  Timeout(s), "retry", Retry(s), "may_raise", MayRaiseText(s),
                  "catch", CatchText(graph, s), "access_patterns",
                  CellCodes(s.access_patterns), "dedupe_key",
                  s.dedupe_key.empty() ? "" : CellCode(s.dedupe_key),
                  "description", Cell(s.description));
  }

  mustache::data TaskGroups() const {
    bool has_maps = false;
    for (const auto& s : spec_.graph.states)
      has_maps = has_maps || (s.type == StateType::kMap && s.item_states);
    mustache::data groups = List();
    auto group = [&](const StateGraph& graph, const std::string& heading) {
      mustache::data tasks = List();
      for (const auto& s : graph.states)
        if (s.type == StateType::kTask) Append(tasks, TaskRow(graph, s));
      if (!tasks.is_non_empty_list()) return;
      Append(groups, Object("has_heading", has_maps, "heading", heading,
                            "tasks", std::move(tasks)));
    };
    group(spec_.graph, "Top level");
    for (const auto& s : spec_.graph.states) {
      if (s.type == StateType::kMap && s.item_states)
        group(*s.item_states,
              "Items of " + MarkdownCode(s.name, false) + " (Map)");
    }
    return groups;
  }

  mustache::data Maps() const {
    mustache::data out = List();
    for (const auto& s : spec_.graph.states) {
      if (s.type != StateType::kMap) continue;
      const int concurrency = MapConcurrency(spec_, s);
      std::string item = CellCode(s.item_name);
      item += fmt::format(" ({})", FieldKindName(s.item_kind));
      std::string failure;
      if (s.item_failure) {
        const ItemFailure& f = *s.item_failure;
        CatchRoute route;
        route.classes = f.classes;
        failure = CatchClasses(route) + ": " + CellCode(f.next);
        if (!f.name.empty()) failure += " (" + CellCode(f.name) + ")";
      }
      Append(
          out,
          Object("name", CellCode(s.name), "items", CellCode(s.items_field),
                 "item", item, "carry", CellCodes(s.carry), "concurrency",
                 fmt::format("{} ({})", concurrency, CellCode(s.concurrency)),
                 "max_items", s.max_items ? std::to_string(*s.max_items) : "",
                 "result", CellCode(s.result_field), "item_failure",
                 failure.empty() ? "none" : failure, "catch",
                 CatchText(spec_.graph, s), "description",
                 Cell(s.description)));
    }
    return out;
  }

  mustache::data AccessPatterns() const {
    // Patterns in the order Tasks first use them.
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::string>> tasks;
    VisitStates([&](const StateGraph&, const State& s, const State*) {
      for (const auto& ap : s.access_patterns) {
        if (!tasks.count(ap)) order.push_back(ap);
        tasks[ap].push_back(s.name);
      }
    });
    mustache::data out = List();
    for (const auto& ap : order) {
      std::string text;
      if (spec_.governance) {
        for (const auto& [id, description] : spec_.governance->access_patterns)
          if (id == ap) text = description;
      }
      Append(out, Object("id", CellCode(ap), "text", Cell(text), "tasks",
                         CellCodes(tasks[ap])));
    }
    return out;
  }

  // Transitions that record `outcome` (or a quarantine reason `reason`).
  std::string RecordedOn(const std::string& outcome,
                         const std::string& reason) const {
    std::vector<std::string> parts;
    VisitStates([&](const StateGraph&, const State& s, const State*) {
      for (const Transition* t : s.Transitions()) {
        bool match = (!outcome.empty() && t->outcome == outcome) ||
                     (!reason.empty() && t->quarantine_reason == reason);
        if (match)
          parts.push_back(CellCode(s.name) + " → " + CellCode(t->target));
      }
    });
    return Join(parts, "; ");
  }

  mustache::data Outcomes() const {
    mustache::data out = List();
    for (const auto& o : spec_.outcomes) {
      std::vector<std::string> events;
      for (const auto& e : spec_.events) {
        if (std::find(e.published_on.begin(), e.published_on.end(), o.name) !=
            e.published_on.end())
          events.push_back(EventLink(e.name, true));
      }
      Append(out,
             Object("name", CellCode(o.name), "description",
                    Cell(o.description), "recorded_on", RecordedOn(o.name, ""),
                    "publishes", Join(events, ", ")));
    }
    return out;
  }

  mustache::data Failures() const {
    mustache::data out = List();
    for (const auto& f : spec_.failures) {
      std::string raised_by =
          f.raised_by.empty() ? "any domain Task" : CellCodes(f.raised_by);
      std::string recorded = RecordedOn("", f.id);
      if (!recorded.empty()) raised_by += "; recorded on " + recorded;
      Append(out, Object("id", CellCode(f.id), "class",
                         ErrorClassName(f.error_class), "description",
                         Cell(f.description), "raised_by", raised_by));
    }
    return out;
  }

  static std::string TypeText(const Field& f) {
    std::string text = FieldKindName(f.kind);
    if (f.kind == FieldKind::kArray && f.items)
      text += " of " + TypeText(*f.items);
    std::vector<std::string> notes;
    if (!f.enum_values.empty())
      notes.push_back("one of " + CellCodes(f.enum_values));
    if (f.min_length)
      notes.push_back(fmt::format("min length {}", *f.min_length));
    if (f.min_items)
      notes.push_back(fmt::format("at least {} items", *f.min_items));
    if (f.minimum) notes.push_back(fmt::format("minimum {}", *f.minimum));
    if (f.nullable) notes.push_back("nullable");
    if (!notes.empty()) text += " (" + Join(notes, ", ") + ")";
    return text;
  }

  static void FieldRows(const std::vector<Field>& fields,
                        const std::string& prefix, mustache::data& out) {
    for (const auto& f : fields) {
      std::string name = prefix + f.name;
      Append(out, Object("name", CellCode(name), "type", TypeText(f),
                         "required", f.required ? "yes" : "no", "description",
                         Cell(f.description)));
      if (f.kind == FieldKind::kObject) FieldRows(f.fields, name + ".", out);
      if (f.kind == FieldKind::kArray && f.items &&
          f.items->kind == FieldKind::kObject)
        FieldRows(f.items->fields, name + "[].", out);
    }
  }

  mustache::data Events() const {
    mustache::data out = List();
    for (const auto& e : spec_.events) {
      std::vector<std::string> roles;
      if (e.name == spec_.input_event)
        roles.push_back("Input: starts the workflow.");
      std::vector<std::string> publishers;
      VisitStates([&](const StateGraph&, const State& s, const State*) {
        if (s.builtin == Builtin::kPublishEvent && s.event == e.name)
          publishers.push_back(MarkdownCode(s.name, false));
      });
      if (!publishers.empty()) {
        std::string role = "Published by " + Join(publishers, ", ");
        if (!e.published_on.empty()) {
          std::vector<std::string> on;
          for (const auto& o : e.published_on)
            on.push_back(MarkdownCode(o, false));
          role += " on " + Join(on, ", ");
        }
        roles.push_back(role + ".");
      }
      if (roles.empty()) roles.push_back("Not published by this workflow.");
      mustache::data fields = List();
      FieldRows(e.fields, "", fields);
      std::string path =
          "../schemas/events/" + UrlSegment(e.name) + "/latest.json";
      Append(out,
             Object("name", MarkdownCode(e.name, false), "role",
                    Join(roles, " "), "has_description", !e.description.empty(),
                    "description", MarkdownBlock(e.description), "schema",
                    fmt::format(
                        "[{}]({})",
                        MarkdownCode(
                            "schemas/events/" + e.name + "/latest.json", false),
                        path),
                    "fields", std::move(fields)));
    }
    return out;
  }

  mustache::data DedupeKeys() const {
    mustache::data out = List();
    VisitStates([&](const StateGraph&, const State& s, const State*) {
      if (s.dedupe_key.empty()) return;
      Append(out,
             Object("task", CellCode(s.name), "key", CellCode(s.dedupe_key)));
    });
    return out;
  }

  mustache::data LogFields() const {
    mustache::data out = List();
    auto add = [&](const std::vector<std::string>& names, const char* when,
                   const char* source) {
      for (const auto& n : names)
        Append(out,
               Object("name", CellCode(n), "when", when, "source", source));
    };
    if (spec_.governance)
      add(spec_.governance->log_required, "required", "governance");
    add(spec_.log_required, "required", "this workflow");
    if (spec_.governance)
      add(spec_.governance->log_when_known, "when known", "governance");
    add(spec_.log_when_known, "when known", "this workflow");
    return out;
  }

  const WorkflowSpec& spec_;
  Diagram diagram_;
};

// Sections that render empty can leave runs of blank lines; Markdown treats
// them as one, so keep the file tidy. In place, a run of text at a time:
// the text only shrinks.
std::string SqueezeBlankLines(std::string text) {
  char* data = text.data();
  size_t kept = 0;  // the squeezed text is data[0, kept)
  size_t from = 0;  // what is left to squeeze starts here
  auto keep = [&](size_t end) {
    std::memmove(data + kept, data + from, end - from);
    kept += end - from;
  };
  for (size_t at; (at = text.find("\n\n\n", from)) != std::string::npos;) {
    keep(at + 2);  // two newlines of the run, and what comes before
    from = std::min(text.find_first_not_of('\n', at + 2), text.size());
  }
  keep(text.size());
  text.resize(kept);
  while (text.size() >= 2 && text[text.size() - 1] == '\n' &&
         text[text.size() - 2] == '\n')
    text.pop_back();
  return text;
}

}  // namespace

std::string RenderWorkflowDocs(const WorkflowSpec& spec,
                               std::string_view template_text) {
  mustache::mustache tmpl{std::string(template_text)};
  if (!tmpl.is_valid())
    throw std::runtime_error("workflow_readme.md.mustache: " +
                             tmpl.error_message());
  std::string text = tmpl.render(ReadmeBuilder(spec).Build());
  if (!tmpl.error_message().empty())
    throw std::runtime_error("workflow_readme.md.mustache: " +
                             tmpl.error_message());
  return SqueezeBlankLines(std::move(text));
}

std::string EmitWorkflowDocs(const WorkflowSpec& spec) {
  // As RenderWorkflowDocs with the embedded template, parsed once.
  return SqueezeBlankLines(RenderTemplate(
      kReadmeTemplate, ReadmeBuilder(spec).Build(), TemplateEscape::kHtml));
}

std::string EmitWorkflowDot(const WorkflowSpec& spec) {
  return Diagram(spec).Dot();
}

}  // namespace novacat
