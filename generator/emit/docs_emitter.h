// DocsEmitter: WorkflowSpec → the workflow's README.md and a Graphviz
// diagram of its state graph.
//
// The README (generated/<workflow>/README.md) is rendered from the Mustache
// template templates/workflow_readme.md.mustache: purpose, triggers, a
// Mermaid stateDiagram-v2 of the states, the Tasks (timeouts, exact retry
// schedules, failure classes, catches, access patterns, dedupe keys), Map
// states, outcomes, failure cases, events with links to their schemas, the
// idempotency key, dedupe keys, log fields and invariants.
//
// Every value is escaped here for the context it lands in (Markdown text,
// Markdown table cell, code span, Mermaid label, DOT string) and the
// template inserts it verbatim (`{{{x}}}`). Output follows spec order and has
// no timestamps: the same spec always gives the same bytes.
#pragma once

#include <string>
#include <string_view>

#include "model/spec.h"

namespace novacat {

// generated/<workflow>/README.md text, from the compiled-in template
// templates/workflow_readme.md.mustache. The spec must have passed the
// checker.
std::string EmitWorkflowDocs(const WorkflowSpec& spec);

// The same page from a template's text. Throws std::runtime_error when the
// template does not parse.
std::string RenderWorkflowDocs(const WorkflowSpec& spec,
                               std::string_view template_text);

// The same state graph as a Graphviz DOT document (for rendering tests and
// people): Choice states are diamonds, Map item states sit in a
// `subgraph cluster_<n>`, catch edges are dashed.
std::string EmitWorkflowDot(const WorkflowSpec& spec);

// The escapers, exposed for tests.
namespace docs {

// A Mermaid stateDiagram label or quoted state description: one line, with
// the characters Mermaid's lexer or its Markdown/HTML label rendering would
// interpret (`:` `;` `#` `"` `<` `>` `&` `{` `}` `[` `]` `%` `\` `` ` `` `*`
// `~` `$`, `_` at a word edge) as Mermaid entity codes (`#58;`...), and the
// whitespace after "direction" too (Mermaid reads `direction LR` anywhere on
// a line as a statement).
std::string MermaidText(std::string_view text);

// Markdown inline text (a list item, a table cell, a heading): one line,
// whitespace collapsed, Markdown syntax backslash-escaped (`\` `` ` `` `*`
// `_` `[` `]` `<` `>` `|` `~` `$`, `&` before an entity, block markers at
// the start).
std::string MarkdownInline(std::string_view text);

// Markdown paragraphs: blank lines separate paragraphs; each is
// MarkdownInline.
std::string MarkdownBlock(std::string_view text);

// A Markdown code span showing `text` literally (fence longer than any
// backtick run inside). In a table cell `|` becomes `\|` (GFM removes the
// backslash before parsing the span).
std::string MarkdownCode(std::string_view text, bool in_table);

// The inside of a DOT double-quoted string used as a label: `\` and `"`
// escaped, newlines as `\n`, `&` as `&#38;` (Graphviz decodes entities).
std::string DotString(std::string_view text);

}  // namespace docs

}  // namespace novacat
