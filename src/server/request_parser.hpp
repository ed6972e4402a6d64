// A request's line and the few header fields the server acts on, read by
// Beast's HTTP/1.1 parser without keeping every field: Beast's own message
// allocates each field it receives and files it in a tree (five allocations
// for the apiserver's request), for fields nothing here reads. The strings
// belong to the connection and keep their room between requests. Private to
// src/server.
#pragma once

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/basic_parser.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace miw::server {

struct RequestHead {
    boost::beast::http::verb method = boost::beast::http::verb::unknown;
    std::string method_text;
    std::string target;
    unsigned version = 11;
    // The first of each field, as sent (empty when absent).
    std::string content_type;
    std::string content_length;
    bool expect_continue = false;  // Expect: 100-continue, the first Expect field
    // The request's framing: Host fields received; Transfer-Encoding fields
    // received, and whether each held exactly the coding "chunked".
    unsigned hosts = 0;
    unsigned transfer_encodings = 0;
    bool only_chunked = true;
    bool keep_alive = true;  // from the parser, once the header is read
    // A chunked body as the parser decodes it; a body with a Content-Length
    // is read into it by the session, not through the parser.
    std::string body;

    // Ready for the next request; the strings keep their room.
    void clear() {
        method = boost::beast::http::verb::unknown;
        method_text.clear();
        target.clear();
        version = 11;
        content_type.clear();
        content_length.clear();
        expect_continue = false;
        hosts = transfer_encodings = 0;
        only_chunked = true;
        keep_alive = true;
        body.clear();
        seen_ = Seen{};
    }

    // Between requests a connection keeps no more than a short target and
    // content type (a client may send up to --max-header-bytes of either).
    void give_back_large() {
        for (std::string* text : {&method_text, &target, &content_type, &content_length, &body}) {
            if (text->capacity() > kKeptBytes) std::string().swap(*text);
        }
    }

private:
    static constexpr std::size_t kKeptBytes = 256;
    friend class RequestParser;
    struct Seen {
        bool content_type = false, content_length = false, expect = false;
    };
    Seen seen_;
};

class RequestParser : public boost::beast::http::basic_parser<true> {
public:
    explicit RequestParser(RequestHead& head) : head_(head) {}

private:
    using error_code = boost::beast::error_code;
    using string_view = boost::beast::string_view;
    using field = boost::beast::http::field;
    static std::string_view view(string_view s) { return {s.data(), s.size()}; }

    void on_request_impl(boost::beast::http::verb method, string_view method_text, string_view target, int version, error_code&) override {
        head_.method = method;
        head_.method_text.assign(method_text.data(), method_text.size());
        head_.target.assign(target.data(), target.size());
        head_.version = static_cast<unsigned>(version);
    }
    void on_response_impl(int, string_view, int, error_code&) override {}  // a request parser reads no status line

    void on_field_impl(field name, string_view, string_view value, error_code&) override {
        switch (name) {
            case field::content_type:
                if (!head_.seen_.content_type) head_.content_type.assign(value.data(), value.size());
                head_.seen_.content_type = true;
                break;
            case field::content_length:
                if (!head_.seen_.content_length) head_.content_length.assign(value.data(), value.size());
                head_.seen_.content_length = true;
                break;
            case field::expect:
                if (!head_.seen_.expect) head_.expect_continue = boost::beast::iequals(value, "100-continue");
                head_.seen_.expect = true;
                break;
            case field::host:
                ++head_.hosts;
                break;
            case field::transfer_encoding: {
                ++head_.transfer_encodings;
                std::string_view coding = view(value);
                while (!coding.empty() && (coding.front() == ' ' || coding.front() == '\t')) coding.remove_prefix(1);
                while (!coding.empty() && (coding.back() == ' ' || coding.back() == '\t')) coding.remove_suffix(1);
                if (!boost::beast::iequals(string_view(coding.data(), coding.size()), "chunked")) head_.only_chunked = false;
                break;
            }
            default:
                break;
        }
    }
    void on_header_impl(error_code&) override { head_.keep_alive = keep_alive(); }
    void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
    std::size_t on_body_impl(string_view body, error_code&) override {
        head_.body.append(body.data(), body.size());
        return body.size();
    }
    void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
    std::size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code&) override {
        head_.body.append(body.data(), body.size());
        return body.size();
    }
    void on_finish_impl(error_code&) override {}

    RequestHead& head_;
};

}  // namespace miw::server
