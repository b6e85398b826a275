// Devices a program value can live on.
#pragma once

#include <optional>
#include <string_view>

namespace mmdiff {

enum class Device { kCpu, kCuda, kMeta };

std::string_view DeviceName(Device d);  // "cpu", "cuda", "meta"
std::optional<Device> ParseDevice(std::string_view name);

}  // namespace mmdiff
