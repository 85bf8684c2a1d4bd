// The HTTP remote storage against an existing storage server, not one written
// for the test: Debian's nginx with its WebDAV module (PUT), started on
// loopback with a configuration written here. Skipped, saying so, where nginx
// is not installed (the README's test command installs it).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "build_step/remote_storage.h"
#include "test_dir.h"

namespace kernelblaster::build_step {
namespace {

namespace fs = std::filesystem;

std::string nginx_binary() {
  for (const char* dir : {"/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/nginx/sbin"}) {
    const fs::path p = fs::path(dir) / "nginx";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

// A loopback port nothing listens on now (bound, read, released).
int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t n = sizeof a;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n) == 0)
    port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

bool accepts(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

// nginx in the foreground, one process, everything under `dir`:
// /kb-results/ takes PUT (WebDAV, creating the GPU's folder on first use);
// /read-only/ is a plain static location that refuses PUT.
class Nginx {
 public:
  explicit Nginx(const fs::path& dir) {
    m_port = free_port();
    fs::create_directories(dir / "root" / "read-only");
    std::ofstream(dir / "nginx.conf")
        << "daemon off; master_process off; worker_processes 1;\n"
        << "pid " << (dir / "nginx.pid").string() << ";\n"
        << "error_log " << (dir / "error.log").string() << ";\n"
        << "events { worker_connections 64; }\n"
        << "http {\n  access_log off;\n"
        << "  client_body_temp_path " << (dir / "body").string() << ";\n"
        << "  proxy_temp_path " << (dir / "proxy").string() << ";\n"
        << "  fastcgi_temp_path " << (dir / "fastcgi").string() << ";\n"
        << "  uwsgi_temp_path " << (dir / "uwsgi").string() << ";\n"
        << "  scgi_temp_path " << (dir / "scgi").string() << ";\n"
        << "  server {\n    listen 127.0.0.1:" << m_port << ";\n"
        << "    root " << (dir / "root").string() << ";\n"
        << "    location /kb-results/ { dav_methods PUT; create_full_put_path on; dav_access user:rw; }\n"
        << "    location /read-only/ { }\n  }\n}\n";
    m_pid = ::fork();
    if (m_pid == 0) {
      const std::string conf = (dir / "nginx.conf").string(), err = (dir / "error.log").string();
      ::execl(nginx_binary().c_str(), "nginx", "-p", dir.c_str(), "-e", err.c_str(), "-c", conf.c_str(), nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 100 && !accepts(m_port); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ~Nginx() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
  }
  bool up() const { return m_pid > 0 && accepts(m_port); }
  std::string url(const std::string& location) const {
    return "http://127.0.0.1:" + std::to_string(m_port) + "/" + location + "/";
  }

 private:
  pid_t m_pid = -1;
  int m_port = 0;
};

TunedResult result() { return testing::tuned_on_h200("k456", "softmax.cu", {"THREADS", "256"}, 1.25); }

TEST(NginxStorage, AResultPutIntoNginxIsGotBackAndAForgedEntryIsIgnored) {
  if (nginx_binary().empty()) GTEST_SKIP() << "nginx is not installed (apt-get install nginx)";
  testing::TestDir d;
  Nginx server(d.path("nginx"));
  ASSERT_TRUE(server.up()) << "nginx did not start; see " << d.path("nginx/error.log");
  std::string why, note;
  auto storage = make_http_storage(server.url("kb-results"), {}, &why);
  ASSERT_TRUE(storage) << why;
  EXPECT_FALSE(storage->get(testing::h200().id(), "k456", &note).has_value());
  EXPECT_EQ(note, "");  // nginx's 404: a miss, nothing to say
  ASSERT_TRUE(storage->put(result(), &note)) << note;
  // nginx stored the file where a GET will find it, in the GPU's own folder.
  EXPECT_TRUE(fs::exists(d.path("nginx/root/kb-results/" + testing::h200().id() + "/k456.json")));
  std::optional<TunedResult> back = storage->get(testing::h200().id(), "k456", &note);
  ASSERT_TRUE(back.has_value()) << note;
  EXPECT_DOUBLE_EQ(back->speedup, 1.25);
  EXPECT_EQ(back->defines, result().defines);
  // A second PUT replaces the file (nginx answers 204).
  TunedResult better = result();
  better.speedup = 1.5;
  ASSERT_TRUE(storage->put(better, &note)) << note;
  EXPECT_DOUBLE_EQ(storage->get(testing::h200().id(), "k456", &note)->speedup, 1.5);
  // Someone stored, under this key, a result for another one: not believed.
  std::ofstream(d.path("nginx/root/kb-results/" + testing::h200().id() + "/k456.json"))
      << "{\"key\": \"k000\", \"improved\": true, \"speedup\": 9.0, \"gpu\": {\"name\": \"NVIDIA H200\"}}";
  EXPECT_FALSE(storage->get(testing::h200().id(), "k456", &note).has_value());
  EXPECT_NE(note.find("names another key or GPU; ignored"), std::string::npos) << note;
}

TEST(NginxStorage, ALocationThatRefusesPutCostsOneLineAndNginxGoneIsNotReached) {
  if (nginx_binary().empty()) GTEST_SKIP() << "nginx is not installed (apt-get install nginx)";
  testing::TestDir d;
  std::string why, note, url;
  {
    Nginx server(d.path("nginx"));
    ASSERT_TRUE(server.up()) << "nginx did not start; see " << d.path("nginx/error.log");
    auto storage = make_http_storage(server.url("read-only"), {}, &why);
    EXPECT_FALSE(storage->put(result(), &note));
    EXPECT_NE(note.find("not stored in remote storage"), std::string::npos) << note;
    EXPECT_NE(note.find("HTTP 405"), std::string::npos) << note;
    url = server.url("kb-results");
  }
  // The server stopped: the same URL is not reached, and says so.
  auto storage = make_http_storage(url, {1, 2}, &why);
  EXPECT_FALSE(storage->get(testing::h200().id(), "k456", &note).has_value());
  EXPECT_NE(note.find("not reached"), std::string::npos) << note;
}

}  // namespace
}  // namespace kernelblaster::build_step
