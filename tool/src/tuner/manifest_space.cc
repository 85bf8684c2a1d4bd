#include "tuner/manifest_space.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "judge/manifest.h"
#include "tuner/directives.h"

namespace kernelblaster::tuner {

void add_manifest_space(SpaceDecl& decl, const std::string& manifest_path, const std::string& source_text,
                        const std::string& source_file, const std::vector<std::string>& definitions) {
  Manifest manifest;
  try {
    manifest = read_manifest(manifest_path);
  } catch (const ManifestError& e) {
    throw SpaceError(e.what());
  }
  // The line form (CMake's) declares no tunables.
  const nlohmann::json j = manifest.space.is_object() ? manifest.space : nlohmann::json::object();
  auto fail = [&](const std::string& why) { throw SpaceError(manifest_path + ": " + why); };
  if (j.contains("tunables")) {
    if (!j["tunables"].is_array()) fail("'tunables' must be a list of {name, values, technique}");
    for (std::size_t i = 0; i < j["tunables"].size(); ++i) {
      const auto& e = j["tunables"][i];
      std::string where = "tunables[" + std::to_string(i) + "]";
      if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) fail(where + " needs a string 'name'");
      Tunable t;
      t.name = e["name"].get<std::string>();
      t.origin = manifest_path + " " + where;
      if (!e.contains("values") || !e["values"].is_array() || e["values"].empty())
        fail(where + " (" + t.name + ") needs a non-empty list 'values'");
      for (const auto& v : e["values"]) {
        if (v.is_string()) t.values.push_back(v.get<std::string>());
        else if (v.is_number_integer()) t.values.push_back(std::to_string(v.get<long long>()));
        else fail(where + " (" + t.name + "): values must be strings or integers");
        if (t.values.back().empty() || t.values.back().find_first_of(" \t\n") != std::string::npos)
          fail(where + " (" + t.name + "): a value must be one token");
      }
      if (e.contains("technique")) {
        if (!e["technique"].is_string()) fail(where + " (" + t.name + "): 'technique' must be a string");
        t.technique = e["technique"].get<std::string>();
      }
      if (t.technique.empty()) t.technique = infer_technique(t.name);
      bool guarded = false;
      t.default_value = find_default(source_text, t.name, &guarded);
      if (!t.default_value.empty() && !guarded)
        fail(t.name + ": the #define in " + source_file + " must sit under '#ifndef " + t.name + "'");
      if (t.default_value.empty())
        for (const std::string& d : definitions)
          if (d.rfind(t.name + "=", 0) == 0) t.default_value = d.substr(t.name.size() + 1);
      if (t.default_value.empty()) t.default_value = t.values.front();
      if (std::find(t.values.begin(), t.values.end(), t.default_value) == t.values.end())
        t.values.insert(t.values.begin(), t.default_value);
      for (const Tunable& other : decl.tunables)
        if (other.name == t.name) fail("tunable " + t.name + " is also declared at " + other.origin);
      decl.tunables.push_back(std::move(t));
    }
  }
  if (j.contains("constraints")) {
    if (!j["constraints"].is_array()) fail("'constraints' must be a list of strings");
    for (const auto& c : j["constraints"]) {
      if (!c.is_string()) fail("'constraints' must be a list of strings");
      try {
        decl.constraints.emplace_back(c.get<std::string>());
      } catch (const ConstraintError& e) {
        fail("constraint '" + c.get<std::string>() + "': " + e.what());
      }
    }
  }
  validate_space(decl, manifest_path);
}

}  // namespace kernelblaster::tuner
