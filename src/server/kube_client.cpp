#include "kube_client.hpp"

#include "client_tls.hpp"

#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/api_answers.hpp"
#include "model_image_webhook/text.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>

#include <openssl/x509v3.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <type_traits>
#include <iterator>

namespace miw::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

std::string read_small_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
    return out;
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// A streamed response body (a watch): each newline-ended line is handed to
// the callback as it arrives, one line held at a time and none past its cap.
// A status other than 200 is not a stream: its body is kept (capped) instead.
struct LineBody {
    struct value_type {
        std::size_t max_line = 0;
        const std::function<bool(std::string&)>* on_line = nullptr;  // false: stop reading
        std::string line;  // the line being read; the whole body when not streaming
        bool streaming = false;
        bool stopped = false;
        std::chrono::steady_clock::time_point last_data;
    };

    class reader {
    public:
        template <bool IsRequest, class Fields>
        reader(http::header<IsRequest, Fields>& header, value_type& body) : body_(body) {
            if constexpr (!IsRequest) body_.streaming = header.result_int() == 200;
        }

        void init(const boost::optional<std::uint64_t>&, beast::error_code& ec) {
            body_.last_data = std::chrono::steady_clock::now();
            ec = {};
        }

        template <class ConstBuffers>
        std::size_t put(const ConstBuffers& buffers, beast::error_code& ec) {
            ec = {};
            body_.last_data = std::chrono::steady_clock::now();
            std::size_t taken = 0;
            for (auto it = net::buffer_sequence_begin(buffers); it != net::buffer_sequence_end(buffers); ++it) {
                const net::const_buffer piece = *it;
                std::string_view rest(static_cast<const char*>(piece.data()), piece.size());
                while (!rest.empty()) {
                    const std::size_t newline = body_.streaming ? rest.find('\n') : std::string_view::npos;
                    const std::string_view part = rest.substr(0, newline);
                    if (part.size() > body_.max_line - body_.line.size()) {
                        ec = http::error::body_limit;
                        return taken;
                    }
                    body_.line.append(part.data(), part.size());
                    taken += part.size();
                    if (newline == std::string_view::npos) break;
                    ++taken;
                    rest.remove_prefix(newline + 1);
                    if (!deliver(ec)) return taken;
                }
            }
            return taken;
        }

        void finish(beast::error_code& ec) {
            ec = {};
            if (body_.streaming && !body_.line.empty()) deliver(ec);
        }

    private:
        bool deliver(beast::error_code& ec) {
            const bool go_on = body_.line.empty() || (*body_.on_line)(body_.line);
            body_.line.clear();
            if (!go_on) {
                body_.stopped = true;
                ec = net::error::operation_aborted;
            }
            return go_on;
        }
        value_type& body_;
    };
};

// What verifying the apiserver's certificate takes, set on the context before
// any connection is made from it (OpenSSL copies the verify mode into each
// connection when it is made). Without a CA file the system's roots are used,
// as client-go does.
std::optional<std::string> configure_verification(ssl::context& tls, const KubeApiConfig& config) {
    boost::system::error_code ec;
    tls.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
    if (!ec) {
        if (config.ca_file.empty()) tls.set_default_verify_paths(ec);
        else tls.load_verify_file(config.ca_file, ec);
    }
    if (ec) return "cannot load the API CA " + (config.ca_file.empty() ? std::string("(system roots)") : config.ca_file) + ": " + ec.message();
    SSL_CTX_set_min_proto_version(tls.native_handle(), TLS1_2_VERSION);
    return std::nullopt;
}

