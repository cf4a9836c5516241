// The recorded name-resolution answers (fixtures/archives/simbad, vsx, tns)
// through the real clients on the replay server, combined as initialize_nova
// combines them: every name the scenarios resolve keeps its outcome.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "novacat/domain/failure.h"
#include "novacat/domain/resolver.h"
#include "novacat/sources/replay.h"
#include "novacat/sources/simbad.h"
#include "novacat/sources/tns.h"
#include "novacat/sources/vsx.h"

namespace novacat::sources {
namespace recorded_names_test {
namespace {

using domain::ClassicalNovaStatus;
using domain::Resolution;
using domain::ResolverError;
using domain::ResolverFailure;

class RecordedNamesTest : public ::testing::Test {
 protected:
  Service Named(const std::string& name, const std::string& service) {
    Service s;
    s.name = name;
    s.base_url = replay_.BaseUrl(service);
    return s;
  }
  // Asks the three services in the resolver's order, then combines.
  Resolution Resolve(const std::string& name) {
    std::vector<domain::SourceAnswer> answers = {simbad_.Identify(name, 25000),
                                                 vsx_.Identify(name, 25000),
                                                 tns_.Identify(name, 25000)};
    return domain::CombineSourceAnswers(name, answers);
  }
  ResolverFailure Fails(const std::string& name) {
    try {
      Resolve(name);
    } catch (const ResolverError& e) {
      return e.failure();
    }
    ADD_FAILURE() << name << " resolved";
    return ResolverFailure::kMalformedAnswer;
  }

  ReplayServer replay_{"fixtures/archives"};
  SimbadTap simbad_{Named("SIMBAD", "simbad")};
  Vsx vsx_{Named("VSX", "vsx")};
  Tns tns_{Named("TNS", "tns"),
           TnsCredentials{.api_key = "novacat-recorded-tns-key",
                          .bot_id = "0",
                          .bot_name = "novacat"}};
};

TEST_F(RecordedNamesTest, ClassicalNovaeAreClassicalWithTheFirstPosition) {
  struct Case {
    const char* name;
    double ra, dec;
    std::vector<std::string> sources;
  };
  for (const Case& c : {
           Case{"V1500 CYG", 317.9024208, 48.1505417, {"SIMBAD", "VSX"}},
           Case{"NOVA CYG 1975", 317.9024208, 48.1505417, {"SIMBAD", "VSX"}},
           Case{"TCP J21113658+4809030",
                317.9024208,
                48.15081947777777,
                {"VSX", "TNS"}},
           Case{"TCP J21113658+4809070",
                317.9024208,
                48.15193058888889,
                {"VSX", "TNS"}},
           Case{"V1674 HER", 284.3790833, 16.8943333, {"SIMBAD", "VSX"}},
           Case{"NOVA SGR 2015 NO. 2",
                279.2368333,
                -28.9277222,
                {"SIMBAD", "VSX"}},
       }) {
    Resolution r = Resolve(c.name);
    EXPECT_TRUE(r.is_nova) << c.name;
    EXPECT_EQ(r.classical_nova_status, ClassicalNovaStatus::kYes) << c.name;
    EXPECT_EQ(r.ra_deg, c.ra) << c.name;
    EXPECT_EQ(r.dec_deg, c.dec) << c.name;
    EXPECT_EQ(r.epoch, "J2000") << c.name;
    EXPECT_EQ(r.sources, c.sources) << c.name;
  }
  EXPECT_TRUE(replay_.unmatched().empty());
}

TEST_F(RecordedNamesTest, EveryOtherOutcomeIsKept) {
  Resolution betelgeuse = Resolve("BETELGEUSE");
  EXPECT_TRUE(betelgeuse.found);
  EXPECT_FALSE(betelgeuse.is_nova);
  EXPECT_EQ(betelgeuse.ra_deg, 88.792939);

  Resolution rs_oph = Resolve("RS OPH");
  EXPECT_TRUE(rs_oph.is_nova);
  EXPECT_EQ(rs_oph.classical_nova_status, ClassicalNovaStatus::kNo);
  EXPECT_EQ(rs_oph.ra_deg, 267.55487);

  Resolution v1309 = Resolve("V1309 SCO");
  EXPECT_TRUE(v1309.is_nova);
  EXPECT_EQ(v1309.classical_nova_status, ClassicalNovaStatus::kAmbiguous);
  EXPECT_EQ(v1309.ra_deg, 269.3872429);

  Resolution unknown = Resolve("NOVA CYG 2026");
  EXPECT_FALSE(unknown.found);

  EXPECT_EQ(Fails("NOVA SGR 2015"), ResolverFailure::kAmbiguous);
  EXPECT_EQ(Fails("V838 MON"),
            ResolverFailure::kConflictingAuthoritativeSources);
  EXPECT_EQ(Fails("NOVA MON 2002"),
            ResolverFailure::kConflictingAuthoritativeSources);
  EXPECT_EQ(Fails("NOVA OPH 1848"), ResolverFailure::kMissingCoordinates);
  EXPECT_TRUE(replay_.unmatched().empty());
}

TEST_F(RecordedNamesTest, ThrottledNamesAnswerAfterTheirThrottles) {
  auto throttled = [&](const std::string& name, int times) {
    for (int i = 0; i < times; ++i) {
      try {
        simbad_.Identify(name, 25000);
        ADD_FAILURE() << name << " answered on ask " << i + 1;
      } catch (const domain::ClientError& e) {
        EXPECT_EQ(e.failure(), domain::ClientFailure::kUnavailable) << name;
      }
    }
    Resolution r = Resolve(name);
    EXPECT_TRUE(r.is_nova) << name;
    EXPECT_EQ(r.classical_nova_status, ClassicalNovaStatus::kYes) << name;
  };
  throttled("V1405 CAS", 2);
  throttled("V339 DEL", 4);
  EXPECT_TRUE(replay_.unmatched().empty());
}

TEST_F(RecordedNamesTest, BibliographiesAreRecordedForTheRefreshedNovae) {
  auto ask = [&](std::vector<std::string> names) {
    domain::ReferenceQuery query;
    query.nova_id = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
    query.names = std::move(names);
    return simbad_.Bibliography(query).size();
  };
  EXPECT_EQ(ask({"V1500 CYG"}), 5u);
  EXPECT_EQ(ask({"V1674 Her"}), 3u);
  EXPECT_EQ(ask({"Nova Sgr 2015 No. 2"}), 2u);
  EXPECT_THROW(ask({"GK PER"}), domain::ClientError);
  EXPECT_THROW(ask({"GK PER"}), domain::ClientError);
  EXPECT_EQ(ask({"GK PER"}), 2u);
  EXPECT_TRUE(replay_.unmatched().empty());
}

}  // namespace
}  // namespace recorded_names_test
}  // namespace novacat::sources
