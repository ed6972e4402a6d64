#include "listener.hpp"

#include "log.hpp"

#include <boost/asio/ip/v6_only.hpp>

namespace miw::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

Result<tcp::endpoint> parse_listen_address(const std::string& text) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos) return fail("\"" + text + "\" is not HOST:PORT");
    std::string host = text.substr(0, colon);
    const std::string port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) host = "0.0.0.0";
    unsigned long port_number = 0;
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || (port_number = std::stoul(port)) > 65535) {
        return fail("\"" + text + "\" has no valid port");
    }
    boost::system::error_code ec;
    const auto address = net::ip::make_address(host, ec);
    if (ec) return fail("\"" + host + "\" is not an IP address");
    return tcp::endpoint(address, static_cast<unsigned short>(port_number));
}

Listener::Listener(net::io_context& io, std::vector<net::io_context*> workers, const tcp::endpoint& endpoint, ServerContext& context, Port port,
                   const TlsContextProvider* tls)
    : workers_(std::move(workers)), acceptor_(io), retry_(io), context_(context), port_(port), tls_(tls) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    if (endpoint.address().is_v6()) acceptor_.set_option(net::ip::v6_only(false));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
}

void Listener::run() { accept(); }

void Listener::stop() {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
        boost::system::error_code ignored;
        self->acceptor_.close(ignored);
        self->retry_.cancel();
    });
}

void Listener::accept() {
    // Every connection is taken from the kernel's backlog at once: one left
    // there would make a real client wait behind whatever fills it.
    net::io_context& worker = *workers_[next_worker_++ % workers_.size()];
    acceptor_.async_accept(worker.get_executor(), [self = shared_from_this()](boost::system::error_code ec, Socket socket) {
        if (ec == net::error::operation_aborted || !self->acceptor_.is_open()) return;
        if (ec) {
            // Out of file descriptors or the like: back off instead of spinning.
            Log::instance().error("accept failed", {{"reason", ec.message()}});
            self->retry_.expires_after(std::chrono::milliseconds(100));
            self->retry_.async_wait([self](boost::system::error_code wait_ec) {
                if (!wait_ec) self->accept();
            });
            return;
        }
        // At --max-connections, the oldest connection that has not begun a
        // request makes room; with none, the new one is closed.
        const bool full = self->port_ == Port::admission && self->context_.admission_connections >= self->context_.limits.max_connections;
        if (full && !self->context_.unserved.evict_oldest()) {
            self->context_.state.metrics.connection_rejected();
            boost::system::error_code ignored;
            socket.close(ignored);
        } else {
            socket.set_option(tcp::no_delay(true), ec);
            start_session(std::move(socket), self->tls_ ? self->tls_->current() : nullptr, self->context_, self->port_);
        }
        self->accept();
    });
}

}  // namespace miw::server
