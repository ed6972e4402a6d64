// The libcurl transport against a plain-HTTP server on a loopback socket:
// what it sends (Host names the host connected to), what it reads (every
// WWW-Authenticate field, the cap), what it does not do (follow a redirect,
// wait past its deadline), and connections kept for the next request.
// TLS, proxies and certificates: tests/integration/registry_test.py.
#include "../../../src/server/registry/curl_transport.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace miw;
using namespace miw::server;
using namespace std::chrono_literals;

namespace {

// Answers each request head it reads with what `reply` returns for it, on
// kept-alive connections; counts the connections it accepted.
class LoopbackServer {
public:
    explicit LoopbackServer(std::function<std::string(const std::string&)> reply) : reply_(std::move(reply)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        REQUIRE(::listen(listener_, 16) == 0);
        socklen_t len = sizeof addr;
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        acceptor_ = std::thread([this] { accept_loop(); });
    }
    ~LoopbackServer() {
        stopping_ = true;
        ::shutdown(listener_, SHUT_RDWR);
        ::close(listener_);
        acceptor_.join();
        std::lock_guard lock(mutex_);
        for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
        for (std::thread& t : serving_) t.join();
        for (int fd : connections_) ::close(fd);
    }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
    int accepted() const { return accepted_; }
    std::vector<std::string> heads() const {
        std::lock_guard lock(mutex_);
        return heads_;
    }

private:
    void accept_loop() {
        while (!stopping_) {
            const int fd = ::accept(listener_, nullptr, nullptr);
            if (fd < 0) return;
            ++accepted_;
            std::lock_guard lock(mutex_);
            connections_.push_back(fd);
            serving_.emplace_back([this, fd] { serve(fd); });
        }
    }
    void serve(int fd) {
        std::string buffer;
        char chunk[4096];
        while (true) {
            const std::size_t end = buffer.find("\r\n\r\n");
            if (end != std::string::npos) {
                const std::string head = buffer.substr(0, end + 4);
                buffer.erase(0, end + 4);
                {
                    std::lock_guard lock(mutex_);
                    heads_.push_back(head);
                }
                const std::string out = reply_(head);
                if (out.empty()) continue;  // silent: the client's deadline must end it
                if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL) < 0) return;
                continue;
            }
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) return;
            buffer.append(chunk, static_cast<std::size_t>(n));
        }
    }

    std::function<std::string(const std::string&)> reply_;
    int listener_ = -1;
    unsigned short port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> accepted_{0};
    std::thread acceptor_;
    mutable std::mutex mutex_;
    std::vector<int> connections_;
    std::vector<std::thread> serving_;
    std::vector<std::string> heads_;
};

std::string http_answer(int status, const std::string& extra_headers, const std::string& body) {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\n" + extra_headers + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

Deadline soon() { return std::chrono::steady_clock::now() + 5s; }

std::unique_ptr<CurlTransport> transport() {
    auto made = CurlTransport::create("");
    REQUIRE(made);
    return std::move(*made);
}

HttpRequest get(const std::string& url, std::size_t max_body = 1 << 20) {
    HttpRequest r;
    r.url = url;
    r.headers = {{"Accept", "application/vnd.oci.image.manifest.v1+json"}, {"Authorization", "Bearer tok"}};
    r.max_body = max_body;
    return r;
}

}  // namespace

TEST_CASE("a request names the host connected to, and its headers go as given", "[registry_curl_transport]") {
    LoopbackServer server([](const std::string&) { return http_answer(200, "Content-Type: application/json\r\n", "{}"); });
    const auto t = transport();
    const HttpResponse got = t->send(get(server.url("/v2/team/qwen/manifests/sha256:abc")), soon());
    CHECK(got.failure == RegistryFailure::none);
    CHECK(got.status == 200);
    CHECK(got.body == "{}");
    CHECK(got.content_type == "application/json");
    const std::string head = server.heads().at(0);
    CHECK(head.rfind("GET /v2/team/qwen/manifests/sha256:abc HTTP/1.1\r\n", 0) == 0);
    CHECK(head.find("\r\nHost: 127.0.0.1:") != std::string::npos);
    CHECK(head.find("\r\nAccept: application/vnd.oci.image.manifest.v1+json\r\n") != std::string::npos);
    CHECK(head.find("\r\nAuthorization: Bearer tok\r\n") != std::string::npos);
    CHECK(head.find("User-Agent: model-image-webhook") != std::string::npos);
}

