#include <fmt/format.h>

#include "options.h"
#include "runner.h"

int main(int argc, char** argv) {
    fa::Options opts;
    std::string message;
    if (const int code = fa::parse_options(argc, argv, &opts, &message); code != 0 || !message.empty()) {
        fmt::print(code == 0 ? stdout : stderr, "{}\n", message);
        return code;
    }
    return fa::run(opts);
}
