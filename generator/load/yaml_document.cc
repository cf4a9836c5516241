#include "load/yaml_document.h"

#include <yaml-cpp/yaml.h>
#include <yaml.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "support/byte_scan.h"

namespace novacat::yaml {

namespace {

const std::string& EmptyString() {
  static const std::string empty;
  return empty;
}

// yaml-cpp's nulls: a plain, untagged scalar with one of these texts.
bool IsNullText(const std::string& text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" ||
         text == "NULL";
}

Mark ToMark(const yaml_mark_t& mark) {
  return Mark{static_cast<int>(mark.line), static_cast<int>(mark.column)};
}

// libyaml's parser, freed on every path.
struct Parser {
  yaml_parser_t parser;
  Parser(std::string_view text) {
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(
        &parser, reinterpret_cast<const unsigned char*>(text.data()),
        text.size());
  }
  ~Parser() { yaml_parser_delete(&parser); }
};

struct Event {
  yaml_event_t event;
  bool valid = false;
  ~Event() {
    if (valid) yaml_event_delete(&event);
  }
};

}  // namespace

// Builds a Document from libyaml's events.
class DocumentBuilder {
 public:
  explicit DocumentBuilder(Document& document) : document_(document) {}

  // False on a syntax error (Document::Parse has yaml-cpp word it).
  bool Build(std::string_view text) {
    text_ = text;
    Parser p(text);
    for (;;) {
      Event e;
      if (!yaml_parser_parse(&p.parser, &e.event)) return false;
      e.valid = true;
      const yaml_event_t& ev = e.event;
      // Between two events of a flow collection libyaml reads a '?' as an
      // explicit key even with no space after it ({?a: b}); yaml-cpp
      // rejects that.
      if (flow_depth_ > 0 && !needs_reference_) {
        const size_t from = ByteOffset(last_end_),
                     to = ByteOffset(ev.start_mark.index);
        if (from < to &&
            text_.substr(from, to - from).find('?') != std::string_view::npos)
          needs_reference_ = true;
      }
      last_end_ = ev.end_mark.index;
      // A missing value after a block mapping's ':' is marked, as yaml-cpp
      // marks it, at the token that follows it: this event's start (libyaml
      // marks it at the ':'). Where that event starts at the missing value's
      // own mark, there was no ':' (an explicit `? key` alone).
      if (pending_empty_) {
        const Mark next = ToMark(ev.start_mark);
        if (next.line == pending_empty_->mark.line &&
            next.column == pending_empty_->mark.column)
          needs_reference_ = true;
        // yaml-cpp's next token is the next key's, which starts at the
        // mapping's column, but for an explicit `? key`, whose token (the
        // '?') libyaml's events do not show.
        const bool next_is_key = ev.type == YAML_SCALAR_EVENT ||
                                 ev.type == YAML_ALIAS_EVENT ||
                                 ev.type == YAML_SEQUENCE_START_EVENT ||
                                 ev.type == YAML_MAPPING_START_EVENT;
        if (next_is_key && next.column != open_.back().node->mark.column)
          needs_reference_ = true;
        pending_empty_->mark = next;
        pending_empty_ = nullptr;
      }
      switch (ev.type) {
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_START_EVENT:
          break;
        case YAML_DOCUMENT_END_EVENT:
          // The first document only, as YAML::Load. A document ends where
          // libyaml meets `...`, `---` or what cannot continue it, which
          // yaml-cpp reads as part of it: what follows must parse, as the
          // end of the text or the start of a document.
          {
            Event after;
            if (!yaml_parser_parse(&p.parser, &after.event)) return false;
            after.valid = true;
          }
          if (!document_.root_) document_.root_ = &NewNode(NodeType::Null);
          return true;
        case YAML_STREAM_END_EVENT:  // no document: a null root
          if (!document_.root_) document_.root_ = &NewNode(NodeType::Null);
          return true;
        case YAML_ALIAS_EVENT: {
          auto it = anchors_.find(
              reinterpret_cast<const char*>(ev.data.alias.anchor));
          if (it == anchors_.end()) return false;  // an undefined alias
          CheckName(ev.start_mark, ev.data.alias.anchor);
          Attach(it->second);
          break;
        }
        case YAML_SCALAR_EVENT: {
          const auto& s = ev.data.scalar;
          NodeData& node = NewNode(NodeType::Scalar);
          node.mark = ToMark(ev.start_mark);
          node.scalar.assign(reinterpret_cast<const char*>(s.value), s.length);
          SetTag(node, s.tag, s.style != YAML_PLAIN_SCALAR_STYLE);
          if (node.tag == "?" && IsNullText(node.scalar)) {
            node.type = NodeType::Null;
            node.scalar.clear();
            node.tag.clear();
            // Only an implied value is empty: no plain scalar is. yaml-cpp
            // marks those by its tokens, which libyaml's events do not
            // show but for a block mapping's value.
            // An anchor marks it where yaml-cpp does: at the anchor.
            if (s.length == 0 && !s.anchor) {
              const bool block_map_value =
                  !open_.empty() && !open_.back().flow &&
                  open_.back().node->type == NodeType::Map &&
                  open_.back().node->children.size() % 2 == 1;
              if (block_map_value)
                pending_empty_ = &node;
              else
                needs_reference_ = true;
            }
          }
          // yaml-cpp rejects a '?' in a plain scalar of a flow collection.
          if (flow_depth_ > 0 && s.style == YAML_PLAIN_SCALAR_STYLE &&
              node.scalar.find('?') != std::string::npos)
            needs_reference_ = true;
          Anchor(ev.start_mark, s.anchor, node);
          Attach(&node);
          break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
          const bool map = ev.type == YAML_MAPPING_START_EVENT;
          NodeData& node = NewNode(map ? NodeType::Map : NodeType::Sequence);
          node.mark = ToMark(ev.start_mark);
          SetTag(node,
                 map ? ev.data.mapping_start.tag : ev.data.sequence_start.tag,
                 false);
          Anchor(ev.start_mark,
                 map ? ev.data.mapping_start.anchor
                     : ev.data.sequence_start.anchor,
                 node);
          Attach(&node);
          const bool flow =
              map ? ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                  : ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
          flow_depth_ += flow;
          open_.push_back(Open{&node, flow});
          break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          flow_depth_ -= open_.back().flow;
          open_.pop_back();
          break;
        case YAML_NO_EVENT:
          break;
      }
    }
  }

 private:
  NodeData& NewNode(NodeType type) {
    NodeData& node = document_.nodes_.emplace_back();
    node.type = type;
    return node;
  }

  // yaml-cpp's tags: an explicit tag as written (handles resolved), "!" for
  // an untagged quoted or block scalar, "?" for anything else untagged.
  static void SetTag(NodeData& node, const yaml_char_t* tag, bool non_plain) {
    if (tag)
      node.tag = reinterpret_cast<const char*>(tag);
    else
      node.tag.assign(1, non_plain ? '!' : '?');
  }

  void Anchor(const yaml_mark_t& at, const yaml_char_t* anchor,
              const NodeData& node) {
    if (!anchor) return;
    CheckName(at, anchor);
    anchors_[reinterpret_cast<const char*>(anchor)] = &node;
  }

  // An anchor's or alias's name ends, for yaml-cpp, at a space or a flow
  // indicator; libyaml ends it at the first character that is not a
  // letter, digit, '-' or '_'. Where what follows libyaml's name is neither,
  // the two read different names: yaml-cpp reads the text. (`at` is the
  // node's start: the '&' or '*' unless a tag comes first; its index counts
  // characters, bytes only in an ASCII text.)
  void CheckName(const yaml_mark_t& at, const yaml_char_t* name) {
    if (needs_reference_) return;
    const size_t start = ByteOffset(at.index);
    const size_t end =
        start + 1 + std::strlen(reinterpret_cast<const char*>(name));
    if (start >= text_.size() || (text_[start] != '&' && text_[start] != '*')) {
      needs_reference_ = true;
      return;
    }
    if (end < text_.size() &&
        std::string_view(" \t\r\n,[]{}").find(text_[end]) ==
            std::string_view::npos)
      needs_reference_ = true;
  }

  void Attach(const NodeData* node) {
    if (open_.empty()) {
      if (!document_.root_) document_.root_ = node;
      return;
    }
    open_.back().node->children.push_back(node);
  }

  // yaml-cpp's tree as a Document: for the texts yaml-cpp reads and libyaml
  // does not.
  const NodeData* Copy(const YAML::Node& from) {
    NodeData& node = NewNode(NodeType::Null);
    node.mark = Mark{from.Mark().line, from.Mark().column};
    node.tag = from.Tag();
    switch (from.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        break;
      case YAML::NodeType::Scalar:
        node.type = NodeType::Scalar;
        node.scalar = from.Scalar();
        break;
      case YAML::NodeType::Sequence:
        node.type = NodeType::Sequence;
        for (const auto& item : from) node.children.push_back(Copy(item));
        break;
      case YAML::NodeType::Map:
        node.type = NodeType::Map;
        for (auto it = from.begin(); it != from.end(); ++it) {
          node.children.push_back(Copy(it->first));
          node.children.push_back(Copy(it->second));
        }
        break;
    }
    return &node;
  }

 public:
  void CopyRoot(const YAML::Node& root) { document_.root_ = Copy(root); }

 private:
  // The byte offset of libyaml's mark index, which counts characters. An
  // ASCII text (every spec so far) needs no table: its offsets were built
  // for every document with a flow collection, 8 bytes a character, and
  // thrown away (a fifth of the memory the seeds' --check touched).
  size_t ByteOffset(size_t index) {
    if (!offsets_built_) {
      offsets_built_ = true;
      if (byte_scan::SkipAscii(text_, 0) < text_.size()) {
        for (size_t i = 0; i < text_.size(); ++i) {
          if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80)
            char_offsets_.push_back(i);
        }
      }
    }
    if (char_offsets_.empty()) return std::min(index, text_.size());
    return index < char_offsets_.size() ? char_offsets_[index] : text_.size();
  }

