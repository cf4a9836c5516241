#include "novacat/domain/resolver.h"

#include "internal.h"
#include "novacat/domain/coordinates.h"
#include "novacat/domain/names.h"
#include "novacat/runtime/errors.h"

namespace novacat::domain {

using internal::FixtureObject;
using internal::Quote;
using nlohmann::json;

std::string_view ToString(ClassicalNovaStatus status) {
  switch (status) {
    case ClassicalNovaStatus::kYes:
      return "YES";
    case ClassicalNovaStatus::kNo:
      return "NO";
    case ClassicalNovaStatus::kAmbiguous:
      return "AMBIGUOUS";
  }
  return "NO";
}

std::optional<ClassicalNovaStatus> ParseClassicalNovaStatus(
    std::string_view text) {
  if (text == "YES") return ClassicalNovaStatus::kYes;
  if (text == "NO") return ClassicalNovaStatus::kNo;
  if (text == "AMBIGUOUS") return ClassicalNovaStatus::kAmbiguous;
  return std::nullopt;
}

namespace {

struct Known {
  const std::string* source;
  const SourceMatch* match;
};

std::string Conflict(std::string_view name, const std::string& detail) {
  return "conflicting authoritative sources for " + Quote(name) + ": " + detail;
}

}  // namespace

Resolution CombineSourceAnswers(std::string_view normalized_name,
                                const std::vector<SourceAnswer>& answers) {
  std::vector<Known> known;
  for (const SourceAnswer& answer : answers) {
    if (answer.matches.size() > 1) {
      std::string ids;
      for (const SourceMatch& m : answer.matches) {
        ids += (ids.empty() ? "" : ", ") + m.id;
      }
      throw runtime::QuarantineError(
          "ambiguous resolver result for " + Quote(normalized_name) + ": " +
          answer.source + " matched " + std::to_string(answer.matches.size()) +
          " objects (" + ids + ")");
    }
    if (answer.matches.empty()) continue;
    const SourceMatch& m = answer.matches.front();
    if (m.ra_deg.has_value() != m.dec_deg.has_value()) {
      throw runtime::TerminalError(
          answer.source + " match " + Quote(m.id) + " for " +
          Quote(normalized_name) + " has " +
          (m.ra_deg ? "ra_deg without dec_deg" : "dec_deg without ra_deg"));
    }
    if (m.ra_deg) {
      std::string what = " of " + answer.source + " match " + m.id;
      ValidateCoordinates(*m.ra_deg, *m.dec_deg, "ra_deg" + what,
                          "dec_deg" + what);
    }
    known.push_back({&answer.source, &m});
  }
  Resolution r;
  if (known.empty()) return r;

  const Known& first = known.front();
  for (const Known& k : known) {
    if (k.match->is_nova != first.match->is_nova) {
      throw runtime::QuarantineError(Conflict(
          normalized_name, *first.source + " says is_nova " +
                               (first.match->is_nova ? "true" : "false") +
                               ", " + *k.source + " says is_nova " +
                               (k.match->is_nova ? "true" : "false")));
    }
  }
  r.found = true;
  r.is_nova = first.match->is_nova;
  r.object_type = first.match->object_type;
  for (const Known& k : known) r.sources.push_back(*k.source);

  if (r.is_nova) {
    const Known* decided = nullptr;  // the first YES or NO
    bool ambiguous = false;
    for (const Known& k : known) {
      ClassicalNovaStatus s = k.match->classical_nova_status;
      if (s == ClassicalNovaStatus::kAmbiguous) {
        ambiguous = true;
      } else if (decided == nullptr) {
        decided = &k;
      } else if (decided->match->classical_nova_status != s) {
        throw runtime::QuarantineError(Conflict(
            normalized_name,
            *decided->source + " says classical_nova_status " +
                std::string(ToString(decided->match->classical_nova_status)) +
                ", " + *k.source + " says " + std::string(ToString(s))));
      }
    }
    r.classical_nova_status = ambiguous || decided == nullptr
                                  ? ClassicalNovaStatus::kAmbiguous
                                  : decided->match->classical_nova_status;
  }

  const Known* positioned = nullptr;
  for (const Known& k : known) {
    if (!k.match->ra_deg) continue;
    if (positioned == nullptr) {
      positioned = &k;
      continue;
    }
    double separation = AngularSeparationArcsec(
        *positioned->match->ra_deg, *positioned->match->dec_deg,
        *k.match->ra_deg, *k.match->dec_deg);
    if (separation > kSourceAgreementArcsec) {
      throw runtime::QuarantineError(
          Conflict(normalized_name, *positioned->source + " and " + *k.source +
                                        " positions are " +
                                        internal::FormatFixed(separation, 3) +
                                        "\" apart (more than 2\")"));
    }
  }
  if (positioned != nullptr) {
    r.ra_deg = positioned->match->ra_deg;
    r.dec_deg = positioned->match->dec_deg;
    r.epoch = positioned->match->epoch;
  } else if (r.is_nova) {
    std::string sources;
    for (const std::string& s : r.sources) {
      sources += (sources.empty() ? "" : ", ") + s;
    }
    throw runtime::TerminalError("resolver returned no coordinates for nova " +
                                 Quote(normalized_name) +
                                 " (sources: " + sources + ")");
  }
  return r;
}

// --- FixtureResolver ---------------------------------------------------------

namespace {

constexpr std::string_view kResolverFormat = "novacat.fixture.resolver/1";

SourceMatch ReadMatch(const FixtureObject& o) {
  o.AllowOnly({"id", "object_type", "is_nova", "classical_nova_status",
               "ra_deg", "dec_deg", "epoch", "note"});
  SourceMatch m;
  m.id = o.RequiredString("id");
  m.object_type = o.RequiredString("object_type");
  m.is_nova = o.RequiredBool("is_nova");
  std::string status = o.RequiredString("classical_nova_status");
  auto parsed = ParseClassicalNovaStatus(status);
  if (!parsed) {
    o.Fail(o.Path("classical_nova_status"),
           "must be YES, NO or AMBIGUOUS, got " + Quote(status));
  }
  m.classical_nova_status = *parsed;
  m.ra_deg = o.OptionalNumber("ra_deg");
  m.dec_deg = o.OptionalNumber("dec_deg");
  m.epoch = o.OptionalString("epoch");
  return m;
}

}  // namespace

FixtureResolver::FixtureResolver(const std::filesystem::path& file)
    : FixtureResolver(internal::ReadJsonFile(file), file.generic_string()) {}

FixtureResolver::FixtureResolver(const json& fixture, std::string origin)
    : origin_(std::move(origin)) {
  FixtureObject root(fixture, origin_, "$");
  root.AllowOnly({"format", "description", "names"});
  if (root.RequiredString("format") != kResolverFormat) {
    root.Fail(root.Path("format"), "must be " + Quote(kResolverFormat));
  }
  const json& names = root.RequiredObject("names");
  for (const auto& [name, value] : names.items()) {
    FixtureObject entry(value, origin_,
                        internal::MemberPath(root.Path("names"), name));
    entry.AllowOnly({"note", "throttle_first", "answers"});
    std::string canonical;
    try {
      canonical = NormalizeCandidateName(name);
    } catch (const runtime::StepError& e) {
      entry.Fail(entry.path(), std::string("key is not a name: ") + e.what());
    }
    if (canonical != name) {
      entry.Fail(entry.path(),
                 "key must be the canonical name " + Quote(canonical));
    }
    Entry e;
    e.throttle_first = entry.Count("throttle_first", 0);
    const json& answers = entry.RequiredArray("answers");
    for (size_t i = 0; i < answers.size(); ++i) {
      FixtureObject a(answers[i], origin_,
                      internal::IndexPath(entry.Path("answers"), i));
      a.AllowOnly({"source", "matches", "note"});
      SourceAnswer answer;
      answer.source = a.RequiredString("source");
      const json& matches = a.RequiredArray("matches");
      for (size_t j = 0; j < matches.size(); ++j) {
        answer.matches.push_back(ReadMatch(FixtureObject(
            matches[j], origin_, internal::IndexPath(a.Path("matches"), j))));
      }
      e.answers.push_back(std::move(answer));
    }
    entries_.emplace(name, std::move(e));
  }
}

Resolution FixtureResolver::Resolve(std::string_view normalized_name) {
  if (normalized_name.empty()) {
    throw runtime::TerminalError(
        "FixtureResolver: the name to resolve is empty");
  }
  auto it = entries_.find(normalized_name);
  int call;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto count = calls_.try_emplace(std::string(normalized_name), 0).first;
    call = ++count->second;
  }
  if (it == entries_.end()) return Resolution{};
  const Entry& entry = it->second;
  if (call <= entry.throttle_first) {
    throw runtime::RetryableError(
        "archive resolver throttled the request for " + Quote(normalized_name) +
        " (HTTP 429; fixture throttles the first " +
        std::to_string(entry.throttle_first) + " calls, this is call " +
        std::to_string(call) + ")");
  }
  return CombineSourceAnswers(normalized_name, entry.answers);
}

int FixtureResolver::calls(std::string_view normalized_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = calls_.find(normalized_name);
  return it == calls_.end() ? 0 : it->second;
}

}  // namespace novacat::domain
