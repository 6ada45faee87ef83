#include <fmt/format.h>

#include "options.h"
#include "runner.h"
#include "schema.h"

int main(int argc, char** argv) {
    fa::Options opts;
    std::string message;
    if (const int code = fa::parse_options(argc, argv, &opts, &message); code != 0 || !message.empty()) {
        fmt::print(code == 0 ? stdout : stderr, "{}\n", message);
        return code;
    }
    if (opts.schema) {  // before run(): the schema needs no device
        fmt::print("{}", fa::schema_json());
        return 0;
    }
    return fa::run(opts);
}
