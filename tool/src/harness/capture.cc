#include "harness/capture.h"

#include <cmath>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

namespace kernelblaster::harness {
namespace {

using json = nlohmann::json;

const std::map<std::string, ParamKind>& kinds() {
  static const std::map<std::string, ParamKind> kKinds = {{"buffer", ParamKind::buffer}, {"dim", ParamKind::dim},
                                                          {"real", ParamKind::real},     {"flag", ParamKind::flag},
                                                          {"stream", ParamKind::stream}, {"other", ParamKind::other}};
  return kKinds;
}

[[noreturn]] void bad(const std::string& where, const std::string& pointer, const std::string& why) {
  throw CaptureError("capture " + where + ": " + pointer + ": " + why);
}

std::string text_at(const json& j, const char* key, const std::string& where, const std::string& ptr, bool required) {
  if (!j.contains(key)) {
    if (required) bad(where, ptr + "/" + key, "missing");
    return "";
  }
  if (!j[key].is_string()) bad(where, ptr + "/" + key, "must be a string");
  return j[key].get<std::string>();
}

bool flag_at(const json& j, const char* key, const std::string& where, const std::string& ptr) {
  if (!j.contains(key)) return false;
  if (!j[key].is_boolean()) bad(where, ptr + "/" + key, "must be true or false");
  return j[key].get<bool>();
}

// A C identifier: what the harness will spell as a name.
bool identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Types are pasted into the harness: letters, digits, '_', ':', '*', '&', '<', '>', ',', spaces.
bool type_text(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("_:*&<>, ").find(c) == std::string::npos)
      return false;
  return true;
}

// A scalar value as the harness will paste it: a number, true/false.
bool scalar_text(const std::string& s) {
  if (s == "true" || s == "false") return true;
  if (s.empty() || s.size() > 40) return false;
  std::size_t used = 0;
  try {
    double v = std::stod(s, &used);
    return used == s.size() && std::isfinite(v);
  } catch (const std::exception&) {
    return false;  // not a number: the caller names the value it refuses
  }
}

}  // namespace

const char* param_kind_name(ParamKind k) {
  for (const auto& [name, kind] : kinds())
    if (kind == k) return name.c_str();
  return "other";
}

namespace {

// A launcher parameter of the capture at `ptr`.
LauncherParam read_param(const json& p, const std::string& where, const std::string& ptr) {
  if (!p.is_object()) bad(where, ptr, "must be an object");
  LauncherParam q;
  q.name = text_at(p, "name", where, ptr, true);
  if (!identifier(q.name)) bad(where, ptr + "/name", "not a C identifier");
  q.type = text_at(p, "type", where, ptr, true);
  q.canonical = text_at(p, "canonical", where, ptr, false);
  if (q.canonical.empty()) q.canonical = q.type;
  if (!type_text(q.type)) bad(where, ptr + "/type", "not a type");
  if (!type_text(q.canonical)) bad(where, ptr + "/canonical", "not a type");
  auto k = kinds().find(text_at(p, "kind", where, ptr, true));
  if (k == kinds().end()) bad(where, ptr + "/kind", "must be buffer, dim, real, flag, stream or other");
  q.kind = k->second;
  q.writable = flag_at(p, "writable", where, ptr);
  q.element = text_at(p, "element", where, ptr, false);
  static const std::set<std::string> kElements = {"f32", "f64", "f16", "bf16", "i8", "u8", "i16", "i32", "u32", "i64"};
  if (!q.element.empty() && !kElements.count(q.element))
    bad(where, ptr + "/element", "not an element type (f32, f16, bf16, f64, i8, u8, i16, i32, u32, i64)");
  if (!q.element.empty()) q.element_from = "the capture";
  return q;
}

// A recorded argument at `aptr` for parameter `p`: a buffer's extent (and
// whether the call wrote it, its value range), or a scalar's value.
RecordedArg read_arg(const json& a, const LauncherParam& p, const std::string& where, const std::string& aptr) {
  if (!a.is_object()) bad(where, aptr, "must be an object");
  RecordedArg r;
  if (p.kind == ParamKind::buffer) {
    if (!a.contains("elements") || !a["elements"].is_number_integer() || a["elements"].get<std::int64_t>() <= 0)
      bad(where, aptr + "/elements", "a buffer's extent must be a positive integer");
    r.elements = a["elements"].get<std::int64_t>();
    r.written = flag_at(a, "written", where, aptr);
    for (const char* key : {"min", "max"})
      if (a.contains(key)) {
        if (!a[key].is_number() || !std::isfinite(a[key].get<double>())) bad(where, aptr + "/" + key, "must be a number");
        (std::string(key) == "min" ? r.min : r.max) = a[key].get<double>();
      }
    if (r.min && r.max && *r.min > *r.max) bad(where, aptr, "min is above max");
  } else if (p.kind == ParamKind::other && !a.contains("value")) {
    // A value of a type the recorder cannot write: the harness asks for it.
  } else if (p.kind != ParamKind::stream) {
    r.value = text_at(a, "value", where, aptr, true);
    if (!scalar_text(r.value)) bad(where, aptr + "/value", "not a number or true/false");
    if (p.kind == ParamKind::dim) {
      std::size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(r.value, &used);
      } catch (const std::exception&) {
        used = 0;  // not a number: refused below, with the value named
      }
      if (used != r.value.size() || v < 0) bad(where, aptr + "/value", "a dimension must be a whole number >= 0");
    }
  }
  return r;
}

}  // namespace

