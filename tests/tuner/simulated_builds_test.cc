#include "tuner/simulated_builds.h"

#include <gtest/gtest.h>

using kernelblaster::tuner::SimulatedBuilds;

// As the compile pool: an idle thread starts a job when it is asked for;
// once all are busy, the job asked for last starts first.
TEST(SimulatedBuilds, TheLastAskedStartsFirst) {
  SimulatedBuilds b(1, 10);
  b.ask("a", 0);
  b.ask("b", 1);
  b.ask("c", 1);
  b.ask("d", 2);
  EXPECT_TRUE(b.built_by("a", 10));
  EXPECT_FALSE(b.built_by("d", 15));
  EXPECT_DOUBLE_EQ(b.elapsed("d", 12), 2);
  EXPECT_DOUBLE_EQ(b.elapsed("b", 12), 0);
  EXPECT_DOUBLE_EQ(b.ends("c", 12), 30);
  EXPECT_DOUBLE_EQ(b.ends("b", 12), 40);
}

// Asking again for a queued job moves it to the front; a started one is
// never restarted.
TEST(SimulatedBuilds, AskingAgainMovesAQueuedJobToTheFront) {
  SimulatedBuilds b(1, 10);
  for (const char* id : {"a", "b", "c", "d"}) b.ask(id, 0);
  b.ask("b", 1);
  b.ask("a", 2);
  EXPECT_DOUBLE_EQ(b.ends("a", 2), 10);
  EXPECT_DOUBLE_EQ(b.ends("b", 2), 20);
  EXPECT_DOUBLE_EQ(b.ends("d", 2), 30);
  EXPECT_DOUBLE_EQ(b.ends("c", 2), 40);
}

// An idle builder starts a job when it is asked for, and a job nobody
// asked for is asked for by waiting on it.
TEST(SimulatedBuilds, AnIdleBuilderStartsAtTheAsk) {
  SimulatedBuilds b(2, 10);
  EXPECT_DOUBLE_EQ(b.elapsed("x", 5), 0);
  EXPECT_DOUBLE_EQ(b.ends("x", 5), 15);
  b.ask("y", 7);
  EXPECT_DOUBLE_EQ(b.elapsed("y", 9), 2);
  // Both builders busy until 15 and 17: a third waits for the first free.
  EXPECT_DOUBLE_EQ(b.ends("z", 8), 25);
}
