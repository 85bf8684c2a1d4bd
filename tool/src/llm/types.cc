#include "llm/types.h"

namespace kernelblaster::llm {

const char* role_name(Role role) {
  switch (role) {
    case Role::system: return "system";
    case Role::assistant: return "assistant";
    case Role::user: break;
  }
  return "user";
}

}  // namespace kernelblaster::llm
