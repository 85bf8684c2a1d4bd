#include "llm/command_provider.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "common/subprocess.h"
#include "llm/json_read.h"

namespace kernelblaster::llm {

using nlohmann::json;

std::string command_prompt_json(const Request& request, const std::string& model) {
  json messages = json::array();
  for (const Message& m : request.messages) messages.push_back({{"role", role_name(m.role)}, {"content", m.content}});
  json doc = {{"model", model}, {"messages", messages}, {"max_tokens", request.sampling.max_tokens}};
  if (request.sampling.temperature) doc["temperature"] = *request.sampling.temperature;
  if (!request.sampling.reasoning_effort.empty()) doc["reasoning_effort"] = request.sampling.reasoning_effort;
  return doc.dump();
}

Result read_command_reply(const std::string& out, const std::string& model) {
  Result r;
  r.reply.model = model;
  json j = json::parse(out, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("text")) {
    if (!j["text"].is_string()) {
      r.outcome = Outcome::malformed_reply;
      r.detail = "LLM command printed JSON whose \"text\" is not a string";
      return r;
    }
    r.reply.text = j["text"].get<std::string>();
    if (std::string m = str_at(j, "model"); !m.empty()) r.reply.model = m;
    if (str_at(j, "finish") == "length") r.reply.finish = Finish::length;
    if (const json* u = obj_at(j, "usage")) {
      r.reply.usage.reported = true;
      r.reply.usage.input = int_at(*u, "input");
      r.reply.usage.output = int_at(*u, "output");
      r.reply.usage.cached_input = int_at(*u, "cached_input");
    }
  } else {
    r.reply.text = out;
  }
  if (r.reply.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    r.outcome = Outcome::command_failed;
    r.detail = "LLM command printed no reply";
  } else if (r.reply.finish == Finish::length) {
    r.outcome = Outcome::truncated;
    r.detail = "LLM reply cut off at max_tokens (" + std::to_string(r.reply.usage.output) + " output tokens)";
  }
  return r;
}

CommandProvider::CommandProvider(std::string command, std::string model, double timeout_s, std::size_t max_reply_bytes)
    : m_command(std::move(command)), m_model(std::move(model)), m_timeout_s(timeout_s), m_max_reply_bytes(max_reply_bytes) {}

Result CommandProvider::complete(const Request& request, const Progress& progress) {
  Result r;
  r.attempts = 1;
  std::string dir;
  try {
    dir = make_work_dir("kernelblaster-llm");
    write_file(dir + "/prompt.json", command_prompt_json(request, m_model));
  } catch (const std::exception& x) {
    r.outcome = Outcome::command_failed;
    r.detail = clean_detail(std::string("LLM command: ") + x.what(), "");
    return r;
  }
  ProcessOptions options;
  options.timeout_s = m_timeout_s;
  options.stdin_file = dir + "/prompt.json";
  options.stderr_file = dir + "/stderr.txt";
  options.output_cap = m_max_reply_bytes + 1;
  ProcessResult p = run_process({"/bin/sh", "-c", m_command}, options);
  std::string err;
  try {
    ProcessResult tail;
    tail.output = read_file(options.stderr_file);
    err = tail.output_tail(1);
  } catch (const std::exception&) {
    // Nothing on stderr to quote: the exit status alone is reported below.
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (progress) progress(p.output.size());
  if (!p.ok()) {
    r.outcome = p.timed_out ? Outcome::stalled : Outcome::command_failed;
    r.detail = clean_detail("LLM command " + p.how_it_ended() + (err.empty() ? "" : ": " + err), "");
    return r;
  }
  if (p.output.size() > m_max_reply_bytes) {
    r.outcome = Outcome::oversized;
    r.detail = "LLM command reply exceeds the " + std::to_string(m_max_reply_bytes) + "-byte cap";
    return r;
  }
  Result reply = read_command_reply(p.output, m_model);
  reply.attempts = 1;
  return reply;
}

}  // namespace kernelblaster::llm
