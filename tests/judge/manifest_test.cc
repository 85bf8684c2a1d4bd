#include "judge/manifest.h"

#include <gtest/gtest.h>

namespace kernelblaster {
namespace {

TEST(Manifest, TheLineFormKeepsEveryValueAsWritten) {
  const std::string text =
      "kernelblaster-manifest 1\n"
      "target my lib\n"
      "arch sm_90\n"
      "project /home/me/my project\n"
      "I /src/dir with space\n"
      "I \n"
      "D GREETING=\"hi\"\n"
      "D PATH=\"C:\\\\temp\"\n"
      "D SEMI=a;b\n"
      "D UNI=h\xc3\xa9llo\n"
      "D \n"
      "F --expt-relaxed-constexpr\n"
      "F SHELL:-Xcompiler  -fopenmp\n"
      "F \n";
  Manifest m = parse_manifest(text, "m.txt");
  EXPECT_EQ(m.target, "my lib");
  EXPECT_EQ(m.settings.arch, "sm_90");
  EXPECT_EQ(m.project, "/home/me/my project");
  EXPECT_EQ(m.settings.include_dirs, std::vector<std::string>{"/src/dir with space"});
  EXPECT_EQ(m.settings.definitions,
            (std::vector<std::string>{"GREETING=\"hi\"", "PATH=\"C:\\\\temp\"", "SEMI=a;b", "UNI=h\xc3\xa9llo"}));
  EXPECT_EQ(m.settings.flags, (std::vector<std::string>{"--expt-relaxed-constexpr", "-Xcompiler", "-fopenmp"}));
  EXPECT_TRUE(m.space.is_null());
}

TEST(Manifest, TheJsonFormKeepsItsSpace) {
  Manifest m = parse_manifest(
      R"({"arch": "sm_80", "definitions": ["A=\"x\""], "flags": ["SHELL:-a -b"], "tunables": [{"name": "B", "values": [1]}]})",
      "m.json");
  EXPECT_EQ(m.settings.arch, "sm_80");
  EXPECT_EQ(m.settings.definitions, std::vector<std::string>{"A=\"x\""});
  EXPECT_EQ(m.settings.flags, (std::vector<std::string>{"-a", "-b"}));
  ASSERT_TRUE(m.space.is_object());
  EXPECT_TRUE(m.space.contains("tunables"));
}

TEST(Manifest, BadManifestsSayWhyInOneLine) {
  auto error_of = [](const std::string& text) {
    try {
      parse_manifest(text, "m");
    } catch (const ManifestError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error_of("kernelblaster-manifest 2\nD A\n").find("has the header 'kernelblaster-manifest 2'"),
            std::string::npos);
  EXPECT_NE(error_of("kernelblaster-manifest 1\nX y\n").find("line 2 starts with 'X'"), std::string::npos);
  EXPECT_NE(error_of("{\"definitions\": [\"GREETING=\"hi\"\"]}").find("neither valid JSON"), std::string::npos);
  EXPECT_NE(error_of("{\"flags\": \"-O3\"}").find("'flags' must be a list of strings"), std::string::npos);
  EXPECT_NE(error_of("[1]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{\"project\": 3}").find("'project' must be a string"), std::string::npos);
  for (const std::string& text : {std::string("kernelblaster-manifest 2\n"), std::string("{\"definitions\": [\"\"\"]}")})
    EXPECT_EQ(error_of(text).find('\n'), std::string::npos) << error_of(text);
}

TEST(Manifest, LlmSettingsComeFromLLinesOrTheLlmObject) {
  using Settings = std::vector<std::pair<std::string, std::string>>;
  Manifest lines = parse_manifest(
      "kernelblaster-manifest 1\nL model local \"coder\" 7b; v2\nL max-tokens 77\nL temperature\nL \n", "m.txt");
  EXPECT_EQ(lines.llm, (Settings{{"model", "local \"coder\" 7b; v2"}, {"max-tokens", "77"}}));
  Manifest json = parse_manifest(R"({"llm": {"model": "m", "provider": ""}})", "m.json");
  EXPECT_EQ(json.llm, (Settings{{"model", "m"}}));
  try {
    parse_manifest(R"({"llm": {"model": 7}})", "m.json");
    FAIL() << "a number as an LLM setting was accepted";
  } catch (const ManifestError& e) {
    EXPECT_STREQ(e.what(), "manifest m.json: 'llm' must be an object of strings");
  }
}

TEST(Manifest, AMissingFileIsAManifestError) {
  EXPECT_THROW(read_manifest("/nonexistent/kernelblaster/manifest.txt"), ManifestError);
}

}  // namespace
}  // namespace kernelblaster