TEST_CASE("a request without an Accept of its own sends none, whatever other headers begin with", "[registry_curl_transport]") {
    LoopbackServer server([](const std::string&) { return http_answer(200, "", "{}"); });
    const auto t = transport();
    HttpRequest r;
    r.url = server.url("/v2/token");
    r.headers = {{"Accept-Language", "en"}};
    r.max_body = 1024;
    REQUIRE(t->send(r, soon()).status == 200);
    const std::string head = server.heads().at(0);
    CHECK(head.find("\r\nAccept-Language: en\r\n") != std::string::npos);
    CHECK(head.find("\r\nAccept: ") == std::string::npos);  // not libcurl's */*
}

TEST_CASE("every WWW-Authenticate field of an answer is read", "[registry_curl_transport]") {
    LoopbackServer server([](const std::string&) {
        return http_answer(401, "WWW-Authenticate: Negotiate\r\nWWW-Authenticate: Bearer realm=\"https://auth.example/token\"\r\n", "");
    });
    const auto t = transport();
    const HttpResponse got = t->send(get(server.url("/v2/")), soon());
    CHECK(got.status == 401);
    REQUIRE(got.www_authenticate.size() == 2);
    CHECK(got.www_authenticate[0] == "Negotiate");
    CHECK(got.www_authenticate[1] == "Bearer realm=\"https://auth.example/token\"");
}

TEST_CASE("connections are kept for the next request", "[registry_curl_transport]") {
    LoopbackServer server([](const std::string&) { return http_answer(200, "", "{}"); });
    const auto t = transport();
    for (int i = 0; i < 5; ++i) REQUIRE(t->send(get(server.url("/v2/x/manifests/" + std::to_string(i))), soon()).status == 200);
    CHECK(server.accepted() == 1);
    CHECK(server.heads().size() == 5);
}

TEST_CASE("an answer over its cap is not read", "[registry_curl_transport]") {
    LoopbackServer server([](const std::string&) { return http_answer(200, "", std::string(200000, 'x')); });
    const auto t = transport();
    const HttpResponse got = t->send(get(server.url("/v2/x"), 4096), soon());
    CHECK(got.failure == RegistryFailure::too_large);
    CHECK(got.body.size() <= 4096);
    CHECK(got.error.find("larger than 4096 bytes") != std::string::npos);
}

TEST_CASE("a redirect is answered as it came, never followed", "[registry_curl_transport]") {
    LoopbackServer server([](const std::string&) { return http_answer(307, "Location: http://127.0.0.1:1/elsewhere?sig=s3cret\r\n", ""); });
    const auto t = transport();
    const HttpResponse got = t->send(get(server.url("/v2/x")), soon());
    CHECK(got.status == 307);
    CHECK(got.location == "http://127.0.0.1:1/elsewhere?sig=s3cret");
    CHECK(server.heads().size() == 1);
}

TEST_CASE("a silent server costs the deadline, no more", "[registry_curl_transport]") {
    LoopbackServer server([](const std::string&) { return std::string(); });
    const auto t = transport();
    const auto started = std::chrono::steady_clock::now();
    const HttpResponse got = t->send(get(server.url("/v2/x")), started + 300ms);
    CHECK(got.failure == RegistryFailure::timeout);
    CHECK(std::chrono::steady_clock::now() - started < 3s);
    const HttpResponse late = t->send(get(server.url("/v2/x")), std::chrono::steady_clock::now() - 1s);
    CHECK(late.failure == RegistryFailure::timeout);
}

TEST_CASE("nothing but http and https is spoken, and a refused connection is unreachable", "[registry_curl_transport]") {
    const auto t = transport();
    CHECK(t->send(get("file:///etc/passwd"), soon()).failure == RegistryFailure::bad_answer);
    CHECK(t->send(get("gopher://127.0.0.1/x"), soon()).failure == RegistryFailure::bad_answer);
    CHECK(t->send(get("http://127.0.0.1:1/v2/"), soon()).failure == RegistryFailure::unreachable);
}

