#include <gtest/gtest.h>

#include "llm/sse.h"

namespace kernelblaster::llm {
namespace {

std::vector<SseEvent> parse_in_pieces(const std::string& text, const std::vector<std::size_t>& cuts, bool* clean = nullptr) {
  SseParser p;
  std::vector<SseEvent> out;
  std::size_t at = 0;
  for (std::size_t cut : cuts) {
    p.feed(std::string_view(text).substr(at, cut - at), out);
    at = cut;
  }
  p.feed(std::string_view(text).substr(at), out);
  bool c = p.finish(out);
  if (clean) *clean = c;
  return out;
}

const std::string kStream =
    ": keep-alive\r\n"
    "event: message_start\r\ndata: {\"a\":1}\r\n\r\n"
    "data: line one\ndata: line two\n\n"
    "event: ping\ndata:no-space\r\r"
    "data: é ünïcode\n\n"
    "data: [DONE]\n\n";

void expect_events(const std::vector<SseEvent>& e) {
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0].event, "message_start");
  EXPECT_EQ(e[0].data, "{\"a\":1}");
  EXPECT_EQ(e[1].event, "");
  EXPECT_EQ(e[1].data, "line one\nline two");
  EXPECT_EQ(e[2].event, "ping");
  EXPECT_EQ(e[2].data, "no-space");
  EXPECT_EQ(e[3].data, "é ünïcode");
  EXPECT_EQ(e[4].data, "[DONE]");
}

TEST(Sse, WholeStream) {
  bool clean = false;
  expect_events(parse_in_pieces(kStream, {}, &clean));
  EXPECT_TRUE(clean);
}

TEST(Sse, EveryCutIntoTwoPieces) {
  for (std::size_t cut = 0; cut <= kStream.size(); ++cut) {
    SCOPED_TRACE(cut);
    expect_events(parse_in_pieces(kStream, {cut}));
  }
}

TEST(Sse, EveryPairOfCuts) {
  for (std::size_t a = 0; a <= kStream.size(); a += 1)
    for (std::size_t b = a; b <= kStream.size(); b += 3) expect_events(parse_in_pieces(kStream, {a, b}));
}

TEST(Sse, OneByteAtATime) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < kStream.size(); ++i) cuts.push_back(i);
  expect_events(parse_in_pieces(kStream, cuts));
}

TEST(Sse, UnterminatedLastEventIsDeliveredButNotClean) {
  bool clean = true;
  auto e = parse_in_pieces("data: a\n\ndata: half", {}, &clean);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[1].data, "half");
  EXPECT_FALSE(clean);
}

TEST(Sse, EventWithoutDataIsNotDelivered) {
  auto e = parse_in_pieces("event: ping\n\n:comment\n\n", {});
  EXPECT_TRUE(e.empty());
}

}  // namespace
}  // namespace kernelblaster::llm
