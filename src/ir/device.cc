// Device names.
#include "src/ir/device.h"

namespace mmdiff {

std::string_view DeviceName(Device d) {
  switch (d) {
    case Device::kCpu:
      return "cpu";
    case Device::kCuda:
      return "cuda";
    case Device::kMeta:
      return "meta";
  }
  return "?";
}

std::optional<Device> ParseDevice(std::string_view name) {
  if (name == "cpu") return Device::kCpu;
  if (name == "cuda") return Device::kCuda;
  if (name == "meta") return Device::kMeta;
  return std::nullopt;
}

}  // namespace mmdiff
