// Accepts connections on one address and hands each to a session, up to
// --max-connections open at once.
#pragma once

#include "session.hpp"
#include "tls.hpp"

#include "model_image_webhook/result.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace miw::server {

class Listener : public std::enable_shared_from_this<Listener> {
public:
    // Accepts on io and hands each connection to the next of `workers` in
    // turn. tls null: plain HTTP. Throws at start-up when the address cannot
    // be bound.
    Listener(boost::asio::io_context& io, std::vector<boost::asio::io_context*> workers, const boost::asio::ip::tcp::endpoint& endpoint,
             ServerContext& context, Port port, const TlsContextProvider* tls);

    void run();
    void stop();  // closes the listening socket; open connections go on
    boost::asio::ip::tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }

private:
    void accept();

    std::vector<boost::asio::io_context*> workers_;
    std::size_t next_worker_ = 0;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer retry_;
    ServerContext& context_;
    Port port_;
    const TlsContextProvider* tls_;
};

// "0.0.0.0:8443", "127.0.0.1:0", "[::1]:8443", ":8443".
Result<boost::asio::ip::tcp::endpoint> parse_listen_address(const std::string& text);

}  // namespace miw::server