Capture parse_capture(const std::string& text, const std::string& where) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) throw CaptureError("capture " + where + ": not JSON");
  if (!j.is_object()) bad(where, "", "must be an object");
  if (text_at(j, "format", where, "", true) != kCaptureFormat)
    bad(where, "/format", std::string("must be \"") + kCaptureFormat + "\"");
  Capture c;
  c.source = text_at(j, "source", where, "", false);
  if (!j.contains("launcher") || !j["launcher"].is_object()) bad(where, "/launcher", "missing or not an object");
  const json& l = j["launcher"];
  c.launcher.name = text_at(l, "name", where, "/launcher", true);
  if (!identifier(c.launcher.name)) bad(where, "/launcher/name", "not a C identifier");
  c.launcher.return_type = text_at(l, "return_type", where, "/launcher", false);
  if (c.launcher.return_type.empty()) c.launcher.return_type = "void";
  if (!type_text(c.launcher.return_type)) bad(where, "/launcher/return_type", "not a type");
  c.launcher.extern_c = flag_at(l, "extern_c", where, "/launcher");
  if (l.contains("line")) {
    if (!l["line"].is_number_integer()) bad(where, "/launcher/line", "must be an integer");
    c.launcher.line = l["line"].get<int>();
  }
  if (l.contains("namespaces")) {
    if (!l["namespaces"].is_array()) bad(where, "/launcher/namespaces", "must be an array");
    for (std::size_t i = 0; i < l["namespaces"].size(); ++i) {
      const json& n = l["namespaces"][i];
      if (!n.is_string() || !identifier(n.get<std::string>()))
        bad(where, "/launcher/namespaces/" + std::to_string(i), "not a C identifier");
      c.launcher.namespaces.push_back(n.get<std::string>());
    }
  }
  if (!l.contains("params") || !l["params"].is_array()) bad(where, "/launcher/params", "missing or not an array");
  for (std::size_t i = 0; i < l["params"].size(); ++i) {
    const std::string ptr = "/launcher/params/" + std::to_string(i);
    LauncherParam q = read_param(l["params"][i], where, ptr);
    for (const LauncherParam& other : c.launcher.params)
      if (other.name == q.name) bad(where, ptr + "/name", "'" + q.name + "' names two parameters");
    c.launcher.params.push_back(q);
  }
  if (!j.contains("calls") || !j["calls"].is_array() || j["calls"].empty())
    bad(where, "/calls", "missing, not an array, or empty (nothing was recorded)");
  for (std::size_t n = 0; n < j["calls"].size(); ++n) {
    const std::string ptr = "/calls/" + std::to_string(n);
    const json& call = j["calls"][n];
    if (!call.is_object() || !call.contains("args") || !call["args"].is_array())
      bad(where, ptr + "/args", "missing or not an array");
    if (call["args"].size() != c.launcher.params.size())
      bad(where, ptr + "/args", std::to_string(call["args"].size()) + " arguments for " +
                                    std::to_string(c.launcher.params.size()) + " parameters");
    RecordedCall rc;
    for (std::size_t i = 0; i < call["args"].size(); ++i) {
      const std::string aptr = ptr + "/args/" + std::to_string(i);
      rc.args.push_back(read_arg(call["args"][i], c.launcher.params[i], where, aptr));
    }
    c.calls.push_back(std::move(rc));
  }
  return c;
}

std::string capture_to_json(const Capture& c) {
  json params = json::array();
  for (const LauncherParam& p : c.launcher.params)
    params.push_back({{"name", p.name}, {"type", p.type}, {"canonical", p.canonical}, {"kind", param_kind_name(p.kind)},
                      {"writable", p.writable}, {"element", p.element}});
  json calls = json::array();
  for (const RecordedCall& rc : c.calls) {
    json args = json::array();
    for (std::size_t i = 0; i < rc.args.size(); ++i) {
      const RecordedArg& a = rc.args[i];
      json e = json::object();
      if (i < c.launcher.params.size() && c.launcher.params[i].kind == ParamKind::buffer) {
        e["elements"] = a.elements;
        e["written"] = a.written;
        if (a.min) e["min"] = *a.min;
        if (a.max) e["max"] = *a.max;
      } else if (i < c.launcher.params.size() && c.launcher.params[i].kind != ParamKind::stream) {
        e["value"] = a.value;
      }
      args.push_back(e);
    }
    calls.push_back({{"args", args}});
  }
  json j = {{"format", kCaptureFormat},
            {"source", c.source},
            {"launcher",
             {{"name", c.launcher.name},
              {"namespaces", c.launcher.namespaces},
              {"extern_c", c.launcher.extern_c},
              {"return_type", c.launcher.return_type},
              {"line", c.launcher.line},
              {"params", params}}},
            {"calls", calls}};
  return j.dump(2) + "\n";
}

}  // namespace kernelblaster::harness
