#include "client_tls.hpp"

#include <boost/asio/ip/address.hpp>

#include <openssl/x509v3.h>

namespace miw::server {

bool expect_peer_name(SSL* ssl, const std::string& host) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(host, ec);
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (!ec) return X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) == 1;
    return SSL_set_tlsext_host_name(ssl, host.c_str()) == 1 && X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size()) == 1;
}

}  // namespace miw::server
