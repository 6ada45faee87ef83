#include "npy.h"

#include <fmt/format.h>

#include <fstream>

namespace fa {

std::string write_npy_f32(const std::string& path, const std::vector<float>& data, const std::vector<long>& shape) {
    // Python tuple syntax: "(4, 8, 2, 16)", and "(n,)" for one dimension.
    std::string dims = shape.size() == 1 ? fmt::format("{},", shape[0]) : fmt::format("{}", fmt::join(shape, ", "));
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}), }}", dims);
    // Magic (6) + version (2) + length (2) + header must be a multiple of 64, ending in '\n'.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    if (!out) return fmt::format("--save_tensors: cannot write {}", path);
    const unsigned char prefix[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    out.write(reinterpret_cast<const char*>(prefix), 8);
    const unsigned short len = static_cast<unsigned short>(header.size());
    const char len_le[2] = {static_cast<char>(len & 0xFF), static_cast<char>(len >> 8)};
    out.write(len_le, 2);
    out << header;
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * sizeof(float)));
    return out ? std::string() : fmt::format("--save_tensors: write to {} failed", path);
}

}  // namespace fa
