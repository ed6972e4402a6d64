// What every warning an answer carries must be, whatever the input: what the
// apiserver passes on whole (design.md section 3), built so by the rules
// themselves (the answer's writer is not counted on to cut it).
#pragma once

#include "model_image_webhook/text.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace miw::fuzz {

inline bool warning_fits(std::string_view w) {
    if (w.size() > kMaxWarningBytes) return false;
    for (std::size_t i = 0; i < w.size();) {
        const CodePoint cp = code_point_at(w, i);
        if (cp.length == 0) return false;  // not UTF-8
        if (cp.value < 0x20 || (cp.value >= 0x7f && cp.value <= 0x9f)) return false;  // C0, DEL, C1
        i += cp.length;
    }
    return true;
}

inline bool warnings_fit(const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings) {
        if (!warning_fits(w)) return false;
    }
    return true;
}

}  // namespace miw::fuzz
