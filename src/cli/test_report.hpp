// The results of `model-image-webhook test`, and their text, JSON and JUnit forms.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace miw::cli {

// would_deny: a denial that the enforcement mode (--enforcement, or the
// /warn/ or /audit/ webhook its namespace is sent to) admits.
enum class TestVerdict { allowed, denied, would_deny, skipped };

struct ObjectResult {
    std::string file;
    std::size_t line = 0;  // 1-based
    std::string api_version;
    std::string kind;
    std::string namespace_name;
    std::string name;
    TestVerdict verdict = TestVerdict::skipped;
    std::vector<std::string> endpoints;  // the webhook endpoints it went through, in order
    std::string rule;  // of a denial or a would-be denial
    std::string message;  // of a denial or a would-be denial, or why it was skipped
    std::string enforcement;  // of a would-be denial: warn or audit
    std::vector<std::string> warnings;
    std::string patch;  // the JSON Patch of the mutation; empty for none
    std::string patched;  // the object after the patch, as JSON; empty when not mutated
};

struct TestReport {
    std::string kube_version;
    bool kube_version_assumed = false;
    std::vector<ObjectResult> objects;
    std::vector<std::string> input_errors;  // "file:line: message"
    std::vector<std::string> notes;  // "file: skipped: why" for files that are not manifests by their role
};

std::string render_text(const TestReport& report, bool show_patched);
std::string render_json(const TestReport& report, bool show_patched);
std::string render_junit(const TestReport& report);
// SARIF 2.1.0, for code scanning: one result per denial, warning and input
// error, each at its file and line; the rules' metadata from the rule registry.
std::string render_sarif(const TestReport& report);

}  // namespace miw::cli
