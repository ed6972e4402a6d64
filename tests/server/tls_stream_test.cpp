// The TLS stream on a loopback socket pair, against Asio's TLS client: a
// round trip, a socket that fills up, a truncated close, a deadline, and a
// client that stops reading.
#include "../../src/server/tls_stream.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>

using namespace miw::server;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

// A serving context with a fresh self-signed P-256 certificate.
std::shared_ptr<ssl::context> server_context() {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(cert, X509_get_subject_name(cert));
    X509_sign(cert, key, EVP_sha256());
    SSL_CTX_use_certificate(ctx->native_handle(), cert);
    SSL_CTX_use_PrivateKey(ctx->native_handle(), key);
    X509_free(cert);
    EVP_PKEY_free(key);
    return ctx;
}

// Runs io until done() (the stream's deadline timer stays armed between
// operations, so io.run() would not return); false if 10 s pass first.
template <class Done>
bool run_until(net::io_context& io, Done done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < give_up) io.run_one_for(std::chrono::milliseconds(10));
    io.restart();
    return done();
}

// One server stream and one Asio client, connected and handshaken.
struct Pair {
    net::io_context io;
    std::shared_ptr<ssl::context> server_tls = server_context();
    ssl::context client_tls{ssl::context::tls_client};
    std::unique_ptr<TlsStream> server;
    ssl::stream<tcp::socket> client{io, client_tls};

    explicit Pair(int client_receive_buffer = 0) {
        client_tls.set_verify_mode(ssl::verify_none);
        tcp::acceptor acceptor(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
        if (client_receive_buffer > 0) client.next_layer().open(tcp::v4()), client.next_layer().set_option(net::socket_base::receive_buffer_size(client_receive_buffer));
        client.next_layer().connect(acceptor.local_endpoint());
        Socket accepted(io.get_executor());
        acceptor.accept(accepted);
        accepted.set_option(net::socket_base::send_buffer_size(4096));
        server = std::make_unique<TlsStream>(std::move(accepted), *server_tls);
        boost::system::error_code server_ec = net::error::would_block, client_ec = net::error::would_block;
        server->async_handshake([&](boost::system::error_code ec) { server_ec = ec; });
        client.async_handshake(ssl::stream_base::client, [&](boost::system::error_code ec) { client_ec = ec; });
        REQUIRE(run_until(io, [&] { return server_ec != net::error::would_block && client_ec != net::error::would_block; }));
        REQUIRE_FALSE(server_ec);
        REQUIRE_FALSE(client_ec);
    }
};

}  // namespace

TEST_CASE("bytes go both ways through the stream", "[tls_stream]") {
    Pair p;
    std::string got(5, '\0');
    std::size_t server_read = 0;
    net::write(p.client, net::buffer(std::string("hello")));
    p.server->async_read_some(net::buffer(got), [&](boost::system::error_code ec, std::size_t n) {
        CHECK_FALSE(ec);
        server_read = n;
    });
    REQUIRE(run_until(p.io, [&] { return server_read > 0; }));
    CHECK(got.substr(0, server_read) == "hello");
    const std::string answer = "world";
    bool written = false;
    net::async_write(*p.server, net::buffer(answer), [&](boost::system::error_code ec, std::size_t) {
        CHECK_FALSE(ec);
        written = true;
    });
    REQUIRE(run_until(p.io, [&] { return written; }));
    std::string reply(5, '\0');
    net::read(p.client, net::buffer(reply));
    CHECK(reply == "world");
}

TEST_CASE("a large answer to a slow reader arrives whole once the socket drains", "[tls_stream]") {
    Pair p(4096);
    const std::string answer(4u << 20, 'a');
    boost::system::error_code write_ec = net::error::would_block;
    std::size_t written = 0;
    p.server->expires_after(std::chrono::seconds(20));
    net::async_write(*p.server, net::buffer(answer), [&](boost::system::error_code ec, std::size_t n) {
        write_ec = ec;
        written = n;
    });
    // The socket is full long before the answer is written: the write waits.
    p.io.run_for(std::chrono::milliseconds(50));
    CHECK(write_ec == net::error::would_block);
    std::string received(answer.size(), '\0');
    std::size_t read = 0;
    std::function<void()> read_more = [&] {
        p.client.async_read_some(net::buffer(&received[read], received.size() - read), [&](boost::system::error_code ec, std::size_t n) {
            CHECK_FALSE(ec);
            read += n;
            if (read < received.size()) read_more();
        });
    };
    read_more();
    REQUIRE(run_until(p.io, [&] { return write_ec != net::error::would_block && read == received.size(); }));
    CHECK_FALSE(write_ec);
    CHECK(written == answer.size());
    CHECK(received == answer);
}

TEST_CASE("a peer that closes without close_notify ends a read as truncated", "[tls_stream]") {
    Pair p;
    // A FIN with no close_notify before it (a close() could reset instead,
    // with the server's session tickets still unread).
    p.client.next_layer().shutdown(tcp::socket::shutdown_send);
    char buffer[16];
    boost::system::error_code read_ec = net::error::would_block;
    p.server->async_read_some(net::buffer(buffer), [&](boost::system::error_code ec, std::size_t) { read_ec = ec; });
    REQUIRE(run_until(p.io, [&] { return read_ec != net::error::would_block; }));
    CHECK(read_ec == ssl::error::stream_truncated);
}

TEST_CASE("a read that waits past its deadline ends in a timeout", "[tls_stream]") {
    Pair p;
    char buffer[16];
    boost::system::error_code read_ec = net::error::would_block;
    const auto start = std::chrono::steady_clock::now();
    p.server->expires_after(std::chrono::milliseconds(100));
    p.server->async_read_some(net::buffer(buffer), [&](boost::system::error_code ec, std::size_t) { read_ec = ec; });
    REQUIRE(run_until(p.io, [&] { return read_ec != net::error::would_block; }));
    CHECK(read_ec == boost::beast::error::timeout);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(90));
}

TEST_CASE("a client that never reads is cut off at the write deadline", "[tls_stream]") {
    Pair p(4096);
    const std::string answer(8u << 20, 'a');
    boost::system::error_code write_ec = net::error::would_block;
    std::size_t written = 0;
    p.server->expires_after(std::chrono::milliseconds(200));
    net::async_write(*p.server, net::buffer(answer), [&](boost::system::error_code ec, std::size_t n) {
        write_ec = ec;
        written = n;
    });
    REQUIRE(run_until(p.io, [&] { return write_ec != net::error::would_block; }));
    CHECK(write_ec == boost::beast::error::timeout);
    CHECK(written < answer.size());
}

TEST_CASE("cancel ends a waiting read at once", "[tls_stream]") {
    Pair p;
    char buffer[16];
    boost::system::error_code read_ec = net::error::would_block;
    p.server->async_read_some(net::buffer(buffer), [&](boost::system::error_code ec, std::size_t) { read_ec = ec; });
    p.io.poll();
    p.io.restart();
    CHECK(read_ec == net::error::would_block);  // nothing to read yet
    p.server->cancel();
    REQUIRE(run_until(p.io, [&] { return read_ec != net::error::would_block; }));
    CHECK(read_ec == net::error::operation_aborted);
}
