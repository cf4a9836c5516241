// yaml::Document: the first document of a YAML text as a read-only tree,
// parsed with yaml-cpp and copied once. The spec loader reads specs through
// it: a handle to a node is a pointer (no reference counting on every
// lookup, as yaml-cpp's nodes have), a mapping keeps its entries in
// document order with duplicates (which the loader reports), and an absent
// key is an undefined handle rather than an exception.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace novacat::yaml {

enum class NodeType { Undefined, Null, Scalar, Sequence, Map };

// 0-based; -1 when the node has no position (an undefined node).
struct Mark {
  int line = -1;
  int column = -1;
};

struct NodeData;

// A handle to a node of a YamlDocument, valid while the document lives. The
// default handle is undefined: what a lookup of an absent key returns.
class Node {
 public:
  Node() = default;
  explicit Node(const NodeData* data) : data_(data) {}

  NodeType Type() const;
  bool IsDefined() const { return data_ != nullptr; }
  bool IsNull() const { return Type() == NodeType::Null; }
  bool IsScalar() const { return Type() == NodeType::Scalar; }
  bool IsSequence() const { return Type() == NodeType::Sequence; }
  bool IsMap() const { return Type() == NodeType::Map; }

  // The scalar's text; empty for any other node.
  const std::string& Scalar() const;
  const std::string& Tag() const;
  Mark GetMark() const;
  // Entries of a sequence or a mapping; 0 for any other node.
  size_t size() const;

  // The value of the first entry of a mapping whose key is the scalar
  // `key`; undefined when there is none or this is not a mapping.
  Node operator[](std::string_view key) const;

  // A sequence's items, in order (nothing for any other node).
  class ItemIterator;
  ItemIterator begin() const;
  ItemIterator end() const;
  // A mapping's entries in document order, duplicates included (nothing for
  // any other node).
  std::vector<std::pair<Node, Node>> Entries() const;

 private:
  const NodeData* data_ = nullptr;
};

struct NodeData {
  NodeType type = NodeType::Null;
  Mark mark;
  std::string scalar;
  std::string tag;
  // A sequence's items; a mapping's keys and values, alternating.
  std::vector<const NodeData*> children;
};

class Node::ItemIterator {
 public:
  explicit ItemIterator(const NodeData* const* at) : at_(at) {}
  Node operator*() const { return Node(*at_); }
  ItemIterator& operator++() {
    ++at_;
    return *this;
  }
  bool operator!=(const ItemIterator& other) const { return at_ != other.at_; }

 private:
  const NodeData* const* at_;
};

// Where and why a text is not YAML: yaml-cpp's mark and message; or, with
// `too_large`, where the document passed Document::Parse's node limit.
struct SyntaxError {
  Mark mark;  // line -1 when the parser gave no position
  std::string message;
  bool too_large = false;
};

class Document {
 public:
  // The most nodes a document may have once its aliases are expanded (each
  // alias is a copy of what it names, so ten nested aliases of ten items
  // each make ten billion): the largest seed spec has 1,098, the
  // benchmark's 10,000-state spec some 130,000.
  static constexpr size_t kMaxNodes = 1'000'000;

  // Parses the first document of `text`. On failure `error()` is set and the
  // root is undefined. A document of more than `max_nodes` nodes is refused
  // (too_large), at the mapping entry of the root whose value passed the
  // limit.
  static Document Parse(std::string_view text, size_t max_nodes = kMaxNodes);

  Node root() const { return Node(root_); }
  const SyntaxError* error() const { return error_ ? &*error_ : nullptr; }

 private:
  friend class DocumentBuilder;
  std::deque<NodeData> nodes_;  // stable addresses: nodes point at nodes
  const NodeData* root_ = nullptr;
  std::unique_ptr<SyntaxError> error_;
};

}  // namespace novacat::yaml
