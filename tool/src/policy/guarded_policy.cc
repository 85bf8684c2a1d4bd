#include <exception>
#include <set>

#include "common/text.h"
#include "policy/policy.h"

namespace kernelblaster::policy {
namespace {

// Ids in messages are cut short and escaped: a script may return a megabyte
// string, or one with line breaks and binary bytes.
std::string shown(const std::string& id) { return quoted_excerpt(id, 57); }

}  // namespace

void check_selection(const Context& ctx, const std::vector<std::string>& ids, const std::string& policy_name) {
  if (ids.empty() && !ctx.actions.empty()) throw PolicyError(policy_name + ": select() returned no action");
  std::set<std::string> known, seen;
  for (const Action& a : ctx.actions) known.insert(a.id);
  for (const std::string& id : ids) {
    if (!known.count(id)) throw PolicyError(policy_name + ": select() returned " + shown(id) + ", not one of ctx.actions");
    if (!seen.insert(id).second) throw PolicyError(policy_name + ": select() returned " + shown(id) + " twice");
  }
}

GuardedPolicy::GuardedPolicy(std::unique_ptr<Policy> user, std::unique_ptr<Policy> fallback,
                             void (*log)(const std::string&))
    : m_user(std::move(user)), m_fallback(std::move(fallback)), m_log(log) {
  m_user_name = m_user ? m_user->name() : m_fallback->name();
}

GuardedPolicy::GuardedPolicy(std::string user_name, std::string load_failure, std::unique_ptr<Policy> fallback,
                             void (*log)(const std::string&))
    : m_fallback(std::move(fallback)), m_log(log), m_user_name(std::move(user_name)) {
  fail(load_failure);
}

std::string GuardedPolicy::name() const { return m_user_name; }

void GuardedPolicy::fail(const std::string& reason) {
  m_failed = true;
  m_failure = reason;
  m_user.reset();  // a failed script's state is never used again
  if (m_log) m_log(reason + "; using the default policy from now on");
}

std::vector<std::string> GuardedPolicy::select(const Context& ctx) {
  if (!m_failed) {
    try {
      std::vector<std::string> ids = m_user->select(ctx);
      check_selection(ctx, ids, m_user_name);
      return ids;
    } catch (const std::exception& e) {  // PolicyError, or bad_alloc from the host side
      fail(e.what());
    }
  }
  return m_fallback->select(ctx);
}

std::optional<bool> GuardedPolicy::accept(const Context& ctx, const HistoryEntry& result) {
  if (!m_failed) {
    try {
      return m_user->accept(ctx, result);
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  return m_fallback->accept(ctx, result);
}

std::optional<bool> GuardedPolicy::stop(const Context& ctx) {
  if (!m_failed) {
    try {
      return m_user->stop(ctx);
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  return m_fallback->stop(ctx);
}

}  // namespace kernelblaster::policy