// One GET, driven on a private io_context until it completes, the deadline
// passes, or stop is set; the io_context going out of scope cancels what is
// left. Body: CappedBody for an answer read whole, LineBody for a watch.
template <class Body>
class Exchange {
public:
    Exchange(const KubeApiConfig& config, ssl::context& tls, const std::string& path, const std::string& token)
        : config_(config), resolver_(io_), stream_(io_, tls) {
        request_.version(11);
        request_.method(http::verb::get);
        request_.target(path);
        request_.set(http::field::host, config.host);
        request_.set(http::field::accept, "application/json");
        request_.set(http::field::user_agent, "model-image-webhook");
        if (!token.empty()) request_.set(http::field::authorization, "Bearer " + token);
        // The body type caps what it keeps. (Not boost::none: Beast 1.74
        // compares a Content-Length with the empty optional as larger.)
        parser_.body_limit(std::numeric_limits<std::uint64_t>::max());
    }

    typename Body::value_type& body() { return parser_.get().body(); }

    // stop: checked every 100 ms; idle: the longest wait for a byte once the
    // answer has begun (zero: only the deadline).
    KubeClient::Response run(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* stop = nullptr,
                             std::chrono::milliseconds idle = std::chrono::milliseconds(0)) {
        if (!expect_peer_name(stream_.native_handle(), config_.host)) return fail("cannot check the API's certificate against \"" + config_.host + "\"");
        resolver_.async_resolve(config_.host, config_.port, [this](boost::system::error_code e, tcp::resolver::results_type results) {
            if (e) return done("cannot resolve " + config_.host + ": " + e.message());
            beast::get_lowest_layer(stream_).async_connect(results, [this](boost::system::error_code e2, const tcp::endpoint&) {
                if (e2) return done("cannot connect: " + e2.message());
                stream_.async_handshake(ssl::stream_base::client, [this](boost::system::error_code e3) {
                    if (e3) return done("TLS handshake failed: " + handshake_failure(e3) + "; no token was sent");
                    http::async_write(stream_, request_, [this](boost::system::error_code e4, std::size_t) {
                        if (e4) return done("cannot send the request: " + e4.message());
                        http::async_read(stream_, buffer_, parser_, [this](boost::system::error_code e5, std::size_t) {
                            if (parser_.is_header_done()) response_.status = static_cast<int>(parser_.get().result_int());
                            if (e5 == http::error::body_limit) return done("the answer is larger than " + std::to_string(limit()) + " bytes; it was not read");
                            if (e5 && stopped_by_reader()) return done({});
                            if (e5) return done("cannot read the answer: " + e5.message());
                            response_.body = take_body();
                            done({});
                        });
                    });
                });
            });
        });
        using namespace std::chrono;
        while (!finished_) {
            const auto now = steady_clock::now();
            if (now >= deadline) break;
            if (stop != nullptr && stop->load()) return fail("stopped");
            if (idle.count() > 0 && idle_since(now) > idle) return fail("no data for " + std::to_string(duration_cast<seconds>(idle).count()) + " s");
            io_.run_for(std::min<steady_clock::duration>(deadline - now, milliseconds(100)));
        }
        if (!finished_) return fail("no answer within the deadline");
        return response_;
    }

private:
    std::size_t limit() {
        if constexpr (std::is_same_v<Body, LineBody>) return body().max_line;
        else return body().limit;
    }
    bool stopped_by_reader() {
        if constexpr (std::is_same_v<Body, LineBody>) return body().stopped;
        else return false;
    }
    std::string take_body() {
        if constexpr (std::is_same_v<Body, LineBody>) return body().streaming ? std::string() : std::move(body().line);
        else return std::move(body().text);
    }
    std::chrono::steady_clock::duration idle_since(std::chrono::steady_clock::time_point now) {
        if constexpr (std::is_same_v<Body, LineBody>) {
            if (parser_.is_header_done() && body().last_data.time_since_epoch().count() != 0) return now - body().last_data;
        }
        return std::chrono::steady_clock::duration::zero();
    }

