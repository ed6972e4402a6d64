#include "test_report.hpp"

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/manifest.hpp"
#include "model_image_webhook/rule.hpp"
#include "model_image_webhook/text.hpp"
#include "model_image_webhook/yaml_writer.hpp"

#include <cstdio>

namespace miw::cli {

namespace {

const char* verdict_name(TestVerdict v) {
    switch (v) {
        case TestVerdict::allowed: return "allowed";
        case TestVerdict::denied: return "denied";
        case TestVerdict::would_deny: return "would-deny";
        case TestVerdict::skipped: return "skipped";
    }
    return "skipped";
}

std::string who(const ObjectResult& r) {
    std::string out = r.kind + " ";
    if (!r.namespace_name.empty()) out += r.namespace_name + "/";
    return out + (r.name.empty() ? "(no name)" : r.name);
}

std::size_t patch_operations(const std::string& patch) {
    std::size_t n = 0;
    for (std::size_t at = patch.find("{\"op\":"); at != std::string::npos; at = patch.find("{\"op\":", at + 1)) ++n;
    return n;
}

struct Counts {
    std::size_t allowed = 0, denied = 0, would_deny = 0, skipped = 0;
};

Counts count(const TestReport& report) {
    Counts c;
    for (const auto& r : report.objects) {
        if (r.verdict == TestVerdict::allowed) ++c.allowed;
        else if (r.verdict == TestVerdict::denied) ++c.denied;
        else if (r.verdict == TestVerdict::would_deny) ++c.would_deny;
        else ++c.skipped;
    }
    return c;
}

std::string summary(const TestReport& report) {
    const Counts c = count(report);
    std::string out = std::to_string(report.objects.size()) + " objects: " + std::to_string(c.allowed) + " allowed, " + std::to_string(c.denied) +
                      " denied, " + (c.would_deny ? std::to_string(c.would_deny) + " would be denied (admitted by the enforcement mode), " : "") +
                      std::to_string(c.skipped) + " skipped";
    if (!report.input_errors.empty()) {
        out += "; " + std::to_string(report.input_errors.size()) + (report.input_errors.size() == 1 ? " input error" : " input errors");
    }
    return out;
}

std::string yaml_of(const std::string& json) {
    YamlWriter writer;
    return visit_json(json, writer) ? writer.yaml() : json + "\n";
}

std::string json_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + json_string(items[i]);
    return out + "]";
}

// XML 1.0 text: the five entities escaped, and the characters it cannot hold
// (the control characters but tab and line ends, U+FFFE and U+FFFF, which a
// name in a manifest may carry as a YAML escape) replaced.
std::string xml(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        const auto c = static_cast<unsigned char>(ch);
        if (const CodePoint at = code_point_at(text, i); at.value == 0xFFFE || at.value == 0xFFFF) {
            out += "?";
            i += at.length - 1;
            continue;
        }
        switch (ch) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                if (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') out += "?";
                else out += ch;
        }
    }
    return out;
}

}  // namespace

std::string render_text(const TestReport& report, bool show_patched) {
    std::string out;
    for (const auto& r : report.objects) {
        out += r.file + ":" + std::to_string(r.line) + ": " + who(r) + ": ";
        if (r.verdict == TestVerdict::denied) {
            out += "DENIED [" + r.rule + "] " + printable_line(r.message, 4096);
        } else if (r.verdict == TestVerdict::would_deny) {
            out += "allowed, WOULD BE DENIED (enforcement " + r.enforcement + ") [" + r.rule + "] " + printable_line(r.message, 4096);
        } else if (r.verdict == TestVerdict::skipped) {
            out += "skipped (" + r.message + ")";
        } else {
            out += "allowed";
            if (!r.patch.empty()) out += ", mutated (" + std::to_string(patch_operations(r.patch)) + " patch operations)";
        }
        out += "\n";
        for (const auto& w : r.warnings) out += "  warning: " + w + "\n";
        if (show_patched && !r.patched.empty()) {
            out += "---\n" + yaml_of(r.patched) + "...\n";
        }
    }
    for (const auto& n : report.notes) out += "note: " + n + "\n";
    for (const auto& e : report.input_errors) out += "error: " + e + "\n";
    out += "apiserver version: " + report.kube_version + (report.kube_version_assumed ? " (assumed: the 1.35 floor; set it with --kube-version)" : "") + "\n";
    out += summary(report) + "\n";
    return out;
}