  struct Open {
    NodeData* node;
    bool flow;
  };

  Document& document_;
  std::vector<Open> open_;  // the collections being read, innermost last
  std::map<std::string, const NodeData*> anchors_;
  NodeData* pending_empty_ = nullptr;
  std::string_view text_;
  size_t last_end_ = 0;  // the character index where the last event ended
  bool offsets_built_ = false;
  std::vector<size_t> char_offsets_;  // each character's byte; empty: ASCII
  int flow_depth_ = 0;                // the flow collections open
  // libyaml's events cannot tell this text apart from one yaml-cpp reads
  // differently (see yaml_document.h): Parse reads it with yaml-cpp.
  bool needs_reference_ = false;

 public:
  bool needs_reference() const { return needs_reference_; }
};

Document Document::Parse(std::string_view text) {
  Document document;
  {
    DocumentBuilder builder(document);
    if (builder.Build(text) && !builder.needs_reference()) return document;
  }
  // yaml-cpp's reading of a text libyaml rejects: its message, so that a
  // diagnostic reads the same whichever parser found the problem, or its
  // tree where it accepts the text (it reads a few malformed texts).
  document = Document();
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    DocumentBuilder(document).CopyRoot(root);
  } catch (const YAML::Exception& e) {  // thrown before any node is copied
    document.error_ = std::make_unique<SyntaxError>(
        SyntaxError{Mark{e.mark.line, e.mark.column}, e.msg});
  }
  return document;
}

