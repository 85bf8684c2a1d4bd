#include <gtest/gtest.h>

#include "llm/retry.h"

namespace kernelblaster::llm {
namespace {

TEST(Retry, ClassifiesStatuses) {
  std::map<std::string, std::string> none;
  EXPECT_EQ(classify_http(200, false, none), HttpVerdict::success);
  for (int s : {408, 409, 429, 500, 502, 503, 504, 529}) EXPECT_EQ(classify_http(s, false, none), HttpVerdict::retry) << s;
  for (int s : {401, 403}) EXPECT_EQ(classify_http(s, false, none), HttpVerdict::refused_key) << s;
  for (int s : {400, 404, 413, 422}) EXPECT_EQ(classify_http(s, false, none), HttpVerdict::bad_request) << s;
  EXPECT_EQ(classify_http(429, true, none), HttpVerdict::quota);
  EXPECT_EQ(classify_http(400, true, none), HttpVerdict::quota);
}

TEST(Retry, ServerHeaderWins) {
  EXPECT_EQ(classify_http(400, false, {{"x-should-retry", "true"}}), HttpVerdict::retry);
  EXPECT_EQ(classify_http(503, false, {{"x-should-retry", "false"}}), HttpVerdict::bad_request);
  EXPECT_EQ(classify_http(401, false, {{"x-should-retry", "true"}}), HttpVerdict::refused_key);
}

TEST(Retry, BackoffDoublesToTheCapWithJitter) {
  RetryPolicy p;
  EXPECT_DOUBLE_EQ(backoff_s(p, 0, 0), 0.5);
  EXPECT_DOUBLE_EQ(backoff_s(p, 1, 0), 1.0);
  EXPECT_DOUBLE_EQ(backoff_s(p, 3, 0), 4.0);
  EXPECT_DOUBLE_EQ(backoff_s(p, 4, 0), 8.0);
  EXPECT_DOUBLE_EQ(backoff_s(p, 10, 0), 8.0);
  EXPECT_DOUBLE_EQ(backoff_s(p, 0, 1.0), 0.375);
  EXPECT_DOUBLE_EQ(backoff_s(p, 2, 0.5), 2.0 * 0.875);
  for (int retry = 0; retry < 40; ++retry)
    for (double r : {0.0, 0.3, 0.999}) {
      double d = backoff_s(p, retry, r);
      EXPECT_GT(d, 0);
      EXPECT_LE(d, p.cap_s);
    }
}

TEST(Retry, RetryAfterForms) {
  RetryPolicy p;
  EXPECT_EQ(retry_after_s(p, {}), std::nullopt);
  EXPECT_DOUBLE_EQ(*retry_after_s(p, {{"retry-after", "2"}}), 2.0);
  EXPECT_DOUBLE_EQ(*retry_after_s(p, {{"retry-after", "1.5"}}), 1.5);
  EXPECT_DOUBLE_EQ(*retry_after_s(p, {{"retry-after-ms", "250"}, {"retry-after", "9"}}), 0.25);
  EXPECT_DOUBLE_EQ(*retry_after_s(p, {{"retry-after-ms", "junk"}, {"retry-after", "3"}}), 3.0);
  EXPECT_DOUBLE_EQ(*retry_after_s(p, {{"retry-after", "3600"}}), 60.0);  // capped
  EXPECT_EQ(retry_after_s(p, {{"retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"}}), std::nullopt);
  EXPECT_EQ(retry_after_s(p, {{"retry-after", "0"}}), std::nullopt);
  EXPECT_EQ(retry_after_s(p, {{"retry-after", "-5"}}), std::nullopt);
}

}  // namespace
}  // namespace kernelblaster::llm
