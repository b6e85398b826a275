// Status accessors.
#include "src/support/status.h"

namespace mmdiff {

const std::string& Status::message() const {
  static const std::string kEmpty;
  return message_ ? *message_ : kEmpty;
}

}  // namespace mmdiff