    // Why the handshake failed, in the words of the certificate check when it
    // was the certificate ("certificate verify failed" alone says little).
    std::string handshake_failure(const boost::system::error_code& ec) {
        const long verify = SSL_get_verify_result(stream_.native_handle());
        if (verify != X509_V_OK) {
            return std::string("the apiserver's certificate was refused (") + X509_verify_cert_error_string(verify) + ") for \"" + config_.host +
                   "\": check --kube-ca-file or the service account's ca.crt";
        }
        return ec.message();
    }
    void done(std::string error) {
        finished_ = true;
        response_.error = std::move(error);
        io_.stop();
    }
    static KubeClient::Response fail(std::string error) {
        KubeClient::Response r;
        r.error = std::move(error);
        return r;
    }

    const KubeApiConfig& config_;
    net::io_context io_;
    tcp::resolver resolver_;
    beast::ssl_stream<beast::tcp_stream> stream_;
    http::request<http::empty_body> request_;
    beast::flat_buffer buffer_{64u << 10};  // unparsed bytes only: the header and a read's worth of body
    http::response_parser<Body> parser_;
    KubeClient::Response response_;
    bool finished_ = false;
};

// A label value (63 characters at most, alphanumerics with '-', '_' and '.'
// inside): anything else cannot be a Node's hostname label and must not
// reach the request's query.
bool valid_label_value(std::string_view value) {
    if (value.empty() || value.size() > 63) return false;
    const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
    if (!alnum(value.front()) || !alnum(value.back())) return false;
    return std::all_of(value.begin(), value.end(), [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// The answer to GET /api/v1/nodes/NAME (one Node) or to a list by label
// selector (the first Node by name carries it).
NodeLookup read_node_answer(std::string& body, const NodeRef& node) {
    NodeLookup out;
    if (node.by == NodeNamedBy::name) {
        StaticNodeSource one("the Kubernetes API");
        if (const Status added = add_nodes_from_json(body, one); !added) {
            out.status = NodeLookupStatus::unavailable;
            out.detail = "the Node could not be read: " + added.error();
            return out;
        }
        return one.lookup(node);
    }
    Result<NodeListPage> page = read_node_list(body);
    if (!page) {
        out.status = NodeLookupStatus::unavailable;
        out.detail = page.error();
        return out;
    }
    NodeMap nodes;
    for (NodeRecord& n : page->items) nodes.emplace(std::move(n.name), std::move(n.info));
    return lookup_in(nodes, node);
}

}  // namespace

std::optional<KubeApiConfig> in_cluster_config() {
    const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
    const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
    if (host == nullptr || *host == '\0') return std::nullopt;
    KubeApiConfig config;
    config.host = host;
    if (port != nullptr && *port != '\0') config.port = port;
    config.token_file = std::string(kServiceAccountDir) + "/token";
    config.ca_file = std::string(kServiceAccountDir) + "/ca.crt";
    if (!file_exists(config.ca_file)) config.ca_file.clear();
    return config;
}

Result<KubeApiConfig> parse_api_url(const std::string& url) {
    constexpr std::string_view scheme = "https://";
    const Failure not_a_url = fail("\"" + url + "\" is not https://HOST[:PORT]");
    if (url.rfind(scheme, 0) != 0) return not_a_url;
    std::string rest = url.substr(scheme.size());
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    if (rest.empty() || rest.find('/') != std::string::npos) return not_a_url;
    KubeApiConfig out;
    const std::size_t colon = rest.rfind(':');
    if (colon != std::string::npos && rest.find(']', colon) == std::string::npos) {
        out.host = rest.substr(0, colon);
        out.port = rest.substr(colon + 1);
    } else {
        out.host = rest;
        out.port = "443";
    }
    if (out.host.size() >= 2 && out.host.front() == '[') out.host = out.host.substr(1, out.host.size() - 2);
    if (out.host.empty() || out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos) return not_a_url;
    return out;
}

KubeClient::KubeClient(KubeApiConfig config) : config_(std::move(config)) {}
KubeClient::~KubeClient() = default;

namespace {

// One GET with a verifying TLS context. The CA bundle and the projected token
// rotate: both are read for every call (calls are few: one per refresh
// interval, a Node list or watch, and Node lookups past the cache).
// set_up_body: what the body of this kind of call is told before it is read.
template <class Body, class SetUp>
KubeClient::Response verified_get(const KubeApiConfig& config, const std::string& path, SetUp set_up_body, std::chrono::steady_clock::time_point deadline,
                                  const std::atomic<bool>* stop, std::chrono::milliseconds idle) {
    ssl::context tls(ssl::context::tls_client);
    if (auto problem = configure_verification(tls, config)) {
        KubeClient::Response r;
        r.error = std::move(*problem);
        return r;
    }
    Exchange<Body> exchange(config, tls, path, config.token_file.empty() ? std::string() : read_small_file(config.token_file));
    set_up_body(exchange.body());
    return exchange.run(deadline, stop, idle);
}

}  // namespace

KubeClient::Response KubeClient::get(const std::string& path, std::size_t max_body, std::chrono::steady_clock::time_point deadline,
                                     const std::atomic<bool>* stop) const {
    return verified_get<CappedBody>(config_, path, [&](CappedBody::value_type& body) { body.limit = max_body; }, deadline, stop, std::chrono::milliseconds(0));
}

KubeClient::Response KubeClient::stream(const std::string& path, std::size_t max_line, std::chrono::steady_clock::time_point deadline,
                                        std::chrono::milliseconds idle, const std::atomic<bool>& stop,
                                        const std::function<bool(std::string&)>& on_line) const {
    return verified_get<LineBody>(config_, path, [&](LineBody::value_type& body) {
        body.max_line = max_line;
        body.on_line = &on_line;
    }, deadline, &stop, idle);
}

Result<std::string> fetch_apiserver_version(const KubeClient& client, std::chrono::milliseconds timeout) {
    KubeClient::Response r = client.get("/version", kMaxVersionAnswerBytes, std::chrono::steady_clock::now() + timeout);
    if (!r.error.empty()) return fail(r.error);
    if (r.status != 200) return fail("GET /version answered " + std::to_string(r.status));
    std::string version = read_git_version(r.body);
    if (version.empty()) return fail("GET /version gave no gitVersion");
    return version;
}

NodeLookup ApiNodeSource::lookup_until(const NodeRef& node, std::chrono::steady_clock::time_point deadline) const {
    const bool by_name = node.by == NodeNamedBy::name;
    // No Node can be named so: nothing is asked.
    if (by_name ? !is_object_name(node.value) : !valid_label_value(node.value)) return NodeLookup{};
    const std::string key = (by_name ? "name/" : "label/") + std::string(node.value);
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(mutex_);
        const auto it = cache_.find(key);
        if (it != cache_.end() && it->second.expires > now) return it->second.lookup;
    }
    // By label, a list by selector; limit=2 keeps the answer small where two share it.
    const std::string path = by_name ? "/api/v1/nodes/" + std::string(node.value)
                                     : "/api/v1/nodes?limit=2&labelSelector=" + percent_encode(std::string(kHostnameLabel) + "=" + std::string(node.value));
    NodeLookup out;
    KubeClient::Response r = client_.get(path, kMaxNodeAnswerBytes, deadline);
    if (!r.error.empty()) {
        out.status = NodeLookupStatus::unavailable;
        out.detail = r.error;
        return out;
    }
    if (r.status == 404 && by_name) {
        out.status = NodeLookupStatus::not_found;
    } else if (r.status != 200) {
        out.status = NodeLookupStatus::unavailable;
        out.detail = "GET " + path + " answered " + std::to_string(r.status);
        return out;
    } else {
        out = read_node_answer(r.body, node);
        if (out.status == NodeLookupStatus::unavailable) return out;
    }
    std::lock_guard lock(mutex_);
    if (cache_.size() > 10000) cache_.clear();  // bounded, whatever names requests bring
    cache_[key] = Cached{out, now + ttl_};
    return out;
}

}  // namespace miw::server
