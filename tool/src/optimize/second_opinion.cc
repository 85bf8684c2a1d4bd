#include "optimize/second_opinion.h"

#include <cctype>

namespace kernelblaster::optimize {
namespace {

const char* kSystem = R"(You review rewrites of CUDA kernels. You are shown an original source and a
rewrite that an automatic engine has already tested on random inputs and
found correct and faster. Look for what testing can miss: inputs the
launcher accepts that behave differently (sizes that are not multiples of a
vector width or block size, unaligned pointers, aliasing of inputs and
outputs, empty inputs), results that depend on timing or on earlier calls,
lowered precision, and work skipped for some inputs. End your answer with
one line, exactly:
VERDICT: same
or
VERDICT: different
followed on the same line by the one reason that decides it.)";

std::string one_line(std::string s, std::size_t max_chars = 300) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::size_t b = s.find_first_not_of(" -:,");
  s = b == std::string::npos ? std::string() : s.substr(b);
  return s.size() > max_chars ? s.substr(0, max_chars) + "..." : s;
}

}  // namespace

const char* opinion_name(Opinion opinion) {
  switch (opinion) {
    case Opinion::same: return "same";
    case Opinion::different: return "different";
    case Opinion::unreadable: return "unreadable";
    case Opinion::not_asked: return "not_asked";
    case Opinion::failed: return "failed";
  }
  return "?";
}

llm::Request second_opinion_request(const std::string& original, const std::string& candidate,
                                    const std::string& launcher) {
  llm::Request r;
  r.messages = {{llm::Role::system, kSystem},
                {llm::Role::user, (launcher.empty() ? std::string("The harness calls several launchers.")
                                                           : "The launcher is " + launcher + ".") +
                                      "\n\nOriginal:\n```cuda\n" + original +
                                      "```\n\nRewrite:\n```cuda\n" + candidate + "```\n"}};
  r.sampling.max_tokens = 1024;
  return r;
}

SecondOpinion read_second_opinion(const std::string& reply) {
  SecondOpinion o;
  o.opinion = Opinion::unreadable;
  o.reason = "the reply has no line beginning VERDICT: same or VERDICT: different";
  std::size_t start = 0;
  while (start <= reply.size()) {
    std::size_t end = reply.find('\n', start);
    if (end == std::string::npos) end = reply.size();
    std::string line = reply.substr(start, end - start);
    start = end + 1;
    std::size_t b = line.find_first_not_of(" \t*>");
    if (b == std::string::npos || line.compare(b, 8, "VERDICT:") != 0) continue;
    std::string rest = line.substr(b + 8);
    std::size_t w = rest.find_first_not_of(" \t*");
    std::string word;
    for (std::size_t i = w; w != std::string::npos && i < rest.size() && std::isalpha(static_cast<unsigned char>(rest[i])); ++i)
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(rest[i])));
    if (word != "same" && word != "different") continue;
    o.opinion = word == "same" ? Opinion::same : Opinion::different;
    o.reason = one_line(rest.substr(w + word.size()));
    if (o.reason.empty()) o.reason = "no reason given";
  }
  return o;
}

}  // namespace kernelblaster::optimize