NodeType Node::Type() const {
  return data_ ? data_->type : NodeType::Undefined;
}

const std::string& Node::Scalar() const {
  return data_ && data_->type == NodeType::Scalar ? data_->scalar
                                                  : EmptyString();
}

const std::string& Node::Tag() const {
  return data_ ? data_->tag : EmptyString();
}

Mark Node::GetMark() const { return data_ ? data_->mark : Mark{}; }

size_t Node::size() const {
  if (!data_) return 0;
  if (data_->type == NodeType::Sequence) return data_->children.size();
  if (data_->type == NodeType::Map) return data_->children.size() / 2;
  return 0;
}

Node Node::operator[](std::string_view key) const {
  if (!IsMap()) return Node();
  const auto& c = data_->children;
  for (size_t i = 0; i + 1 < c.size(); i += 2) {
    if (c[i]->type == NodeType::Scalar && c[i]->scalar == key)
      return Node(c[i + 1]);
  }
  return Node();
}

Node::ItemIterator Node::begin() const {
  if (!IsSequence()) return ItemIterator(nullptr);
  return ItemIterator(data_->children.data());
}

Node::ItemIterator Node::end() const {
  if (!IsSequence()) return ItemIterator(nullptr);
  return ItemIterator(data_->children.data() + data_->children.size());
}

std::vector<std::pair<Node, Node>> Node::Entries() const {
  std::vector<std::pair<Node, Node>> out;
  if (!IsMap()) return out;
  const auto& c = data_->children;
  out.reserve(c.size() / 2);
  for (size_t i = 0; i + 1 < c.size(); i += 2)
    out.emplace_back(Node(c[i]), Node(c[i + 1]));
  return out;
}

}  // namespace novacat::yaml
