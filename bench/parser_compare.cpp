// The review's parse (the compact reader into RapidJSON's DOM, as review()
// runs it) beside simdjson's DOM parser on the same bodies, and beside the
// compact reader alone, driven with a handler that keeps nothing: the
// measurements behind docs/performance.md's "What limits the figures" (run 13 in its history) and
// what a reader with no DOM could save (run 28). Built and run by
// bench/parser-compare.sh, which installs Debian's libsimdjson-dev for it;
// nothing in the server links simdjson.
//
//   parser_compare ROUNDS BODY.json...
#include "compact_json_reader.hpp"
#include "json_dom.hpp"

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

namespace {

using Clock = std::chrono::steady_clock;

std::string read_file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Microseconds a parse, the best of 20 batches of `rounds`: the least
// disturbed batch on a machine whose speed drifts.
template <class Parse>
double best_of_batches(int rounds, Parse parse) {
    double best = 1e300;
    for (int batch = 0; batch < 20; ++batch) {
        double total = 0;
        for (int i = 0; i < rounds; ++i) total += parse();
        best = std::min(best, total / rounds);
    }
    return best;
}

double since(Clock::time_point start) { return std::chrono::duration<double, std::micro>(Clock::now() - start).count(); }

// Every event taken and nothing kept; the two values the review's builder
// skips (managedFields and kubectl's last-applied annotation) skipped here
// too, by key alone, so the reader does the same work it does in a review.
class KeepNothing {
public:
    bool Null() { return true; }
    bool Bool(bool) { return true; }
    bool Int(int) { return true; }
    bool Uint(unsigned) { return true; }
    bool Int64(std::int64_t) { return true; }
    bool Uint64(std::uint64_t) { return true; }
    bool Double(double) { return true; }
    bool String(const char*, unsigned, bool) { return true; }
    bool Key(const char* key, unsigned length, bool) {
        const std::string_view name(key, length);
        skip_ = name == "managedFields" || name == "kubectl.kubernetes.io/last-applied-configuration";
        return true;
    }
    bool StartObject() { return true; }
    bool EndObject(unsigned) { return true; }
    bool StartArray() { return true; }
    bool EndArray(unsigned) { return true; }
    bool SkipValue() const { return skip_; }

private:
    bool skip_ = false;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: parser_compare ROUNDS BODY.json...\n");
        return 2;
    }
    const int rounds = std::max(1, std::atoi(argv[1]));
    // As review() has it: a per-thread arena for the DOM, the parse stack sized up front.
    constexpr std::size_t kArenaBytes = 256u << 10;
    const std::unique_ptr<char[]> arena(new char[kArenaBytes]);
    simdjson::dom::parser simd;
    std::printf("%-28s %9s %16s %16s %16s  (simdjson kernel: %s)\n", "body", "bytes", "ours us/parse", "simdjson us/parse",
                "reader alone us", simdjson::get_active_implementation()->name().c_str());
    for (int i = 2; i < argc; ++i) {
        const std::string text = read_file(argv[i]);
        std::string body;
        bool failed = false;
        const double ours = best_of_batches(rounds, [&] {
            body = text;  // parsed in place: a fresh copy each time, outside the clock
            const auto start = Clock::now();
            rapidjson::MemoryPoolAllocator<> pool(arena.get(), kArenaBytes, 1u << 20);
            miw::json::Document doc(&pool, 16u << 10);
            failed |= !miw::json::parse_document(body, doc, miw::JsonReader::compact_first, miw::json::UnreadValues::skipped).empty();
            return since(start);
        });
        const simdjson::padded_string padded(text);
        const double theirs = best_of_batches(rounds, [&] {
            const auto start = Clock::now();
            simdjson::dom::element root;
            failed |= simd.parse(padded).get(root) != simdjson::SUCCESS;
            return since(start);
        });
        const double reader_alone = best_of_batches(rounds, [&] {
            body = text;
            const auto start = Clock::now();
            KeepNothing handler;
            failed |= miw::read_compact_json<miw::kMaxJsonDepth>(body, handler) != miw::CompactRead::parsed;
            return since(start);
        });
        if (failed) {
            std::fprintf(stderr, "%s: a parser refused the body\n", argv[i]);
            return 1;
        }
        std::string name = argv[i];
        name = name.substr(name.find_last_of('/') + 1);
        std::printf("%-28s %9zu %16.2f %16.2f %16.2f\n", name.c_str(), text.size(), ours, theirs, reader_alone);
    }
    return 0;
}
