#include "tuner/guarded_winner.h"

#include <algorithm>
#include <set>

#include "common/file_util.h"
#include "common/status.h"
#include "common/text.h"
#include "tuner/harness_reading.h"
#include "tuner/shape_guard.h"

namespace kernelblaster::tuner {
namespace {

// What one look found slower, and the values that shape it.
struct Part {
  std::vector<std::string> slower;
  std::vector<std::pair<std::string, std::string>> changed;  // macro, the original's value
};

std::vector<std::string> slower_sizes(const CandidateResult& look) {
  std::vector<std::string> out;
  for (const SizeSpeedup& s : look.sizes)
    if (s.speedup < 1.0) out.push_back(s.size);
  return out;
}

// The winner's non-default tunables (of `group` only, unless it is null).
Part changed_by(const Configuration& winner, const SpaceDecl& decl, const std::string* group) {
  Part p;
  for (const Setting& s : winner.settings)
    for (const Tunable& t : decl.tunables)
      if (!s.flag && t.name == s.name && (!group || t.group == *group)) p.changed.push_back({s.name, t.default_value});
  return p;
}

// Why the winner's source cannot be guarded at all; "" when it can.
std::string unguardable(const EngineMeasurer& measurer, const Configuration& winner, const std::vector<Part>& parts) {
  if (!winner.flags.empty()) return "it changes compiler flags, which reach the whole source";
  const std::vector<std::string>& harness_macros = measurer.target().harness_macros;
  for (const Part& p : parts)
    for (const auto& [macro, original] : p.changed)
      if (std::count(harness_macros.begin(), harness_macros.end(), macro))
        return macro + " shapes a replayed launch in the harness";
  return "";
}

// The winner's source with every part guarded that can be: `guarded` gets
// a phrase per part guarded, `stayed` why a part was not.
std::string guarded_text(const EngineMeasurer& measurer, const Configuration& winner, const std::string& harness,
                         const std::vector<Part>& parts, std::vector<std::string>* guarded,
                         std::vector<std::string>* stayed) {
  std::string text = measurer.source_of(winner);
  for (const Part& p : parts) {
    if (p.slower.empty()) continue;
    const ShapeGuard g = guard_slower_shapes({text, harness, p.changed, p.slower});
    if (g.text.empty()) {
      stayed->push_back(g.why_not);
      continue;
    }
    text = g.text;
    guarded->push_back(joined(g.functions) + " as written at " + joined(g.sizes));
  }
  return guarded->empty() ? "" : text;
}

// The line of a winner left slower at `slower`, and why.
std::string not_kept(const std::string& slower, const std::string& why) {
  return "slower at " + slower + ", where the original is not kept: " + why;
}

// The sizes where the guarded source runs only the original's code: those
// every part is guarded at, when every part could be. They are checked,
// and timed only where the search timed them (its speedup is over those).
std::vector<std::string> as_written_everywhere(const std::vector<Part>& parts, const std::vector<std::string>& stayed) {
  if (!stayed.empty() || parts.empty()) return {};
  std::vector<std::string> out;
  for (const std::string& size : parts.front().slower)
    if (std::all_of(parts.begin(), parts.end(),
                    [&](const Part& p) { return std::count(p.slower.begin(), p.slower.end(), size) > 0; }))
      out.push_back(size);
  return out;
}

// Guards every part that can be, then judges the source once: on the
// winner's own launchers (`whole` false) or on the whole harness; `guess`
// is used when it is the same source.
GuardedWinner guard_parts(EngineMeasurer& measurer, const Configuration& winner, const std::vector<Part>& parts,
                          const GuardGuess& guess, bool whole, int device, int seeds, double floor,
                          const Progress& progress) {
  GuardedWinner out;
  std::set<std::string> where;
  for (const Part& p : parts) where.insert(p.slower.begin(), p.slower.end());
  if (where.empty()) return out;
  const std::string slower = joined({where.begin(), where.end()});
  auto stays = [&](const std::string& why) {
    out.line = not_kept(slower, why);
    return out;
  };
  if (std::string why = unguardable(measurer, winner, parts); !why.empty()) return stays(why);
  std::vector<std::string> guarded, stayed;
  const std::string text =
      guarded_text(measurer, winner, read_file(measurer.target().harness), parts, &guarded, &stayed);
  if (text.empty()) return stays(joined(stayed, "; "));
  const std::string as_written = joined(guarded, "; ");
  if (progress) progress("keeping " + as_written + ", where " + winner.id + " was slower");
  const std::shared_future<CandidateBuild> build =
      text == guess.text && guess.build.valid() ? guess.build : measurer.build_text(text, winner, whole);
  const CandidateResult look =
      measurer.remeasure_built(build, winner, whole, device, seeds, as_written_everywhere(parts, stayed));
  return judge_guarded({slower, as_written, joined(stayed, "; "), whole, floor}, look, text);
}

}  // namespace

GuardedWinner judge_guarded(const GuardedLook& g, const CandidateResult& look, const std::string& text) {
  GuardedWinner out;
  out.look = look;
  if (!look.verified()) {
    out.line = not_kept(g.slower, g.as_written + " failed: " + status_name(look.status) + ": " + look.detail);
  } else if (!look.keepable()) {
    out.line = not_kept(g.slower, g.as_written + " made a kernel slower: " + look.slower_kernel);
  } else if (look.speedup < g.floor) {
    out.below_floor = true;
    out.line = "slower at " + g.slower + ", and with " + g.as_written + " it measured " + speedup_text(look.speedup) +
               (g.whole ? " on the whole harness" : "") + ", below " + speedup_text(g.floor);
  } else {
    out.kept = true;
    out.text = text;
    out.line = g.as_written + ", where the winner was slower; " + speedup_text(look.speedup) + " with it" +
               (g.stayed.empty() ? "" : " (not guarded: " + g.stayed + ")");
  }
  return out;
}

GuardGuess guess_guard(EngineMeasurer& measurer, const Configuration& winner, const SpaceDecl& decl,
                       const CandidateResult& searched) {
  Part p = changed_by(winner, decl, nullptr);
  p.slower = slower_sizes(searched);
  std::set<std::string> timed;
  for (const SizeSpeedup& s : searched.sizes) timed.insert(s.size);
  const std::string harness = read_file(measurer.target().harness);
  for (const HarnessSize& s : labelled_harness_sizes(harness))
    if (!s.label.empty() && !timed.count(s.label)) p.slower.push_back(s.label);
  GuardGuess guess;
  if (!unguardable(measurer, winner, {p}).empty()) return guess;
  std::vector<std::string> guarded, stayed;
  guess.text = guarded_text(measurer, winner, harness, {p}, &guarded, &stayed);
  if (!guess.text.empty()) guess.build = measurer.build_text(guess.text, winner, false);
  return guess;
}

GuardedWinner guard_winner(EngineMeasurer& measurer, const Configuration& winner, const SpaceDecl& decl,
                           const CandidateResult& believed, const GuardGuess& guess, int device, int seeds,
                           const Progress& progress) {
  Part p = changed_by(winner, decl, nullptr);
  p.slower = slower_sizes(believed);
  return guard_parts(measurer, winner, {p}, guess, false, device, seeds, kGuardFloor, progress);
}

GuardedWinner guard_composed(EngineMeasurer& measurer, const FocusedWinner& winner, const SpaceDecl& decl,
                             int device, int seeds, const Progress& progress) {
  std::vector<Part> parts;
  for (const GroupResult& g : winner.groups) {
    if (!g.kept) continue;
    Part p = changed_by(winner.config, decl, &g.group);
    p.slower = slower_sizes(g.look);
    parts.push_back(std::move(p));
  }
  return guard_parts(measurer, winner.config, parts, {}, true, device, seeds, kWholeFloor, progress);
}

}  // namespace kernelblaster::tuner