std::string render_json(const TestReport& report, bool show_patched) {
    const Counts c = count(report);
    std::string out = "{\"kubeVersion\":" + json_string(report.kube_version) + ",\"kubeVersionAssumed\":" + (report.kube_version_assumed ? "true" : "false") +
                      ",\"objects\":[";
    for (std::size_t i = 0; i < report.objects.size(); ++i) {
        const ObjectResult& r = report.objects[i];
        if (i) out += ",";
        out += "{\"file\":" + json_string(r.file) + ",\"line\":" + std::to_string(r.line) + ",\"apiVersion\":" + json_string(r.api_version) +
               ",\"kind\":" + json_string(r.kind) + ",\"namespace\":" + json_string(r.namespace_name) + ",\"name\":" + json_string(r.name) +
               ",\"verdict\":\"" + verdict_name(r.verdict) + "\",\"endpoints\":" + json_list(r.endpoints) + ",\"rule\":" + json_string(r.rule) +
               ",\"message\":" + json_string(r.message) + ",\"enforcement\":" + (r.enforcement.empty() ? "null" : json_string(r.enforcement)) + ",\"warnings\":" + json_list(r.warnings) + ",\"patch\":" + (r.patch.empty() ? "null" : r.patch);
        if (show_patched) out += ",\"patched\":" + (r.patched.empty() ? std::string("null") : r.patched);
        out += "}";
    }
    out += "],\"notes\":" + json_list(report.notes) + ",\"errors\":" + json_list(report.input_errors) + ",\"summary\":{\"objects\":" + std::to_string(report.objects.size()) +
           ",\"allowed\":" + std::to_string(c.allowed) + ",\"denied\":" + std::to_string(c.denied) + ",\"wouldDeny\":" + std::to_string(c.would_deny) + ",\"skipped\":" + std::to_string(c.skipped) +
           ",\"errors\":" + std::to_string(report.input_errors.size()) + "}}\n";
    return out;
}

namespace {

// A file path as a SARIF artifact URI: relative paths stay relative; what a
// URI cannot hold is percent-encoded.
std::string uri_of(const std::string& path) { return percent_encode(path, "/"); }

// Beside the registry's rules, what SARIF needs an identifier for.
constexpr Rule kWarningResult{"webhook-warning", "", "allowed, with a warning kubectl prints",
                              "the webhook admits the object with a warning: something it could not clean, or a change it made that the user should know"};
constexpr Rule kInputErrorResult{"manifest-error", "", "not sent", "the file cannot be read as Kubernetes manifests the way kubectl reads them"};

std::string sarif_rule(const Rule& rule) {
    return "{\"id\":" + json_string(rule.id) + ",\"name\":" + json_string(rule.id) + ",\"shortDescription\":{\"text\":" + json_string(rule.description) +
           "},\"fullDescription\":{\"text\":" + json_string(std::string(rule.description) + (rule.field.empty() ? "" : " (" + std::string(rule.field) + ")")) +
           "},\"help\":{\"text\":" + json_string("Answer: " + std::string(rule.verdict) + ". Every rule, its message and what to do instead: docs/rules.md.") +
           "},\"properties\":{\"verdict\":" + json_string(rule.verdict) + "}}";
}

// properties: a JSON object's members ("\"a\":1"), or empty for none.
std::string sarif_result(std::string_view rule_id, std::size_t rule_index, std::string_view level, const std::string& message, const std::string& file,
                         std::size_t line, const std::string& properties = {}) {
    return "{\"ruleId\":" + json_string(rule_id) + ",\"ruleIndex\":" + std::to_string(rule_index) + ",\"level\":\"" + std::string(level) +
           "\",\"message\":{\"text\":" + json_string(message) + "},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":" +
           json_string(uri_of(file)) + "},\"region\":{\"startLine\":" + std::to_string(line == 0 ? 1 : line) + "}}}]" +
           (properties.empty() ? "" : ",\"properties\":{" + properties + "}") + "}";
}

}  // namespace

