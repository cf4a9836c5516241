#include "load/yaml_document.h"

#include <yaml-cpp/yaml.h>

namespace novacat::yaml {

namespace {

const std::string& EmptyString() {
  static const std::string empty;
  return empty;
}

}  // namespace

// Copies yaml-cpp's tree into a Document, at most `max_nodes` nodes of it.
class DocumentBuilder {
 public:
  // Thrown when the copy passes max_nodes; `at` is the root's entry whose
  // value was being copied (the root itself when it is no mapping).
  struct TooLarge {
    Mark at;
  };

  DocumentBuilder(Document& document, size_t max_nodes)
      : document_(document), max_nodes_(max_nodes) {}

  const NodeData* Copy(const YAML::Node& from) {
    if (document_.nodes_.size() >= max_nodes_) throw TooLarge{entry_};
    NodeData& node = document_.nodes_.emplace_back();
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

  void CopyRoot(const YAML::Node& root) {
    entry_ = Mark{root.Mark().line, root.Mark().column};
    if (!root.IsMap()) {
      document_.root_ = Copy(root);
      return;
    }
    // As Copy does, with each entry's mark kept for TooLarge.
    NodeData& node = document_.nodes_.emplace_back();
    node.type = NodeType::Map;
    node.mark = entry_;
    node.tag = root.Tag();
    for (auto it = root.begin(); it != root.end(); ++it) {
      entry_ = Mark{it->first.Mark().line, it->first.Mark().column};
      node.children.push_back(Copy(it->first));
      node.children.push_back(Copy(it->second));
    }
    document_.root_ = &node;
  }

 private:
  Document& document_;
  const size_t max_nodes_;
  Mark entry_;  // of the root's entry being copied
};

Document Document::Parse(std::string_view text, size_t max_nodes) {
  Document document;
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    DocumentBuilder(document, max_nodes).CopyRoot(root);
  } catch (const YAML::Exception& e) {  // thrown before any node is copied
    document.error_ = std::make_unique<SyntaxError>(
        SyntaxError{Mark{e.mark.line, e.mark.column}, e.msg});
  } catch (const DocumentBuilder::TooLarge& e) {
    document.nodes_.clear();
    document.root_ = nullptr;
    document.error_ = std::make_unique<SyntaxError>(SyntaxError{
        e.at, "more than " + std::to_string(max_nodes) + " nodes", true});
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
