#include "commands.hpp"

#include <cstring>
#include <iostream>

#ifndef MIW_VERSION
#define MIW_VERSION "0.0.0-dev"
#endif

namespace {

void print_usage(std::ostream& out) {
    out << "Usage: model-image-webhook COMMAND [OPTIONS]\n\n"
           "Commands:\n"
           "  serve             serve the webhook over HTTPS\n"
           "  review [FILE|-]   answer one AdmissionReview as the server would\n"
           "  test PATH... | -  check manifests with the webhook's decisions (for CI)\n"
           "  verify-bundle     verify a Sigstore bundle (sigstore-conformance's CLI protocol)\n"
           "  version           print the version\n\n"
           "Run 'model-image-webhook COMMAND --help' for a command's options.\n";
}

}  // namespace

int miw::cli::usage_error(std::string_view command, std::string_view message) {
    std::cerr << "model-image-webhook " << command << ": " << message << "\n";
    return kExitInputError;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        print_usage(std::cerr);
        return 2;
    }
    const char* command = argv[1];
    if (std::strcmp(command, "review") == 0) return miw::cli::run_review(argc - 1, argv + 1);
    if (std::strcmp(command, "serve") == 0) return miw::cli::run_serve(argc - 1, argv + 1);
    if (std::strcmp(command, "test") == 0) return miw::cli::run_test(argc - 1, argv + 1);
    if (std::strcmp(command, "verify-bundle") == 0) return miw::cli::run_verify_bundle(argc - 1, argv + 1);
    if (std::strcmp(command, "version") == 0 || std::strcmp(command, "--version") == 0) {
        std::cout << "model-image-webhook " << MIW_VERSION << "\n";
        return 0;
    }
    if (std::strcmp(command, "help") == 0 || std::strcmp(command, "--help") == 0 || std::strcmp(command, "-h") == 0) {
        print_usage(std::cout);
        return 0;
    }
    std::cerr << "model-image-webhook: unknown command \"" << command << "\"; run 'model-image-webhook help' for the commands\n";
    return 2;
}
