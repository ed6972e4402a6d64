// Replays files through a fuzz target without libFuzzer: the seed corpus and
// every input that once crashed run as a regression test in the normal build.
// An input FILE with a FILE.expect beside it must also get that answer from
// the target's miw_fuzz_answer (a wrong answer fails the replay, not only a
// crash).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// What the target answers for an input, in one line; only targets whose
// regressions carry expectations define it.
std::string miw_fuzz_answer(std::string_view input) __attribute__((weak));

namespace {

std::string read_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t count = 0, checked = 0, wrong = 0;
    for (int i = 1; i < argc; ++i) {
        std::vector<std::filesystem::path> files;
        if (std::filesystem::is_directory(argv[i])) {
            for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[i])) {
                if (entry.is_regular_file()) files.push_back(entry.path());
            }
        } else {
            files.emplace_back(argv[i]);
        }
        for (const auto& file : files) {
            if (file.extension() == ".expect") continue;
            const std::string data = read_file(file);
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
            ++count;
            std::filesystem::path expect_file = file;
            expect_file += ".expect";
            if (!std::filesystem::exists(expect_file)) continue;
            std::string expected = read_file(expect_file);
            while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r')) expected.pop_back();
            const std::string answer = miw_fuzz_answer != nullptr ? miw_fuzz_answer(data) : std::string("(this target gives no answers to check)");
            ++checked;
            if (answer != expected) {
                ++wrong;
                std::printf("WRONG %s: answered \"%s\", expected \"%s\"\n", file.c_str(), answer.c_str(), expected.c_str());
            }
        }
    }
    std::printf("replayed %zu inputs, %zu answers checked, %zu wrong\n", count, checked, wrong);
    return count > 0 && wrong == 0 ? 0 : 1;
}
