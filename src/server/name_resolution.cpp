#include "name_resolution.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace miw::server {

namespace {

std::atomic<int> outstanding{0};

struct Lookup {
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    Resolved result;
};

}  // namespace

Resolved system_name_lookup(const std::string& host, const std::string& port) {
    Resolved out;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
    addrinfo* list = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &list); rc != 0) {
        out.error = "cannot resolve " + host + ": " + gai_strerror(rc);
        return out;
    }
    for (const addrinfo* a = list; a != nullptr; a = a->ai_next) {
        boost::asio::ip::tcp::endpoint endpoint;
        if (a->ai_addrlen > endpoint.capacity()) continue;
        std::memcpy(endpoint.data(), a->ai_addr, a->ai_addrlen);
        endpoint.resize(a->ai_addrlen);
        out.endpoints.push_back(endpoint);
    }
    freeaddrinfo(list);
    if (out.endpoints.empty()) out.error = "cannot resolve " + host + ": no address";
    return out;
}

Resolved resolve_until(const std::string& host, const std::string& port, std::chrono::steady_clock::time_point deadline, NameLookup lookup_name) {
    boost::system::error_code ec;
    const boost::asio::ip::address address = boost::asio::ip::make_address(host, ec);
    if (!ec) {
        Resolved out;
        unsigned long number = 0;
        try {
            number = std::stoul(port);
        } catch (...) {
            number = 65536;
        }
        if (number > 65535) {
            out.error = "the port \"" + port + "\" is not a port number";
            return out;
        }
        out.endpoints.emplace_back(address, static_cast<unsigned short>(number));
        return out;
    }
    if (outstanding.fetch_add(1) >= kMaxNameLookupsOutstanding) {
        outstanding.fetch_sub(1);
        Resolved out;
        out.error = "cannot resolve " + host + ": " + std::to_string(kMaxNameLookupsOutstanding) + " earlier name lookups have not finished (a DNS server that does not answer?)";
        return out;
    }
    auto lookup = std::make_shared<Lookup>();
    try {
        std::thread([lookup, host, port, lookup_name] {
            Resolved result = lookup_name(host, port);
            {
                std::lock_guard lock(lookup->mutex);
                lookup->result = std::move(result);
                lookup->done = true;
            }
            lookup->finished.notify_all();
            outstanding.fetch_sub(1);
        }).detach();
    } catch (const std::system_error& e) {  // no thread to be had: the system's limit
        outstanding.fetch_sub(1);
        Resolved out;
        out.error = "cannot resolve " + host + ": no thread for the lookup (" + e.what() + ")";
        return out;
    }
    std::unique_lock lock(lookup->mutex);
    if (!lookup->finished.wait_until(lock, deadline, [&] { return lookup->done; })) {
        Resolved out;
        out.timed_out = true;
        out.error = "no answer from DNS for " + host + " within the time allowed";
        return out;
    }
    return std::move(lookup->result);
}

}  // namespace miw::server
