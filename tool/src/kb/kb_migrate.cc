#include "kb/kb_migrate.h"

#include "kb/knowledge_base.h"

namespace kernelblaster::kb::detail {
namespace {

using nlohmann::json;

const json& require_object(const json& v, const std::string& file, const std::string& ptr) {
  if (!v.is_object()) throw KbError(file, ptr, std::string("expected an object (version 0 layout), got ") + v.type_name());
  return v;
}

// One version-0 leaf {"tries", "successes", "measured"?, "mean", "variance", "notes"}
// as a version-1 entry (without its key fields).
json migrate_leaf(const json& leaf, const std::string& file, const std::string& ptr) {
  require_object(leaf, file, ptr);
  json out = json::object();
  for (const auto& [k, v] : leaf.items()) {
    if (k == "variance") continue;
    out[k] = v;
  }
  if (!out.contains("measured")) out["measured"] = leaf.value("successes", json(0));
  double variance = 0;
  if (leaf.contains("variance")) {
    const json& v = leaf["variance"];
    if (!v.is_number() || v.get<double>() < 0)
      throw KbError(file, ptr + "/variance", "must be a non-negative number");
    variance = v.get<double>();
  }
  const json& measured = out["measured"];
  if (!measured.is_number_integer() || measured.get<std::int64_t>() < 0)
    throw KbError(file, ptr + (leaf.contains("measured") ? "/measured" : "/successes"), "must be a non-negative integer");
  std::int64_t n = measured.get<std::int64_t>();
  out["m2"] = n > 1 ? variance * static_cast<double>(n - 1) : 0.0;
  return out;
}

// Flattens {"a": {"b": {"arch": leaf}}} into [{names[0]: a, names[1]: b, "arch": arch, ...leaf}].
json flatten(const json& nested, const char* first, const char* second, bool with_setting, const std::string& file,
             const std::string& ptr, std::vector<MovedEntry>& moved, const std::string& new_base) {
  json out = json::array();
  require_object(nested, file, ptr);
  for (const auto& [a, by_second] : nested.items()) {
    std::string pa = ptr + "/" + pointer_token(a);
    require_object(by_second, file, pa);
    for (const auto& [b, by_arch] : by_second.items()) {
      std::string pb = pa + "/" + pointer_token(b);
      require_object(by_arch, file, pb);
      for (const auto& [arch, leaf] : by_arch.items()) {
        std::string pl = pb + "/" + pointer_token(arch);
        json entry = migrate_leaf(leaf, file, pl);
        entry[first] = a;
        entry[second] = b;
        entry["arch"] = arch;
        if (with_setting) entry["setting"] = "";
        moved.push_back({new_base + "/" + std::to_string(out.size()), pl});
        out.push_back(std::move(entry));
      }
    }
  }
  return out;
}

}  // namespace

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

json migrate(json doc, int from_version, const std::string& file, std::vector<MovedEntry>& moved) {
  if (from_version == 0) {
    if (doc.contains("stats")) doc["stats"] = flatten(doc["stats"], "state", "technique", true, file, "/stats", moved, "/stats");
    if (doc.contains("transitions"))
      doc["transitions"] = flatten(doc["transitions"], "from", "to", false, file, "/transitions", moved, "/transitions");
    doc["schema_version"] = 1;
  }
  return doc;
}

}  // namespace kernelblaster::kb::detail
