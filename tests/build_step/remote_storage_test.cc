// The HTTP remote storage against a real HTTP server on loopback
// (tests/build_step/storage_server.py): a result put is got back; a server that
// errs, answers garbage, hangs, or is not there costs the timeouts and one
// line, never a wrong result.
#include "build_step/remote_storage.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "test_dir.h"

namespace kernelblaster::build_step {
namespace {

// The storage server in MODE, serving `root`; stopped with the object.
class Server {
 public:
  Server(const std::string& mode, const std::string& root) {
    int out[2];
    if (::pipe(out) != 0) return;
    m_pid = ::fork();
    if (m_pid == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::execlp("python3", "python3", KERNELBLASTER_STORAGE_SERVER, mode.c_str(), root.c_str(), nullptr);
      ::_exit(127);
    }
    ::close(out[1]);
    FILE* f = ::fdopen(out[0], "r");
    if (f && std::fscanf(f, "%d", &m_port) != 1) m_port = 0;
    if (f) std::fclose(f);
  }
  ~Server() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port) + "/kb-results/"; }
  bool up() const { return m_port > 0; }

 private:
  pid_t m_pid = -1;
  int m_port = 0;
};

TunedResult result() { return testing::tuned_on_h200("k123", "k.cu", {"BLOCK", "128"}, 1.3); }

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(RemoteStorage, APutResultIsGotBackAndTheTokenComesFromTheEnvironment) {
  testing::TestDir d;
  Server server("files", d.path(""));
  ASSERT_TRUE(server.up());
  ::setenv("KERNELBLASTER_REMOTE_STORAGE_TOKEN", "s3cret", 1);
  std::string why;
  auto storage = make_http_storage(server.url(), {}, &why);
  ASSERT_TRUE(storage) << why;
  std::string note;
  EXPECT_FALSE(storage->get(testing::h200().id(), "k123", &note).has_value());
  EXPECT_EQ(note, "");  // a miss says nothing
  ASSERT_TRUE(storage->put(result(), &note)) << note;
  std::optional<TunedResult> back = storage->get(testing::h200().id(), "k123", &note);
  ::unsetenv("KERNELBLASTER_REMOTE_STORAGE_TOKEN");
  ASSERT_TRUE(back.has_value()) << note;
  EXPECT_DOUBLE_EQ(back->speedup, 1.3);
  EXPECT_EQ(back->defines, result().defines);
  std::ifstream auth(d.path("authorization"));
  std::string sent((std::istreambuf_iterator<char>(auth)), std::istreambuf_iterator<char>());
  EXPECT_EQ(sent, "Bearer s3cret");
  // An entry stored under this key that names another is not believed.
  std::ofstream(d.path("kb-results/" + testing::h200().id() + "/k123.json"))
      << "{\"key\": \"k999\", \"improved\": true, \"speedup\": 9.0, \"gpu\": {\"name\": \"NVIDIA H200\"}}";
  EXPECT_FALSE(storage->get(testing::h200().id(), "k123", &note).has_value());
  EXPECT_NE(note.find("names another key or GPU; ignored"), std::string::npos) << note;
}

TEST(RemoteStorage, AServerThatErrsAnswersGarbageHangsOrIsGoneCostsOneLine) {
  testing::TestDir d;
  std::string note, why;
  {
    Server server("error", d.path(""));
    ASSERT_TRUE(server.up());
    auto s = make_http_storage(server.url(), {}, &why);
    EXPECT_FALSE(s->get("gpu", "k", &note).has_value());
    EXPECT_NE(note.find("answered HTTP 500"), std::string::npos) << note;
    EXPECT_FALSE(s->put(result(), &note));
    EXPECT_NE(note.find("not stored in remote storage"), std::string::npos) << note;
  }
  {
    Server server("garbage", d.path(""));
    auto s = make_http_storage(server.url(), {}, &why);
    EXPECT_FALSE(s->get("gpu", "k", &note).has_value());
    EXPECT_NE(note.find("is not valid JSON: "), std::string::npos) << note;
    EXPECT_EQ(note.find("[json.exception"), std::string::npos) << note;
  }
  {
    Server server("hang", d.path(""));
    auto s = make_http_storage(server.url(), {1, 2}, &why);
    const double took = seconds_of([&] { EXPECT_FALSE(s->get("gpu", "k", &note).has_value()); });
    EXPECT_LT(took, 10.0);  // the total timeout (2 s), not the server's 30 s
    EXPECT_NE(note.find("not reached"), std::string::npos) << note;
  }
  // Nothing listens there.
  auto gone = make_http_storage("http://127.0.0.1:9/", {1, 2}, &why);
  EXPECT_FALSE(gone->get("gpu", "k", &note).has_value());
  EXPECT_NE(note.find("not reached"), std::string::npos) << note;
}

TEST(RemoteStorage, AUrlWithCredentialsOrNotHttpIsRefused) {
  std::string why;
  EXPECT_FALSE(make_http_storage("https://user:pw@cache.example/kb", {}, &why));
  EXPECT_NE(why.find("KERNELBLASTER_REMOTE_STORAGE_TOKEN"), std::string::npos) << why;
  EXPECT_FALSE(make_http_storage("redis://cache.example", {}, &why));
  EXPECT_NE(why.find("no http:// or https:// URL"), std::string::npos) << why;
  EXPECT_TRUE(make_http_storage("https://cache.example/kb/", {}, &why));
}

}  // namespace
}  // namespace kernelblaster::build_step