std::string render_sarif(const TestReport& report) {
    std::vector<const Rule*> rules(rule_registry().begin(), rule_registry().end());
    rules.push_back(&kWarningResult);
    rules.push_back(&kInputErrorResult);
    const auto index_of = [&](std::string_view id) {
        for (std::size_t i = 0; i < rules.size(); ++i) {
            if (rules[i]->id == id) return i;
        }
        return rules.size() - 1;
    };
    std::string out = R"({"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"model-image-webhook",)"
                      R"("informationUri":"https://github.com/gpustack/gpustack-operator","rules":[)";
    for (std::size_t i = 0; i < rules.size(); ++i) out += (i ? "," : "") + sarif_rule(*rules[i]);
    out += "]}},\"results\":[";
    bool first = true;
    const auto add = [&](std::string result) {
        out += (first ? "" : ",") + result;
        first = false;
    };
    for (const ObjectResult& r : report.objects) {
        const std::string who = r.kind + " " + (r.namespace_name.empty() ? "" : r.namespace_name + "/") + r.name + ": ";
        // A denial names its rules comma-separated; the first is the result's.
        const std::string first_rule = r.rule.substr(0, r.rule.find(','));
        if (r.verdict == TestVerdict::denied) {
            add(sarif_result(first_rule, index_of(first_rule), "error", who + r.message, r.file, r.line, "\"verdict\":\"denied\""));
        } else if (r.verdict == TestVerdict::would_deny) {
            // Softened: shown, but as a warning that does not fail the check.
            add(sarif_result(first_rule, index_of(first_rule), "warning", who + "would be denied (not enforced: " + r.enforcement + "): " + r.message, r.file,
                             r.line, "\"verdict\":\"would-deny\",\"enforcement\":" + json_string(r.enforcement)));
        }
        for (const auto& w : r.warnings) add(sarif_result(kWarningResult.id, index_of(kWarningResult.id), "warning", who + w, r.file, r.line));
    }
    for (const auto& e : report.input_errors) {
        // "file:line: message" (the line may be missing)
        std::string file = e, message = e;
        std::size_t line = 1;
        if (const std::size_t colon = e.find(": "); colon != std::string::npos) {
            file = e.substr(0, colon);
            message = e.substr(colon + 2);
            if (const std::size_t c2 = file.rfind(':'); c2 != std::string::npos && file.find_first_not_of("0123456789", c2 + 1) == std::string::npos && c2 + 1 < file.size()) {
                line = static_cast<std::size_t>(std::stoul(file.substr(c2 + 1)));
                file = file.substr(0, c2);
            }
        }
        add(sarif_result(kInputErrorResult.id, index_of(kInputErrorResult.id), "error", message, file, line));
    }
    out += "]}]}\n";
    return out;
}

std::string render_junit(const TestReport& report) {
    const Counts c = count(report);
    const std::string totals = "tests=\"" + std::to_string(report.objects.size() + report.input_errors.size()) + "\" failures=\"" + std::to_string(c.denied) +
                               "\" errors=\"" + std::to_string(report.input_errors.size()) + "\" skipped=\"" + std::to_string(c.skipped) + "\"";
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"model-image-webhook\" " + totals + ">\n";
    out += "  <testsuite name=\"model-image-webhook test (apiserver " + xml(report.kube_version) + ")\" " + totals + ">\n";
    for (const auto& r : report.objects) {
        out += "    <testcase classname=\"" + xml(r.file) + "\" name=\"" + xml(who(r)) + "\" file=\"" + xml(r.file) + "\" line=\"" + std::to_string(r.line) + "\"";
        if (r.verdict == TestVerdict::allowed && r.warnings.empty()) {
            out += "/>\n";
            continue;
        }
        out += ">\n";
        if (r.verdict == TestVerdict::denied) {
            out += "      <failure type=\"" + xml(r.rule) + "\" message=\"" + xml(printable_line(r.message, 1024)) + "\">" + xml(r.message) + "</failure>\n";
        } else if (r.verdict == TestVerdict::skipped) {
            out += "      <skipped message=\"" + xml(r.message) + "\"/>\n";
        } else if (r.verdict == TestVerdict::would_deny) {
            // A passing testcase: the enforcement mode admits it; the properties say it was softened.
            out += "      <properties><property name=\"verdict\" value=\"would-deny\"/><property name=\"enforcement\" value=\"" + xml(r.enforcement) +
                   "\"/><property name=\"rule\" value=\"" + xml(r.rule) + "\"/></properties>\n";
        }
        if (!r.warnings.empty() || r.verdict == TestVerdict::would_deny) {
            out += "      <system-out>";
            if (r.verdict == TestVerdict::would_deny) out += "would be denied (enforcement " + xml(r.enforcement) + ") [" + xml(r.rule) + "]: " + xml(r.message) + "\n";
            for (const auto& w : r.warnings) out += "warning: " + xml(w) + "\n";
            out += "</system-out>\n";
        }
        out += "    </testcase>\n";
    }
    for (const auto& e : report.input_errors) {
        out += "    <testcase classname=\"input\" name=\"" + xml(e.substr(0, e.find(": "))) + "\">\n      <error message=\"" + xml(e) + "\"/>\n    </testcase>\n";
    }
    out += "  </testsuite>\n</testsuites>\n";
    return out;
}

}  // namespace miw::cli