TEST_CASE("an unreadable or empty --registry-ca is refused at start-up", "[registry_curl_transport]") {
    const auto missing = CurlTransport::create("/nonexistent/ca.pem");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().find("cannot be read") != std::string::npos);
    const auto empty = CurlTransport::create("/dev/null");
    REQUIRE_FALSE(empty);
    CHECK(empty.error().find("holds no PEM certificate") != std::string::npos);
}

namespace {

// `openssl s_server -www` on a loopback port with a certificate from a CA made here.
class TlsServer {
public:
    TlsServer() {
        char pattern[] = "/tmp/miw-tls-XXXXXX";
        dir_ = mkdtemp(pattern);
        const std::string script = std::string(MIW_SOURCE_DIR) + "/certs/gen-certs.sh";
        REQUIRE(std::system(("bash " + script + " --out " + dir_ + "/certs >/dev/null 2>&1").c_str()) == 0);
        REQUIRE(std::system(("bash " + script + " --out " + dir_ + "/other >/dev/null 2>&1").c_str()) == 0);
        const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        socklen_t len = sizeof addr;
        ::getsockname(probe, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        ::close(probe);
        pid_ = fork();
        if (pid_ == 0) {
            const std::string accept = "127.0.0.1:" + std::to_string(port_), cert = dir_ + "/certs/tls.crt", key = dir_ + "/certs/tls.key";
            execlp("openssl", "openssl", "s_server", "-accept", accept.c_str(), "-cert", cert.c_str(), "-key", key.c_str(), "-www", "-quiet", nullptr);
            _exit(127);
        }
        for (int i = 0; i < 100; ++i) {
            const int s = ::socket(AF_INET, SOCK_STREAM, 0);
            const bool up = ::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
            ::close(s);
            if (up) return;
            std::this_thread::sleep_for(50ms);
        }
        FAIL("openssl s_server did not start");
    }
    ~TlsServer() {
        if (pid_ > 0) ::kill(pid_, SIGKILL);
        std::system(("rm -rf " + dir_).c_str());
    }
    std::string url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/"; }
    std::string ca() const { return dir_ + "/certs/ca.crt"; }
    std::string other_ca() const { return dir_ + "/other/ca.crt"; }

private:
    std::string dir_;
    unsigned short port_ = 0;
    pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("a host's own CA is trusted for its requests alone, and skip_verify verifies nothing", "[registry_curl_transport]") {
    TlsServer server;
    const auto t = transport();
    struct Case {
        const char* name;
        std::string ca_file;
        bool skip_verify;
        RegistryFailure failure;
    };
    const Case cases[] = {
        {"the system's roots alone refuse it", "", false, RegistryFailure::tls},
        {"its CA trusted for this request", server.ca(), false, RegistryFailure::none},
        {"the same request again, still trusted", server.ca(), false, RegistryFailure::none},
        {"another CA refuses it", server.other_ca(), false, RegistryFailure::tls},
        {"and without it again, refused: the CA was this request's alone", "", false, RegistryFailure::tls},
        {"skip_verify answers without verifying", "", true, RegistryFailure::none},
        {"a CA file that holds no certificate", "/dev/null", false, RegistryFailure::tls},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        HttpRequest r = get(server.url());
        if (!c.ca_file.empty()) r.ca_files = {c.ca_file};
        r.skip_verify = c.skip_verify;
        const HttpResponse got = t->send(r, soon());
        CHECK(got.failure == c.failure);
        if (c.failure == RegistryFailure::none) CHECK(got.status == 200);
        if (c.failure == RegistryFailure::tls && c.ca_file != "/dev/null") CHECK_THAT(got.error, Catch::Contains("was refused"));
    }
}

TEST_CASE("a host's CA file that could not be read is read again by the next request", "[registry_curl_transport]") {
    TlsServer server;
    const auto t = transport();
    char pattern[] = "/tmp/miw-late-ca-XXXXXX";
    const std::string dir = mkdtemp(pattern);
    const std::string late = dir + "/ca.crt";  // not there yet: a volume mounted a moment later
    HttpRequest r = get(server.url());
    r.ca_files = {late};
    CHECK(t->send(r, soon()).failure == RegistryFailure::tls);
    REQUIRE(std::system(("cp " + server.ca() + " " + late).c_str()) == 0);
    const HttpResponse now = t->send(r, soon());
    CHECK(now.failure == RegistryFailure::none);
    CHECK(now.status == 200);
    std::system(("rm -rf " + dir).c_str());
}
